//! `panics-section`: a public function of kernel code that can panic says when under
//! `# Panics`.
//!
//! Test data: `fixture.rs` beside this file, which `tests/rules.rs` lints as
//! `rust/kernel/panics_section.rs` against `tests/golden/rust/kernel/panics_section.txt`.

use ra_ap_syntax::ast::{self, AstNode, AstToken, HasName};
use ra_ap_syntax::{SyntaxKind, SyntaxNode, SyntaxToken};

use super::util::{
    has_section, in_const, in_test, is_public_fn, item_docs, panicking, statement_comments,
};
use crate::rule::{Check, Cx, Level, Rule};

/// The rule's catalogue entry, with its checks.
pub(crate) static RULE: Rule = Rule {
    id: "panics-section",
    summary: "a public function that can panic documents when under `# Panics`",
    rationale: "\"if a function may panic, the conditions under which that happens must be \
                described under a `# Panics` section\" (Documentation/rust/coding-guidelines.rst, \
                \"Code documentation\").",
    good: "/// Returns the first element.\n///\n/// # Panics\n///\n/// Panics if `v` is empty.\npub fn first(v: &[u32]) -> u32 {\n    assert!(!v.is_empty());\n    v[0]\n}\n",
    bad: "/// Returns the first element.\npub fn first(v: &[u32]) -> u32 {\n    assert!(!v.is_empty());\n    v[0]\n}\n",
    default_level: Level::Warning,
    clippy: &["clippy::missing_panics_doc"],
    check: Check { node: Some(check_node), ..Check::NONE },
};

fn check_node(cx: &mut Cx<'_>, node: &SyntaxNode) {
    if node.kind() != SyntaxKind::FN || !cx.kernel_code() {
        return;
    }
    let Some(f) = ast::Fn::cast(node.clone()) else { return };
    if f.const_token().is_some() || !is_public_fn(&f) || in_test(node) {
        return;
    }
    let Some(name) = f.name() else { return };
    if has_section(&item_docs(node), "Panics") {
        return;
    }
    let Some(body) = f.body() else { return };
    let tokens: Vec<SyntaxToken> =
        body.syntax().descendants_with_tokens().filter_map(|e| e.into_token()).collect();
    for (i, t) in tokens.iter().enumerate() {
        let nested_item = t.parent_ancestors().take_while(|n| n != body.syntax()).any(|n| {
            matches!(n.kind(), SyntaxKind::FN | SyntaxKind::CONST | SyntaxKind::STATIC)
                || ast::BlockExpr::cast(n).is_some_and(|b| b.const_token().is_some())
        });
        if nested_item || in_const(&tokens, i) {
            continue;
        }
        // A panic point whose statement has a comment (saying why it cannot fail, such as a
        // type invariant) is the author's claim that there is no panic to document.
        if let Some(what) = panicking(&tokens, i, true)
            && !statement_comments(&tokens, i)
                .iter()
                .any(|c| ast::Comment::cast((*c).clone()).is_some_and(|c| !c.is_doc()))
        {
            let nr = name.syntax().text_range();
            cx.push(
                &RULE,
                nr.start().into(),
                nr.end().into(),
                format!(
                    "public `fn {}` can panic (`{what}` on line {}) but has no `# Panics` section",
                    name.text(),
                    cx.index.line_col(t.text_range().start().into()).0
                ),
                Some("say when it panics under `# Panics`, or make it fallible"),
            );
            return;
        }
    }
}
