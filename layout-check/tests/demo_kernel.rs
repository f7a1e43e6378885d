//! `layout-check check` on the demo kernel that `make test` built (vmlinux, the in-tree modules
//! and the out-of-tree ones).
//!
//! What it must find is read from the tree, since the fix lands in the demo series: when the
//! tree's `rust/bindings/bindings_generated.rs` has `sched_statistics` without an alignment
//! (`#[repr(align(64))]`), bindgen dropped the `____cacheline_aligned` of the empty struct
//! (`CONFIG_SCHEDSTATS=n`), and the check must fail with `sched_statistics` as the root cause,
//! and `task_struct` either moved from `stats` on (7.3: its `stats` is at 768 in C, 712 in
//! Rust) or listed as latent (6.12: `stats` sits at 512, a multiple of 64 by chance); nothing
//! else may differ. With the alignment there (7.3's patch 0005, or `CONFIG_SCHEDSTATS=y`),
//! every layout must match.
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
fn sched_statistics_and_task_struct_as_the_tree_has_them() {
    let objtree = var("KERNEL_OBJ");
    let bindings_rs = objtree.join("rust/bindings/bindings_generated.rs");
    let bindings = std::fs::read_to_string(&bindings_rs)
        .unwrap_or_else(|e| panic!("{}: {e}: run `make test`", bindings_rs.display()));
    let bug = bindgen_dropped_the_alignment(&bindings);

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
    let json: serde_json::Value =
        serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{e}\n{}", report(&cmd, &out)));
    let report_json = &json["report"];
    let mismatches = report_json["mismatches"].as_array().unwrap();
    let compared = report_json["summary"]["compared"].as_u64().unwrap();
    assert!(compared > 100, "{}", out.stdout);
    tidy::readme::check_stated("layout-check", "0 mismatches of {} types", compared);
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.ends_with("</body></html>\n"));

    if !bug {
        assert!(
            out.status.success(),
            "sched_statistics keeps its alignment: {}",
            report(&cmd, &out)
        );
        assert_eq!(mismatches.len(), 0, "{}", out.stdout);
        return;
    }
    assert_eq!(out.status.code(), Some(1), "{}", report(&cmd, &out));
    // The root cause, in each crate that has the type.
    let roots: Vec<&serde_json::Value> = mismatches.iter().filter(|m| m["root"] == true).collect();
    assert!(!roots.is_empty(), "{}", out.stdout);
    for root in &roots {
        assert_eq!(root["name"], "sched_statistics", "{}", out.stdout);
        assert_eq!(root["c"]["align"]["bytes"], 64);
        assert_eq!(root["rust"]["align"]["bytes"], 1);
    }
    // Everything else that differs follows from it.
    for m in mismatches.iter().filter(|m| m["root"] != true) {
        assert_eq!(m["caused_by"], "sched_statistics", "{}", out.stdout);
    }
    // task_struct: moved from stats on, or stats latent where it is by chance.
    let moved = mismatches.iter().find(|m| m["name"] == "task_struct");
    match moved {
        Some(task) => {
            assert_eq!(task["first_moved"]["member"], "stats", "{}", out.stdout);
            assert_eq!(task["cause_member"], "stats", "{}", out.stdout);
        }
        None => {
            let latent = report_json["latent"].as_array().unwrap();
            assert!(
                latent.iter().any(|l| l["name"] == "task_struct" && l["member"] == "stats"),
                "task_struct neither moved nor latent: {}",
                out.stdout
            );
        }
    }
    assert!(page.contains("sched_statistics"), "{page}");
}
