//! The patch `series` file, and the mails and logs the upstream check reads: cover letters'
//! recipients, get_maintainer.pl's output and kbuild's warnings.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = workbench::inputs::parse_series(&text);
    let _ = upstream::recipients(&text);
    let wanted = upstream::maintainers(&text);
    let _ = upstream::missing_recipients(&text, &wanted);
    let _ = upstream::rust_warnings(&text);
});
