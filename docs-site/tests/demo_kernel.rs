//! The site of the demo tree that `make test` built: every crate kbuild built is documented,
//! no link is broken, the doctests ran in the booted kernel and their results are on the items,
//! and a rebuild with nothing changed reuses every crate.

mod common;

use std::path::Path;

use docs_site::linkcheck;
use docs_site::site::{MARKER, Manifest};

fn manifest(dir: &Path) -> Manifest {
    serde_json::from_str(&std::fs::read_to_string(dir.join(MARKER)).unwrap()).unwrap()
}

#[test]
fn every_crate_is_documented_and_no_link_is_broken() {
    let site = common::demo_site();
    assert!(site.build.status.success(), "the site build failed (see its output above)");
    let stdout = String::from_utf8_lossy(&site.build.stdout);
    assert_eq!(stdout.trim(), site.dir.join("index.html").display().to_string());
    let manifest = manifest(&site.dir);
    let mut names: Vec<&str> = manifest.crates.iter().map(|c| c.name.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "bindings",
            "build_error",
            "compiler_builtins",
            "ffi",
            "kernel",
            "macros",
            "rust_long_symbols",
            "rust_minimal",
            "rust_module_parameters",
            "rust_oops_long",
            "rust_oops_null",
            "rust_oops_panic",
            "rust_out_of_tree",
            "rust_print",
            "uapi"
        ]
    );
    assert!(manifest.crates.iter().all(|c| c.missing.is_none()));
    assert!(manifest.meta.core.starts_with("https://doc.rust-lang.org/1.95.0/"));
    for name in names {
        assert!(site.dir.join(name).join("index.html").is_file(), "{name} has no index.html");
    }
    // The search index covers every crate.
    let crates_js = std::fs::read_to_string(site.dir.join("crates.js")).unwrap();
    assert!(
        crates_js.contains("\"kernel\"") && crates_js.contains("\"rust_out_of_tree\""),
        "{crates_js}"
    );

    // The checker of `make test`: the whole site, every link.
    let mut report = linkcheck::check(&linkcheck::scan_site(&site.dir, 2).unwrap());
    linkcheck::set_aside_known(&mut report, linkcheck::KNOWN_UPSTREAM);
    assert!(report.broken.is_empty(), "{}", linkcheck::render(&report, 20));
    // The kernel's own mistake is still there (when a kernel fixes it, drop it from the list).
    assert_eq!(report.known.len(), 1, "{}", linkcheck::render(&report, 20));
    assert!(report.checked > 10_000, "{}", linkcheck::render(&report, 20));
}

#[test]
fn srctree_links_open_the_source_view_and_nothing_points_at_the_build_machine() {
    let site = common::demo_site();
    let page = std::fs::read_to_string(site.dir.join("kernel/rbtree/index.html")).unwrap();
    assert!(page.contains("href=\"../../srctree/include/linux/rbtree.h.html\""), "{page}");
    let header =
        std::fs::read_to_string(site.dir.join("srctree/include/linux/rbtree.h.html")).unwrap();
    assert!(header.contains("struct rb_node"));
    let tree = common::tree();
    let srctree = tree.srctree.display().to_string();
    for (page, _) in docs_site::html::html_files(&site.dir).unwrap() {
        let text = std::fs::read_to_string(&page).unwrap();
        assert!(
            !text.contains(&format!("href=\"{srctree}")),
            "{} links the build machine",
            page.display()
        );
    }
}

#[test]
fn the_doctests_ran_in_the_kernel_and_show_on_their_items() {
    let site = common::demo_site();
    let manifest = manifest(&site.dir);
    let summary = manifest.doctests.expect("the doctests ran");
    assert!(summary.ends_with("0 failed, 0 skipped"), "{summary}");
    let passed: usize = summary.split(' ').next().unwrap().parse().unwrap();
    assert!(passed > 50, "{summary}");
    let results = std::fs::read_to_string(site.dir.join("doctests.html")).unwrap();
    assert!(results.contains("rust_doctest_kernel_alloc_kvec_rs_0"));
    assert!(results.contains("ok 1 rust_doctest_kernel_"), "the KTAP lines are shown");
    // KVec's own example (rust/kernel/alloc/kvec.rs, above `pub type KVec`).
    let kvec = std::fs::read_to_string(site.dir.join("kernel/alloc/kvec/type.KVec.html")).unwrap();
    assert!(kvec.contains("✓ example passed in the kernel"), "no badge on KVec");
    // Every test found its item.
    assert!(!results.contains("(no item found)"), "a doctest was not placed");
}

#[test]
fn a_rebuild_with_nothing_changed_reuses_every_crate_and_the_doctest_run() {
    let site = common::demo_site();
    assert!(site.build.status.success());
    let tree = common::tree();
    let work = format!("{}.work", site.dir.display());
    let again = common::site_root().join("site-again");
    let extra = ["--work", work.as_str(), "--core-upstream", "--doctests"];
    let out = common::build_site(&tree, &tree.extmod, &again, &extra);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("  documented "), "a crate was documented again:\n{stderr}");
    let crates = manifest(&site.dir).crates.len();
    assert_eq!(stderr.matches(" is up to date").count(), crates, "{stderr}");
    assert!(stderr.contains("doctest results of this kernel image reused"), "{stderr}");
}
