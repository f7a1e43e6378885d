//! The demo kernel's patch series on the host: `scripts/checkpatch.pl` over every patch and
//! `make rustfmtcheck` over the patched tree, for the demo kernel `make test` runs against
//! (`DEMO_KERNEL`, its `demo-kernel/VERSION` folder).

use std::time::Duration;

use subprocess::{Command, testing};

fn patches() -> Vec<std::path::PathBuf> {
    let dir = demo_kernel::demo_kernel_dir().join("patches");
    let series = std::fs::read_to_string(dir.join("series")).unwrap();
    let patches: Vec<_> = workbench::inputs::parse_series(&series)
        .into_iter()
        .map(|(_, name)| dir.join(name))
        .collect();
    assert!(!patches.is_empty(), "the series lists no patch");
    patches
}

/// The warning checkpatch gives for every new file, which MAINTAINERS answers when an entry
/// already covers the file's directory.
const NEW_FILE_WARNING: &str =
    "WARNING: added, moved or deleted file(s), does MAINTAINERS need updating?";

/// The checkpatch findings a patch keeps on purpose, each exactly so many times: `(patch,
/// finding, count)`. arm64's backtrace printer takes its log level from its caller (`loglvl`, a
/// `KERN_` string), as the `printk()` it replaces did, so its two `printk()`s have no literal
/// level.
const KEPT_FINDINGS: &[(&str, &str, usize)] = &[
    (
        "0006-arm64-stacktrace-look-up-return-addresses-as-calls-w.patch",
        "WARNING: printk() should include KERN_<LEVEL> facility level",
        2,
    ),
    (
        "0011-arm64-stacktrace-look-up-return-addresses-as-calls-w.patch",
        "WARNING: printk() should include KERN_<LEVEL> facility level",
        2,
    ),
];

#[test]
fn checkpatch_is_clean_on_every_patch() {
    checkpatch_clean(&patches());
}

#[test]
fn the_readme_counts_the_series() {
    tidy::readme::check_stated("series", "{} patches", patches().len() as u64);
}

/// The mainline series of this version (`demo-kernel/upstream/VERSION`), if it has any, pass
/// `checkpatch.pl --strict` too. `make upstream-check` runs it again after `git am`, and also
/// builds and boots them; this is the quick half, in `make test`.
///
/// A version without a mainline series does not run it (its `KERNEL_TESTS` skips it), so that
/// it never passes having checked nothing.
#[test]
fn checkpatch_is_clean_on_the_mainline_series() {
    let dir = demo_kernel::demo_kernel_dir();
    let version = dir.file_name().unwrap();
    let upstream = dir.join("../upstream").join(version);
    assert!(
        upstream.join("series").is_file(),
        "{}/series is missing: Linux {} has no mainline series, and its kernel.conf's KERNEL_TESTS should skip this test",
        upstream.display(),
        version.display()
    );
    let topics = upstream::load(&upstream).unwrap_or_else(|e| panic!("{e}"));
    let patches: Vec<_> = topics.iter().flat_map(|t| t.patches.iter().cloned()).collect();
    assert!(!patches.is_empty());
    checkpatch_clean(&patches);
}

/// Who the patches are written out by for checkpatch: the repository keeps them without a
/// sender (`upstream::write_out`), as no invented person may author or sign them.
const SENDER: &str = "Patch Sender <sender@example.org>";

/// checkpatch over `patches` as a maintainer runs it, but for the Fixes: commits, which are
/// unknown to a tree without history (a tarball's).
fn checkpatch_clean(patches: &[std::path::PathBuf]) {
    let kernel = demo_kernel::kernel();
    let maintainers = std::fs::read_to_string(kernel.srctree.join("MAINTAINERS")).unwrap();
    let outgoing = tempfile::tempdir().unwrap();
    for patch in patches {
        let kept = std::fs::read_to_string(patch).unwrap();
        assert!(
            !kept.lines().any(|l| l.starts_with("From: ") || l.starts_with("Signed-off-by: ")),
            "{}: a patch is kept without a sender; it gets one when written out",
            patch.display()
        );
        let written = outgoing.path().join(patch.file_name().unwrap());
        std::fs::write(&written, upstream::write_out(&kept, SENDER)).unwrap();
        let cmd = Command::new("perl", &kernel.srctree)
            .arg("scripts/checkpatch.pl")
            .args(["--no-tree", "--strict", "--terse", "--no-summary"])
            .args(["--ignore", "UNKNOWN_COMMIT_ID"])
            .arg(&written)
            .timeout(Duration::from_secs(120));
        // It started, finished in time, and its output is whole.
        let out = testing::run(&cmd);
        let text = out.stdout.clone();
        let name = patch.file_name().unwrap().to_string_lossy();
        let findings: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        let kept: Vec<(&str, usize)> = KEPT_FINDINGS
            .iter()
            .filter(|(patch, _, _)| *patch == name)
            .map(|(_, finding, count)| (*finding, *count))
            .collect();
        for (finding, count) in &kept {
            let seen = findings.iter().filter(|l| l.ends_with(finding)).count();
            assert_eq!(seen, *count, "{name}: checkpatch's `{finding}`, counted\n{text}");
        }
        for line in &findings {
            assert!(
                line.contains(&NEW_FILE_WARNING[9..])
                    || kept.iter().any(|(finding, _)| line.ends_with(finding)),
                "{name}: checkpatch: {line}\n{text}"
            );
        }
        // checkpatch exits 1 when it reported anything, and 0 only when it reported nothing: a
        // run that failed before reading the patch exits otherwise or says why on stderr.
        let status = if findings.is_empty() { 0 } else { 1 };
        assert_eq!(out.status.code(), Some(status), "{name}: {}", testing::report(&cmd, &out));
        assert_eq!(out.stderr, "", "{name}: {}", testing::report(&cmd, &out));
        if text.contains(&NEW_FILE_WARNING[9..]) {
            // Each new file must sit under a directory that a MAINTAINERS entry lists (`F:` lines
            // ending in `/` cover everything below).
            let diff = std::fs::read_to_string(patch).unwrap();
            let new_files = diff
                .split("\ndiff --git a/")
                .skip(1)
                .filter(|d| d.contains("\nnew file mode"))
                .map(|d| d.split(' ').next().unwrap().to_owned());
            let dirs: Vec<&str> = maintainers
                .lines()
                .filter_map(|l| l.strip_prefix("F:\t"))
                .filter(|f| f.ends_with('/'))
                .collect();
            for file in new_files {
                assert!(
                    dirs.iter().any(|d| file.starts_with(d)),
                    "{name}: new file {file}, and no MAINTAINERS entry covers it"
                );
            }
        }
    }
}

#[test]
fn rustfmtcheck_is_clean() {
    let kernel = demo_kernel::kernel();
    kbuild::make::kernel_make(&kernel.srctree, &kernel.objtree)
        .arg("rustfmtcheck")
        .timeout(Duration::from_secs(300))
        .run_checked()
        .unwrap_or_else(|e| panic!("{e}"));
}
