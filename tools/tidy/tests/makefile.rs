//! The Makefile's choice of tree, read with `make -n` (which runs no recipe): an `LLVM` exported
//! in the shell does not switch `make test` to another tree than the README describes, and the
//! tests of the README's tree are told it is that one (`README_KERNEL`).

use std::path::Path;
use std::time::Duration;

use subprocess::Command;
use subprocess::testing::{report, run};

/// `make -n ARGS` at the repository's root, with `LLVM` set in its environment when given, and
/// nothing of an outer make's (`make test` runs this test).
fn make_n(env_llvm: Option<&str>, args: &[&str]) -> (String, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut cmd = Command::new("make", &root)
        .args(["-n", "--no-print-directory"])
        .args(args)
        .timeout(Duration::from_secs(60));
    for var in ["MAKEFLAGS", "MFLAGS", "MAKELEVEL", "LLVM", "KERNEL_SRC", "CONFIG_FRAGMENT"] {
        cmd = cmd.env_remove(var);
    }
    if let Some(llvm) = env_llvm {
        cmd = cmd.env("LLVM", llvm);
    }
    let out = run(&cmd);
    assert!(out.success(), "{}", report(&cmd, &out));
    (out.stdout, out.stderr)
}

#[test]
fn an_llvm_in_the_environment_does_not_change_the_tree_tested() {
    let (stdout, stderr) = make_n(Some("1"), &["test-kernel", "KERNEL=6.12"]);
    assert!(stdout.contains("/linux-6.12/objtree"), "{stdout}");
    assert!(!stdout.contains("-llvm/"), "{stdout}");
    assert!(stdout.contains("README_KERNEL=6.12 "), "{stdout}");
    assert!(stderr.contains("LLVM=1 in the environment is not used"), "{stderr}");

    // On the command line it picks the clang tree, which is not the README's.
    let (stdout, _) = make_n(None, &["test-kernel", "KERNEL=6.12", "LLVM=-19"]);
    assert!(stdout.contains("/linux-6.12-llvm/objtree"), "{stdout}");
    assert!(stdout.contains("README_KERNEL= "), "{stdout}");
}

/// The suite's own variables keep their defaults though the Makefile does not export them
/// (`unexport` of a variable not yet defined would define it, empty): a CI cell's folder.
#[test]
fn a_ci_cell_has_its_folder() {
    let (stdout, _) = make_n(None, &["ci-cell", "KERNEL=6.12"]);
    assert!(stdout.contains("mkdir -p ") && stdout.contains("/linux-6.12/cell "), "{stdout}");
    let (stdout, _) = make_n(None, &["ci-cell", "KERNEL=6.12", "CELL_DIR=/tmp/cell"]);
    assert!(stdout.contains("mkdir -p /tmp/cell "), "{stdout}");
}

/// `make demo` does not wait for the other rust-analyzers (6 to 8 minutes each to build) that
/// only rust-project-gen's tests across versions and `make bench` run; those targets build them.
#[test]
fn make_demo_builds_only_what_the_demo_uses() {
    let builds_them = "RUST_ANALYZERS='0.0.";
    let (stdout, _) = make_n(None, &["demo", "KERNEL=6.12"]);
    assert!(stdout.contains("tools/setup.sh "), "{stdout}");
    assert!(!stdout.contains(builds_them), "{stdout}");
    for target in ["test-kernel", "bench"] {
        let (stdout, _) = make_n(None, &[target, "KERNEL=6.12"]);
        assert!(stdout.contains(builds_them), "{target}: {stdout}");
    }
}

/// `make test`'s count of distinct tests (`tools/count_tests.awk`) on two kernels' logs as
/// cargo writes them and the boots the QEMU runner recorded: a test is its binary and its name,
/// whatever the other binaries call theirs; one in both logs ran against each kernel.
#[test]
fn distinct_tests_per_kernel_and_booting() {
    let dir = tempfile::tempdir().unwrap();
    let a = "     Running unittests src/lib.rs (target/debug/deps/oops-0123)\n\
             test frame::tests::not_frames ... ok\n\
             test report::tests::x ... ok\n\
             \x20    Running tests/demo_kernel.rs (target/debug/deps/demo_kernel-aaaa)\n\
             test boots ... ok\n\
             test not_frames ... ok\n\
             \x20  Doc-tests oops\n\
             test tools/oops/src/lib.rs - parse (line 3) ... ok\n\
             test result: ok. 5 passed; 0 failed\n";
    let b = "     Running unittests src/lib.rs (target/debug/deps/oops-0123)\n\
             test frame::tests::not_frames ... ok\n\
             test frame::tests::not_frames ... ok\n\
             \x20    Running tests/demo_kernel.rs (target/debug/deps/demo_kernel-bbbb)\n\
             test boots ... FAILED\n";
    std::fs::write(dir.path().join("cargo-test-6.12.log"), a).unwrap();
    std::fs::write(dir.path().join("cargo-test-7.3.log"), b).unwrap();
    std::fs::write(
        dir.path().join("boots-6.12.log"),
        "demo_kernel-aaaa::boots\ndemo_kernel-aaaa::boots\nkallsyms-check::main\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("boots-7.3.log"), "demo_kernel-bbbb::boots\n").unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../count_tests.awk");
    let cmd = Command::new("awk", dir.path())
        .arg("-f")
        .arg(&script)
        .args(["cargo-test-6.12.log", "cargo-test-7.3.log", "boots-6.12.log", "boots-7.3.log"])
        .timeout(Duration::from_secs(60));
    let out = run(&cmd);
    assert!(out.success(), "{}", report(&cmd, &out));
    assert_eq!(
        out.stdout,
        "distinct tests: 6, of which 1 run against each demo kernel and 2 boot a kernel in QEMU\n"
    );
}
