//! `make bench`: rust-project-gen against `scripts/generate_rust_analyzer.py` on the same
//! tree, in one run: generation time, output size, crates, and what rust-analyzer makes of
//! each file (errors from `diagnostics`, unknown types, time and memory from `analysis-stats`),
//! for the toolchain's rust-analyzer and the others in `OTHER_RUST_ANALYZERS`.
//! Ratios, not thresholds: nothing here fails on a number.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use subprocess::Command;

const RUNS: usize = 20;
/// `analysis-stats` runs of each file per rust-analyzer.
const RA_RUNS: usize = 3;

fn var(name: &str) -> PathBuf {
    std::env::var_os(name).map(PathBuf::from).unwrap_or_else(|| {
        eprintln!("{name} is not set: run this with `make bench`, which builds the demo kernel");
        std::process::exit(2)
    })
}

struct Side {
    name: &'static str,
    command: Command,
    dir: tempfile::TempDir,
}

/// Upstream's script as the tree's `make rust-analyzer` runs it, its output on stdout.
fn upstream_command(src: &Path, obj: &Path) -> Command {
    let (_, script) = rust_project_gen::upstream::generate(src, obj).unwrap_or_else(|e| {
        eprintln!("bench: upstream's script: {e}");
        std::process::exit(2)
    });
    Command::new("sh", obj).arg("-c").arg(script).env("RUSTC", "rustc")
}

/// `LD_LIBRARY_PATH` without the folders `cargo bench` put in front of it, its target folders
/// and the toolchain's libraries: a user's run of either side has none of them, and the dynamic
/// loader would look in each of them first for every library either side loads (about 40
/// failed opens for ours, more for Python's; 0.2 to 0.6 ms of ours).
fn users_library_path(cmd: Command, sysroot: &Path) -> Command {
    let Some(path) = std::env::var_os("LD_LIBRARY_PATH") else { return cmd };
    let target = subprocess::testing::target_dir();
    let toolchains =
        std::env::var_os("RUSTUP_HOME").map(|home| PathBuf::from(home).join("toolchains"));
    let cargos = |dir: &Path| {
        dir.starts_with(&target)
            || dir.starts_with(sysroot)
            || toolchains.as_deref().is_some_and(|t| dir.starts_with(t))
    };
    let kept: Vec<PathBuf> = std::env::split_paths(&path).filter(|dir| !cargos(dir)).collect();
    if kept.is_empty() {
        cmd.env_remove("LD_LIBRARY_PATH")
    } else {
        cmd.env("LD_LIBRARY_PATH", std::env::join_paths(kept).expect("the paths it came as"))
    }
}

fn main() {
    let (src, obj) = (var("KERNEL_SRC"), var("KERNEL_OBJ"));
    let sysroot =
        PathBuf::from(run(&Command::new("rustc", &obj).args(["--print", "sysroot"])).trim());
    let sysroot_src = sysroot.join("lib/rustlib/src/rust/library");
    let ra = sysroot.join("bin/rust-analyzer");
    let ours = subprocess::testing::user_binary("rust-project-gen");
    let trees = [&src, &obj, &sysroot, &sysroot_src];
    let sides = [
        Side {
            name: "upstream",
            command: users_library_path(upstream_command(&src, &obj), &sysroot),
            dir: tempfile::tempdir().unwrap(),
        },
        Side {
            name: "ours",
            command: users_library_path(
                Command::new(&ours, &obj).args(trees).arg("--stdout"),
                &sysroot,
            ),
            dir: tempfile::tempdir().unwrap(),
        },
    ];

    let mut rows: Vec<(String, String, String, String)> = Vec::new();
    let mut times = Vec::new();
    let mut peaks = Vec::new();
    let mut sizes = Vec::new();
    let mut crates = Vec::new();
    // `cargo bench` has just written the build of this bench: its writeback to the disk would
    // run beside the first runs. It is done first, and a run of each side warms the caches.
    run(&Command::new("sync", &obj));
    for side in &sides {
        run(&side.command);
    }
    // The two sides run in turn, a run of each after the other, so that the machine's drift
    // over the runs weighs on both alike.
    let mut samples = [Vec::new(), Vec::new()];
    for _ in 0..RUNS {
        for (side, samples) in sides.iter().zip(&mut samples) {
            let start = Instant::now();
            run(&side.command);
            samples.push(start.elapsed());
        }
    }
    for (side, mut samples) in sides.iter().zip(samples) {
        samples.sort();
        times.push(samples[RUNS / 2]);
        let text = run(&side.command);
        peaks.push(subprocess::testing::run_measured(&side.command).peak_rss);
        sizes.push(text.len());
        let json: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        crates.push(json["crates"].as_array().map_or(0, Vec::len));
        std::fs::write(side.dir.path().join("rust-project.json"), &text).unwrap();
        eprintln!(
            "bench: {} generated in {:.1} ms (median of {RUNS})",
            side.name,
            ms(times[times.len() - 1])
        );
    }
    rows.push(row(
        "generation time, median of 20",
        &times,
        |d| format!("{:.1} ms", ms(*d)),
        |a, b| ms(*a) / ms(*b),
        "faster",
    ));
    // The runs above after the first reused the record of the tree's last scan, as every run
    // after a user's first does; without it, every `.cmd` file is read.
    let first_run = sides[1].command.clone().arg("--no-cache");
    let mut samples: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            run(&first_run);
            start.elapsed()
        })
        .collect();
    samples.sort();
    rows.push(row(
        "the same, no record kept (--no-cache)",
        &[times[0], samples[RUNS / 2]],
        |d| format!("{:.1} ms", ms(*d)),
        |a, b| ms(*a) / ms(*b),
        "faster",
    ));
    rows.push((
        "peak memory".into(),
        progress::format_size(peaks[0]),
        progress::format_size(peaks[1]),
        format!("{:.1}x upstream's", peaks[1] as f64 / peaks[0].max(1) as f64),
    ));
    rows.push(row(
        "output size",
        &sizes,
        |s| format!("{:.0} KB", *s as f64 / 1000.0),
        |a, b| *a as f64 / *b as f64,
        "smaller",
    ));
    rows.push((
        "crates".into(),
        crates[0].to_string(),
        crates[1].to_string(),
        "only what kbuild built".into(),
    ));

    println!("rust-project.json on {}", obj.display());
    println!("{:<32} {:>22} {:>22}  ours vs upstream", "", "upstream script", "rust-project-gen");
    for (name, a, b, ratio) in rows {
        println!("{name:<32} {a:>22} {b:>22}  {ratio}");
    }

    // What each rust-analyzer makes of the two files: the toolchain's, and the others
    // `make other-rust-analyzers` installs, each given the file rust-project-gen writes for it.
    let others = std::env::var("OTHER_RUST_ANALYZERS").unwrap_or_default();
    let analyzers: Vec<PathBuf> =
        std::iter::once(ra).chain(others.split_whitespace().map(PathBuf::from)).collect();
    for ra in &analyzers {
        let version = run(&Command::new(ra, &obj).arg("--version")).trim().to_owned();
        let ours_for_ra = tempfile::tempdir().unwrap();
        let text = run(&Command::new(&ours, &obj)
            .args(trees)
            .arg("--stdout")
            .arg("--rust-analyzer")
            .arg(ra));
        std::fs::write(ours_for_ra.path().join("rust-project.json"), text).unwrap();
        let dirs = [sides[0].dir.path(), ours_for_ra.path()];
        let mut errors = Vec::new();
        for dir in dirs {
            eprintln!("bench: {version}: diagnostics on {}", dir.display());
            let out = Command::new(ra, dir)
                .arg("diagnostics")
                .arg(dir)
                .timeout(Duration::from_secs(900))
                .run()
                .expect("rust-analyzer runs");
            let output = format!("{}\n{}", out.stdout, out.stderr);
            errors.push(match rust_project_gen::rust_analyzer::load_failure(&output) {
                Some(line) => format!("cannot load: {line}"),
                None => rust_project_gen::rust_analyzer::error_lines(&out.stdout).len().to_string(),
            });
        }
        // Paired runs, upstream's file then ours, and the median of each: the figure moves by
        // 4-8% from run to run, more than a pair's runs differ from each other.
        let mut runs: [Vec<AnalysisStats>; 2] = Default::default();
        for round in 1..=RA_RUNS {
            for (side, dir) in dirs.iter().enumerate() {
                eprintln!(
                    "bench: {version}: analysis-stats {round}/{RA_RUNS} on {}",
                    dir.display()
                );
                // One malloc arena, so that the memory rust-analyzer counts (glibc's, of the
                // main arena) covers every thread.
                let cmd = Command::new(ra, dir)
                    .arg("analysis-stats")
                    .arg(dir)
                    .env("MALLOC_ARENA_MAX", "1")
                    .timeout(Duration::from_secs(900));
                let measured = subprocess::testing::run_measured(&cmd);
                let out = &measured.output;
                let mut stats = AnalysisStats::parse(&format!("{}\n{}", out.stdout, out.stderr));
                stats.peak_rss = measured.peak_rss;
                runs[side].push(stats);
            }
        }
        let spread = [runs_of(&runs[0]), runs_of(&runs[1])];
        let stats = runs.map(AnalysisStats::median);
        println!();
        println!("{version}");
        let rows = [
            (
                "rust-analyzer errors".to_owned(),
                errors[0].clone(),
                errors[1].clone(),
                String::new(),
            ),
            (
                "unknown-type expressions".to_owned(),
                stats[0].unknown_types(),
                stats[1].unknown_types(),
                String::new(),
            ),
            (
                "analysis-stats total time".to_owned(),
                stats[0].total_time.clone(),
                stats[1].total_time.clone(),
                String::new(),
            ),
            (
                format!("analysis-stats memory, median of {RA_RUNS}"),
                format!("{} MB", stats[0].total_memory),
                format!("{} MB", stats[1].total_memory),
                format!(
                    "{:.2}x upstream's (runs: {} / {})",
                    stats[1].total_memory as f64 / stats[0].total_memory.max(1) as f64,
                    spread[0],
                    spread[1]
                ),
            ),
            (
                "analysis-stats peak memory".to_owned(),
                progress::format_size(stats[0].peak_rss),
                progress::format_size(stats[1].peak_rss),
                format!("{:.2}x", stats[1].peak_rss as f64 / stats[0].peak_rss.max(1) as f64),
            ),
        ];
        for (name, a, b, ratio) in rows {
            println!("{name:<32} {a:>22} {b:>22}  {ratio}");
        }
    }
}

/// Each run's memory figure, in MB: how much the median hides.
fn runs_of(runs: &[AnalysisStats]) -> String {
    runs.iter().map(|s| s.total_memory.to_string()).collect::<Vec<_>>().join(", ")
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn row<T>(
    name: &str,
    values: &[T],
    show: impl Fn(&T) -> String,
    ratio: impl Fn(&T, &T) -> f64,
    better: &str,
) -> (String, String, String, String) {
    let ratio = ratio(&values[0], &values[1]);
    (name.to_owned(), show(&values[0]), show(&values[1]), format!("{ratio:.1}x {better}"))
}

fn run(cmd: &Command) -> String {
    match cmd.run_checked() {
        Ok(out) => out.stdout,
        Err(e) => {
            eprintln!("bench: {e}");
            std::process::exit(2)
        }
    }
}

/// The lines of `rust-analyzer analysis-stats` that the bench reports, and the process's peak
/// resident memory.
#[derive(Default)]
struct AnalysisStats {
    exprs: Option<(u64, u64)>,
    total_time: String,
    /// "Total: 7.5s, 660mb": the memory rust-analyzer counts, in MB.
    total_memory: u64,
    peak_rss: u64,
}

impl AnalysisStats {
    fn parse(output: &str) -> AnalysisStats {
        let stats = rust_project_gen::rust_analyzer::analysis_stats(output);
        let total_memory = stats.total_memory_mb.unwrap_or_else(|| {
            eprintln!("bench: analysis-stats printed no memory figure:\n{output}");
            std::process::exit(2)
        });
        AnalysisStats {
            exprs: stats.exprs,
            total_time: stats.total_time,
            total_memory,
            peak_rss: 0,
        }
    }

    /// The run with the median memory figure, with the median peak memory of all.
    fn median(mut runs: Vec<AnalysisStats>) -> AnalysisStats {
        let mut peaks: Vec<u64> = runs.iter().map(|s| s.peak_rss).collect();
        peaks.sort_unstable();
        runs.sort_by_key(|s| s.total_memory);
        let mut median = runs.swap_remove(runs.len() / 2);
        median.peak_rss = peaks[peaks.len() / 2];
        median
    }

    fn unknown_types(&self) -> String {
        match self.exprs {
            Some((total, unknown)) => {
                format!("{unknown}/{total} ({:.1}%)", unknown as f64 * 100.0 / total as f64)
            }
            None => "?".to_owned(),
        }
    }
}
