//! Tests of the dependency lists rustdoc writes.

use expect_test::expect;

use super::*;

#[test]
fn dep_info_lists_each_input_once_in_order() {
    let text = "/w/crates/kernel/deps.d: /src/rust/kernel/lib.rs /src/rust/kernel/alloc.rs \\\n  ./rust/libbindings.rmeta my\\ file.rs\n\n/src/rust/kernel/lib.rs:\n/src/rust/kernel/alloc.rs:\n";
    expect![[r#"
        [
            "/src/rust/kernel/lib.rs",
            "/src/rust/kernel/alloc.rs",
            "./rust/libbindings.rmeta",
            "my file.rs",
        ]
    "#]]
    .assert_debug_eq(&dep_info_inputs(text));
}
