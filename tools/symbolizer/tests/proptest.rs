//! Property test: `decode_log` on arbitrary logs, against a real ELF image with DWARF (this
//! test's own executable), never panics and leaves every line that is not a frame as it was.

use proptest::prelude::*;
use symbolizer::{Image, Symbolizer, decode_log};

thread_local! {
    /// Opened once: reading the executable's DWARF is the slow part.
    static SYMBOLIZER: std::cell::RefCell<Symbolizer> = {
        let exe = std::env::current_exe().unwrap();
        let image = Image::open(&exe).unwrap();
        std::cell::RefCell::new(Symbolizer::new(image, None, Some(std::path::Path::new("/nonexistent"))))
    };
}

fn frame_like_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "( \\? )?(main|_R[A-Za-z0-9_]{0,60})\\+0x[0-9a-f]{1,6}/0x[0-9a-f]{1,6}( \\[[a-z_]{1,12}\\])?",
        "RIP: 0010:[a-z_]{1,20}\\+0x[0-9a-f]{1,4}/0x[0-9a-f]{1,4}",
        any::<String>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_logs_never_panic(lines in prop::collection::vec(frame_like_line(), 0..30)) {
        let log = lines.join("\n");
        let out = SYMBOLIZER.with(|s| decode_log(&log, &mut s.borrow_mut()));
        // Lines that are no frame come out unchanged.
        for line in log.lines() {
            if !line.contains("+0x") {
                prop_assert!(out.lines().any(|l| l == line), "{line:?} lost");
            }
        }
    }
}
