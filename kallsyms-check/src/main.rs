//! `kallsyms-check`: boots the demo kernel's oops scenarios and checks that every Rust frame of
//! every backtrace is the kernel's own symbol, whole (or cut at `KSYM_NAME_LEN - 1` only when it
//! is longer), demangles, has its offset inside it (else the frame names the wrong function),
//! and that DWARF agrees on the function and gives its `file:line`; `scan` shows how long the
//! Rust symbols of `vmlinux` and the modules are.
//!
//! Exit status: 0 when every check holds, 1 when one does not, 2 on errors and on input that
//! held nothing to check (a log with no Rust frame in a backtrace format it reads, images with
//! no Rust symbol).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};
use kallsyms_check::html::{ImageHistogram, ScenarioReport, render_html};
use kallsyms_check::images::Images;
use kallsyms_check::scenarios::{
    SCENARIOS, Scenario, ScenarioResult, boot_scenario, check_scenario, not_run_result,
    prerequisites, scenario_result,
};
use kallsyms_check::{FrameCheck, KSYM_NAME_LEN, head};
use report::results;

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
        /// The built objtree (vmlinux, the image its architecture boots).
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
        /// Where the modules' .ko files are (an objtree, for all it built).
        modules_dir: PathBuf,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
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

/// Writes the HTML report, atomically.
fn write_html(
    path: &Path,
    lengths: &[results::ImageSymbols],
    scenarios: &[(&str, &str, bool, Vec<FrameCheck>)],
) -> anyhow::Result<()> {
    let reports: Vec<ScenarioReport<'_>> = scenarios
        .iter()
        .map(|(name, what, ok, frames)| ScenarioReport { name, what, ok: *ok, frames })
        .collect();
    let images: Vec<ImageHistogram<'_>> = lengths
        .iter()
        .map(|image| ImageHistogram { name: &image.image, buckets: &image.histogram })
        .collect();
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
        Cmd::Scan { vmlinux, modules_dir, json } => {
            let bytes = std::fs::read(vmlinux)
                .with_context(|| format!("cannot read {}", vmlinux.display()))?;
            let images = kallsyms_check::lengths::scan(vmlinux, &bytes, &[modules_dir])?;
            let rust: usize = images.iter().map(|image| image.rust_symbols).sum();
            if rust == 0 {
                anyhow::bail!(
                    "no Rust function (a v0-mangled `_R` symbol) in the symbol table of {} nor of the {} module(s) under {}: nothing to scan; is it a kernel built with CONFIG_RUST=y, and not stripped?",
                    vmlinux.display(),
                    images.len() - 1,
                    modules_dir.display()
                );
            }
            if *json {
                println!("{}", serde_json::to_string_pretty(&images)?);
            } else {
                print_symbol_lengths(&images);
            }
            Ok(results::left_out(&images) == 0)
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
/// for kallsyms.
fn print_symbol_lengths(images: &[results::ImageSymbols]) {
    for image in images {
        println!(
            "{}: {} Rust function symbols, longest {} characters, {} of {} or more",
            image.image,
            image.rust_symbols,
            image.longest,
            image.over_reader_len,
            results::READER_NAME_LEN
        );
        for (bucket, count) in &image.histogram {
            println!("  {bucket:>7}: {count}");
        }
        for long in &image.at_ksym_name_len {
            let symbol = &long.symbol;
            println!(
                "  {} characters: {}: {}…",
                symbol.len(),
                long.fate.describe(),
                head(symbol, 80)
            );
        }
    }
    println!("{}", results::symbol_lengths_summary(images));
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
    let modinfo_path = objtree.join("modules.builtin.modinfo");
    let builtin_modinfo = std::fs::read(&modinfo_path).unwrap_or_default();
    // A tree that lacks what a scenario needs (a user's own, without the demo series'
    // sample) runs the others, and says which it did not run and why; one that can run none
    // fails before anything is opened or booted.
    let plans: Vec<_> = SCENARIOS
        .iter()
        .map(|scenario| {
            (scenario, prerequisites(scenario, &builtin_modinfo, &modinfo_path, &module_dir))
        })
        .collect();
    let not_run =
        || plans.iter().filter_map(|(scenario, plan)| Some((scenario, plan.as_ref().err()?)));
    if !json {
        for (scenario, why) in not_run() {
            println!("{}: {}: not run: {why}", scenario.name, scenario.what);
        }
    }
    if not_run().count() == SCENARIOS.len() {
        let reasons: Vec<String> =
            not_run().map(|(scenario, why)| format!("{}: {why}", scenario.name)).collect();
        anyhow::bail!(
            "no oops scenario could run on this tree, so nothing was checked:\n  {}",
            reasons.join("\n  ")
        );
    }
    let (_, built) = kbuild::Objtree::open_built(objtree)?;
    // Read once: the symbol table, the kallsyms table and the symbol lengths of vmlinux (and of
    // every module the tree and the scenarios built) all come from these bytes.
    let bytes = std::fs::read(&built.vmlinux)
        .with_context(|| format!("cannot read {}", built.vmlinux.display()))?;
    let lengths = kallsyms_check::lengths::scan(&built.vmlinux, &bytes, &[objtree, &module_dir])?;
    let vmlinux = symbolizer::Image::parse(&built.vmlinux, &bytes)?;
    drop(bytes);
    let images = Images::with_vmlinux(&built.vmlinux, vmlinux, &module_dir)?;
    let mut all_ok = true;
    let mut results = Vec::new();
    let mut scenario_frames = Vec::new();
    for (scenario, plan) in plans {
        let cmdline = match plan {
            Ok(cmdline) => cmdline,
            Err(why) => {
                results.push(not_run_result(scenario, &why));
                continue;
            }
        };
        let (boot, log) = boot_scenario(scenario, &built, &module_dir, &cmdline)?;
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
    all_ok &= results::left_out(&lengths) == 0;
    if !json {
        print_symbol_lengths(&lengths);
    }
    if let Some(path) = html {
        write_html(path, &lengths, &scenario_frames)?;
        eprintln!("kallsyms-check: HTML report {}", path.display());
    }
    if json {
        let result = results::Kallsyms { scenarios: results, images: lengths };
        print!("{}", results::to_json(results::ToolResult::KallsymsCheck(result)));
    }
    Ok(all_ok)
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
        println!(
            "  the kernel reported {} problems (oops, BUG or WARNING), not one; the second:",
            result.reports.len()
        );
        let second = result.reports[1].lines.0;
        for line in result.log.lines().skip(second.saturating_sub(2)).take(6) {
            println!("    {line}");
        }
    }
}
