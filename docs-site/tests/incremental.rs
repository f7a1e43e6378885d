//! Rebuilds document only the crates whose inputs changed: a copy of the out-of-tree module
//! (its saved command with the crate root moved to a file of the test) is edited between
//! builds, and only it is documented again. Uses the demo site's work directory, so the tree's
//! own crates are reused from the tests before (test binaries run one after another).

mod common;

use std::path::Path;

/// `rust_out_of_tree`'s saved command, for a copy of its source named `rust_copy` in `dir`.
fn copied_module(dir: &Path, tree: &common::Tree) -> std::path::PathBuf {
    let cmd = tree.extmod.join("rust_out_of_tree/.rust_out_of_tree.o.cmd");
    let text = std::fs::read_to_string(&cmd).expect("rust_out_of_tree is built (make kernel)");
    let first = text.lines().next().unwrap();
    let root = first.split_whitespace().find(|w| w.ends_with("rust_out_of_tree.rs")).unwrap();
    // Absolute before 6.13; since, relative to the module's folder, where kbuild ran rustc.
    let saved = kbuild::parse_cmd_file(first).unwrap();
    let build = kbuild::RustBuild {
        cmd_file: cmd.clone(),
        target: saved.target,
        invocation: kbuild::find_rustc(&saved.command).unwrap().unwrap(),
    };
    let source = dir.join("rust_copy.rs");
    std::fs::copy(build.working_dir(&tree.objtree).join(root), &source).unwrap();
    let line = first
        .replace(root, source.to_str().unwrap())
        .replace("--crate-name rust_out_of_tree", "--crate-name rust_copy")
        .replace("rust_out_of_tree.o :=", "rust_copy.o :=");
    std::fs::write(dir.join(".rust_copy.o.cmd"), format!("{line}\n")).unwrap();
    source
}

fn build(tree: &common::Tree, extmod: &Path, out: &Path) -> String {
    let work = common::site_root().join("site.work");
    let output = common::build_site(
        tree,
        extmod,
        out,
        &["--work", work.to_str().unwrap(), "--core-upstream"],
    );
    assert!(output.status.success());
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[test]
fn only_the_crate_whose_source_changed_is_documented_again() {
    let tree = common::tree();
    let dir = tempfile::tempdir().unwrap();
    let extmod = dir.path().join("extmod");
    std::fs::create_dir(&extmod).unwrap();
    let source = copied_module(&extmod, &tree);
    let out = dir.path().join("site");

    let first = build(&tree, &extmod, &out);
    assert!(first.contains("documented rust_copy"), "{first}");

    let again = build(&tree, &extmod, &out);
    assert!(!again.contains("  documented "), "{again}");
    assert!(again.contains("the site is up to date"), "{again}");

    let mut text = std::fs::read_to_string(&source).unwrap();
    text.push_str("\n/// Added by the test.\npub fn added_by_the_test() {}\n");
    std::fs::write(&source, text).unwrap();
    let edited = build(&tree, &extmod, &out);
    assert_eq!(edited.matches("  documented ").count(), 1, "{edited}");
    assert!(edited.contains("documented rust_copy"), "{edited}");
    assert!(out.join("rust_copy/fn.added_by_the_test.html").is_file());
}
