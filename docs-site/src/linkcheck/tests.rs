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
