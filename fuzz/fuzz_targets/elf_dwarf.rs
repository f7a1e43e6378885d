//! ELF files with DWARF, as given on the command line: layout-check's reader and comparison.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(sections) = layout_check::dwarf::Sections::parse(data) else { return };
    let dwarf = sections.dwarf();
    let mut collector = layout_check::dwarf::Collector::default();
    if collector.add_rust(&dwarf).is_ok() {
        let _ = collector.add_c(&dwarf);
    }
    let report = layout_check::compare::compare(&collector.defs);
    let _ = format!("{:?}", report.summary);
});
