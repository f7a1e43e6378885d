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

/// `make demo` does not wait for the older rust-analyzers (about 8 minutes each to build) that
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
