//! The combined site of the two demo kernels (`docs-site versions`, `make docs-versions`): each
//! kernel's site built by `docs-site build` (`core` linked upstream, no doctest boot), then
//! combined with the porting lists of `demo-kernel/modules/*`. Its pages' links, those between
//! versions included, are all checked by `docs-site check`; in headless Chromium the switcher
//! takes a 6.12 page to the same item's 7.3 page, says so of an item 7.3 does not have, and
//! the changes page links an entry in both versions. Needs both demo trees built (`make kernel
//! KERNEL=6.12`, `make kernel KERNEL=7.3`).

mod common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde_json::json;

use common::chromium::{artefacts, chromium, open_page, serve};

/// The cache the demo trees are in: `RUST_KERNEL_TOOLS_CACHE` (the Makefile sets it), else
/// two folders above `KERNEL_SRC` (`<cache>/linux-6.12/srctree`).
fn cache() -> PathBuf {
    if let Some(dir) = std::env::var_os("RUST_KERNEL_TOOLS_CACHE") {
        return PathBuf::from(dir);
    }
    let src = PathBuf::from(std::env::var_os("KERNEL_SRC").expect(
        "KERNEL_SRC or RUST_KERNEL_TOOLS_CACHE is not set: run the tests with `make test`",
    ));
    src.parent().and_then(Path::parent).expect("KERNEL_SRC is <cache>/linux-V/srctree").to_owned()
}

/// The demo tree of `version` in the cache: srctree, objtree, extmod.
fn demo_tree(version: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = cache().join(format!("linux-{version}"));
    let objtree = dir.join("objtree");
    assert!(
        objtree.join("rust/libkernel.rmeta").is_file(),
        "{} is not built: run `make kernel KERNEL={version}`",
        objtree.display()
    );
    (dir.join("srctree"), objtree, dir.join("extmod"))
}

const VERSIONS: [&str; 2] = ["6.12", "7.3"];

struct Combined {
    dir: PathBuf,
    stdout: String,
    stderr: String,
}

/// Both sites and the combined one, built once.
fn combined() -> &'static Combined {
    static SITE: OnceLock<Combined> = OnceLock::new();
    SITE.get_or_init(|| {
        let root = common::site_root().join("versions");
        let mut version_args = Vec::new();
        for v in VERSIONS {
            let (srctree, objtree, extmod) = demo_tree(v);
            let site = root.join(format!("linux-{v}"));
            let out = common::docs_site(&[
                "build",
                "--srctree",
                srctree.to_str().unwrap(),
                "--objtree",
                objtree.to_str().unwrap(),
                "--extmod-dir",
                extmod.to_str().unwrap(),
                "--out",
                site.to_str().unwrap(),
                "--core-upstream",
            ]);
            assert!(out.status.success(), "docs-site build of {v} failed");
            version_args.push(format!(
                "{v}:{}:{}:{}",
                srctree.display(),
                objtree.display(),
                site.display()
            ));
        }
        let dir = root.join("combined");
        let modules = Path::new(env!("CARGO_MANIFEST_DIR")).join("../demo-kernel/modules");
        let mut args = vec!["versions".to_owned(), "--out".to_owned(), dir.display().to_string()];
        for v in &version_args {
            args.extend(["--version".to_owned(), v.clone()]);
        }
        for m in ["rust_out_of_tree", "rust_oops"] {
            args.extend(["--module".to_owned(), modules.join(m).display().to_string()]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = common::docs_site(&args);
        assert!(out.status.success(), "docs-site versions failed");
        Combined {
            dir,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    })
}

#[test]
fn the_combined_site_prints_its_index_counts_and_porting_lists() {
    let site = combined();
    assert_eq!(site.stdout.trim(), site.dir.join("index.html").display().to_string());
    for krate in ["kernel", "macros", "ffi", "bindings", "uapi"] {
        assert!(
            site.stderr.contains(&format!("docs-site: changes in {krate}: ")),
            "counts of {krate}"
        );
    }
    assert!(site.stderr.contains("docs-site: changes in pin_init: only in Linux 7.3"));
    assert!(site.stderr.contains("docs-site: porting rust_out_of_tree: "));
    let macros = std::fs::read_to_string(site.dir.join("changes/macros.html")).unwrap();
    assert!(macros.contains("key removed in 7.3: <code>author</code>"), "module!'s keys");
}

#[test]
fn no_link_of_the_combined_site_is_broken() {
    let site = combined();
    let out = common::docs_site(&["check", site.dir.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "broken links:\n{text}");
    assert!(text.contains(", 0 broken"), "{text}");
}

#[test]
fn the_switcher_and_the_changes_page_in_a_browser() {
    let site = combined();
    let (_server, index) = serve(&site.dir);
    let base = index.trim_end_matches("index.html").to_owned();
    let profile = tempfile::tempdir().unwrap();
    let (_browser, port) = chromium(profile.path());
    let mut page = open_page(port);
    let shots = artefacts();

    // The same item in the other version.
    page.goto(&format!("{base}6.12/kernel/sync/struct.Arc.html"));
    let state = page.wait_for(
        "(() => { const a = document.querySelector('#docs-versions a.version-link[data-version=\"7.3\"]'); return a && a.dataset.state; })()",
        "the switcher",
    );
    assert_eq!(state, json!("same"));
    page.screenshot(&shots.join("versions-1-arc-6.12.png"));
    let href = page
        .eval("document.querySelector('#docs-versions a.version-link[data-version=\"7.3\"]').href");
    assert_eq!(href, json!(format!("{base}7.3/kernel/sync/struct.Arc.html")));
    page.eval(
        "document.querySelector('#docs-versions a.version-link[data-version=\"7.3\"]').click(); true",
    );
    page.wait_for("location.pathname === '/7.3/kernel/sync/struct.Arc.html'", "7.3's Arc");
    let title = page.eval("document.title");
    assert!(title.as_str().unwrap().starts_with("Arc in kernel::sync"), "{title}");
    page.wait_for("document.querySelector('#docs-versions strong.current-version')", "switcher");
    assert_eq!(
        page.eval("document.querySelector('#docs-versions strong').textContent"),
        json!("7.3")
    );

    // An item 7.3 does not have: a note, and its closest page there.
    page.goto(&format!("{base}6.12/kernel/time/struct.Ktime.html"));
    let note = page.wait_for(
        "(() => { const n = document.querySelector('#docs-versions .version-missing'); return n && n.textContent; })()",
        "the note",
    );
    assert!(note.as_str().unwrap().starts_with("This page does not exist in Linux 7.3"), "{note}");
    let closest = page.eval("document.querySelector('#docs-versions .version-missing a').href");
    assert_eq!(closest, json!(format!("{base}7.3/kernel/time/index.html")));
    page.screenshot(&shots.join("versions-2-ktime-6.12.png"));

    // The changes page: an entry linked in both versions, each link to its item's page.
    page.goto(&format!("{base}changes/kernel.html"));
    let links = page.eval(
        "(() => { const row = [...document.querySelectorAll('#changed ~ table tr')].find(r => \
           r.querySelector('a[href^=\"../6.12/\"]') && r.querySelector('a[href^=\"../7.3/\"]')); \
           return row && [row.querySelector('a[href^=\"../6.12/\"]').href, row.querySelector('a[href^=\"../7.3/\"]').href]; })()",
    );
    let links = links.as_array().expect("a changed entry linked to both versions").clone();
    page.screenshot(&shots.join("versions-3-changes.png"));
    for (link, version) in links.iter().zip(VERSIONS) {
        let link = link.as_str().unwrap();
        assert!(link.starts_with(&format!("{base}{version}/kernel/")), "{link}");
        page.goto(link);
        let title = page.eval("document.title");
        assert!(title.as_str().unwrap().contains("kernel"), "{link}: {title}");
    }

    assert!(page.errors.is_empty(), "console errors: {:#?}", page.errors);
}

#[test]
fn a_version_without_its_site_says_what_to_run() {
    let (srctree, objtree, _) = demo_tree("6.12");
    let missing = tempfile::tempdir().unwrap();
    let site = missing.path().join("site");
    let out = missing.path().join("combined");
    let version =
        |v: &str| format!("{v}:{}:{}:{}", srctree.display(), objtree.display(), site.display());
    let out = common::docs_site(&[
        "versions",
        "--version",
        &version("6.12"),
        "--version",
        &version("7.3"),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the documentation of Linux 6.12 is not at")
            && stderr.contains("run `make docs KERNEL=6.12`"),
        "{stderr}"
    );
}
