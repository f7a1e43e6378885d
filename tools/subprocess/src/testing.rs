//! For the suite's tests and benchmarks: [`run`], a command whose failure to run shows
//! everything, [`Interactive`], a child a test talks to (a language server) that a deadline and a
//! guard end, [`user_binary`], the build of a tool that users run, and [`user_space_elf`], an
//! ELF file that is no kernel. The first two keep the
//! module's promise: the child's process group never outlives the test.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use nix::sys::signal::Signal;
use nix::unistd::Pid;

use crate::{Command, Output, describe_status, format_dropped, kill_group};

/// The cargo target folder of the running test or bench (`target/PROFILE/deps/EXE`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the running executable's path");
    exe.ancestors().nth(3).expect("target/PROFILE/deps/EXE").to_owned()
}

/// The binary `name` as users run it: the `tools` profile's build that `make tools` makes
/// (`target/tools/`), not the one `cargo bench` builds for the benchmark itself, so that a
/// benchmark times what users run. Found from the running executable (`target/release/deps/...`),
/// so `CARGO_TARGET_DIR` is honoured.
///
/// # Panics
///
/// When the binary is missing, saying what builds it.
pub fn user_binary(name: &str) -> PathBuf {
    let binary = target_dir().join("tools").join(name);
    assert!(
        binary.is_file(),
        "{} is missing: `make bench` builds it (make tools)",
        binary.display()
    );
    binary
}

/// A user-space program with its symbol table and DWARF, `dir/user-space`, compiled by the
/// machine's C compiler (`cc -g`): an ELF file that is no kernel and holds no Rust, for the
/// tests of what each tool says of an input it was not made for.
///
/// # Panics
///
/// When the compiler fails, with its output.
pub fn user_space_elf(dir: &Path) -> PathBuf {
    let source = dir.join("user-space.c");
    std::fs::write(
        &source,
        "int answer(int x) { return x * 2; }\nint main(void) { return answer(21) - 42; }\n",
    )
    .unwrap_or_else(|e| panic!("{}: {e}", source.display()));
    let elf = dir.join("user-space");
    let cmd = Command::new("cc", dir)
        .args(["-g", "-O1", "-o"])
        .arg(&elf)
        .arg(&source)
        .timeout(Duration::from_secs(120));
    let out = run(&cmd);
    assert!(out.success(), "{}", report(&cmd, &out));
    elf
}

/// Runs `cmd` to its end or its deadline (set with [`Command::timeout`]; its process group is
/// killed either way) and returns what it left. A non-zero exit is for the test to judge, with
/// [`report`] as the message.
///
/// # Panics
///
/// When the command cannot start, misses its deadline or its first-output deadline, or printed
/// more than its capture limit: a hang fails the test instead of blocking it, and a test reads
/// whole output.
pub fn run(cmd: &Command) -> Output {
    let out = cmd.run().unwrap_or_else(|e| panic!("{e}"));
    assert!(!out.timed_out && !out.silent && !out.truncated(), "{}", report(cmd, &out));
    out
}

/// What a benchmark measured of one run: the command's output, its wall time, and the peak
/// resident memory of its biggest process.
#[derive(Debug)]
pub struct Measured {
    /// What the command left.
    pub output: Output,
    /// Wall time from spawn to end.
    pub elapsed: Duration,
    /// The largest resident set of the command or of any process it waited for, in bytes (GNU
    /// time's `%M`: the kernel's `maxrss` of the child).
    pub peak_rss: u64,
}

/// GNU time, which reports a child's peak memory (Debian's `time`, installed by `make setup`).
const GNU_TIME: &str = "/usr/bin/time";

/// Runs `cmd` under GNU time, for a benchmark: its output, time and peak memory. Its exit status
/// is for the caller to judge, as with [`run`]; so is output past the capture limit (a progress
/// bar's, of which a benchmark reads the end).
///
/// # Panics
///
/// When the command cannot start or misses a deadline, and when GNU time leaves no figure.
pub fn run_measured(cmd: &Command) -> Measured {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let figure = dir.path().join("peak-rss");
    let timed = cmd.wrapped_in(
        GNU_TIME,
        [OsStr::new("-f"), OsStr::new("%M"), OsStr::new("-o"), figure.as_os_str()],
    );
    let output = timed.run().unwrap_or_else(|e| panic!("{e}"));
    assert!(!output.timed_out && !output.silent, "{}", report(&timed, &output));
    let text = std::fs::read_to_string(&figure).unwrap_or_else(|e| {
        panic!("{}: {e} (is Debian's `time` installed? `make setup`)", figure.display())
    });
    let kib: u64 = text
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .unwrap_or_else(|| panic!("{}: no peak memory figure in {text:?}", figure.display()));
    Measured { elapsed: output.elapsed, output, peak_rss: kib * 1024 }
}

/// A test's failure message: the command, its directory, how it ended, what the capture limit
/// dropped, its stdout and its stderr.
pub fn report(cmd: &Command, out: &Output) -> String {
    let ended = if out.silent {
        format!(
            "printed nothing within {}s and was killed",
            cmd.first_output_timeout.unwrap_or_default().as_secs()
        )
    } else if out.timed_out {
        format!("timed out after {}s and was killed", cmd.timeout.as_secs())
    } else {
        describe_status(out.status)
    };
    format!(
        "`{cmd}` (in {}): {ended}{}\n--- stdout ---\n{}--- stderr ---\n{}",
        cmd.cwd.display(),
        format_dropped(out.stdout_dropped, out.stderr_dropped),
        out.stdout,
        out.stderr
    )
}

/// A child with piped stdin and stdout (stderr is discarded) in its own process group, which is
/// killed when the command's deadline passes and when this drops.
pub struct Interactive {
    child: Child,
    timed_out: Arc<AtomicBool>,
    /// Dropping the sender wakes the watchdog, which then ends.
    watchdog: Option<(mpsc::Sender<()>, thread::JoinHandle<()>)>,
}

impl Interactive {
    /// Starts `cmd`; its deadline counts from now.
    ///
    /// # Panics
    ///
    /// When the command cannot start.
    pub fn start(cmd: &Command) -> Interactive {
        let child = cmd
            .std_command()
            .stdin(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{}", cmd.spawn_error(e)));
        let group = Pid::from_raw(child.id() as i32);
        let timed_out = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel::<()>();
        let (flag, timeout) = (timed_out.clone(), cmd.timeout);
        // The group cannot be another's while the watchdog runs: the child is reaped only after
        // it has ended.
        let watchdog = thread::spawn(move || {
            if rx.recv_timeout(timeout) == Err(mpsc::RecvTimeoutError::Timeout) {
                flag.store(true, Ordering::SeqCst);
                kill_group(group, Signal::SIGKILL);
            }
        });
        Interactive { child, timed_out, watchdog: Some((tx, watchdog)) }
    }

    /// The child's stdin (once).
    ///
    /// # Panics
    ///
    /// When it was taken before.
    pub fn take_stdin(&mut self) -> ChildStdin {
        self.child.stdin.take().expect("stdin was taken before")
    }

    /// The child's stdout (once); it ends when the group is killed.
    ///
    /// # Panics
    ///
    /// When it was taken before.
    pub fn take_stdout(&mut self) -> ChildStdout {
        self.child.stdout.take().expect("stdout was taken before")
    }

    /// Whether the deadline passed and the group was killed.
    pub fn timed_out(&self) -> bool {
        self.timed_out.load(Ordering::SeqCst)
    }
}

impl Drop for Interactive {
    fn drop(&mut self) {
        if let Some((tx, watchdog)) = self.watchdog.take() {
            drop(tx);
            let _ = watchdog.join();
        }
        kill_group(Pid::from_raw(self.child.id() as i32), Signal::SIGKILL);
        let _ = self.child.wait();
    }
}
