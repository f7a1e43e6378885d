//! The results schema: what is written reads back, another schema or no result is refused
//! by name, and the summaries are renderings of the values.

use super::*;

pub(crate) fn layout() -> ToolResult {
    ToolResult::LayoutCheck(Layout {
        rust_types: 3,
        compared: 2,
        matching: 1,
        mismatches: vec![LayoutMismatch {
            krate: "bindings".into(),
            name: "task_struct".into(),
            c: (128, 64),
            rust: (64, 8),
            first_moved: Some("stats".into()),
            cause: "stats: C aligned 64, Rust aligned 8".into(),
            caused_by: None,
        }],
        ..Layout::default()
    })
}

#[test]
fn a_result_reads_back_as_it_was_written() {
    let text = to_json(layout());
    assert!(text.contains("\"schema\": 1") && text.contains("\"tool\": \"layout-check\""));
    assert_eq!(from_json(&text).unwrap(), layout());
}

#[test]
fn another_schema_is_refused_by_name() {
    let text = to_json(layout()).replace("\"schema\": 1", "\"schema\": 99");
    let err = from_json(&text).unwrap_err().to_string();
    assert!(err.contains("schema 99") && err.contains("make tools"), "{err}");
}

#[test]
fn text_that_is_no_result_is_refused() {
    for text in ["", "1204 types compared", "{\"schema\": 1, \"tool\": \"no-such-tool\"}"] {
        let err = from_json(text).unwrap_err().to_string();
        assert!(err.starts_with("not a tool result of schema 1"), "{text}: {err}");
    }
}

#[test]
fn summaries_are_renderings_of_the_values() {
    let ToolResult::LayoutCheck(l) = layout() else { unreachable!() };
    assert_eq!(l.summary(), "2 types compared: 1 the same, 1 different (root causes: task_struct)");
    assert!(!l.ok());
    assert!(!Layout::default().ok(), "a comparison of nothing is no match");
    let k = Kallsyms::default();
    assert!(!k.ok(), "no scenario run is no pass");
    assert!(!Docs::default().ok(), "a site of no crate is no site");
    let a = Analysis {
        errors: vec![],
        known_bugs: vec![KnownBugError { issue: "r-a#1".into(), error: "E".into() }],
        ..Analysis::default()
    };
    assert_eq!(a.verdict(), "0 errors (1 more from its own bug r-a#1)");
    let bug = |issue: &str| KnownBugError { issue: issue.into(), error: "E".into() };
    let a = Analysis {
        errors: vec!["E".into()],
        known_bugs: vec![bug("r-a#2"), bug("r-a#1"), bug("r-a#2")],
        ..Analysis::default()
    };
    assert_eq!(a.verdict(), "1 error (3 more from its own bugs: 2 of r-a#2, 1 of r-a#1)");
}
