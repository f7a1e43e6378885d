//! Runs real commands (`sh`, `sleep`) through the module.

use std::path::Path;
use std::time::{Duration, Instant};

use super::*;

fn sh(script: &str) -> Command {
    Command::new("sh", Path::new("/")).arg("-c").arg(script)
}

/// Time for a script to do what a test needs of it before a deadline ends it (start a
/// grandchild, print a line): ample on a machine whose every core is busy (`make stress`), where
/// a deadline of 300 or 500 ms was missed. Deadlines that nothing has to beat stay short.
const SCRIPT_TIME: Duration = Duration::from_secs(5);

#[test]
fn collects_both_streams_and_the_tail() {
    let out = sh("echo out1; echo err1 >&2; echo out2").run().unwrap();
    assert!(out.success());
    assert_eq!(out.stdout, "out1\nout2\n");
    assert_eq!(out.stderr, "err1\n");
    assert_eq!(out.tail.len(), 3);
}

#[test]
fn calls_back_for_each_line() {
    let mut seen = Vec::new();
    sh("printf 'a\\r\\nb\\n'; echo c >&2")
        .run_with(&mut |stream, line| seen.push((stream, line.to_owned())))
        .unwrap();
    seen.sort_by_key(|(s, _)| *s == Stream::Stderr);
    assert_eq!(
        seen,
        [
            (Stream::Stdout, "a".to_owned()),
            (Stream::Stdout, "b".to_owned()),
            (Stream::Stderr, "c".to_owned())
        ]
    );
}

#[test]
fn failure_names_the_command_status_and_tail() {
    let cmd = sh("echo 'something broke'; exit 3");
    let err = cmd.run_checked().unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.starts_with(
            "`sh -c 'echo '\\''something broke'\\''; exit 3'` (in /) failed with exit status 3"
        ),
        "{msg}"
    );
    assert!(msg.ends_with("--- last lines of output ---\n  something broke"), "{msg}");
}

#[test]
fn missing_program_says_how_to_install() {
    let err = Command::new("/nonexistent/qemu-system-x86_64", Path::new("/")).run().unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot run `/nonexistent/qemu-system-x86_64` in /: No such file or directory (os error 2) \
         (is it installed? `make setup` installs what the suite needs)"
    );
}

#[test]
fn timeout_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    let script = format!("sleep 300 & echo $! > {}; echo started; wait", pidfile.display());
    // The script must have started its grandchild before the deadline: on a machine whose
    // every core is busy, `sh` can take over a second to get there.
    let cmd = sh(&script).timeout(SCRIPT_TIME);
    let start = Instant::now();
    let out = cmd.run().unwrap();
    assert!(out.timed_out);
    assert!(!out.success());
    assert!(start.elapsed() < SCRIPT_TIME + Duration::from_secs(10), "took {:?}", start.elapsed());
    let grandchild: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
    assert_gone(grandchild);
    let err = out.check(&cmd).unwrap_err().to_string();
    assert!(err.contains("timed out after 5s and was killed"), "{err}");
    assert!(err.ends_with("  started"), "{err}");
}

#[test]
fn a_daemon_left_behind_is_killed_when_the_command_ends() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("daemon.pid");
    let script = format!("sleep 300 & echo $! > {}", pidfile.display());
    let start = Instant::now();
    let out = sh(&script).run_checked().unwrap();
    assert!(out.success());
    assert!(start.elapsed() < Duration::from_secs(10));
    let daemon: i32 = std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap();
    assert_gone(daemon);
}

/// Asserts that `pid` is dead: gone, or a zombie that its new parent has not reaped yet.
fn assert_gone(pid: i32) {
    for _ in 0..50 {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return,
            Ok(stat) if stat.contains(") Z ") => return,
            Ok(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    panic!("process {pid} is still running");
}

#[test]
fn capture_keeps_the_end_of_long_output() {
    let out = sh("seq 1 1000").capture_limit(21).run().unwrap();
    assert_eq!(out.stdout, "996\n997\n998\n999\n1000\n");
    assert_eq!(out.tail.first().map(String::as_str), Some("976"));
    // `seq 1 1000` prints 3893 bytes.
    assert_eq!((out.stdout_dropped, out.stderr_dropped), (3893 - 21, 0));
    assert!(out.truncated());
}

/// Found when a long output lost its start (past the 8 MiB default) without a word.
#[test]
fn a_truncated_output_says_so() {
    let whole = sh("seq 1 1000").run().unwrap();
    assert_eq!((whole.stdout_dropped, whole.stderr_dropped, whole.truncated()), (0, 0, false));
    let cmd = sh("seq 1 1000; seq 1 10 >&2; exit 1").capture_limit(21);
    let out = cmd.run().unwrap();
    assert_eq!((out.stdout_dropped, out.stderr_dropped), (3872, 0));
    let err = out.check(&cmd).unwrap_err().to_string();
    assert!(
        err.contains(
            "failed with exit status 1\n(output past the capture limit: the first 3872 bytes of \
             stdout were dropped)\n--- last lines of output ---"
        ),
        "{err}"
    );
    let cmd = sh("seq 1 1000; seq 1 100 >&2; sleep 300").capture_limit(21);
    let err = cmd.timeout(SCRIPT_TIME).run_checked().unwrap_err().to_string();
    assert!(
        err.contains(
            "timed out after 5s and was killed\n(output past the capture limit: the first 3872 \
             bytes of stdout and the first 273 bytes of stderr were dropped)"
        ),
        "{err}"
    );
}

#[test]
fn nothing_dropped_says_nothing() {
    assert_eq!(format_dropped(0, 0), "");
    assert_eq!(
        format_dropped(0, 5),
        "\n(output past the capture limit: the first 5 bytes of stderr were dropped)"
    );
}

#[test]
fn display_quotes_like_a_shell() {
    let cmd = Command::new("make", Path::new("/")).env("O", "/tmp/obj dir").args(["-j3", "it's"]);
    assert_eq!(cmd.to_string(), "O='/tmp/obj dir' make -j3 'it'\\''s'");
}

#[test]
fn silence_at_start_is_killed_early() {
    let cmd = sh("sleep 300").first_output_timeout(Duration::from_millis(300));
    let start = Instant::now();
    let out = cmd.run().unwrap();
    assert!(out.silent && !out.timed_out && !out.success());
    assert!(start.elapsed() < Duration::from_secs(10));
    let err = out.check(&cmd).unwrap_err().to_string();
    assert_eq!(err, "`sh -c 'sleep 300'` (in /) printed nothing within 0s and was killed");
}

#[test]
fn first_output_timeout_spares_a_command_that_spoke() {
    let out = sh("echo hello; sleep 1; echo bye")
        .first_output_timeout(SCRIPT_TIME)
        .run_checked()
        .unwrap();
    assert_eq!(out.stdout, "hello\nbye\n");
}

/// The panic message of `f`.
fn panic_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let payload = std::panic::catch_unwind(f).unwrap_err();
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap()
}

#[test]
fn a_test_command_that_fails_is_for_the_test_to_judge() {
    let cmd = sh("echo out; echo err >&2; exit 3");
    let out = testing::run(&cmd);
    assert_eq!(out.status.code(), Some(3));
    assert_eq!(
        testing::report(&cmd, &out),
        "`sh -c 'echo out; echo err >&2; exit 3'` (in /): exit status 3\n\
         --- stdout ---\nout\n--- stderr ---\nerr\n"
    );
}

/// Found when a test's `std::process::Command` with no deadline hung `make test`.
#[test]
fn a_test_command_that_hangs_fails_the_test() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    let script = format!("sleep 300 & echo $! > {}; echo started; wait", pidfile.display());
    let start = Instant::now();
    let message = panic_message(|| {
        testing::run(&sh(&script).timeout(SCRIPT_TIME));
    });
    assert!(start.elapsed() < SCRIPT_TIME + Duration::from_secs(10));
    assert!(
        message.contains("timed out after 5s and was killed\n--- stdout ---\nstarted\n"),
        "{message}"
    );
    assert_gone(std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap());
}

#[test]
fn a_test_command_whose_output_was_cut_fails_the_test() {
    let message = panic_message(|| {
        testing::run(&sh("seq 1 1000").capture_limit(21));
    });
    assert!(
        message.contains(
            "exit status 0\n(output past the capture limit: the first 3872 bytes of stdout were dropped)"
        ),
        "{message}"
    );
}

#[test]
fn an_interactive_child_answers_and_its_group_dies_with_the_guard() {
    use std::io::{BufRead, Write};
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("grandchild.pid");
    let script = format!("sleep 300 & echo $! > {}; cat", pidfile.display());
    let mut child = testing::Interactive::start(&sh(&script));
    let mut stdin = child.take_stdin();
    let mut stdout = std::io::BufReader::new(child.take_stdout());
    writeln!(stdin, "hello").unwrap();
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "hello\n");
    assert!(!child.timed_out());
    drop(child);
    assert_gone(std::fs::read_to_string(&pidfile).unwrap().trim().parse().unwrap());
}

#[test]
fn an_interactive_child_is_killed_at_its_deadline() {
    let mut child = testing::Interactive::start(&sh("cat").timeout(Duration::from_millis(300)));
    let _stdin = child.take_stdin();
    let start = Instant::now();
    let mut rest = String::new();
    // cat waits for its stdin, which stays open: only the deadline ends its stdout.
    child.take_stdout().read_to_string(&mut rest).unwrap();
    assert!(start.elapsed() < Duration::from_secs(10));
    assert!(child.timed_out());
}

/// A writer to a closed stdout gets `SIGPIPE` at once, as behind `| head`: `yes` ends instead
/// of writing for ever, and what was written to stderr is still captured.
#[test]
fn a_closed_stdout_ends_a_writer_with_sigpipe() {
    let out =
        sh("echo before >&2; yes").stdout_closed().timeout(Duration::from_secs(20)).run().unwrap();
    assert!(!out.timed_out, "yes kept writing");
    // sh reports its last command's death by SIGPIPE (13) as 128 + 13.
    assert_eq!(out.status.code(), Some(141), "{:?}", out.status);
    assert_eq!(out.stderr, "before\n");
    assert_eq!(out.stdout, "");
}

#[test]
fn a_wrapped_command_keeps_its_directory_environment_and_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let cmd = sh("echo \"$1 $KEPT $(pwd)\"").args(["sh", "first"]).env("KEPT", "kept");
    let cmd = Command { cwd: dir.path().to_owned(), ..cmd };
    let out = cmd.wrapped_in("env", ["WRAPPED=1"]).run_checked().unwrap();
    assert_eq!(out.stdout, format!("first kept {}\n", dir.path().display()));
}

#[test]
fn a_measured_command_reports_the_memory_it_touched() {
    // 64 MiB written, so resident; the interpreter adds a few MiB more.
    let cmd = Command::new("python3", Path::new("/"))
        .args(["-c", "b = bytearray(64 << 20); print(len(b))"])
        .timeout(Duration::from_secs(60));
    let measured = testing::run_measured(&cmd);
    assert!(measured.output.success(), "{}", testing::report(&cmd, &measured.output));
    assert_eq!(measured.output.stdout, format!("{}\n", 64 << 20));
    assert!((64 << 20..256 << 20).contains(&measured.peak_rss), "peak {} bytes", measured.peak_rss);
    // And a small one is small: the figure is the command's, not the test's.
    let small = testing::run_measured(&sh("true"));
    assert!(small.peak_rss < 32 << 20, "peak {} bytes", small.peak_rss);
}

#[test]
fn a_pipe_capacity_is_given_to_the_child_pipes() {
    // The child asks for its stdout pipe's size (F_GETPIPE_SZ) until it is the one asked for:
    // it is set just after the child starts.
    let script = "import fcntl, time\n\
                  deadline = time.time() + 30\n\
                  while fcntl.fcntl(1, 1032) != 1 << 20 and time.time() < deadline:\n    time.sleep(0.01)\n\
                  print(fcntl.fcntl(1, 1032))\n";
    let cmd = Command::new("python3", Path::new("/")).args(["-c", script]);
    let out = cmd.pipe_capacity(1 << 20).run_checked().unwrap();
    assert_eq!(out.stdout.trim(), (1 << 20).to_string());
    let default = Command::new("python3", Path::new("/"))
        .args(["-c", "import fcntl; print(fcntl.fcntl(1, 1032))"])
        .run_checked()
        .unwrap();
    assert_eq!(default.stdout.trim(), (64 << 10).to_string(), "Linux's default");
}
