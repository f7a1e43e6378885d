//! Golden tests of the extractor on parts of the two demo trees' `module.rs` (see the
//! fixtures' first lines). Update with `UPDATE_EXPECT=1 cargo test -p docs-site --lib`.

use expect_test::{expect, expect_file};

use super::*;

fn show(keys: &ModuleKeys) -> String {
    let mut out = format!("ordered: {}\n", keys.ordered);
    for (what, list) in [("key", &keys.keys), ("param field", &keys.param_fields)] {
        for k in list {
            writeln!(out, "{what} {}", describe(k)).unwrap();
        }
    }
    out
}

const V6_12: &str = include_str!("../fixtures/module-6.12.rs");
const V7_3: &str = include_str!("../fixtures/module-7.3.rs");

#[test]
fn the_token_walk_of_6_12() {
    let keys = extract(V6_12).expect("6.12's parser is known");
    expect_file!["../fixtures/module-6.12.keys"].assert_eq(&show(&keys));
}

#[test]
fn the_syn_parser_of_7_3() {
    let keys = extract(V7_3).expect("7.3's parser is known");
    expect_file!["../fixtures/module-7.3.keys"].assert_eq(&show(&keys));
}

#[test]
fn from_6_12_to_7_3() {
    let (old, new) = (extract(V6_12).unwrap(), extract(V7_3).unwrap());
    expect_file!["../fixtures/module-keys.diff"]
        .assert_eq(&(lines(&old, &new, "6.12", "7.3").join("\n") + "\n"));
}

#[test]
fn an_unknown_parser_is_none() {
    assert_eq!(extract("fn module(ts: TokenStream) -> TokenStream { ts }"), None);
    let same = extract(V7_3).unwrap();
    assert!(diff(&same, &same).is_empty());
    expect![[r#"
        6.12 accepts: `type`, `name`, `authors`, `description`, `license`, `alias`, `firmware`, `imports_ns`, `params`
        7.3 accepts: `type`, `name`, `authors`, `description`, `license`, `alias`, `firmware`, `imports_ns`, `params`"#]]
    .assert_eq(&lines(&same, &same, "6.12", "7.3").join("\n"));
}
