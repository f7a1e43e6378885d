//! The `workbench` binary on trees that are not ready: exit status 2 and a message that says
//! what is wrong and what to run.

use std::path::Path;
use std::time::Duration;

use subprocess::Command;

/// The status and stderr of `workbench` with `args`, run from the manifest's directory; apt
/// (of `a_suite_the_mirror_does_not_have`) may take a while to find out.
fn workbench(args: &[&std::ffi::OsStr]) -> (i32, String) {
    let cmd = Command::new(env!("CARGO_BIN_EXE_workbench"), Path::new(env!("CARGO_MANIFEST_DIR")))
        .args(args)
        .timeout(Duration::from_secs(300));
    let out = subprocess::testing::run(&cmd);
    (out.status.code().unwrap_or(-1), out.stderr)
}

#[test]
fn kernel_src_that_is_not_a_kernel_tree() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stderr) = workbench(&["kernel".as_ref(), "--srctree".as_ref(), dir.path().as_ref()]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        format!(
            "workbench: error: {} is not a kernel source tree (no top-level Makefile with VERSION, PATCHLEVEL and SUBLEVEL, or no Kbuild): point KERNEL_SRC at the top of a Linux tree\n",
            dir.path().display()
        )
    );
}

#[test]
fn kernel_obj_configured_but_not_built() {
    let dir = tempfile::tempdir().unwrap();
    let (src, obj) = kbuild::testing::configured_not_built(dir.path());
    let (code, stderr) = workbench(&[
        "kernel".as_ref(),
        "--srctree".as_ref(),
        src.as_ref(),
        "--objtree".as_ref(),
        obj.as_ref(),
    ]);
    assert_eq!(code, 2);
    let d = dir.path().display();
    assert_eq!(
        stderr,
        format!(
            "workbench: error: {d}/obj is configured but not built ({d}/obj/vmlinux is missing): build it with `make -C {d}/src O={d}/obj -j$(nproc)`\n"
        )
    );
}

/// A demo kernel whose source package is fetched from a suite the mirror does not have: apt's
/// real error, the command that failed, and nothing left half-unpacked in the cache.
#[test]
fn a_suite_the_mirror_does_not_have() {
    let dir = tempfile::tempdir().unwrap();
    let demo_kernel =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo-kernel/7.3");
    let packages = dir.path().join("packages");
    let (code, stderr) = workbench(&[
        "kernel".as_ref(),
        "--srctree".as_ref(),
        dir.path().join("srctree").as_ref(),
        "--demo-kernel".as_ref(),
        demo_kernel.as_ref(),
        "--package".as_ref(),
        "linux-source-7.3".as_ref(),
        "--suite".as_ref(),
        "no-such-suite".as_ref(),
        "--packages-dir".as_ref(),
        packages.as_ref(),
        "--log-dir".as_ref(),
        dir.path().join("logs").as_ref(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("fetching linux-source-7.3 from Debian's no-such-suite"), "{stderr}");
    assert!(stderr.contains("apt-get -o Dir::Etc::sourcelist="), "{stderr}");
    assert!(stderr.contains("no-such-suite"), "{stderr}");
    assert!(!packages.join("linux-source-7.3").exists());
    assert!(!dir.path().join("srctree").exists());
}
