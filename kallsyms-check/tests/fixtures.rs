//! `check_frames` on a real console log with the real symbol table it came with: the built-in
//! `rust_long_symbols` sample oopsing (`rust_long_symbols.trigger=null`) on a kernel whose
//! `scripts/kallsyms` still dropped symbols of `KSYM_NAME_LEN` characters or more (before
//! demo-kernel patch 0006). The table is `nm -S vmlinux` of that build, its text symbols of the
//! sample's code.

use std::path::Path;

use kallsyms_check::{NmTable, SymbolTable, Verdict, check_frames, check_log};

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn frames_in_dropped_vmlinux_symbols_are_caught_as_the_wrong_function() {
    let log = fixture("rust-long-symbols-null-unpatched-kallsyms.log");
    let nm = NmTable::parse(&fixture("rust-long-symbols-null-unpatched-kallsyms.nm"));
    let reports = oops::parse_log(&log);
    assert_eq!(reports.len(), 1);
    let checks = check_frames(&reports, &mut |module| {
        assert_eq!(module, None);
        Some(&nm as &dyn SymbolTable)
    });
    // (verdict, length as printed or completed, length of the function really there)
    let seen: Vec<(Verdict, usize, Option<usize>)> =
        checks.iter().map(|c| (c.verdict, c.length, c.actual.as_ref().map(String::len))).collect();
    assert_eq!(
        seen,
        [
            (Verdict::Whole, 41, None),
            // kallsyms named these after the symbol before the dropped 599- and 512-character
            // ones: the backtrace points at the wrong functions.
            (Verdict::WrongFunction, 480, Some(599)),
            (Verdict::WrongFunction, 511, Some(512)),
            (Verdict::Whole, 511, None),
            (Verdict::Whole, 480, None),
            (Verdict::Whole, 300, None),
            (Verdict::Whole, 142, None),
        ]
    );
    assert_eq!(checks.iter().filter(|c| c.ok()).count(), 5);
}

/// Console logs are untrusted: no log, however its offsets and sizes overflow, makes the check
/// panic (the symbols are the fixture's real ones, so that frames reach the table), and none
/// passes having checked nothing.
#[test]
fn arbitrary_logs_never_panic() {
    let nm = NmTable::parse(&fixture("rust-long-symbols-null-unpatched-kallsyms.nm"));
    let names = fixture("rust-long-symbols-null-unpatched-kallsyms.nm");
    let mut pieces: Vec<&str> = names.lines().filter_map(|l| l.split_whitespace().nth(3)).collect();
    pieces.extend([
        "Oops: 0002 [#1]\n",
        "RIP: 0010:",
        "Call Trace:\n",
        " <TASK>\n",
        " ? ",
        "+0x",
        "ffffffffffffffff",
        "0",
        "/0x",
        "1f",
        " [m]",
        "\n",
    ]);
    // Each real symbol with the largest offset and size a line can hold.
    let huge: Vec<String> = pieces[..pieces.len() - 12]
        .iter()
        .map(|name| {
            let frame = format!("{name}+0xffffffffffffffff/0xffffffffffffffff");
            format!("Oops: 0002 [#1]\nRIP: 0010:{frame}\nCall Trace:\n <TASK>\n {frame}\n</TASK>\n")
        })
        .collect();
    for log in kbuild::testing::garbage(7, &pieces, 3000).into_iter().chain(huge) {
        let reports = oops::parse_log(&log);
        let _ = check_frames(&reports, &mut |_| Some(&nm as &dyn SymbolTable));
        // A log the check accepts had Rust frames checked: none passes having checked nothing.
        if let Ok(result) = check_log(&reports, &mut |_| Some(&nm as &dyn SymbolTable)) {
            assert!(!result.checks.is_empty(), "{log}");
        }
    }
}
