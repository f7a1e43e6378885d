//! `lint-rules`: the kernel's Rust coding rules on files, trees or a patch, merged with the
//! kernel's clippy run, printed like rustc (human, or JSON for the editor).
//!
//! Exit codes: 0 no finding at error level, 1 findings at error level (or files that could
//! not be linted), 2 usage or environment error, or no Rust file linted (unless
//! `--allow-empty`).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand, ValueEnum};
use lint_rules::files::{self, Source};
use lint_rules::{Config, FileContext, Finding, Level, catalogue, clippy, diag};
use kbuild::flycheck::FlycheckArgs;

/// The kernel's Rust coding rules, checked like a compiler would.
#[derive(Parser, Debug)]
#[command(version)]
struct Args {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Lint files and directories (`.rs` files under them).
    Check(CheckArgs),
    /// List the rules (`--markdown`: the catalogue's documentation).
    Rules {
        /// Print the full catalogue as Markdown.
        #[arg(long)]
        markdown: bool,
    },
    /// Check on save for a kernel crate: kbuild's rustc (or clippy) diagnostics for the crate
    /// built as LABEL, like `kbuild-flycheck`, plus our rules on its files, as rustc JSON on
    /// stdout (`rust-project-gen --lint` puts this in rust-project.json).
    Flycheck(FlycheckArgs),
    /// Explain a rule: its rationale and examples.
    Explain {
        /// The rule id.
        rule: String,
    },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    /// rustc-style diagnostics with snippets.
    Human,
    /// rustc's JSON diagnostics, one per line (for rust-analyzer's check command).
    Json,
    /// cargo's `compiler-message` envelope around rustc's JSON diagnostics.
    CargoJson,
}

#[derive(clap::Args, Debug)]
struct CheckArgs {
    /// Files and directories to lint (default: the current directory).
    paths: Vec<PathBuf>,
    /// The directory file names are relative to, which decides what kind of code a file is
    /// (`rust/macros/` is host code, `drivers/` and `samples/` are leaf modules). Defaults to
    /// `--srctree`, else the current directory.
    #[arg(long)]
    base: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "human")]
    message_format: Format,
    /// Only report findings on lines that this unified diff adds (`-` for stdin).
    #[arg(long)]
    diff: Option<PathBuf>,
    /// A rule's level: `id=allow|warn|error` (repeatable).
    #[arg(long = "rule", value_name = "ID=LEVEL")]
    rules: Vec<String>,
    /// Lint generated files too (`*_generated.rs`, bindgen output); skipped by default.
    #[arg(long)]
    include_generated: bool,
    /// Lint third-party crates vendored into the tree too (a folder whose `README.md` says
    /// "These source files come from the Rust `syn` crate, version ..."); skipped by default,
    /// as they are not kernel code.
    #[arg(long)]
    vendored: bool,
    /// Also run the kernel's clippy (`make CLIPPY=1`) on the built tree and merge its findings.
    #[arg(long, requires_all = ["srctree", "objtree"])]
    clippy: bool,
    /// The kernel source tree (for `--clippy`, and the default `--base`).
    #[arg(long)]
    srctree: Option<PathBuf>,
    /// The kernel build tree (for `--clippy`).
    #[arg(long)]
    objtree: Option<PathBuf>,
    /// Also run clippy on an external module built with `M=BUILD_DIR`, whose sources are in
    /// SOURCE_DIR (the workbench builds copies of `demo-kernel/modules/*`): `BUILD_DIR=SOURCE_DIR`
    /// (repeatable).
    #[arg(long = "clippy-module", value_name = "BUILD_DIR=SOURCE_DIR", requires_all = ["srctree", "objtree"])]
    clippy_modules: Vec<String>,
    /// Save clippy's raw JSON output here (to inspect it or make a fixture).
    #[arg(long)]
    clippy_log: Option<PathBuf>,
    /// Print a table of findings per rule at the end (on stderr).
    #[arg(long)]
    summary: bool,
    /// Exit 0 when no Rust file was linted (a patch that touches none, a folder with none);
    /// without it, linting nothing is an error.
    #[arg(long)]
    allow_empty: bool,
}

fn main() -> ExitCode {
    let _stdout = progress::stdout::quiet_when_closed();
    let args = Args::parse();
    let result = match args.command {
        Command::Check(c) => check(&c),
        Command::Rules { markdown } => {
            if markdown {
                print!("{}", catalogue::markdown());
            } else {
                for r in catalogue::RULES {
                    println!("{:<20} {:<8} {}", r.id, r.default_level, r.summary);
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Flycheck(f) => flycheck(&f),
        Command::Explain { rule } => match catalogue::rule(&rule) {
            Some(r) => {
                println!("{} ({}): {}\n\n{}\n", r.id, r.default_level, r.summary, r.rationale);
                println!("Good:\n\n{}\nBad:\n\n{}", r.good, r.bad);
                Ok(ExitCode::SUCCESS)
            }
            None => Err(anyhow::anyhow!("no rule `{rule}`: `lint-rules rules` lists them")),
        },
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("lint-rules: error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn config(args: &CheckArgs) -> anyhow::Result<Config> {
    let mut levels = BTreeMap::new();
    for r in &args.rules {
        let Some((id, level)) = r.split_once('=') else {
            bail!("--rule {r}: expected ID=LEVEL, for example `--rule vertical-imports=warn`")
        };
        if catalogue::rule(id).is_none() && !id.starts_with("clippy::") {
            bail!("--rule {r}: no rule `{id}` (`lint-rules rules` lists them)");
        }
        let Some(level) = Level::parse(level) else {
            bail!("--rule {r}: level must be allow, warn or error")
        };
        levels.insert(id.to_owned(), level);
    }
    Ok(Config { levels, clippy_ran: args.clippy || !args.clippy_modules.is_empty() })
}

fn check(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let start = Instant::now();
    let config = config(args)?;
    let cwd = std::env::current_dir().context("reading the current directory")?;
    let base = args.base.clone().or_else(|| args.srctree.clone()).unwrap_or_else(|| cwd.clone());
    let base =
        base.canonicalize().with_context(|| format!("{}: no such directory", base.display()))?;
    let paths: Vec<PathBuf> = if args.paths.is_empty() {
        vec![cwd.clone()]
    } else {
        args.paths.iter().map(|p| cwd.join(p)).collect()
    };
    let touched = match &args.diff {
        None => None,
        Some(p) => {
            let text = if p == Path::new("-") {
                std::io::read_to_string(std::io::stdin()).context("reading the diff from stdin")?
            } else {
                std::fs::read_to_string(p).with_context(|| format!("reading {}", p.display()))?
            };
            Some(lint_rules::diff::touched_lines(&text))
        }
    };

    let mut clippy_findings: BTreeMap<String, Vec<Finding>> = BTreeMap::new();
    if let (Some(srctree), Some(objtree)) = (args.srctree.as_deref(), args.objtree.as_deref()) {
        if args.clippy {
            for f in run_clippy(srctree, objtree, args.clippy_log.as_deref())? {
                clippy_findings.entry(f.file.clone()).or_default().push(f);
            }
        }
        for m in &args.clippy_modules {
            let Some((build, source)) = m.split_once('=') else {
                bail!("--clippy-module {m}: expected BUILD_DIR=SOURCE_DIR")
            };
            let source = cwd.join(source);
            let source = source.canonicalize().unwrap_or(source);
            for mut f in run_clippy_module(srctree, objtree, Path::new(build))? {
                // From the build copy back to the source file, named like the inputs.
                if let Ok(rel) = Path::new(&f.file).strip_prefix(build) {
                    let path = source.join(rel);
                    f.file = path
                        .strip_prefix(&base)
                        .map_or_else(|_| path.display().to_string(), |r| r.display().to_string());
                }
                clippy_findings.entry(f.file.clone()).or_default().push(f);
            }
        }
    }

    let (inputs, errors) = files::collect(&paths, &base);
    let mut problems = 0usize;
    for e in &errors {
        eprintln!("lint-rules: error: {e}");
        problems += 1;
    }
    let mut all = Vec::new();
    let mut skipped_generated = Vec::new();
    // Per vendored crate, how many of its files were skipped.
    let mut skipped_vendored: BTreeMap<files::Vendored, usize> = BTreeMap::new();
    let mut stdout = progress::stdout::lock();
    let mut linted = 0usize;
    let mut suppressed = 0usize;
    for input in &inputs {
        if let Some(t) = &touched
            && !t.contains_key(&input.name)
        {
            continue;
        }
        if let Some(v) = &input.vendored
            && !args.vendored
        {
            *skipped_vendored.entry(v.clone()).or_default() += 1;
            // Not kernel code: clippy's findings there (the kernel builds them with
            // `--cap-lints=allow`, so there should be none) go with the file.
            clippy_findings.remove(&input.name);
            continue;
        }
        let bytes = match std::fs::read(&input.path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("lint-rules: error: {}: {e}", input.path.display());
                problems += 1;
                continue;
            }
        };
        let source = if files::made_by_kbuild(&input.path) {
            Source::Generated
        } else {
            files::classify(&input.name, bytes)
        };
        let text = match source {
            Source::Generated if !args.include_generated => {
                skipped_generated.push(input.name.clone());
                continue;
            }
            Source::Generated => match std::fs::read_to_string(&input.path) {
                Ok(t) => t,
                Err(e) => {
                    eprintln!("lint-rules: error: {}: {e}", input.path.display());
                    problems += 1;
                    continue;
                }
            },
            Source::NotUtf8(at) => {
                eprintln!(
                    "lint-rules: error: {}: not UTF-8 (invalid byte at offset {at}); Rust source must be UTF-8",
                    input.name
                );
                problems += 1;
                continue;
            }
            Source::Text(t) => t,
        };
        linted += 1;
        let mut cx = FileContext::for_path(&input.name);
        cx.name = input.name.clone();
        let extra = clippy_findings.remove(&input.name).unwrap_or_default();
        let mut result = lint_rules::lint_file(&cx, &text, &config, extra);
        suppressed += result.suppressed;
        if let Some(t) = &touched {
            let lines = &t[&input.name];
            result.findings.retain(|f| {
                (f.span.line..=f.span.end_line.max(f.span.line)).any(|l| lines.contains(&l))
            });
        }
        for f in &result.findings {
            emit(&mut stdout, args.message_format, f, Some(&text), &input.path)?;
        }
        all.extend(result.findings);
    }
    // Clippy findings in files that were not linted (outside the paths): still reported, but
    // for generated files (the kernel's doctests, `rust/doctests_kernel_generated.rs`, where
    // `no-panic` would not apply either), which are skipped like ours.
    let mut generated_clippy = BTreeMap::<String, usize>::new();
    if !args.include_generated {
        clippy_findings.retain(|file, found| {
            if files::generated_name(file) {
                generated_clippy.insert(file.clone(), found.len());
            }
            !files::generated_name(file)
        });
    }
    for f in clippy_findings.into_values().flatten() {
        if touched
            .as_ref()
            .is_some_and(|t| !t.get(&f.file).is_some_and(|l| l.contains(&f.span.line)))
        {
            continue;
        }
        let path = base.join(&f.file);
        let text = std::fs::read_to_string(&path).ok();
        emit(&mut stdout, args.message_format, &f, text.as_deref(), &path)?;
        all.push(f);
    }
    stdout.flush().ok();
    drop(stdout);

    let errors = all.iter().filter(|f| f.level == Level::Error).count();
    let warnings = all.iter().filter(|f| f.level == Level::Warning).count();
    if !skipped_generated.is_empty() {
        eprintln!(
            "lint-rules: skipped {} generated file{} ({}); --include-generated lints them",
            skipped_generated.len(),
            if skipped_generated.len() == 1 { "" } else { "s" },
            skipped_generated.join(", ")
        );
    }
    if !generated_clippy.is_empty() {
        let n: usize = generated_clippy.values().sum();
        let names: Vec<String> = generated_clippy.keys().cloned().collect();
        eprintln!(
            "lint-rules: skipped {n} clippy finding{} in generated files ({}); --include-generated reports them",
            if n == 1 { "" } else { "s" },
            names.join(", ")
        );
    }
    if !skipped_vendored.is_empty() {
        eprintln!("lint-rules: {}", vendored_summary(&skipped_vendored));
    }
    if args.summary {
        eprint!("{}", diag::table(&all));
    }
    eprintln!(
        "lint-rules: {linted} files, {errors} errors, {warnings} warnings, {suppressed} suppressed, {problems} files not linted, in {}",
        progress::format_duration(start.elapsed())
    );
    if linted == 0 && problems == 0 && !args.allow_empty {
        let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        let found = if touched.is_some() {
            format!("the diff touches none of the {} Rust file(s) under", inputs.len())
        } else {
            format!("{} Rust file(s) found under", inputs.len())
        };
        let skipped = if skipped_generated.is_empty() && skipped_vendored.is_empty() {
            ""
        } else {
            ", every one of them generated or vendored (--include-generated, --vendored lint them)"
        };
        bail!(
            "no Rust file linted: {found} {}{skipped}; --allow-empty accepts that",
            paths.join(" ")
        );
    }
    Ok(if errors > 0 || problems > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// One line: the vendored crates skipped, with their version and how many files each.
fn vendored_summary(skipped: &BTreeMap<files::Vendored, usize>) -> String {
    let files: usize = skipped.values().sum();
    let crates: Vec<String> = skipped
        .iter()
        .map(|(v, n)| match &v.version {
            Some(version) => format!("{} {version} in {}: {n}", v.name, v.dir),
            None => format!("{} in {}: {n}", v.name, v.dir),
        })
        .collect();
    format!(
        "skipped {files} file{} of {} vendored third-party crate{} ({}); --vendored lints them",
        if files == 1 { "" } else { "s" },
        skipped.len(),
        if skipped.len() == 1 { "" } else { "s" },
        crates.join(", ")
    )
}

fn emit(
    out: &mut impl Write,
    format: Format,
    f: &Finding,
    text: Option<&str>,
    path: &Path,
) -> anyhow::Result<()> {
    match format {
        Format::Human => writeln!(out, "{}", diag::render_human(f, text))?,
        Format::Json => {
            let d = diag::to_rustc(f, text, &path.display().to_string());
            writeln!(out, "{}", serde_json::to_string(&d)?)?;
        }
        Format::CargoJson => {
            let d = diag::to_rustc(f, text, &path.display().to_string());
            let envelope = serde_json::json!({
                "reason": "compiler-message",
                "package_id": "lint-rules",
                "manifest_path": path.display().to_string(),
                "target": { "kind": ["lib"], "crate_types": ["lib"], "name": "lint-rules",
                            "src_path": path.display().to_string(), "edition": "2021",
                            "doc": false, "doctest": false, "test": false },
                "message": d,
            });
            writeln!(out, "{envelope}")?;
        }
    }
    Ok(())
}

fn run_clippy_module(srctree: &Path, objtree: &Path, dir: &Path) -> anyhow::Result<Vec<Finding>> {
    let step = progress::start(&format!("clippy: make M={} CLIPPY=1", dir.display()));
    match clippy::run_module(srctree, objtree, dir, Some(clippy::CLIPPY_TOML)) {
        Ok(run) => {
            step.done(&format!("{} objects, {} findings", run.targets.len(), run.findings.len()));
            Ok(run.findings)
        }
        Err(e) => {
            step.failed();
            Err(e.into())
        }
    }
}

fn run_clippy(srctree: &Path, objtree: &Path, log: Option<&Path>) -> anyhow::Result<Vec<Finding>> {
    let step = progress::start("clippy: the kernel's clippy run, outside the tree");
    let run = match clippy::run(srctree, objtree, Some(clippy::CLIPPY_TOML)) {
        Ok(run) => run,
        Err(e) => {
            step.failed();
            return Err(e.into());
        }
    };
    step.done(&format!("{} crates, {} findings", run.targets.len(), run.findings.len()));
    if !run.additions_left_out.is_empty() {
        eprintln!(
            "lint-rules: clippy ran with the kernel's .clippy.toml settings of {}, not lint-rules/kernel-clippy.toml's",
            run.additions_left_out.join(", ")
        );
    }
    if let Some(log) = log {
        std::fs::write(log, &run.json).with_context(|| format!("writing {}", log.display()))?;
    }
    Ok(run.findings)
}

/// kbuild's check of the crate (its JSON diagnostics kept), then ours on the crate's files;
/// rustc's and clippy's findings that repeat ours are dropped. Exit 0 when both ran (findings
/// are the normal case), 2 when they could not.
fn flycheck(args: &FlycheckArgs) -> anyhow::Result<ExitCode> {
    let check = kbuild::flycheck::check_command(&args.objtree, &args.label, args.clippy)?;
    let cmd = kbuild::make::kernel_make(&args.srctree, &args.objtree)
        .args(&check.make_args)
        .timeout(std::time::Duration::from_secs(600));
    let mut kbuild_lines = Vec::new();
    let build_dir = lint_rules::flycheck::build_dir(&args.objtree, &args.label);
    let out = cmd.run_with(&mut |stream, line| {
        if stream == subprocess::Stream::Stderr && kbuild::flycheck::is_diagnostic(line) {
            kbuild_lines.push(lint_rules::flycheck::absolute_file_names(line, &build_dir));
        } else {
            eprintln!("{line}");
        }
    })?;
    if out.timed_out {
        return Err(out.check(&cmd).unwrap_err().into());
    }

    let root = lint_rules::flycheck::crate_root(&args.objtree, &args.label)?;
    let srctree = args.srctree.canonicalize().unwrap_or_else(|_| args.srctree.clone());
    let config = Config { clippy_ran: args.clippy, ..Config::default() };
    let mut ours = Vec::new();
    let mut texts = BTreeMap::new();
    for path in lint_rules::flycheck::crate_files(&root) {
        let name = path
            .strip_prefix(&srctree)
            .or_else(|_| path.strip_prefix(&args.srctree))
            .map_or_else(|_| path.display().to_string(), |r| r.display().to_string());
        let Ok(bytes) = std::fs::read(&path) else { continue };
        let Source::Text(text) = files::classify(&name, bytes) else { continue };
        let result =
            lint_rules::lint_file(&FileContext::for_path(&name), &text, &config, Vec::new());
        for f in &result.findings {
            texts.insert(f.file.clone(), (path.clone(), text.clone()));
        }
        ours.extend(result.findings);
    }
    let mut stdout = progress::stdout::lock();
    for line in
        lint_rules::flycheck::without_duplicates(&kbuild_lines, &ours, &args.srctree, &args.objtree)
    {
        writeln!(stdout, "{line}")?;
    }
    for f in &ours {
        let (path, text) = &texts[&f.file];
        emit(&mut stdout, Format::Json, f, Some(text), path)?;
    }
    Ok(ExitCode::SUCCESS)
}
