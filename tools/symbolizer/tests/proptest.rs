//! Property test: `decode_log` on arbitrary logs, against a real ELF image with DWARF (this
//! test's own executable), never panics and leaves every line that is not a frame as it was;
//! and the inputs that made it panic once.

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

fn decode(log: &str) -> String {
    SYMBOLIZER.with(|s| decode_log(log, &mut s.borrow_mut()))
}

/// Offsets and sizes of up to 16 hex digits, the largest often (random ones almost never come
/// near `u64::MAX`); whitespace, Unicode too, between the `? ` marker and the symbol; and the
/// `\r`s of a serial console's `\r\r\n` line ends.
fn frame_like_line() -> impl Strategy<Value = String> {
    prop_oneof![
        "( \\? )?[ \u{a0}\u{3000}]{0,2}(main|_R[A-Za-z0-9_]{0,60})\\+0x(f{16}|[0-9a-f]{1,16})/0x[0-9a-f]{1,16}( \\[[a-z_]{1,12}\\])?\r{0,3}",
        "RIP: 0010:( \\? )?[ \u{3000}]{0,2}[a-z_]{1,20}\\+0x(f{16}|[0-9a-f]{1,16})/0x[0-9a-f]{1,16}\r{0,20}",
        any::<String>(),
    ]
}

/// Regression: `main+0xffffffffffffffff` made `Symbolizer::decode` add the offset to the
/// symbol's address past `u64::MAX` (a panic in debug builds), found by widening the offsets
/// of the property test below to 16 hex digits.
#[test]
fn the_largest_offset_does_not_overflow() {
    let out = decode(" main+0xffffffffffffffff/0x10\nRIP: 0010:main+0xffffffffffffffff/0x10\n");
    assert_eq!(out, " main+0xffffffffffffffff/0x10\nRIP: 0010:main+0xffffffffffffffff/0x10\n");
}

/// Regression: a line ending in `\r` (a serial console's `\r\r\n`) made `decode_log` measure
/// the text before a frame one byte too long per `\r`, which cut the line inside the next
/// character (a panic when it is multi-byte) or repeated a character of the symbol.
#[test]
fn carriage_returns_do_not_shift_the_text_before_a_frame() {
    for (log, clean) in [
        (" ? \u{3000}main+0x1/0x10\r\r\r", " ? main+0x1/0x10"),
        ("[    1.000000]  main+0x1/0x10\r", "[    1.000000]  main+0x1/0x10"),
        ("RIP: 0010:? \u{3000}main+0x1/0x10\r\r\r\r", "RIP: 0010:main+0x1/0x10"),
    ] {
        assert_eq!(decode(log), decode(clean), "{log:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_logs_never_panic(lines in prop::collection::vec(frame_like_line(), 0..30)) {
        let log = lines.join("\n");
        let out = decode(&log);
        // Lines that are no frame come out unchanged.
        for line in log.lines() {
            if !line.contains("+0x") {
                prop_assert!(out.lines().any(|l| l == line), "{line:?} lost");
            }
        }
    }
}
