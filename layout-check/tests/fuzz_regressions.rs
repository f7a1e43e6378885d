//! Inputs that made layout-check panic, found by `make fuzz` (the `elf_dwarf` target): each file
//! of `tests/fuzz/` is read as an ELF file given on the command line would be, and must give a
//! result or an error, never a panic.

use std::path::Path;

use layout_check::compare::compare;
use layout_check::dwarf::{Collector, Sections};

#[test]
fn every_fuzz_crash_is_an_error_or_a_result() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(!files.is_empty());
    for file in files {
        let data = std::fs::read(&file).unwrap();
        let Ok(sections) = Sections::parse(&data) else { continue };
        let dwarf = sections.dwarf();
        let mut collector = Collector::default();
        if collector.add_rust(&dwarf).is_ok() {
            let _ = collector.add_c(&dwarf);
        }
        let _ = compare(&collector.defs);
    }
}

#[test]
fn a_relocation_past_the_end_of_the_address_space_is_an_error() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz");
    let data = std::fs::read(dir.join("relocation-offset-overflow.elf")).unwrap();
    let err = Sections::parse(&data).err().expect("a bad relocation offset is an error");
    assert!(err.to_string().contains("relocation"), "{err}");
}
