//! Logs the suite was not written around: other architectures' oopses (arm64 before and after
//! 6.14's unwind notes, riscv64, 32-bit arm's older format), KASAN, lockdep, a `WARN_ON` with no
//! oops, a log cut mid-trace, an oops with no Rust frame, a boot with no oops, plain text. Each
//! is parsed against a golden summary beside it (`NAME.summary`); `foreign/README.md` says how
//! the logs were made. Update with `UPDATE_EXPECT=1 cargo test -p oops --test foreign`.

use common::summary;

mod common;

#[test]
fn every_foreign_log_against_its_golden_summary() {
    let logs = oops::testing::foreign_logs();
    assert!(logs.len() >= 10, "the corpus lost logs: {logs:?}");
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut differ = Vec::new();
    for log in &logs {
        let text =
            std::fs::read_to_string(log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
        let actual = summary(&text);
        let golden = log.with_extension("summary");
        if update {
            std::fs::write(&golden, &actual)
                .unwrap_or_else(|e| panic!("{}: {e}", golden.display()));
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_default();
        if actual != expected {
            differ.push(format!(
                "{}:\n--- expected\n{expected}--- actual\n{actual}",
                golden.display()
            ));
        }
    }
    assert!(differ.is_empty(), "UPDATE_EXPECT=1 rewrites them\n{}", differ.join("\n"));
}

/// The arm64 and riscv64 logs are read as fully as x86-64's: where it happened, the link
/// register, every frame of the trace, nothing left over.
#[test]
fn other_architectures_frames_are_all_read() {
    for (name, frames) in
        [("arm64-6.12-null-write", 17), ("arm64-7.3-rust-panic", 18), ("riscv64-null-write", 10)]
    {
        let path = oops::testing::foreign_dir().join(format!("{name}.log"));
        let reports = oops::parse_log(&std::fs::read_to_string(path).unwrap());
        assert_eq!(reports.len(), 1, "{name}");
        let r = &reports[0];
        assert!(r.rip.is_some() && r.lr.is_some(), "{name}: {r:?}");
        assert_eq!((r.frames.len(), r.noise.len()), (frames, 0), "{name}: {r:?}");
        assert!(r.complete, "{name}");
    }
}

/// `decode-stacktrace` rewrites the lines [`oops::frame_on_line`] reads: every frame that
/// [`oops::parse_log`] reads (where it happened, the link register, the call trace) is on one.
#[test]
fn every_frame_read_is_on_a_line_the_decoder_reads() {
    for log in oops::testing::foreign_logs() {
        let text = std::fs::read_to_string(&log).unwrap();
        let on_lines: Vec<oops::Frame> = text
            .lines()
            .filter_map(|line| oops::frame_on_line(oops::strip_prefixes(line)))
            .map(|on_line| on_line.frame)
            .collect();
        for report in oops::parse_log(&text) {
            for frame in report.rip.iter().chain(&report.lr).chain(&report.frames) {
                assert!(on_lines.contains(frame), "{}: {frame:?}", log.display());
            }
        }
    }
}
