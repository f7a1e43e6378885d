//! `upstream-series`: writes our mainline series (`demo-kernel/upstream/VERSION/`) out for
//! mailing. The repository keeps them without a sender, since no invented person may author or
//! sign a patch; each cover letter and patch gets the sender's own `From:` and each patch the
//! sender's `Signed-off-by:`, from git's `user.name` and `user.email`. It refuses when they are
//! not set or name an address mail cannot reach. `upstream-check` checks what it writes.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Parser;
use subprocess::Command;
use upstream::{Sender, Topic};

/// Write our mainline series out by their sender, ready for `git send-email`.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// The version's series (`demo-kernel/upstream/7.3`).
    #[arg(long)]
    upstream_dir: PathBuf,
    /// Where the mailable series go, a folder a topic.
    #[arg(long)]
    out_dir: PathBuf,
    /// Write the series by this sender instead of git's identity, only to check them: `Name
    /// <local@domain.example>`, at a reserved domain so that nothing written can be mailed.
    #[arg(long)]
    test_sender: Option<String>,
}

fn main() -> ExitCode {
    let _stdout = progress::stdout::quiet_when_closed();
    let args = Args::parse();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("upstream-series: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<()> {
    let topics = upstream::load(&args.upstream_dir)?;
    let sender = match &args.test_sender {
        Some(ident) => upstream::test_sender(ident)?,
        None => {
            let name = git_config(&args.upstream_dir, "user.name")?;
            let email = git_config(&args.upstream_dir, "user.email")?;
            upstream::mail_sender(name.as_deref(), email.as_deref())?
        }
    };
    for topic in &topics {
        let dir = args.out_dir.join(&topic.name);
        let written = write_topic(topic, &dir, &sender)?;
        println!("{}: {written} mails", dir.display());
    }
    match &args.test_sender {
        Some(_) => println!("written out by {sender}, for checking only: not for mailing"),
        None => println!("written out by {sender}: check them with make upstream-check"),
    }
    Ok(())
}

/// Writes `topic`'s cover letter and patches out by `sender` into `dir`, each file atomically,
/// and removes the mails of an earlier run that the topic no longer has. Returns how many.
fn write_topic(topic: &Topic, dir: &Path, sender: &Sender) -> Result<usize> {
    std::fs::create_dir_all(dir).with_context(|| dir.display().to_string())?;
    let kept: Vec<&PathBuf> = topic.mails().collect();
    for path in &kept {
        let text = std::fs::read_to_string(path).with_context(|| path.display().to_string())?;
        let out = dir.join(path.file_name().context("a patch file")?);
        report::write_atomically(&out, upstream::write_out(&text, &sender.to_string()))
            .with_context(|| out.display().to_string())?;
    }
    let entries = std::fs::read_dir(dir).with_context(|| dir.display().to_string())?;
    for entry in entries {
        let path = entry.with_context(|| dir.display().to_string())?.path();
        let ours = kept.iter().any(|k| k.file_name() == path.file_name());
        if !ours && path.extension().is_some_and(|e| e == "patch") {
            std::fs::remove_file(&path).with_context(|| path.display().to_string())?;
        }
    }
    Ok(kept.len())
}

/// git's setting `key` as seen from `dir`, or none.
fn git_config(dir: &Path, key: &str) -> Result<Option<String>> {
    let cmd =
        Command::new("git", dir).args(["config", "--get", key]).timeout(Duration::from_secs(60));
    let out = cmd.run()?;
    // `git config --get` exits 1 for a key that is not set.
    match out.status.code() {
        Some(0) => Ok(Some(out.stdout.trim().to_owned())),
        Some(1) => Ok(None),
        _ => Err(anyhow::anyhow!("{cmd} failed: {}", out.stderr.trim())),
    }
}
