//! The `decode-stacktrace` binary on logs it was not first written for: arm64's and riscv64's
//! register lines (`pc :`, `lr :`, `epc :`, `ra :`) and call traces are decoded like x86-64's
//! `RIP:`; a log with no frame goes through as it came, with a warning that nothing was decoded.

use std::path::{Path, PathBuf};
use std::time::Duration;

use subprocess::Command;
use subprocess::testing::{report, run, user_space_elf};

fn foreign(name: &str) -> PathBuf {
    oops::testing::foreign_dir().join(name)
}

fn decode(dir: &Path, elf: &Path, log: &Path) -> (Command, subprocess::Output) {
    let cmd = Command::new(env!("CARGO_BIN_EXE_decode-stacktrace"), dir)
        .arg(elf)
        .arg("--log")
        .arg(log)
        .timeout(Duration::from_secs(60));
    let out = run(&cmd);
    (cmd, out)
}

#[test]
fn register_lines_and_call_traces_of_arm64_and_riscv64_are_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let elf = user_space_elf(dir.path());
    let null = "rust_oops_null::die_by_writing_through_a_null_pointer::<u32>";
    let third = "rust_oops_null::chain::third_frame_of_a_call_chain_whose_names_make_long_v0_symbols_for_kallsyms::<u32, rust_oops_null::die_by_writing_through_a_null_pointer<u32>>";
    for (log, lines) in [
        (
            "arm64-6.12-null-write.log",
            [
                format!("] pc : {null}+0x8/0x14 [rust_oops_null]"),
                format!("] lr : {third}+0x10/0x1c [rust_oops_null]"),
            ],
        ),
        (
            "riscv64-null-write.log",
            [
                format!("] epc : {null}+0x8/0x12 [rust_oops_null]"),
                format!("]  ra : {third}+0xe/0x18 [rust_oops_null]"),
            ],
        ),
    ] {
        let (cmd, out) = decode(dir.path(), &elf, &foreign(log));
        assert!(out.status.success(), "{}", report(&cmd, &out));
        for line in &lines {
            assert!(
                out.stdout.lines().any(|l| l.ends_with(line.as_str())),
                "{line}\n{}",
                report(&cmd, &out)
            );
        }
        assert!(!out.stdout.contains("_RIN"), "a frame left mangled:\n{}", report(&cmd, &out));
        assert!(!out.stderr.contains("no frame decoded"), "{}", report(&cmd, &out));
    }
    // arm64 since 6.14: where the unwinder found each frame stays on its line.
    let (cmd, out) = decode(dir.path(), &elf, &foreign("arm64-7.3-rust-panic.log"));
    assert!(out.stdout.contains("]  rust_helper_BUG+0x4/0x8 (P)\n"), "{}", report(&cmd, &out));
    assert!(!out.stdout.contains("_RIN"), "a frame left mangled:\n{}", report(&cmd, &out));
}

#[test]
fn a_log_with_no_frame_goes_through_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let elf = user_space_elf(dir.path());
    for log in ["plain-text.log", "x86-boot-no-oops.log"] {
        let (cmd, out) = decode(dir.path(), &elf, &foreign(log));
        assert!(out.status.success(), "{}", report(&cmd, &out));
        assert_eq!(out.stdout, std::fs::read_to_string(foreign(log)).unwrap());
        assert!(
            out.stderr.contains("decode-stacktrace: warning: no frame decoded: no line of the log names a function of "),
            "{}",
            report(&cmd, &out)
        );
    }
}

/// arm64 prints call-trace frames with `%pS`, so the return address of a call that was its
/// function's last instruction (one that does not return) is printed as the next function's
/// `+0x0`. decode-stacktrace names the function the call is in, at the offset `%pB` would
/// have printed (its size), and says what was printed. Shown on a C program built so that
/// `calls_die` ends with its call and `next_one` follows it.
#[test]
fn a_return_address_printed_past_the_end_is_decoded_as_its_own_function() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("past-the-end.c");
    std::fs::write(
        &source,
        "__attribute__((noreturn, noinline)) void die(void) { for (;;) __asm__ volatile(\"\"); }\n\
         __attribute__((noinline)) void calls_die(void) { die(); }\n\
         __attribute__((noinline)) int next_one(int x) { return x + 1; }\n\
         int main(void) { return next_one(0); }\n",
    )
    .unwrap();
    let elf = dir.path().join("past-the-end");
    let cmd = Command::new("cc", dir.path())
        .args(["-g", "-O1", "-fno-toplevel-reorder", "-falign-functions=1", "-o"])
        .arg(&elf)
        .arg(&source)
        .timeout(Duration::from_secs(120));
    let out = run(&cmd);
    assert!(out.success(), "{}", report(&cmd, &out));
    let image = symbolizer::Image::open(&elf).unwrap();
    let (calls_die, size) = image.symbol("calls_die").unwrap();
    let (next_one, next_size) = image.symbol("next_one").unwrap();
    assert_eq!(calls_die + size, next_one, "the program is not laid out as this test needs");

    let log = dir.path().join("trace.log");
    std::fs::write(&log, format!("Call trace:\n next_one+0x0/{next_size:#x}\n")).unwrap();
    let (cmd, out) = decode(dir.path(), &elf, &log);
    assert!(out.status.success(), "{}", report(&cmd, &out));
    let line = out.stdout.lines().nth(1).unwrap();
    let expected = format!(" calls_die+{size:#x}/{size:#x} ");
    assert!(line.starts_with(&expected), "{}", report(&cmd, &out));
    assert!(line.contains("past-the-end.c:2"), "{}", report(&cmd, &out));
    assert!(
        line.ends_with("(printed as next_one+0x0: the return address just past its end)"),
        "{line}"
    );
}
