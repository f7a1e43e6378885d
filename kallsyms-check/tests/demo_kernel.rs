//! `kallsyms-check run` on the demo kernel that `make test` built: every scenario boots in
//! QEMU, oopses once, and every Rust frame checks out (the one over `KSYM_NAME_LEN` as cut).
//!
//! `make test` sets `KERNEL_OBJ` and `EXTMOD_DIR`; without them this test fails and says so.

use std::path::PathBuf;
use std::process::Command;

fn var(name: &str) -> PathBuf {
    std::env::var_os(name).map(PathBuf::from).unwrap_or_else(|| {
        panic!("{name} is not set: run these tests with `make test`, which builds the demo kernel and sets it")
    })
}

#[test]
fn every_scenario_checks_out() {
    let out = Command::new(env!("CARGO_BIN_EXE_kallsyms-check"))
        .arg("run")
        .arg("--objtree")
        .arg(var("KERNEL_OBJ"))
        .arg("--extmod-dir")
        .arg(var("EXTMOD_DIR"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    for scenario in ["rust_oops_null", "rust_oops_panic", "rust_oops_long"] {
        assert!(
            stdout.lines().any(|l| l.starts_with(scenario) && l.ends_with(": ok")),
            "{scenario}:\n{stdout}"
        );
    }
    // Every printed module frame is in the guest's /proc/kallsyms, and each module that printed
    // an address to die at named the function kallsyms has there.
    assert_eq!(stdout.matches("every printed frame among them").count(), 3, "{stdout}");
    assert_eq!(
        stdout
            .matches("the function it said it would die in is the symbol at the address it printed")
            .count(),
        2,
        "{stdout}"
    );
    // The frame over KSYM_NAME_LEN is reported cut, the one just under it whole.
    assert!(
        stdout.lines().any(|l| l.contains(" cut ") && l.contains("a_generic_function")),
        "{stdout}"
    );
    assert!(
        stdout.lines().any(|l| l.contains(" whole ") && l.contains("a_plain_function")),
        "{stdout}"
    );
}

#[test]
fn html_report_with_histograms() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    let out = Command::new(env!("CARGO_BIN_EXE_kallsyms-check"))
        .args(["run", "--objtree"])
        .arg(var("KERNEL_OBJ"))
        .arg("--extmod-dir")
        .arg(var("EXTMOD_DIR"))
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = std::fs::read_to_string(&html).unwrap();
    assert!(text.starts_with("<!DOCTYPE html>") && text.ends_with("</body></html>\n"));
    // A histogram for vmlinux and one per module, and rust_oops_long's symbol over the limit.
    assert_eq!(text.matches("<svg ").count(), 4, "{text}");
    assert!(text.contains("<td>Cut</td>"), "{text}");
}

#[test]
fn json_for_machines() {
    let out = Command::new(env!("CARGO_BIN_EXE_kallsyms-check"))
        .args(["run", "--json", "--objtree"])
        .arg(var("KERNEL_OBJ"))
        .arg("--extmod-dir")
        .arg(var("EXTMOD_DIR"))
        .output()
        .unwrap();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let scenarios = json.as_array().unwrap();
    assert_eq!(scenarios.len(), 3);
    assert!(scenarios.iter().all(|s| s["ok"] == true && s["reports"] == 1));
    assert!(
        scenarios
            .iter()
            .all(|s| s["missing_from_proc_kallsyms"].as_array().is_some_and(Vec::is_empty))
    );
    assert_eq!(scenarios[0]["identity_matches"], true);
}
