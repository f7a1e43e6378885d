//! Crash reports in a log, read line by line with a small state machine.

use serde::Serialize;

use crate::frame::{Frame, parse_frame, strip_prefixes};

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
    /// The kernel-mode `RIP`.
    pub rip: Option<Frame>,
    /// The frames of the kernel part of `Call Trace:`, in order.
    pub frames: Vec<Frame>,
    /// `Modules linked in:`, names without their flags.
    pub modules: Vec<String>,
    /// Reached `---[ end trace ... ]---`.
    pub complete: bool,
    /// 1-based line numbers of the report's first and last line in the log.
    pub lines: (usize, usize),
    /// Lines inside the call trace that are not frames (interleaved printk output, damage).
    pub noise: Vec<String>,
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

/// The lines that open a report.
fn is_title(line: &str) -> bool {
    line.starts_with("BUG: ")
        || line.starts_with("kernel BUG at ")
        || line.starts_with("WARNING: CPU: ")
        || line.starts_with("general protection fault")
        || line.starts_with("Oops: ")
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
            if let Some(rest) = text.strip_prefix("Oops: ") {
                report.oops = Some(text.to_owned());
                report.oops_number = rest
                    .split("[#")
                    .nth(1)
                    .and_then(|s| s.split(']').next())
                    .and_then(|s| s.parse().ok());
            }
            report.lines.1 = n;
            continue;
        }
        let Some(report) = reports.last_mut().filter(|_| state != State::Outside) else { continue };
        report.lines.1 = n;

        if text.starts_with("---[ end trace") {
            report.complete = true;
            state = State::Outside;
        } else if text.starts_with("Call Trace:") {
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
