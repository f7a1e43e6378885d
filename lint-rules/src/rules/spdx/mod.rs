//! `spdx`: the first line of a file is an SPDX license identifier.
//!
//! Test data: no fixture of its own. `tests/fixtures/rust/kernel/missing_spdx_and_docs.rs.in`,
//! shared with `module-docs` (stored as `.rs.in` because it breaks the repository's own rule
//! that a source file starts with what it is for), is linted as
//! `rust/kernel/missing_spdx_and_docs.rs` against
//! `tests/golden/rust/kernel/missing_spdx_and_docs.txt`; every other fixture is a negative case.

use crate::rule::{Check, Cx, Level, Rule};

/// The rule's catalogue entry, with its checks.
pub(crate) static RULE: Rule = Rule {
    id: "spdx",
    summary: "the first line is an SPDX license identifier",
    rationale: "Every kernel source file starts with its license as an SPDX identifier on \
                the first line (Documentation/process/license-rules.rst).",
    good: "// SPDX-License-Identifier: GPL-2.0\n\n//! A driver.\n",
    bad: "//! A driver.\n",
    default_level: Level::Error,
    clippy: &[],
    check: Check { file: Some(check_file), ..Check::NONE },
};

fn check_file(cx: &mut Cx<'_>) {
    let first = cx.text.lines().next().unwrap_or("");
    if !first.trim_start().starts_with("// SPDX-License-Identifier:") {
        cx.push(
            &RULE,
            0,
            first.len(),
            "the first line is not an SPDX license identifier".to_owned(),
            Some("start the file with `// SPDX-License-Identifier: GPL-2.0` (or its license)"),
        );
    }
}
