//! Reads a serial console log back into what happened: `/init` reached, each step's output and
//! exit code, the end of `/init`, a kernel panic.

use serde::Serialize;

/// The markers `/init` echoes; nothing else prints `@@qemu-runner:`.
pub mod marker {
    /// Echoed by `/init` first.
    pub const INIT: &str = "@@qemu-runner: init@@";
    /// Echoed by `/init` after the last step, before it reboots.
    pub const DONE: &str = "@@qemu-runner: done@@";
    const PREFIX: &str = "@@qemu-runner: ";

    /// Echoed before step `i`.
    pub fn begin(i: usize) -> String {
        format!("{PREFIX}step {i} begin@@")
    }

    /// Echoed after step `i` with its exit code (`$?` in the script).
    pub fn end(i: usize, code: &str) -> String {
        format!("{PREFIX}step {i} end {code}@@")
    }

    /// Put by `/init` before every line a step's own commands print (their stdout and stderr),
    /// so that they can be told from the kernel's messages printed on the console meanwhile.
    pub const OUTPUT: &str = "@@| ";

    /// What a line says, if it holds a marker.
    pub(crate) fn parse(line: &str) -> Option<Marker> {
        let start = line.find(PREFIX)?;
        let rest = &line[start + PREFIX.len()..];
        let body = &rest[..rest.find("@@")?];
        let mut words = body.split(' ');
        match (words.next()?, words.next(), words.next(), words.next()) {
            ("init", None, ..) => Some(Marker::Init),
            ("done", None, ..) => Some(Marker::Done),
            ("step", Some(i), Some("begin"), None) => Some(Marker::Begin(i.parse().ok()?)),
            ("step", Some(i), Some("end"), Some(code)) => {
                Some(Marker::End(i.parse().ok()?, code.parse().ok()?))
            }
            _ => None,
        }
    }

    #[derive(Debug, PartialEq, Eq)]
    pub(crate) enum Marker {
        Init,
        Begin(usize),
        End(usize, i32),
        Done,
    }
}

use marker::Marker;

/// What a console log shows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Console {
    /// `/init` started.
    pub reached_init: bool,
    /// `/init` ran every step and was about to reboot.
    pub finished: bool,
    /// The steps that began, in order.
    pub steps: Vec<StepOutput>,
    /// The first `Kernel panic - not syncing:` message, if any.
    pub panic: Option<String>,
}

/// One step's console output: its own output and the kernel's messages in the meantime.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct StepOutput {
    /// Its index among the steps.
    pub index: usize,
    /// Every line printed between its markers, in order: [`Self::output`] and [`Self::kernel`]
    /// together.
    pub lines: Vec<String>,
    /// What the step's own commands printed (stdout and stderr), and nothing else.
    pub output: Vec<String>,
    /// The kernel's messages printed on the console while the step ran: those the step caused
    /// (a module's `pr_info!`, an oops) and any the kernel printed meanwhile for its own reasons.
    pub kernel: Vec<String>,
    /// Its exit code; `None` if it never ended.
    pub exit_code: Option<i32>,
}

impl StepOutput {
    /// Whether some line contains `text`.
    pub fn contains(&self, text: &str) -> bool {
        self.lines.iter().any(|l| l.contains(text))
    }

    /// The kernel messages of the step printed under `prefix`, the `pr_fmt` of a module
    /// (`"rust_minimal: "`), in order: what that module printed, whatever else the kernel did.
    pub fn kernel_from<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.kernel.iter().map(String::as_str).filter(move |l| l.starts_with(prefix))
    }
}

/// Parses a console log.
pub fn parse_console(log: &str) -> Console {
    let mut console = Console::default();
    let mut current: Option<usize> = None;
    for line in log.lines() {
        let line = line.trim_end_matches('\r');
        if console.panic.is_none()
            && let Some(at) = line.find("Kernel panic - not syncing:")
        {
            console.panic = Some(line[at..].trim_end().to_owned());
        }
        match marker::parse(line) {
            Some(Marker::Init) => console.reached_init = true,
            Some(Marker::Done) => console.finished = true,
            Some(Marker::Begin(index)) => {
                console.steps.push(StepOutput { index, ..StepOutput::default() });
                current = Some(console.steps.len() - 1);
            }
            Some(Marker::End(index, code)) => {
                if let Some(step) = console.steps.iter_mut().rev().find(|s| s.index == index) {
                    step.exit_code = Some(code);
                }
                current = None;
            }
            None => {
                if let Some(i) = current {
                    let step = &mut console.steps[i];
                    // Kernel messages can break into a line the step prints: the prefix is then
                    // found after them, and the text before it is the kernel's.
                    match line.find(marker::OUTPUT) {
                        Some(at) => {
                            if at > 0 {
                                step.kernel.push(line[..at].to_owned());
                                step.lines.push(line[..at].to_owned());
                            }
                            let own = &line[at + marker::OUTPUT.len()..];
                            step.output.push(own.to_owned());
                            step.lines.push(own.to_owned());
                        }
                        None => {
                            step.kernel.push(line.to_owned());
                            step.lines.push(line.to_owned());
                        }
                    }
                }
            }
        }
    }
    console
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    fn check(log: &str, expect: Expect) {
        expect.assert_debug_eq(&parse_console(log));
    }

    #[test]
    fn steps_with_kernel_messages_and_exit_codes() {
        check(
            "Linux version 6.12.118\r\n\
             Run /init as init process\r\n\
             @@qemu-runner: init@@\r\n\
             @@qemu-runner: step 0 begin@@\r\n\
             rust_minimal: Rust minimal sample (init)\r\n\
             input: ImExPS/2 Generic Explorer Mouse as /devices/platform/i8042/serio1/input/input2\r\n\
             rust_minimal: Am I built-in? false\r\n\
             @@qemu-runner: step 0 end 0@@\r\n\
             @@qemu-runner: step 1 begin@@\r\n\
             @@| insmod: can't insert 'x.ko': invalid parameters\r\n\
             random: crng init done@@| and a line broken into by the kernel\r\n\
             @@qemu-runner: step 1 end 1@@\r\n\
             @@qemu-runner: done@@\r\n\
             reboot: Restarting system\r\n",
            expect![[r#"
                Console {
                    reached_init: true,
                    finished: true,
                    steps: [
                        StepOutput {
                            index: 0,
                            lines: [
                                "rust_minimal: Rust minimal sample (init)",
                                "input: ImExPS/2 Generic Explorer Mouse as /devices/platform/i8042/serio1/input/input2",
                                "rust_minimal: Am I built-in? false",
                            ],
                            output: [],
                            kernel: [
                                "rust_minimal: Rust minimal sample (init)",
                                "input: ImExPS/2 Generic Explorer Mouse as /devices/platform/i8042/serio1/input/input2",
                                "rust_minimal: Am I built-in? false",
                            ],
                            exit_code: Some(
                                0,
                            ),
                        },
                        StepOutput {
                            index: 1,
                            lines: [
                                "insmod: can't insert 'x.ko': invalid parameters",
                                "random: crng init done",
                                "and a line broken into by the kernel",
                            ],
                            output: [
                                "insmod: can't insert 'x.ko': invalid parameters",
                                "and a line broken into by the kernel",
                            ],
                            kernel: [
                                "random: crng init done",
                            ],
                            exit_code: Some(
                                1,
                            ),
                        },
                    ],
                    panic: None,
                }
            "#]],
        );
    }

    #[test]
    fn panic_inside_a_step() {
        check(
            "@@qemu-runner: init@@\n\
             @@qemu-runner: step 0 begin@@\n\
             Oops: general protection fault\n\
             Kernel panic - not syncing: Fatal exception\n",
            expect![[r#"
                Console {
                    reached_init: true,
                    finished: false,
                    steps: [
                        StepOutput {
                            index: 0,
                            lines: [
                                "Oops: general protection fault",
                                "Kernel panic - not syncing: Fatal exception",
                            ],
                            output: [],
                            kernel: [
                                "Oops: general protection fault",
                                "Kernel panic - not syncing: Fatal exception",
                            ],
                            exit_code: None,
                        },
                    ],
                    panic: Some(
                        "Kernel panic - not syncing: Fatal exception",
                    ),
                }
            "#]],
        );
    }

    #[test]
    fn panic_before_init() {
        check(
            "[    0.5] Kernel panic - not syncing: Requested init /nope failed (error -2).\n",
            expect![[r#"
                Console {
                    reached_init: false,
                    finished: false,
                    steps: [],
                    panic: Some(
                        "Kernel panic - not syncing: Requested init /nope failed (error -2).",
                    ),
                }
            "#]],
        );
    }

    #[test]
    fn malformed_markers_are_plain_lines() {
        let console = parse_console(
            "@@qemu-runner: step 0 begin@@\n@@qemu-runner: step x end 0@@\n@@qemu-runner: steps\n",
        );
        assert_eq!(
            console.steps[0].lines,
            ["@@qemu-runner: step x end 0@@", "@@qemu-runner: steps"]
        );
        assert_eq!(console.steps[0].exit_code, None);
    }

    /// Console logs are untrusted text: no input may make the parser panic.
    #[test]
    fn garbage_never_panics() {
        let pieces = [
            "@@qemu-runner: ",
            "step ",
            "begin@@",
            "end ",
            "-1",
            "99999999999999999999",
            "@@",
            "init@@",
            "done@@",
            "Kernel panic - not syncing:",
            "\r\n",
            "\n",
            "é",
            "\u{0}",
            " ",
        ];
        for log in kbuild::testing::garbage(0x2545_f491_4f6c_dd1d, &pieces, 2000) {
            let console = parse_console(&log);
            assert!(console.steps.iter().all(|s| !s.lines.iter().any(|l| l.contains('\n'))));
        }
    }

    #[test]
    fn marker_after_interleaved_text() {
        assert_eq!(
            marker::parse("[ 1.0] foo@@qemu-runner: step 12 end 127@@"),
            Some(Marker::End(12, 127))
        );
    }
}
