//! `.config` files and config fragments.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(config) = kbuild::Config::parse(&text) else { return };
    // Halves of the same text as a fragment on top of a config.
    let half = text.len() / 2;
    let cut = (0..=half).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
    if let Ok(fragment) = kbuild::Config::parse(&text[cut..]) {
        let merged = config.overlaid(&fragment);
        let _ = merged.unmet(&fragment);
        let _ = merged.is_enabled("RUST");
    }
});
