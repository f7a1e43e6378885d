//! Progress for long steps (unpacking, kernel builds, rustdoc, QEMU boots), on stderr.
//!
//! On a terminal a step is a spinner with its elapsed time and latest message. Elsewhere (CI
//! logs, pipes) it is quiet and line-oriented: a line when the step starts, a heartbeat line at
//! most once a minute with the latest message, and a line when it ends with its duration.
//!
//! [`stdout`] ends a binary quietly when its stdout is closed (`| head`).

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

pub mod stdout;

/// How often a step prints a heartbeat when stderr is not a terminal.
const HEARTBEAT: Duration = Duration::from_secs(60);

/// A long step in progress. End it with [`Step::done`] or [`Step::failed`].
pub struct Step {
    name: String,
    start: Instant,
    bar: Option<ProgressBar>,
    last: Mutex<Heartbeat>,
}

struct Heartbeat {
    printed: Instant,
    message: String,
}

/// Starts a step named `name` (lowercase, like "building the kernel").
pub fn start(name: &str) -> Step {
    let start = Instant::now();
    let bar = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new_spinner();
        bar.set_style(
            ProgressStyle::with_template("{spinner} [{elapsed:>4}] {prefix}: {wide_msg}")
                .expect("the template is valid"),
        );
        bar.set_prefix(name.to_owned());
        bar.enable_steady_tick(Duration::from_millis(120));
        Some(bar)
    } else {
        eprintln!("==> {name}");
        None
    };
    Step {
        name: name.to_owned(),
        start,
        bar,
        last: Mutex::new(Heartbeat { printed: start, message: String::new() }),
    }
}

impl Step {
    /// Shows `message` as the step's latest news (a build's last line, a count).
    pub fn message(&self, message: &str) {
        match &self.bar {
            Some(bar) => bar.set_message(message.to_owned()),
            None => {
                let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
                last.message.clear();
                last.message.push_str(message);
                if last.printed.elapsed() >= HEARTBEAT {
                    last.printed = Instant::now();
                    eprintln!(
                        "    [{}] {}: {}",
                        format_duration(self.elapsed()),
                        self.name,
                        message
                    );
                }
            }
        }
    }

    /// Prints a line for the user without disturbing the spinner.
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// Time since the step started.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Ends the step successfully, saying `outcome` (for example "up to date"); returns its duration.
    pub fn done(self, outcome: &str) -> Duration {
        self.end("done", outcome)
    }

    /// Ends the step as failed; returns its duration. The caller reports the error.
    pub fn failed(self) -> Duration {
        self.end("failed", "")
    }

    fn end(self, verb: &str, outcome: &str) -> Duration {
        let elapsed = self.elapsed();
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        let outcome = if outcome.is_empty() { String::new() } else { format!(": {outcome}") };
        eprintln!("    {verb} in {}: {}{outcome}", format_duration(elapsed), self.name);
        elapsed
    }
}

/// A size in bytes as the suite prints it: `12.3 MB`.
pub fn format_size(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

/// The size of the file at `path` ([`format_size`]), `?` when it cannot be read.
pub fn file_size(path: &std::path::Path) -> String {
    std::fs::metadata(path).map_or_else(|_| "?".to_owned(), |m| format_size(m.len()))
}

/// `"2.6s"`, `"2m 46s"` or `"1h 02m"`.
pub fn format_duration(d: Duration) -> String {
    let secs = d.as_secs();
    if secs < 60 {
        format!("{:.1}s", d.as_secs_f64())
    } else if secs < 3600 {
        format!("{}m {:02}s", secs / 60, secs % 60)
    } else {
        format!("{}h {:02}m", secs / 3600, secs % 3600 / 60)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::format_duration;

    #[test]
    fn durations_read_like_a_person_writes_them() {
        let check = |secs: f64, expect: &str| {
            assert_eq!(format_duration(Duration::from_secs_f64(secs)), expect);
        };
        check(0.04, "0.0s");
        check(2.6, "2.6s");
        check(59.94, "59.9s");
        check(166.0, "2m 46s");
        check(3725.0, "1h 02m");
    }
}
