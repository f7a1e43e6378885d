//! `kallsyms-check`: boots the demo kernel's oops scenarios and checks that every Rust frame of
//! every backtrace is the kernel's own symbol, whole (or cut at `KSYM_NAME_LEN - 1` only when it
//! is longer), demangles, has its offset inside it (else the frame names the wrong function),
//! and that DWARF agrees on the function and gives its `file:line`; `scan` shows how long the
//! Rust symbols of `vmlinux` and the modules are.
//!
//! Exit status: 0 when every check holds, 1 when one does not, 2 on errors and on input that
//! held nothing to check (a log with no Rust frame in a backtrace format it reads, images with
//! no Rust symbol).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use clap::{Parser, Subcommand};
use kallsyms_check::html::{ImageHistogram, ScenarioReport, render_html};
use kallsyms_check::table::{Held, TableError, TableName, held_as};
use kallsyms_check::{
    Ending, FrameCheck, KSYM_NAME_LEN, KallsymsEntry, LogCheck, NothingChecked, Source,
    SymbolTable, check_log, head, identity_matches, length_histogram, parse_proc_kallsyms,
    prefixed_length, trigger_argument,
};
use qemu::{Guest, Outcome};
use report::results::{self, ScenarioVerdict};
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
        /// Keep each scenario's console log in this folder, as `NAME.log` (the module's name,
        /// or `rust_long_symbols-null`, `rust_long_symbols-panic`), for decode-stacktrace.
        #[arg(long)]
        logs: Option<PathBuf>,
    },
    /// Check the backtraces in a log already captured.
    Check {
        /// vmlinux.
        vmlinux: PathBuf,
        /// Where the modules' .ko files are.
        modules_dir: PathBuf,
        /// The console or dmesg log.
        log: PathBuf,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// How long the Rust function symbols of vmlinux and the modules are, against KSYM_NAME_LEN.
    Scan {
        /// vmlinux.
        vmlinux: PathBuf,
        /// Where the modules' .ko files are.
        modules_dir: PathBuf,
    },
}

/// One way to make the demo kernel oops in Rust code.
struct Scenario {
    /// Its name: the module loaded, or how the built-in sample ends (the kernel command line
    /// that triggers it is shown at run time, in the form the tree's sample takes).
    name: &'static str,
    /// What it shows.
    what: &'static str,
    /// The out-of-tree module that oopses on load (`rust_oops/NAME.ko`), or `None` for the
    /// built-in `rust_long_symbols` sample, which `ending` triggers.
    module: Option<&'static str>,
    /// How the built-in sample's chain ends.
    ending: Option<Ending>,
    /// What its symbols contain: the frames with it are looked for in `/proc/kallsyms`.
    symbols: &'static str,
}

impl Scenario {
    /// The name of its kept console log: the module, or the sample and how it ends.
    fn log_name(&self) -> String {
        match (self.module, self.ending) {
            (Some(module), _) => module.to_owned(),
            (None, Some(Ending::NullWrite)) => "rust_long_symbols-null".to_owned(),
            (None, Some(Ending::Panic)) => "rust_long_symbols-panic".to_owned(),
            (None, None) => self.name.replace(' ', "-"),
        }
    }
}

const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "rust_oops_null",
        what: "module: NULL-pointer write at the end of a chain of long generic frames",
        module: Some("rust_oops_null"),
        ending: None,
        symbols: "rust_oops_null",
    },
    Scenario {
        name: "rust_oops_panic",
        what: "module: Rust panic (BUG()) at the end of the same chain",
        module: Some("rust_oops_panic"),
        ending: None,
        symbols: "rust_oops_panic",
    },
    Scenario {
        name: "rust_oops_long",
        what: "module: frames with symbols of 505 and over 512 characters",
        module: Some("rust_oops_long"),
        ending: None,
        symbols: "rust_oops_long",
    },
    Scenario {
        name: "rust_long_symbols null",
        what: "vmlinux: NULL-pointer write under frames of about 100, 300, 480, exactly 511 and 512, and over 512 characters",
        module: None,
        ending: Some(Ending::NullWrite),
        symbols: "rust_long_symbols",
    },
    Scenario {
        name: "rust_long_symbols panic",
        what: "vmlinux: Rust panic (BUG()) under the same frames",
        module: None,
        ending: Some(Ending::Panic),
        symbols: "rust_long_symbols",
    },
];

struct Table<'a>(&'a Image);

impl SymbolTable for Table<'_> {
    fn size_of(&self, name: &str) -> Option<u64> {
        self.0.symbol(name).map(|(_, size)| size)
    }

    fn starting_with(&self, prefix: &str) -> Option<(String, u64)> {
        self.0.complete(prefix).map(|(name, _, size)| (name.to_owned(), size))
    }

    fn address_of(&self, name: &str) -> Option<u64> {
        self.0.symbol(name).map(|(address, _)| address)
    }

    fn function_at(&self, address: u64) -> Option<String> {
        self.0.function_at(address).map(|(name, ..)| name.to_owned())
    }

    fn source_at(&self, address: u64) -> Option<Source> {
        if !self.0.has_dwarf() {
            return None;
        }
        let locations = self.0.locate(address);
        let location =
            locations.first().and_then(|l| Some(format!("{}:{}", l.file.as_ref()?, l.line?)));
        Some(Source { function: locations.last().and_then(|l| l.function.clone()), location })
    }
}

fn main() -> ExitCode {
    let _stdout = progress::stdout::quiet_when_closed();
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
        Images::with_vmlinux(vmlinux, Image::open(vmlinux)?, modules_dir)
    }

    /// `vmlinux` already read, and the modules of `modules_dir`.
    fn with_vmlinux(path: &Path, vmlinux: Image, modules_dir: &Path) -> anyhow::Result<Images> {
        let mut all = vec![(path.display().to_string(), vmlinux)];
        for (name, path) in symbolizer::find_modules(modules_dir) {
            all.push((name, Image::open(&path)?));
        }
        Ok(Images { all })
    }

    /// Checks the Rust frames of `reports` against these images.
    fn check(&self, reports: &[oops::Report]) -> Result<LogCheck, NothingChecked> {
        let tables: Vec<(&str, Table<'_>)> =
            self.all.iter().map(|(n, i)| (n.as_str(), Table(i))).collect();
        check_log(reports, &mut |module| {
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
    let short = |name: &str| -> String {
        if name.chars().count() > 60 { format!("{}…", head(name, 59)) } else { name.to_owned() }
    };
    for c in checks {
        let source = c
            .source
            .as_deref()
            .map_or("no DWARF location", |s| s.rsplit_once('/').map_or(s, |(_, file)| file));
        println!(
            "  {:<4} {:<14} {:>4} chars  {:<60} [{}] {source}{}",
            if c.ok() { "ok" } else { "FAIL" },
            format!("{:?}", c.verdict).to_lowercase(),
            c.length,
            short(&c.printed),
            c.module.as_deref().unwrap_or("vmlinux"),
            if c.dwarf_agrees == Some(false) { " (DWARF names another function)" } else { "" },
        );
        if let Some(actual) = &c.actual {
            println!(
                "       the address is in {} ({} chars{})",
                short(actual),
                actual.len(),
                if actual.len() >= KSYM_NAME_LEN {
                    ", which scripts/kallsyms leaves out of vmlinux's kallsyms"
                } else {
                    ""
                }
            );
        }
    }
}

/// Runs the subcommand; true when every check holds.
fn run(cli: &Cli) -> anyhow::Result<bool> {
    match &cli.command {
        Cmd::Check { vmlinux, modules_dir, log, json } => {
            check_captured_log(vmlinux, modules_dir, log, *json)
        }
        Cmd::Scan { vmlinux, modules_dir } => {
            // Read once: the symbol table and the kallsyms table both come from these bytes.
            let bytes = std::fs::read(vmlinux)
                .with_context(|| format!("cannot read {}", vmlinux.display()))?;
            let images =
                Images::with_vmlinux(vmlinux, Image::parse(vmlinux, &bytes)?, modules_dir)?;
            let rust: usize = images.all.iter().map(|(_, image)| rust_lengths(image).len()).sum();
            if rust == 0 {
                anyhow::bail!(
                    "no Rust function (a v0-mangled `_R` symbol) in the symbol table of {} nor of the {} module(s) under {}: nothing to scan; is it a kernel built with CONFIG_RUST=y, and not stripped?",
                    vmlinux.display(),
                    images.all.len() - 1,
                    modules_dir.display()
                );
            }
            print_symbol_lengths(&images, &kallsyms_check::table::read_names(&bytes));
            Ok(true)
        }
        Cmd::Run { objtree, extmod_dir, json, html, logs } => {
            run_scenarios(objtree, extmod_dir, *json, html.as_deref(), logs.as_deref())
        }
    }
}

/// Checks and prints the Rust frames of a log already captured; true when every one holds, an
/// error when the log held nothing to check.
fn check_captured_log(
    vmlinux: &Path,
    modules_dir: &Path,
    log: &Path,
    json: bool,
) -> anyhow::Result<bool> {
    let text =
        std::fs::read_to_string(log).with_context(|| format!("cannot read {}", log.display()))?;
    let reports = oops::parse_log(&text);
    let images = Images::open(vmlinux, modules_dir)?;
    let result = images.check(&reports).with_context(|| log.display().to_string())?;
    if json {
        println!("{}", serde_json::to_string_pretty(&result)?);
    } else {
        print_checks(&result.checks);
        println!(
            "{}: {} crash report(s), {} frame(s), {} Rust frame(s) checked, {} failed",
            log.display(),
            result.reports,
            result.frames,
            result.checks.len(),
            result.checks.iter().filter(|c| !c.ok()).count()
        );
    }
    for line in &result.unread {
        eprintln!(
            "kallsyms-check: warning: {}: not read as a frame: {}",
            log.display(),
            line.trim()
        );
    }
    Ok(result.ok())
}

/// Prints how long each image's Rust function symbols are, and what becomes of those too long
/// for kallsyms: for vmlinux, as its own kallsyms table (`table`, read from the file) holds them.
fn print_symbol_lengths(images: &Images, table: &Result<Vec<TableName>, TableError>) {
    let held: HashSet<&str> = table.iter().flatten().map(|entry| entry.name.as_str()).collect();
    for (i, (name, image)) in images.all.iter().enumerate() {
        let rust: Vec<&str> =
            image.symbols().map(|(n, ..)| n).filter(|n| n.starts_with("_R")).collect();
        let longest = rust.iter().map(|n| n.len()).max().unwrap_or(0);
        println!("{name}: {} Rust function symbols, longest {longest} characters", rust.len());
        for (bucket, count) in length_histogram(rust_lengths(image).into_iter()) {
            println!("  {bucket:>7}: {count}");
        }
        for symbol in rust.iter().filter(|n| prefixed_length(n) >= KSYM_NAME_LEN) {
            let what = if symbol.len() < KSYM_NAME_LEN {
                "over KSYM_NAME_LEN once __pfx_/__cfi_ is added".to_owned()
            } else if i > 0 {
                format!(
                    "over KSYM_NAME_LEN: a module's kallsyms prints it cut to {} characters",
                    KSYM_NAME_LEN - 1
                )
            } else {
                match table {
                    Err(e) => format!(
                        "over KSYM_NAME_LEN; whether this vmlinux's kallsyms holds it is not known: {e}"
                    ),
                    Ok(_) => match held_as(symbol, &held) {
                        Held::Whole => "over KSYM_NAME_LEN, yet this vmlinux's kallsyms holds it whole".to_owned(),
                        Held::Cut => format!(
                            "over KSYM_NAME_LEN: this vmlinux's kallsyms holds it cut to {} characters",
                            KSYM_NAME_LEN - 1
                        ),
                        Held::LeftOut => "over KSYM_NAME_LEN: LEFT OUT of this vmlinux's kallsyms, so frames in it are named after the symbol before (demo-kernel patch 0006 keeps it, cut)".to_owned(),
                    },
                }
            };
            println!("  {} characters: {what}: {}…", symbol.len(), head(symbol, 80));
        }
    }
}

/// Boots every scenario and checks its backtraces, printing each as it ends (or all as JSON
/// at the end), keeping the console logs in `logs` and writing the HTML report to `html` when
/// asked; true when every scenario checks out.
fn run_scenarios(
    objtree: &Path,
    extmod_dir: &Path,
    json: bool,
    html: Option<&Path>,
    logs: Option<&Path>,
) -> anyhow::Result<bool> {
    if let Some(logs) = logs {
        std::fs::create_dir_all(logs)
            .with_context(|| format!("cannot create {}", logs.display()))?;
    }
    let module_dir = extmod_dir.join("rust_oops");
    let images = Images::open(&objtree.join("vmlinux"), &module_dir)?;
    let mut all_ok = true;
    let mut results = Vec::new();
    let mut scenario_frames = Vec::new();
    let modinfo_path = objtree.join("modules.builtin.modinfo");
    let builtin_modinfo = std::fs::read(&modinfo_path).unwrap_or_default();
    let mut not_run = Vec::new();
    for scenario in SCENARIOS {
        // A tree that lacks what a scenario needs (a user's own, without the demo series'
        // sample) runs the others, and says which it did not run and why.
        let cmdline = match prerequisites(scenario, &builtin_modinfo, &modinfo_path, &module_dir) {
            Ok(cmdline) => cmdline,
            Err(why) => {
                if !json {
                    println!("{}: {}: not run: {why}", scenario.name, scenario.what);
                }
                results.push(not_run_result(scenario, &why));
                not_run.push(format!("{}: {why}", scenario.name));
                continue;
            }
        };
        let (boot, log) = boot_scenario(scenario, objtree, &module_dir, &cmdline)?;
        let kept = logs.map(|logs| logs.join(format!("{}.log", scenario.log_name())));
        if let Some(kept) = &kept {
            std::fs::write(kept, &log)
                .with_context(|| format!("cannot write {}", kept.display()))?;
        }
        let result = check_scenario(scenario, &images, cmdline, boot, log);
        all_ok &= result.ok;
        if !json {
            print_scenario(scenario, &result);
        }
        scenario_frames.push((scenario.name, scenario.what, result.ok, result.checks.clone()));
        results.push(scenario_result(scenario, &result, kept));
    }
    if not_run.len() == SCENARIOS.len() {
        anyhow::bail!(
            "no oops scenario could run on this tree, so nothing was checked:\n  {}",
            not_run.join("\n  ")
        );
    }
    if let Some(path) = html {
        write_html(path, &images, &scenario_frames)?;
        eprintln!("kallsyms-check: HTML report {}", path.display());
    }
    if json {
        let result = results::Kallsyms { scenarios: results };
        print!("{}", results::to_json(results::ToolResult::KallsymsCheck(result)));
    }
    Ok(all_ok)
}

/// What the kernel command line needs to trigger the scenario (nothing for a module, the
/// built-in sample's trigger parameter, read from `modules.builtin.modinfo`, otherwise), or why
/// this tree cannot run it.
fn prerequisites(
    scenario: &Scenario,
    builtin_modinfo: &[u8],
    modinfo_path: &Path,
    module_dir: &Path,
) -> Result<String, String> {
    match (scenario.module, scenario.ending) {
        (Some(module), _) => {
            let ko = module_dir.join(format!("{module}.ko"));
            if ko.is_file() {
                Ok(String::new())
            } else {
                Err(format!(
                    "{} is missing: build demo-kernel/modules/rust_oops against this tree with M= (make kernel does)",
                    ko.display()
                ))
            }
        }
        (None, Some(ending)) => trigger_argument(builtin_modinfo, ending).ok_or_else(|| {
            format!(
                "{} lists no built-in rust_long_symbols sample with a trigger parameter: it comes with the demo series (CONFIG_SAMPLE_RUST_LONG_SYMBOLS=y)",
                modinfo_path.display()
            )
        }),
        (None, None) => Ok(String::new()),
    }
}

/// Boots the demo kernel with the scenario's module loaded or `cmdline` added, then reads the
/// scenario's symbols in `/proc/kallsyms`; returns the boot and its console log.
fn boot_scenario(
    scenario: &Scenario,
    objtree: &Path,
    module_dir: &Path,
    cmdline: &str,
) -> anyhow::Result<(qemu::Boot, String)> {
    let dir = tempfile::tempdir()?;
    let mut guest = Guest {
        busybox: "/bin/busybox".into(),
        modules: Vec::new(),
        steps: vec![format!("grep {} /proc/kallsyms", scenario.symbols)],
    };
    if let Some(module) = scenario.module {
        guest.modules.push(module_dir.join(format!("{module}.ko")));
        guest.steps.insert(0, format!("insmod /lib/modules/{module}.ko"));
    }
    let step = progress::start(&format!("scenario {}", scenario.name));
    let boot = qemu::boot_guest(
        &objtree.join("arch/x86/boot/bzImage"),
        &guest,
        dir.path(),
        |config| {
            config.timeout = Duration::from_secs(120);
            config.append = cmdline.to_owned();
        },
        &mut |line| step.message(line),
    )?;
    step.done(&boot.describe());
    let log = std::fs::read_to_string(&boot.log)?;
    Ok((boot, log))
}

/// What one scenario's boot showed, checked.
struct ScenarioResult {
    /// What the kernel command line had added to trigger it (empty for a module).
    cmdline: String,
    /// The boot.
    boot: qemu::Boot,
    /// Its console log.
    log: String,
    /// The oops reports of the log.
    reports: Vec<oops::Report>,
    /// Their Rust frames, checked.
    checks: Vec<FrameCheck>,
    /// Why the log held nothing to check, when it did not.
    nothing_checked: Option<NothingChecked>,
    /// What the guest's /proc/kallsyms holds of the scenario's code, read after the oops.
    kallsyms: Vec<KallsymsEntry>,
    /// The frames of the scenario's code printed with a name /proc/kallsyms does not hold.
    missing: Vec<String>,
    /// Whether the function it said it would die in is the symbol at the address it printed.
    identity: Option<bool>,
    /// Every check holds.
    ok: bool,
}

/// Checks a scenario's boot: its one oops, its Rust frames against `images`, and its frames'
/// names against the guest's `/proc/kallsyms`.
fn check_scenario(
    scenario: &Scenario,
    images: &Images,
    cmdline: String,
    boot: qemu::Boot,
    log: String,
) -> ScenarioResult {
    let reports = oops::parse_log(&log);
    let (checks, nothing_checked) = match images.check(&reports) {
        Ok(result) => (result.checks, None),
        Err(why) => (Vec::new(), Some(why)),
    };
    // What the guest's /proc/kallsyms holds of the scenario's code, read after the oops.
    let kallsyms = boot
        .console
        .steps
        .last()
        .map(|s| parse_proc_kallsyms(&s.output.join("\n")))
        .unwrap_or_default();
    let missing: Vec<String> = checks
        .iter()
        .filter(|c| c.module.as_deref() == scenario.module)
        .filter(|c| scenario.module.is_some() || c.printed.contains(scenario.symbols))
        .map(|c| c.printed.as_str())
        .filter(|printed| !kallsyms.iter().any(|e| e.name == *printed))
        .map(str::to_owned)
        .collect();
    let identity = identity_matches(&log, &kallsyms);
    // One oops per scenario: a second one means the kernel broke while reporting.
    let ok = boot.outcome() == Outcome::Completed
        && reports.len() == 1
        && !checks.is_empty()
        && checks.iter().all(FrameCheck::ok)
        && !kallsyms.is_empty()
        && missing.is_empty()
        && identity != Some(false);
    ScenarioResult {
        cmdline,
        boot,
        log,
        reports,
        checks,
        nothing_checked,
        kallsyms,
        missing,
        identity,
        ok,
    }
}

/// Prints a scenario's result as text: the verdict, each frame, and what went wrong.
fn print_scenario(scenario: &Scenario, result: &ScenarioResult) {
    let how =
        if result.cmdline.is_empty() { String::new() } else { format!(" ({})", result.cmdline) };
    println!(
        "{}{how}: {}: {}",
        scenario.name,
        scenario.what,
        if result.ok { "ok" } else { "FAILED" }
    );
    println!(
        "  {} report(s), {} Rust frame(s); boot: {}",
        result.reports.len(),
        result.checks.len(),
        result.boot.describe()
    );
    print_checks(&result.checks);
    if let Some(why) = &result.nothing_checked {
        println!("  FAIL: nothing checked: {why}");
    }
    println!(
        "  /proc/kallsyms in the guest: {} symbols of {}, {}",
        result.kallsyms.len(),
        scenario.symbols,
        if result.missing.is_empty() {
            "every printed frame among them".to_owned()
        } else {
            format!("missing: {}", result.missing.join(", "))
        }
    );
    match result.identity {
        Some(true) => println!(
            "  the function it said it would die in is the symbol at the address it printed"
        ),
        Some(false) => {
            println!("  FAIL: the address it printed is not the function it said it would die in")
        }
        None => {}
    }
    if result.reports.len() > 1 {
        println!("  the kernel oopsed {} times; console excerpt:", result.reports.len());
        let second = result.reports[1].lines.0;
        for line in result.log.lines().skip(second.saturating_sub(2)).take(6) {
            println!("    {line}");
        }
    }
}

/// A scenario's result, for `--json`.
fn scenario_result(
    scenario: &Scenario,
    result: &ScenarioResult,
    log: Option<PathBuf>,
) -> results::Scenario {
    let mut why = Vec::new();
    if let Some(nothing) = &result.nothing_checked {
        why.push(format!("nothing checked: {nothing}"));
    }
    if result.boot.outcome() != Outcome::Completed {
        why.push(format!("the boot: {:?}", result.boot.outcome()));
    }
    if result.reports.len() != 1 {
        why.push(format!("the kernel oopsed {} times, not once", result.reports.len()));
    }
    why.extend(
        result.checks.iter().filter(|c| !c.ok()).map(|c| format!("{}: {:?}", c.printed, c.verdict)),
    );
    if result.identity == Some(false) {
        why.push("the address it printed is not the function it said it would die in".into());
    }
    results::Scenario {
        name: scenario.name.into(),
        what: scenario.what.into(),
        verdict: if result.ok { ScenarioVerdict::Ok } else { ScenarioVerdict::Failed },
        why,
        cmdline: result.cmdline.clone(),
        reports: result.reports.len(),
        frames: result
            .checks
            .iter()
            .map(|c| results::FrameVerdict {
                printed: c.printed.clone(),
                ok: c.ok(),
                verdict: match &c.actual {
                    Some(actual) => format!("{:?} (the address is in {actual})", c.verdict),
                    None => format!("{:?}", c.verdict),
                },
            })
            .collect(),
        proc_kallsyms_symbols: result.kallsyms.len(),
        missing_from_proc_kallsyms: result.missing.clone(),
        identity_matches: result.identity,
        log,
    }
}

/// A scenario the tree could not run, for `--json`.
fn not_run_result(scenario: &Scenario, why: &str) -> results::Scenario {
    results::Scenario {
        name: scenario.name.into(),
        what: scenario.what.into(),
        verdict: ScenarioVerdict::NotRun,
        why: vec![why.to_owned()],
        cmdline: String::new(),
        reports: 0,
        frames: Vec::new(),
        proc_kallsyms_symbols: 0,
        missing_from_proc_kallsyms: Vec::new(),
        identity_matches: None,
        log: None,
    }
}
