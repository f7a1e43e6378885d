//! `bad-suppression`: a suppression (`// lint-allow(rule): reason`) names known rules and gives
//! a reason. One that does not is not applied, and is reported.
//!
//! Test data: `tests/fixtures/rust/kernel/suppressions.rs`, shared with `unused-suppression` (and
//! suppressing `no-panic`), which `tests/rules.rs` lints as `rust/kernel/suppressions.rs`
//! against `tests/golden/rust/kernel/suppressions.txt`.

use crate::catalogue::{self, Level, Rule};
use crate::rules::Check;
use crate::suppress::Suppression;

/// The rule's catalogue entry: the walk does not call it (`check` is `NONE`), the
/// suppressions are checked where [`apply`](crate::suppress::apply) applies them.
pub(crate) const RULE: Rule = Rule {
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
/// ours nor clippy's, or it gives no reason.
pub(crate) fn problem(s: &Suppression) -> Option<String> {
    let unknown: Vec<&str> =
        s.rules.iter().filter(|r| !known_rule(r)).map(String::as_str).collect();
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

fn known_rule(r: &str) -> bool {
    catalogue::rule(r).is_some() || r.starts_with("clippy::") || r == "parse-error"
}
