//! `no-panic`: no `unwrap()`, `expect()`, `panic!`, `todo!` or `unimplemented!` in kernel code,
//! outside tests and compile-time code; and [`exempt`], the same exemptions for clippy's
//! counterparts.
//!
//! Test data: `fixture.rs` beside this file, which `tests/rules.rs` lints as
//! `rust/kernel/no_panic.rs` against `tests/golden/rust/kernel/no_panic.txt`.

use ra_ap_syntax::ast::AstNode;
use ra_ap_syntax::{Edition, SourceFile, SyntaxKind, SyntaxToken};

use super::util::{in_const, in_macro_rules_matcher, in_test, panicking};
use crate::file_kind::{FileContext, FileKind};
use crate::rule::{Check, Cx, Level, Rule};

/// The rule's catalogue entry, with its checks.
pub(crate) static RULE: Rule = Rule {
    id: "no-panic",
    summary: "no `unwrap()`, `expect()`, `panic!`, `todo!` or `unimplemented!` outside tests and `const` contexts",
    rationale: "\"panicking should be very rare and used only with a good reason. In almost \
                all cases, a fallible approach should be used, typically returning a \
                `Result`\" (Documentation/rust/coding-guidelines.rst, \"Code documentation\"). \
                In tests and `const` evaluation a panic is a test failure or a build error.",
    good: "fn first(v: &[u32]) -> Result<u32> {\n    v.first().copied().ok_or(EINVAL)\n}\n",
    bad: "fn first(v: &[u32]) -> u32 {\n    *v.first().unwrap()\n}\n",
    default_level: Level::Error,
    clippy: &[
        "clippy::disallowed_methods",
        "clippy::unwrap_used",
        "clippy::expect_used",
        "clippy::panic",
    ],
    check: Check { token: Some(check_token), ..Check::NONE },
};

fn check_token(cx: &mut Cx<'_>, i: usize) {
    let tokens = cx.tokens;
    let t = &tokens[i];
    if t.kind() == SyntaxKind::IDENT
        && cx.kernel_code()
        && let Some(what) = panicking(tokens, i, false)
        && !t.parent().is_some_and(|p| in_test(&p))
        && !in_const(tokens, i)
        && !in_macro_rules_matcher(t)
    {
        cx.push_token(
            &RULE,
            t,
            format!("`{what}` in kernel code"),
            Some("return an error instead (`?`, `ok_or(EINVAL)?`); a panic takes the kernel down"),
        );
    }
}

/// Of the byte `offsets` in `text`, those where `no-panic` does not apply: host code, tests
/// and compile-time code (as for our own findings).
pub fn exempt(cx: &FileContext, text: &str, offsets: &[usize]) -> Vec<usize> {
    if cx.kind == FileKind::Host {
        return offsets.to_vec();
    }
    let parse = SourceFile::parse(text, Edition::Edition2021);
    let tokens: Vec<SyntaxToken> =
        parse.tree().syntax().descendants_with_tokens().filter_map(|e| e.into_token()).collect();
    offsets
        .iter()
        .copied()
        .filter(|&offset| {
            let Some(i) = tokens.iter().position(|t| {
                t.text_range()
                    .contains(ra_ap_syntax::TextSize::from(offset.min(u32::MAX as usize) as u32))
            }) else {
                return false;
            };
            tokens[i].parent().is_some_and(|p| in_test(&p)) || in_const(&tokens, i)
        })
        .collect()
}
