//! `workbench`: prepares and builds the demo kernel, or checks a user's tree (`make kernel`).
//!
//! Exit status: 0 when the tree is ready, 2 when it could not be made ready (missing input,
//! failed build, bad tree).

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use workbench::cli::TreeArgs;
use workbench::kernel;

/// Prepare and build the demo kernel.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Make the kernel tree ready (prepare and build ours, or check the user's) and print its paths.
    Kernel(TreeArgs),
}

fn main() -> ExitCode {
    let _stdout = progress::stdout::quiet_when_closed();
    let Cmd::Kernel(tree) = Cli::parse().command;
    match kernel::ensure(&tree.options()) {
        Ok(kernel) => {
            print!("{}", kernel::describe(&kernel));
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("workbench: error: {:#}", anyhow::Error::from(err));
            ExitCode::from(2)
        }
    }
}
