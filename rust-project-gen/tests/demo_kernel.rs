//! The generator on the demo kernel that `make test` built, checked by the real rust-analyzer:
//! `rust-analyzer diagnostics` must report no error, for the tree and for an out-of-tree module.
//!
//! `make test` sets `KERNEL_SRC`, `KERNEL_OBJ` and `EXTMOD_DIR`; without them these tests fail
//! and say so.

mod common;

use std::path::Path;
use std::time::Duration;

use common::{run, sysroot};
use rust_project_gen::rust_analyzer::{self, BugError, BugForm, KNOWN_BUGS};

use kbuild::testing::env_path as var;

/// Generates into `out_dir` (kbuild's argument order) and returns the file's JSON.
fn generate(exttree: Option<&Path>, out_dir: &Path) -> serde_json::Value {
    generate_for(exttree, out_dir, None)
}

/// [`generate`] for the rust-analyzer `ra` (the toolchain's when `None`).
fn generate_for(exttree: Option<&Path>, out_dir: &Path, ra: Option<&Path>) -> serde_json::Value {
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
    if let Some(ra) = ra {
        args.extend(["--rust-analyzer".as_ref(), ra.as_os_str()]);
    }
    let run = run(&args);
    assert_eq!(run.code, 0, "rust-project-gen failed:\n{}", run.stderr);
    serde_json::from_str(&std::fs::read_to_string(&output).unwrap()).unwrap()
}

/// Runs `rust-analyzer diagnostics` on the project in `dir` and returns its error lines.
fn rust_analyzer_errors(dir: &Path) -> Vec<String> {
    errors_of(&sysroot().join("bin/rust-analyzer"), dir)
}

/// [`rust_analyzer_errors`] with the rust-analyzer `ra`, which must load the file.
fn errors_of(ra: &Path, dir: &Path) -> Vec<String> {
    let out = subprocess::Command::new(ra, dir)
        .arg("diagnostics")
        .arg(dir)
        .timeout(Duration::from_secs(900))
        .run()
        .unwrap();
    assert!(!out.timed_out, "rust-analyzer diagnostics {} timed out", dir.display());
    // Counted lines of cut output would be a count of part of them.
    assert!(
        !out.truncated(),
        "rust-analyzer diagnostics {}: the capture limit dropped {} bytes of its output",
        dir.display(),
        out.stdout_dropped + out.stderr_dropped
    );
    let output = format!("{}\n{}", out.stdout, out.stderr);
    if let Some(line) = rust_analyzer::load_failure(&output) {
        panic!(
            "{} cannot read {}/rust-project.json: {line}\n{}",
            ra.display(),
            dir.display(),
            out.stderr
        );
    }
    let errors: Vec<String> =
        rust_analyzer::error_lines(&out.stdout).into_iter().map(str::to_owned).collect();
    if errors.is_empty() {
        assert!(
            out.success(),
            "rust-analyzer diagnostics failed without error lines: {}\n{}",
            out.status,
            out.stderr
        );
    }
    errors
}

/// The known bugs `ra` has, each in the form its reproduction shows. A reproduction that
/// gives an error none of its bug's forms words is a new form: the test says so rather than
/// let the kernel's wording of it through or hold it against the file.
fn bug_forms_of(ra: &Path) -> Vec<&'static BugForm> {
    let sysroot = sysroot();
    let mut forms = Vec::new();
    for bug in KNOWN_BUGS {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("lib.rs"), bug.reproduction).unwrap();
        let project = serde_json::json!({
            "sysroot": sysroot,
            "sysroot_src": sysroot.join("lib/rustlib/src/rust/library"),
            "crates": [{
                "root_module": dir.path().join("lib.rs"),
                "edition": "2024",
                "deps": [],
                "cfg": [],
                "is_workspace_member": true,
            }],
        });
        std::fs::write(dir.path().join("rust-project.json"), project.to_string()).unwrap();
        let errors = errors_of(ra, dir.path());
        let shown: Vec<&BugForm> = bug
            .forms
            .iter()
            .filter(|form| errors.iter().any(|e| form.in_reproduction.matches(e)))
            .collect();
        assert!(
            shown.len() == 1 || (shown.is_empty() && errors.is_empty()),
            "{}: {} of the forms of {} in its reproduction's errors:\n{}",
            ra.display(),
            shown.len(),
            bug.issue,
            errors.join("\n")
        );
        forms.extend(shown);
    }
    forms
}

/// No error in the file's crates but those of the toolchain's rust-analyzer's known bugs.
fn assert_no_rust_analyzer_errors(dir: &Path) {
    let row = "rust-project-gen: rust-analyzer's own bugs, the errors let through";
    assert_no_errors_but_known_bugs(&sysroot().join("bin/rust-analyzer"), dir, (row, "{}"));
}

/// No error `ra` finds in the file's crates but those of its own known bugs, each exactly the
/// error its form names and at most once; how many there are is what the README states for
/// this demo tree in `row`, where `template` has `{}`.
fn assert_no_errors_but_known_bugs(ra: &Path, dir: &Path, (row, template): (&str, &str)) {
    let forms = bug_forms_of(ra);
    let allowed: Vec<&BugError> = forms.iter().flat_map(|form| form.in_kernel).collect();
    let (known, errors): (Vec<String>, Vec<String>) = errors_of(ra, dir)
        .into_iter()
        .partition(|e| allowed.iter().any(|allowed| allowed.matches(e)));
    assert!(
        errors.is_empty(),
        "{} reports {} errors:\n{}",
        ra.display(),
        errors.len(),
        errors.join("\n")
    );
    for allowed in &allowed {
        let times: Vec<&String> = known.iter().filter(|e| allowed.matches(e)).collect();
        assert!(
            times.len() <= allowed.times,
            "a known bug's error, more than the {} times allowed:\n{times:#?}",
            allowed.times
        );
    }
    for form in &forms {
        for error in known.iter().filter(|e| form.in_kernel.iter().any(|k| k.matches(e))) {
            eprintln!("rust-analyzer's own bug ({}), not the file's: {error}", form.releases);
        }
    }
    tidy::readme::check_stated(row, template, known.len() as u64);
}

/// Each known rust-analyzer bug is real: rustc compiles its reproduction, and the matcher
/// recognises what rust-analyzer says of it on a toolchain that has the bug. When a new
/// rust-analyzer fixes it, `bugs_of_this_rust_analyzer` drops it and the trees are held to 0.
#[test]
fn known_rust_analyzer_bugs_are_rust_analyzer_bugs() {
    for bug in KNOWN_BUGS {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("lib.rs");
        std::fs::write(&root, bug.reproduction).unwrap();
        let out = subprocess::Command::new("rustc", dir.path())
            .args(["--edition=2024", "--crate-type=lib", "--emit=metadata"])
            .arg(&root)
            .timeout(Duration::from_secs(120))
            .run()
            .unwrap();
        assert!(out.success(), "rustc rejects the reproduction of {}:\n{}", bug.issue, out.stderr);
    }
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
    for expected in ["ffi", "bindings", "uapi", "macros", "kernel", "rust_minimal"] {
        assert!(names.iter().any(|n| n == expected), "{expected} missing from {names:?}");
    }
    // A driver is listed exactly when the configuration builds it: not guessed in where it is
    // not (upstream lists them all), there on the wide trees.
    let config = kbuild::testing::demo_tree().objtree.config;
    for (driver, option) in [
        ("rnull", "BLK_DEV_RUST_NULL"),
        ("qt2025", "AMCC_QT2025_PHY"),
        ("ax88796b_rust", "AX88796B_RUST_PHY"),
        ("drm_panic_qr", "DRM_PANIC_SCREEN_QR_CODE"),
        ("rust_binder", "ANDROID_BINDER_IPC_RUST"),
        ("nova_core", "NOVA_CORE"),
    ] {
        let listed = names.iter().any(|n| n == driver);
        assert_eq!(listed, config.is_enabled(option), "{driver} (CONFIG_{option}): {names:?}");
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
    let dir = tempfile::tempdir().unwrap();
    let (text, _) = rust_project_gen::upstream::generate(&src, &obj).unwrap();
    std::fs::write(dir.path().join("rust-project.json"), text).unwrap();
    let errors = rust_analyzer_errors(dir.path());
    assert!(
        errors.iter().any(|e| e.contains("no method `add` on type `*mut u8`")),
        "upstream's known error is gone (did rust-analyzer or the script change?): {} errors",
        errors.len()
    );
    // Said on every tree, the README's or another (an architecture's, a user's), where the
    // comparison is to be read from the test's output.
    eprintln!(
        "upstream's scripts/generate_rust_analyzer.py: {} rust-analyzer errors",
        errors.len()
    );
    let row = "rust-project-gen: rust-analyzer errors, ours / upstream's script";
    tidy::readme::check_stated(row, "0 / {}", errors.len() as u64);
}

/// The file for each other rust-analyzer that `make other-rust-analyzers` installs
/// (`OTHER_RUST_ANALYZERS`), generated for it with `--rust-analyzer`: it loads the file (a
/// `flycheck` runnable would stop an older one), with `sysroot_project` exactly when it reads
/// it. One no older than the toolchain's is held to what the toolchain's is: no error but its
/// own known bugs. An older one runs against this toolchain's library and proc-macro server,
/// newer than it is, and the errors that mismatch gives (inherent methods of primitive types,
/// proc-macro ABI) are in upstream's file too: it must find no more errors in ours.
#[test]
fn other_rust_analyzers_read_the_file_with_no_error_of_its_own() {
    let others = common::other_rust_analyzers();
    let toolchains = rust_analyzer::build_date(&run_version(&sysroot().join("bin/rust-analyzer")))
        .expect("the toolchain's rust-analyzer says its date");
    let (src, obj) = (var("KERNEL_SRC"), var("KERNEL_OBJ"));
    let upstream = tempfile::tempdir().unwrap();
    let (text, _) = rust_project_gen::upstream::generate(&src, &obj).unwrap();
    std::fs::write(upstream.path().join("rust-project.json"), text).unwrap();
    let mut held_to_no_errors = 0;
    for ra in &others {
        let version = run_version(ra);
        let dir = tempfile::tempdir().unwrap();
        let json = generate_for(None, dir.path(), Some(ra));
        let features = rust_analyzer::features(&version);
        assert_eq!(json.get("sysroot_project").is_some(), features.sysroot_project, "{version}");
        if !features.flycheck_runnables {
            assert!(json.get("runnables").is_none(), "{version} cannot read flycheck runnables");
        }
        // A release built without its commit's date is taken to be current, as the generator
        // takes it.
        let date = rust_analyzer::build_date(&version);
        if date.is_none_or(|date| date >= toolchains) {
            eprintln!("{version}: held to no error but its own known bugs");
            let release = version.split_whitespace().nth(1).unwrap_or_default();
            let row = "rust-project-gen: rust-analyzer's own bugs, the errors let through, newer rust-analyzers";
            assert_no_errors_but_known_bugs(ra, dir.path(), (row, &format!("{release}: {{}}")));
            held_to_no_errors += 1;
            continue;
        }
        let ours = errors_of(ra, dir.path());
        let theirs = errors_of(ra, upstream.path());
        eprintln!("{version}: {} errors in our file, {} in upstream's", ours.len(), theirs.len());
        assert!(
            ours.len() <= theirs.len(),
            "{version}: {} errors in our file, more than the {} in upstream's:\n{}",
            ours.len(),
            theirs.len(),
            ours.join("\n")
        );
    }
    assert!(held_to_no_errors >= 1, "no rust-analyzer newer than the toolchain's was checked");
}

fn run_version(ra: &Path) -> String {
    let out = subprocess::Command::new(ra, Path::new("/"))
        .arg("--version")
        .timeout(Duration::from_secs(30))
        .run_checked()
        .unwrap_or_else(|e| panic!("{e}"));
    out.stdout.trim().to_owned()
}
