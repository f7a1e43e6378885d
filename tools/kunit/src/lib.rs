//! KUnit's KTAP output, read from a kernel console log: one suite's cases, each with how it
//! ended and its lines, the suite's plan (`1..N`) and its summary line.
//!
//! docs-site reads the kernel crate's doctests (`rust_doctests_kernel`) with it, and the
//! upstream check the KUnit tests of our kernel patches (`longest-symbol`).

use serde::{Deserialize, Serialize};

/// How a case ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outcome {
    /// `ok`.
    Pass,
    /// `not ok`.
    Fail,
    /// `not ok` after KUnit's `# <case>: try faulted` (the case oopsed) or `try timed out`:
    /// a failure that KUnit counts in `fail:`, told apart because the kernel crashed.
    Crash,
    /// `ok ... # SKIP`.
    Skip,
}

/// One case's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// The case's name.
    pub name: String,
    /// How it ended.
    pub outcome: Outcome,
    /// Its KTAP lines since the previous result (diagnostics, then its result line), without
    /// printk timestamps or indentation.
    pub ktap: Vec<String>,
}

/// One suite's results as read from a console log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Suite {
    /// Every case that reported a result, in order.
    pub cases: Vec<Case>,
    /// The suite's summary line (`rust_doctests_kernel: pass:59 fail:0 skip:0 total:59`).
    pub summary: Option<String>,
    /// The suite's plan, `1..N`: how many cases it was to run.
    pub planned: Option<usize>,
}

impl Suite {
    /// The case named `name`, if it reported a result.
    pub fn case(&self, name: &str) -> Option<&Case> {
        self.cases.iter().find(|c| c.name == name)
    }

    /// Why these results are not the whole suite's, if they are not (see [`incomplete`]).
    pub fn incomplete(&self) -> Option<String> {
        let outcomes: Vec<Outcome> = self.cases.iter().map(|c| c.outcome).collect();
        incomplete(self.planned, self.summary.as_deref(), &outcomes)
    }
}

/// Why results are not a whole suite's, if they are not: fewer results than the plan `1..N`
/// announced (the boot ended early), no summary line, or a summary whose totals differ from the
/// `outcomes` read.
pub fn incomplete(
    planned: Option<usize>,
    summary: Option<&str>,
    outcomes: &[Outcome],
) -> Option<String> {
    let read = outcomes.len();
    let Some(planned) = planned else {
        return Some(format!("{read} results, but no KTAP plan (1..N) for the suite"));
    };
    if read != planned {
        return Some(format!("{read} of the {planned} planned tests reported a result"));
    }
    let Some(summary) = summary else {
        return Some(format!(
            "all {planned} tests reported, but the suite's summary line is missing"
        ));
    };
    let total = |key: &str| {
        summary.split_whitespace().find_map(|w| w.strip_prefix(key)?.parse::<usize>().ok())
    };
    let count = |of: &[Outcome]| outcomes.iter().filter(|o| of.contains(o)).count();
    let expected = [
        ("pass:", count(&[Outcome::Pass])),
        ("fail:", count(&[Outcome::Fail, Outcome::Crash])),
        ("skip:", count(&[Outcome::Skip])),
        ("total:", read),
    ];
    for (key, ours) in expected {
        if total(key) != Some(ours) {
            return Some(format!(
                "the suite's summary ({summary}) disagrees with the {read} results read"
            ));
        }
    }
    None
}

/// Reads the suite named `suite` from a console log (with or without printk timestamps): from
/// its `# Subtest: SUITE` line to its `# SUITE: pass:...` summary.
pub fn parse_suite(console: &str, suite: &str) -> Suite {
    let start = format!("# Subtest: {suite}");
    let end = format!("# {suite}:");
    let mut results = Suite::default();
    let mut pending: Vec<String> = Vec::new();
    let mut in_suite = false;
    for raw in console.lines() {
        let text = strip_timestamp(raw.trim_end_matches('\r')).trim_start();
        if text == start {
            in_suite = true;
            continue;
        }
        if !in_suite {
            continue;
        }
        if let Some(rest) = text.strip_prefix(&end) {
            results.summary = Some(format!("{suite}:{rest}"));
            in_suite = false;
            continue;
        }
        if results.planned.is_none()
            && let Some(n) = text.strip_prefix("1..").and_then(|n| n.trim().parse().ok())
        {
            results.planned = Some(n);
        }
        let result = text
            .strip_prefix("ok ")
            .map(|r| (true, r))
            .or_else(|| text.strip_prefix("not ok ").map(|r| (false, r)));
        if let Some((ok, rest)) = result
            && let Some((_number, rest)) = rest.split_once(' ')
        {
            let (name, directive) = rest.split_once(" # ").unwrap_or((rest, ""));
            let name = name.trim();
            pending.push(text.to_owned());
            // KUnit's `kunit_try_catch` says how a case that never returned ended.
            let crashed = pending.iter().any(|l| {
                l.strip_prefix("# ")
                    .and_then(|l| l.strip_prefix(name))
                    .is_some_and(|l| l == ": try faulted" || l == ": try timed out")
            });
            let outcome = match (ok, directive.to_ascii_uppercase().starts_with("SKIP")) {
                (_, true) => Outcome::Skip,
                (true, false) => Outcome::Pass,
                (false, false) if crashed => Outcome::Crash,
                (false, false) => Outcome::Fail,
            };
            results.cases.push(Case {
                name: name.to_owned(),
                outcome,
                ktap: std::mem::take(&mut pending),
            });
            continue;
        }
        pending.push(text.to_owned());
    }
    results
}

/// A console line without printk's `[    1.234567] ` prefix.
pub fn strip_timestamp(line: &str) -> &str {
    if let Some(rest) = line.strip_prefix('[')
        && let Some((stamp, after)) = rest.split_once(']')
        && stamp.trim().chars().all(|c| c.is_ascii_digit() || c == '.')
    {
        return after.strip_prefix(' ').unwrap_or(after);
    }
    line
}

#[cfg(test)]
mod tests;
