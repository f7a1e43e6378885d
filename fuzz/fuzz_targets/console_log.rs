//! Console and `dmesg` logs: the oops parser (reports, frames, offsets), kallsyms-check's
//! verdict on them (a log it accepts had Rust frames checked: no check passes having checked
//! nothing) and QEMU's console reader (steps and their markers).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let reports = oops::parse_log(&text);
    for report in &reports {
        for frame in &report.frames {
            let _ = format!("{frame:?}");
        }
    }
    if let Ok(result) = kallsyms_check::check_log(&reports, &mut |_| None) {
        assert!(!result.checks.is_empty(), "accepted having checked nothing");
    }
    for line in text.lines() {
        let _ = oops::frame_on_line(oops::strip_prefixes(line));
    }
    let console = qemu::parse_console(&text);
    let _ = format!("{console:?}");
});
