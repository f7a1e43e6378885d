//! Inputs that made the symbolizer panic, found by `make fuzz` (the `symbolize` target): each
//! file of `tests/fuzz/` is a 4-byte little-endian length, that many bytes of ELF given as an
//! image, then a log; each must give decoded text or an error, never a panic.

use std::path::Path;

use symbolizer::{Image, Symbolizer, decode_log};

fn run(data: &[u8]) -> Option<String> {
    let (len, rest) = data.split_first_chunk::<4>()?;
    let len = (u32::from_le_bytes(*len) as usize).min(rest.len());
    let (elf, log) = rest.split_at(len);
    let image = Image::parse(Path::new("fuzz.elf"), elf).ok()?;
    let mut symbolizer = Symbolizer::new(image, None, None);
    Some(decode_log(&String::from_utf8_lossy(log), &mut symbolizer))
}

#[test]
fn every_fuzz_crash_is_an_error_or_a_result() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz");
    let mut files: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(!files.is_empty());
    for file in files {
        let _ = run(&std::fs::read(&file).unwrap());
    }
}

/// A relocatable object whose sections, placed one after the other, pass the end of the address
/// space: the image still opens, and the log is decoded.
#[test]
fn sections_past_the_end_of_the_address_space_still_open() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz");
    let data = std::fs::read(dir.join("section-base-overflow.bin")).unwrap();
    assert!(run(&data).is_some());
}
