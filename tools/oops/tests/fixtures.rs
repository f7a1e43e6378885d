//! Real console logs captured from the demo kernel, against golden summaries. Update with
//! `UPDATE_EXPECT=1 cargo test -p oops --test fixtures`.

use std::path::Path;

use common::summary;
use expect_test::expect_file;

mod common;

#[test]
fn null_write_then_rust_panic_in_modules() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/rust-oops-null-then-panic.log");
    let log = std::fs::read_to_string(path).unwrap();
    expect_file!["fixtures/rust-oops-null-then-panic.summary"].assert_eq(&summary(&log));
}

/// Loading rust_oops_long on the unpatched 6.12.118 kernel: the first frame, then a general
/// protection fault in vsnprintf() for every further attempt to print the backtrace (fixed by
/// demo-kernel/patches/0001). Nested oopses are reports of their own.
#[test]
fn nested_oopses_of_the_unpatched_kernel() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rust-oops-long-unpatched-6.12.118.log");
    let log = std::fs::read_to_string(path).unwrap();
    expect_file!["fixtures/rust-oops-long-unpatched-6.12.118.summary"].assert_eq(&summary(&log));
}

/// A NULL-pointer write in built-in Rust code run from the system workqueue
/// (`rust_long_symbols.trigger=null`, before demo-kernel/patches/0006): a `Workqueue:` line
/// naming a 142-character Rust symbol, and frames of 300 to 511 characters.
#[test]
fn workqueue_oops_in_built_in_rust_code() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/rust-long-symbols-null-unpatched-kallsyms.log");
    let log = std::fs::read_to_string(path).unwrap();
    expect_file!["fixtures/rust-long-symbols-null-unpatched-kallsyms.summary"]
        .assert_eq(&summary(&log));
}

/// Console output is untrusted: no input may make the parser panic.
#[test]
fn garbage_never_panics() {
    let pieces = [
        "BUG: ",
        "Oops: ",
        "[#",
        "1]",
        "Call Trace:\n",
        " <TASK>\n",
        " ? ",
        "foo",
        "+0x",
        "1f",
        "/0x",
        " [m]",
        "\n",
        "RIP: 0010:",
        "---[ end trace",
        "rust_kernel: panicked at ",
        "Modules linked in: ",
        "</TASK>\n",
        "\r",
        "é",
        "\u{0}",
        "[    1.0] ",
    ];
    for log in kbuild::testing::garbage(0x5eed_0f00_0005, &pieces, 3000) {
        for report in oops::parse_log(&log) {
            assert!(report.lines.0 <= report.lines.1);
        }
    }
}
