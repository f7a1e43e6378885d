//! Splits the shell command lines that kbuild saves (`savedcmd_... := ...`) into commands and
//! words: POSIX quoting (`'...'`, `"..."`, `\`), `;`, `&&` and `||` between commands, and
//! leading `NAME=value` environment assignments.

/// One simple command: its environment assignments and its words.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    /// `NAME=value` assignments before the program, unquoted.
    pub env: Vec<(String, String)>,
    /// The program and its arguments, unquoted.
    pub words: Vec<String>,
}

/// A quote left open.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unterminated {0} quote")]
pub struct ShellError(pub &'static str);

/// Splits `line` into simple commands.
pub fn split_commands(line: &str) -> Result<Vec<SimpleCommand>, ShellError> {
    let mut commands = Vec::new();
    let mut words: Vec<(String, Option<usize>)> = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quoted: Option<usize> = None;
    // What is left of the line.
    let mut rest = line;
    // `quoted` is where in the word quoting first began: an assignment's name must come before.
    let finish_word = |word: &mut String,
                       in_word: &mut bool,
                       quoted: &mut Option<usize>,
                       words: &mut Vec<(String, Option<usize>)>| {
        if *in_word {
            words.push((std::mem::take(word), quoted.take()));
            *in_word = false;
        }
    };
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        match c {
            '\'' => {
                in_word = true;
                quoted.get_or_insert(word.len());
                let Some(end) = rest.find('\'') else { return Err(ShellError("single")) };
                word.push_str(&rest[..end]);
                rest = &rest[end + 1..];
            }
            '"' => {
                in_word = true;
                quoted.get_or_insert(word.len());
                let mut chars = rest.char_indices();
                loop {
                    match chars.next() {
                        Some((i, '"')) => {
                            rest = &rest[i + 1..];
                            break;
                        }
                        Some((_, '\\')) => match chars.next() {
                            Some((_, c @ ('"' | '\\' | '$' | '`'))) => word.push(c),
                            Some((_, '\n')) => {}
                            Some((_, c)) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(ShellError("double")),
                        },
                        Some((_, c)) => word.push(c),
                        None => return Err(ShellError("double")),
                    }
                }
            }
            '\\' => {
                in_word = true;
                quoted.get_or_insert(word.len());
                if let Some(c) = rest.chars().next() {
                    rest = &rest[c.len_utf8()..];
                    if c != '\n' {
                        word.push(c);
                    }
                }
            }
            ';' | '&' | '|' => {
                if matches!(c, '&' | '|') && rest.starts_with(c) {
                    rest = &rest[1..];
                }
                finish_word(&mut word, &mut in_word, &mut quoted, &mut words);
                commands.push(simple_command(std::mem::take(&mut words)));
            }
            c if c.is_whitespace() => finish_word(&mut word, &mut in_word, &mut quoted, &mut words),
            c => {
                // The rest of a run of plain ASCII characters, at once.
                in_word = true;
                let end = rest.bytes().position(|b| !b.is_ascii() || is_special(b.into()));
                let end = end.unwrap_or(rest.len());
                word.reserve(c.len_utf8() + end);
                word.push(c);
                word.push_str(&rest[..end]);
                rest = &rest[end..];
            }
        }
    }
    finish_word(&mut word, &mut in_word, &mut quoted, &mut words);
    commands.push(simple_command(words));
    commands.retain(|c| !c.words.is_empty() || !c.env.is_empty());
    Ok(commands)
}

/// A character that ends a run of plain ones: a quote, an escape, a separator or a blank.
fn is_special(c: char) -> bool {
    matches!(c, '\'' | '"' | '\\' | ';' | '&' | '|') || c.is_whitespace()
}

fn simple_command(words: Vec<(String, Option<usize>)>) -> SimpleCommand {
    let mut command = SimpleCommand::default();
    for (word, quoted) in words {
        // Assignments come before the program only.
        if command.words.is_empty()
            && let Some((name, value)) = word.split_once('=')
            && is_name(name)
            && quoted.is_none_or(|q| name.len() < q)
        {
            command.env.push((name.to_owned(), value.to_owned()));
            continue;
        }
        command.words.push(word);
    }
    command
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    fn check(line: &str, expect: Expect) {
        let actual = match split_commands(line) {
            Ok(commands) => commands
                .iter()
                .map(|c| format!("env={:?} words={:?}\n", c.env, c.words))
                .collect::<String>(),
            Err(e) => format!("error: {e}\n"),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn kbuild_rustc_line_with_env_quotes_and_a_second_command() {
        check(
            "RUST_MODFILE=samples/rust/rust_minimal rustc --edition=2021 -Zcrate-attr='feature(a,b)' \
             -Clink-args=' ' --crate-name rust_minimal x.rs  ; ./tools/objtool/objtool --link x.o",
            expect![[r#"
                env=[("RUST_MODFILE", "samples/rust/rust_minimal")] words=["rustc", "--edition=2021", "-Zcrate-attr=feature(a,b)", "-Clink-args= ", "--crate-name", "rust_minimal", "x.rs"]
                env=[] words=["./tools/objtool/objtool", "--link", "x.o"]
            "#]],
        );
    }

    #[test]
    fn separators_and_escapes() {
        check(
            r#"a "b \"c\" $d" e\ f;g && h || i 'x;y'"#,
            expect![[r#"
                env=[] words=["a", "b \"c\" $d", "e f"]
                env=[] words=["g"]
                env=[] words=["h"]
                env=[] words=["i", "x;y"]
            "#]],
        );
        check(
            r#"ab'c d'ef"g"h\ i;é-ü"#,
            expect![[r#"
                env=[] words=["abc defgh i"]
                env=[] words=["é-ü"]
            "#]],
        );
        // A blank that is not ASCII ends a word too, as it did in a run of plain characters.
        check(
            "a\u{a0}b c\u{2003}d;e",
            expect![[r#"
                env=[] words=["a", "b", "c", "d"]
                env=[] words=["e"]
            "#]],
        );
        check(
            "cmd ;objcopy a",
            expect![[r#"
            env=[] words=["cmd"]
            env=[] words=["objcopy", "a"]
        "#]],
        );
    }

    #[test]
    fn assignments_only_before_the_program_and_unquoted() {
        check(
            "A=1 B='2 3' prog C=4 'D=5'",
            expect![[r#"
                env=[("A", "1"), ("B", "2 3")] words=["prog", "C=4", "D=5"]
            "#]],
        );
        check(
            "'A=1' prog",
            expect![[r#"
            env=[] words=["A=1", "prog"]
        "#]],
        );
    }

    #[test]
    fn unterminated_quotes_are_errors() {
        check(
            "rustc 'abc",
            expect![[r#"
            error: unterminated single quote
        "#]],
        );
        check(
            "rustc \"abc",
            expect![[r#"
            error: unterminated double quote
        "#]],
        );
    }
}
