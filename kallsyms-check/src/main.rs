//! `kallsyms-check`: boots the demo kernel's oops scenarios and checks that every Rust frame of
//! every backtrace is the kernel's own symbol, whole (or cut at `KSYM_NAME_LEN - 1` only when it
//! is longer), demangles, and has its offset inside it; `scan` shows how long the Rust symbols
//! of `vmlinux` and the modules are.
//!
//! Exit status: 0 when every check holds, 1 when one does not, 2 on errors.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use kallsyms_check::html::{ImageHistogram, ScenarioReport, render_html};
use kallsyms_check::{
    FrameCheck, KSYM_NAME_LEN, SymbolTable, check_frames, identity_matches, length_histogram,
    parse_proc_kallsyms, prefixed_length,
};
use qemu::{Guest, Outcome};
use symbolizer::Image;

/// Check that Rust symbols come out of kallsyms whole.
#[derive(Parser, Debug)]
#[command(version)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand, Debug)]
enum Cmd {
    /// Boot each oops scenario in QEMU and check its backtraces.
    Run {
        /// The built objtree (vmlinux, bzImage).
        #[arg(long)]
        objtree: PathBuf,
        /// The build folder of demo-kernel/modules (holds rust_oops/*.ko).
        #[arg(long)]
        extmod_dir: PathBuf,
        /// Print the results as JSON.
        #[arg(long)]
        json: bool,
        /// Also write an HTML report here (frames, and symbol-length histograms).
        #[arg(long)]
        html: Option<PathBuf>,
    },
    /// Check the backtraces in a log already captured.
    Check {
        /// vmlinux.
        vmlinux: PathBuf,
        /// Where the modules' .ko files are.
        modules_dir: PathBuf,
        /// The console or dmesg log.
        log: PathBuf,
    },
    /// How long the Rust function symbols of vmlinux and the modules are, against KSYM_NAME_LEN.
    Scan {
        /// vmlinux.
        vmlinux: PathBuf,
        /// Where the modules' .ko files are.
        modules_dir: PathBuf,
    },
}

/// The scenarios: a module that oopses on load, and what it shows.
const SCENARIOS: &[(&str, &str)] = &[
    ("rust_oops_null", "NULL-pointer write at the end of a chain of long generic frames"),
    ("rust_oops_panic", "Rust panic (BUG()) at the end of the same chain"),
    ("rust_oops_long", "frames with symbols of 505 and over 512 characters"),
];

struct Table<'a>(&'a Image);

impl SymbolTable for Table<'_> {
    fn size_of(&self, name: &str) -> Option<u64> {
        self.0.symbol(name).map(|(_, size)| size)
    }

    fn starting_with(&self, prefix: &str) -> Option<(String, u64)> {
        self.0.complete(prefix).map(|(name, _, size)| (name.to_owned(), size))
    }
}

fn main() -> ExitCode {
    match run(&Cli::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("kallsyms-check: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// `vmlinux` and the modules of a directory, each opened once for all scenarios and reports.
struct Images {
    /// (name, image), `vmlinux` first.
    all: Vec<(String, Image)>,
}

impl Images {
    fn open(vmlinux: &Path, modules_dir: &Path) -> anyhow::Result<Images> {
        let mut all = vec![(vmlinux.display().to_string(), Image::open(vmlinux)?)];
        for (name, path) in symbolizer::find_modules(modules_dir) {
            all.push((name, Image::open(&path)?));
        }
        Ok(Images { all })
    }

    /// Checks the Rust frames of `reports` against these images.
    fn check(&self, reports: &[oops::Report]) -> Vec<FrameCheck> {
        let tables: Vec<(&str, Table<'_>)> =
            self.all.iter().map(|(n, i)| (n.as_str(), Table(i))).collect();
        check_frames(reports, &mut |module| {
            let table = match module {
                None => tables.first(),
                Some(m) => tables[1..].iter().find(|(n, _)| *n == m.replace('-', "_")),
            };
            table.map(|(_, t)| t as &dyn SymbolTable)
        })
    }
}

/// The lengths of an image's Rust function symbols.
fn rust_lengths(image: &Image) -> Vec<usize> {
    image.symbols().map(|(n, ..)| n).filter(|n| n.starts_with("_R")).map(str::len).collect()
}

/// Writes the HTML report, atomically.
fn write_html(
    path: &Path,
    images: &Images,
    scenarios: &[(&str, &str, bool, Vec<FrameCheck>)],
) -> anyhow::Result<()> {
    let histograms: Vec<(&str, Vec<(String, usize)>)> = images
        .all
        .iter()
        .map(|(name, image)| (name.as_str(), length_histogram(rust_lengths(image).into_iter())))
        .collect();
    let reports: Vec<ScenarioReport<'_>> = scenarios
        .iter()
        .map(|(name, what, ok, frames)| ScenarioReport { name, what, ok: *ok, frames })
        .collect();
    let images: Vec<ImageHistogram<'_>> =
        histograms.iter().map(|(name, buckets)| ImageHistogram { name, buckets }).collect();
    let text = render_html("kallsyms-check: Rust frames in kernel backtraces", &reports, &images);
    let tmp = path.with_extension("html.tmp");
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

fn print_checks(checks: &[FrameCheck]) {
    for c in checks {
        let name: String = if c.printed.len() > 60 {
            format!("{}…", &c.printed[..59])
        } else {
            c.printed.clone()
        };
        println!(
            "  {:<4} {:<8} {:>4} chars  {:<60} [{}]",
            if c.ok() { "ok" } else { "FAIL" },
            format!("{:?}", c.verdict).to_lowercase(),
            c.length,
            name,
            c.module.as_deref().unwrap_or("vmlinux")
        );
    }
}

fn run(cli: &Cli) -> anyhow::Result<bool> {
    match &cli.command {
        Cmd::Check { vmlinux, modules_dir, log } => {
            let images = Images::open(vmlinux, modules_dir)?;
            let text = std::fs::read_to_string(log)
                .with_context(|| format!("cannot read {}", log.display()))?;
            let checks = images.check(&oops::parse_log(&text));
            print_checks(&checks);
            Ok(checks.iter().all(FrameCheck::ok))
        }
        Cmd::Scan { vmlinux, modules_dir } => {
            let images = Images::open(vmlinux, modules_dir)?;
            for (name, image) in &images.all {
                let rust: Vec<&str> =
                    image.symbols().map(|(n, ..)| n).filter(|n| n.starts_with("_R")).collect();
                let longest = rust.iter().map(|n| n.len()).max().unwrap_or(0);
                println!(
                    "{name}: {} Rust function symbols, longest {longest} characters",
                    rust.len()
                );
                for (bucket, count) in length_histogram(rust_lengths(image).into_iter()) {
                    println!("  {bucket:>7}: {count}");
                }
                for symbol in rust.iter().filter(|n| prefixed_length(n) >= KSYM_NAME_LEN) {
                    let what = if symbol.len() >= KSYM_NAME_LEN {
                        "over KSYM_NAME_LEN: cut to 511 characters in backtraces (dropped by scripts/kallsyms in vmlinux)"
                    } else {
                        "over KSYM_NAME_LEN once __pfx_/__cfi_ is added"
                    };
                    println!(
                        "  {} characters: {what}: {}…",
                        symbol.len(),
                        &symbol[..80.min(symbol.len())]
                    );
                }
            }
            Ok(true)
        }
        Cmd::Run { objtree, extmod_dir, json, html } => {
            let module_dir = extmod_dir.join("rust_oops");
            let images = Images::open(&objtree.join("vmlinux"), &module_dir)?;
            let mut all_ok = true;
            let mut results = Vec::new();
            let mut scenario_frames = Vec::new();
            for (module, what) in SCENARIOS {
                let dir = tempfile::tempdir()?;
                let guest = Guest {
                    busybox: "/bin/busybox".into(),
                    modules: vec![module_dir.join(format!("{module}.ko"))],
                    steps: vec![
                        format!("insmod /lib/modules/{module}.ko"),
                        format!("grep '\\[{module}\\]' /proc/kallsyms"),
                    ],
                };
                let step = progress::start(&format!("scenario {module}"));
                let boot = qemu::boot_guest(
                    &objtree.join("arch/x86/boot/bzImage"),
                    &guest,
                    dir.path(),
                    |config| config.timeout = Duration::from_secs(120),
                    &mut |line| step.message(line),
                )?;
                step.done(&boot.describe());
                let text = std::fs::read_to_string(&boot.log)?;
                let reports = oops::parse_log(&text);
                let checks = images.check(&reports);
                // What the guest's /proc/kallsyms holds for the module, read after the oops.
                let kallsyms = boot
                    .console
                    .steps
                    .get(1)
                    .map(|s| parse_proc_kallsyms(&s.lines.join("\n")))
                    .unwrap_or_default();
                let missing: Vec<&str> = checks
                    .iter()
                    .filter(|c| c.module.as_deref() == Some(*module))
                    .map(|c| c.printed.as_str())
                    .filter(|printed| !kallsyms.iter().any(|e| e.name == *printed))
                    .collect();
                let identity = identity_matches(&text, &kallsyms);
                // One oops per scenario: a second one means the kernel broke while reporting.
                let ok = boot.outcome() == Outcome::Completed
                    && reports.len() == 1
                    && !checks.is_empty()
                    && checks.iter().all(FrameCheck::ok)
                    && !kallsyms.is_empty()
                    && missing.is_empty()
                    && identity != Some(false);
                all_ok &= ok;
                if !*json {
                    println!("{module}: {what}: {}", if ok { "ok" } else { "FAILED" });
                    println!(
                        "  {} report(s), {} Rust frame(s); boot: {}",
                        reports.len(),
                        checks.len(),
                        boot.describe()
                    );
                    print_checks(&checks);
                    println!(
                        "  /proc/kallsyms in the guest: {} symbols of {module}, {}",
                        kallsyms.len(),
                        if missing.is_empty() {
                            "every printed frame among them".to_owned()
                        } else {
                            format!("missing: {}", missing.join(", "))
                        }
                    );
                    match identity {
                        Some(true) => println!(
                            "  the function it said it would die in is the symbol at the address it printed"
                        ),
                        Some(false) => println!(
                            "  FAIL: the address it printed is not the function it said it would die in"
                        ),
                        None => {}
                    }
                    if reports.len() > 1 {
                        println!("  the kernel oopsed {} times; console excerpt:", reports.len());
                        for line in text.lines().skip(reports[1].lines.0.saturating_sub(2)).take(6)
                        {
                            println!("    {line}");
                        }
                    }
                }
                scenario_frames.push((*module, *what, ok, checks.clone()));
                results.push(serde_json::json!({
                    "scenario": module,
                    "ok": ok,
                    "reports": reports.len(),
                    "frames": checks,
                    "proc_kallsyms_symbols": kallsyms.len(),
                    "missing_from_proc_kallsyms": missing,
                    "identity_matches": identity,
                }));
            }
            if let Some(path) = html {
                write_html(path, &images, &scenario_frames)?;
                eprintln!("kallsyms-check: HTML report {}", path.display());
            }
            if *json {
                println!("{}", serde_json::to_string_pretty(&results)?);
            }
            Ok(all_ok)
        }
    }
}
