//! rustdoc's HTML as docs-site reads and rewrites it: the link scanner, entity decoding, the
//! page rewriter and the link menders.
#![no_main]

use std::collections::BTreeSet;

use docs_site::html;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let page = html::scan_page(&text);
    let _ = format!("{page:?}");
    let _ = html::decode_entities(&text);
    let mut targets = BTreeSet::new();
    let links = html::SrctreeLinks::SourceView;
    let _ = html::rewrite_page(&text, 2, &links, &|_| false, &mut targets);
    let mut unlinked = Vec::new();
    let _ = html::mend_foreign_type_links(&text, &mut unlinked);
    let _ = html::mend_variant_links(&text);
    for line in text.lines().take(64) {
        let _ = html::resolve_relative("kernel/sync", line);
    }
});
