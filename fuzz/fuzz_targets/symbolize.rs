//! decode-stacktrace on a log against an image: the ELF symbols and DWARF of a file given on the
//! command line, and the frames' offsets read from the log (`sym+0xOFF/0xSIZE`). The input is a
//! 4-byte little-endian length, that many bytes of ELF, then the log.
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use symbolizer::{Image, Symbolizer, decode_log};

fuzz_target!(|data: &[u8]| {
    let Some((len, rest)) = data.split_first_chunk::<4>() else { return };
    let len = (u32::from_le_bytes(*len) as usize).min(rest.len());
    let (elf, log) = rest.split_at(len);
    let Ok(image) = Image::parse(Path::new("fuzz.elf"), elf) else { return };
    let mut symbolizer = Symbolizer::new(image, None, None);
    let _ = decode_log(&String::from_utf8_lossy(log), &mut symbolizer);
});
