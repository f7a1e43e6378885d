//! Tests of the KTAP reader on real consoles of the longest-symbol suite.

use expect_test::{Expect, expect};

use super::*;

/// The suite as text: its plan, each case with its outcome and last diagnostic, its summary,
/// and whether it is complete.
fn check(console: &str, suite: &str, expect: Expect) {
    let s = parse_suite(console, suite);
    let mut out = format!("planned: {:?}\n", s.planned);
    for c in &s.cases {
        let said = c.ktap.iter().rev().nth(1).map_or("", String::as_str);
        out.push_str(&format!("{} {:?} ({} lines) {said}\n", c.name, c.outcome, c.ktap.len()));
    }
    out.push_str(&format!("summary: {:?}\nincomplete: {:?}\n", s.summary, s.incomplete()));
    expect.assert_eq(&out);
}

#[test]
fn longest_symbol_before_the_fix() {
    check(
        include_str!("tests/builtin-before.log"),
        "longest-symbol",
        expect![[r#"
            planned: Some(3)
            test_longest_symbol Pass (3 lines) 1..3
            test_longest_symbol_kallsyms Pass (2 lines) # test_longest_symbol_kallsyms: test_longest_symbol kallsyms: kprobe registered
            test_too_long_symbol_sprint Fail (6 lines) printed as sha256_ni_finup2x+0x958/0x961
            summary: Some("longest-symbol: pass:2 fail:1 skip:0 total:3")
            incomplete: None
        "#]],
    );
}

#[test]
fn longest_symbol_after_the_fix() {
    check(
        include_str!("tests/builtin-after.log"),
        "longest-symbol",
        expect![[r#"
            planned: Some(3)
            test_longest_symbol Pass (3 lines) 1..3
            test_longest_symbol_kallsyms Pass (2 lines) # test_longest_symbol_kallsyms: test_longest_symbol kallsyms: kprobe registered
            test_too_long_symbol_sprint Pass (1 lines) 
            summary: Some("longest-symbol: pass:3 fail:0 skip:0 total:3")
            incomplete: None
        "#]],
    );
}

#[test]
fn a_boot_that_ended_early_is_incomplete() {
    let log = include_str!("tests/builtin-after.log");
    let cut: String = log.lines().take(5).map(|l| format!("[    3.141592] {l}\n")).collect();
    check(
        &cut,
        "longest-symbol",
        expect![[r#"
            planned: Some(3)
            test_longest_symbol Pass (3 lines) 1..3
            summary: None
            incomplete: Some("1 of the 3 planned tests reported a result")
        "#]],
    );
}

#[test]
fn another_suite_is_not_read() {
    check(
        include_str!("tests/builtin-after.log"),
        "rust_doctests_kernel",
        expect![[r#"
            planned: None
            summary: None
            incomplete: Some("0 results, but no KTAP plan (1..N) for the suite")
        "#]],
    );
}
