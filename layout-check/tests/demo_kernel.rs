//! `layout-check check` on the demo kernel that `make test` built (vmlinux, the in-tree modules
//! and the out-of-tree ones): every layout matches, and `sched_statistics` keeps its alignment.
//!
//! bindgen drops the `____cacheline_aligned` of `sched_statistics`, empty with
//! `CONFIG_SCHEDSTATS=n`, which moves the fields of `task_struct` after `stats` on 7.3; the demo
//! series fixes it (6.12's patch 0010, 7.3's 0005), so a demo tree without the fix is a lost fix
//! and fails here. That layout-check finds the bug is `tests/reproduction.rs`' to show, on the
//! same header reduced, through the real gcc, bindgen and rustc.
//!
//! `make test` sets `KERNEL_OBJ` and `EXTMOD_DIR`; without them this test fails and says so.

use std::path::Path;
use std::time::Duration;

use kbuild::testing::env_path as var;
use subprocess::Command;
use subprocess::testing::{report, run};

/// Whether `sched_statistics` in bindgen's output for this tree lacks its alignment: the
/// attributes just above `pub struct sched_statistics` have no `align(`.
fn bindgen_dropped_the_alignment(bindings: &str) -> bool {
    let lines: Vec<&str> = bindings.lines().collect();
    let Some(at) = lines.iter().position(|l| l.starts_with("pub struct sched_statistics ")) else {
        panic!("no sched_statistics in the tree's bindings_generated.rs");
    };
    let attributes = lines[..at].iter().rev().take_while(|l| l.starts_with("#["));
    !attributes.into_iter().any(|l| l.contains("align("))
}

#[test]
fn every_layout_matches_with_the_series_fix() {
    let objtree = var("KERNEL_OBJ");
    let bindings_rs = objtree.join("rust/bindings/bindings_generated.rs");
    let bindings = std::fs::read_to_string(&bindings_rs)
        .unwrap_or_else(|e| panic!("{}: {e}: run `make test`", bindings_rs.display()));
    assert!(
        !bindgen_dropped_the_alignment(&bindings),
        "{}: sched_statistics has no #[repr(align(64))]: the demo series' fix (6.12's 0010, 7.3's 0005) is lost",
        bindings_rs.display()
    );

    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("layout.html");
    let cmd =
        Command::new(env!("CARGO_BIN_EXE_layout-check"), Path::new(env!("CARGO_MANIFEST_DIR")))
            .args(["check", "--json", "--html"])
            .arg(&html)
            .arg(objtree.join("vmlinux"))
            .arg(&objtree)
            .arg(var("EXTMOD_DIR"))
            .timeout(Duration::from_secs(300));
    let out = run(&cmd);
    assert!(out.status.success(), "{}", report(&cmd, &out));
    let result = report::results::from_json(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}\n{}", report(&cmd, &out)));
    let report::results::ToolResult::LayoutCheck(layout) = result else {
        panic!("not layout-check's result: {}", out.stdout)
    };
    assert_eq!(layout.mismatches, [], "{}", out.stdout);
    assert!(layout.compared > 100 && layout.ok(), "{}", out.stdout);
    tidy::readme::check_stated("layout-check", "0 mismatches of {} types", layout.compared as u64);
    // task_struct and sched_statistics are among the types compared.
    for name in ["bindings::task_struct", "bindings::sched_statistics"] {
        assert!(!layout.without_c_definition.iter().any(|n| n == name), "{name} not compared");
    }
    let text = std::fs::read_to_string(&html).unwrap();
    assert!(text.starts_with("<!DOCTYPE html>") && text.ends_with("</body></html>\n"));
}
