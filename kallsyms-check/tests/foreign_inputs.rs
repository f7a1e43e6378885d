//! The `kallsyms-check` binary on inputs it was not made for: a user-space ELF for vmlinux, logs
//! of other architectures, of no oops, of an oops with no Rust frame. Each is checked or fails
//! saying why; none passes having checked nothing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use subprocess::Command;
use subprocess::testing::{report, run, user_space_elf};

fn foreign(name: &str) -> PathBuf {
    oops::testing::foreign_dir().join(name)
}

fn kallsyms_check(dir: &Path) -> Command {
    Command::new(env!("CARGO_BIN_EXE_kallsyms-check"), dir).timeout(Duration::from_secs(60))
}

#[test]
fn a_check_of_nothing_fails_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let elf = user_space_elf(dir.path());
    for (log, said) in [
        ("plain-text.log", "no backtrace found: the formats read are x86-64's"),
        ("x86-boot-no-oops.log", "is this log from another architecture?"),
        ("x86-c-only-oops.log", "1 crash report(s) with 9 frame(s), none of them a Rust function"),
        ("arm32-old-format.log", "3 line(s) where frames were expected were not read as frames"),
    ] {
        let cmd =
            kallsyms_check(dir.path()).arg("check").arg(&elf).arg(dir.path()).arg(foreign(log));
        let out = run(&cmd);
        assert_eq!(out.status.code(), Some(2), "{}", report(&cmd, &out));
        assert!(out.stderr.contains(said), "{}", report(&cmd, &out));
        assert!(out.stderr.contains(log), "the log is named: {}", report(&cmd, &out));
    }
}

/// An arm64 log's Rust frames reach the check (here against a table that has none of them, so
/// every one fails: exit 1, each frame listed).
#[test]
fn an_arm64_log_has_its_rust_frames_checked() {
    let dir = tempfile::tempdir().unwrap();
    let elf = user_space_elf(dir.path());
    let log = foreign("arm64-6.12-null-write.log");
    let cmd = kallsyms_check(dir.path()).arg("check").arg(&elf).arg(dir.path()).arg(&log);
    let out = run(&cmd);
    assert_eq!(out.status.code(), Some(1), "{}", report(&cmd, &out));
    assert_eq!(out.stdout.lines().filter(|l| l.starts_with("  FAIL unknown")).count(), 6);
    assert!(
        out.stdout.contains("1 crash report(s), 18 frame(s), 6 Rust frame(s) checked, 6 failed"),
        "{}",
        report(&cmd, &out)
    );

    let cmd =
        kallsyms_check(dir.path()).args(["check", "--json"]).arg(&elf).arg(dir.path()).arg(&log);
    let out = run(&cmd);
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!((json["reports"].as_u64(), json["frames"].as_u64()), (Some(1), Some(18)));
    assert_eq!(json["checks"].as_array().map(Vec::len), Some(6));
}

#[test]
fn a_scan_of_an_image_without_rust_fails() {
    let dir = tempfile::tempdir().unwrap();
    let elf = user_space_elf(dir.path());
    let cmd = kallsyms_check(dir.path()).arg("scan").arg(&elf).arg(dir.path());
    let out = run(&cmd);
    assert_eq!(out.status.code(), Some(2), "{}", report(&cmd, &out));
    assert!(
        out.stderr.contains("no Rust function (a v0-mangled `_R` symbol) in the symbol table of"),
        "{}",
        report(&cmd, &out)
    );
    assert_eq!(out.stdout, "");
}

/// A tree with none of what the scenarios need (no rust_oops modules built, no built-in sample)
/// runs none of them: `run` fails naming each one and why, rather than pass having booted
/// nothing.
#[test]
fn a_run_on_a_tree_that_can_run_no_scenario_fails() {
    let dir = tempfile::tempdir().unwrap();
    let objtree = dir.path().join("objtree");
    std::fs::create_dir(&objtree).unwrap();
    std::fs::rename(user_space_elf(dir.path()), objtree.join("vmlinux")).unwrap();
    let extmod = dir.path().join("extmod");
    std::fs::create_dir(&extmod).unwrap();
    let cmd = kallsyms_check(dir.path())
        .args(["run", "--objtree"])
        .arg(&objtree)
        .arg("--extmod-dir")
        .arg(&extmod);
    let out = run(&cmd);
    assert_eq!(out.status.code(), Some(2), "{}", report(&cmd, &out));
    assert!(
        out.stderr.contains("no oops scenario could run on this tree, so nothing was checked:"),
        "{}",
        report(&cmd, &out)
    );
    assert_eq!(out.stderr.matches("rust_oops/rust_oops_").count(), 3, "{}", report(&cmd, &out));
    assert_eq!(
        out.stderr.matches("lists no built-in rust_long_symbols sample").count(),
        2,
        "{}",
        report(&cmd, &out)
    );
    assert_eq!(out.stdout.matches(": not run: ").count(), 5, "{}", report(&cmd, &out));
}
