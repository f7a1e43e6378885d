//! Tests of the site's own pages.

use expect_test::expect;

use super::*;

#[test]
fn utc_dates() {
    expect!["1970-01-01 00:00 UTC"].assert_eq(&format_utc(0));
    expect!["2026-12-03 08:48 UTC"].assert_eq(&format_utc(1_796_287_680));
    expect!["2000-02-29 23:59 UTC"].assert_eq(&format_utc(951_868_799));
}

#[test]
fn source_pages_number_and_escape_lines() {
    expect![[r##"
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>include/linux/err.h - srctree</title><link rel="icon" href="../../../static.files/logo.svg"><style>STYLE</style><script defer src="../../../versions.js"></script></head><body><p><a href="../../../index.html">Rust in Linux</a> / srctree / <code>include/linux/err.h</code></p><pre class="source"><span id="L1"><a class="ln" href="#L1">1</a>#include &lt;x.h&gt;</span>
        <span id="L2"><a class="ln" href="#L2">2</a>a &amp;&amp; b</span>
        </pre></body></html>
    "##]]
    .assert_eq(&source_page("include/linux/err.h", "#include <x.h>\na && b\n", 3).replace(CSS, "STYLE"));
}

#[test]
fn a_trait_without_implementors_elsewhere_gets_an_empty_list_from_the_checkers_view() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let page = |links: &[&str]| crate::html::PageLinks {
        links: links.iter().map(|l| (*l).to_owned()).collect(),
        ..Default::default()
    };
    let mut site = crate::linkcheck::Site::default();
    site.pages.insert(
        "kernel/sync/trait.Lock.html".into(),
        page(&["../../trait.impl/kernel/sync/trait.Lock.js", "../index.html"]),
    );
    site.pages
        .insert("kernel/trait.Module.html".into(), page(&["../trait.impl/kernel/trait.Module.js"]));
    // Not a trait page: its scripts are not rustdoc's implementor lists.
    site.pages.insert("kernel/index.html".into(), page(&["../trait.impl/kernel/trait.X.js"]));
    // The merge wrote this one: it is kept as it is.
    site.files.insert("trait.impl/kernel/trait.Module.js".into());

    let written = fill_missing_implementors(root, &site).unwrap();
    assert_eq!(written, ["trait.impl/kernel/sync/trait.Lock.js"]);
    let text = std::fs::read_to_string(root.join(&written[0])).unwrap();
    assert_eq!(text, NO_IMPLEMENTORS);
    assert!(!root.join("trait.impl/kernel/trait.Module.js").exists(), "not written over");
    assert!(!root.join("trait.impl/kernel/trait.X.js").exists());
}
