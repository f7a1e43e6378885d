//! `make bench`: docs-site against `make rustdoc` on the same tree, in one run: a cold build of
//! each (ours documents `core` too, like upstream), ours again with `core` taken from the shared
//! store (as for a second tree), our no-change rebuild, peak memory, the crates each documents,
//! the size of each site and the broken links the same checker finds in each.
//! Ratios, not thresholds: nothing here fails on a number.

use std::path::{Path, PathBuf};
use std::time::Duration;

use docs_site::linkcheck;

fn var(name: &str) -> PathBuf {
    std::env::var_os(name).map(PathBuf::from).unwrap_or_else(|| {
        eprintln!("{name} is not set: run this with `make bench`, which builds the demo kernel");
        std::process::exit(2)
    })
}

/// One run of `command` under GNU time: wall time, peak memory and stdout.
fn timed(what: &str, command: &subprocess::Command) -> (Duration, u64, String) {
    eprintln!("==> {what}");
    let measured = subprocess::testing::run_measured(command);
    if !measured.output.success() {
        eprintln!("{what} failed:\n{}", subprocess::testing::report(command, &measured.output));
        std::process::exit(1)
    }
    eprintln!("    {what}: {:.1}s", measured.elapsed.as_secs_f64());
    (measured.elapsed, measured.peak_rss, measured.output.stdout)
}

/// The crates a rustdoc output folder documents: top folders with an `index.html`, but our
/// source view's and the C headers' pages.
fn crates(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|read| {
            read.flatten()
                .filter(|e| e.path().join("index.html").is_file())
                .filter(|e| e.file_name() != "srctree" && e.file_name() != docs_site::cdefs::FOLDER)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn check(dir: &Path) -> linkcheck::Report {
    let site = linkcheck::scan_site(dir, 2).expect("the site is readable");
    let mut report = linkcheck::check(&site);
    // The same list for both: mistakes of the kernel's and core's own docs, shown apart.
    linkcheck::set_aside_known(&mut report, linkcheck::KNOWN_UPSTREAM);
    report
}

fn main() {
    let (src, obj, extmod) = (var("KERNEL_SRC"), var("KERNEL_OBJ"), var("EXTMOD_DIR"));
    let ours = subprocess::testing::user_binary("docs-site");
    let scratch = tempfile::tempdir().unwrap();
    let site = scratch.path().join("site");
    let work = scratch.path().join("work");

    let upstream =
        kbuild::make::kernel_make(&src, &obj).arg("rustdoc").timeout(Duration::from_secs(3600));
    let (t_upstream, peak_upstream, _) = timed("make rustdoc (upstream)", &upstream);
    let upstream_dir = obj.join("Documentation/output/rust/rustdoc");

    // A store of shared documentation of the scratch folder's own, empty at first: the first
    // build documents everything, and puts core in it.
    let shared = scratch.path().join("shared");
    let build = |site: &Path, work: &Path| {
        subprocess::Command::new(&ours, &obj)
            .arg("build")
            .arg("--srctree")
            .arg(&src)
            .arg("--objtree")
            .arg(&obj)
            .arg("--extmod-dir")
            .arg(&extmod)
            .arg("--out")
            .arg(site)
            .arg("--work")
            .arg(work)
            .arg("--shared-dir")
            .arg(&shared)
            .timeout(Duration::from_secs(3600))
    };
    let (t_cold, peak_cold, _) =
        timed("docs-site build, cold (core documented)", &build(&site, &work));
    let (t_again, peak_again, _) = timed("docs-site build, nothing changed", &build(&site, &work));
    // Another tree with the same toolchain, target and flags for core (here: this tree again,
    // into new folders) takes core from the store.
    let (site2, work2) = (scratch.path().join("site2"), scratch.path().join("work2"));
    let (t_shared, peak_shared, _) =
        timed("docs-site build, cold but for core (shared)", &build(&site2, &work2));

    eprintln!("==> checking links");
    let (up_report, our_report) = (check(&upstream_dir), check(&site));
    let (up_crates, our_crates) = (crates(&upstream_dir), crates(&site));
    let size = |dir: &Path| docs_site::site::format_size(docs_site::site::tree_size(dir));
    let core_size = |dir: &Path| {
        let bytes = docs_site::site::tree_size(&dir.join("core"))
            + docs_site::site::tree_size(&dir.join("src/core"));
        docs_site::site::format_size(bytes)
    };

    println!(
        "docs-site vs make rustdoc on {} ({} CPUs)",
        obj.display(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!("{:<34} {:>14} {:>14} {:>8}", "", "make rustdoc", "docs-site", "ratio");
    println!(
        "{:<34} {:>13.1}s {:>13.1}s {:>7.2}x",
        "cold build",
        t_upstream.as_secs_f64(),
        t_cold.as_secs_f64(),
        t_cold.as_secs_f64() / t_upstream.as_secs_f64()
    );
    println!(
        "{:<34} {:>14} {:>13.1}s {:>7.2}x",
        "cold, core from the shared store",
        "(always cold)",
        t_shared.as_secs_f64(),
        t_shared.as_secs_f64() / t_upstream.as_secs_f64()
    );
    println!(
        "{:<34} {:>14} {:>13.1}s {:>7.2}x  (of our cold build: {:.1}%)",
        "no-change rebuild",
        "(always cold)",
        t_again.as_secs_f64(),
        t_again.as_secs_f64() / t_upstream.as_secs_f64(),
        100.0 * t_again.as_secs_f64() / t_cold.as_secs_f64()
    );
    println!(
        "{:<34} {:>14} {:>14}",
        "peak memory, cold (largest process)",
        progress::format_size(peak_upstream),
        progress::format_size(peak_cold)
    );
    println!(
        "{:<34} {:>14} {:>14}",
        "peak memory, core shared",
        "",
        progress::format_size(peak_shared)
    );
    println!(
        "{:<34} {:>14} {:>14}",
        "peak memory, no-change rebuild",
        "",
        progress::format_size(peak_again)
    );
    println!("{:<34} {:>14} {:>14}", "crates documented", up_crates.len(), our_crates.len());
    println!("{:<34} {:>14} {:>14}", "size", size(&upstream_dir), size(&site));
    println!("{:<34} {:>14} {:>14}", "  of which core", core_size(&upstream_dir), core_size(&site));
    println!("{:<34} {:>14} {:>14}", "links checked", up_report.checked, our_report.checked);
    println!(
        "{:<34} {:>14} {:>14}",
        "broken links",
        up_report.broken.len(),
        our_report.broken.len()
    );
    println!(
        "{:<34} {:>14} {:>14}",
        "  + known upstream mistakes",
        up_report.known.len(),
        our_report.known.len()
    );
    println!();
    println!("make rustdoc's crates: {}", up_crates.join(" "));
    println!("docs-site's crates:    {}", our_crates.join(" "));
    println!();
    println!("make rustdoc's links:\n{}", linkcheck::render(&up_report, 3));
    println!("docs-site's links:\n{}", linkcheck::render(&our_report, 3));
}
