//! The real `qemu-run` binary on inputs that need no built kernel: what it leaves behind in the
//! temporary directory, with and without `--keep`.

use std::path::Path;
use std::time::Duration;

use subprocess::{Command, Output};

/// Runs `qemu-run` with `args` and `TMPDIR` set to `tmp`, under TCG on a file that is no kernel:
/// QEMU starts and fails at once.
fn qemu_run(tmp: &Path, args: &[&str]) -> Output {
    let kernel = tmp.with_file_name("not-a-kernel");
    std::fs::write(&kernel, b"this is not a bzImage").unwrap();
    let cmd = Command::new(env!("CARGO_BIN_EXE_qemu-run"), tmp)
        .env("TMPDIR", tmp)
        .arg("--kernel")
        .arg(&kernel)
        .args(["--accel", "tcg", "--timeout", "30", "--step", "true"])
        .args(args)
        .timeout(Duration::from_secs(60));
    let out = subprocess::testing::run(&cmd);
    assert_eq!(out.status.code(), Some(1), "{}", subprocess::testing::report(&cmd, &out));
    out
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Found when `/tmp` held a `qemu-run-*` folder (an initramfs of a few MiB) for every run.
#[test]
fn the_temporary_directory_is_removed() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let out = qemu_run(&tmp, &[]);
    assert_eq!(entries(&tmp), Vec::<String>::new(), "{out:#?}");
    assert!(!out.stdout.contains("console log:"), "names a removed log: {}", out.stdout);
    assert!(out.stderr.contains("--keep or --out-dir keeps it"), "{}", out.stderr);
}

#[test]
fn keep_keeps_the_temporary_directory_and_says_where() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let out = qemu_run(&tmp, &["--keep"]);
    let kept = entries(&tmp);
    assert!(kept.len() == 1 && kept[0].starts_with("qemu-run-"), "{kept:?}");
    let kept = tmp.join(&kept[0]);
    assert!(
        out.stderr
            .contains(&format!("keeping the initramfs and console log in {}", kept.display())),
        "{}",
        out.stderr
    );
    assert_eq!(entries(&kept), ["console.log", "initramfs.cpio"]);
    assert!(
        out.stdout.contains(&format!("console log: {}", kept.join("console.log").display())),
        "{}",
        out.stdout
    );
}

#[test]
fn an_out_dir_is_the_users_and_stays() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&tmp).unwrap();
    qemu_run(&tmp, &["--out-dir", out_dir.to_str().unwrap()]);
    assert_eq!(entries(&tmp), Vec::<String>::new());
    assert_eq!(entries(&out_dir), ["console.log", "initramfs.cpio"]);
}
