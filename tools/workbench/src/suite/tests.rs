//! `suite`: the tools' result lines, the reuse of results, rust-analyzer's verdict.

use super::*;

#[test]
fn the_last_summary_line_of_a_tool() {
    let stderr = "lint-rules: skipped 3 generated files\nrule  count\nlint-rules: 75 files, 0 errors, 97 warnings, 0 suppressed, 0 files not linted, in 0.2s\n";
    assert_eq!(
        last_line_after(stderr, "lint-rules: "),
        Some("75 files, 0 errors, 97 warnings, 0 suppressed, 0 files not linted, in 0.2s")
    );
    assert_eq!(last_line_after("nothing\n", "lint-rules: "), None);
}

#[test]
fn kallsyms_check_verdicts() {
    let report = "rust_oops_null: a NULL write: ok\n  1 report(s), 4 Rust frame(s); boot: ok\n  x: ok\n\
                  rust_oops_panic: a panic: FAILED\n  /proc/kallsyms in the guest: 3 symbols\n";
    assert_eq!(kallsyms_scenarios(report), (1, 2, 0));
    assert_eq!(kallsyms_scenarios(""), (0, 0, 0));
    let not_run =
        "rust_long_symbols null: vmlinux: a write: not run: no sample\nrust_oops_null: x: ok\n";
    assert_eq!(kallsyms_scenarios(not_run), (1, 1, 1));
}

#[test]
fn decoded_frames_and_their_lines() {
    let decoded = "RIP: 0010:f+0x8/0x11 [m] /src/m.rs:25\nCall Trace:\n <TASK>\n \
                   g+0x19/0x1f [m] /src/chain.rs:12\n   (inlined) h /src/lib.rs:250\n \
                   ? 0xffffffffa0000000\n do_one_initcall+0x74/0x169 init/main.c:1362\n \
                   entry_SYSCALL_64_after_hwframe+0x4b/0x53\n </TASK>\n";
    assert_eq!(decoded_frames(decoded), (3, 2));
}

#[test]
fn a_result_is_reused_until_an_input_changes() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("vmlinux");
    std::fs::write(&input, "one").unwrap();
    let key = || inputs_key(std::slice::from_ref(&input));
    let reuse = Reuse::new(dir.path(), "check", key());
    assert_eq!(reuse.get(), None);
    reuse.put("3 of 3 ok");
    assert_eq!(Reuse::new(dir.path(), "check", key()).get().as_deref(), Some("3 of 3 ok"));
    std::fs::write(&input, "changed").unwrap();
    assert_eq!(Reuse::new(dir.path(), "check", key()).get(), None, "the size changed");
    std::fs::remove_file(&input).unwrap();
    assert!(key().ends_with("missing\n"));
    assert_eq!(Reuse::new(dir.path(), "check", key()).get(), None);
}

#[test]
fn rust_analyzer_errors_apart_from_its_own_bugs() {
    assert_eq!(rust_analyzer_verdict("processing\rprocessing\n"), "0 errors");
    let own = "at crate kernel, file /src/rust/kernel/print.rs: Error RustcHardError(\"E0308\") from \
               LineCol { line: 22, col: 2 } to LineCol { line: 22, col: 8 }: expected fn \
               rust_fmt_argument(*mut u8, *mut u8, *const c_void) -> *mut u8, found unsafe extern \"C\" \
               fn rust_fmt_argument(*mut u8, *mut u8, *const c_void) -> *mut u8";
    let real =
        "at crate kernel, file rust/kernel/a.rs: Error RustcHardError(\"E0425\") from x: no value";
    assert_eq!(
        rust_analyzer_verdict(&format!("{own}\n")),
        "0 errors (1 more from its own bug https://github.com/rust-lang/rust-analyzer/issues/22174)"
    );
    assert!(rust_analyzer_verdict(&format!("{own}\n{real}\n")).starts_with("1 error "));
}
