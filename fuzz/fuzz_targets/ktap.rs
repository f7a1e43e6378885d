//! KUnit's KTAP output in a console: any suite, and docs-site's doctest reader.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for suite in ["rust_doctests_kernel", "longest-symbol", ""] {
        let s = kunit::parse_suite(&text, suite);
        let _ = s.incomplete();
    }
    let results = docs_site::doctests::parse_ktap(&text);
    let _ = results.summary_line();
});
