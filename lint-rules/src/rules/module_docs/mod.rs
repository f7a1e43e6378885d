//! `module-docs`: every file (crate or module) has `//!` documentation.
//!
//! Test data: no fixture of its own. `tests/fixtures/rust/kernel/missing_spdx_and_docs.rs.in`,
//! shared with `spdx` (stored as `.rs.in` because it breaks the repository's own rule that a
//! source file starts with what it is for), is linted as `rust/kernel/missing_spdx_and_docs.rs`
//! against `tests/golden/rust/kernel/missing_spdx_and_docs.txt`; every other fixture is a
//! negative case.

use ra_ap_syntax::ast::{self, AstNode, AstToken, HasAttrs};

use crate::rule::{Check, Cx, Level, Rule};

/// The rule's catalogue entry, with its checks.
pub(crate) static RULE: Rule = Rule {
    id: "module-docs",
    summary: "every file (crate or module) has `//!` documentation",
    rationale: "Rust code is documented with rustdoc, and modules are documented like any \
                other item (Documentation/rust/coding-guidelines.rst, \"Code documentation\").",
    good: "// SPDX-License-Identifier: GPL-2.0\n\n//! Helpers for the frobnicator.\n\nfn f() {}\n",
    bad: "// SPDX-License-Identifier: GPL-2.0\n\nfn f() {}\n",
    default_level: Level::Warning,
    clippy: &[],
    check: Check { file: Some(check_file), ..Check::NONE },
};

fn check_file(cx: &mut Cx<'_>) {
    let root = cx.root;
    let has_docs = root.children_with_tokens().any(|e| {
        e.as_token().and_then(|t| ast::Comment::cast(t.clone())).is_some_and(|c| c.is_inner())
    }) || ast::SourceFile::cast(root.clone()).is_some_and(|f| {
        f.attrs().any(|a| a.excl_token().is_some() && a.simple_name().as_deref() == Some("doc"))
    });
    if !has_docs {
        cx.push(
            &RULE,
            0,
            0,
            "the file has no `//!` documentation".to_owned(),
            Some("say what the module (or crate) is for in a `//!` comment after the SPDX line"),
        );
    }
}
