//! `expect-over-allow`: `#[expect(...)]` instead of `#[allow(...)]`, unless under `cfg`, in a
//! macro, or explained by a comment (off by default).
//!
//! Test data: `fixture.rs` beside this file, which `tests/rules.rs` lints (with the rule on) as
//! `rust/kernel/expect_over_allow.rs` against `tests/golden/rust/kernel/expect_over_allow.txt`.

use ra_ap_syntax::ast::{self, AstNode, AstToken};
use ra_ap_syntax::{SyntaxKind, SyntaxNode};

use super::util::{has_attr_named, in_token_tree};
use crate::rule::{Check, Cx, Level, Rule};

/// The rule's catalogue entry, with its checks.
pub(crate) static RULE: Rule = Rule {
    id: "expect-over-allow",
    summary: "`#[expect(...)]` instead of `#[allow(...)]` where the lint always fires",
    rationale: "\"prefer `expect` over `allow` unless: conditional compilation triggers the \
                warning in some cases but not others; inside macros ...\" \
                (Documentation/rust/coding-guidelines.rst, \"Lints\"). An `allow` inside a \
                macro, under a `cfg`, or with a comment saying why is accepted. Off by \
                default: whether a lint fires only with some toolchains, architectures or \
                configurations cannot be seen in the syntax (in 6.12, `#[allow(deprecated)]` \
                on `fetch_update` and `clippy::unnecessary_cast` on C integer casts are such \
                cases), so enable it where that is known not to happen.",
    good: "#[expect(dead_code)]\nfn helper() {}\n",
    bad: "#[allow(dead_code)]\nfn helper() {}\n",
    default_level: Level::Allow,
    clippy: &["clippy::allow_attributes"],
    check: Check { node: Some(check_node), ..Check::NONE },
};

fn check_node(cx: &mut Cx<'_>, node: &SyntaxNode) {
    let Some(a) = ast::Attr::cast(node.clone()) else { return };
    if a.simple_name().as_deref() != Some("allow")
        || in_token_tree(&a.syntax().first_token().unwrap())
    {
        return;
    }
    // The owner: conditional compilation there makes `allow` the right choice.
    let owner = node.parent();
    let conditional = owner.as_ref().is_some_and(|o| {
        has_attr_named(o, &|a| matches!(a.simple_name().as_deref(), Some("cfg" | "cfg_attr")))
    });
    // A comment on the same line or just before says why it is an `allow`.
    let explained = node
        .siblings_with_tokens(ra_ap_syntax::Direction::Next)
        .skip(1)
        .take_while(|e| {
            e.as_token().is_some_and(|t| {
                t.kind() == SyntaxKind::WHITESPACE && !t.text().contains('\n')
                    || t.kind() == SyntaxKind::COMMENT
            })
        })
        .any(|e| e.kind() == SyntaxKind::COMMENT)
        || comment_just_before(node);
    if conditional || explained {
        return;
    }
    let r = node.text_range();
    cx.push(
        &RULE,
        r.start().into(),
        r.end().into(),
        "`#[allow]` where `#[expect]` would say when the lint stops firing".to_owned(),
        Some("use `#[expect(...)]`; keep `allow` only under `cfg` or in macros (and then say why)"),
    );
}

/// Whether a non-doc comment sits on the line just before `node` (no blank line between).
fn comment_just_before(node: &SyntaxNode) -> bool {
    let mut prev = node.prev_sibling_or_token();
    if let Some(ws) =
        prev.as_ref().and_then(|e| e.as_token()).filter(|t| t.kind() == SyntaxKind::WHITESPACE)
    {
        if ws.text().matches('\n').count() > 1 {
            return false;
        }
        prev = ws.prev_sibling_or_token();
    }
    prev.and_then(|e| e.into_token()).and_then(ast::Comment::cast).is_some_and(|c| !c.is_doc())
}
