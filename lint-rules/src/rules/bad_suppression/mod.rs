//! `bad-suppression`: a suppression (`// lint-allow(rule): reason`) names known rules and gives
//! a reason. One that does not is not applied, and is reported.
//!
//! Test data: `tests/fixtures/rust/kernel/suppressions.rs`, shared with `unused-suppression` (and
//! suppressing `no-panic`), which `tests/rules.rs` lints as `rust/kernel/suppressions.rs`
//! against `tests/golden/rust/kernel/suppressions.txt`.

use crate::finding::PARSE_ERROR;
use crate::rule::{Check, Level, Rule};
use crate::suppress::Suppression;

/// The rule's catalogue entry: the walk does not call it (`check` is `NONE`), the
/// suppressions are checked where `lint::lint_file` applies them.
pub(crate) static RULE: Rule = Rule {
    id: "bad-suppression",
    summary: "a suppression names known rules and gives a reason",
    rationale: "A suppression is a reviewed exception: `// lint-allow(rule): reason` must say \
                why, like the guidelines ask of `#[allow]` and `// SAFETY:`.",
    good: "// lint-allow(no-panic): the table is built at init and never empty.\nlet x = t.first().unwrap();\n",
    bad: "// lint-allow(no-panic)\nlet x = t.first().unwrap();\n",
    default_level: Level::Error,
    clippy: &[],
    check: Check::NONE,
};

/// What is wrong with a suppression, if anything: it names no rule, or a rule that is neither
/// ours (`is_ours`, the catalogue's, which sits above the rules) nor clippy's, or it gives no
/// reason.
pub(crate) fn problem(s: &Suppression, is_ours: &dyn Fn(&str) -> bool) -> Option<String> {
    let unknown: Vec<&str> =
        s.rules.iter().filter(|r| !known_rule(r, is_ours)).map(String::as_str).collect();
    if s.rules.is_empty() {
        Some("suppression names no rule".to_owned())
    } else if !unknown.is_empty() {
        Some(format!("suppression names unknown rule `{}`", unknown.join("`, `")))
    } else if s.reason.is_none() {
        Some("suppression without a reason".to_owned())
    } else {
        None
    }
}

/// Whether a suppression may name `r`: a rule of ours, a clippy lint, or [`PARSE_ERROR`] (which
/// a suppression has always been allowed to name, though a file that does not parse has no
/// suppressions read).
fn known_rule(r: &str, is_ours: &dyn Fn(&str) -> bool) -> bool {
    is_ours(r) || r.starts_with("clippy::") || r == PARSE_ERROR
}
