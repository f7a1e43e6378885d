//! The comparison as the suite's result (`report::results::Layout`), what `check --json`
//! prints and the demo reads.

use report::results;

use crate::bindgen::Outcome;
use crate::compare::Report;

/// `report` and, when they were rerun, bindgen's layout tests, as the suite's result.
pub fn to_result(report: &Report, layout_tests: Option<&[Outcome]>) -> results::Layout {
    let summary = &report.summary;
    results::Layout {
        rust_types: summary.rust_types,
        compared: summary.compared,
        matching: summary.matching,
        mismatches: report
            .mismatches
            .iter()
            .map(|m| results::LayoutMismatch {
                krate: m.krate.clone(),
                name: m.name.clone(),
                c: (m.c.size, m.c.align.bytes),
                rust: (m.rust.size, m.rust.align.bytes),
                first_moved: m.first_moved.as_ref().map(|f| f.member.clone()),
                cause: m.cause.clone(),
                caused_by: m.caused_by.clone(),
            })
            .collect(),
        latent: report.latent.len(),
        ambiguous: report.ambiguous.len(),
        without_c_definition: report.without_c_definition.clone(),
        bindgen_layout_tests: layout_tests.map(|outcomes| {
            outcomes
                .iter()
                .map(|o| results::BindgenTests {
                    krate: o.krate.clone(),
                    assertions: o.assertions,
                    failed: o.failed.iter().map(|t| t.assertion.clone()).collect(),
                })
                .collect()
        }),
    }
}
