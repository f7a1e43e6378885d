//! `demo`: the main job (`make demo`). Makes the kernel tree ready, boots it with the Rust
//! samples in QEMU, then runs every tool of the suite against it and prints one summary from
//! their typed results (each also kept as JSON in `WORK_DIR/results/`).
//!
//! Exit status: 0 when everything did what the demo expects, 1 when the boot or a tool did
//! not, 2 when the trees could not be made ready.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use clap::Parser;
use demo::reuse::{Reuse, key_of};
use demo::tools::{Ran, Suite};
use qemu::{Guest, Outcome};
use report::results::ToolResult;
use workbench::cli::TreeArgs;
use workbench::kernel::{self, Kernel};

/// Make the demo kernel ready, boot it with the Rust samples, run each tool, and summarise.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    #[command(flatten)]
    tree: TreeArgs,
    /// Directory for the initramfs, the console logs and every tool's output.
    #[arg(long)]
    work_dir: PathBuf,
    /// Hard limit for the boot, in seconds.
    #[arg(long, default_value_t = 180)]
    boot_timeout: u64,
    /// Then run every tool of the suite against the tree, with the documentation site here.
    #[arg(long)]
    docs_dir: Option<PathBuf>,
    /// docs-site's store of documentation that trees share (`core`), if any.
    #[arg(long)]
    docs_shared_dir: Option<PathBuf>,
    /// What the site says the tree's configuration is.
    #[arg(long, default_value = "")]
    config_name: String,
    /// Only write the KCIDB JSON of the results the last demo kept in WORK_DIR/results/ (no
    /// boot, no tool run): `make report`.
    #[arg(long)]
    report: bool,
    /// The tree was built by TuxMake (`tuxmake --build-dir KERNEL_OBJ`): its `metadata.json`,
    /// for the build's record in the KCIDB JSON.
    #[arg(long, value_name = "METADATA_JSON")]
    tuxmake_metadata: Option<PathBuf>,
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
            eprintln!("demo: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: &Cli) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let kernel = kernel::ensure(&cli.tree.options())?;
    if cli.report {
        let results = demo::tools::kept_results(&cli.work_dir).map_err(anyhow::Error::msg)?;
        println!("{}", write_kcidb(&kernel, cli, &results)?.display());
        return Ok(ExitCode::SUCCESS);
    }
    std::fs::create_dir_all(&cli.work_dir)
        .with_context(|| format!("cannot create {}", cli.work_dir.display()))?;
    let (boot_ok, boot_report, boot_time, boot_reused) = boot(&kernel, cli)?;
    print!("{}", kernel::describe(&kernel));
    println!("boot:{}", if boot_reused { " (reused: kernel and modules unchanged)" } else { "" });
    print!("{boot_report}");
    let tools = match &cli.docs_dir {
        Some(docs_dir) => run_tools(&kernel, cli, docs_dir)?,
        None => Vec::new(),
    };
    print!("{}", demo::summary::render(&tools));
    if !tools.is_empty() {
        let results: Vec<ToolResult> = tools.iter().filter_map(|r| r.result.clone().ok()).collect();
        println!("kcidb: {}", write_kcidb(&kernel, cli, &results)?.display());
    }
    println!("timings:");
    for (stage, _, took) in &kernel.stages {
        println!("  {stage:<10} {}", progress::format_duration(*took));
    }
    println!("  {:<10} {}", "boot", progress::format_duration(boot_time));
    println!("  {:<10} {}", "total", progress::format_duration(start.elapsed()));
    let ok = boot_ok && tools.iter().all(Ran::ok);
    Ok(if ok { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}

/// Writes the KCIDB JSON of `results` on this tree into the work folder; returns its path.
fn write_kcidb(kernel: &Kernel, cli: &Cli, results: &[ToolResult]) -> anyhow::Result<PathBuf> {
    let checkout = demo::kcidb::checkout(kernel);
    let mut build = demo::kcidb::build(kernel, &cli.config_name);
    if let Some(path) = &cli.tuxmake_metadata {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let metadata =
            serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
        build = demo::kcidb::with_tuxmake(build, &metadata)
            .with_context(|| path.display().to_string())?;
    }
    let document = report::kcidb::render(&checkout, &build, results);
    let path = cli.work_dir.join("kcidb.json");
    let text = format!("{document:#}\n");
    report::write_atomically(&path, text)
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// Boots the kernel with the samples and the out-of-tree modules that load cleanly, loading and
/// unloading each (reused while the kernel, the modules and the demo are the same): whether it
/// went as expected, its report, how long it took, and whether it was reused.
fn boot(kernel: &Kernel, cli: &Cli) -> anyhow::Result<(bool, String, Duration, bool)> {
    let mut modules = kernel::modules(kernel, &SAMPLES)?;
    // The `rust_oops*` modules oops on purpose: kallsyms-check loads them.
    let extmods: Vec<&PathBuf> = kernel
        .extmods
        .iter()
        .filter(|m| !m.name.starts_with("rust_oops"))
        .flat_map(|m| &m.kos)
        .collect();
    modules.extend(extmods.iter().map(|ko| (*ko).clone()));
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
    let mut inputs = vec![kernel.built.image.clone(), std::env::current_exe()?];
    inputs.extend(modules.iter().cloned());
    let reuse = Reuse::new(&cli.work_dir, "demo-boot", key_of(&inputs, &steps.join("\n")));
    let step = progress::start("booting the demo kernel in QEMU");
    if let Some(report) = reuse.get() {
        let took = step.done("reused: kernel and modules unchanged");
        return Ok((true, report, took, true));
    }
    let guest = Guest { busybox: qemu::guest_busybox(&kernel.built.arch), modules, steps };
    let boot = qemu::boot_guest(
        &kernel.built.arch,
        &kernel.built.image,
        &guest,
        &cli.work_dir,
        |config| config.timeout = Duration::from_secs(cli.boot_timeout),
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
        eprintln!("demo: the demo boot did not go as expected: {}", boot.describe());
        eprintln!("{}", subprocess::format_tail(&boot.tail).trim_start());
    }
    Ok((ok, report, took, false))
}

/// Every tool of the suite against the tree, each with a progress line.
fn run_tools(kernel: &Kernel, cli: &Cli, docs_dir: &Path) -> anyhow::Result<Vec<Ran>> {
    let (work_dir, config_name) = (cli.work_dir.as_path(), cli.config_name.as_str());
    let bin_dir =
        std::env::current_exe()?.parent().map(Path::to_owned).context("the demo's own folder")?;
    let extmod_dir = kernel.extmods.first().and_then(|m| m.dir.parent()).map(Path::to_owned);
    let suite = Suite {
        bin_dir,
        srctree: kernel.srctree.path.clone(),
        objtree: kernel.objtree.path.clone(),
        extmod_dir: extmod_dir.unwrap_or_else(|| work_dir.join("no-extmods")),
        work_dir: work_dir.to_owned(),
        docs_dir: docs_dir.to_owned(),
        docs_shared_dir: cli.docs_shared_dir.clone(),
        sysroot: demo::tools::toolchain_sysroot(work_dir)?,
    };
    let kos: Vec<PathBuf> = kernel.extmods.iter().flat_map(|m| m.kos.iter().cloned()).collect();
    let doctests = kernel.objtree.config.is_enabled("RUST_KERNEL_DOCTESTS");
    let image = &kernel.built.image;
    let runs: [(&str, &dyn Fn() -> Ran); 7] = [
        ("rust-project-gen", &|| suite.rust_project_gen()),
        ("rust-analyzer's check of its file", &|| suite.rust_analyzer()),
        ("lint-rules", &|| suite.lint_rules()),
        ("docs-site (crates, doctests in QEMU, links)", &|| suite.docs_site(config_name, doctests)),
        ("kallsyms-check (oops scenarios in QEMU)", &|| suite.kallsyms_check(image, &kos)),
        ("decode-stacktrace", &|| suite.decode_stacktrace()),
        ("layout-check (Rust's and C's struct layouts)", &|| suite.layout_check()),
    ];
    let mut ran = Vec::new();
    for (what, run) in runs {
        let step = progress::start(what);
        let result = run();
        if result.ok() {
            step.done(if result.reused { "reused" } else { "ok" });
        } else {
            step.failed();
        }
        ran.push(result);
    }
    Ok(ran)
}
