//! `rust-project-gen`: writes `rust-project.json` for rust-analyzer from what kbuild ran.
//!
//! Exit status: 0 on success (and, with `--check`, when the file is up to date), 1 when
//! `--check` finds the file stale or missing, 2 on errors.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, bail};
use clap::{Parser, Subcommand};
use report::{results, write_atomically};
use rust_project_gen::discover::{self, DiscoverArgument, Hints, Message};
use rust_project_gen::json::Flycheck;
use rust_project_gen::rust_analyzer::{self, Features};
use rust_project_gen::{Origin, Trees, cargo_home, generate, store};
use subprocess::Command;

/// Write rust-project.json for rust-analyzer from the rustc invocations kbuild saved.
///
/// Give the trees like kbuild gives them to scripts/generate_rust_analyzer.py
/// (SRCTREE OBJTREE SYSROOT SYSROOT_SRC [EXTTREE]), or none: then the objtree is
/// $KBUILD_OUTPUT or the nearest directory above this one with a .config, and the srctree its
/// `source` link.
#[derive(Parser, Debug, Clone)]
#[command(version, args_conflicts_with_subcommands = true)]
struct Args {
    #[command(subcommand)]
    command: Option<Cmd>,
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
    /// Read every `.cmd` file and ask rust-analyzer its version, without the record of the last
    /// run kept in the suite's cache (`rust-project-gen/`), and keep none.
    #[arg(long)]
    no_cache: bool,
}

#[derive(Subcommand, Debug, Clone)]
enum Cmd {
    /// Answer rust-analyzer's project discovery for a file (the editor's
    /// `rust-analyzer.workspace.discoverConfig`, see EDITORS.md): JSON lines on stdout, the last
    /// one the `rust-project.json` of the kernel build, source tree or external module the file
    /// belongs to. Nothing is written to stderr or to the trees.
    Discover {
        /// `{"path": FILE}` or `{"buildfile": FILE}` as rust-analyzer passes `{arg}`, or a path.
        arg: String,
        /// The rust-analyzer the editor runs, as for writing the file (default: the one that
        /// runs this command, else as for writing the file).
        #[arg(long, value_name = "PATH")]
        rust_analyzer: Option<PathBuf>,
        /// Check on save with clippy, as for writing the file.
        #[arg(long)]
        clippy: bool,
        /// Check on save with `lint-rules flycheck`, as for writing the file.
        #[arg(long)]
        lint: bool,
    },
}

fn main() -> ExitCode {
    let _stdout = progress::stdout::quiet_when_closed();
    let args = Args::parse();
    if let Some(Cmd::Discover { arg, rust_analyzer, clippy, lint }) = &args.command {
        return discover_command(arg, rust_analyzer.clone(), *clippy, *lint);
    }
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
    let store = if args.no_cache { None } else { store::suite_store() };
    let trees = match args.trees.as_slice() {
        [] => discover(store)?,
        [srctree, objtree, sysroot, sysroot_src, rest @ ..] => Trees {
            srctree: srctree.clone(),
            objtree: objtree.clone(),
            sysroot: sysroot.clone(),
            sysroot_src: sysroot_src.clone(),
            exttree: rest.first().cloned(),
            cargo_home: cargo_home(),
            store,
        },
        _ => {
            bail!("give all of SRCTREE OBJTREE SYSROOT SYSROOT_SRC [EXTTREE], or none to find them")
        }
    };
    // The editor's rust-analyzer is asked for its version while the trees are scanned.
    let (ra, no_flycheck, ra_trees) = (args.rust_analyzer.clone(), args.no_flycheck, trees.clone());
    let features = std::thread::spawn(move || {
        rust_analyzer_features(ra.as_deref(), no_flycheck, &ra_trees, &mut |w| {
            eprintln!("rust-project-gen: {w}")
        })
    });
    let output = generate(&trees);
    let features = features.join().expect("the version thread does not panic")?;
    let output = output?;
    let flycheck = if args.no_flycheck {
        None
    } else {
        flycheck(&trees, args.clippy, args.lint, &mut |w| {
            eprintln!("rust-project-gen: warning: {w}")
        })
    };
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
        unchanged: output.unchanged,
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
fn rust_analyzer_features(
    rust_analyzer: Option<&Path>,
    no_flycheck: bool,
    trees: &Trees,
    warn: &mut dyn FnMut(String),
) -> anyhow::Result<Features> {
    let ra = rust_analyzer.map(Path::to_owned).unwrap_or_else(|| {
        let toolchain_ra = trees.sysroot.join("bin/rust-analyzer");
        if toolchain_ra.is_file() { toolchain_ra } else { PathBuf::from("rust-analyzer") }
    });
    let ask = || run_tool(&ra, &["--version"], &trees.objtree);
    match store::version(trees.store.as_deref(), &ra, ask) {
        Ok(version) => {
            let features = rust_analyzer::features(&version);
            let missing = missing_features(features, no_flycheck);
            if !missing.is_empty() {
                warn(format!("for {}: {missing}", version.trim()));
            }
            Ok(features)
        }
        Err(err) if rust_analyzer.is_some() => {
            Err(err
                .context(format!("cannot ask {} for its version (--rust-analyzer)", ra.display())))
        }
        Err(_) => {
            warn("warning: rust-analyzer not found; writing for a current one (give --rust-analyzer PATH for your editor's)".to_owned());
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
fn flycheck(
    trees: &Trees,
    clippy: bool,
    lint: bool,
    warn: &mut dyn FnMut(String),
) -> Option<Flycheck> {
    let name = if lint { "lint-rules" } else { "kbuild-flycheck" };
    let program = std::env::current_exe().ok()?.with_file_name(name);
    if !program.is_file() {
        warn(format!("{} not found: no check on save in the file", program.display()));
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
fn discover(store: Option<PathBuf>) -> anyhow::Result<Trees> {
    let objtree = match std::env::var_os("KBUILD_OUTPUT") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let cwd = std::env::current_dir().context("cannot read the current directory")?;
            cwd.ancestors()
                .find(|d| discover::is_objtree(d))
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
    Ok(Trees {
        srctree,
        objtree,
        sysroot,
        sysroot_src,
        exttree: None,
        cargo_home: cargo_home(),
        store,
    })
}

fn run_tool(program: &Path, args: &[&str], cwd: &Path) -> anyhow::Result<String> {
    let out =
        Command::new(program, cwd).args(args).timeout(Duration::from_secs(30)).run_checked()?;
    Ok(out.stdout)
}

/// `rust-project-gen discover`: one JSON line a step on stdout, ending with `finished` or
/// `error` (exit 2), as rust-analyzer reads them. Nothing goes to stderr, which rust-analyzer
/// releases before 2026-08 read as JSON too.
fn discover_command(
    arg: &str,
    rust_analyzer: Option<PathBuf>,
    clippy: bool,
    lint: bool,
) -> ExitCode {
    let say = |message: Message| {
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", message.to_line());
        let _ = out.flush();
    };
    let argument = match discover::parse_argument(arg) {
        Ok(argument) => argument,
        Err(err) => {
            say(Message::Error { error: err.to_string(), source: None });
            return ExitCode::from(2);
        }
    };
    let source = Some(argument.path().display().to_string());
    match discover_project(&argument, rust_analyzer, clippy, lint, &mut |m| {
        say(Message::Progress { message: m })
    }) {
        Ok(finished) => {
            say(finished);
            ExitCode::SUCCESS
        }
        Err(err) => {
            say(Message::Error { error: format!("{err:#}"), source });
            ExitCode::from(2)
        }
    }
}

/// The `finished` message for `argument`, reporting each step to `progress`.
fn discover_project(
    argument: &DiscoverArgument,
    rust_analyzer: Option<PathBuf>,
    clippy: bool,
    lint: bool,
    progress: &mut dyn FnMut(String),
) -> anyhow::Result<Message> {
    let path = argument.path();
    let file =
        std::path::absolute(path).with_context(|| format!("cannot resolve {}", path.display()))?;
    let located = discover::locate(&file, &discover_hints())?;
    progress(format!(
        "{}: kernel build {} ({})",
        file.display(),
        located.objtree.display(),
        located.how
    ));
    let sysroot = PathBuf::from(
        run_tool(Path::new("rustc"), &["--print", "sysroot"], &located.objtree)?.trim(),
    );
    let trees = Trees {
        srctree: located.srctree.clone(),
        objtree: located.objtree.clone(),
        sysroot_src: sysroot.join("lib/rustlib/src/rust/library"),
        sysroot,
        exttree: located.exttree.clone(),
        cargo_home: cargo_home(),
        store: store::suite_store(),
    };
    let mut notes = Vec::new();
    // The rust-analyzer that runs this command is the editor's: the file is for what it reads.
    let rust_analyzer = rust_analyzer.or_else(parent_rust_analyzer);
    let features =
        rust_analyzer_features(rust_analyzer.as_deref(), false, &trees, &mut |w| notes.push(w))?;
    let output = generate(&trees)?;
    if !output.guessed.is_empty() {
        notes.push(format!(
            "{} is configured but not built: crates guessed from Makefiles ({})",
            trees.objtree.display(),
            output.guessed.join(", ")
        ));
    }
    notes.extend(output.warnings(features).cloned());
    let flycheck = flycheck(&trees, clippy, lint, &mut |w| notes.push(w));
    for note in notes {
        progress(note);
    }
    progress(format!(
        "{} crates from {} .cmd files",
        output.project.crates.len(),
        output.cmd_files
    ));
    let project = output.discover_json(features, flycheck.as_ref(), &located);
    Ok(Message::Finished { buildfile: located.buildfile, project })
}

/// The rust-analyzer that started this command, when one did: the parent process's program.
fn parent_rust_analyzer() -> Option<PathBuf> {
    let parent = std::os::unix::process::parent_id();
    let exe = std::fs::read_link(format!("/proc/{parent}/exe")).ok()?;
    exe.file_name()?.to_str()?.contains("rust-analyzer").then_some(exe)
}

/// Where to look for a source tree's build tree: `$KBUILD_OUTPUT`, and the user's list,
/// `$XDG_CONFIG_HOME/rust-project-gen/objtrees` (`~/.config/...`).
fn discover_hints() -> Hints {
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::home_dir().map(|h| h.join(".config")));
    let list_file = config.map(|c| c.join("rust-project-gen/objtrees"));
    let known_objtrees = list_file
        .as_ref()
        .and_then(|f| std::fs::read_to_string(f).ok())
        .map(|text| discover::parse_objtree_list(&text))
        .unwrap_or_default();
    Hints {
        kbuild_output: std::env::var_os("KBUILD_OUTPUT")
            .filter(|d| !d.is_empty())
            .map(|d| std::fs::canonicalize(&d).unwrap_or_else(|_| PathBuf::from(d))),
        known_objtrees,
        list_file,
    }
}
