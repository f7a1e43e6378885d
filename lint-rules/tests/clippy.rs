//! The merged report on real clippy output: `fixtures/clippy/clippy_demo.json` is what
//! `make M=<module> CLIPPY=1 KRUSTFLAGS=--error-format=json modules` printed for
//! `fixtures/clippy/clippy_demo.rs`, built out of tree against the demo kernel (the module's
//! directory written as `$MODULE`). Where clippy and a rule of ours report the same thing on the
//! same line, the report keeps ours; the rest of clippy's findings join ours.

use std::path::Path;

use expect_test::expect_file;
use lint_rules::{Config, FileContext, Origin, clippy, diag};

#[test]
fn clippy_findings_merge_with_ours() {
    let json = std::fs::read_to_string("tests/fixtures/clippy/clippy_demo.json").unwrap();
    let text = std::fs::read_to_string("tests/fixtures/clippy/clippy_demo.rs").unwrap();
    // The module as if it were a driver in the tree, built with O=.
    let json = json.replace("$MODULE", "/k/src/drivers/misc");
    let found = clippy::parse_output(&json, Path::new("/k/src"), Path::new("/k/obj"));
    let codes: Vec<&str> = found.iter().map(|f| f.rule.as_str()).collect();
    assert_eq!(
        codes,
        [
            "clippy::needless_return",
            "clippy::float_arithmetic",
            "clippy::undocumented_unsafe_blocks"
        ]
    );
    assert!(found.iter().all(|f| f.file == "drivers/misc/clippy_demo.rs"));

    let cx = FileContext::for_path("drivers/misc/clippy_demo.rs");
    let config = Config { clippy_ran: true, ..Config::default() };
    let result = lint_rules::lint_file(&cx, &text, &config, found);
    let out: String = result
        .findings
        .iter()
        .map(|f| {
            let who = if f.origin == Origin::Clippy { "clippy" } else { "lint-rules" };
            format!("[{who}] {}", diag::render_human(f, Some(&text)))
        })
        .collect();
    expect_file!["golden/clippy/clippy_demo.txt"].assert_eq(&out);
}

#[test]
fn relative_and_absolute_file_names_map_to_the_srctree() {
    let line = |name: &str| {
        format!(
            r#"{{"$message_type":"diagnostic","message":"m","code":{{"code":"clippy::x","explanation":null}},"level":"warning","spans":[{{"file_name":"{name}","byte_start":0,"byte_end":1,"line_start":1,"line_end":1,"column_start":1,"column_end":2,"is_primary":true}}],"children":[]}}"#
        )
    };
    let (src, obj) = (Path::new("/k/src"), Path::new("/k/obj"));
    let names: Vec<String> = [line("../src/rust/kernel/lib.rs"), line("/k/src/samples/rust/a.rs")]
        .iter()
        .flat_map(|l| clippy::parse_output(l, src, obj))
        .map(|f| f.file)
        .collect();
    assert_eq!(names, ["rust/kernel/lib.rs", "samples/rust/a.rs"]);
    // Lines that are not diagnostics are skipped, like make's own output.
    assert!(clippy::parse_output("  RUSTC L rust/kernel.o\n{not json", src, obj).is_empty());
}
