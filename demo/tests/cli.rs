//! The `demo` binary on input that is not ready: a tree that is not built, tools not built.

use std::path::Path;
use std::time::Duration;

use subprocess::Command;

#[test]
fn a_tree_configured_but_not_built_is_named_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let (src, obj) = kbuild::testing::configured_not_built(dir.path());
    let cmd = Command::new(env!("CARGO_BIN_EXE_demo"), Path::new(env!("CARGO_MANIFEST_DIR")))
        .arg("--srctree")
        .arg(&src)
        .arg("--objtree")
        .arg(&obj)
        .arg("--work-dir")
        .arg(dir.path().join("work"))
        .timeout(Duration::from_secs(60));
    let out = subprocess::testing::run(&cmd);
    assert_eq!(out.status.code(), Some(2), "{}", subprocess::testing::report(&cmd, &out));
    let d = dir.path().display();
    assert_eq!(
        out.stderr,
        format!(
            "demo: error: {d}/obj is configured but not built ({d}/obj/vmlinux is missing): build it with `make -C {d}/src O={d}/obj -j$(nproc)`\n"
        )
    );
}

#[test]
fn a_tool_that_is_not_built_is_named_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let why = demo::tools::run_tool(
        dir.path(),
        dir.path(),
        "layout-check",
        vec![],
        Duration::from_secs(10),
        &[0],
    )
    .unwrap_err();
    assert_eq!(
        why,
        format!(
            "{}/layout-check does not exist: build the suite's binaries first (`make tools`)",
            dir.path().display()
        )
    );
}

/// A program that prints text where its result should be (an older build, a reworded message)
/// is no result: the demo says so instead of showing a blank summary.
#[test]
fn a_tool_that_prints_no_result_is_named() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let program = dir.path().join("layout-check");
    std::fs::write(&program, "#!/bin/sh\necho '850 types compared'\n").unwrap();
    std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
    let why = demo::tools::run_tool(
        dir.path(),
        dir.path(),
        "layout-check",
        vec![],
        Duration::from_secs(30),
        &[0],
    )
    .unwrap_err();
    assert!(
        why.starts_with("the output of layout-check is not a tool result of schema 1: "),
        "{why}"
    );
}
