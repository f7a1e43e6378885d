//! The oops model: the crash reports in a kernel console or `dmesg` log (`BUG:`, `kernel BUG
//! at`, `Oops:`, `WARNING:`, arm64's `Unable to handle kernel` and `Internal error:`, a Rust
//! `panicked at` block), each with where it happened (x86-64's `RIP`, arm64's and riscv64's
//! `pc`/`epc` and link register) and the frames of its call trace; [`FORMATS`] says which
//! formats are read, for messages about a log that has none of them.
//!
//! Pure: [`parse_log`] takes the log's text. It keeps going past what it does not understand
//! (interleaved printk lines, a log cut mid-frame, garbage bytes) and records it.

mod frame;
mod report;
pub mod testing;

pub use frame::{Frame, FrameLine, frame_on_line, parse_frame, strip_prefixes};
pub use report::{FORMATS, Report, RustPanic, parse_log};
