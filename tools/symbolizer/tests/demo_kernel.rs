//! The symbolizer on oopses that the demo kernel really produces: the `rust_oops_*` modules
//! are loaded in QEMU, they die at the end of a chain of long-named generic frames, and the
//! real `decode-stacktrace` binary must name every Rust frame demangled, with the line of the
//! call it was in, inside the module and in `vmlinux`.
//!
//! `make test` sets `KERNEL_SRC`, `KERNEL_OBJ` and `EXTMOD_DIR`; without them this test fails
//! and says so.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use qemu::{BootConfig, Guest, Outcome};

fn var(name: &str) -> PathBuf {
    std::env::var_os(name).map(PathBuf::from).unwrap_or_else(|| {
        panic!("{name} is not set: run these tests with `make test`, which builds the demo kernel and sets it")
    })
}

/// `file:N` for the first line of `file` (under the module's sources) containing `needle`.
fn line_of(dir: &Path, file: &str, needle: &str) -> String {
    let text = std::fs::read_to_string(dir.join(file)).unwrap();
    let n = text
        .lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not in {file}"));
    format!("{}:{}", dir.join(file).display(), n + 1)
}

/// The decoded line of the frame whose name starts with `name` (after any `? `).
fn frame<'a>(decoded: &'a str, name: &str) -> &'a str {
    decoded
        .lines()
        .find(|l| l.trim_start().trim_start_matches("? ").starts_with(name))
        .unwrap_or_else(|| panic!("no frame {name} in:\n{decoded}"))
}

#[test]
fn rust_frames_of_real_oopses_decode_to_the_calls_they_were_in() {
    let (src, obj, ext) = (var("KERNEL_SRC"), var("KERNEL_OBJ"), var("EXTMOD_DIR"));
    let module_dir = ext.join("rust_oops");
    let dir = tempfile::tempdir().unwrap();
    let guest = Guest {
        busybox: "/bin/busybox".into(),
        modules: vec![module_dir.join("rust_oops_null.ko"), module_dir.join("rust_oops_panic.ko")],
        steps: vec![
            "insmod /lib/modules/rust_oops_null.ko".into(),
            "insmod /lib/modules/rust_oops_panic.ko".into(),
        ],
    };
    let initramfs = dir.path().join("initramfs.cpio");
    qemu::write_initramfs(&guest, &initramfs).unwrap();
    let log = dir.path().join("console.log");
    let mut config = BootConfig::new(&obj.join("arch/x86/boot/bzImage"), &initramfs, &log);
    config.timeout = Duration::from_secs(120);
    let boot = qemu::boot(&config, &mut |_| {}).unwrap();
    assert_eq!(boot.outcome(), Outcome::Completed, "{}", boot.describe());

    let out = Command::new(env!("CARGO_BIN_EXE_decode-stacktrace"))
        .arg(obj.join("vmlinux"))
        .arg(&src)
        .arg(&ext)
        .arg("--log")
        .arg(&log)
        .output()
        .unwrap();
    let decoded = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    // The NULL write: RIP in the function that writes, each chain frame at its call.
    let null = &decoded[..decoded.find("rust_oops_panic: expecting").expect("both modules ran")];
    let rip = null.lines().find(|l| l.starts_with("RIP: 0010:")).unwrap();
    assert!(
        rip.starts_with(
            "RIP: 0010:rust_oops_null::die_by_writing_through_a_null_pointer::<u32>+0x"
        ),
        "{rip}"
    );
    assert!(
        rip.ends_with(&line_of(&module_dir, "rust_oops_null.rs", "write_volatile(null, value)")),
        "{rip}"
    );
    let chain = "rust_oops_null::chain::";
    let second = frame(
        null,
        &format!(
            "{chain}second_frame_of_a_call_chain_whose_names_make_long_v0_symbols_for_kallsyms::<u32, rust_oops_null::die_by_writing_through_a_null_pointer<u32>>+0x"
        ),
    );
    assert!(
        second.ends_with(&format!(
            "[rust_oops_null] {}",
            line_of(&module_dir, "chain.rs", "    third_frame_of")
        )),
        "{second}"
    );
    let first = frame(null, &format!("{chain}first_frame_of"));
    assert!(first.ends_with(&line_of(&module_dir, "chain.rs", "    second_frame_of")), "{first}");
    let init = frame(null, "<rust_oops_null::RustOopsNull as kernel::Module>::init+0x");
    assert!(
        init.ends_with(&line_of(&module_dir, "rust_oops_null.rs", "chain::first_frame_of")),
        "{init}"
    );
    // vmlinux frames get their C source lines.
    assert!(frame(null, "do_one_initcall+0x").contains(" init/main.c:"), "{null}");

    // The Rust panic: BUG() in the helper, the panicking function at its panic!.
    let panic = &decoded[decoded.find("rust_oops_panic: expecting").unwrap()..];
    assert!(
        frame(panic, "core::panicking::panic_fmt+0x").contains("core/src/panicking.rs:"),
        "{panic}"
    );
    let dies = frame(panic, "rust_oops_panic::die_by_panicking::<u32>+0x");
    assert!(dies.ends_with(&line_of(&module_dir, "rust_oops_panic.rs", "panic!(")), "{dies}");
}

#[test]
fn a_missing_module_keeps_its_frames_and_says_so() {
    let obj = var("KERNEL_OBJ");
    let empty = tempfile::tempdir().unwrap();
    let log = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../oops/tests/fixtures/rust-oops-null-then-panic.log");
    let out = Command::new(env!("CARGO_BIN_EXE_decode-stacktrace"))
        .arg(obj.join("vmlinux"))
        .arg("/nonexistent")
        .arg(empty.path())
        .arg("--log")
        .arg(&log)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("decode-stacktrace: warning: no rust_oops_null.ko in the modules directory: frames of module rust_oops_null keep their kernel names"), "{stderr}");
    let decoded = String::from_utf8_lossy(&out.stdout);
    // Names are still demangled; without the .ko there is no location.
    assert!(
        decoded.contains(
            " <rust_oops_null::RustOopsNull as kernel::Module>::init+0x69/0x71 [rust_oops_null]\n"
        ),
        "{decoded}"
    );
    // Lines that are not frames stay as they were.
    assert!(decoded.contains("\nCall Trace:\n <TASK>\n"));
}

#[test]
fn not_an_elf_file_is_named() {
    let out = Command::new(env!("CARGO_BIN_EXE_decode-stacktrace"))
        .arg("/etc/hostname")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("decode-stacktrace: error: cannot read /etc/hostname: "),
        "{stderr}"
    );
}
