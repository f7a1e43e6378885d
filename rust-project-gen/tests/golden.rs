//! The generator on a fixture objtree made of real `.cmd` lines of the demo kernel, against a
//! golden file. Update with `UPDATE_EXPECT=1 cargo test -p rust-project-gen --test golden`.

mod common;

use expect_test::expect_file;
use rust_project_gen::Trees;
use rust_project_gen::json::Flycheck;
use rust_project_gen::rust_analyzer::{self, Features};

use common::Fixture;

fn trees(f: &Fixture) -> Trees {
    Trees {
        srctree: f.srctree.clone(),
        objtree: f.objtree.clone(),
        sysroot: f.sysroot.clone(),
        sysroot_src: f.sysroot_src.clone(),
        exttree: None,
        cargo_home: Some(f.cargo_home.clone()),
        store: None,
    }
}

#[test]
fn demo_objtree() {
    let f = Fixture::new("demo");
    let output = rust_project_gen::generate(&trees(&f)).unwrap();
    assert_eq!(output.problems, Vec::<String>::new());
    expect_file!["golden/demo.json"].assert_eq(&f.normalise(&output.text(Features::ALL, None)));
}

/// Mainline (7.3.4): the vendored crates (`--cap-lints=allow`) and the generated doctests are
/// in the graph, for navigation, but not workspace members.
#[test]
fn mainline_objtree() {
    let f = Fixture::new("mainline");
    let output = rust_project_gen::generate(&trees(&f)).unwrap();
    assert_eq!(output.problems, Vec::<String>::new());
    expect_file!["golden/mainline.json"].assert_eq(&f.normalise(&output.text(Features::ALL, None)));
}

/// The rust-analyzer of Rust 1.85, 7.3's minimum: no `sysroot_project` (the library crates
/// are ordinary crates, `core` for kernel crates and all four for host crates, and no
/// `sysroot_src`, which would load `std`'s whole workspace), no `crate_attrs`, and no
/// `flycheck` runnable even when one is asked for (it would not load the file).
#[test]
fn mainline_objtree_for_the_rust_analyzer_of_rust_1_85() {
    let f = Fixture::new("mainline");
    let output = rust_project_gen::generate(&trees(&f)).unwrap();
    let features = rust_analyzer::features("rust-analyzer 1.85.0 (4d91de4 2025-02-17)");
    let flycheck = Flycheck {
        program: f.objtree.join("kbuild-flycheck"),
        args: Vec::new(),
        cwd: f.objtree.clone(),
    };
    expect_file!["golden/mainline-rust-1.85.json"]
        .assert_eq(&f.normalise(&output.text(features, Some(&flycheck))));
}

/// Older still (before 2024-08): the `rustc_cfg` group inlined into each crate.
#[test]
fn demo_objtree_for_a_rust_analyzer_without_cfg_groups() {
    let f = Fixture::new("demo");
    let output = rust_project_gen::generate(&trees(&f)).unwrap();
    let text = f.normalise(&output.text(Features::NONE, None));
    assert!(
        !text.contains("cfg_groups")
            && !text.contains("crate_attrs")
            && !text.contains("sysroot_project")
    );
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let kernel =
        json["crates"].as_array().unwrap().iter().find(|c| c["display_name"] == "kernel").unwrap();
    let cfg: Vec<&str> =
        kernel["cfg"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    assert!(cfg.contains(&"CONFIG_KVM_GUEST"), "the rustc_cfg group is inlined: {cfg:?}");
}

#[test]
fn output_is_deterministic() {
    let f = Fixture::new("demo");
    let a = rust_project_gen::generate(&trees(&f)).unwrap().text(Features::ALL, None);
    let b = rust_project_gen::generate(&trees(&f)).unwrap().text(Features::ALL, None);
    assert_eq!(a, b);
}
