//! `workbench`: prepares, builds and boots the demo kernel (`make kernel`, `make demo`).
//!
//! Exit status: 0 on success, 1 when the demo boot went wrong, 2 when the trees could not be made
//! ready (missing input, failed build, bad tree).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::{Args, Parser, Subcommand};
use qemu::{Guest, Outcome};
use workbench::kernel::{self, Kernel, KernelOptions, Managed, Source};
use workbench::suite;

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
        /// Then run every tool of the suite against the tree, with the documentation site here.
        #[arg(long)]
        docs_dir: Option<PathBuf>,
        /// What the site says the tree's configuration is.
        #[arg(long, default_value = "")]
        config_name: String,
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
    /// A config fragment to merge after demo.config, for a configuration of one's own on top of
    /// the demo's (repeatable; later ones override earlier ones).
    #[arg(long = "config-fragment", value_name = "FRAGMENT", requires = "demo_kernel")]
    config_fragments: Vec<PathBuf>,
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
                extra_fragments: self.config_fragments.clone(),
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
        Cmd::Demo { tree, work_dir, boot_timeout, docs_dir, config_name } => {
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
            // The boot is reused while the kernel, the modules and the workbench are the same.
            let mut inputs = vec![kernel.built.bzimage.clone(), std::env::current_exe()?];
            inputs.extend(modules.iter().cloned());
            let reuse = suite::Reuse::new(work_dir, "demo-boot", suite::inputs_key(&inputs));
            let step = progress::start("booting the demo kernel in QEMU");
            let (ok, boot_report, boot_time, boot_reused) = match reuse.get() {
                Some(report) => {
                    let took = step.done("reused: kernel and modules unchanged");
                    (true, report, took, true)
                }
                None => {
                    let guest = Guest { busybox: "/bin/busybox".into(), modules, steps };
                    let boot = qemu::boot_guest(
                        &kernel.built.bzimage,
                        &guest,
                        work_dir,
                        |config| config.timeout = Duration::from_secs(*boot_timeout),
                        &mut |line| step.message(line),
                    )?;
                    let ok = boot.outcome() == Outcome::Completed
                        && boot.console.steps.iter().all(|s| s.exit_code == Some(0));
                    let took = if ok { step.done(&boot.describe()) } else { step.failed() };
                    let mut report = format!("  {}\n", boot.describe());
                    if let Some(note) = &boot.accel_note {
                        report += &format!("  {note}\n");
                    }
                    report += &boot.transcript(&guest.steps, "  ");
                    report += &format!("  console log: {}\n", boot.log.display());
                    if ok {
                        reuse.put(&report);
                    } else {
                        eprintln!(
                            "workbench: the demo boot did not go as expected: {}",
                            boot.describe()
                        );
                        eprintln!("{}", subprocess::format_tail(&boot.tail).trim_start());
                    }
                    (ok, report, took, false)
                }
            };

            print_kernel(&kernel);
            println!(
                "boot:{}",
                if boot_reused { " (reused: kernel and modules unchanged)" } else { "" }
            );
            print!("{boot_report}");
            let tools = match docs_dir {
                Some(docs_dir) => run_suite(&kernel, work_dir, docs_dir, config_name)?,
                None => Vec::new(),
            };
            println!("timings:");
            for (stage, _, took) in &kernel.stages {
                println!("  {stage:<10} {}", progress::format_duration(*took));
            }
            println!("  {:<10} {}", "boot", progress::format_duration(boot_time));
            println!("  {:<10} {}", "total", progress::format_duration(start.elapsed()));
            let ok = ok && tools.iter().all(|t| t.ok);
            Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
    }
}

/// Every other tool of the suite against the tree, each with a progress line, then a summary.
fn run_suite(
    kernel: &Kernel,
    work_dir: &Path,
    docs_dir: &Path,
    config_name: &str,
) -> anyhow::Result<Vec<suite::ToolResult>> {
    let bin_dir = std::env::current_exe()?
        .parent()
        .map(Path::to_owned)
        .context("the workbench's own folder")?;
    let extmod_dir = kernel.extmods.first().and_then(|m| m.dir.parent()).map(Path::to_owned);
    let suite = suite::Suite {
        bin_dir,
        srctree: kernel.srctree.path.clone(),
        objtree: kernel.objtree.path.clone(),
        extmod_dir: extmod_dir.unwrap_or_else(|| work_dir.join("no-extmods")),
        work_dir: work_dir.to_owned(),
        docs_dir: docs_dir.to_owned(),
    };
    let kos: Vec<PathBuf> = kernel.extmods.iter().flat_map(|m| m.kos.iter().cloned()).collect();
    let doctests = kernel.objtree.config.is_enabled("RUST_KERNEL_DOCTESTS");
    let runs: [(&str, &dyn Fn() -> suite::ToolResult); 6] = [
        ("rust-project-gen and rust-analyzer's check", &|| suite.rust_project_gen()),
        ("lint-rules", &|| suite.lint_rules()),
        ("docs-site (crates, doctests in QEMU, links)", &|| suite.docs_site(config_name, doctests)),
        ("kallsyms-check (oops scenarios in QEMU)", &|| suite.kallsyms_check(&kos)),
        ("decode-stacktrace", &|| suite.decode_stacktrace()),
        ("layout-check (Rust's and C's struct layouts)", &|| suite.layout_check()),
    ];
    let mut results = Vec::new();
    for (what, run) in runs {
        let step = progress::start(what);
        let result = run();
        if result.ok {
            step.done(if result.reused { "reused" } else { "ok" });
        } else {
            step.failed();
        }
        results.push(result);
    }
    println!("tools:");
    for r in &results {
        let verdict = match (r.ok, r.reused) {
            (false, _) => "FAILED",
            (true, true) => "reused",
            (true, false) => "ok",
        };
        println!(
            "  {:<18} {verdict:<6} {:>7}  {}",
            r.tool,
            progress::format_duration(r.took),
            r.summary
        );
        for output in &r.outputs {
            println!("  {:<18} {:<6} {:>7}  {}", "", "", "", output.display());
        }
    }
    Ok(results)
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
