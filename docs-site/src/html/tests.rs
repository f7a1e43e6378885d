//! Tests of the page rewriting and the tag scanner.

use expect_test::{Expect, expect};

use super::*;

fn check_rewrite(html: &str, depth: usize, links: SrctreeLinks, expect: Expect) {
    let mut targets = BTreeSet::new();
    let is_dir = |p: &str| p.ends_with("kernel") || p.ends_with('/');
    let out = rewrite_page(html, depth, &links, &is_dir, &mut targets);
    expect.assert_eq(&format!("{}\ntargets: {targets:?}", out.as_deref().unwrap_or("(unchanged)")));
}

#[test]
fn srctree_links_lead_to_the_source_view_relative_to_the_page() {
    check_rewrite(
        r##"C header: <a href="srctree/include/linux/slab.h">x</a> <a href="srctree/rust/kernel">dir</a> <a href="srctree/include/linux/err.h#L10">l</a>"##,
        2,
        SrctreeLinks::SourceView,
        expect![[r#"
            C header: <a href="../../srctree/include/linux/slab.h.html">x</a> <a href="../../srctree/rust/kernel/index.html">dir</a> <a href="../../srctree/include/linux/err.h.html#L10">l</a>
            targets: {"include/linux/err.h", "include/linux/slab.h", "rust/kernel/"}"#]],
    );
}

#[test]
fn srctree_links_with_a_base_url() {
    check_rewrite(
        r#"<a href="srctree/include/linux/slab.h">x</a>"#,
        1,
        SrctreeLinks::BaseUrl("https://git.example/linux/tree/".to_owned()),
        expect![[r#"
            <a href="https://git.example/linux/tree/include/linux/slab.h">x</a>
            targets: {}"#]],
    );
}

#[test]
fn the_kernel_logo_replaces_rusts() {
    check_rewrite(
        r#"<link rel="icon" href="../static.files/favicon-044be391.svg"><link rel="alternate icon" type="image/png" href="../static.files/favicon-32x32-eab170b8.png"><img class="rust-logo" src="../static.files/rust-logo-9a9549ea.svg" alt="">"#,
        1,
        SrctreeLinks::SourceView,
        expect![[r#"
            <link rel="icon" href="../static.files/logo.svg"><img class="rust-logo" src="../static.files/logo.svg" alt="">
            targets: {}"#]],
    );
}

#[test]
fn a_page_without_anything_to_rewrite_is_unchanged() {
    check_rewrite(
        "<p>plain</p>",
        0,
        SrctreeLinks::SourceView,
        expect![[r#"
        (unchanged)
        targets: {}"#]],
    );
}

fn check_scan(html: &str, expect: Expect) {
    let page = scan_page(html);
    expect.assert_eq(&format!("links: {:?}\nids: {:?}", page.links, page.ids));
}

#[test]
fn scan_finds_links_and_anchors_quoted_or_not() {
    check_scan(
        r##"<a href=#1 id=1 data-nosnippet>1</a><section id="method.push" class="method"><a class="src rightside" href="../src/kernel/alloc/kvec.rs.html#10-20">Source</a>
<img src='../static.files/logo.svg'><a href="a.html?search=x&amp;y">q</a><link rel="stylesheet" href="../x.css">"##,
        expect![[r##"
            links: ["#1", "../src/kernel/alloc/kvec.rs.html#10-20", "../static.files/logo.svg", "a.html?search=x&y", "../x.css"]
            ids: ["1", "method.push"]"##]],
    );
}

#[test]
fn scan_skips_scripts_and_comments() {
    check_scan(
        r#"<!-- <a href="no.html"> --><script>var s = '<a href="no2.html">';</script><a href="yes.html">"#,
        expect![[r#"
            links: ["yes.html"]
            ids: []"#]],
    );
}

#[test]
fn scan_reads_the_tags_inside_noscript() {
    check_scan(
        r#"<noscript><link rel="stylesheet" href="../static.files/noscript-f7c3ffd8.css"></noscript><a id="x" href="b.html">"#,
        expect![[r#"
            links: ["../static.files/noscript-f7c3ffd8.css", "b.html"]
            ids: ["x"]"#]],
    );
}

#[test]
fn scan_goes_on_past_an_ambiguous_parse() {
    check_scan(
        r#"<select><xmp>x</xmp></select><a href="after.html">"#,
        expect![[r#"
            links: ["after.html"]
            ids: []"#]],
    );
}

#[test]
fn links_into_the_rust_project_docs_go_upstream_unless_the_site_has_them() {
    let upstream = UpstreamDocs {
        base: "https://doc.rust-lang.org/1.95.0/".to_owned(),
        local: vec!["core".to_owned(), "kernel".to_owned()],
    };
    let html = r##"<a href="../../book/ch17-02-trait-objects.html">b</a><a href="../../alloc/alloc/fn.handle_alloc_error.html#x">a</a><a href="../../core/option/enum.Option.html">c</a><a href="struct.Layout.html">l</a><a href="#f">f</a><a href="https://x/">x</a>"##;
    expect![[r##"<a href="https://doc.rust-lang.org/1.95.0/book/ch17-02-trait-objects.html">b</a><a href="https://doc.rust-lang.org/1.95.0/alloc/alloc/fn.handle_alloc_error.html#x">a</a><a href="../../core/option/enum.Option.html">c</a><a href="struct.Layout.html">l</a><a href="#f">f</a><a href="https://x/">x</a>"##]]
        .assert_eq(&rewrite_upstream_links(html, "core/alloc", &upstream).unwrap());
    assert_eq!(
        rewrite_upstream_links("<a href=\"../kernel/index.html\">k</a>", "core", &upstream),
        None
    );
}

#[test]
fn source_page_links_to_foreign_types_are_mended_or_unlinked() {
    let html = r##"<a href="../../core/ptr/foreigntype.mut_ptr.html#method.cast">cast</a>(); <a href="../../core/foreigntype.slice.html#method.len">len</a>; <a href="../../core/foreigntype.num.html#associatedconstant.MAX">MAX</a> <a href="struct.A.html">A</a>"##;
    let mut unlinked = Vec::new();
    expect![[r##"<a href="../../core/primitive.pointer.html#method.cast">cast</a>(); <a href="../../core/primitive.slice.html#method.len">len</a>; MAX <a href="struct.A.html">A</a>"##]]
        .assert_eq(&mend_foreign_type_links(html, &mut unlinked).unwrap());
    expect![[r#"["../../core/foreigntype.num.html#associatedconstant.MAX"]"#]]
        .assert_eq(&format!("{unlinked:?}"));
    assert_eq!(mend_foreign_type_links("<a href=\"x.html\">x</a>", &mut unlinked), None);
}

#[test]
fn source_page_links_to_a_variant_page_lead_to_its_enum() {
    // Captured from `src/syn/attr.rs.html` of the 7.3 site (`syn` is a host crate).
    let html = r#"<a class="prelude-val" href="../../core/option/Option/variant.Some.html">Some</a> <a href="../../core/result/Result/variant.Err.html#x">Err</a> <a href="enum.E.html#variant.A">A</a> <a href="https://x/Option/variant.Some.html">up</a>"#;
    expect![[r#"<a class="prelude-val" href="../../core/option/enum.Option.html#variant.Some">Some</a> <a href="../../core/result/enum.Result.html#variant.Err">Err</a> <a href="enum.E.html#variant.A">A</a> <a href="https://x/Option/variant.Some.html">up</a>"#]]
        .assert_eq(&mend_variant_links(html).unwrap());
    assert_eq!(mend_variant_links(r#"<a href="enum.E.html#variant.A">A</a>"#), None);
}

#[test]
fn every_page_loads_its_sites_versions_script_once() {
    let page = "<html><head><title>x</title></head><body></body></html>";
    let tagged = add_versions_tag(page, 2).unwrap();
    assert_eq!(
        tagged,
        "<html><head><title>x</title><script defer src=\"../../versions.js\"></script></head><body></body></html>"
    );
    assert_eq!(add_versions_tag(&tagged, 2), None, "added once");
    assert_eq!(add_versions_tag("<p>no head</p>", 0), None);
}
