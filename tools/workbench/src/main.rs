//! `workbench`: prepares, builds and boots the demo kernel (`make kernel`, `make demo`).
//!
//! Exit status: 0 on success, 1 when the demo boot went wrong, 2 when the trees could not be made
//! ready (missing input, failed build, bad tree).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use qemu::{Guest, Outcome};
use workbench::kernel::{self, Kernel, KernelOptions, Managed, Source};

/// Prepare, build and boot the demo kernel.
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
    /// Make the kernel ready, boot it with the Rust samples, and summarise.
    Demo {
        #[command(flatten)]
        tree: TreeArgs,
        /// Directory for the initramfs and console log.
        #[arg(long)]
        work_dir: PathBuf,
        /// Hard limit for the boot, in seconds.
        #[arg(long, default_value_t = 180)]
        boot_timeout: u64,
    },
}

#[derive(Args, Debug)]
struct TreeArgs {
    /// The kernel source tree (KERNEL_SRC).
    #[arg(long)]
    srctree: PathBuf,
    /// The build tree (KERNEL_OBJ); defaults to the srctree.
    #[arg(long)]
    objtree: Option<PathBuf>,
    /// Prepare the trees from this demo kernel's folder (`demo-kernel/6.12`: patches/series,
    /// demo.config)...
    #[arg(long, requires_all = ["package", "log_dir"])]
    demo_kernel: Option<PathBuf>,
    /// ...the Debian package of its source (`linux-source-6.12`, whose tarball is
    /// `/usr/src/linux-source-6.12.tar.xz` once installed)...
    #[arg(long, requires = "demo_kernel")]
    package: Option<String>,
    /// ...or, with this Debian suite (`trixie-backports`), fetched with a private apt state...
    #[arg(long, requires_all = ["package", "packages_dir"])]
    suite: Option<String>,
    /// ...into this folder of the cache...
    #[arg(long, requires = "suite")]
    packages_dir: Option<PathBuf>,
    /// ...or this tarball instead of the package's...
    #[arg(long, requires = "demo_kernel")]
    tarball: Option<PathBuf>,
    /// ...and a folder for build logs.
    #[arg(long, requires = "demo_kernel")]
    log_dir: Option<PathBuf>,
    /// Parallel kbuild jobs (default: cores + 1).
    #[arg(long)]
    jobs: Option<usize>,
    /// Build each folder of this directory as an out-of-tree module (make M=)...
    #[arg(long, requires = "extmod_build_dir")]
    extmod_sources: Option<PathBuf>,
    /// ...in a copy under this directory.
    #[arg(long, requires = "extmod_sources")]
    extmod_build_dir: Option<PathBuf>,
}

impl TreeArgs {
    fn source(&self) -> Source {
        let package = self.package.clone().unwrap_or_default();
        match (&self.tarball, &self.suite, &self.packages_dir) {
            (Some(tarball), _, _) => Source::Tarball(tarball.clone()),
            (None, Some(suite), Some(dir)) => {
                Source::Apt { package, suite: suite.clone(), dir: dir.clone() }
            }
            _ => Source::Tarball(PathBuf::from(format!("/usr/src/{package}.tar.xz"))),
        }
    }

    fn options(&self) -> KernelOptions {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        KernelOptions {
            srctree: self.srctree.clone(),
            objtree: self.objtree.clone().unwrap_or_else(|| self.srctree.clone()),
            managed: self.demo_kernel.as_ref().map(|demo_kernel| Managed {
                source: self.source(),
                demo_kernel: demo_kernel.clone(),
                log_dir: self.log_dir.clone().unwrap_or_default(),
            }),
            jobs: self.jobs.unwrap_or(cores + 1),
            extmods: self.extmod_sources.clone().zip(self.extmod_build_dir.clone()),
        }
    }
}

/// The in-tree Rust samples the demo loads, by their config option.
const SAMPLES: [(&str, &str); 2] = [
    ("SAMPLE_RUST_MINIMAL", "samples/rust/rust_minimal.ko"),
    ("SAMPLE_RUST_PRINT", "samples/rust/rust_print.ko"),
];

fn main() -> ExitCode {
    let _stdout = progress::stdout::quiet_when_closed();
    let cli = Cli::parse();
    match run(&cli) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("workbench: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    match &cli.command {
        Cmd::Kernel(tree) => {
            let kernel = kernel::ensure(&tree.options())?;
            print_kernel(&kernel);
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Demo { tree, work_dir, boot_timeout } => {
            let kernel = kernel::ensure(&tree.options())?;
            let mut modules = kernel::modules(&kernel, &SAMPLES)?;
            // The out-of-tree modules that load cleanly (the `rust_oops*` ones oops on purpose).
            let extmods: Vec<&PathBuf> = kernel
                .extmods
                .iter()
                .filter(|m| !m.name.starts_with("rust_oops"))
                .flat_map(|m| &m.kos)
                .collect();
            modules.extend(extmods.iter().map(|ko| (*ko).clone()));
            std::fs::create_dir_all(work_dir)
                .with_context(|| format!("cannot create {}", work_dir.display()))?;
            let mut steps = vec![
                "insmod /lib/modules/rust_minimal.ko".to_owned(),
                "insmod /lib/modules/rust_print.ko".to_owned(),
                "rmmod rust_minimal".to_owned(),
            ];
            for ko in extmods {
                let name = ko.file_stem().unwrap_or_default().to_string_lossy();
                steps.push(format!("insmod /lib/modules/{name}.ko"));
                steps.push(format!("rmmod {name}"));
            }
            let guest = Guest { busybox: "/bin/busybox".into(), modules, steps };
            let step = progress::start("booting the demo kernel in QEMU");
            let boot = qemu::boot_guest(
                &kernel.built.bzimage,
                &guest,
                work_dir,
                |config| config.timeout = Duration::from_secs(*boot_timeout),
                &mut |line| step.message(line),
            )?;
            let ok = boot.outcome() == Outcome::Completed
                && boot.console.steps.iter().all(|s| s.exit_code == Some(0));
            let boot_time = if ok { step.done(&boot.describe()) } else { step.failed() };

            print_kernel(&kernel);
            println!("boot:");
            println!("  {}", boot.describe());
            if let Some(note) = &boot.accel_note {
                println!("  {note}");
            }
            print!("{}", boot.transcript(&guest.steps, "  "));
            println!("  console log: {}", boot.log.display());
            println!("timings:");
            for (stage, _, took) in &kernel.stages {
                println!("  {stage:<10} {}", progress::format_duration(*took));
            }
            println!("  {:<10} {}", "boot", progress::format_duration(boot_time));
            println!("  {:<10} {}", "total", progress::format_duration(start.elapsed()));
            if ok {
                Ok(ExitCode::SUCCESS)
            } else {
                eprintln!("workbench: the demo boot did not go as expected: {}", boot.describe());
                eprintln!("{}", subprocess::format_tail(&boot.tail).trim_start());
                Ok(ExitCode::FAILURE)
            }
        }
    }
}

fn print_kernel(kernel: &Kernel) {
    println!("kernel: Linux {}", kernel.srctree.version);
    println!("  srctree  {}", kernel.srctree.path.display());
    println!("  objtree  {}", kernel.objtree.path.display());
    println!(
        "  vmlinux  {} ({})",
        kernel.built.vmlinux.display(),
        kernel::file_size(&kernel.built.vmlinux)
    );
    println!(
        "  bzImage  {} ({})",
        kernel.built.bzimage.display(),
        kernel::file_size(&kernel.built.bzimage)
    );
    for module in &kernel.extmods {
        println!("  M={}  {} ({} .ko)", module.dir.display(), module.name, module.kos.len());
    }
    for (stage, what, took) in &kernel.stages {
        println!("  {stage:<8} {what} in {}", progress::format_duration(*took));
    }
}
