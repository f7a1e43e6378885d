//! `make demo`'s success path on the demo tree `make test` prepared: the real `demo` binary
//! runs every tool against it, and each tool's typed result (kept in `WORK_DIR/results/`, read
//! back as `report::results`) says what the demo must show.

use std::path::Path;
use std::time::Duration;

use kbuild::testing::env_path as var;
use report::results::{ToolResult, from_json};
use subprocess::Command;
use subprocess::testing::{report, run};

#[test]
fn every_tool_gives_its_result_on_the_demo_tree() {
    let work = tempfile::tempdir().unwrap();
    let docs = work.path().join("site");
    let cmd = Command::new(env!("CARGO_BIN_EXE_demo"), Path::new(env!("CARGO_MANIFEST_DIR")))
        .arg("--srctree")
        .arg(var("KERNEL_SRC"))
        .arg("--objtree")
        .arg(var("KERNEL_OBJ"))
        // The out-of-tree modules, in the build folder `make test` built them in (unchanged
        // sources are not copied again, so kbuild rebuilds nothing).
        .arg("--extmod-sources")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("../demo-kernel/modules"))
        .arg("--extmod-build-dir")
        .arg(var("EXTMOD_DIR"))
        .arg("--work-dir")
        .arg(work.path())
        .arg("--docs-dir")
        .arg(&docs)
        .args(["--config-name", "the demo tree"])
        // The tools' binaries are cargo's, beside the demo's: `make test`'s `cargo test --workspace`
        // builds them.
        .timeout(Duration::from_secs(3000))
        .capture_limit(64 << 20);
    let out = run(&cmd);
    assert!(out.status.success(), "{}", report(&cmd, &out));
    assert!(
        out.stdout.contains("\ntools:\n") && out.stdout.contains("\ntimings:\n"),
        "{}",
        out.stdout
    );
    let result = |tool: &str| -> ToolResult {
        let path = work.path().join("results").join(format!("{tool}.json"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e}\n{}", path.display(), report(&cmd, &out)));
        from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let ToolResult::RustProjectGen(project) = result("rust-project-gen") else { panic!() };
    assert!(project.crates >= 10 && project.problems.is_empty(), "{project:?}");
    let ToolResult::RustAnalyzer(analysis) = result("rust-project-check") else { panic!() };
    assert_eq!(analysis.errors, Vec::<String>::new());
    let ToolResult::LintRules(lint) = result("lint-rules") else { panic!() };
    assert!(lint.files > 50 && lint.not_linted.is_empty(), "{}", lint.summary());
    let ToolResult::DocsSite(docs) = result("docs-site") else { panic!() };
    assert!(docs.ok(), "{}", docs.summary());
    assert!(docs.crates.iter().any(|c| c.name == "kernel"), "{}", docs.summary());
    let doctests = docs.doctests.as_ref().expect("the demo tree builds the doctests");
    assert!(doctests.passed > 50, "{}", docs.summary());
    let ToolResult::KallsymsCheck(kallsyms) = result("kallsyms-check") else { panic!() };
    assert!(kallsyms.ok(), "{}", kallsyms.summary());
    let ToolResult::DecodeStacktrace(decoded) = result("decode-stacktrace") else { panic!() };
    assert!(decoded.frames.len() > 3 && decoded.located() > 3, "{decoded:?}");
    let ToolResult::LayoutCheck(layout) = result("layout-check") else { panic!() };
    assert!(layout.ok() && layout.compared > 100, "{}", layout.summary());
    // The summary is each result's rendering.
    // The same results as KernelCI's KCIDB data, valid by kcidb-io's own schema (`make
    // ci-tools` installs it into the cache), one test per result.
    let kcidb = work.path().join("kcidb.json");
    assert!(out.stdout.contains(&format!("kcidb: {}", kcidb.display())), "{}", out.stdout);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let validate = Command::new(var("KCIDB_PYTHON"), &root)
        .arg(root.join("tools/kcidb_validate.py"))
        .arg(&kcidb)
        .timeout(Duration::from_secs(120));
    let valid = run(&validate);
    assert!(valid.status.success(), "{}", report(&validate, &valid));
    let document: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&kcidb).unwrap()).unwrap();
    let status = |path: &str| {
        let tests = document["tests"].as_array().unwrap();
        let test = tests.iter().find(|t| t["path"] == path);
        test.map(|t| t["status"].as_str().unwrap().to_owned())
    };
    for path in ["rust.project_gen", "rust.analyzer.errors", "rust.docs.build", "rust.docs.links"] {
        assert_eq!(status(path).as_deref(), Some("PASS"), "{path}");
    }
    for path in ["rust.doctest.kernel", "rust.kallsyms.rust_oops_long", "rust.decode_stacktrace"] {
        assert_eq!(status(path).as_deref(), Some("PASS"), "{path}");
    }
    assert_eq!(status("rust.layout").as_deref(), Some("PASS"));
    assert_eq!(status("rust.lint").as_deref(), Some("DONE"));
    let doctest_cases = document["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["path"].as_str().unwrap().starts_with("rust.doctest.kernel."))
        .count();
    assert_eq!(doctest_cases, doctests.passed, "a test per doctest");
    let lines = [
        demo::summary::one_line(&ToolResult::KallsymsCheck(kallsyms)),
        demo::summary::one_line(&ToolResult::LayoutCheck(layout)),
    ];
    for line in lines {
        assert!(out.stdout.contains(&line), "{line}\n{}", out.stdout);
    }
}
