//! `make bench-scaling` (part of `make bench`): how each tool's cost grows with the tree, in one
//! run over the demo trees and the wide trees (`SCALING_TREES`, each `LABEL=TREE_CACHE`, whose
//! `srctree/`, `objtree/` and `extmod/` the Makefile built): per tree its size (crates, and the
//! Rust lines rustc read from it), then per tool its wall time and peak memory, beside its
//! anchor's where there is one (upstream's `make rust-analyzer`, rust-analyzer on upstream's
//! file, `make rustdoc`), and how much each grew from the first tree to the others against how
//! much the tree grew. Ratios, not thresholds: nothing here fails on a number.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rust_project_gen::rust_analyzer::{AnalysisStats, analysis_stats};
use subprocess::Command;
use subprocess::testing::{Measured, run_measured, user_binary};

/// A tree to measure.
struct Tree {
    label: String,
    srctree: PathBuf,
    objtree: PathBuf,
    extmod: PathBuf,
}

/// One tool's cost on one tree: (wall time, peak memory), ours and the anchor's.
#[derive(Clone, Copy, Default)]
struct Cost {
    ours: Option<(Duration, u64)>,
    anchor: Option<(Duration, u64)>,
}

/// How big a tree is.
struct Size {
    crates: usize,
    files: usize,
    lines: usize,
}

fn trees() -> Vec<Tree> {
    let spec = std::env::var("SCALING_TREES").unwrap_or_default();
    let trees: Vec<Tree> = spec
        .split_whitespace()
        .map(|entry| {
            let (label, dir) = entry.split_once('=').unwrap_or_else(|| {
                eprintln!("SCALING_TREES: {entry:?} is not LABEL=TREE_CACHE");
                std::process::exit(2)
            });
            let dir = Path::new(dir);
            Tree {
                label: label.to_owned(),
                srctree: dir.join("srctree"),
                objtree: dir.join("objtree"),
                extmod: dir.join("extmod"),
            }
        })
        .collect();
    if trees.len() < 2 {
        eprintln!(
            "SCALING_TREES names {} tree(s); it takes two or more (run this with `make bench-scaling`, which builds them)",
            trees.len()
        );
        std::process::exit(2)
    }
    trees
}

/// One run of `cmd`, which must succeed (or exit with one of `codes`): what it printed, its
/// time and its peak memory.
fn measure(what: &str, tree: &Tree, cmd: &Command, codes: &[i32]) -> Measured {
    eprintln!("==> {}: {what}", tree.label);
    let measured = run_measured(cmd);
    let code = measured.output.status.code();
    if !code.is_some_and(|c| codes.contains(&c)) {
        eprintln!(
            "{}: {what} failed:\n{}",
            tree.label,
            subprocess::testing::report(cmd, &measured.output)
        );
        std::process::exit(1)
    }
    eprintln!(
        "    {:.2}s, {}",
        measured.elapsed.as_secs_f64(),
        progress::format_size(measured.peak_rss)
    );
    measured
}

/// Its time and peak memory.
fn cost_of(measured: &Measured) -> (Duration, u64) {
    (measured.elapsed, measured.peak_rss)
}

/// The median of `runs` runs' times, and the largest peak.
fn median_of(runs: usize, what: &str, tree: &Tree, cmd: &Command) -> ((Duration, u64), String) {
    let mut times = Vec::new();
    let mut peak = 0;
    let mut stdout = String::new();
    for _ in 0..runs {
        let measured = measure(what, tree, cmd, &[0]);
        times.push(measured.elapsed);
        peak = peak.max(measured.peak_rss);
        stdout = measured.output.stdout;
    }
    times.sort();
    ((times[runs / 2], peak), stdout)
}

/// The Rust source files rustc read from the tree (the dependencies kbuild recorded for each
/// Rust object, under the srctree or the objtree: the kernel's code and bindgen's output, not
/// the toolchain's library), and their lines.
fn size(tree: &Tree, crates: usize) -> Size {
    let scan = kbuild::scan_rust_builds(&tree.objtree).expect("the objtree is readable");
    let mut files = BTreeSet::new();
    for build in &scan.builds {
        let text = std::fs::read_to_string(&build.cmd_file).unwrap_or_default();
        for word in text.split_whitespace() {
            let word = word.trim_end_matches('\\');
            if !word.ends_with(".rs") {
                continue;
            }
            let path = if Path::new(word).is_absolute() {
                PathBuf::from(word)
            } else {
                build.working_dir(&tree.objtree).join(word)
            };
            if path.starts_with(&tree.srctree) || path.starts_with(&tree.objtree) {
                files.insert(path);
            }
        }
    }
    let lines = files
        .iter()
        .map(|f| std::fs::read_to_string(f).map_or(0, |text| text.lines().count()))
        .sum();
    Size { crates, files: files.len(), lines }
}

fn main() {
    let trees = trees();
    let sysroot_out = Command::new("rustc", Path::new("/"))
        .args(["--print", "sysroot"])
        .timeout(Duration::from_secs(60))
        .run_checked()
        .expect("rustc runs");
    let sysroot = PathBuf::from(sysroot_out.stdout.trim());
    let ra = sysroot.join("bin/rust-analyzer");
    const TOOLS: [&str; 7] = [
        "rust-project-gen (anchor: make rust-analyzer's script)",
        "rust-analyzer on the file (anchor: on upstream's file)",
        "docs-site, cold (anchor: make rustdoc)",
        "lint-rules check",
        "layout-check check",
        "kallsyms-check scan",
        "decode-stacktrace (anchor: decode_stacktrace.sh)",
    ];
    let mut sizes = Vec::new();
    let mut costs: Vec<[Cost; 7]> = Vec::new();
    let mut analyses: Vec<[AnalysisStats; 2]> = Vec::new();
    for tree in &trees {
        let (src, obj) = (&tree.srctree, &tree.objtree);
        let mut cost = [Cost::default(); 7];
        let scratch = tempfile::tempdir().unwrap();

        // rust-project-gen, and upstream's script as `make rust-analyzer` runs it. Every `.cmd`
        // file read each time (`--no-cache`), as by a first run: how reading the tree grows.
        let trees_args = [src, obj, &sysroot, &sysroot.join("lib/rustlib/src/rust/library")];
        let ours = Command::new(user_binary("rust-project-gen"), obj)
            .args(trees_args)
            .args(["--stdout", "--no-cache"]);
        let (figure, json) = median_of(5, "rust-project-gen", tree, &ours);
        cost[0].ours = Some(figure);
        let (_, script) =
            rust_project_gen::upstream::generate(src, obj).expect("make -n rust-analyzer");
        let upstream = Command::new("sh", obj).arg("-c").arg(script).env("RUSTC", "rustc");
        let (figure, upstream_json) = median_of(5, "upstream's script", tree, &upstream);
        cost[0].anchor = Some(figure);
        let json: serde_json::Value = serde_json::from_str(&json).expect("our file is JSON");
        let crates = json["crates"].as_array().map_or(0, Vec::len);
        sizes.push(size(tree, crates));

        // rust-analyzer on each file: one analysis-stats run each.
        let mut stats = [AnalysisStats::default(), AnalysisStats::default()];
        for (side, text) in [(0, json.to_string()), (1, upstream_json)] {
            let dir = scratch.path().join(["ours", "upstream"][side]);
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join("rust-project.json"), text).unwrap();
            let cmd = Command::new(&ra, &dir)
                .arg("analysis-stats")
                .arg(&dir)
                .env("MALLOC_ARENA_MAX", "1")
                .timeout(Duration::from_secs(1800));
            let measured = measure("rust-analyzer analysis-stats", tree, &cmd, &[0]);
            let output = format!("{}\n{}", measured.output.stdout, measured.output.stderr);
            stats[side] = analysis_stats(&output);
            let slot = if side == 0 { &mut cost[1].ours } else { &mut cost[1].anchor };
            *slot = Some(cost_of(&measured));
        }

        // docs-site, cold, with a store of shared documentation of its own (core documented
        // too, as make rustdoc does), and make rustdoc.
        let site = scratch.path().join("site");
        let docs = Command::new(user_binary("docs-site"), obj)
            .arg("build")
            .args(["--srctree".as_ref(), src.as_os_str()])
            .args(["--objtree".as_ref(), obj.as_os_str()])
            .args(["--extmod-dir".as_ref(), tree.extmod.as_os_str()])
            .args(["--out".as_ref(), site.as_os_str()])
            .arg("--work")
            .arg(scratch.path().join("work"))
            .arg("--shared-dir")
            .arg(scratch.path().join("shared"))
            .timeout(Duration::from_secs(3600));
        cost[2].ours = Some(cost_of(&measure("docs-site build, cold", tree, &docs, &[0])));
        let rustdoc =
            kbuild::make::kernel_make(src, obj).arg("rustdoc").timeout(Duration::from_secs(3600));
        cost[2].anchor = Some(cost_of(&measure("make rustdoc", tree, &rustdoc, &[0])));

        // lint-rules on the kernel's code (1: findings, triaged).
        let mut lint = Command::new(user_binary("lint-rules"), obj)
            .args(["check".as_ref(), "--srctree".as_ref(), src.as_os_str()])
            .args(["--objtree".as_ref(), obj.as_os_str()]);
        for dir in ["rust", "samples/rust", "drivers"] {
            lint = lint.arg(src.join(dir));
        }
        cost[3].ours = Some(cost_of(&measure("lint-rules check", tree, &lint, &[0, 1])));

        let vmlinux = obj.join("vmlinux");
        let layout = Command::new(user_binary("layout-check"), obj)
            .arg("check")
            .args([vmlinux.as_os_str(), obj.as_os_str(), tree.extmod.as_os_str()])
            .args(["--srctree".as_ref(), src.as_os_str()])
            .timeout(Duration::from_secs(1800));
        cost[4].ours = Some(cost_of(&measure("layout-check check", tree, &layout, &[0, 1])));

        let scan = Command::new(user_binary("kallsyms-check"), obj)
            .arg("scan")
            .args([vmlinux.as_os_str(), obj.as_os_str()])
            .timeout(Duration::from_secs(600));
        cost[5].ours = Some(cost_of(&measure("kallsyms-check scan", tree, &scan, &[0, 1])));

        // The NULL-write oops the demo's kallsyms-check kept, when the demo ran on this tree.
        let log = obj.parent().unwrap().join("demo/kallsyms-check-logs/rust_oops_null.log");
        if log.is_file() {
            let decode = Command::new(user_binary("decode-stacktrace"), obj)
                .args([vmlinux.as_os_str(), src.as_os_str(), tree.extmod.as_os_str()])
                .arg("--log")
                .arg(&log);
            cost[6].ours = Some(median_of(5, "decode-stacktrace", tree, &decode).0);
            let script = src.join("scripts/decode_stacktrace.sh");
            let upstream = Command::new("sh", obj)
                .arg("-c")
                .arg(format!(
                    "{} {} {} {} < {}",
                    script.display(),
                    vmlinux.display(),
                    src.display(),
                    tree.extmod.display(),
                    log.display()
                ))
                .timeout(Duration::from_secs(600));
            cost[6].anchor = Some(median_of(3, "decode_stacktrace.sh", tree, &upstream).0);
        } else {
            eprintln!(
                "{}: no oops log at {} (run make demo on it): decode not measured",
                tree.label,
                log.display()
            );
        }
        costs.push(cost);
        analyses.push(stats);
    }
    render(&trees, &sizes, &TOOLS, &costs);
    println!();
    println!(
        "| rust-analyzer (the toolchain's) | expressions, ours / upstream's file | of unknown type | memory it counts |"
    );
    println!("|---|---:|---:|---:|");
    for (tree, [ours, upstream]) in trees.iter().zip(&analyses) {
        let memory = |s: &AnalysisStats| s.total_memory_mb.unwrap_or_default();
        println!(
            "| {} | {} / {} | {} / {} | {} MB / {} MB ({:.2}x) |",
            tree.label,
            ours.exprs.map_or(0, |e| e.0),
            upstream.exprs.map_or(0, |e| e.0),
            ours.exprs.map_or(0, |e| e.1),
            upstream.exprs.map_or(0, |e| e.1),
            memory(ours),
            memory(upstream),
            memory(ours) as f64 / memory(upstream).max(1) as f64
        );
    }
}

fn render(trees: &[Tree], sizes: &[Size], tools: &[&str], costs: &[[Cost; 7]]) {
    let first = &sizes[0];
    println!(
        "How each tool's cost grows with the tree ({} CPUs)",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!();
    println!("| tree | crates | Rust files read | Rust lines read | lines vs {} |", trees[0].label);
    println!("|---|---:|---:|---:|---:|");
    for (tree, size) in trees.iter().zip(sizes) {
        println!(
            "| {} | {} | {} | {} | {:.2}x |",
            tree.label,
            size.crates,
            size.files,
            size.lines,
            size.lines as f64 / first.lines as f64
        );
    }
    println!();
    let cell = |figure: Option<(Duration, u64)>| {
        figure.map_or("-".to_owned(), |(took, peak)| {
            format!("{:.2} s, {}", took.as_secs_f64(), progress::format_size(peak))
        })
    };
    let mut header = "| tool |".to_owned();
    let mut rule = "|---|".to_owned();
    for tree in trees {
        header += &format!(" {} ours | {} anchor |", tree.label, tree.label);
        rule += "---:|---:|";
    }
    for tree in &trees[1..] {
        header += &format!(" time {}/{}, ours (anchor) |", tree.label, trees[0].label);
        rule += "---:|";
    }
    println!("{header}");
    println!("{rule}");
    for (i, tool) in tools.iter().enumerate() {
        let mut row = format!("| {tool} |");
        for cost in costs {
            row += &format!(" {} | {} |", cell(cost[i].ours), cell(cost[i].anchor));
        }
        for cost in &costs[1..] {
            let growth = |a: Option<(Duration, u64)>, b: Option<(Duration, u64)>| {
                a.zip(b).map(|((a, _), (b, _))| b.as_secs_f64() / a.as_secs_f64())
            };
            let ours = growth(costs[0][i].ours, cost[i].ours);
            let anchor = growth(costs[0][i].anchor, cost[i].anchor);
            row += &match (ours, anchor) {
                (Some(o), Some(a)) => format!(" {o:.2}x ({a:.2}x) |"),
                (Some(o), None) => format!(" {o:.2}x |"),
                _ => " - |".to_owned(),
            };
        }
        println!("{row}");
    }
    println!();
    println!(
        "(time: wall, the median of 5 runs for rust-project-gen and decode-stacktrace, 3 for \
         decode_stacktrace.sh, one run otherwise; memory: the peak resident set of the largest \
         process, GNU time's %M)"
    );
}
