//! One file linted: [`lint_file`] walks it with our rules, merges clippy's findings for it,
//! applies the configured levels and the file's suppressions (reporting the bad and the unused
//! ones). Pure: text in, findings out.

use std::collections::BTreeMap;

use crate::catalogue;
use crate::clippy;
use crate::file_kind::FileContext;
use crate::finding::{Finding, Origin};
use crate::rule::Level;
use crate::rules::{bad_suppression, no_panic, unused_suppression};
use crate::suppress::Suppression;
use crate::walk;

/// Rule levels other than the defaults.
#[derive(Clone, Debug, Default)]
pub struct Config {
    /// Per-rule levels (`vertical-imports` → `Warning`), by the ids users write.
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
    let report = walk::lint_source(cx, text);
    let clippy = outside_no_panic_exemptions(cx, text, clippy);
    let findings = clippy::merge(at_configured_levels(report.findings, config), clippy);
    let suppressions: Vec<_> = report
        .suppressions
        .into_iter()
        .filter(|s| config.clippy_ran || !s.rules.iter().any(|r| r.starts_with("clippy::")))
        .collect();
    let applied = apply_suppressions(&cx.name, findings, &suppressions);
    let findings = at_configured_levels(applied.findings, config);
    FileResult { findings, suppressed: applied.suppressed, parse_failed: report.parse_failed }
}

/// clippy's findings without its counterparts of `no-panic` (the `unwrap`/`expect` that
/// `kernel-clippy.toml` disallows) where the rule does not apply: tests, compile-time code (a
/// panic there is a test failure or a build error) and host code. clippy cannot be told so,
/// and on 7.3 it reported `expect` in the kernel's `const` error codes and `unwrap` in a
/// `const` block.
fn outside_no_panic_exemptions(cx: &FileContext, text: &str, clippy: Vec<Finding>) -> Vec<Finding> {
    let rule = &no_panic::RULE;
    let counterparts: Vec<usize> =
        clippy.iter().filter(|c| clippy::is_counterpart(rule, c)).map(|c| c.span.start).collect();
    if counterparts.is_empty() {
        return clippy;
    }
    let exempt = no_panic::exempt(cx, text, &counterparts);
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
            f.level = config.level(f.rule(), f.level);
            f
        })
        .filter(|f| f.level != Level::Allow)
        .collect()
}

/// The outcome of applying suppressions.
#[derive(Debug, Default)]
struct Applied {
    /// The findings that remain, plus findings about bad and unused suppressions.
    findings: Vec<Finding>,
    /// How many findings were suppressed.
    suppressed: usize,
}

/// Applies one file's suppressions to its findings (ours and clippy's). A suppression without
/// a reason or naming an unknown rule does not apply and is itself a finding (`bad-suppression`);
/// one that suppresses nothing is one too (`unused-suppression`). Suppressions name rules by
/// the ids users write, matched against the name each finding is reported under.
fn apply_suppressions(file: &str, findings: Vec<Finding>, suppressions: &[Suppression]) -> Applied {
    let is_ours = |id: &str| catalogue::rule(id).is_some();
    let problems: Vec<Option<String>> =
        suppressions.iter().map(|s| bad_suppression::problem(s, &is_ours)).collect();
    let mut used = vec![false; suppressions.len()];
    let mut out = Applied::default();
    for f in findings {
        let hit = suppressions.iter().enumerate().position(|(k, s)| {
            problems[k].is_none()
                && s.rules.iter().any(|r| r == f.rule())
                && (s.lines.0..=s.lines.1).contains(&f.span.line)
        });
        match hit {
            Some(k) => {
                used[k] = true;
                out.suppressed += 1;
            }
            None => out.findings.push(f),
        }
    }
    for (k, s) in suppressions.iter().enumerate() {
        let (rule, message) = if let Some(problem) = &problems[k] {
            (&bad_suppression::RULE, problem.clone())
        } else if !used[k] {
            (&unused_suppression::RULE, unused_suppression::message(s))
        } else {
            continue;
        };
        out.findings.push(Finding {
            file: file.to_owned(),
            span: s.span.clone(),
            level: rule.default_level,
            message,
            help: Some(
                "write `// lint-allow(rule-id): why this is fine` (or `lint-allow-item`)"
                    .to_owned(),
            ),
            origin: Origin::Rule(rule),
        });
    }
    out.findings.sort_by_key(|f| f.span.start);
    out
}
