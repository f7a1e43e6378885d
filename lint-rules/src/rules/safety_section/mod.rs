//! `safety-section`: every public `unsafe fn` and `unsafe trait` documents its safety
//! contract under `# Safety`.
//!
//! Test data: `fixture.rs` beside this file, which `tests/rules.rs` lints as
//! `rust/kernel/safety_section.rs` against `tests/golden/rust/kernel/safety_section.txt`.

use ra_ap_syntax::ast::{self, AstNode, HasName, HasVisibility};
use ra_ap_syntax::{SyntaxKind, SyntaxNode};

use super::util::{has_section, in_test, is_public_fn, item_docs};
use crate::rule::{Check, Cx, Level, Rule};

/// The rule's catalogue entry, with its checks.
pub(crate) static RULE: Rule = Rule {
    id: "safety-section",
    summary: "every public `unsafe fn` and `unsafe trait` has a `# Safety` doc section",
    rationale: "\"Unsafe functions must document their safety preconditions under a \
                `# Safety` section\" (Documentation/rust/coding-guidelines.rst, \"Code \
                documentation\"); the same holds for the contract of an unsafe trait.",
    good: "/// Reads the value.\n///\n/// # Safety\n///\n/// `p` must be valid for reads.\npub unsafe fn read(p: *const u8) -> u8 {\n    // SAFETY: By the safety requirements.\n    unsafe { *p }\n}\n",
    bad: "/// Reads the value.\npub unsafe fn read(p: *const u8) -> u8 {\n    // SAFETY: By the safety requirements.\n    unsafe { *p }\n}\n",
    default_level: Level::Error,
    clippy: &["clippy::missing_safety_doc"],
    check: Check { node: Some(check_node), ..Check::NONE },
};

fn check_node(cx: &mut Cx<'_>, node: &SyntaxNode) {
    match node.kind() {
        SyntaxKind::FN => {
            let Some(f) = ast::Fn::cast(node.clone()) else { return };
            if f.unsafe_token().is_none() || !is_public_fn(&f) || in_test(node) {
                return;
            }
            let Some(name) = f.name() else { return };
            if !has_section(&item_docs(node), "Safety") {
                let nr = name.syntax().text_range();
                cx.push(
                    &RULE,
                    nr.start().into(),
                    nr.end().into(),
                    format!("public `unsafe fn {}` without a `# Safety` section", name.text()),
                    Some("document the caller's obligations under `# Safety`"),
                );
            }
        }
        SyntaxKind::TRAIT => {
            if let Some(t) = ast::Trait::cast(node.clone())
                && t.unsafe_token().is_some()
                && t.visibility().is_some()
                && !has_section(&item_docs(node), "Safety")
            {
                let name = t.name().map_or(node.text_range(), |n| n.syntax().text_range());
                cx.push(
                    &RULE,
                    name.start().into(),
                    name.end().into(),
                    format!(
                        "public `unsafe trait {}` without a `# Safety` section",
                        t.name().map(|n| n.text().to_string()).unwrap_or_default()
                    ),
                    Some("document what implementors must uphold under `# Safety`"),
                );
            }
        }
        _ => {}
    }
}
