//! `leaf-bindings`: leaf modules (drivers, samples, out-of-tree modules) do not use the C
//! `bindings` directly, but the `kernel` crate's abstractions.
//!
//! Test data: `fixture.rs` beside this file, which `tests/rules.rs` lints as
//! `drivers/misc/leaf_bindings.rs` against `tests/golden/drivers/misc/leaf_bindings.txt`, and
//! `fixture_local_bindings.rs` (a driver's own module named `bindings`), linted as
//! `drivers/misc/local_bindings.rs` against `tests/golden/drivers/misc/local_bindings.txt`.

use ra_ap_syntax::ast::{self, AstNode, HasName};
use ra_ap_syntax::{SyntaxKind, SyntaxNode, T};

use super::util::{next_code, prev_code};
use crate::file_kind::FileKind;
use crate::rule::{Check, Cx, Level, Rule};

/// The rule's catalogue entry, with its checks.
pub(crate) static RULE: Rule = Rule {
    id: "leaf-bindings",
    summary: "drivers and samples do not use `bindings` directly",
    rationale: "\"Rust code in leaf modules (e.g. drivers) should not use the C bindings \
                directly. Instead, subsystems should provide as-safe-as-possible \
                abstractions as needed\" (Documentation/rust/general-information.rst, \
                \"Abstractions vs. bindings\").",
    good: "use kernel::sync::Mutex;\n",
    bad: "let r = unsafe { kernel::bindings::mutex_lock(m) };\n",
    default_level: Level::Error,
    clippy: &[],
    check: Check { file: Some(check_file), ..Check::NONE },
};

/// A file check, not a token check: it first looks at the whole file for a `bindings` of the
/// file's own.
fn check_file(cx: &mut Cx<'_>) {
    if cx.file.kind != FileKind::Leaf {
        return;
    }
    let tokens = cx.tokens;
    let local_bindings = binds_bindings_locally(cx.root);
    for (i, t) in tokens.iter().enumerate() {
        if t.kind() != SyntaxKind::IDENT || t.text() != "bindings" {
            continue;
        }
        let prev = prev_code(tokens, i);
        let next = next_code(tokens, i).map(|n| n.kind());
        let via_kernel = prev.is_some_and(|(j, p)| {
            p.kind() == T![::] && prev_code(tokens, j).is_some_and(|(_, k)| k.text() == "kernel")
        });
        // A bare `bindings::` names the kernel's crate, unless the file gives the name to a
        // module of its own (nova-core's `use r570_144 as bindings;`, firmware ABI types).
        let bare = prev.is_none_or(|(_, p)| p.kind() != T![::] && p.kind() != T![.])
            && next == Some(T![::])
            && !local_bindings;
        let in_use_list = prev.is_some_and(|(_, p)| matches!(p.kind(), T!['{'] | T![,]))
            && t.parent_ancestors().any(|n| n.kind() == SyntaxKind::USE);
        if via_kernel || bare || in_use_list {
            cx.push_token(
                &RULE,
                t,
                "a leaf module uses the C `bindings` directly".to_owned(),
                Some("use (or add) a safe abstraction in the `kernel` crate"),
            );
        }
    }
}

/// Whether the file gives the name `bindings` to something other than the kernel's crate:
/// `mod bindings`, `use x as bindings`, or `use super::bindings` (a path not from `kernel`).
fn binds_bindings_locally(root: &SyntaxNode) -> bool {
    root.descendants().any(|n| {
        if let Some(m) = ast::Module::cast(n.clone()) {
            return m.name().is_some_and(|name| name.text() == "bindings");
        }
        let Some(tree) = ast::UseTree::cast(n) else { return false };
        // The whole path, from the outermost tree of the `use` down to this one.
        let mut segments: Vec<String> = Vec::new();
        for t in tree.syntax().ancestors().filter_map(ast::UseTree::cast) {
            if let Some(p) = t.path() {
                let mut own: Vec<String> = p.segments().map(|s| s.to_string()).collect();
                own.extend(segments);
                segments = own;
            }
        }
        let name = match tree.rename() {
            Some(r) => r.name().map(|n| n.text().to_string()),
            None if tree.use_tree_list().is_none() && tree.star_token().is_none() => {
                segments.last().cloned()
            }
            None => None,
        };
        let from_kernel = segments.first().is_some_and(|s| s == "kernel")
            && segments.last().is_some_and(|s| s == "bindings");
        name.as_deref() == Some("bindings") && !from_kernel
    })
}
