//! Crash reports in a log, read line by line with a small state machine.

use serde::Serialize;

use crate::frame::{Frame, frame_on_line, parse_frame, strip_prefixes};

/// One crash report.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The first line saying what happened (`BUG: kernel NULL pointer dereference, ...`,
    /// `kernel BUG at rust/helpers/bug.c:7!`, `WARNING: CPU: 0 PID: 1 at ...`).
    pub title: String,
    /// The `Oops:` line, if any, such as `Oops: invalid opcode: 0000 [#2]`.
    pub oops: Option<String>,
    /// The oops number from `[#N]`: more than one means an earlier oops happened first.
    pub oops_number: Option<u32>,
    /// The `rust_kernel: panicked at` block that led to this report, for a Rust panic.
    pub rust_panic: Option<RustPanic>,
    /// The `CPU: ... Comm: ...` line.
    pub task: Option<String>,
    /// Where it happened: x86-64's kernel-mode `RIP: 0010:`, arm64's `pc :`, riscv64's `epc :`.
    pub rip: Option<Frame>,
    /// The link register, a return address: arm64's `lr :`, riscv64's `ra :`.
    pub lr: Option<Frame>,
    /// The frames of the kernel part of `Call Trace:`, in order.
    pub frames: Vec<Frame>,
    /// `Modules linked in:`, names without their flags.
    pub modules: Vec<String>,
    /// Reached `---[ end trace ... ]---`.
    pub complete: bool,
    /// 1-based line numbers of the report's first and last line in the log.
    pub lines: (usize, usize),
    /// Lines inside the call trace that are not frames (interleaved printk output, damage,
    /// another architecture's frames).
    pub noise: Vec<String>,
}

/// The backtrace formats [`parse_log`] reads, for messages about a log it found none in.
pub const FORMATS: &str = "x86-64's (`RIP: 0010:`, `Call Trace:`), arm64's (`pc :`, `lr :`, `Call trace:`) and riscv64's (`epc :`, `ra :`, `[<address>] symbol+off/size`), under a title line such as `BUG:`, `Oops:`, `WARNING:`, `kernel BUG at`, `Unable to handle kernel` or `Internal error:`";

impl Report {
    /// Whether the printed offset of call-trace frame `i` is a return address (the instruction
    /// after a call): true but for arm64's `(P)` frames and for a first frame that is where it
    /// happened again (arm64 before 6.14 and riscv start their trace with the pc, unmarked).
    ///
    /// # Panics
    ///
    /// When the report has no frame `i`.
    pub fn is_return_address(&self, i: usize) -> bool {
        let frame = &self.frames[i];
        let is_rip = |rip: &Frame| rip.symbol == frame.symbol && rip.offset == frame.offset;
        frame.is_return_address() && !(i == 0 && self.rip.as_ref().is_some_and(is_rip))
    }
}

/// A Rust panic: where it panicked and its message.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RustPanic {
    /// `file:line:column`.
    pub location: String,
    /// The message lines that follow.
    pub message: Vec<String>,
}

#[derive(PartialEq, Eq)]
enum State {
    /// Between reports.
    Outside,
    /// In a report, before or after its call trace.
    Header,
    /// Reading `Call Trace:` frames.
    Trace,
    /// After `</TASK>` or a user-mode `RIP` inside the trace: frames no longer count.
    TraceDone,
}

/// The lines that open a report: x86-64's and the generic ones (`BUG:` covers KASAN's and
/// the scheduler's, `WARNING:` lockdep's and RCU's as well as `WARN()`'s), and arm64's fault
/// (`Unable to handle kernel ...`) and `die()` (`Internal error: Oops: ...`).
fn is_title(line: &str) -> bool {
    line.starts_with("BUG: ")
        || line.starts_with("kernel BUG at ")
        || line.starts_with("WARNING: ")
        || line.starts_with("general protection fault")
        || line.starts_with("Oops: ")
        || line.starts_with("Unable to handle kernel ")
        || line.starts_with("Internal error: ")
}

/// The line that says a call trace follows: x86-64's (and riscv's) `Call Trace:`, arm64's
/// `Call trace:`.
fn is_call_trace(line: &str) -> bool {
    line.starts_with("Call Trace:") || line.starts_with("Call trace:")
}

/// Reads every report in `log`.
pub fn parse_log(log: &str) -> Vec<Report> {
    let mut reports: Vec<Report> = Vec::new();
    let mut state = State::Outside;
    let mut pending_panic: Option<(RustPanic, usize)> = None;
    let mut in_panic_message = false;
    for (i, raw) in log.lines().enumerate() {
        let n = i + 1;
        let line = strip_prefixes(raw);
        let text = line.trim_start();

        if let Some(location) = line.split("rust_kernel: panicked at ").nth(1) {
            let location = location.trim_end().trim_end_matches(':').to_owned();
            pending_panic = Some((RustPanic { location, message: Vec::new() }, n));
            in_panic_message = true;
            continue;
        }
        if in_panic_message {
            if text.starts_with("------------[ cut here ]") || is_title(text) {
                in_panic_message = false;
            } else if let Some((panic, _)) = &mut pending_panic {
                panic.message.push(line.to_owned());
                continue;
            }
        }
        if text.starts_with("------------[ cut here ]") {
            continue;
        }

        if is_title(text) {
            // `Oops:` right after `BUG:` (or a second title before any trace) is the same report.
            let joins = matches!(state, State::Header)
                && reports
                    .last()
                    .is_some_and(|r| r.frames.is_empty() && !r.complete && r.rip.is_none());
            if !joins {
                let mut report =
                    Report { title: text.to_owned(), lines: (n, n), ..Report::default() };
                if let Some((panic, start)) = pending_panic.take() {
                    report.rust_panic = Some(panic);
                    report.lines.0 = start;
                }
                reports.push(report);
                state = State::Header;
            }
            let report = reports.last_mut().expect("just pushed or joined");
            if text.starts_with("Oops: ") || text.starts_with("Internal error: ") {
                report.oops = Some(text.to_owned());
                report.oops_number = text
                    .split("[#")
                    .nth(1)
                    .and_then(|s| s.split(']').next())
                    .and_then(|s| s.parse().ok());
            }
            report.lines.1 = n;
            continue;
        }
        if state == State::Outside && is_call_trace(text) {
            // A backtrace with no title of its own (`dump_stack()`): a report all the same.
            reports.push(Report { title: text.to_owned(), lines: (n, n), ..Report::default() });
            state = State::Trace;
            continue;
        }
        let Some(report) = reports.last_mut().filter(|_| state != State::Outside) else { continue };
        report.lines.1 = n;

        if text.starts_with("---[ end trace") {
            report.complete = true;
            state = State::Outside;
        } else if is_call_trace(text) {
            state = State::Trace;
        } else if let Some(rest) = text.strip_prefix("Modules linked in:") {
            report.modules = rest
                .split_whitespace()
                .map(|m| m.split('(').next().unwrap_or(m).to_owned())
                .collect();
            if state == State::Trace {
                state = State::TraceDone;
            }
        } else if let Some(rest) = text.strip_prefix("RIP: ") {
            match state {
                State::Header => {
                    if let Some(frame) = rest.strip_prefix("0010:").and_then(parse_frame) {
                        report.rip = Some(frame);
                    }
                }
                State::Trace => state = State::TraceDone,
                _ => {}
            }
        } else if let Some(on_line) =
            frame_on_line(line).filter(|l| !l.label.is_empty() && state != State::TraceDone)
        {
            if on_line.label.starts_with("[<") {
                // riscv prints its frames as `[<address>] symbol+off/size`, with no
                // `Call Trace:` line after an exception's registers.
                report.frames.push(on_line.frame);
                state = State::Trace;
            } else if state == State::Header {
                // The symbolic form comes first; riscv then prints the raw values on a line
                // of its own (`epc : ffffffff... ra : ...`), which is not a frame.
                let slot = if on_line.return_address { &mut report.lr } else { &mut report.rip };
                slot.get_or_insert(on_line.frame);
            }
        } else if text.starts_with("[<") && state != State::TraceDone {
            // Another architecture's frame, or one cut short.
            report.noise.push(line.to_owned());
        } else if text.starts_with("Code: ") && state == State::Trace {
            // arm64 prints the code after the call trace.
            state = State::TraceDone;
        } else if text.starts_with("CPU: ") && report.task.is_none() {
            report.task = Some(text.to_owned());
        } else if state == State::Trace {
            match text {
                "<TASK>" | "<IRQ>" | "</IRQ>" | "<NMI>" | "</NMI>" | "<SOFTIRQ>" | "</SOFTIRQ>" => {
                }
                "</TASK>" => state = State::TraceDone,
                _ => match parse_frame(text) {
                    Some(frame) if line.starts_with(' ') || line.starts_with('?') => {
                        report.frames.push(frame)
                    }
                    _ => report.noise.push(line.to_owned()),
                },
            }
        }
    }
    reports
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bug_and_oops_lines_make_one_report() {
        let reports = parse_log(
            "BUG: kernel NULL pointer dereference, address: 0000000000000000\n\
             #PF: supervisor write access in kernel mode\n\
             Oops: Oops: 0002 [#1]\n\
             CPU: 0 UID: 0 PID: 20 Comm: insmod Tainted: G           O       6.12.118 #2\n\
             RIP: 0010:foo+0x8/0x11 [m]\n\
             Call Trace:\n <TASK>\n bar+0x19/0x1f [m]\n ? baz+0x1/0x2\n</TASK>\n\
             Modules linked in: m(O+)\n---[ end trace 0000000000000000 ]---\n\
             RIP: 0010:foo+0x8/0x11 [m]\n",
        );
        assert_eq!(reports.len(), 1);
        let r = &reports[0];
        assert_eq!(r.title, "BUG: kernel NULL pointer dereference, address: 0000000000000000");
        assert_eq!(r.oops_number, Some(1));
        assert_eq!(r.rip.as_ref().and_then(|f| f.symbol.as_deref()), Some("foo"));
        assert_eq!(r.frames.len(), 2);
        assert_eq!(r.modules, ["m"]);
        assert!(r.complete);
        assert_eq!(r.lines, (1, 12));
    }

    #[test]
    fn a_log_cut_mid_frame_keeps_the_frames_before() {
        let reports = parse_log("Oops: 0000 [#1]\nCall Trace:\n <TASK>\n a+0x1/0x2\n b+0x1/0x");
        assert_eq!(reports.len(), 1);
        assert_eq!(reports[0].frames.len(), 1);
        assert_eq!(reports[0].noise, [" b+0x1/0x"]);
        assert!(!reports[0].complete);
    }

    #[test]
    fn interleaved_printk_lines_are_noise_not_frames() {
        let reports = parse_log(
            "Oops: 0000 [#1]\nCall Trace:\n a+0x1/0x2\nrandom: crng init done\n b+0x3/0x4\n",
        );
        assert_eq!(reports[0].frames.len(), 2);
        assert_eq!(reports[0].noise, ["random: crng init done"]);
    }
}
