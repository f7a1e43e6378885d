//! `invariant-comment`: a value of a type documented with `# Invariants` is built after an
//! `// INVARIANT:` comment saying why they hold.
//!
//! Test data: `fixture.rs` beside this file, which `tests/rules.rs` lints as
//! `rust/kernel/invariant_comment.rs` against `tests/golden/rust/kernel/invariant_comment.txt`.

use ra_ap_syntax::ast::{self, AstNode, HasName};
use ra_ap_syntax::{SyntaxKind, SyntaxNode, SyntaxToken};

use super::util::{has_section, in_test, item_docs};
use crate::rule::{Check, Cx, Level, Rule};

/// The rule's catalogue entry, with its checks.
pub(crate) static RULE: Rule = Rule {
    id: "invariant-comment",
    summary: "a value of a type with `# Invariants` is built after an `// INVARIANT:` comment",
    rationale: "Types document their invariants under `# Invariants`, and code that \
                establishes them says why with an `// INVARIANT:` comment \
                (Documentation/rust/coding-guidelines.rst, \"Comments\"; the convention of \
                `rust/kernel/`).",
    good: "/// A non-zero count.\n///\n/// # Invariants\n///\n/// `n` is not zero.\npub struct Count { n: u32 }\n\nimpl Count {\n    fn one() -> Self {\n        // INVARIANT: 1 is not zero.\n        Self { n: 1 }\n    }\n}\n",
    bad: "/// A non-zero count.\n///\n/// # Invariants\n///\n/// `n` is not zero.\npub struct Count { n: u32 }\n\nimpl Count {\n    fn one() -> Self {\n        Self { n: 1 }\n    }\n}\n",
    default_level: Level::Warning,
    clippy: &[],
    check: Check { file: Some(check_file), ..Check::NONE },
};

fn check_file(cx: &mut Cx<'_>) {
    if !cx.kernel_code() {
        return;
    }
    let root = cx.root;
    let mut names: Vec<(String, bool)> = Vec::new();
    for node in root.descendants() {
        let (name, tuple) = match node.kind() {
            SyntaxKind::STRUCT => {
                let s = ast::Struct::cast(node.clone()).expect("kind checked");
                let tuple = matches!(s.kind(), ast::StructKind::Tuple(_));
                (s.name(), tuple)
            }
            _ => continue,
        };
        if let Some(name) = name
            && has_section(&item_docs(&node), "Invariants")
        {
            names.push((name.text().to_string(), tuple));
        }
    }
    if names.is_empty() {
        return;
    }
    for node in root.descendants() {
        let (path, is_call) = match node.kind() {
            SyntaxKind::RECORD_EXPR => {
                (ast::RecordExpr::cast(node.clone()).and_then(|r| r.path()), false)
            }
            SyntaxKind::CALL_EXPR => {
                let c = ast::CallExpr::cast(node.clone()).expect("kind checked");
                match c.expr() {
                    Some(ast::Expr::PathExpr(p)) => (p.path(), true),
                    _ => continue,
                }
            }
            _ => continue,
        };
        let Some(path) = path else { continue };
        let Some(last) = path.segment().map(|s| s.to_string()) else { continue };
        let ty = if last == "Self" { impl_self_name(&node) } else { Some(last) };
        let Some(ty) = ty else { continue };
        let Some(&(_, tuple)) = names.iter().find(|(n, _)| *n == ty) else { continue };
        if is_call != tuple || in_test(&node) {
            continue;
        }
        // The `// INVARIANT:` comment may be anywhere before it in the function, or inside it
        // (before a field).
        let Some(func) = node.ancestors().find(|n| n.kind() == SyntaxKind::FN) else { continue };
        let end = node.text_range().end();
        let commented = func.descendants_with_tokens().filter_map(|e| e.into_token()).any(|t| {
            t.kind() == SyntaxKind::COMMENT
                && t.text_range().start() < end
                && plain_comment_text(&t).contains("INVARIANT")
        });
        if !commented {
            let r = path.syntax().text_range();
            cx.push(
                &RULE,
                r.start().into(),
                r.end().into(),
                format!("a `{ty}` (which has `# Invariants`) is built without an `// INVARIANT:` comment"),
                Some("say why the type's invariants hold in an `// INVARIANT:` comment before it"),
            );
        }
    }
}

fn impl_self_name(node: &SyntaxNode) -> Option<String> {
    let imp = node.ancestors().find_map(ast::Impl::cast)?;
    let ty = imp.self_ty()?;
    let ast::Type::PathType(p) = ty else { return None };
    Some(p.path()?.segment()?.name_ref()?.text().to_string())
}

fn plain_comment_text(t: &SyntaxToken) -> &str {
    let text = t.text();
    text.trim_start_matches('/').trim_start_matches('*').trim_start()
}
