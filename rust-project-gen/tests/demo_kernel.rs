//! The generator on the demo kernel that `make test` built, checked by the real rust-analyzer:
//! `rust-analyzer diagnostics` must report no error, for the tree and for an out-of-tree module.
//!
//! `make test` sets `KERNEL_SRC`, `KERNEL_OBJ` and `EXTMOD_DIR`; without them these tests fail
//! and say so.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::run;

use kbuild::testing::env_path as var;

fn sysroot() -> PathBuf {
    let out = Command::new("rustc").args(["--print", "sysroot"]).output().unwrap();
    assert!(out.status.success());
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

/// Generates into `out_dir` (kbuild's argument order) and returns the file's JSON.
fn generate(exttree: Option<&Path>, out_dir: &Path) -> serde_json::Value {
    let sysroot = sysroot();
    let sysroot_src = sysroot.join("lib/rustlib/src/rust/library");
    let output = out_dir.join("rust-project.json");
    let (src, obj) = (var("KERNEL_SRC"), var("KERNEL_OBJ"));
    let mut args =
        vec![src.as_os_str(), obj.as_os_str(), sysroot.as_os_str(), sysroot_src.as_os_str()];
    if let Some(ext) = exttree {
        args.push(ext.as_os_str());
    }
    args.extend(["--output".as_ref(), output.as_os_str()]);
    let run = run(&args);
    assert_eq!(run.code, 0, "rust-project-gen failed:\n{}", run.stderr);
    serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap()
}

/// Runs `rust-analyzer diagnostics` on the project in `dir` and returns its error lines.
fn rust_analyzer_errors(dir: &Path) -> Vec<String> {
    let ra = sysroot().join("bin/rust-analyzer");
    let out = Command::new(&ra).arg("diagnostics").arg(dir).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).replace('\r', "\n");
    let errors: Vec<String> =
        stdout.lines().filter(|l| l.contains("Error ")).map(str::to_owned).collect();
    if errors.is_empty() {
        assert!(
            out.status.success(),
            "rust-analyzer diagnostics failed without error lines: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    errors
}

fn assert_no_rust_analyzer_errors(dir: &Path) {
    let errors = rust_analyzer_errors(dir);
    assert!(
        errors.is_empty(),
        "rust-analyzer reports {} errors:\n{}",
        errors.len(),
        errors.join("\n")
    );
}

fn crate_names(json: &serde_json::Value) -> Vec<String> {
    json["crates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["display_name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn demo_tree_has_no_rust_analyzer_errors() {
    let dir = tempfile::tempdir().unwrap();
    let json = generate(None, dir.path());
    let names = crate_names(&json);
    for expected in ["ffi", "bindings", "uapi", "macros", "kernel", "rust_minimal", "rust_print"] {
        assert!(names.iter().any(|n| n == expected), "{expected} missing from {names:?}");
    }
    // Drivers this config does not build are not guessed in (upstream lists them all).
    for unbuilt in ["rnull", "qt2025", "ax88796b_rust", "drm_panic_qr"] {
        assert!(
            !names.iter().any(|n| n == unbuilt),
            "{unbuilt} is not built but listed: {names:?}"
        );
    }
    assert_no_rust_analyzer_errors(dir.path());
}

#[test]
fn out_of_tree_module_has_no_rust_analyzer_errors() {
    let exttree = var("EXTMOD_DIR").join("rust_out_of_tree");
    let dir = tempfile::tempdir().unwrap();
    let json = generate(Some(&exttree), dir.path());
    let names = crate_names(&json);
    assert!(names.iter().any(|n| n == "rust_out_of_tree"), "{names:?}");
    assert!(names.iter().any(|n| n == "kernel"), "{names:?}");
    assert!(
        !names.iter().any(|n| n == "rust_minimal"),
        "in-tree samples are not part of an external module's project: {names:?}"
    );
    assert_no_rust_analyzer_errors(dir.path());
}

/// What upstream's file gets wrong on the same tree, so that the comparison above means
/// something: `scripts/generate_rust_analyzer.py` lists `core` as an ordinary crate and
/// rust-analyzer then resolves no inherent method of a primitive type.
#[test]
fn upstream_script_has_rust_analyzer_errors_on_the_same_tree() {
    let (src, obj) = (var("KERNEL_SRC"), var("KERNEL_OBJ"));
    let sysroot = sysroot();
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("python3")
        .arg(src.join("scripts/generate_rust_analyzer.py"))
        .args(["--cfgs=core=--cfg no_fp_fmt_parse", "2024"])
        .args([&src, &obj, &sysroot, &sysroot.join("lib/rustlib/src/rust/library")])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    std::fs::write(dir.path().join("rust-project.json"), &out.stdout).unwrap();
    let errors = rust_analyzer_errors(dir.path());
    assert!(
        errors.iter().any(|e| e.contains("no method `add` on type `*mut u8`")),
        "upstream's known error is gone (did rust-analyzer or the script change?): {} errors",
        errors.len()
    );
}
