//! `qemu-run`: boots a kernel in QEMU with modules and steps, and reports what happened.
//!
//! Exit status: 0 when `/init` ran every step, 1 when the boot went wrong (panic, timeout,
//! `/init` never reached), 2 when it could not be attempted (missing file, no QEMU).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::Parser;
use qemu::{Accel, BootConfig, Guest, Outcome};

/// Boot a kernel in QEMU with a generated busybox initramfs and report what happened.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    /// The kernel image, e.g. `$KERNEL_OBJ/arch/x86/boot/bzImage`.
    #[arg(long)]
    kernel: PathBuf,
    /// Its architecture (a folder of demo-kernel/arch/: `x86_64`, `arm64`): QEMU's program,
    /// machine and console, and the guest's busybox.
    #[arg(long, default_value = "x86_64")]
    arch: String,
    /// A module to put in the guest's /lib/modules (repeatable).
    #[arg(long = "module", value_name = "KO")]
    modules: Vec<PathBuf>,
    /// A shell command line for /init to run, in order (repeatable).
    #[arg(long = "step", value_name = "COMMAND")]
    steps: Vec<String>,
    /// Extra kernel command-line arguments.
    #[arg(long, default_value = "")]
    append: String,
    /// Hard limit for the whole boot, in seconds.
    #[arg(long, default_value_t = 120)]
    timeout: u64,
    /// Guest memory in MiB.
    #[arg(long, default_value_t = 512)]
    memory: u32,
    /// Accelerator.
    #[arg(long, value_enum, default_value_t = Accel::Auto)]
    accel: Accel,
    /// Directory for the initramfs and the console log, kept (default: a new temporary
    /// directory, removed at the end unless --keep).
    #[arg(long)]
    out_dir: Option<PathBuf>,
    /// Keep the temporary directory (initramfs and console log) and say where it is.
    #[arg(long, conflicts_with = "out_dir")]
    keep: bool,
    /// The statically linked busybox to use (default: the architecture's, `/bin/busybox` for
    /// the machine's own).
    #[arg(long)]
    busybox: Option<PathBuf>,
    /// The QEMU binary (default: the architecture's, `qemu-system-x86_64`).
    #[arg(long)]
    qemu: Option<PathBuf>,
    /// Print the result as JSON on stdout.
    #[arg(long)]
    json: bool,
    /// Print every console line on stderr as it arrives.
    #[arg(long, short)]
    verbose: bool,
}

fn main() -> ExitCode {
    let _stdout = progress::stdout::quiet_when_closed();
    let args = Args::parse();
    match run(&args) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("qemu-run: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> anyhow::Result<ExitCode> {
    // A temporary directory is removed when `temp` drops, on every way out of this function,
    // unless the user asked to keep it.
    let mut temp = None;
    let out_dir = match &args.out_dir {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            dir.clone()
        }
        None => {
            let dir = tempfile::Builder::new()
                .prefix("qemu-run-")
                .tempdir()
                .context("cannot create a temporary directory")?;
            if args.keep {
                let path = dir.keep();
                eprintln!("qemu-run: keeping the initramfs and console log in {}", path.display());
                path
            } else {
                temp.insert(dir).path().to_owned()
            }
        }
    };
    let arch = kbuild::arch::named(&args.arch).with_context(|| {
        format!(
            "--arch {}: not an architecture of the suite (they are: {})",
            args.arch,
            kbuild::arch::names()
        )
    })?;
    let guest = Guest {
        busybox: args.busybox.clone().unwrap_or_else(|| qemu::guest_busybox(&arch)),
        modules: args.modules.clone(),
        steps: args.steps.clone(),
    };
    let configure = |config: &mut BootConfig| {
        if let Some(qemu) = &args.qemu {
            config.qemu = qemu.clone();
        }
        config.append = args.append.clone();
        config.memory_mib = args.memory;
        config.accel = args.accel;
        config.timeout = Duration::from_secs(args.timeout);
    };
    let step = progress::start(&format!("booting {}", args.kernel.display()));
    let boot = qemu::boot_guest(&arch, &args.kernel, &guest, &out_dir, configure, &mut |line| {
        if args.verbose {
            step.println(line);
        } else {
            step.message(line);
        }
    });
    let boot = match boot {
        Ok(boot) => boot,
        Err(err) => {
            step.failed();
            return Err(err.into());
        }
    };
    let outcome = boot.outcome();
    if outcome == Outcome::Completed {
        step.done(&boot.describe());
    } else {
        step.failed();
    }

    if args.json {
        let json = serde_json::json!({ "outcome": outcome, "steps_run": args.steps, "boot": boot });
        println!("{}", serde_json::to_string_pretty(&json)?);
    } else {
        println!("{}", boot.describe());
        if let Some(note) = &boot.accel_note {
            println!("{note}");
        }
        print!("{}", boot.transcript(&args.steps, ""));
        if temp.is_none() {
            println!("console log: {}", boot.log.display());
        }
    }
    if outcome == Outcome::Completed {
        Ok(ExitCode::SUCCESS)
    } else {
        eprintln!("qemu-run: {}", boot.describe());
        eprintln!("{}", subprocess::format_tail(&boot.tail).trim_start());
        if temp.is_some() {
            eprintln!("qemu-run: the console log is removed; --keep or --out-dir keeps it");
        }
        Ok(ExitCode::FAILURE)
    }
}
