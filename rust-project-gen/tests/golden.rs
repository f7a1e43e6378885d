//! The generator on a fixture objtree made of real `.cmd` lines of the demo kernel, against a
//! golden file. Update with `UPDATE_EXPECT=1 cargo test -p rust-project-gen --test golden`.

mod common;

use expect_test::expect_file;
use rust_project_gen::Trees;
use rust_project_gen::rust_analyzer::Features;

use common::Fixture;

fn trees(f: &Fixture) -> Trees {
    Trees {
        srctree: f.srctree.clone(),
        objtree: f.objtree.clone(),
        sysroot: f.sysroot.clone(),
        sysroot_src: f.sysroot_src.clone(),
        exttree: None,
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

#[test]
fn demo_objtree_for_an_older_rust_analyzer() {
    let f = Fixture::new("demo");
    let output = rust_project_gen::generate(&trees(&f)).unwrap();
    let old = Features { cfg_groups: false, crate_attrs: false, sysroot_project: false };
    let text = f.normalise(&output.text(old, None));
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
