//! No input makes the rules panic: token soup built from what the rules look for (generated,
//! deterministic), and real kernel-style text cut at every line.

use lint_rules::{Config, FileContext};

const PIECES: &[&str] = &[
    "unsafe",
    " ",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    "\n",
    "// SAFETY: ",
    "// SAFETY: TODO",
    "/// ",
    "//! ",
    "```",
    "```ignore",
    "# ",
    "#",
    "panic!",
    "!",
    ".unwrap()",
    ".expect(",
    "impl ",
    "fn ",
    "pub ",
    "const ",
    "static ",
    "struct S",
    "Self",
    "core::ffi::",
    "c_int",
    "bindings::",
    "kernel::",
    "use ",
    "'",
    "\"",
    "é",
    "/*",
    "*/",
    "#[allow(",
    "#[expect(",
    "clippy::x",
    "// lint-allow(",
    "// lint-allow-item(",
    "no-panic",
    "): ",
    "1.0",
    "2f32",
    "f64",
    "Box::new(",
    "vec![",
    "$",
    "macro_rules! m ",
    "=>",
    "# Invariants",
    "# Safety",
    "# Panics",
    "include/linux/a.h",
    "srctree/",
    "// INVARIANT: ",
    "..",
    "*const ",
    "trait ",
    "mod ",
    "#[cfg(test)]",
    "#[test]",
];

fn lint_all(name: &str, text: &str) {
    for path in
        [format!("rust/kernel/{name}"), format!("drivers/x/{name}"), format!("rust/macros/{name}")]
    {
        let _ = lint_rules::lint_file(
            &FileContext::for_path(&path),
            text,
            &Config::default(),
            Vec::new(),
        );
    }
}

#[test]
fn token_soup_does_not_panic() {
    for (i, text) in kbuild::testing::garbage(0x1147, PIECES, 3000).iter().enumerate() {
        lint_all(&format!("soup{i}.rs"), text);
    }
}

#[test]
fn fixtures_cut_at_every_line_do_not_panic() {
    let text = std::fs::read_to_string("src/rules/safety_comment/fixture.rs").unwrap()
        + &std::fs::read_to_string("src/rules/no_panic/fixture.rs").unwrap()
        + &std::fs::read_to_string("tests/fixtures/rust/kernel/suppressions.rs").unwrap();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        at += line.len();
        lint_all("cut.rs", &text[..at]);
        // And cut in the middle of the line.
        let mid = (at - line.len()..at)
            .find(|&i| text.is_char_boundary(i) && i > at - line.len() + line.len() / 2);
        if let Some(mid) = mid {
            lint_all("cut.rs", &text[..mid]);
        }
    }
}
