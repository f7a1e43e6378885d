//! `unused-suppression`: a suppression that suppresses nothing is removed.
//!
//! Test data: `tests/fixtures/rust/kernel/suppressions.rs`, shared with `bad-suppression` (and
//! suppressing `no-panic`), which `tests/rules.rs` lints as `rust/kernel/suppressions.rs`
//! against `tests/golden/rust/kernel/suppressions.txt`.

use crate::rule::{Check, Level, Rule};
use crate::suppress::Suppression;

/// The rule's catalogue entry: the walk does not call it (`check` is `NONE`), the
/// suppressions are checked where `lint::lint_file` applies them.
pub(crate) static RULE: Rule = Rule {
    id: "unused-suppression",
    summary: "a suppression that suppresses nothing is removed",
    rationale: "Like `#[expect]` over `#[allow]` (Documentation/rust/coding-guidelines.rst, \
                \"Lints\"): stale exceptions hide future findings.",
    good: "let x = 1;\n",
    bad: "// lint-allow(no-panic): was needed once.\nlet x = 1;\n",
    default_level: Level::Warning,
    clippy: &[],
    check: Check::NONE,
};

/// The finding's message for a (valid) suppression that suppressed nothing.
pub(crate) fn message(s: &Suppression) -> String {
    format!("suppression of `{}` suppresses nothing", s.rules.join("`, `"))
}
