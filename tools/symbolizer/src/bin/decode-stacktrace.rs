//! `decode-stacktrace`: decodes the backtraces in a kernel log, like the kernel's
//! `scripts/decode_stacktrace.sh vmlinux [base_path [modules_dir]] < log`, with demangled Rust
//! names and inlined frames.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Parser;
use report::results;
use symbolizer::{Image, Symbolizer, decode};

/// Decode kernel backtraces read from stdin (or --log): Rust names demangled, file:line with
/// inlined frames, module frames from MODULES_DIR.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// The vmlinux the log came from, with DWARF.
    vmlinux: PathBuf,
    /// A prefix to remove from file names (usually the srctree).
    base_path: Option<PathBuf>,
    /// Where to find the modules' .ko files (searched recursively).
    modules_dir: Option<PathBuf>,
    /// Read the log from this file instead of stdin.
    #[arg(long)]
    log: Option<PathBuf>,
    /// Print the result as JSON (`report::results`' schema: the decoded log and its frames).
    #[arg(long)]
    json: bool,
}

fn main() -> ExitCode {
    let _stdout = progress::stdout::quiet_when_closed();
    match run(&Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("decode-stacktrace: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> anyhow::Result<()> {
    let vmlinux = Image::open(&args.vmlinux)?;
    let mut log = Vec::new();
    match &args.log {
        Some(path) => {
            log = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?
        }
        None => {
            std::io::stdin().read_to_end(&mut log).context("cannot read the log from stdin")?;
        }
    }
    let log = String::from_utf8_lossy(&log);
    let mut symbolizer =
        Symbolizer::new(vmlinux, args.base_path.as_deref(), args.modules_dir.as_deref());
    let decoded = decode(&log, &mut symbolizer);
    let nothing_decoded = decoded.frames.is_empty();
    if args.json {
        print!("{}", results::to_json(results::ToolResult::DecodeStacktrace(decoded)));
    } else {
        print!("{}", decoded.text);
    }
    for warning in &symbolizer.warnings {
        eprintln!("decode-stacktrace: warning: {warning}");
    }
    if nothing_decoded {
        // A filter like the script it replaces: the log goes through as it came, but a log
        // with nothing decoded is said so, never passed off as decoded.
        eprintln!(
            "decode-stacktrace: warning: no frame decoded: no line of the log names a function of {} or its modules in the backtrace formats read, {}",
            args.vmlinux.display(),
            oops::FORMATS
        );
    }
    Ok(())
}
