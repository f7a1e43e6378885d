//! Boots the demo kernel that `make test` built, in real QEMU: the Rust samples, and the
//! runner's failure modes (a panicking command line, a hang, a failing step).
//!
//! `make test` sets `KERNEL_SRC` and `KERNEL_OBJ`; without them these tests fail and say so.

use std::path::{Path, PathBuf};
use std::time::Duration;

use qemu::{Accel, Boot, BootConfig, Guest, Outcome};
use subprocess::Command;

struct Kernel {
    built: kbuild::Built,
    objtree: PathBuf,
    /// `6.12.118`: what `uname -r` starts with.
    version: String,
}

fn kernel() -> Kernel {
    let tree = kbuild::testing::demo_tree();
    Kernel {
        built: tree.built,
        objtree: tree.objtree.path,
        version: tree.srctree.version.to_string(),
    }
}

/// Boots `steps` with `append` and `timeout`, and checks that no QEMU outlives the boot.
fn boot(steps: &[&str], append: &str, timeout: Duration) -> Boot {
    let kernel = kernel();
    let dir = tempfile::tempdir().unwrap();
    let guest = Guest {
        busybox: qemu::guest_busybox(&kernel.built.arch),
        modules: vec![kernel.objtree.join("samples/rust/rust_minimal.ko")],
        steps: steps.iter().map(|s| s.to_string()).collect(),
    };
    let configure = |config: &mut BootConfig| {
        config.append = append.to_owned();
        config.timeout = timeout;
    };
    let (arch, image) = (&kernel.built.arch, &kernel.built.image);
    let boot = qemu::boot_guest(arch, image, &guest, dir.path(), configure, &mut |_| {}).unwrap();
    assert_no_qemu_uses(&dir.path().join("initramfs.cpio"));
    assert!(boot.log.is_file());
    boot
}

/// Fails if a process still has `path` on its command line.
fn assert_no_qemu_uses(path: &Path) {
    let needle = path.to_string_lossy().into_owned();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let zombie = std::fs::read_to_string(entry.path().join("stat"))
            .is_ok_and(|stat| stat.contains(") Z "));
        assert!(!cmdline.contains(&needle) || zombie, "a QEMU process was left behind: {cmdline}");
    }
}

#[test]
fn rust_samples_load_print_and_unload() {
    let kernel = kernel();
    let dir = tempfile::tempdir().unwrap();
    let cmd = Command::new(env!("CARGO_BIN_EXE_qemu-run"), dir.path())
        .arg("--kernel")
        .arg(&kernel.built.image)
        .args(["--arch", &kernel.built.arch.name])
        .arg("--module")
        .arg(kernel.objtree.join("samples/rust/rust_minimal.ko"))
        .arg("--module")
        .arg(kernel.objtree.join("samples/rust/rust_print.ko"))
        .args(["--step", "insmod /lib/modules/rust_minimal.ko"])
        .args(["--step", "insmod /lib/modules/rust_print.ko"])
        .args(["--step", "rmmod rust_minimal"])
        .args(["--step", "cat /proc/modules"])
        .arg("--out-dir")
        .arg(dir.path())
        .arg("--json")
        .timeout(Duration::from_secs(300));
    let out = subprocess::testing::run(&cmd);
    assert!(out.status.success(), "{}", subprocess::testing::report(&cmd, &out));
    let json: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(json["outcome"], "completed");
    let steps = json["boot"]["console"]["steps"].as_array().unwrap();
    // What a module printed is the kernel's messages of its step under its `pr_fmt` prefix;
    // what a command printed is the step's own output. Neither counts what the kernel printed
    // meanwhile for other reasons.
    let field = |i: usize, field: &str| -> Vec<String> {
        assert_eq!(steps[i]["exit_code"], 0, "step {i}: {}", steps[i]);
        steps[i][field].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_owned()).collect()
    };
    let from = |i: usize, module: &str| -> Vec<String> {
        field(i, "kernel").into_iter().filter(|l| l.starts_with(&format!("{module}: "))).collect()
    };
    assert_eq!(
        from(0, "rust_minimal")[..2],
        ["rust_minimal: Rust minimal sample (init)", "rust_minimal: Am I built-in? false"]
    );
    assert_eq!(field(0, "output"), Vec::<String>::new(), "insmod printed something");
    let print = from(1, "rust_print");
    for expected in [
        "rust_print: Rust printing macros sample (init)",
        "rust_print: Emergency message (level 0) without args",
        "rust_print: A line that is continued without args",
        "rust_print: Info message (level 6) with args",
        "rust_print: A line that is continued with args",
        "rust_print: \"hello, world\"",
    ] {
        assert!(print.iter().any(|l| l == expected), "missing {expected:?} in {print:#?}");
    }
    let unload = from(2, "rust_minimal");
    assert!(
        unload.iter().any(|l| l == "rust_minimal: My numbers are [72, 108, 200]"),
        "{unload:#?}"
    );
    assert!(unload.iter().any(|l| l == "rust_minimal: Rust minimal sample (exit)"), "{unload:#?}");
    let modules = field(3, "output");
    assert!(modules.iter().all(|l| l.contains(" Live 0x")), "not /proc/modules: {modules:#?}");
    assert!(modules.iter().any(|l| l.starts_with("rust_print ")), "{modules:#?}");
    assert!(!modules.iter().any(|l| l.starts_with("rust_minimal ")), "{modules:#?}");
    assert!(dir.path().join("console.log").is_file());
}

#[test]
fn a_kernel_cmdline_that_panics_is_reported() {
    // An init that does not exist: the kernel tries the initramfs, then the one it was asked
    // for with `init=`, and panics ("Requested init /nonexistent failed") before userspace.
    let boot = boot(&["true"], "rdinit=/nonexistent init=/nonexistent", Duration::from_secs(120));
    assert_eq!(boot.outcome(), Outcome::Panicked, "{boot:#?}");
    assert!(!boot.console.reached_init);
    let panic = boot.console.panic.as_deref().unwrap();
    assert!(
        panic.starts_with("Kernel panic - not syncing: Requested init /nonexistent failed"),
        "{panic}"
    );
    assert!(boot.describe().starts_with("kernel panicked after"), "{}", boot.describe());
    assert!(!boot.timed_out, "panic=-1 with -no-reboot should end QEMU at once");
}

#[test]
fn a_hung_step_times_out_and_leaves_no_qemu() {
    // The deadline must leave the boot time to reach the hanging step: TCG on a machine whose
    // every core is busy took most of 30 s. Past it, QEMU is killed within seconds.
    let timeout = Duration::from_secs(75);
    let boot = boot(&["echo before the hang", "sleep 600"], "", timeout);
    assert_eq!(boot.outcome(), Outcome::TimedOut, "{boot:#?}");
    assert!(boot.console.reached_init);
    assert_eq!(boot.console.steps.len(), 2);
    assert_eq!(boot.console.steps[0].output, ["before the hang"]);
    assert_eq!(boot.console.steps[1].exit_code, None);
    let bound = timeout.as_secs_f64() + 20.0;
    assert!(boot.elapsed_secs < bound, "the timeout was not enforced: {}s", boot.elapsed_secs);
    assert!(boot.describe().contains("(in /init) and QEMU was killed"), "{}", boot.describe());
}

#[test]
fn a_failing_step_does_not_stop_the_next() {
    let boot = boot(
        &["insmod /lib/modules/no_such_module.ko", "echo still here; exit 3", "true"],
        "",
        Duration::from_secs(120),
    );
    assert_eq!(boot.outcome(), Outcome::Completed, "{boot:#?}");
    let codes: Vec<Option<i32>> = boot.console.steps.iter().map(|s| s.exit_code).collect();
    assert!(matches!(codes[0], Some(code) if code != 0), "{codes:?}");
    assert_eq!(codes[1..], [Some(3), Some(0)]);
    assert!(boot.console.steps[0].contains("no_such_module.ko"), "{:#?}", boot.console.steps[0]);
    assert!(boot.console.steps[1].contains("still here"));
}

#[test]
fn explicit_tcg_boots_without_kvm() {
    let kernel = kernel();
    let dir = tempfile::tempdir().unwrap();
    let (arch, image) = (&kernel.built.arch, &kernel.built.image);
    let steps = vec!["uname -r".into()];
    let guest = Guest { busybox: qemu::guest_busybox(arch), modules: vec![], steps };
    let tcg = |config: &mut BootConfig| config.accel = Accel::Tcg;
    let boot = qemu::boot_guest(arch, image, &guest, dir.path(), tcg, &mut |_| {}).unwrap();
    assert_eq!(boot.outcome(), Outcome::Completed, "{boot:#?}");
    assert_eq!(boot.accel, "tcg");
    let uname = &boot.console.steps[0].output;
    assert!(uname.len() == 1 && uname[0].starts_with(&kernel.version), "{uname:?}");
}
