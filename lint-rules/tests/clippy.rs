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
    let codes: Vec<&str> = found.iter().map(|f| f.rule()).collect();
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
            let who = if matches!(f.origin, Origin::Clippy(_)) { "clippy" } else { "lint-rules" };
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

/// Regression: `kernel-clippy.toml` disallows `Option::unwrap` and friends for `no-panic`, but
/// clippy cannot be told where the rule does not apply; on 7.3 it reported the `expect` in the
/// kernel's `const` error codes (`declare_err!`, once per code) and an `unwrap` in a `const`
/// block (`Alignment::of`). Those are dropped; at run time clippy's finding stays unless ours
/// is on the same line. A method the kernel's own `.clippy.toml` disallows (7.3: `CStr::as_ptr`)
/// is no counterpart of ours and always stays.
#[test]
fn clippy_no_panic_counterparts_follow_the_rule_exemptions() {
    let text = "// SPDX-License-Identifier: GPL-2.0\n\n//! Fixture.\n\nmacro_rules! declare_err {\n    ($err:tt) => {\n        pub const $err: Error = Error::try_from_errno(-1).expect(\"bad errno\");\n    };\n}\n\nfn of() -> Alignment {\n    const { Alignment::new_checked(8).unwrap() }\n}\n\nfn runtime(v: Option<u32>, s: &CStr) -> u32 {\n    let p = s.as_ptr(); let w = u32::try_from(8u64).unwrap();\n    v.unwrap()\n}\n";
    let at = |needle: &str, nth: usize| text.match_indices(needle).nth(nth).unwrap().0;
    let line_of = |offset: usize| text[..offset].lines().count();
    let diagnostic = |method: &str, offset: usize| {
        let line = line_of(offset);
        format!(
            r#"{{"$message_type":"diagnostic","message":"use of a disallowed method `{method}`","code":{{"code":"clippy::disallowed_methods","explanation":null}},"level":"warning","spans":[{{"file_name":"/k/src/rust/kernel/x.rs","byte_start":{offset},"byte_end":{},"line_start":{line},"line_end":{line},"column_start":1,"column_end":2,"is_primary":true}}],"children":[]}}"#,
            offset + 6
        )
    };
    let json = [
        diagnostic("core::option::Option::expect", at("expect", 0)),
        diagnostic("core::option::Option::unwrap", at("unwrap", 0)),
        diagnostic("core::ffi::CStr::as_ptr", at("as_ptr", 0)),
        diagnostic("core::result::Result::unwrap", at("unwrap", 1)),
        diagnostic("core::option::Option::unwrap", at("unwrap", 2)),
    ]
    .join("\n");
    let found = clippy::parse_output(&json, Path::new("/k/src"), Path::new("/k/obj"));
    assert_eq!(found.len(), 5);
    let config = Config { clippy_ran: true, ..Config::default() };
    let result =
        lint_rules::lint_file(&FileContext::for_path("rust/kernel/x.rs"), text, &config, found);
    let got: Vec<(String, usize)> =
        result.findings.iter().map(|f| (f.rule().to_owned(), f.span.line)).collect();
    let want: Vec<(String, usize)> = [
        // `as_ptr` and `try_from(..).unwrap()` share line 16: the kernel's own disallowed method
        // stays beside our `no-panic`, which stands for clippy's `unwrap` there.
        ("clippy::disallowed_methods", 16),
        ("no-panic", 16),
        ("no-panic", 17),
    ]
    .iter()
    .map(|(r, l)| (r.to_string(), *l))
    .collect();
    assert_eq!(got, want);
}

/// The kernel's clippy run on the demo tree `make test` built: the crates `make CLIPPY=1`
/// checks, checked by the real clippy-driver, and not one file of the objtree written (the
/// next `make` has nothing to rebuild). `make test` sets `KERNEL_SRC` and `KERNEL_OBJ`.
#[test]
fn the_kernels_clippy_run_writes_nothing_into_the_tree() {
    let (src, obj) =
        (kbuild::testing::env_path("KERNEL_SRC"), kbuild::testing::env_path("KERNEL_OBJ"));
    let before = snapshot(&obj);
    let run = clippy::run(&src, &obj, Some(clippy::CLIPPY_TOML)).unwrap_or_else(|e| panic!("{e}"));
    assert!(run.targets.iter().any(|t| t == "rust/kernel.o"), "{:?}", run.targets);
    assert!(
        !run.targets.iter().any(|t| t == "rust/core.o"),
        "kbuild skips clippy for core: {:?}",
        run.targets
    );
    assert!(run.json.lines().all(|l| l.contains("\"$message_type\":\"diagnostic\"")));
    let after = snapshot(&obj);
    let changed: Vec<_> =
        after.iter().filter(|(path, time)| before.get(*path) != Some(time)).collect();
    assert!(changed.is_empty(), "the clippy run wrote into the objtree: {changed:?}");
}

/// Every file under `dir` with its modification time.
fn snapshot(dir: &Path) -> std::collections::BTreeMap<std::path::PathBuf, std::time::SystemTime> {
    let mut files = std::collections::BTreeMap::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                files.insert(entry.path(), meta.modified().unwrap());
            }
        }
    }
    files
}
