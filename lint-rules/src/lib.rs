//! The kernel's Rust coding rules (`Documentation/rust/coding-guidelines.rst` and friends),
//! checked on rust-analyzer's lossless syntax tree, merged with the kernel's own clippy run,
//! and reported like rustc (human or JSON, for the editor).
//!
//! The core is pure: [`lint_file`] takes a file's text and gives findings; reading files,
//! running clippy and printing live in the binary and in [`files`] and [`clippy`]'s runner.

pub mod catalogue;
pub mod clippy;
pub mod diag;
pub mod diff;
pub mod files;
pub mod finding;
pub mod flycheck;
pub mod rules;
pub mod suppress;

use std::collections::BTreeMap;

pub use catalogue::{Level, RULES, Rule};
pub use finding::{Finding, Origin, Span};
pub use rules::{FileContext, FileKind};

/// Rule levels other than the defaults.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// Per-rule levels (`vertical-imports` → `Warning`).
    pub levels: BTreeMap<String, Level>,
    /// Whether clippy ran, so that suppressions of clippy lints can be told unused.
    pub clippy_ran: bool,
}

impl Config {
    /// The level of a rule (ours or a clippy lint, which keeps the level clippy gave).
    pub fn level(&self, rule: &str, given: Level) -> Level {
        self.levels.get(rule).copied().unwrap_or(given)
    }
}

/// What linting one file gives.
#[derive(Debug, Default)]
pub struct FileResult {
    /// Findings after levels and suppressions, in file order.
    pub findings: Vec<Finding>,
    /// How many findings suppressions removed.
    pub suppressed: usize,
    /// Whether the file did not parse.
    pub parse_failed: bool,
}

/// Lints a file's text, merges `clippy` findings for the same file (ours win where both report
/// the same rule at the same place), applies levels and suppressions.
pub fn lint_file(
    cx: &FileContext,
    text: &str,
    config: &Config,
    clippy: Vec<Finding>,
) -> FileResult {
    let report = rules::lint_source(cx, text);
    let clippy = outside_no_panic_exemptions(cx, text, clippy);
    let findings = clippy::merge(at_configured_levels(report.findings, config), clippy);
    let suppressions: Vec<_> = report
        .suppressions
        .into_iter()
        .filter(|s| config.clippy_ran || !s.rules.iter().any(|r| r.starts_with("clippy::")))
        .collect();
    let applied = suppress::apply(&cx.name, findings, &suppressions);
    let findings = at_configured_levels(applied.findings, config);
    FileResult { findings, suppressed: applied.suppressed, parse_failed: report.parse_failed }
}

/// clippy's findings without its counterparts of `no-panic` (the `unwrap`/`expect` that
/// `kernel-clippy.toml` disallows) where the rule does not apply: tests, compile-time code (a
/// panic there is a test failure or a build error) and host code. clippy cannot be told so,
/// and on 7.3 it reported `expect` in the kernel's `const` error codes and `unwrap` in a
/// `const` block.
fn outside_no_panic_exemptions(cx: &FileContext, text: &str, clippy: Vec<Finding>) -> Vec<Finding> {
    let Some(rule) = catalogue::rule("no-panic") else { return clippy };
    let counterparts: Vec<usize> =
        clippy.iter().filter(|c| clippy::is_counterpart(rule, c)).map(|c| c.span.start).collect();
    if counterparts.is_empty() {
        return clippy;
    }
    let exempt = rules::no_panic_exempt(cx, text, &counterparts);
    clippy
        .into_iter()
        .filter(|c| !(clippy::is_counterpart(rule, c) && exempt.contains(&c.span.start)))
        .collect()
}

/// `findings` at the levels `config` gives their rules, without those it turns off.
fn at_configured_levels(findings: Vec<Finding>, config: &Config) -> Vec<Finding> {
    findings
        .into_iter()
        .map(|mut f| {
            f.level = config.level(&f.rule, f.level);
            f
        })
        .filter(|f| f.level != Level::Allow)
        .collect()
}
