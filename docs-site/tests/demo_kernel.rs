//! The site of the demo tree that `make test` built: every crate kbuild built is documented,
//! no link is broken, the doctests ran in the booted kernel and their results are on the items,
//! and a rebuild with nothing changed reuses every crate.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use docs_site::linkcheck;
use docs_site::site::{MARKER, Manifest};

fn manifest(dir: &Path) -> Manifest {
    serde_json::from_str(&std::fs::read_to_string(dir.join(MARKER)).unwrap()).unwrap()
}

/// The crates kbuild built in the tree and its out-of-tree modules that the site documents:
/// every library, proc-macro and module (host libraries such as 7.3's `syn` included), not
/// host programs, the generated doctests nor `core` (linked upstream in these tests).
fn built_crates(tree: &common::Tree) -> Vec<String> {
    let mut names = BTreeSet::new();
    for dir in [&tree.objtree, &tree.extmod] {
        for build in kbuild::scan_rust_builds(dir).unwrap().builds {
            let inv = build.invocation;
            let left_out = ["core", "doctests_kernel_generated"].contains(&inv.crate_name.as_str());
            if inv.crate_type != "bin" && !left_out {
                names.insert(inv.crate_name);
            }
        }
    }
    names.into_iter().collect()
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
    let tree = common::tree();
    assert_eq!(names, built_crates(&tree), "kernel {}", tree.kernel);
    // The README counts `core` too, which this site links to doc.rust-lang.org instead.
    tidy::readme::check_stated("docs-site", "{} crates", names.len() as u64 + 1);
    for name in ["bindings", "kernel", "macros", "rust_minimal", "rust_out_of_tree", "uapi"] {
        assert!(names.contains(&name), "{name} is missing from {names:?}");
    }
    assert!(manifest.crates.iter().all(|c| c.missing.is_none()));
    // `macros` is a proc-macro, built for the host; `kernel` is built for the kernel.
    let kind_of =
        |name: &str| manifest.crates.iter().find(|c| c.name == name).unwrap().kind.clone();
    assert_eq!((kind_of("macros").as_str(), kind_of("kernel").as_str()), ("host", "kernel"));
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
    // The kernel's own mistakes are all still there (when a kernel fixes one, its entry goes),
    // on the pages this tree's configuration documents: `core`'s aside (it is not on this
    // site), and a driver's or a subsystem's where the tree does not build it.
    let known: BTreeSet<(&str, &str)> =
        report.known.iter().map(|(b, _)| (b.page.as_str(), b.link.as_str())).collect();
    let documented = |page: &str| !page.starts_with("core/") && site.dir.join(page).is_file();
    let expected: BTreeSet<(&str, &str)> = linkcheck::KNOWN_UPSTREAM
        .iter()
        .filter(|k| k.kernels.contains(&tree.kernel.as_str()) && documented(k.page))
        .map(|k| (k.page, k.link))
        .collect();
    assert_eq!(known, expected, "{}", linkcheck::render(&report, 20));
    assert!(report.checked > 10_000, "{}", linkcheck::render(&report, 20));
    // The manifest keeps the check of the site as built, for `--check` on a site that is up to
    // date: it agrees with this full scan.
    let kept = manifest.links.as_ref().expect("the manifest keeps the link check");
    assert_eq!(
        (kept.pages, kept.checked, kept.external, &kept.broken, kept.known.len()),
        (report.pages, report.checked, report.external, &report.broken, report.known.len())
    );
    // The links rustdoc wrote to items their crates do not document are text now, each listed.
    let listed = std::fs::read_to_string(site.dir.join(docs_site::mend::PAGE)).unwrap_or_default();
    assert!(listed.contains(&format!("<h1>{} links", manifest.unlinked.len())), "{listed}");
    let build_err = String::from_utf8_lossy(&site.build.stderr);
    assert!(
        build_err.contains(&format!(
            "{} links to items their crates do not document",
            manifest.unlinked.len()
        )),
        "{build_err}"
    );
    tidy::readme::check_stated("docs-site", "{} links made text", manifest.unlinked.len() as u64);
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
    let tree = common::tree();
    let manifest = manifest(&site.dir);
    let summary = manifest.doctests.expect("the doctests ran");
    assert!(summary.ends_with(", 0 skipped"), "{summary}");
    assert!(!summary.contains("INCOMPLETE"), "{summary}");
    let passed: usize = summary.split(' ').next().unwrap().parse().unwrap();
    assert!(passed > 50, "{summary}");
    let results = std::fs::read_to_string(site.dir.join("doctests.html")).unwrap();
    // Each row: the test, its result, `file:line`, its item, its KTAP.
    let text_of = |cell: &str| {
        let mut text = String::new();
        let mut in_tag = false;
        for c in cell.chars() {
            match c {
                '<' => in_tag = true,
                '>' => in_tag = false,
                c if !in_tag => text.push(c),
                _ => {}
            }
        }
        text
    };
    let rows: Vec<Vec<String>> = results
        .split("<tr id=\"")
        .skip(1)
        .map(|row| {
            let row = row.split_once('>').unwrap().1.split("</tr>").next().unwrap();
            row.split("</td>").map(text_of).collect()
        })
        .collect();
    // Every doctest passes on a demo tree: 7.3's `rust_doctest_kernel_task_rs_1` crashed the
    // kernel without the series' fix of `struct sched_statistics`' alignment, and a lost fix must
    // fail here. How a crash is reported is the unit tests' (`doctests/tests.rs`), on the crash
    // as captured.
    let failed: Vec<&Vec<String>> = rows.iter().filter(|row| row[1] != "passed").collect();
    assert!(failed.is_empty(), "doctests failed: {failed:?}\n{summary}");
    assert!(summary.starts_with(&format!("{passed} passed, 0 failed")), "{summary}");
    assert_eq!(passed, rows.len(), "{summary}");
    tidy::readme::check_stated("docs-site", "{} doctests pass", passed as u64);
    assert!(results.contains("rust_doctest_kernel_alloc_kvec_rs_0"));
    assert!(results.contains("ok 1 rust_doctest_kernel_"), "the KTAP lines are shown");
    // KVec's own example (rust/kernel/alloc/kvec.rs, above `pub type KVec`).
    let kvec = std::fs::read_to_string(site.dir.join("kernel/alloc/kvec/type.KVec.html")).unwrap();
    assert!(kvec.contains("✓ example passed in the kernel"), "no badge on KVec");
    // Every test found its item, but for an example whose line is past its file's end
    // (7.3's `sizes.rs:142`, of 134 lines, which a macro writes).
    let past_the_end = |location: &str| {
        let (file, line) = location.rsplit_once(':').unwrap();
        let text = std::fs::read_to_string(tree.srctree.join(file)).unwrap();
        line.parse::<usize>().unwrap() > text.lines().count()
    };
    let misplaced: Vec<&str> = rows
        .iter()
        .filter(|row| row[3] == "(no item found)" && !past_the_end(&row[2]))
        .map(|row| row[0].as_str())
        .collect();
    assert!(misplaced.is_empty(), "doctests not placed: {misplaced:?}");
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
    let fresh = stderr.lines().filter(|l| l.starts_with("  ") && l.ends_with(" is up to date"));
    assert_eq!(fresh.count(), crates, "{stderr}");
    assert!(stderr.contains("doctest results of this kernel image reused"), "{stderr}");

    // Built again in place with nothing changed, the site is kept, and `--check` gives the
    // check kept in its manifest instead of reading every page again.
    let checked = [extra.as_slice(), &["--check"]].concat();
    let out = common::build_site(&tree, &tree.extmod, &again, &checked);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("the site is up to date"), "{stderr}");
    let kept = manifest(&again).links.expect("the manifest keeps the link check");
    let line = linkcheck::render(&kept, 10);
    assert!(stderr.contains(line.lines().next().unwrap()), "{stderr}");
}
