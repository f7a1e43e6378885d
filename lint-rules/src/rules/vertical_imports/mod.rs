//! `vertical-imports`: imports from a `{...}` list are one per line (off by default: newer
//! kernels' rule).
//!
//! Test data: `fixture.rs` beside this file, which `tests/rules.rs` lints (with the rule on) as
//! `rust/kernel/vertical_imports.rs` against `tests/golden/rust/kernel/vertical_imports.txt`.

use ra_ap_syntax::SyntaxNode;
use ra_ap_syntax::ast::{self, AstNode};

use crate::rule::{Check, Cx, Level, Rule};

/// The rule's catalogue entry, with its checks.
pub(crate) static RULE: Rule = Rule {
    id: "vertical-imports",
    summary: "imports from a `{...}` list are one per line",
    rationale: "Newer kernels ask for one import per line, with a trailing `//` to keep \
                rustfmt from folding them, so that changes to imports do not conflict \
                (Documentation/rust/coding-guidelines.rst, \"Imports\", since Linux 6.18). \
                6.12 predates the rule, so it is off by default.",
    good: "use kernel::{\n    prelude::*,\n    sync::Arc, //\n};\n",
    bad: "use kernel::{prelude::*, sync::Arc};\n",
    default_level: Level::Allow,
    clippy: &[],
    check: Check { node: Some(check_node), ..Check::NONE },
};

fn check_node(cx: &mut Cx<'_>, node: &SyntaxNode) {
    let Some(list) = ast::UseTreeList::cast(node.clone()) else { return };
    let trees: Vec<ast::UseTree> = list.use_trees().collect();
    if trees.len() < 2 {
        return;
    }
    let lines: Vec<usize> =
        trees.iter().map(|t| cx.index.line_col(t.syntax().text_range().start().into()).0).collect();
    let mut sorted = lines.clone();
    sorted.dedup();
    if sorted.len() != lines.len() {
        let r = node.text_range();
        cx.push(
            &RULE,
            r.start().into(),
            r.end().into(),
            "several imports on one line".to_owned(),
            Some("put one import per line, with a `//` after the last to keep rustfmt from joining them"),
        );
    }
}
