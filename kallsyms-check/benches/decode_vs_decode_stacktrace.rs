//! `make bench`: `decode-stacktrace` against the kernel's `scripts/decode_stacktrace.sh` on
//! every oops of the demo tree, in one run: each kallsyms-check scenario is booted once and its
//! console log decoded by both, with the same `vmlinux` and modules. Wall time (median of a few
//! runs each), peak memory, and how many frame lines each resolves to `file:line`. Ratios, not
//! thresholds.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kallsyms_check::scenarios::{SCENARIOS, boot_scenario, prerequisites};
use subprocess::Command;
use subprocess::testing::{Measured, run_measured};

fn var(name: &str) -> PathBuf {
    std::env::var_os(name).map(PathBuf::from).unwrap_or_else(|| {
        eprintln!("{name} is not set: run this with `make bench`, which builds the demo kernel");
        std::process::exit(2)
    })
}

/// Output lines naming a `file.rs:N`, `file.c:N` or `file.h:N` (our inlined lines aside).
fn resolved(output: &str) -> usize {
    output
        .lines()
        .filter(|l| !l.trim_start().starts_with("(inlined)"))
        .filter(|l| {
            [".rs:", ".c:", ".h:"].iter().any(|ext| {
                l.match_indices(ext)
                    .any(|(at, _)| l[at + ext.len()..].starts_with(|c: char| c.is_ascii_digit()))
            })
        })
        .count()
}

/// `runs` runs of `cmd` under GNU time: the one with the median wall time, and the median
/// peak memory.
fn median(cmd: &Command, runs: usize) -> Measured {
    let mut all: Vec<Measured> = (0..runs).map(|_| run_measured(cmd)).collect();
    let mut peaks: Vec<u64> = all.iter().map(|m| m.peak_rss).collect();
    peaks.sort_unstable();
    all.sort_by_key(|m| m.elapsed);
    let mut median = all.swap_remove(runs / 2);
    median.peak_rss = peaks[runs / 2];
    median
}

/// How many lines of the log are frames.
fn log_frames(log: &str) -> usize {
    log.lines()
        .map(oops::strip_prefixes)
        .filter(|l| {
            let text = l.strip_prefix("RIP: 0010:").unwrap_or(l);
            l.starts_with("RIP: 0010:") || l.starts_with(' ') && oops::parse_frame(text).is_some()
        })
        .count()
}

fn main() {
    let (src, obj, ext) = (var("KERNEL_SRC"), var("KERNEL_OBJ"), var("EXTMOD_DIR"));
    let ours = subprocess::testing::user_binary("decode-stacktrace");
    let module_dir = ext.join("rust_oops");
    let (_, built) = kbuild::Objtree::open_built(&obj).unwrap();
    let modinfo_path = obj.join("modules.builtin.modinfo");
    let builtin_modinfo = std::fs::read(&modinfo_path).unwrap_or_default();
    let logs = tempfile::tempdir().unwrap();

    let mut rows = Vec::new();
    for scenario in SCENARIOS {
        let cmdline = match prerequisites(scenario, &builtin_modinfo, &modinfo_path, &module_dir) {
            Ok(cmdline) => cmdline,
            Err(why) => {
                eprintln!("bench: {}: not run: {why}", scenario.name);
                continue;
            }
        };
        let start = Instant::now();
        let (boot, log) =
            boot_scenario(scenario, &built, &module_dir, &cmdline).unwrap_or_else(|e| {
                eprintln!("bench: {}: {e}", scenario.name);
                std::process::exit(2)
            });
        let scenario_time = start.elapsed();
        eprintln!("bench: {}: {}", scenario.name, boot.describe());
        let log_path = logs.path().join(format!("{}.log", scenario.log_name()));
        std::fs::write(&log_path, &log).unwrap();
        rows.push(Row {
            name: scenario.name,
            frames: log_frames(&log),
            upstream: median(&upstream(&src, &obj, &module_dir, &log_path), 3),
            ours: median(&decode(&ours, &src, &obj, &module_dir, &log_path), 5),
            scenario_time,
        });
    }
    if rows.is_empty() {
        eprintln!("bench: no oops scenario could run on this tree, so nothing was measured");
        std::process::exit(2);
    }

    println!("oops decoding on {}: each scenario's console log", obj.display());
    println!(
        "{:<26} {:>6} {:>22} {:>22} {:>9} {:>11} {:>9}",
        "scenario",
        "frames",
        "decode_stacktrace.sh",
        "decode-stacktrace",
        "faster",
        "resolved",
        "boot"
    );
    for row in &rows {
        let (up, us) = (&row.upstream, &row.ours);
        println!(
            "{:<26} {:>6} {:>10.0} ms {:>9} {:>10.1} ms {:>9} {:>8.1}x {:>5} / {:<3} {:>8.1}s",
            row.name,
            row.frames,
            ms(up.elapsed),
            progress::format_size(up.peak_rss),
            ms(us.elapsed),
            progress::format_size(us.peak_rss),
            up.elapsed.as_secs_f64() / us.elapsed.as_secs_f64(),
            resolved(&up.output.stdout),
            resolved(&us.output.stdout),
            row.scenario_time.as_secs_f64(),
        );
    }
    let worst = rows
        .iter()
        .map(|r| r.upstream.elapsed.as_secs_f64() / r.ours.elapsed.as_secs_f64())
        .fold(f64::INFINITY, f64::min);
    println!(
        "(wall time: median of 3 runs of decode_stacktrace.sh and 5 of decode-stacktrace, peak \
         memory beside it; resolved: lines with file:line, upstream / ours; the least speed-up: \
         {worst:.1}x)"
    );
}

struct Row {
    name: &'static str,
    frames: usize,
    upstream: Measured,
    ours: Measured,
    scenario_time: Duration,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The kernel's `scripts/decode_stacktrace.sh VMLINUX SRCTREE MODULES < LOG`.
fn upstream(src: &Path, obj: &Path, modules: &Path, log: &Path) -> Command {
    Command::new("bash", obj)
        .arg("-c")
        .arg(format!(
            "{} {} {} {} < {}",
            quote(&src.join("scripts/decode_stacktrace.sh")),
            quote(&obj.join("vmlinux")),
            quote(src),
            quote(modules),
            quote(log)
        ))
        .timeout(Duration::from_secs(300))
}

fn quote(path: &Path) -> String {
    subprocess::shell_quote(path.as_os_str())
}

/// Ours, with the same arguments and the log by `--log`.
fn decode(ours: &Path, src: &Path, obj: &Path, modules: &Path, log: &Path) -> Command {
    Command::new(ours, obj)
        .arg(obj.join("vmlinux"))
        .arg(src)
        .arg(modules)
        .arg("--log")
        .arg(log)
        .timeout(Duration::from_secs(300))
}
