//! The one module through which the suite runs subprocesses.
//!
//! Every command gets an explicit working directory, a null stdin, stdout and stderr drained
//! concurrently (line by line, into bounded buffers and an optional callback), a deadline counted
//! from spawn, and its own process group. On timeout the group gets `SIGTERM`, then `SIGKILL`
//! after a grace period; when the command ends, whatever it left running in its group is killed,
//! and a guard kills the group if the caller unwinds. Errors show the shell-quoted command, its
//! directory, its status and the tail of its output.

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::os::fd::AsFd;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// How many lines of combined output an error shows.
pub const TAIL_LINES: usize = 25;

/// Under `make test`, the file to which every QEMU boot (`qemu::boot`) adds a line naming the
/// test it was for ([`test_identity`]), so that `make test` can count the tests that boot a
/// kernel.
pub const BOOTS_VAR: &str = "RUST_KERNEL_TOOLS_BOOTS";

/// The test a process works for, which [`Command`] gives its children under `make test`.
pub const TEST_VAR: &str = "RUST_KERNEL_TOOLS_TEST";

/// The test this process works for: [`TEST_VAR`] as it was given, else this executable's file
/// name and this thread's name, `EXE::TEST` in a test binary (libtest names each test's thread
/// after the test), as cargo's `Running` and `test` lines name them.
pub fn test_identity() -> String {
    std::env::var(TEST_VAR).unwrap_or_else(|_| {
        let exe = std::env::current_exe().ok();
        let exe = exe.as_deref().and_then(Path::file_name).map(|n| n.to_string_lossy());
        let thread = std::thread::current();
        format!("{}::{}", exe.unwrap_or_default(), thread.name().unwrap_or("main"))
    })
}

/// How long a process group gets between `SIGTERM` and `SIGKILL`.
const KILL_GRACE: Duration = Duration::from_secs(3);

/// A command to run: program, arguments, directory, environment and deadline.
#[derive(Clone, Debug)]
pub struct Command {
    program: OsString,
    args: Vec<OsString>,
    cwd: PathBuf,
    env: Vec<(OsString, Option<OsString>)>,
    timeout: Duration,
    first_output_timeout: Option<Duration>,
    capture_limit: usize,
    stdout_closed: bool,
    pipe_capacity: Option<usize>,
}

impl Command {
    /// A command that runs `program` in `cwd`, with a default timeout of ten minutes.
    pub fn new(program: impl AsRef<OsStr>, cwd: &Path) -> Command {
        Command {
            program: program.as_ref().to_owned(),
            args: Vec::new(),
            cwd: cwd.to_owned(),
            env: Vec::new(),
            timeout: Duration::from_secs(600),
            first_output_timeout: None,
            capture_limit: 8 << 20,
            stdout_closed: false,
            pipe_capacity: None,
        }
    }

    /// Gives the command a stdout whose reading end is already closed, as `| head` leaves it
    /// once it has read enough: for tests of how a program ends on a closed pipe. Its stdout is
    /// then not captured.
    pub fn stdout_closed(mut self) -> Command {
        self.stdout_closed = true;
        self
    }

    /// Gives the command's stdout and stderr pipes room for `bytes` (Linux's `F_SETPIPE_SZ`; the
    /// default is 64 KiB), so that it can write that much while this process is not scheduled
    /// to read: for a writer that loses output when its writes must wait (QEMU's serial port,
    /// whose guest console gives up waiting after 10 ms and drops characters). Where Linux
    /// refuses the size, the pipes keep theirs.
    pub fn pipe_capacity(mut self, bytes: usize) -> Command {
        self.pipe_capacity = Some(bytes);
        self
    }

    /// Adds one argument.
    pub fn arg(mut self, arg: impl AsRef<OsStr>) -> Command {
        self.args.push(arg.as_ref().to_owned());
        self
    }

    /// Adds several arguments.
    pub fn args<I, S>(mut self, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args.extend(args.into_iter().map(|a| a.as_ref().to_owned()));
        self
    }

    /// Sets an environment variable for the command.
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Command {
        self.env.push((key.as_ref().to_owned(), Some(value.as_ref().to_owned())));
        self
    }

    /// Removes an environment variable for the command.
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Command {
        self.env.push((key.as_ref().to_owned(), None));
        self
    }

    /// Sets the deadline, counted from spawn.
    pub fn timeout(mut self, timeout: Duration) -> Command {
        self.timeout = timeout;
        self
    }

    /// Kills the command if it prints no line at all within `timeout` of spawn (a hang at start).
    pub fn first_output_timeout(mut self, timeout: Duration) -> Command {
        self.first_output_timeout = Some(timeout);
        self
    }

    /// Keeps at most `bytes` of each stream (the last whole lines) in [`Output`], which says how
    /// much it dropped; the default is 8 MiB. `run_with`'s callback sees every line.
    pub fn capture_limit(mut self, bytes: usize) -> Command {
        self.capture_limit = bytes;
        self
    }

    /// The same command run by `program` with `args` before it (`time -f %M cmd ...`): the
    /// directory, environment, deadline and capture limit are kept.
    pub fn wrapped_in<I, S>(&self, program: impl AsRef<OsStr>, args: I) -> Command
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let mut wrapped = Command { program: program.as_ref().to_owned(), ..self.clone() };
        wrapped.args = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        wrapped.args.push(self.program.clone());
        wrapped.args.extend(self.args.iter().cloned());
        wrapped
    }

    /// Runs the command to its end or its deadline, collecting its output.
    ///
    /// A non-zero exit or a timeout is not an error here: see [`Output`] and [`Command::run_checked`].
    pub fn run(&self) -> Result<Output, Error> {
        self.run_with(&mut |_, _| {})
    }

    /// Like [`Command::run`], and an error unless the command exits with status 0 in time.
    pub fn run_checked(&self) -> Result<Output, Error> {
        self.run_with(&mut |_, _| {})?.check(self)
    }

    /// The standard library's command: the program in its own process group, with stdin null
    /// and stdout and stderr piped.
    fn std_command(&self) -> std::process::Command {
        let mut std_cmd = std::process::Command::new(&self.program);
        std_cmd
            .args(&self.args)
            .current_dir(&self.cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        // Under `make test`, a child (a tool that boots QEMU) works for the test that runs it.
        if std::env::var_os(BOOTS_VAR).is_some() {
            std_cmd.env(TEST_VAR, test_identity());
        }
        for (key, value) in &self.env {
            match value {
                Some(value) => std_cmd.env(key, value),
                None => std_cmd.env_remove(key),
            };
        }
        std_cmd
    }

    fn spawn_error(&self, source: std::io::Error) -> Error {
        Error::Spawn { command: self.to_string(), cwd: self.cwd.clone(), source }
    }

    /// Runs the command, calling `on_line` with each line of output as it arrives.
    pub fn run_with(&self, on_line: &mut dyn FnMut(Stream, &str)) -> Result<Output, Error> {
        let start = Instant::now();
        let mut std_cmd = self.std_command();
        if self.stdout_closed {
            let (reader, writer) = std::io::pipe().map_err(|source| self.spawn_error(source))?;
            drop(reader);
            std_cmd.stdout(writer);
        }
        let child = std_cmd.spawn().map_err(|source| self.spawn_error(source))?;
        let mut guard = GroupGuard { child, reaped: false };
        if let Some(bytes) = self.pipe_capacity {
            let size = i32::try_from(bytes).unwrap_or(i32::MAX);
            let set = |fd: std::os::fd::BorrowedFd<'_>| {
                let _ = nix::fcntl::fcntl(fd, nix::fcntl::FcntlArg::F_SETPIPE_SZ(size));
            };
            if let Some(stdout) = &guard.child.stdout {
                set(stdout.as_fd());
            }
            if let Some(stderr) = &guard.child.stderr {
                set(stderr.as_fd());
            }
        }

        let (tx, rx) = mpsc::channel();
        let readers = [
            spawn_reader(Stream::Stdout, guard.child.stdout.take(), tx.clone()),
            spawn_reader(Stream::Stderr, guard.child.stderr.take(), tx),
        ];

        let deadline = start + self.timeout;
        let mut out = Collector::new(self.capture_limit);
        let mut open_streams = 2;
        let mut status: Option<ExitStatus> = None;
        let mut timed_out = false;
        let mut silent = false;
        let mut seen_output = false;
        let mut exited_at: Option<Instant> = None;

        loop {
            let now = Instant::now();
            if status.is_none() {
                if let Some(s) = guard
                    .child
                    .try_wait()
                    .map_err(|source| Error::Wait { command: self.to_string(), source })?
                {
                    status = Some(s);
                    guard.reaped = true;
                    exited_at = Some(now);
                    // Nothing a command started outlives it: a daemon left in its group would
                    // otherwise hold our pipes open.
                    kill_group(guard.pid(), Signal::SIGKILL);
                } else if !seen_output
                    && self.first_output_timeout.is_some_and(|t| now >= start + t)
                {
                    silent = true;
                    status = Some(terminate(&mut guard));
                    exited_at = Some(Instant::now());
                } else if now >= deadline {
                    timed_out = true;
                    status = Some(terminate(&mut guard));
                    exited_at = Some(Instant::now());
                }
            }
            if open_streams == 0 && status.is_some() {
                break;
            }
            if let Some(t) = exited_at {
                // The group is dead; give the pipes a moment to deliver what is buffered.
                if t.elapsed() > Duration::from_secs(2) {
                    break;
                }
            }
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(Message::Line(stream, line)) => {
                    seen_output = true;
                    on_line(stream, &line);
                    out.push(stream, line);
                }
                Ok(Message::Eof) => open_streams -= 1,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => open_streams = 0,
            }
        }
        drop(rx);
        if open_streams == 0 {
            for reader in readers {
                let _ = reader.join();
            }
        }
        // Otherwise a process that left the group still holds a pipe: its reader is detached
        // and ends when that process does.
        let status = status.expect("loop ends only once the status is known");
        Ok(Output {
            status,
            timed_out,
            silent,
            stdout_dropped: out.stdout.dropped,
            stderr_dropped: out.stderr.dropped,
            stdout: out.stdout.into_string(),
            stderr: out.stderr.into_string(),
            tail: out.tail.into_iter().collect(),
            elapsed: start.elapsed(),
        })
    }
}

/// Shell-quoted, as a user would type it.
impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (key, value) in &self.env {
            if let Some(value) = value {
                write!(f, "{}={} ", key.to_string_lossy(), shell_quote(value))?;
            }
        }
        write!(f, "{}", shell_quote(&self.program))?;
        for arg in &self.args {
            write!(f, " {}", shell_quote(arg))?;
        }
        Ok(())
    }
}

/// Quotes `s` for a POSIX shell, leaving plain words as they are.
pub fn shell_quote(s: &OsStr) -> String {
    let s = s.to_string_lossy();
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%^".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Which pipe a line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// What a finished command left: its status and (the end of) its output.
#[derive(Clone, Debug)]
pub struct Output {
    /// How it ended; after a timeout, the status of the killed process.
    pub status: ExitStatus,
    /// Whether the deadline passed and the group was killed.
    pub timed_out: bool,
    /// Whether it was killed for printing nothing within its first-output timeout.
    pub silent: bool,
    /// Standard output, lossily decoded: its last whole lines within the capture limit.
    pub stdout: String,
    /// Standard error, likewise.
    pub stderr: String,
    /// How many bytes the capture limit dropped from the start of `stdout` (0: it is whole).
    pub stdout_dropped: usize,
    /// How many bytes the capture limit dropped from the start of `stderr`.
    pub stderr_dropped: usize,
    /// The last [`TAIL_LINES`] lines of both streams, interleaved as they arrived.
    pub tail: Vec<String>,
    /// Time from spawn to end.
    pub elapsed: Duration,
}

impl Output {
    /// Whether the command exited with status 0 in time.
    pub fn success(&self) -> bool {
        !self.timed_out && !self.silent && self.status.success()
    }

    /// Whether the capture limit dropped the start of either stream.
    pub fn truncated(&self) -> bool {
        self.stdout_dropped > 0 || self.stderr_dropped > 0
    }

    /// `Ok(self)` if the command succeeded, else the error that says how it failed.
    pub fn check(self, cmd: &Command) -> Result<Output, Error> {
        if self.silent {
            Err(Error::Silent {
                command: cmd.to_string(),
                cwd: cmd.cwd.clone(),
                timeout: cmd.first_output_timeout.unwrap_or_default(),
            })
        } else if self.timed_out {
            Err(Error::TimedOut {
                command: cmd.to_string(),
                cwd: cmd.cwd.clone(),
                timeout: cmd.timeout,
                dropped: format_dropped(self.stdout_dropped, self.stderr_dropped),
                tail: self.tail,
            })
        } else if !self.status.success() {
            Err(Error::Failed {
                command: cmd.to_string(),
                cwd: cmd.cwd.clone(),
                status: describe_status(self.status),
                dropped: format_dropped(self.stdout_dropped, self.stderr_dropped),
                tail: self.tail,
            })
        } else {
            Ok(self)
        }
    }
}

/// "exit status 2" or "killed by signal 9".
pub fn describe_status(status: ExitStatus) -> String {
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit status {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        (None, None) => status.to_string(),
    }
}

/// Why a command could not be run or did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The program could not be started.
    #[error("cannot run `{command}` in {}: {source}{}", cwd.display(), spawn_hint(source))]
    Spawn {
        /// The command line.
        command: String,
        /// Its working directory.
        cwd: PathBuf,
        /// What `spawn` said.
        source: std::io::Error,
    },
    /// Waiting for the process failed.
    #[error("cannot wait for `{command}`: {source}")]
    Wait {
        /// The command line.
        command: String,
        /// What `wait` said.
        source: std::io::Error,
    },
    /// The command exited unsuccessfully.
    #[error("`{command}` (in {}) failed with {status}{dropped}{}", cwd.display(), format_tail(tail))]
    Failed {
        /// The command line.
        command: String,
        /// Its working directory.
        cwd: PathBuf,
        /// How it ended.
        status: String,
        /// What the capture limit dropped ([`format_dropped`]).
        dropped: String,
        /// The last lines of its output.
        tail: Vec<String>,
    },
    /// The command printed nothing at first and was killed.
    #[error("`{command}` (in {}) printed nothing within {}s and was killed", cwd.display(), timeout.as_secs())]
    Silent {
        /// The command line.
        command: String,
        /// Its working directory.
        cwd: PathBuf,
        /// The first-output timeout it missed.
        timeout: Duration,
    },
    /// The command did not finish before its deadline and was killed.
    #[error("`{command}` (in {}) timed out after {}s and was killed{dropped}{}", cwd.display(), timeout.as_secs(), format_tail(tail))]
    TimedOut {
        /// The command line.
        command: String,
        /// Its working directory.
        cwd: PathBuf,
        /// The deadline it missed.
        timeout: Duration,
        /// What the capture limit dropped ([`format_dropped`]).
        dropped: String,
        /// The last lines of its output.
        tail: Vec<String>,
    },
}

fn spawn_hint(err: &std::io::Error) -> &'static str {
    if err.kind() == std::io::ErrorKind::NotFound {
        " (is it installed? `make setup` installs what the suite needs)"
    } else {
        ""
    }
}

/// Formats output lines for an error message, or nothing when there are none.
pub fn format_tail(tail: &[String]) -> String {
    if tail.is_empty() {
        return String::new();
    }
    let mut s = String::from("\n--- last lines of output ---");
    for line in tail {
        s.push_str("\n  ");
        s.push_str(line);
    }
    s
}

/// Says what the capture limit dropped from the start of each stream, for a message (with a
/// leading newline), or nothing when both are whole.
pub fn format_dropped(stdout_dropped: usize, stderr_dropped: usize) -> String {
    let streams: Vec<String> = [("stdout", stdout_dropped), ("stderr", stderr_dropped)]
        .into_iter()
        .filter(|&(_, bytes)| bytes > 0)
        .map(|(name, bytes)| format!("the first {bytes} bytes of {name}"))
        .collect();
    if streams.is_empty() {
        return String::new();
    }
    format!("\n(output past the capture limit: {} were dropped)", streams.join(" and "))
}

enum Message {
    Line(Stream, String),
    Eof,
}

fn spawn_reader<R: Read + Send + 'static>(
    stream: Stream,
    pipe: Option<R>,
    tx: mpsc::Sender<Message>,
) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        if let Some(pipe) = pipe {
            let mut reader = BufReader::new(pipe);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf);
                        let line = line.trim_end_matches(['\n', '\r']);
                        if tx.send(Message::Line(stream, line.to_owned())).is_err() {
                            break;
                        }
                    }
                }
            }
        }
        let _ = tx.send(Message::Eof);
    })
}

/// Keeps the end of each stream within a byte limit, and the combined tail.
struct Collector {
    stdout: Bounded,
    stderr: Bounded,
    tail: VecDeque<String>,
}

impl Collector {
    fn new(limit: usize) -> Collector {
        Collector {
            stdout: Bounded::new(limit),
            stderr: Bounded::new(limit),
            tail: VecDeque::new(),
        }
    }

    fn push(&mut self, stream: Stream, line: String) {
        match stream {
            Stream::Stdout => self.stdout.push(&line),
            Stream::Stderr => self.stderr.push(&line),
        }
        if self.tail.len() == TAIL_LINES {
            self.tail.pop_front();
        }
        self.tail.push_back(line);
    }
}

/// The last whole lines of a stream within `limit` bytes, and how many bytes went before them.
struct Bounded {
    lines: VecDeque<String>,
    bytes: usize,
    limit: usize,
    dropped: usize,
}

impl Bounded {
    fn new(limit: usize) -> Bounded {
        Bounded { lines: VecDeque::new(), bytes: 0, limit, dropped: 0 }
    }

    fn push(&mut self, line: &str) {
        self.bytes += line.len() + 1;
        self.lines.push_back(line.to_owned());
        while self.bytes > self.limit {
            match self.lines.pop_front() {
                Some(old) => {
                    self.bytes -= old.len() + 1;
                    self.dropped += old.len() + 1;
                }
                None => break,
            }
        }
    }

    fn into_string(self) -> String {
        let mut s = String::with_capacity(self.bytes);
        for line in self.lines {
            s.push_str(&line);
            s.push('\n');
        }
        s
    }
}

/// Owns the child; kills its whole group unless it was reaped.
struct GroupGuard {
    child: Child,
    reaped: bool,
}

impl GroupGuard {
    fn pid(&self) -> Pid {
        Pid::from_raw(self.child.id() as i32)
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if !self.reaped {
            kill_group(self.pid(), Signal::SIGKILL);
            let _ = self.child.wait();
        }
    }
}

fn kill_group(pgid: Pid, signal: Signal) {
    // ESRCH (the group is gone) is the expected case after a clean exit.
    let _ = killpg(pgid, signal);
}

/// `SIGTERM` to the group, then `SIGKILL` after the grace period; returns the child's status.
fn terminate(guard: &mut GroupGuard) -> ExitStatus {
    kill_group(guard.pid(), Signal::SIGTERM);
    let grace_end = Instant::now() + KILL_GRACE;
    loop {
        if let Ok(Some(status)) = guard.child.try_wait() {
            guard.reaped = true;
            kill_group(guard.pid(), Signal::SIGKILL);
            return status;
        }
        if Instant::now() >= grace_end {
            kill_group(guard.pid(), Signal::SIGKILL);
            let status = guard.child.wait();
            guard.reaped = true;
            return status.unwrap_or_else(|_| ExitStatus::from_raw(Signal::SIGKILL as i32));
        }
        thread::sleep(Duration::from_millis(20));
    }
}

pub mod testing;

#[cfg(test)]
mod tests;
