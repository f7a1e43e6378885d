//! Bad input: a tree that is not built, a crate whose rustdoc fails, a site folder with stale
//! pages, a folder that is not a site of ours, and a port already in use for `serve`.

mod common;

use std::path::Path;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_tree_that_is_not_built_says_what_to_run() {
    let tree = common::tree();
    let objtree = tempfile::tempdir().unwrap();
    std::fs::copy(tree.objtree.join(".config"), objtree.path().join(".config")).unwrap();
    let out = common::docs_site(&[
        "build",
        "--srctree",
        tree.srctree.to_str().unwrap(),
        "--objtree",
        objtree.path().to_str().unwrap(),
        "--out",
        objtree.path().join("site").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("not built") || err.contains("make"), "{err}");
    assert!(!objtree.path().join("site").exists());
}

#[test]
fn a_folder_that_is_not_ours_is_left_alone() {
    let tree = common::tree();
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("mine");
    std::fs::create_dir(&out_dir).unwrap();
    std::fs::write(out_dir.join("notes.txt"), "mine").unwrap();
    let out = common::docs_site(&[
        "build",
        "--srctree",
        tree.srctree.to_str().unwrap(),
        "--objtree",
        tree.objtree.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is not a docs-site site"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(out_dir.join("notes.txt")).unwrap(), "mine");
}

/// An external module whose rustdoc fails: `rust_out_of_tree`'s own saved command, with its
/// crate root swapped for a file that does not compile.
fn broken_module(dir: &Path, extmod: &Path) {
    let cmd = find_cmd(extmod, "rust_out_of_tree.o.cmd").expect("rust_out_of_tree is built");
    let text = std::fs::read_to_string(&cmd).unwrap();
    let first = text.lines().next().unwrap();
    let root = first.split_whitespace().find(|w| w.ends_with("rust_out_of_tree.rs")).unwrap();
    let broken = dir.join("rust_broken.rs");
    std::fs::write(&broken, "//! Broken on purpose.\n#![no_std]\n/// Uses a type that does not exist.\npub fn f() -> NoSuchType { loop {} }\n").unwrap();
    let line = first
        .replace(root, broken.to_str().unwrap())
        .replace("--crate-name rust_out_of_tree", "--crate-name rust_broken")
        .replace("rust_out_of_tree.o :=", "rust_broken.o :=");
    std::fs::write(dir.join(".rust_broken.o.cmd"), format!("{line}\n")).unwrap();
}

fn find_cmd(dir: &Path, name: &str) -> Option<std::path::PathBuf> {
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if let Some(found) = find_cmd(&path, name) {
                return Some(found);
            }
        } else if path.file_name().is_some_and(|n| n.to_string_lossy() == format!(".{name}")) {
            return Some(path);
        }
    }
    None
}

#[test]
fn a_crate_whose_rustdoc_fails_is_reported_and_the_site_replaces_stale_pages() {
    let tree = common::tree();
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken");
    std::fs::create_dir(&broken).unwrap();
    broken_module(&broken, &tree.extmod);
    // A site from an older build, with a page that the new build does not make.
    let site = dir.path().join("site");
    std::fs::create_dir_all(site.join("kernel")).unwrap();
    std::fs::write(site.join(docs_site::site::MARKER), "{}").unwrap();
    std::fs::write(site.join("kernel/stale.html"), "<p>old</p>").unwrap();

    // The work directory of the demo site: the crates of the tree are reused (or documented for
    // the tests that follow), only rust_broken is new.
    let work = common::site_root().join("site.work");
    let extra = ["--work", work.to_str().unwrap(), "--core-upstream", "--check"];
    let out = common::build_site(&tree, &broken, &site, &extra);
    // Exit 1: the site is there, but a crate is missing from it.
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(err.contains("rust_broken is missing from the site"), "{err}");
    assert!(err.contains("NoSuchType"), "rustdoc's error is shown: {err}");
    assert!(err.contains(" 0 broken"), "the site's links are whole: {err}");
    let index = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(index.contains("could not be documented"), "{index}");
    assert!(index.contains("rust_broken"));
    let missing = std::fs::read_to_string(site.join("rust_broken/index.html")).unwrap();
    assert!(missing.contains("NoSuchType"));
    assert!(site.join("kernel/index.html").is_file(), "the other crates are there");
    assert!(!site.join("kernel/stale.html").exists(), "a stale page was kept");
}

#[test]
fn serve_on_a_port_in_use_says_so() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("index.html"), "<p>hi</p>").unwrap();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = common::docs_site(&["serve", dir.path().to_str().unwrap(), "--port", &port]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(&format!("cannot listen on 127.0.0.1:{port}")),
        "{}",
        stderr(&out)
    );
}

/// A folder with no page has no link to check: `check` fails saying so rather than reporting
/// 0 broken links.
#[test]
fn a_folder_with_no_page_is_no_site_to_check() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a page").unwrap();
    let out = common::docs_site(&["check", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let said =
        format!("docs-site: error: no HTML page under {}: no link to check", dir.path().display());
    assert!(stderr(&out).starts_with(&said), "{}", stderr(&out));
}
