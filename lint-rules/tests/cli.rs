//! The `lint-rules` binary on bad input and in its modes: files that do not parse, non-UTF-8
//! files, generated files, vendored crates, missing paths, a patch, JSON output (rustc's
//! diagnostics, and `--json`'s one document), and the exit codes (0 clean, 1 findings at error
//! level or files not linted, 2 usage error).

use std::path::Path;
use std::time::Duration;

use report::results::{self, Lint, LintFinding, ToolResult};
use subprocess::Command;
use subprocess::testing;

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(dir: &Path, args: &[&str]) -> Run {
    let cmd = Command::new(env!("CARGO_BIN_EXE_lint-rules"), dir)
        .args(args)
        .timeout(Duration::from_secs(120));
    let out = testing::run(&cmd);
    Run { code: out.status.code().unwrap_or(-1), stdout: out.stdout, stderr: out.stderr }
}

const CLEAN: &str = "// SPDX-License-Identifier: GPL-2.0\n\n//! Clean.\n\nfn f() {}\n";
const UNSAFE: &str = "// SPDX-License-Identifier: GPL-2.0\n\n//! Not clean.\n\nfn f(p: *const u8) -> u8 {\n    unsafe { *p }\n}\n";

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("rust/kernel")).unwrap();
    dir
}

#[test]
fn a_clean_tree_exits_0() {
    let dir = tree();
    std::fs::write(dir.path().join("rust/kernel/a.rs"), CLEAN).unwrap();
    let r = run(dir.path(), &["check", "rust"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "");
    assert!(r.stderr.contains("1 files, 0 errors, 0 warnings"), "{}", r.stderr);
}

#[test]
fn findings_at_error_level_exit_1_with_a_snippet() {
    let dir = tree();
    std::fs::write(dir.path().join("rust/kernel/a.rs"), UNSAFE).unwrap();
    let r = run(dir.path(), &["check", "rust"]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.starts_with(
        "error[safety-comment]: `unsafe` block without a preceding `// SAFETY:` comment\n --> rust/kernel/a.rs:6:5\n  |\n6 |     unsafe { *p }\n  |     ^^^^^^\n"
    ), "{}", r.stdout);
    // A rule switched down to a warning no longer fails the run.
    let r = run(dir.path(), &["check", "rust", "--rule", "safety-comment=warn"]);
    assert_eq!(r.code, 0, "{}", r.stdout);
}

#[test]
fn bad_files_are_reported_and_the_others_still_linted() {
    let dir = tree();
    let k = dir.path().join("rust/kernel");
    std::fs::write(
        k.join("a_broken.rs"),
        "// SPDX-License-Identifier: GPL-2.0\n//! Broken.\nfn f( {\n",
    )
    .unwrap();
    std::fs::write(k.join("b_latin1.rs"), b"// SPDX-License-Identifier: GPL-2.0\n//! caf\xe9\n")
        .unwrap();
    std::fs::write(k.join("c_bindings_generated.rs"), "pub const X: u32 = 1;\n".repeat(1000))
        .unwrap();
    std::fs::write(k.join("d_unsafe.rs"), UNSAFE).unwrap();
    let r = run(dir.path(), &["check", "rust", "no/such/dir"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("no/such/dir: no such file or directory"), "{}", r.stderr);
    assert!(
        r.stderr.contains("rust/kernel/b_latin1.rs: not UTF-8 (invalid byte at offset 43)"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("skipped 1 generated file (rust/kernel/c_bindings_generated.rs); --include-generated lints them"),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout.contains("error[parse-error]: the file does not parse: expected value parameter; its other rules were not checked\n --> rust/kernel/a_broken.rs:3:6"),
        "{}",
        r.stdout
    );
    // The file after the bad ones was linted.
    assert!(r.stdout.contains("--> rust/kernel/d_unsafe.rs:6:5"), "{}", r.stdout);
    assert!(r.stderr.contains("2 files not linted"), "{}", r.stderr);
}

/// Third-party crates vendored into the tree (Linux 7.3's `rust/syn`, `rust/zerocopy`, ...: 701
/// of its 1444 findings) are told by their README and skipped, with one line saying so; a
/// kernel-maintained crate with a README of its own (`rust/pin-init`) is linted.
#[test]
fn vendored_crates_are_skipped_unless_asked_for() {
    let dir = tree();
    let syn = dir.path().join("rust/syn");
    std::fs::create_dir_all(syn.join("gen")).unwrap();
    std::fs::write(
        syn.join("README.md"),
        "# `syn`\n\nThese source files come from the Rust `syn` crate, version 2.0.106\n(released 2025-08-16), hosted in the <https://github.com/dtolnay/syn>\nrepository.\n",
    )
    .unwrap();
    std::fs::write(syn.join("lib.rs"), UNSAFE).unwrap();
    std::fs::write(syn.join("gen/fold.rs"), UNSAFE).unwrap();
    let pin_init = dir.path().join("rust/pin-init/src");
    std::fs::create_dir_all(&pin_init).unwrap();
    std::fs::write(
        dir.path().join("rust/pin-init/README.md"),
        "# `pin-init`\n\nLibrary to safely and fallibly initialize pinned `struct`s.\n",
    )
    .unwrap();
    std::fs::write(pin_init.join("lib.rs"), CLEAN).unwrap();

    let r = run(dir.path(), &["check", "rust"]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    assert!(
        r.stderr.contains("lint-rules: skipped 2 files of 1 vendored third-party crate (syn 2.0.106 in rust/syn: 2); --vendored lints them\n"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("1 files, 0 errors"), "{}", r.stderr);
    // A file named on the command line is still in its crate: skipped, so nothing is linted,
    // which is an error unless allowed.
    let r = run(dir.path(), &["check", "rust/syn/gen/fold.rs"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("every one of them generated or vendored"), "{}", r.stderr);
    let r = run(dir.path(), &["check", "--allow-empty", "rust/syn/gen/fold.rs"]);
    assert_eq!(r.code, 0, "{}", r.stderr);

    let r = run(dir.path(), &["check", "--vendored", "rust"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let places: Vec<&str> = r.stdout.lines().filter(|l| l.contains("-->")).collect();
    assert_eq!(places, [" --> rust/syn/gen/fold.rs:6:5", " --> rust/syn/lib.rs:6:5"]);
    assert!(!r.stderr.contains("vendored"), "{}", r.stderr);
}

#[test]
fn usage_errors_exit_2() {
    let dir = tree();
    let r = run(dir.path(), &["check", "--rule", "no-such-rule=warn"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no rule `no-such-rule`"), "{}", r.stderr);
    let r = run(dir.path(), &["explain", "nope"]);
    assert_eq!(r.code, 2);
}

/// A folder with no Rust file, or a patch that touches none, lints nothing: an error that says
/// so, not a clean result, unless `--allow-empty` says that is expected.
#[test]
fn linting_nothing_fails_unless_allowed() {
    let dir = tree();
    std::fs::write(dir.path().join("README"), "no Rust here\n").unwrap();
    let r = run(dir.path(), &["check", "rust"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("lint-rules: error: no Rust file linted: 0 Rust file(s) found under "),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("--allow-empty accepts that"), "{}", r.stderr);
    let r = run(dir.path(), &["check", "--allow-empty", "rust"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("lint-rules: 0 files, 0 errors"), "{}", r.stderr);

    std::fs::write(dir.path().join("rust/kernel/a.rs"), UNSAFE).unwrap();
    let diff = "--- a/rust/kernel/a.c\n+++ b/rust/kernel/a.c\n@@ -1,0 +1,1 @@\n+int x;\n";
    std::fs::write(dir.path().join("c-only.diff"), diff).unwrap();
    let r = run(dir.path(), &["check", "rust", "--diff", "c-only.diff"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("no Rust file linted: the diff touches none of the 1 Rust file(s) under "),
        "{}",
        r.stderr
    );
}

#[test]
fn a_patch_limits_findings_to_the_lines_it_adds() {
    let dir = tree();
    let text = "// SPDX-License-Identifier: GPL-2.0\n\n//! Patch.\n\nfn f(p: *const u8) -> u8 {\n    unsafe { *p }\n}\n\nfn g(p: *const u8) -> u8 {\n    unsafe { *p }\n}\n";
    std::fs::write(dir.path().join("rust/kernel/a.rs"), text).unwrap();
    std::fs::write(dir.path().join("rust/kernel/b.rs"), UNSAFE).unwrap();
    let diff = "--- a/rust/kernel/a.rs\n+++ b/rust/kernel/a.rs\n@@ -8,0 +9,3 @@\n+fn g(p: *const u8) -> u8 {\n+    unsafe { *p }\n+}\n";
    std::fs::write(dir.path().join("change.diff"), diff).unwrap();
    let r = run(dir.path(), &["check", "rust", "--diff", "change.diff"]);
    assert_eq!(r.code, 1);
    let places: Vec<&str> = r.stdout.lines().filter(|l| l.contains("-->")).collect();
    assert_eq!(places, ["  --> rust/kernel/a.rs:10:5"], "{}", r.stdout);
}

#[test]
fn json_output_is_rustc_diagnostics_with_absolute_paths() {
    let dir = tree();
    std::fs::write(dir.path().join("rust/kernel/a.rs"), UNSAFE).unwrap();
    let r = run(dir.path(), &["check", "rust", "--message-format", "json"]);
    let line = r.stdout.lines().next().unwrap();
    let d: serde_json::Value = serde_json::from_str(line).unwrap();
    assert_eq!(d["$message_type"], "diagnostic");
    assert_eq!(d["level"], "error");
    assert_eq!(d["code"]["code"], "lint_rules::safety-comment");
    let span = &d["spans"][0];
    let file = dir.path().canonicalize().unwrap().join("rust/kernel/a.rs");
    assert_eq!(span["file_name"], file.display().to_string());
    assert_eq!((span["line_start"].as_u64(), span["column_start"].as_u64()), (Some(6), Some(5)));
    assert_eq!(span["text"][0]["text"], "    unsafe { *p }");
    let r = run(dir.path(), &["check", "rust", "--message-format", "cargo-json"]);
    let d: serde_json::Value = serde_json::from_str(r.stdout.lines().next().unwrap()).unwrap();
    assert_eq!(d["reason"], "compiler-message");
    assert_eq!(d["message"]["code"]["code"], "lint_rules::safety-comment");
}

/// `--json`: one document of the suite's schema (`report::results`) on stdout, in place of the
/// findings; the summary stays on stderr, and the exit code is the same as without it.
#[test]
fn json_result_is_one_document_of_the_suites_schema() {
    let dir = tree();
    let k = dir.path().join("rust/kernel");
    std::fs::write(k.join("a.rs"), UNSAFE).unwrap();
    let suppressed = "// SPDX-License-Identifier: GPL-2.0\n\n//! Suppressed.\n\nfn f(v: Option<u32>) -> u32 {\n    // lint-allow(no-panic): the caller checked.\n    v.unwrap()\n}\n";
    std::fs::write(k.join("b.rs"), suppressed).unwrap();
    std::fs::write(k.join("c_bindings_generated.rs"), "pub const X: u32 = 1;\n").unwrap();
    std::fs::write(k.join("d_latin1.rs"), b"// SPDX-License-Identifier: GPL-2.0\n//! caf\xe9\n")
        .unwrap();
    let r = run(dir.path(), &["check", "--json", "rust"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let ToolResult::LintRules(mut lint) = results::from_json(&r.stdout).unwrap() else {
        panic!("not lint-rules' result: {}", r.stdout)
    };
    lint.millis = 0;
    let want = Lint {
        files: 2,
        findings: vec![LintFinding {
            rule: "safety-comment".to_owned(),
            level: "error".to_owned(),
            file: "rust/kernel/a.rs".to_owned(),
            line: 6,
            message: "`unsafe` block without a preceding `// SAFETY:` comment".to_owned(),
        }],
        suppressed: 1,
        not_linted: vec![
            "rust/kernel/d_latin1.rs: not UTF-8 (invalid byte at offset 43); Rust source must be UTF-8"
                .to_owned(),
        ],
        skipped_generated: vec!["rust/kernel/c_bindings_generated.rs".to_owned()],
        skipped_vendored: 0,
        millis: 0,
    };
    assert_eq!(lint, want);
    assert!(
        r.stderr.contains(
            "lint-rules: 2 files, 1 errors, 0 warnings, 1 suppressed, 1 files not linted, in "
        ),
        "{}",
        r.stderr
    );

    // Nothing linted is still an error, the document printed all the same.
    let r = run(dir.path(), &["check", "--json", "rust/kernel/c_bindings_generated.rs"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("lint-rules: error: no Rust file linted: "), "{}", r.stderr);
    let ToolResult::LintRules(lint) = results::from_json(&r.stdout).unwrap() else {
        panic!("not lint-rules' result: {}", r.stdout)
    };
    assert_eq!((lint.files, lint.skipped_generated.len()), (0, 1));

    // One document or a stream of diagnostics, not both.
    let r = run(dir.path(), &["check", "--json", "--message-format", "json", "rust"]);
    assert_eq!((r.code, r.stdout.as_str()), (2, ""), "{}", r.stderr);
}

/// Regression: with stdout closed (`lint-rules rules | head -1`), `println!` panicked with
/// "failed printing to stdout: Broken pipe" and `check` reported the write as an error (found by
/// piping the binaries into `head`). A closed stdout ends the run quietly, with 141 like a C
/// program killed by `SIGPIPE`. The pipe's reader is closed before the start: no race.
#[test]
fn a_closed_stdout_ends_the_run_quietly() {
    let dir = tree();
    std::fs::write(dir.path().join("rust/kernel/a.rs"), UNSAFE).unwrap();
    let runs: [&[&str]; 5] = [
        &["rules"],
        &["rules", "--markdown"],
        &["explain", "safety-comment"],
        &["check", "rust"],
        &["check", "rust", "--message-format", "json"],
    ];
    for args in runs {
        let cmd = Command::new(env!("CARGO_BIN_EXE_lint-rules"), dir.path())
            .args(args)
            .stdout_closed()
            .timeout(Duration::from_secs(120));
        let out = testing::run(&cmd);
        assert_eq!(
            (out.status.code(), out.stderr.as_str()),
            (Some(141), ""),
            "lint-rules {args:?}"
        );
    }
}
