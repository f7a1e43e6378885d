//! Tests of [`image_symbols`]: symbol names in, lengths and fates out.

use std::collections::HashSet;

use expect_test::{Expect, expect};

use super::{Owner, image_symbols};
use crate::table::TableError;

/// A Rust symbol of `len` characters, unique by `tag`.
fn rust(tag: char, len: usize) -> String {
    let mut name = format!("_R{tag}");
    name.extend(std::iter::repeat_n('x', len - name.len()));
    name
}

fn check(names: &[String], owner: &Owner<'_>, expect: Expect) {
    let result = image_symbols("image", names.iter().map(String::as_str), owner);
    let mut text = format!(
        "{} rust, longest {}, {} over the reader's length\n",
        result.rust_symbols, result.longest, result.over_reader_len
    );
    for long in &result.at_ksym_name_len {
        text += &format!("{}: {:?}\n", long.symbol.len(), long.fate);
    }
    expect.assert_eq(&text);
}

#[test]
fn c_symbols_do_not_count_and_the_reader_limit_is_256() {
    let names = vec!["x".repeat(600), rust('a', 255), rust('b', 256), rust('c', 300)];
    check(
        &names,
        &Owner::Module,
        expect![[r#"
            3 rust, longest 300, 2 over the reader's length
        "#]],
    );
}

#[test]
fn a_prefix_takes_a_symbol_to_ksym_name_len() {
    // `__pfx_` is 6 characters: 506 + 6 = 512.
    let names = vec![rust('a', 505), rust('b', 506), rust('c', 511)];
    check(
        &names,
        &Owner::Module,
        expect![[r#"
            3 rust, longest 511, 3 over the reader's length
            506: OverOncePrefixed
            511: OverOncePrefixed
        "#]],
    );
}

#[test]
fn vmlinux_symbols_at_the_limit_are_as_its_table_holds_them() {
    let (whole, cut, left_out) = (rust('a', 512), rust('b', 600), rust('c', 700));
    let cut_name = cut[..511].to_owned();
    let held: HashSet<&str> = [whole.as_str(), cut_name.as_str()].into();
    let names = vec![whole.clone(), cut.clone(), left_out.clone()];
    check(
        &names,
        &Owner::Vmlinux(Ok(&held)),
        expect![[r#"
            3 rust, longest 700, 3 over the reader's length
            512: HeldWhole
            600: HeldCut
            700: LeftOut
        "#]],
    );
    check(
        &names,
        &Owner::Module,
        expect![[r#"
            3 rust, longest 700, 3 over the reader's length
            512: CutInModule
            600: CutInModule
            700: CutInModule
        "#]],
    );
    let unreadable = TableError::NoSymbol("kallsyms_names");
    check(
        &names[..1],
        &Owner::Vmlinux(Err(&unreadable)),
        expect![[r#"
            1 rust, longest 512, 1 over the reader's length
            512: Unknown("no symbol kallsyms_names in its symbol table: not a vmlinux built with CONFIG_KALLSYMS, or a stripped one")
        "#]],
    );
}
