//! A closed stdout (`lint-rules rules | head -1`) ends a binary quietly, with status 141 like a
//! C program killed by `SIGPIPE`, instead of `println!`'s panic "failed printing to stdout:
//! Broken pipe".
//!
//! Rust ignores `SIGPIPE`, so a write to a closed pipe fails with `EPIPE`: `println!` panics on
//! it and `write!` returns the error. Every binary's `main` starts with
//! `let _stdout = progress::stdout::quiet_when_closed();`. Then that panic prints nothing, and
//! [`lock`] turns the error into the same unwinding; either way the stack unwinds (so guards kill
//! the children they own) up to the returned [`Guard`], which exits with [`CLOSED`].

use std::io::{self, Write};
use std::panic::PanicHookInfo;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

/// The exit status when stdout was closed: 128 + `SIGPIPE`, what a shell shows for a C program.
pub const CLOSED: i32 = 141;

/// `EPIPE` on Linux, the one system these tools run on.
const EPIPE: i32 = 32;

/// Set when a write to stdout found it closed.
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Makes a closed stdout end the program quietly, once the stack has unwound to the returned
/// guard: keep it for the whole of `main` (`let _stdout = ...`, not `let _ = ...`).
#[must_use = "the program exits quietly only when it unwinds to the guard: bind it to `_stdout`"]
pub fn quiet_when_closed() -> Guard {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if is_closed_stdout_panic(info) {
                STDOUT_CLOSED.store(true, Ordering::SeqCst);
            } else {
                default(info);
            }
        }));
    });
    Guard { _private: () }
}

/// Held by `main`; when the program unwinds through it because stdout was closed, it exits with
/// [`CLOSED`].
pub struct Guard {
    _private: (),
}

impl Drop for Guard {
    fn drop(&mut self) {
        if std::thread::panicking() && STDOUT_CLOSED.load(Ordering::SeqCst) {
            std::process::exit(CLOSED);
        }
    }
}

/// Whether a panic is `print!`'s on a closed stdout (the message std has used since 1.0).
fn is_closed_stdout_panic(info: &PanicHookInfo<'_>) -> bool {
    let closed = format!("failed printing to stdout: {}", io::Error::from_raw_os_error(EPIPE));
    info.payload_as_str() == Some(closed.as_str())
}

/// Locked stdout for code that writes with `write!` and `?`: a closed stdout unwinds to the
/// [`Guard`] as `println!` does, instead of returning an error that `main` would report.
pub fn lock() -> Stdout {
    Stdout(io::stdout().lock())
}

/// See [`lock`].
pub struct Stdout(io::StdoutLock<'static>);

impl Stdout {
    fn check<T>(result: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &result
            && e.kind() == io::ErrorKind::BrokenPipe
        {
            STDOUT_CLOSED.store(true, Ordering::SeqCst);
            // Like a panic, without the panic hook's message.
            std::panic::resume_unwind(Box::new("stdout closed"));
        }
        result
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Stdout::check(self.0.write(buf))
    }

    fn flush(&mut self) -> io::Result<()> {
        Stdout::check(self.0.flush())
    }
}
