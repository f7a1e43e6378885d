//! `upstream-series`, the real binary on the real 7.3 series: it writes them out by git's
//! identity, refuses an identity that is not set or that no mail reaches (the repository's own
//! commit identity among them), and a test sender's files are what `upstream-check` accepts.

use std::path::{Path, PathBuf};
use std::time::Duration;

use subprocess::{Command, testing};

fn version_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo-kernel/upstream/7.3")
}

/// `upstream-series` into `out`, with git reading only `gitconfig` (no system or user file).
fn upstream_series(gitconfig: &Path, out: &Path, extra: &[&str]) -> subprocess::Output {
    let cmd = Command::new(env!("CARGO_BIN_EXE_upstream-series"), out.parent().unwrap())
        .arg("--upstream-dir")
        .arg(version_dir())
        .arg("--out-dir")
        .arg(out)
        .args(extra)
        .env("GIT_CONFIG_GLOBAL", gitconfig)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_SYSTEM", "/dev/null")
        .timeout(Duration::from_secs(120));
    testing::run(&cmd)
}

/// Every mail of the written series: its path, and the sender `upstream-check` would read from
/// it (the kept mail written out by that sender, or why not).
fn written_mails(out: &Path) -> Vec<(PathBuf, Result<String, upstream::WrittenOutError>)> {
    let topics = upstream::load(&version_dir()).unwrap();
    let mut mails = Vec::new();
    for topic in &topics {
        for kept in topic.mails() {
            let written = out.join(&topic.name).join(kept.file_name().unwrap());
            let kept_text = std::fs::read_to_string(kept).unwrap();
            let text = std::fs::read_to_string(&written).unwrap();
            mails.push((written, upstream::written_out_by(&kept_text, &text)));
        }
    }
    mails
}

#[test]
fn a_series_is_written_out_by_its_senders_git_identity() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("gitconfig");
    std::fs::write(&config, "[user]\n\tname = Ada Lovelace\n\temail = ada@kernel.org\n").unwrap();
    let out = tmp.path().join("outgoing");
    let run = upstream_series(&config, &out, &[]);
    assert!(run.status.success(), "{}", run.stderr);
    assert!(run.stdout.contains("written out by Ada Lovelace <ada@kernel.org>"), "{}", run.stdout);
    let mails = written_mails(&out);
    assert!(mails.len() >= 3, "{mails:?}");
    for (written, sender) in &mails {
        assert_eq!(sender.as_deref(), Ok("Ada Lovelace <ada@kernel.org>"), "{}", written.display());
        let text = std::fs::read_to_string(written).unwrap();
        let is_cover = written.file_name().unwrap() == "0000-cover-letter.patch";
        let signed = text.lines().any(|l| l == "Signed-off-by: Ada Lovelace <ada@kernel.org>");
        assert_eq!(signed, !is_cover, "{}", written.display());
    }
    // A patch left by an earlier run that the series no longer has is removed.
    let stale = out.join("kallsyms/0009-gone.patch");
    std::fs::write(&stale, "old").unwrap();
    assert!(upstream_series(&config, &out, &[]).status.success());
    assert!(!stale.exists());
}

#[test]
fn an_unset_or_invented_identity_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let cases = [
        ("", "git's user.name is not set"),
        ("[user]\n\tname = Ada Lovelace\n", "git's user.email is not set"),
        (
            // The identity the repository's own commits carry.
            "[user]\n\tname = Seed ed36fdc8 maintainers\n\
             \temail = maintainers@users.noreply.a-seed-ed36fdc8.example\n",
            "cannot be delivered (a reserved domain",
        ),
    ];
    for (i, (gitconfig, says)) in cases.into_iter().enumerate() {
        let config = tmp.path().join(format!("gitconfig{i}"));
        std::fs::write(&config, gitconfig).unwrap();
        let out = tmp.path().join(format!("outgoing{i}"));
        let run = upstream_series(&config, &out, &[]);
        assert_eq!(run.status.code(), Some(2), "{gitconfig:?}: {}", run.stdout);
        assert!(run.stderr.contains(says), "{gitconfig:?}: {}", run.stderr);
        assert!(!out.exists(), "{gitconfig:?} wrote {}", out.display());
    }
}

#[test]
fn a_test_sender_writes_only_at_a_reserved_domain() {
    let tmp = tempfile::tempdir().unwrap();
    let config = tmp.path().join("gitconfig");
    std::fs::write(&config, "").unwrap();
    let out = tmp.path().join("outgoing");
    let sender = "Check Sender <check@upstream-check.example>";
    let run = upstream_series(&config, &out, &["--test-sender", sender]);
    assert!(run.status.success(), "{}", run.stderr);
    assert!(run.stdout.contains("for checking only: not for mailing"), "{}", run.stdout);
    for (written, got) in written_mails(&out) {
        assert_eq!(got.as_deref(), Ok(sender), "{}", written.display());
    }
    let refused = tmp.path().join("refused");
    let run = upstream_series(&config, &refused, &["--test-sender", "Ada <ada@kernel.org>"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(run.stderr.contains("must be at a reserved domain"), "{}", run.stderr);
    assert!(!refused.exists());
}
