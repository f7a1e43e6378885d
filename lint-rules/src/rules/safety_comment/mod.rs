//! `safety-comment`: every `unsafe` block and `unsafe impl` is preceded by a `// SAFETY:`
//! comment, in code (macros included) and in doctests.
//!
//! Test data: `fixture.rs` beside this file, which `tests/rules.rs` lints as
//! `rust/kernel/safety_comment.rs` against `tests/golden/rust/kernel/safety_comment.txt`.

use ra_ap_syntax::ast::{self, AstNode, AstToken};
use ra_ap_syntax::{Edition, SourceFile, SyntaxToken, T};

use super::util::{
    in_macro_rules_matcher, is_safety_comment, next_code, prev_code, statement_comments,
};
use crate::lines::LineIndex;
use crate::rule::{Check, Cx, DocLine, Level, Rule};

/// The rule's catalogue entry, with its checks.
pub(crate) static RULE: Rule = Rule {
    id: "safety-comment",
    summary: "every `unsafe` block and `unsafe impl` is preceded by a `// SAFETY:` comment",
    rationale: "\"Any `unsafe` block must be preceded by a `// SAFETY:` comment describing why \
                the code inside is sound\" (Documentation/rust/coding-guidelines.rst, \
                \"Comments\" and \"Code documentation\").",
    good: "fn f(p: *const u8) -> u8 {\n    // SAFETY: `p` is valid by the function's requirements.\n    unsafe { *p }\n}\n",
    bad: "fn f(p: *const u8) -> u8 {\n    unsafe { *p }\n}\n",
    default_level: Level::Error,
    clippy: &["clippy::undocumented_unsafe_blocks"],
    check: Check { token: Some(check_token), doc: Some(check_doc), ..Check::NONE },
};

fn check_token(cx: &mut Cx<'_>, i: usize) {
    let tokens = cx.tokens;
    let t = &tokens[i];
    if t.kind() != T![unsafe] {
        return;
    }
    let next = next_code(tokens, i).map(|n| n.kind());
    if !matches!(next, Some(T!['{'] | T![impl])) {
        return;
    }
    // `$unsafe` is a macro's metavariable, and a matcher is a pattern: neither is code.
    if prev_code(tokens, i).is_some_and(|(_, p)| p.kind() == T![$]) || in_macro_rules_matcher(t) {
        return;
    }
    let comments = statement_comments(tokens, i);
    let is_impl = next == Some(T![impl]);
    let what = if is_impl { "`unsafe impl`" } else { "`unsafe` block" };
    // An `unsafe impl` may carry its justification as documentation (`/// SAFETY:`),
    // which clippy's `undocumented_unsafe_blocks` accepts too.
    let justified = |c: &&SyntaxToken| is_safety_comment(c) || is_impl && is_doc_safety_comment(c);
    if !comments.iter().any(justified) {
        cx.push_token(
            &RULE,
            t,
            format!("{what} without a preceding `// SAFETY:` comment"),
            Some("say why it is sound in a `// SAFETY:` comment just before it"),
        );
    }
}

/// A doc comment whose text starts with `SAFETY:` (`/// SAFETY: ...` before an `unsafe impl`).
fn is_doc_safety_comment(t: &SyntaxToken) -> bool {
    ast::Comment::cast(t.clone()).is_some_and(|c| {
        c.is_outer()
            && c.doc_comment().is_some_and(|(text, _)| text.trim_start().starts_with("SAFETY:"))
    })
}

/// The `unsafe` rule in doctests: each built code block, with rustdoc's hidden `# ` lines
/// shown, is parsed as a function body and checked like code (doctests are kernel code: they
/// run as KUnit tests, and readers copy them).
fn check_doc(cx: &mut Cx<'_>, lines: &[DocLine<'_>]) {
    let mut k = 0;
    while k < lines.len() {
        let fence = lines[k].0.trim_start();
        let Some(info) = fence.strip_prefix("```") else {
            k += 1;
            continue;
        };
        let end = lines[k + 1..]
            .iter()
            .position(|(l, _)| l.trim_start().starts_with("```"))
            .map_or(lines.len(), |e| k + 1 + e);
        if is_built_doctest(info) {
            doctest(cx, &lines[k + 1..end]);
        }
        k = end + 1;
    }
}

/// Whether a code fence's info string (after the backticks) is a Rust doctest that is built:
/// rustdoc's default, `rust`, `no_run`, `should_panic`, `edition20xx`; not `ignore`, `text`,
/// `compile_fail` or another language.
fn is_built_doctest(info: &str) -> bool {
    info.split([',', ' '])
        .map(str::trim)
        .filter(|w| !w.is_empty())
        .all(|w| matches!(w, "rust" | "no_run" | "should_panic") || w.starts_with("edition"))
}

fn doctest(cx: &mut Cx<'_>, lines: &[DocLine<'_>]) {
    const PRELUDE: &str = "fn __doctest() {\n";
    let code: Vec<&str> = lines
        .iter()
        .map(|(l, _)| {
            let t = l.trim_start();
            if t == "#" {
                ""
            } else if let Some(rest) = t.strip_prefix("# ") {
                rest
            } else {
                l.as_str()
            }
        })
        .collect();
    let text = format!("{PRELUDE}{}\n}}\n", code.join("\n"));
    let parse = SourceFile::parse(&text, Edition::Edition2021);
    if !parse.errors().is_empty() {
        // rustdoc would not build it either (or it relies on macros we cannot see); skip it.
        return;
    }
    let index = LineIndex::new(&text);
    let tokens: Vec<SyntaxToken> =
        parse.tree().syntax().descendants_with_tokens().filter_map(|e| e.into_token()).collect();
    for (i, t) in tokens.iter().enumerate() {
        if t.kind() != T![unsafe] {
            continue;
        }
        let next = next_code(&tokens, i).map(|n| n.kind());
        if !matches!(next, Some(T!['{'] | T![impl])) {
            continue;
        }
        if statement_comments(&tokens, i).iter().any(|c| is_safety_comment(c)) {
            continue;
        }
        // Back to the doc comment line it came from.
        let offset = usize::from(t.text_range().start());
        let (line, _) = index.line_col(offset);
        let Some((_, token)) = lines.get(line - 2) else { continue };
        let src = token.text();
        // A byte column, not `line_col`'s character one: `src` is sliced by bytes.
        let col = offset - index.line_start(line);
        let at = src.find(code[line - 2]).map_or(0, |a| a + col);
        let start = usize::from(token.text_range().start()) + at.min(src.len());
        let what = if next == Some(T![impl]) { "`unsafe impl`" } else { "`unsafe` block" };
        cx.push(
            &RULE,
            start,
            start + "unsafe".len().min(src.len() - at.min(src.len())),
            format!("{what} without a preceding `// SAFETY:` comment (in a doctest)"),
            Some("doctests are code too: say why it is sound in a `// SAFETY:` comment"),
        );
    }
}
