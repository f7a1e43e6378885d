//! `kcidb-merge`: the KCIDB JSON of several CI cells (`make ci-cell`) as one document
//! (`make ci-merge`, the matrix's last job), each checkout, build and test once.
//!
//! Exit status: 0 when merged, 2 on a file that cannot be read or merged.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;

/// Merge KCIDB JSON files into one.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// The cells' files.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Where to write the merged document.
    #[arg(long)]
    out: PathBuf,
}

fn main() -> ExitCode {
    let _stdout = progress::stdout::quiet_when_closed();
    match run(&Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kcidb-merge: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> anyhow::Result<()> {
    let mut documents = Vec::new();
    for path in &args.files {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        documents.push(
            serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?,
        );
    }
    let merged = report::kcidb::merge(&documents)
        .with_context(|| format!("merging {} files", args.files.len()))?;
    report::write_atomically(&args.out, format!("{merged:#}\n"))
        .with_context(|| format!("cannot write {}", args.out.display()))?;
    let count = |kind: &str| merged[kind].as_array().map_or(0, Vec::len);
    eprintln!(
        "kcidb-merge: {} files: {} checkouts, {} builds, {} tests in {}",
        args.files.len(),
        count("checkouts"),
        count("builds"),
        count("tests"),
        args.out.display()
    );
    Ok(())
}
