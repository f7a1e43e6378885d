//! `rust-project-check`: rust-analyzer's own check of a `rust-project.json` (`rust-analyzer
//! diagnostics` over its folder), its errors told apart from rust-analyzer's known bugs.
//!
//! Exit status: 0 when rust-analyzer found no error but its known bugs', 1 when it found
//! others, 2 when it could not check (no rust-analyzer, a file it cannot load, a timeout).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, bail};
use clap::Parser;
use report::results;
use rust_project_gen::rust_analyzer;
use subprocess::Command;

/// Check a rust-project.json with rust-analyzer, as the editor would load it.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// The folder that holds rust-project.json.
    folder: PathBuf,
    /// The rust-analyzer to check with (default: the toolchain's, from `rustc --print sysroot`).
    #[arg(long, value_name = "PATH")]
    rust_analyzer: Option<PathBuf>,
    /// Give up after this many seconds.
    #[arg(long, default_value_t = 900)]
    timeout: u64,
    /// Print the result as JSON (`report::results`' schema) instead of the error lines.
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let _stdout = progress::stdout::quiet_when_closed();
    let args = Args::parse();
    match run(&args) {
        Ok(analysis) => {
            let clean = analysis.errors.is_empty();
            if args.json {
                print!("{}", results::to_json(results::ToolResult::RustAnalyzer(analysis)));
            } else {
                for error in &analysis.errors {
                    println!("{error}");
                }
                for known in &analysis.known_bugs {
                    println!("{} (rust-analyzer's own bug {})", known.error, known.issue);
                }
                eprintln!("rust-project-check: {}: {}", analysis.rust_analyzer, analysis.verdict());
            }
            if clean { ExitCode::SUCCESS } else { ExitCode::FAILURE }
        }
        Err(err) => {
            eprintln!("rust-project-check: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> anyhow::Result<results::Analysis> {
    let folder = std::path::absolute(&args.folder).context("the folder's path")?;
    if !folder.join("rust-project.json").is_file() {
        bail!(
            "{} has no rust-project.json: write one first (`rust-project-gen`, or `make rust-analyzer`)",
            folder.display()
        );
    }
    let ra = match &args.rust_analyzer {
        Some(ra) => ra.clone(),
        None => toolchain_rust_analyzer(&folder)?,
    };
    let version = Command::new(&ra, &folder)
        .arg("--version")
        .timeout(Duration::from_secs(60))
        .run_checked()
        .with_context(|| format!("asking {} for its version", ra.display()))?
        .stdout;
    let step = progress::start(&format!("{}: diagnostics of {}", version.trim(), folder.display()));
    let out = Command::new(&ra, &folder)
        .arg("diagnostics")
        .arg(&folder)
        .timeout(Duration::from_secs(args.timeout))
        .capture_limit(256 << 20)
        .run()
        .with_context(|| format!("running {} diagnostics", ra.display()))?;
    // It exits 1 when it found an error; anything else (or no output at all) is no check.
    if out.timed_out || !matches!(out.status.code(), Some(0 | 1)) {
        bail!(
            "{} diagnostics {} failed ({}): {}",
            ra.display(),
            folder.display(),
            subprocess::describe_status(out.status),
            subprocess::format_tail(&out.tail)
        );
    }
    if let Some(line) = rust_analyzer::load_failure(&out.stdout)
        .or_else(|| rust_analyzer::load_failure(&out.stderr))
    {
        bail!("{} could not load {}: {line}", ra.display(), folder.display());
    }
    let analysis = rust_analyzer::analysis(&folder, &version, &out.stdout);
    step.done(&analysis.verdict());
    Ok(analysis)
}

/// The toolchain's rust-analyzer (the `rust-analyzer` rustup component).
fn toolchain_rust_analyzer(cwd: &Path) -> anyhow::Result<PathBuf> {
    let sysroot = Command::new("rustc", cwd)
        .args(["--print", "sysroot"])
        .timeout(Duration::from_secs(60))
        .run_checked()
        .context("asking rustc for its sysroot")?
        .stdout;
    let ra = Path::new(sysroot.trim()).join("bin/rust-analyzer");
    if !ra.is_file() {
        bail!(
            "{} does not exist: install it with `rustup component add rust-analyzer` (`make setup` does), or give --rust-analyzer",
            ra.display()
        );
    }
    Ok(ra)
}
