//! `rust-project-gen`: writes `rust-project.json` for rust-analyzer from what kbuild ran.
//!
//! Exit status: 0 on success (and, with `--check`, when the file is up to date), 1 when
//! `--check` finds the file stale or missing, 2 on errors.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::Parser;
use report::{results, write_atomically};
use rust_project_gen::json::Flycheck;
use rust_project_gen::rust_analyzer::{self, Features};
use rust_project_gen::{Origin, Trees, cargo_home, generate};
use subprocess::Command;

/// Write rust-project.json for rust-analyzer from the rustc invocations kbuild saved.
///
/// Give the trees like kbuild gives them to scripts/generate_rust_analyzer.py
/// (SRCTREE OBJTREE SYSROOT SYSROOT_SRC [EXTTREE]), or none: then the objtree is
/// $KBUILD_OUTPUT or the nearest directory above this one with a .config, and the srctree its
/// `source` link.
#[derive(Parser, Debug, Clone)]
#[command(version)]
struct Args {
    /// SRCTREE OBJTREE SYSROOT SYSROOT_SRC [EXTTREE].
    #[arg(num_args = 0..=5, value_name = "TREES")]
    trees: Vec<PathBuf>,
    /// Where to write (default: rust-project.json in the objtree, or in EXTTREE).
    #[arg(long, short)]
    output: Option<PathBuf>,
    /// Print the file on stdout instead of writing it.
    #[arg(long, conflicts_with = "output")]
    stdout: bool,
    /// Write nothing; exit 1 if the existing file is missing or differs from what would be written.
    #[arg(long)]
    check: bool,
    /// Write even when some .cmd files could not be used (a partial graph).
    #[arg(long)]
    force: bool,
    /// Run clippy too in the editor's check on save (`make CLIPPY=1`; rebuilds Rust crates
    /// once when switching).
    #[arg(long)]
    clippy: bool,
    /// No check-on-save command in the file.
    #[arg(long, conflicts_with = "clippy")]
    no_flycheck: bool,
    /// Check on save with `lint-rules flycheck` (installed beside this binary) instead of
    /// `kbuild-flycheck`: the same kbuild diagnostics plus the kernel's Rust coding rules.
    #[arg(long, conflicts_with = "no_flycheck")]
    lint: bool,
    /// The rust-analyzer your editor runs (default: the toolchain's, else `rust-analyzer` on
    /// PATH): the file uses what its version understands, and never what it cannot read.
    #[arg(long, value_name = "PATH")]
    rust_analyzer: Option<PathBuf>,
    /// Print the result as JSON (`report::results`' schema) on stdout instead of the path.
    #[arg(long, conflicts_with_all = ["stdout", "check"])]
    json: bool,
}

fn main() -> ExitCode {
    let _stdout = progress::stdout::quiet_when_closed();
    let args = Args::parse();
    match run(&args) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("rust-project-gen: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let trees = match args.trees.as_slice() {
        [] => discover()?,
        [srctree, objtree, sysroot, sysroot_src, rest @ ..] => Trees {
            srctree: srctree.clone(),
            objtree: objtree.clone(),
            sysroot: sysroot.clone(),
            sysroot_src: sysroot_src.clone(),
            exttree: rest.first().cloned(),
            cargo_home: cargo_home(),
        },
        _ => {
            bail!("give all of SRCTREE OBJTREE SYSROOT SYSROOT_SRC [EXTTREE], or none to find them")
        }
    };
    // The editor's rust-analyzer is asked for its version while the trees are scanned.
    let (ra_args, ra_trees) = (args.clone(), trees.clone());
    let features = std::thread::spawn(move || rust_analyzer_features(&ra_args, &ra_trees));
    let output = generate(&trees);
    let features = features.join().expect("the version thread does not panic")?;
    let output = output?;
    let flycheck = if args.no_flycheck { None } else { flycheck(&trees, args.clippy, args.lint) };
    let text = output.text(features, flycheck.as_ref());
    if !output.guessed.is_empty() {
        eprintln!(
            "rust-project-gen: warning: {} is configured but not built, so these crates are guessed from Makefiles, as upstream's script does: {}; build the tree (make -C {} O={}) and rerun for the crates kbuild really builds",
            trees.objtree.display(),
            output.guessed.join(", "),
            trees.srctree.display(),
            trees.objtree.display()
        );
    }
    for warning in output.warnings(features) {
        eprintln!("rust-project-gen: warning: {warning}");
    }
    let path = args.output.clone().unwrap_or_else(|| {
        trees.exttree.as_ref().unwrap_or(&trees.objtree).join("rust-project.json")
    });
    if args.check {
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        return Ok(if current == text {
            eprintln!("{} is up to date", path.display());
            ExitCode::SUCCESS
        } else {
            eprintln!("{} is stale or missing: run rust-project-gen to update it", path.display());
            ExitCode::FAILURE
        });
    }
    if !output.problems.is_empty() && !args.force {
        bail!(
            "{} problem(s) above: the crate graph would be partial, so nothing was written; fix them (usually by rebuilding), or pass --force to write it anyway",
            output.problems.len()
        );
    }
    if args.stdout {
        print!("{text}");
    } else {
        write_atomically(&path, &text)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let result = project_result(&output, (!args.stdout).then_some(path), start.elapsed());
    if args.json {
        print!("{}", results::to_json(results::ToolResult::RustProjectGen(result.clone())));
    } else if let Some(path) = &result.file {
        println!("{}", path.display());
    }
    eprintln!("rust-project-gen: {}", result.summary());
    Ok(ExitCode::SUCCESS)
}

/// The result: the file, its crates, and those read as libraries or left out.
fn project_result(
    output: &rust_project_gen::Output,
    file: Option<PathBuf>,
    took: Duration,
) -> results::Project {
    let project = &output.project;
    results::Project {
        file,
        crates: project.crates.len(),
        cmd_files: output.cmd_files,
        vendored: project
            .crates
            .iter()
            .filter(|c| c.origin == Origin::Vendored)
            .map(|c| c.name.clone())
            .collect(),
        rusttest: project.rusttest.clone(),
        generated: project.generated.clone(),
        guessed: output.guessed.clone(),
        problems: output.problems.clone(),
        millis: took.as_secs_f64() * 1000.0,
    }
}

/// What the editor's rust-analyzer reads (by default the toolchain's, which rustup starts),
/// from its `--version`; everything, with a warning, when there is none to ask.
fn rust_analyzer_features(args: &Args, trees: &Trees) -> anyhow::Result<Features> {
    let ra = args.rust_analyzer.clone().unwrap_or_else(|| {
        let toolchain_ra = trees.sysroot.join("bin/rust-analyzer");
        if toolchain_ra.is_file() { toolchain_ra } else { PathBuf::from("rust-analyzer") }
    });
    match run_tool(&ra, &["--version"], &trees.objtree) {
        Ok(version) => {
            let features = rust_analyzer::features(&version);
            let missing = missing_features(features, args.no_flycheck);
            if !missing.is_empty() {
                eprintln!("rust-project-gen: for {}: {missing}", version.trim());
            }
            Ok(features)
        }
        Err(err) if args.rust_analyzer.is_some() => {
            Err(err
                .context(format!("cannot ask {} for its version (--rust-analyzer)", ra.display())))
        }
        Err(_) => {
            eprintln!(
                "rust-project-gen: warning: rust-analyzer not found; writing for a current one (give --rust-analyzer PATH for your editor's)"
            );
            Ok(Features::ALL)
        }
    }
}

/// What the file leaves out for an older rust-analyzer, and what that costs.
fn missing_features(features: Features, no_flycheck: bool) -> String {
    let mut notes = Vec::new();
    if !features.sysroot_project {
        notes.push("the sysroot crates are listed as ordinary crates (no `sysroot_project`)");
    }
    if !features.cfg_groups {
        notes.push("each crate carries its cfgs (no `cfg_groups`)");
    }
    if !features.crate_attrs {
        notes.push(
            "no `crate_attrs`, so it cannot see -Zcrate-attr=no_std: modules may appear to have std",
        );
    }
    if !features.flycheck_runnables && !no_flycheck {
        notes.push(
            "no check on save in the file (it has no `flycheck` runnables, which came in 2026-01 and Rust 1.95): use a newer rust-analyzer, or set rust-analyzer.check.overrideCommand in the editor",
        );
    }
    notes.join("; ")
}

/// The check-on-save command: `kbuild-flycheck` (or `lint-rules flycheck`), installed beside
/// this binary.
fn flycheck(trees: &Trees, clippy: bool, lint: bool) -> Option<Flycheck> {
    let name = if lint { "lint-rules" } else { "kbuild-flycheck" };
    let program = std::env::current_exe().ok()?.with_file_name(name);
    if !program.is_file() {
        eprintln!(
            "rust-project-gen: warning: {} not found: no check on save in the file",
            program.display()
        );
        return None;
    }
    let mut args = if lint { vec!["flycheck".to_owned()] } else { Vec::new() };
    args.extend([
        "--srctree".to_owned(),
        trees.srctree.display().to_string(),
        "--objtree".to_owned(),
        trees.objtree.display().to_string(),
    ]);
    if clippy {
        args.push("--clippy".to_owned());
    }
    Some(Flycheck { program, args, cwd: trees.objtree.clone() })
}

/// Finds the trees from the environment and the current directory.
fn discover() -> anyhow::Result<Trees> {
    let objtree = match std::env::var_os("KBUILD_OUTPUT") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let cwd = std::env::current_dir().context("cannot read the current directory")?;
            cwd.ancestors()
                .find(|d| d.join(".config").is_file() && d.join("include/generated").is_dir())
                .map(Path::to_owned)
                .with_context(|| {
                    format!(
                        "no kernel build tree (a directory with .config and include/generated) at or above {}: run from the objtree, set KBUILD_OUTPUT, or give SRCTREE OBJTREE SYSROOT SYSROOT_SRC",
                        cwd.display()
                    )
                })?
        }
    };
    let srctree = std::fs::canonicalize(objtree.join("source")).unwrap_or_else(|_| objtree.clone());
    let sysroot =
        PathBuf::from(run_tool(Path::new("rustc"), &["--print", "sysroot"], &objtree)?.trim());
    let sysroot_src = sysroot.join("lib/rustlib/src/rust/library");
    Ok(Trees { srctree, objtree, sysroot, sysroot_src, exttree: None, cargo_home: cargo_home() })
}

fn run_tool(program: &Path, args: &[&str], cwd: &Path) -> anyhow::Result<String> {
    let out =
        Command::new(program, cwd).args(args).timeout(Duration::from_secs(30)).run_checked()?;
    Ok(out.stdout)
}
