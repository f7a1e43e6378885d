//! `make bench`: `lint-rules check` over the demo tree's `rust/`, `samples/rust/` and
//! `drivers/` against the kernel's own `make CLIPPY=1` for the crates of the same directories
//! that the configuration builds, in one run: wall times and their ratio, not a threshold.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use subprocess::Command;

fn var(name: &str) -> PathBuf {
    std::env::var_os(name).map(PathBuf::from).unwrap_or_else(|| {
        eprintln!("{name} is not set: run this with `make bench`, which builds the demo kernel");
        std::process::exit(2)
    })
}

fn main() {
    let (src, obj) = (var("KERNEL_SRC"), var("KERNEL_OBJ"));
    let ours = Command::new(subprocess::testing::user_binary("lint-rules"), &src)
        .args(["check", "rust", "samples/rust", "drivers"])
        .timeout(Duration::from_secs(120));
    let mut times = Vec::new();
    let mut peaks = Vec::new();
    let mut summary = String::new();
    for _ in 0..5 {
        let measured = subprocess::testing::run_measured(&ours);
        let out = &measured.output;
        // Exit 1 is findings at error level in the kernel's code (triaged), not a failure.
        assert!(matches!(out.status.code(), Some(0 | 1)), "{}", out.stderr);
        summary = out.stderr.lines().last().unwrap_or_default().to_owned();
        times.push(measured.elapsed);
        peaks.push(measured.peak_rss);
    }
    times.sort();
    peaks.sort_unstable();
    let ours_time = times[times.len() / 2];
    let ours_peak = peaks[peaks.len() / 2];

    // lint-rules' own clippy run (clippy-driver on each crate's kbuild command, outside the
    // tree), then the anchor on the same crates: the kernel's `make CLIPPY=1`, every crate
    // checked again (kbuild rebuilds a crate whose command line changed, so a flag that changes
    // only the command line). It writes into the tree: `make bench` runs on the demo trees only.
    let start = Instant::now();
    let run = lint_rules::clippy::run(&src, &obj, None).expect("clippy runs");
    let ours_clippy = start.elapsed();
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let make = kbuild::make::kernel_make(&src, &obj)
        .arg("CLIPPY=1")
        .arg(format!("KRUSTFLAGS=--remap-path-prefix=/bench-{nonce}=/bench-{nonce}"))
        .args(&run.targets)
        .timeout(Duration::from_secs(1800));
    let measured = subprocess::testing::run_measured(&make);
    assert!(measured.output.success(), "{}", subprocess::testing::report(&make, &measured.output));
    let clippy_time = measured.elapsed;

    println!("lint-rules vs make CLIPPY=1 (rust/, samples/rust/, drivers/ of the demo tree)");
    println!(
        "  lint-rules       {:>8.3} s  {:>10}  (median of 5; {summary})",
        ours_time.as_secs_f64(),
        progress::format_size(ours_peak)
    );
    println!(
        "  make CLIPPY=1    {:>8.3} s  {:>10}  ({} crates built by this configuration)",
        clippy_time.as_secs_f64(),
        progress::format_size(measured.peak_rss),
        run.targets.len(),
    );
    println!("  (peak memory: the largest process's resident set)");
    println!(
        "  ratio            {:>8.0}x faster",
        clippy_time.as_secs_f64() / ours_time.as_secs_f64().max(1e-9)
    );
    println!(
        "  lint-rules --clippy's own run of clippy-driver on the same crates, outside the tree: {:.3} s, {} findings",
        ours_clippy.as_secs_f64(),
        run.findings.len()
    );
}
