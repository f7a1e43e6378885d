//! The symbolizer: turns the frames of a kernel backtrace into demangled Rust names and
//! `file:line` locations, inlined frames included, from `vmlinux` and the modules' `.ko` files.
//!
//! [`Image`] reads one ELF file (symbol table and DWARF); [`Symbolizer`] finds the image of a
//! frame (`vmlinux`, or a module by name from a modules directory) and decodes it;
//! [`decode_log`] rewrites a whole log, leaving every line that is not a frame as it was.

mod decode;
mod image;

pub use decode::{Decoded, KSYM_NAME_LEN, Symbolizer, decode, decode_log, find_modules};
pub use image::{Image, ImageError, Location};
