//! Property tests: `parse_log` on arbitrary text, and on text made of the tokens it looks for,
//! never panics, and what it returns is consistent with the input.

use proptest::prelude::*;

/// Lines built from the pieces of real reports, in any order.
fn report_like_line() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("BUG: ".to_owned()),
        Just("Oops: 0002 [#".to_owned()),
        Just("Call Trace:".to_owned()),
        Just(" <TASK>".to_owned()),
        Just(" ? ".to_owned()),
        Just("RIP: 0010:".to_owned()),
        Just("---[ end trace 0 ]---".to_owned()),
        Just("rust_kernel: panicked at ".to_owned()),
        Just("Modules linked in: ".to_owned()),
        "[a-zA-Z_0-9]{0,40}",
        "\\+0x[0-9a-f]{0,16}/0x[0-9a-f]{0,16}",
        " \\[[a-z_]{0,10}( [0-9a-f]{0,8})?\\]",
        "\\[ *[0-9.]{0,12}\\] ",
        any::<String>(),
    ];
    prop::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_text_never_panics(log in any::<String>()) {
        let lines = log.lines().count();
        for report in oops::parse_log(&log) {
            prop_assert!(report.lines.0 >= 1 && report.lines.0 <= report.lines.1 && report.lines.1 <= lines);
        }
    }

    #[test]
    fn report_like_text_never_panics(lines in prop::collection::vec(report_like_line(), 0..40)) {
        let log = lines.join("\n");
        for report in oops::parse_log(&log) {
            for frame in report.frames.iter().chain(&report.rip) {
                prop_assert!(frame.symbol.is_some() || frame.address.is_some());
            }
        }
    }
}
