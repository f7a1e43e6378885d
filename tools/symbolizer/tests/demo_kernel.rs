//! The symbolizer on oopses that the demo kernel really produces: the `rust_oops_*` modules
//! are loaded in QEMU, they die at the end of a chain of long-named generic frames, and the
//! real `decode-stacktrace` binary must name every Rust frame demangled, with the line of the
//! call it was in, inside the module and in `vmlinux`.
//!
//! `make test` sets `KERNEL_SRC`, `KERNEL_OBJ` and `EXTMOD_DIR`; without them this test fails
//! and says so.

use std::path::{Path, PathBuf};
use std::time::Duration;

use qemu::{Guest, Outcome};
use subprocess::Command;
use subprocess::testing::{report, run};

use kbuild::testing::env_path as var;

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

/// Boots the demo kernel, loads each of `modules` from `module_dir` in turn (each oopses),
/// and returns the console log (in a directory that lives as long as the returned guard).
fn boot_and_load(obj: &Path, module_dir: &Path, modules: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (_, built) = kbuild::Objtree::open_built(obj).unwrap();
    let guest = Guest {
        busybox: qemu::guest_busybox(&built.arch),
        modules: modules.iter().map(|m| module_dir.join(format!("{m}.ko"))).collect(),
        steps: modules.iter().map(|m| format!("insmod /lib/modules/{m}.ko")).collect(),
    };
    let timeout = |config: &mut qemu::BootConfig| config.timeout = Duration::from_secs(120);
    let boot =
        qemu::boot_guest(&built.arch, &built.image, &guest, dir.path(), timeout, &mut |_| {})
            .unwrap();
    assert_eq!(boot.outcome(), Outcome::Completed, "{}", boot.describe());
    (dir, boot.log)
}

/// `decode-stacktrace`, run from the manifest's directory.
fn decode_stacktrace() -> Command {
    Command::new(env!("CARGO_BIN_EXE_decode-stacktrace"), Path::new(env!("CARGO_MANIFEST_DIR")))
        .timeout(Duration::from_secs(120))
}

fn decode(obj: &Path, src: &Path, modules: &Path, log: &Path) -> String {
    let cmd =
        decode_stacktrace().arg(obj.join("vmlinux")).arg(src).arg(modules).arg("--log").arg(log);
    let out = run(&cmd);
    assert!(out.status.success(), "{}", report(&cmd, &out));
    out.stdout
}

/// Regression test for demo-kernel/patches/0001 (found by loading rust_oops_long): a module
/// frame whose symbol is KSYM_NAME_LEN (512) characters or longer made strscpy() return
/// -E2BIG as the name's length, and printing the backtrace oopsed four more times in
/// vsnprintf(). With the fix the frame shows the first 511 characters, once, and the
/// symbolizer completes the name from the module's symbol table.
#[test]
fn long_module_symbols_print_cut_short_instead_of_oopsing_again() {
    let (src, obj, ext) = (var("KERNEL_SRC"), var("KERNEL_OBJ"), var("EXTMOD_DIR"));
    let module_dir = ext.join("rust_oops");
    let (_dir, log) = boot_and_load(&obj, &module_dir, &["rust_oops_long"]);
    let text = std::fs::read_to_string(&log).unwrap();
    let reports = oops::parse_log(&text);
    assert_eq!(reports.len(), 1, "the kernel oopsed again while printing the first oops:\n{text}");
    assert!(!text.contains("general protection fault"), "{text}");
    let frames: Vec<&str> = reports[0].frames.iter().filter_map(|f| f.symbol.as_deref()).collect();
    let plain =
        frames.iter().find(|s| s.contains("a_plain_function_whose_name")).expect("the plain frame");
    assert!(plain.len() > 500 && plain.len() < 512, "{} characters", plain.len());
    let generic = frames
        .iter()
        .find(|s| s.contains("a_generic_function_whose_symbol"))
        .expect("the generic frame");
    assert_eq!(
        generic.len(),
        symbolizer::KSYM_NAME_LEN - 1,
        "the name is cut at KSYM_NAME_LEN - 1"
    );

    let decoded = decode(&obj, &src, &module_dir, &log);
    let line =
        frame(&decoded, "rust_oops_long::a_generic_function_whose_symbol_goes_past_ksym_name_len");
    assert!(line.contains("{closure#0}"), "the whole name, with its closure type: {line}");
    assert!(
        line.contains("(name cut by kallsyms at 511 characters, completed from the symbol table)"),
        "{line}"
    );
    let call = line_of(&module_dir, "rust_oops_long.rs", "    f();");
    assert!(line.contains(&format!(" {call} ")), "{line}");
}

#[test]
fn rust_frames_of_real_oopses_decode_to_the_calls_they_were_in() {
    let (src, obj, ext) = (var("KERNEL_SRC"), var("KERNEL_OBJ"), var("EXTMOD_DIR"));
    let module_dir = ext.join("rust_oops");
    let (_dir, log) = boot_and_load(&obj, &module_dir, &["rust_oops_null", "rust_oops_panic"]);

    let decoded = decode(&obj, &src, &ext, &log);

    // The NULL write: where it happened (x86-64's `RIP: 0010:`, arm64's `pc : `) in the function
    // that writes, each chain frame at its call.
    let Some(second) = decoded.find("rust_oops_panic: expecting") else {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        panic!("rust_oops_panic did not print its first line; the console log:\n{text}");
    };
    let null = &decoded[..second];
    let raw = std::fs::read_to_string(&log).unwrap();
    let label = raw
        .lines()
        .filter_map(|l| oops::frame_on_line(oops::strip_prefixes(l)))
        .find(|f| !f.label.is_empty() && !f.return_address)
        .map(|f| f.label.to_owned())
        .unwrap_or_else(|| panic!("no line of the log says where it happened:\n{raw}"));
    let rip = null.lines().find(|l| l.starts_with(&label)).unwrap_or_else(|| panic!("{null}"));
    assert!(
        rip[label.len()..]
            .starts_with("rust_oops_null::die_by_writing_through_a_null_pointer::<u32>+0x"),
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
    // `kernel::Module` on 6.12, `kernel::module::Module` since the module moved (7.x).
    let init = frame(null, "<rust_oops_null::RustOopsNull as kernel::");
    assert!(init.contains("Module>::init+0x"), "{init}");
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
    let cmd = decode_stacktrace()
        .arg(obj.join("vmlinux"))
        .arg("/nonexistent")
        .arg(empty.path())
        .arg("--log")
        .arg(&log);
    let out = run(&cmd);
    assert!(out.status.success(), "{}", report(&cmd, &out));
    let stderr = &out.stderr;
    assert!(stderr.contains("decode-stacktrace: warning: no rust_oops_null.ko in the modules directory: frames of module rust_oops_null keep their kernel names"), "{stderr}");
    let decoded = &out.stdout;
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
    let out = run(&decode_stacktrace().arg("/etc/hostname"));
    assert_eq!(out.status.code(), Some(2));
    let stderr = &out.stderr;
    assert!(
        stderr.starts_with("decode-stacktrace: error: cannot read /etc/hostname: "),
        "{stderr}"
    );
}
