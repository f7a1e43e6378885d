//! `kbuild-flycheck`: rust-analyzer's check on save for kernel crates. Rebuilds the crate
//! with the given build label through kbuild, with rustc's JSON diagnostics, and prints those
//! on stdout for rust-analyzer; kbuild's own output goes to stderr.

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use kbuild::flycheck::{FlycheckArgs, check_command, is_diagnostic};
use subprocess::Stream;

/// Rebuild one kernel crate with JSON diagnostics (rust-project.json's flycheck runnable).
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    #[command(flatten)]
    check: FlycheckArgs,
}

fn main() -> ExitCode {
    let _stdout = progress::stdout::quiet_when_closed();
    let args = Args::parse().check;
    let check = match check_command(&args.objtree, &args.label, args.clippy) {
        Ok(check) => check,
        Err(e) => {
            eprintln!("kbuild-flycheck: error: {e}");
            return ExitCode::from(2);
        }
    };
    let cmd = kbuild::make::kernel_make(&args.srctree, &args.objtree)
        .args(&check.make_args)
        .timeout(Duration::from_secs(600));
    let result = cmd.run_with(&mut |stream, line| {
        if stream == Stream::Stderr && is_diagnostic(line) {
            println!("{line}");
        } else {
            eprintln!("{line}");
        }
    });
    match result {
        // A failed build is the normal case when the code has errors: they are on stdout.
        Ok(out) if !out.timed_out => ExitCode::SUCCESS,
        Ok(out) => {
            eprintln!("kbuild-flycheck: error: {}", out.check(&cmd).unwrap_err());
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("kbuild-flycheck: error: {e}");
            ExitCode::from(2)
        }
    }
}
