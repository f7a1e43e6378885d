//! Console and `dmesg` logs: the oops parser (reports, frames, offsets) and QEMU's console
//! reader (steps and their markers).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for report in oops::parse_log(&text) {
        for frame in &report.frames {
            let _ = format!("{frame:?}");
        }
    }
    for line in text.lines() {
        let _ = oops::parse_frame(oops::strip_prefixes(line));
    }
    let console = qemu::parse_console(&text);
    let _ = format!("{console:?}");
});
