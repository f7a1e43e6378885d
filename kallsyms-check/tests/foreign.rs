//! `check_log` on logs the suite was not written around (the corpus of `tools/oops/tests/foreign`:
//! other architectures, KASAN, lockdep, `WARN_ON`, a cut log, a C-only oops, no oops at all):
//! each either has its Rust frames checked or fails saying why, never passes having checked
//! nothing. Update with `UPDATE_EXPECT=1 cargo test -p kallsyms-check --test foreign`.

use expect_test::expect_file;
use kallsyms_check::{FrameCheck, KSYM_NAME_LEN, NmTable, NothingChecked, SymbolTable, check_log};

/// One line per log: what was checked, or why nothing was. No symbol table is at hand for
/// these logs, so every Rust frame is checked as unknown: what counts here is which frames
/// reach the check, and that their names are the v0 symbols they should be (but those kallsyms
/// cut).
#[test]
fn every_foreign_log_is_checked_or_refused_with_a_reason() {
    let logs = oops::testing::foreign_logs();
    assert!(logs.len() >= 10, "the corpus lost logs: {logs:?}");
    let mut out = String::new();
    for log in &logs {
        let text = std::fs::read_to_string(log).unwrap();
        let name = log.file_name().unwrap().to_string_lossy();
        let result = check_log(&oops::parse_log(&text), &mut |_| None);
        match result {
            Ok(r) => {
                assert!(!r.ok(), "{name}: passed with no symbol table");
                // With no table to complete it from, a name kallsyms cut does not demangle.
                let whole = |c: &&FrameCheck| c.printed.len() < KSYM_NAME_LEN - 1;
                assert!(
                    r.checks.iter().filter(whole).all(|c| c.demangles),
                    "{name}: {:#?}",
                    r.checks
                );
                out += &format!(
                    "{name}: {} report(s), {} frame(s), {} Rust frame(s) checked, {} line(s) not read\n",
                    r.reports,
                    r.frames,
                    r.checks.len(),
                    r.unread.len()
                );
            }
            Err(why) => out += &format!("{name}: nothing checked: {why}\n"),
        }
    }
    expect_file!["foreign.verdicts"].assert_eq(&out);
}

/// A log whose Rust frames are all the kernel's own symbols passes; one with no backtrace, or
/// no Rust frame, is refused whatever the table holds.
#[test]
fn a_check_of_nothing_is_refused_even_with_every_symbol_at_hand() {
    let dir = oops::testing::foreign_dir();
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).unwrap();
    // The arm64 log's own frames, as the module's symbol table would list them.
    let log = read("arm64-6.12-null-write.log");
    let reports = oops::parse_log(&log);
    let symbols: Vec<(&str, u64, u64)> = reports[0]
        .frames
        .iter()
        .enumerate()
        .filter_map(|(i, f)| Some((f.symbol.as_deref()?, 0x1000 * i as u64, f.size)))
        .collect();
    let table = NmTable::from_symbols(symbols);
    let result = check_log(&reports, &mut |_| Some(&table as &dyn SymbolTable)).unwrap();
    assert_eq!((result.checks.len(), result.ok()), (6, true), "{:#?}", result.checks);

    for (name, expected) in [
        ("plain-text.log", NothingChecked::NoBacktrace),
        ("x86-boot-no-oops.log", NothingChecked::NoBacktrace),
        ("x86-c-only-oops.log", NothingChecked::NoRustFrame { reports: 1, frames: 9 }),
    ] {
        let reports = oops::parse_log(&read(name));
        let refused = check_log(&reports, &mut |_| Some(&table as &dyn SymbolTable));
        assert_eq!(refused.map(|r| r.checks.len()), Err(expected), "{name}");
    }
}
