//! Rust sources as lint-rules reads them, with each file kind's rules.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lint_rules::{Config, FileContext};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let config = Config::default();
    for path in ["rust/kernel/sync.rs", "samples/rust/rust_minimal.rs", "drivers/x/y.rs"] {
        let cx = FileContext::for_path(path);
        let _ = lint_rules::lint_file(&cx, text, &config, Vec::new());
    }
});
