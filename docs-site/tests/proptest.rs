//! Property tests: the parsers of untrusted text (pages, consoles, dep-info files) never panic
//! on arbitrary text, or on text made of the pieces they look for.

use std::collections::BTreeSet;

use docs_site::html::{self, SrctreeLinks, UpstreamDocs};
use docs_site::{build, doctests, mend};
use proptest::prelude::*;

/// Text built from the pieces of rustdoc's pages and KUnit's output, in any order.
fn page_like() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("<a href=\"".to_owned()),
        Just("href=\"srctree/".to_owned()),
        Just("\">".to_owned()),
        Just("</a>".to_owned()),
        Just("<a class=\"src".to_owned()),
        Just("src/kernel/".to_owned()),
        Just("foreigntype.".to_owned()),
        Just("/variant.".to_owned()),
        Just("<a class=\"trait\" href=\"x.html\" title=\"t\">".to_owned()),
        Just("x.html".to_owned()),
        Just(".html#".to_owned()),
        Just("../".to_owned()),
        Just("<script>".to_owned()),
        Just("</script".to_owned()),
        Just("<!--".to_owned()),
        Just("<meta http-equiv=refresh content=\"0;URL=".to_owned()),
        Just("static.files/rust-logo-".to_owned()),
        Just("# Subtest: rust_doctests_kernel\n".to_owned()),
        Just("ok 1 rust_doctest_kernel_".to_owned()),
        Just(".location: ".to_owned()),
        Just("[ 1.0] ".to_owned()),
        Just(": \\\n".to_owned()),
        "[a-z_/.#0-9 '=-]{0,20}",
        any::<String>(),
    ];
    prop::collection::vec(piece, 0..12).prop_map(|pieces| pieces.concat())
}

fn exercise(text: &str) {
    let mut targets = BTreeSet::new();
    let _ =
        html::rewrite_page(text, 2, &SrctreeLinks::SourceView, &|p| p.ends_with('/'), &mut targets);
    let _ = html::scan_page(text);
    let _ = html::mend_foreign_type_links(text, &mut Vec::new());
    let _ = html::mend_variant_links(text);
    let links: BTreeSet<String> = ["x.html".to_owned(), text.to_owned()].into();
    let _ = mend::unlink(text, &links, false);
    let _ = mend::unlink(text, &links, true);
    let upstream = UpstreamDocs {
        base: "https://doc.rust-lang.org/1.95.0/".into(),
        local: vec!["core".into()],
    };
    let _ = html::rewrite_upstream_links(text, "kernel/sync", &upstream);
    let _ = doctests::parse_ktap(text);
    let _ = doctests::src_links("kernel/index.html", text, "kernel");
    let _ = build::dep_info_inputs(text);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        exercise(&text);
    }

    #[test]
    fn page_like_text_never_panics(text in page_like()) {
        exercise(&text);
    }
}
