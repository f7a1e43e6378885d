//! The summary as the user reads it, from typed results.

use std::path::PathBuf;
use std::time::Duration;

use expect_test::expect;
use report::results::*;

use super::*;

fn ran(tool: &'static str, result: Result<ToolResult, String>, reused: bool) -> Ran {
    Ran { tool, result, outputs: vec![], took: Duration::from_millis(1500), reused }
}

#[test]
fn a_summary_of_typed_results() {
    let scenario = |name: &str, verdict| Scenario {
        name: name.into(),
        what: "a NULL write".into(),
        verdict,
        why: vec![],
        cmdline: String::new(),
        reports: 1,
        frames: vec![],
        proc_kallsyms_symbols: 3,
        missing_from_proc_kallsyms: vec![],
        identity_matches: None,
        log: None,
    };
    let mut lint = Lint { files: 75, suppressed: 2, ..Lint::default() };
    lint.findings.push(LintFinding {
        rule: "safety-comment".into(),
        level: "warning".into(),
        file: "rust/kernel/lib.rs".into(),
        line: 3,
        message: "no SAFETY comment".into(),
    });
    let mut layout = Ran {
        outputs: vec![PathBuf::from("/work/layout-check.html")],
        ..ran(
            "layout-check",
            Ok(ToolResult::LayoutCheck(Layout {
                rust_types: 900,
                compared: 850,
                matching: 850,
                ..Layout::default()
            })),
            false,
        )
    };
    layout.took = Duration::from_secs(4);
    let results = [
        ran(
            "rust-project-gen",
            Ok(ToolResult::RustProjectGen(Project {
                crates: 14,
                cmd_files: 1634,
                ..Project::default()
            })),
            false,
        ),
        ran(
            "rust-project-check",
            Ok(ToolResult::RustAnalyzer(Analysis {
                rust_analyzer: "rust-analyzer 1.95.0".into(),
                ..Analysis::default()
            })),
            true,
        ),
        ran("lint-rules", Ok(ToolResult::LintRules(lint)), false),
        ran(
            "kallsyms-check",
            Ok(ToolResult::KallsymsCheck(Kallsyms {
                scenarios: vec![
                    scenario("rust_oops_null", ScenarioVerdict::Ok),
                    scenario("rust_long_symbols", ScenarioVerdict::NotRun),
                ],
                images: vec![ImageSymbols {
                    image: "vmlinux".into(),
                    rust_symbols: 4994,
                    longest: 530,
                    over_reader_len: 457,
                    at_ksym_name_len: vec![LongSymbol {
                        symbol: format!("_R{}", "x".repeat(528)),
                        fate: SymbolFate::HeldCut,
                    }],
                    ..ImageSymbols::default()
                }],
            })),
            false,
        ),
        ran("docs-site", Err("exit status 2: docs-site: error: no rustc invocation".into()), false),
        layout,
    ];
    expect![[r#"
        tools:
          rust-project-gen   ok        1.5s  14 crates from 1634 .cmd files
          rust-project-check reused    1.5s  rust-analyzer 1.95.0: 0 errors
          lint-rules         ok        1.5s  75 files, 0 errors, 1 warnings, 2 suppressed, 0 files not linted
          kallsyms-check     ok        1.5s  1 of 1 oops scenarios: every Rust frame whole and right; 1 not run on this tree (the report says why); 4994 Rust function symbols in 1 image, 457 of 256 characters or more, 1 at KSYM_NAME_LEN
          docs-site          FAILED    1.5s  exit status 2: docs-site: error: no rustc invocation
          layout-check       ok        4.0s  850 types compared: 850 the same, 0 different
                                             /work/layout-check.html
    "#]]
    .assert_eq(&render(&results));
}

#[test]
fn a_tool_that_found_nothing_is_no_success() {
    for result in [
        ToolResult::RustProjectGen(Project::default()),
        ToolResult::LintRules(Lint::default()),
        ToolResult::DocsSite(Docs::default()),
        ToolResult::LayoutCheck(Layout::default()),
        ToolResult::KallsymsCheck(Kallsyms::default()),
        ToolResult::DecodeStacktrace(Decoded::default()),
    ] {
        assert!(!result.ok(), "{result:?}");
    }
}
