//! Tests of the links made text, on snippets of the 7.3 site's pages.

use expect_test::{Expect, expect};

use super::*;

fn links(links: &[&str]) -> BTreeSet<String> {
    links.iter().map(|l| (*l).to_owned()).collect()
}

fn check_unlink(html: &str, broken: &[&str], is_source_page: bool, expect: Expect) {
    let out = match unlink(html, &links(broken), is_source_page) {
        Some((html, removed)) => format!("{html}\nremoved: {removed:?}"),
        None => "(unchanged)".to_owned(),
    };
    expect.assert_eq(&out);
}

#[test]
fn a_signature_link_to_a_hidden_item_becomes_text_with_its_class() {
    // `kernel/acpi/struct.DeviceId.html`: zerocopy's `pointer` module is `#[doc(hidden)]`.
    check_unlink(
        r#"impl&lt;ST, DT&gt; <a class="trait" href="../../zerocopy/pointer/invariant/trait.CastableFrom.html" title="trait zerocopy::pointer::invariant::CastableFrom">CastableFrom</a>&lt;ST, <a class="enum" href="../../zerocopy/pointer/invariant/enum.Uninit.html" title="enum zerocopy::pointer::invariant::Uninit">Uninit</a>&gt; for <a class="struct" href="struct.DeviceId.html">DeviceId</a>"#,
        &["../../zerocopy/pointer/invariant/trait.CastableFrom.html"],
        false,
        expect![[r#"
            impl&lt;ST, DT&gt; <span class="trait unlinked" title="trait zerocopy::pointer::invariant::CastableFrom: not documented by its crate">CastableFrom</span>&lt;ST, <a class="enum" href="../../zerocopy/pointer/invariant/enum.Uninit.html" title="enum zerocopy::pointer::invariant::Uninit">Uninit</a>&gt; for <a class="struct" href="struct.DeviceId.html">DeviceId</a>
            removed: ["../../zerocopy/pointer/invariant/trait.CastableFrom.html"]"#]],
    );
}

#[test]
fn a_hidden_trait_methods_anchor_becomes_text() {
    // `kernel/debugfs/struct.File.html`: `HasPinData::__pin_data` is hidden in pin_init.
    check_unlink(
        r##"<a href="#method.__pin_data" class="anchor">§</a><h4 class="code-header">unsafe fn <a href="#tymethod.__pin_data" class="fn">__pin_data</a>() -&gt; Self::PinData</h4>"##,
        &["#tymethod.__pin_data"],
        false,
        expect![[r##"
            <a href="#method.__pin_data" class="anchor">§</a><h4 class="code-header">unsafe fn <span class="fn unlinked" title="not documented by its crate">__pin_data</span>() -&gt; Self::PinData</h4>
            removed: ["#tymethod.__pin_data"]"##]],
    );
}

#[test]
fn every_link_of_a_source_page_but_no_doc_comment_link_elsewhere() {
    // `src/syn/spanned.rs.html`: `quote::spanned` is hidden; source links have no class.
    let html = r#"<span class="kw">use </span><a href="../../quote/spanned/trait.Spanned.html">quote::spanned::Spanned</a>;"#;
    check_unlink(
        html,
        &["../../quote/spanned/trait.Spanned.html"],
        true,
        expect![[r#"
            <span class="kw">use </span><span class="unlinked" title="not documented by its crate">quote::spanned::Spanned</span>;
            removed: ["../../quote/spanned/trait.Spanned.html"]"#]],
    );
    // The same link written in a doc comment is the author's: it stays, and stays broken.
    check_unlink(html, &["../../quote/spanned/trait.Spanned.html"], false, expect!["(unchanged)"]);
}

#[test]
fn candidates_are_missing_pages_and_anchors_of_documented_crates() {
    let broken =
        |page: &str, link: &str, reason| Broken { page: page.into(), link: link.into(), reason };
    let found = candidates(
        &[
            broken(
                "kernel/acpi/struct.DeviceId.html",
                "../../zerocopy/pointer/invariant/enum.Uninit.html",
                Reason::MissingFile,
            ),
            broken(
                "kernel/debugfs/struct.File.html",
                "#tymethod.__pin_data",
                Reason::MissingAnchor,
            ),
            broken(
                "syn/parse/struct.End.html",
                "../token/trait.Token.html#tymethod.peek",
                Reason::MissingAnchor,
            ),
            // Into a crate rustdoc failed on: a broken link.
            broken("kernel/index.html", "../uapi/struct.X.html", Reason::MissingFile),
            broken("kernel/index.html", "/home/u/x.h", Reason::AbsolutePath),
        ],
        &links(&["kernel", "syn", "zerocopy"]),
    );
    expect![[r##"
        {
            "kernel/acpi/struct.DeviceId.html": {
                "../../zerocopy/pointer/invariant/enum.Uninit.html",
            },
            "kernel/debugfs/struct.File.html": {
                "#tymethod.__pin_data",
            },
            "syn/parse/struct.End.html": {
                "../token/trait.Token.html#tymethod.peek",
            },
        }
    "##]]
    .assert_debug_eq(&found);
}

#[test]
fn the_list_page_groups_by_target() {
    let u = |page: &str, link: &str| Unlinked { page: page.into(), link: link.into() };
    let unlinked = [
        u("kernel/a/struct.A.html", "../../zerocopy/pointer/invariant/trait.Read.html"),
        u("kernel/a/struct.A.html", "../../zerocopy/pointer/invariant/trait.Read.html"),
        u("kernel/struct.B.html", "../zerocopy/pointer/invariant/trait.Read.html"),
        u("kernel/struct.B.html", "#tymethod.__pin_data"),
    ];
    assert_eq!(unlinked[2].target(), "zerocopy/pointer/invariant/trait.Read.html");
    assert_eq!(unlinked[3].target(), "kernel/struct.B.html#tymethod.__pin_data");
    let page = page(&unlinked);
    assert!(page.contains("<h1>4 links rustdoc wrote"), "{page}");
    assert!(page.contains("<tr><td><code>zerocopy/pointer/invariant/trait.Read.html</code></td><td>3</td><td><details><summary>2 pages</summary>"), "{page}");
}
