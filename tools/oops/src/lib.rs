//! The oops model: the crash reports in a kernel console or `dmesg` log (`BUG:`, `kernel BUG
//! at`, `Oops:`, `WARNING:`, a Rust `panicked at` block), each with its `RIP` and the frames
//! of its `Call Trace`.
//!
//! Pure: [`parse_log`] takes the log's text. It keeps going past what it does not understand
//! (interleaved printk lines, a log cut mid-frame, garbage bytes) and records it.

mod frame;
mod report;

pub use frame::{Frame, parse_frame, strip_prefixes};
pub use report::{Report, RustPanic, parse_log};
