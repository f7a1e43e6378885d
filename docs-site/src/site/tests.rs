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
