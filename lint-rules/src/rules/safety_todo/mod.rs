//! `safety-todo`: no `// SAFETY: TODO` placeholders, in code or in doctests.
//!
//! Test data: `fixture.rs` beside this file, which `tests/rules.rs` lints as
//! `rust/kernel/safety_todo.rs` against `tests/golden/rust/kernel/safety_todo.txt`.

use ra_ap_syntax::{SyntaxKind, SyntaxToken};

use super::util::{fenced, is_safety_comment};
use crate::rule::{Check, Cx, DocLine, Level, Rule};

/// The rule's catalogue entry, with its checks.
pub(crate) static RULE: Rule = Rule {
    id: "safety-todo",
    summary: "no `// SAFETY: TODO.` placeholders",
    rationale: "A `// SAFETY:` comment must say why the code is sound \
                (Documentation/rust/coding-guidelines.rst, \"Comments\"); a TODO placeholder \
                satisfies tools without informing reviewers.",
    good: "// SAFETY: `ptr` came from `Box::into_raw` above.\nunsafe { drop(Box::from_raw(ptr)) };\n",
    bad: "// SAFETY: TODO.\nunsafe { drop(Box::from_raw(ptr)) };\n",
    default_level: Level::Warning,
    clippy: &[],
    check: Check { token: Some(check_token), doc: Some(check_doc), ..Check::NONE },
};

fn check_token(cx: &mut Cx<'_>, i: usize) {
    let t = &cx.tokens[i];
    if t.kind() == SyntaxKind::COMMENT && is_safety_comment(t) && is_safety_todo(t) {
        cx.push_token(
            &RULE,
            t,
            "`// SAFETY: TODO` placeholder instead of a justification".to_owned(),
            Some("write why the `unsafe` code is sound"),
        );
    }
}

/// `// SAFETY: TODO` in a doc block's code (doctests are kernel code too: they run as KUnit
/// tests).
fn check_doc(cx: &mut Cx<'_>, lines: &[DocLine<'_>]) {
    for (in_code, line, token) in fenced(lines) {
        if !in_code {
            continue;
        }
        let code = line.trim_start().trim_start_matches('#').trim_start();
        if let Some(rest) = code.strip_prefix("// SAFETY:")
            && is_todo(rest)
        {
            cx.push_token(
                &RULE,
                token,
                "`// SAFETY: TODO` placeholder in a doctest".to_owned(),
                Some("write why the `unsafe` code is sound; readers copy examples"),
            );
        }
    }
}

fn is_safety_todo(t: &SyntaxToken) -> bool {
    t.text().lines().any(|l| {
        let l = l.trim_start().trim_start_matches('/').trim_start_matches('*').trim_start();
        l.strip_prefix("SAFETY:").is_some_and(is_todo)
    })
}

/// Whether the text after `SAFETY:` is a TODO placeholder.
fn is_todo(rest: &str) -> bool {
    let rest = rest.trim_start();
    // `get`, not `[..4]`: the text may go on with a multi-byte character (`// SAFETY: 指针`).
    rest.get(..4).is_some_and(|head| head.eq_ignore_ascii_case("todo"))
        && !rest[4..].starts_with(|c: char| c.is_alphanumeric())
}
