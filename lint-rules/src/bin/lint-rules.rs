//! `lint-rules`: the kernel's Rust coding rules on files, trees or a patch, merged with the
//! kernel's clippy run, printed like rustc (human, or JSON for the editor), or as one document
//! of the suite's results (`check --json`). The work is the library's (`lint_rules::check`);
//! this parses the arguments and renders what it returns.
//!
//! Exit codes: 0 no finding at error level, 1 findings at error level (or files that could
//! not be linted), 2 usage or environment error, or no Rust file linted (unless
//! `--allow-empty`).

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use clap::{Parser, Subcommand, ValueEnum};
use kbuild::flycheck::FlycheckArgs;
use lint_rules::check::{CheckOptions, Checked, ClippyModule, ClippyOptions, Event, Touched};
use lint_rules::files;
use lint_rules::{Config, Finding, Level, catalogue, diag};
use report::results::{Lint, LintFinding, ToolResult};

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
    /// Output format of each finding.
    #[arg(long, value_enum, default_value = "human")]
    message_format: Format,
    /// Print one JSON document of the whole result on stdout (the suite's schema,
    /// `report::results`) instead of each finding.
    #[arg(long, conflicts_with = "message_format")]
    json: bool,
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

/// The levels `--rule ID=LEVEL` sets, by the ids users write.
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

/// `lint-rules check`: the library's check, each finding printed as it comes (unless `--json`),
/// then the summary on stderr.
fn check(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let options = check_options(args)?;
    let format = (!args.json).then_some(args.message_format);
    let mut stdout = progress::stdout::lock();
    let checked =
        lint_rules::check::check(&options, &mut |event| print_event(&mut stdout, format, event))?;
    if args.json {
        let lint = ToolResult::LintRules(to_result(&checked));
        write!(stdout, "{}", report::results::to_json(lint))?;
    }
    stdout.flush().ok();
    drop(stdout);
    print_summary(args, &checked);
    if !args.allow_empty {
        checked.require_linted(&options)?;
    }
    Ok(if checked.failed() { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// What to check, from the arguments: paths relative to the current directory, the base, the
/// patch's lines, the levels and the clippy runs.
fn check_options(args: &CheckArgs) -> anyhow::Result<CheckOptions> {
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
    let touched = args.diff.as_deref().map(touched_lines).transpose()?;
    Ok(CheckOptions {
        paths,
        base,
        touched,
        config,
        include_generated: args.include_generated,
        vendored: args.vendored,
        clippy: clippy_options(args, &cwd)?,
    })
}

/// The lines the patch at `path` adds (`-`: stdin).
fn touched_lines(path: &Path) -> anyhow::Result<Touched> {
    let text = if path == Path::new("-") {
        io::read_to_string(io::stdin()).context("reading the diff from stdin")?
    } else {
        std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?
    };
    Ok(lint_rules::diff::touched_lines(&text))
}

/// The clippy runs asked for (`--clippy`, `--clippy-module`), when the trees are given.
fn clippy_options(args: &CheckArgs, cwd: &Path) -> anyhow::Result<Option<ClippyOptions>> {
    let (Some(srctree), Some(objtree)) = (&args.srctree, &args.objtree) else { return Ok(None) };
    let mut modules = Vec::new();
    for m in &args.clippy_modules {
        let Some((build, source)) = m.split_once('=') else {
            bail!("--clippy-module {m}: expected BUILD_DIR=SOURCE_DIR")
        };
        let source = cwd.join(source);
        let source = source.canonicalize().unwrap_or(source);
        modules.push(ClippyModule { build: PathBuf::from(build), source });
    }
    Ok(Some(ClippyOptions {
        srctree: srctree.clone(),
        objtree: objtree.clone(),
        tree: args.clippy,
        modules,
        log: args.clippy_log.clone(),
    }))
}

/// Prints what the check reports as it goes: findings on stdout in `format` (none with
/// `--json`), the rest on stderr.
fn print_event(out: &mut impl Write, format: Option<Format>, event: Event<'_>) -> io::Result<()> {
    match event {
        Event::ClippyKeptKernel(keys) => eprintln!(
            "lint-rules: clippy ran with the kernel's .clippy.toml settings of {}, not lint-rules/kernel-clippy.toml's",
            keys.join(", ")
        ),
        Event::NotLinted(why) => eprintln!("lint-rules: error: {why}"),
        Event::Finding { finding, text, path } => {
            if let Some(format) = format {
                emit(out, format, finding, text, path)?;
            }
        }
    }
    Ok(())
}

/// The summary on stderr: what was skipped, the table of findings per rule with `--summary`,
/// and the counts.
fn print_summary(args: &CheckArgs, checked: &Checked) {
    let skipped = &checked.skipped_generated;
    if !skipped.is_empty() {
        eprintln!(
            "lint-rules: skipped {} generated file{} ({}); --include-generated lints them",
            skipped.len(),
            plural(skipped.len()),
            skipped.join(", ")
        );
    }
    let clippy = &checked.skipped_generated_clippy;
    if !clippy.is_empty() {
        let n: usize = clippy.values().sum();
        let names: Vec<&str> = clippy.keys().map(String::as_str).collect();
        eprintln!(
            "lint-rules: skipped {n} clippy finding{} in generated files ({}); --include-generated reports them",
            plural(n),
            names.join(", ")
        );
    }
    if !checked.skipped_vendored.is_empty() {
        eprintln!("lint-rules: {}", vendored_summary(&checked.skipped_vendored));
    }
    if args.summary {
        eprint!("{}", diag::table(&checked.findings));
    }
    eprintln!(
        "lint-rules: {} files, {} errors, {} warnings, {} suppressed, {} files not linted, in {}",
        checked.linted,
        checked.count(Level::Error),
        checked.count(Level::Warning),
        checked.suppressed,
        checked.not_linted.len(),
        progress::format_duration(checked.took)
    );
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
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
        plural(files),
        skipped.len(),
        plural(skipped.len()),
        crates.join(", ")
    )
}

/// The check's result in the suite's schema (`--json`): levels in the words the human output
/// uses, each file not linted as `path: why`.
fn to_result(checked: &Checked) -> Lint {
    let findings = checked
        .findings
        .iter()
        .map(|f| LintFinding {
            rule: f.rule().to_owned(),
            level: f.level.as_str().to_owned(),
            file: f.file.clone(),
            line: f.span.line,
            message: f.message.clone(),
        })
        .collect();
    Lint {
        files: checked.linted,
        findings,
        suppressed: checked.suppressed,
        not_linted: checked.not_linted.iter().map(ToString::to_string).collect(),
        skipped_generated: checked.skipped_generated.clone(),
        skipped_vendored: checked.skipped_vendored.values().sum(),
        millis: u64::try_from(checked.took.as_millis()).unwrap_or(u64::MAX),
    }
}

/// Writes one finding in `format`.
fn emit(
    out: &mut impl Write,
    format: Format,
    f: &Finding,
    text: Option<&str>,
    path: &Path,
) -> io::Result<()> {
    match format {
        Format::Human => writeln!(out, "{}", diag::render_human(f, text))?,
        Format::Json => {
            let d = diag::to_rustc(f, text, &path.display().to_string());
            writeln!(out, "{}", serde_json::to_string(&d).map_err(io::Error::other)?)?;
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

/// kbuild's check of the crate (its JSON diagnostics kept), then ours on the crate's files;
/// rustc's and clippy's findings that repeat ours are dropped. Exit 0 when both ran (findings
/// are the normal case), 2 when they could not.
fn flycheck(args: &FlycheckArgs) -> anyhow::Result<ExitCode> {
    let kbuild_lines = kbuild_diagnostics(args)?;
    let root = lint_rules::flycheck::crate_root(&args.objtree, &args.label)?;
    let config = Config { clippy_ran: args.clippy, ..Config::default() };
    let linted = lint_rules::flycheck::lint_crate(&root, &args.srctree, &config);
    let ours: Vec<Finding> = linted.iter().flat_map(|l| l.findings.iter().cloned()).collect();
    let mut stdout = progress::stdout::lock();
    for line in
        lint_rules::flycheck::without_duplicates(&kbuild_lines, &ours, &args.srctree, &args.objtree)
    {
        writeln!(stdout, "{line}")?;
    }
    for file in &linted {
        for f in &file.findings {
            emit(&mut stdout, Format::Json, f, Some(&file.text), &file.path)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// kbuild's rebuild of the crate: its JSON diagnostics, with absolute file names; its other
/// output goes to stderr.
fn kbuild_diagnostics(args: &FlycheckArgs) -> anyhow::Result<Vec<String>> {
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
    Ok(kbuild_lines)
}
