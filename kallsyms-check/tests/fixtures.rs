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

/// A real arm64 backtrace of a Rust panic (6.12.118 with the demo series, cross-built with
/// Debian's gcc-aarch64-linux-gnu 12.2, booted in `qemu-system-aarch64 -M virt -cpu max`,
/// `rust_oops_panic.ko` loaded), with the symbol tables the check reads: the module's, as
/// `symbolizer::Image` lays it out, and vmlinux's functions that the frames name.
///
/// arm64 prints call-trace frames with `%pS`, not `%pB`: a return address is looked up as it
/// is, so a call that was its function's last instruction (the calls down a Rust panic's chain,
/// which do not return) is printed as the next function's `+0x0`. Every Rust frame of the chain
/// names the wrong function: each is caught, with the function the call is really in.
#[test]
fn arm64_return_addresses_past_the_end_are_the_wrong_function() {
    let log = fixture("arm64-6.12-rust-oops-panic.log");
    let module = NmTable::parse(&fixture("arm64-6.12-rust-oops-panic.ko.nm"));
    let vmlinux = NmTable::parse(&fixture("arm64-6.12-rust-oops-panic.vmlinux.nm"));
    let reports = oops::parse_log(&log);
    assert_eq!(reports.len(), 1);
    let checks = check_frames(&reports, &mut |m| match m {
        None => Some(&vmlinux as &dyn SymbolTable),
        Some("rust_oops_panic") => Some(&module as &dyn SymbolTable),
        Some(other) => panic!("a frame of module {other}"),
    });
    let demangled = |s: &str| format!("{:#}", rustc_demangle::demangle(s));
    let seen: Vec<(Verdict, String, String)> = checks
        .iter()
        .map(|c| (c.verdict, demangled(&c.printed), demangled(c.actual.as_deref().unwrap_or("-"))))
        .collect();
    let chain = |n: &str| {
        format!(
            "rust_oops_panic::chain::{n}_frame_of_a_call_chain_whose_names_make_long_v0_symbols_for_kallsyms::<u32, rust_oops_panic::die_by_panicking<u32>>"
        )
    };
    let init = "<rust_oops_panic::RustOopsPanic as kernel::Module>::init".to_owned();
    let wrong = Verdict::WrongFunction;
    assert_eq!(
        seen,
        [
            (wrong, "core::num::overflow_panic::add".into(), "core::panicking::panic_fmt".into()),
            (wrong, chain("first"), "rust_oops_panic::die_by_panicking::<u32>".into()),
            (wrong, chain("second"), chain("third")),
            (wrong, init.clone(), chain("second")),
            (wrong, chain("third"), chain("first")),
        ]
    );
    assert!(checks.iter().all(|c| !c.ok()));
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
