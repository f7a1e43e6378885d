//! Tests of the link checker, on small made-up sites.

use expect_test::{Expect, expect};

use super::*;

fn check_site(pages: &[(&str, &str)], other_files: &[&str], expect: Expect) {
    let mut site = Site::default();
    for (path, html) in pages {
        site.pages.insert((*path).to_owned(), scan_page(html));
        site.files.insert((*path).to_owned());
    }
    site.files.extend(other_files.iter().map(|f| (*f).to_owned()));
    expect.assert_eq(&render(&check(&site), 10));
}

#[test]
fn good_links_of_every_kind() {
    check_site(
        &[
            (
                "index.html",
                r#"<a href="kernel/index.html">k</a><a href="kernel/">dir</a><a href="https://doc.rust-lang.org/">up</a><a href="mailto:x@y">m</a>"#,
            ),
            (
                "kernel/index.html",
                r##"<a href="../index.html">root</a><a href="#top" id="top">t</a><a href="../src/kernel/lib.rs.html#3-9">src</a><img src="../static.files/logo.svg"><a href="struct.A.html?search=KVec#impl">s</a>"##,
            ),
            (
                "kernel/struct.A.html",
                r##"<div id="impl"></div><a href="#impl-From%3CT%3E-for-T" id="impl-From%3CT%3E-for-T">e</a><a href="#x%20y"></a><div id="x y"></div>"##,
            ),
            ("src/kernel/lib.rs.html", r##"<a href=#3 id=3>3</a>"##),
        ],
        &["static.files/logo.svg"],
        expect![[r#"
            4 pages, 10 links checked, 1 to other sites (not followed), 0 broken
        "#]],
    );
}

#[test]
fn broken_links_by_reason() {
    check_site(
        &[
            (
                "index.html",
                r#"<a href="missing.html">m</a><a href="../outside.html">o</a><a href="/home/u/linux/include/linux/slab.h">abs</a><a href="file:///x">f</a>"#,
            ),
            (
                "kernel/index.html",
                r##"<a href="../index.html#nope">a</a><a href="srctree/include/linux/slab.h">raw srctree</a>"##,
            ),
        ],
        &[],
        expect![[r#"
            2 pages, 6 links checked, 0 to other sites (not followed), 6 broken
              file missing: 2
                index.html -> missing.html
                kernel/index.html -> srctree/include/linux/slab.h
              anchor missing: 1
                kernel/index.html -> ../index.html#nope
              leads outside the site: 1
                index.html -> ../outside.html
              absolute path of the build machine: 2
                index.html -> /home/u/linux/include/linux/slab.h
                index.html -> file:///x
        "#]],
    );
}

#[test]
fn a_report_kept_up_to_date_page_by_page_equals_a_new_one() {
    // The site's build checks once, then adds, changes and unlinks pages: the report it ends
    // with must be the one a check of the final site gives.
    let page = |html: &str| scan_page(html);
    let mut site = Site::default();
    site.pages.insert(
        "kernel/a.html".into(),
        page(r##"<a href="b.html">b</a><a class="trait" href="../z/hidden.html">h</a><a href="../index.html#x">i</a>"##),
    );
    site.pages
        .insert("kernel/b.html".into(), page(r##"<div id="m"></div><a href="a.html">a</a>"##));
    site.pages.insert("index.html".into(), page(r##"<a href="kernel/a.html">k</a>"##));
    site.files.extend(site.pages.keys().cloned());
    let mut report = check(&site);
    assert_eq!(report.broken.len(), 2, "{:?}", report.broken);
    // The hidden item's link made text.
    site.pages.insert(
        "kernel/a.html".into(),
        page(r##"<a href="b.html">b</a><span class="trait">h</span><a href="../index.html#x">i</a>"##),
    );
    assert!(report.forget_broken("kernel/a.html", "../z/hidden.html"));
    assert!(!report.forget_broken("kernel/a.html", "../z/hidden.html"));
    // A new page, and the landing page written again with an anchor and a link to it.
    report.update_page(&mut site, "list.html", page(r##"<a href="kernel/b.html#m">m</a>"##));
    report.update_page(
        &mut site,
        "index.html",
        page(r##"<p id="x"></p><a href="list.html">l</a>"##),
    );
    let fresh = check(&site);
    let shown = |r: &Report| format!("{} {} {} {:?}", r.pages, r.checked, r.external, r.broken);
    assert_eq!(shown(&report), shown(&fresh));
    assert_eq!(fresh.broken, []);
    // A page that loses an anchor: links of any page into it may break.
    report.update_page(&mut site, "kernel/b.html", page(r##"<a href="a.html">a</a>"##));
    assert_eq!(shown(&report), shown(&check(&site)));
    assert_eq!(report.broken.len(), 1, "{:?}", report.broken);
}

/// Escapes are two hex digits: `%+1` and `%zz` stay as written (the hand-written decoder this
/// replaced read `%+1` as byte 1), and invalid UTF-8 becomes U+FFFD rather than an error.
#[test]
fn percent_escapes_decode_as_urls_write_them() {
    assert_eq!(percent_decode("struct.Foo.html%23impl-Send"), "struct.Foo.html#impl-Send");
    assert_eq!(percent_decode("a%20b%zz%+1%"), "a b%zz%+1%");
    assert_eq!(percent_decode("%FF"), "\u{FFFD}");
}

#[test]
fn a_page_that_is_a_file_scanned_before_is_not_read_again() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let (work, site) = (dir.path().join("work"), dir.path().join("site"));
    std::fs::create_dir_all(work.join("kernel")).unwrap();
    std::fs::create_dir_all(site.join("kernel")).unwrap();
    let page = work.join("kernel/index.html");
    std::fs::write(&page, r#"<a href="struct.Task.html">Task</a>"#).unwrap();
    std::fs::hard_link(&page, site.join("kernel/index.html")).unwrap();
    std::fs::write(site.join("index.html"), r#"<a href="kernel/index.html">kernel</a>"#).unwrap();

    let meta = std::fs::metadata(&page).unwrap();
    // What a scan of the crate's page found before: not what the page says now, so that the
    // site shows which was taken.
    let before = PageLinks { links: vec!["struct.Kept.html".into()], ..PageLinks::default() };
    let known = HashMap::from([((meta.dev(), meta.ino()), before.clone())]);
    let (scanned, ids) = scan_site_reusing(&site, 2, &known).unwrap();
    assert_eq!(scanned.pages["kernel/index.html"], before, "taken from what was known");
    assert_eq!(scanned.pages["index.html"].links, ["kernel/index.html"], "read");
    assert_eq!(ids["kernel/index.html"], (meta.dev(), meta.ino()));

    // A page replaced by another file (as mending does) is read again.
    std::fs::remove_file(site.join("kernel/index.html")).unwrap();
    std::fs::copy(&page, site.join("kernel/index.html")).unwrap();
    let (scanned, _) = scan_site_reusing(&site, 2, &known).unwrap();
    assert_eq!(scanned.pages["kernel/index.html"].links, ["struct.Task.html"]);
    assert_eq!(scanned.pages, scan_site(&site, 1).unwrap().pages);
}

/// Checked by several threads, each taking the next block of pages, a site gets the report one
/// thread gives: the same counts and the same broken links in the same order.
#[test]
fn a_check_in_parallel_equals_one_in_one_thread() {
    let mut site = Site::default();
    for i in 0..2000 {
        // Every seventh page links to a page that is not there, every fifth to a missing
        // anchor, and every page to its neighbour's anchor and an external site.
        let html = format!(
            r##"<p id="p{i}"></p><a href="page{next}.html#p{next}">n</a><a href="https://kernel.org/">k</a>{missing}{anchor}"##,
            next = (i + 1) % 2000,
            missing =
                if i % 7 == 0 { format!(r#"<a href="gone{i}.html">g</a>"#) } else { String::new() },
            anchor = if i % 5 == 0 { r##"<a href="page0.html#nowhere">a</a>"## } else { "" },
        );
        site.pages.insert(format!("page{i}.html"), scan_page(&html));
    }
    site.files.extend(site.pages.keys().cloned());
    let one = check(&site);
    assert_eq!((one.pages, one.external), (2000, 2000));
    assert_eq!(one.broken.len(), 286 + 400, "{} broken", one.broken.len());
    let shown = |r: &Report| format!("{} {} {} {:?}", r.pages, r.checked, r.external, r.broken);
    for threads in [2, 3, 16] {
        assert_eq!(shown(&check_in_parallel(&site, threads)), shown(&one), "{threads} threads");
    }
}

/// The identities read from the folders' entries are the ones `stat` gives; a symbolic link
/// counts as what it leads to, and a file's hard links share one identity.
#[test]
fn files_are_known_by_the_identity_stat_gives() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let (root, elsewhere) = (dir.path().join("site"), dir.path().join("elsewhere"));
    std::fs::create_dir_all(root.join("kernel/sync")).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(root.join("index.html"), "i").unwrap();
    std::fs::write(root.join("kernel/sync/struct.Arc.html"), "a").unwrap();
    std::fs::hard_link(root.join("index.html"), root.join("kernel/index.html")).unwrap();
    std::fs::write(elsewhere.join("logo.svg"), "l").unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.join("static.files")).unwrap();
    std::os::unix::fs::symlink(root.join("index.html"), root.join("all.html")).unwrap();

    let mut found = files_with_ids(&root).unwrap();
    found.sort();
    let paths: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        [
            "all.html",
            "index.html",
            "kernel/index.html",
            "kernel/sync/struct.Arc.html",
            "static.files/logo.svg"
        ]
    );
    for (path, id) in &found {
        let meta = std::fs::metadata(root.join(path)).unwrap();
        assert_eq!(*id, (meta.dev(), meta.ino()), "{path}");
    }
    assert_eq!(found[0].1, found[1].1, "a link is its target");
    assert_eq!(found[1].1, found[2].1, "hard links are one file");
}

/// A kept report is classified anew against the list at hand: a link set aside under an older
/// list that this one does not have counts as broken again, and one it lists is set aside.
#[test]
fn known_mistakes_are_set_aside_again_by_the_list_at_hand() {
    let broken = |page: &str, link: &str| Broken {
        page: page.into(),
        link: link.into(),
        reason: Reason::MissingFile,
    };
    let known =
        |page: &'static str, link: &'static str| Known { page, link, why: "why", kernels: &[] };
    let mut report =
        Report { broken: vec![broken("a.html", "x"), broken("b.html", "y")], ..Report::default() };
    set_aside_known(&mut report, &[known("a.html", "x")]);
    assert_eq!(report.broken, [broken("b.html", "y")]);
    set_aside_known(&mut report, &[known("b.html", "y")]);
    assert_eq!(report.broken, [broken("a.html", "x")]);
    assert_eq!(report.known, [(broken("b.html", "y"), "why".to_owned())]);
}
