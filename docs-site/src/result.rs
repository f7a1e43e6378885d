//! A build of the site as the suite's result (`report::results::Docs`), what `build --json`
//! prints and the demo reads.

use report::results;

use crate::build::Status;
use crate::doctests::{Outcome, Results};
use crate::generate::Summary;
use crate::linkcheck;

/// The build `summary` and, when the links were checked, their `links` report.
pub fn to_result(summary: &Summary, links: Option<&linkcheck::Report>) -> results::Docs {
    results::Docs {
        index: summary.index.clone(),
        crates: summary
            .crates
            .iter()
            .map(|c| results::DocsCrate {
                name: c.name.clone(),
                status: match &c.status {
                    Status::Built => results::DocsStatus::Built,
                    Status::Fresh | Status::Shared => results::DocsStatus::Reused,
                    Status::Failed(why) => results::DocsStatus::Failed(why.clone()),
                },
            })
            .collect(),
        size: summary.size,
        doctests: summary.doctests.as_ref().map(doctests),
        links: links.map(|report| results::Links {
            pages: report.pages,
            checked: report.checked,
            external: report.external,
            broken: report
                .broken
                .iter()
                .map(|b| format!("{} -> {} ({})", b.page, b.link, b.reason.describe()))
                .collect(),
            known_upstream: report.known.len(),
        }),
        unlinked: summary.unlinked.len(),
        c_side: summary.c_side.as_ref().map(|c| results::DocsCSide {
            pages: c.pages,
            located: c.located,
            with_kernel_doc: c.with_kernel_doc,
            with_layout: c.with_layout,
            headers: c.headers,
        }),
        problems: summary.problems.clone(),
        rustdoc_millis: millis(summary.rustdoc_time),
        millis: millis(summary.total_time),
    }
}

fn doctests(results: &Results) -> results::Doctests {
    let named = |outcome| {
        results.tests.iter().filter(|t| t.outcome == outcome).map(|t| t.name.clone()).collect()
    };
    let count = |outcome| results.tests.iter().filter(|t| t.outcome == outcome).count();
    results::Doctests {
        passed: count(Outcome::Pass),
        failed: named(Outcome::Fail),
        crashed: named(Outcome::Crash),
        skipped: count(Outcome::Skip),
        incomplete: results.incomplete(),
        cases: results
            .tests
            .iter()
            .map(|t| results::DoctestCase {
                name: t.name.clone(),
                outcome: match t.outcome {
                    Outcome::Pass => "pass",
                    Outcome::Fail => "fail",
                    Outcome::Crash => "crash",
                    Outcome::Skip => "skip",
                }
                .to_owned(),
                location: format!("{}:{}", t.file, t.line),
            })
            .collect(),
    }
}

fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}
