//! Golden test of the porting list of a fixture module against a small diff. Update with
//! `UPDATE_EXPECT=1 cargo test -p docs-site --lib`.

use api_diff::{ChangeKind, Diff, Entry, ItemKind, Place, Reason};
use expect_test::{expect, expect_file};

use super::*;
use crate::versions::module_keys;

fn place(path: &str, reexports: &[&str]) -> Option<Place> {
    Some(Place {
        path: path.to_owned(),
        url: format!("{}.html", path.replace("::", "/")),
        reexports: reexports.iter().map(|s| (*s).to_owned()).collect(),
    })
}

fn entry(change: ChangeKind, kind: ItemKind, old: Option<Place>, new: Option<Place>) -> Entry {
    Entry { change, kind, old, new, reasons: Vec::new() }
}

fn kernel_diff() -> Diff {
    let mut arc_new = entry(
        ChangeKind::Changed,
        ItemKind::Method,
        place("kernel::sync::arc::Arc::new", &["kernel::sync::Arc::new"]),
        place("kernel::sync::arc::Arc::new", &["kernel::sync::Arc::new"]),
    );
    arc_new.reasons.push(Reason {
        text: "parameter 2: `Flags` → `alloc::Flags`".to_owned(),
        old_url: None,
        new_url: None,
    });
    Diff {
        entries: vec![
            entry(
                ChangeKind::Moved,
                ItemKind::Trait,
                place("kernel::init::PinInit", &["kernel::prelude::PinInit"]),
                place("pin_init::PinInit", &["kernel::prelude::PinInit"]),
            ),
            entry(
                ChangeKind::Removed,
                ItemKind::Struct,
                place(
                    "kernel::alloc::kvec::Vec",
                    &["kernel::alloc::KVec", "kernel::prelude::KVec"],
                ),
                None,
            ),
            entry(ChangeKind::Removed, ItemKind::Struct, place("kernel::gone::Thing", &[]), None),
            entry(
                ChangeKind::Added,
                ItemKind::Struct,
                None,
                place("kernel::str::CStr", &["kernel::prelude::CStr"]),
            ),
            arc_new,
        ],
    }
}

#[test]
fn the_uses_of_a_module_written_for_6_12() {
    let text = include_str!("../fixtures/port_me/port_me.rs");
    let files = vec![("port_me.rs".to_owned(), text.to_owned())];
    let old = module_keys::extract(include_str!("../fixtures/module-6.12.rs")).unwrap();
    let new = module_keys::extract(include_str!("../fixtures/module-7.3.rs")).unwrap();
    let keys = module_keys::diff(&old, &new);
    let diff = kernel_diff();
    let uses = porting_list(&files, &[("kernel".to_owned(), &diff)], Some(&keys));
    expect_file!["../fixtures/port_me/porting.txt"]
        .assert_eq(&render_text("port_me", &uses, "6.12", "7.3"));
}

#[test]
fn use_trees_expand() {
    let refs = references(
        "use kernel::{a::{b, c as d}, e, self};\nuse core::x;\nfn f() { b::g(); kernel::h::i(); }\n",
    );
    let shown: Vec<String> = refs.iter().map(|r| format!("{}:{}", r.line, r.path)).collect();
    expect![[r#"
        [
            "1:kernel",
            "1:kernel::a::b",
            "1:kernel::a::c",
            "1:kernel::e",
            "3:kernel::a::b::g",
            "3:kernel::h::i",
        ]
    "#]]
    .assert_debug_eq(&shown);
}
