//! `lint-rules check` as a library call: [`check`] runs the kernel's clippy when asked, walks the
//! paths, lints each file (or says why not: unreadable, not UTF-8, generated, vendored), keeps
//! only the lines a patch adds when given one, and returns a [`Checked`]: the findings and
//! everything the summary says. It reports each finding (and each file it cannot lint) as it
//! goes through a callback, so that a big tree's findings are printed while it runs; the
//! binary renders both.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::clippy;
use crate::file_kind::FileContext;
use crate::files::{self, FilesError, Input, Source, Vendored};
use crate::finding::Finding;
use crate::lint::{self, Config};
use crate::rule::Level;

/// For each file a patch touches, the 1-based lines it adds (what
/// [`diff::touched_lines`](crate::diff::touched_lines) reads).
pub type Touched = BTreeMap<String, BTreeSet<usize>>;

/// What to check, and how.
#[derive(Debug)]
pub struct CheckOptions {
    /// Files and directories to lint (`.rs` files under them), as paths on disk.
    pub paths: Vec<PathBuf>,
    /// The directory file names are relative to, canonical; it decides what kind of code a
    /// file is.
    pub base: PathBuf,
    /// Only findings on the lines a patch adds, when given.
    pub touched: Option<Touched>,
    /// Rule levels other than the defaults (`clippy_ran` is set by the caller).
    pub config: Config,
    /// Lint generated files too (skipped by default).
    pub include_generated: bool,
    /// Lint third-party crates vendored into the tree too (skipped by default).
    pub vendored: bool,
    /// The kernel's clippy run to merge, if any.
    pub clippy: Option<ClippyOptions>,
}

/// The kernel's clippy run (`make CLIPPY=1`), merged with our findings.
#[derive(Debug)]
pub struct ClippyOptions {
    /// The kernel source tree.
    pub srctree: PathBuf,
    /// The kernel build tree.
    pub objtree: PathBuf,
    /// Run clippy on the crates the configuration built (`--clippy`).
    pub tree: bool,
    /// External modules to run clippy on too (`--clippy-module`).
    pub modules: Vec<ClippyModule>,
    /// Where to save clippy's raw JSON output (of the tree's run).
    pub log: Option<PathBuf>,
}

/// An external module built with `M=`: clippy runs in `build`, and its findings are named like
/// the files of `source`, where its sources are.
#[derive(Debug)]
pub struct ClippyModule {
    /// The directory it was built in, as kbuild names its files (`M=`).
    pub build: PathBuf,
    /// Its sources, as a path on disk.
    pub source: PathBuf,
}

/// What the check reports as it goes, before it returns.
#[derive(Debug)]
pub enum Event<'a> {
    /// clippy ran with the kernel's `.clippy.toml` settings of these keys, not
    /// `kernel-clippy.toml`'s.
    ClippyKeptKernel(&'a [String]),
    /// A path or file that cannot be linted.
    NotLinted(&'a NotLinted),
    /// A finding, with its file's text (for the snippet; `None` when it could not be read) and
    /// its path on disk.
    Finding {
        /// The finding.
        finding: &'a Finding,
        /// The file's text.
        text: Option<&'a str>,
        /// The file on disk.
        path: &'a Path,
    },
}

/// A path or file that could not be linted, and why: `path: why`.
#[derive(Debug, thiserror::Error)]
pub enum NotLinted {
    /// A path given is missing, or a directory could not be walked.
    #[error(transparent)]
    Path(#[from] FilesError),
    /// A file could not be read.
    #[error("{}: {source}", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// A file is not UTF-8.
    #[error("{name}: not UTF-8 (invalid byte at offset {at}); Rust source must be UTF-8")]
    NotUtf8 {
        /// The file, as findings name it.
        name: String,
        /// The first byte that is not.
        at: usize,
    },
}

/// What a check found and did.
#[derive(Debug, Default)]
pub struct Checked {
    /// Every finding, in the order reported: file by file, then clippy's in files not linted.
    pub findings: Vec<Finding>,
    /// The Rust files found under the paths.
    pub found: usize,
    /// The files linted.
    pub linted: usize,
    /// Findings that suppressions removed.
    pub suppressed: usize,
    /// Paths and files that could not be linted.
    pub not_linted: Vec<NotLinted>,
    /// Generated files skipped, by name.
    pub skipped_generated: Vec<String>,
    /// Files of vendored crates skipped, how many per crate.
    pub skipped_vendored: BTreeMap<Vendored, usize>,
    /// clippy's findings in generated files skipped, how many per file.
    pub skipped_generated_clippy: BTreeMap<String, usize>,
    /// How long it took.
    pub took: Duration,
}

/// Why a check could not be done.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    /// The kernel's clippy run failed.
    #[error(transparent)]
    Clippy(#[from] clippy::RunError),
    /// clippy's output could not be saved.
    #[error("writing {}: {source}", path.display())]
    ClippyLog {
        /// The file asked for.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
    /// The caller's reporting failed (writing to stdout).
    #[error(transparent)]
    Report(#[from] io::Error),
    /// No Rust file was linted, and none failed: a check that checked nothing (see
    /// [`Checked::require_linted`]).
    #[error("no Rust file linted: {0}; --allow-empty accepts that")]
    NothingLinted(String),
}

/// The callback that gets each [`Event`] as it happens.
pub type Report<'r> = dyn FnMut(Event<'_>) -> io::Result<()> + 'r;

/// Checks the files of `options.paths`: clippy first when asked, then each file, then clippy's
/// findings in files that were not linted; `report` gets each finding and each file not
/// linted as they come.
pub fn check(options: &CheckOptions, report: &mut Report<'_>) -> Result<Checked, CheckError> {
    let start = Instant::now();
    let mut clippy = match &options.clippy {
        Some(c) => run_clippy(c, &options.base, report)?,
        None => BTreeMap::new(),
    };
    let (inputs, errors) = files::collect(&options.paths, &options.base);
    let mut checked = Checked { found: inputs.len(), ..Checked::default() };
    for e in errors {
        not_linted(&mut checked, NotLinted::Path(e), report)?;
    }
    for input in &inputs {
        check_file(options, input, &mut clippy, &mut checked, report)?;
    }
    report_clippy_elsewhere(options, clippy, &mut checked, report)?;
    checked.took = start.elapsed();
    Ok(checked)
}

impl Checked {
    /// How many findings are at `level`.
    pub fn count(&self, level: Level) -> usize {
        self.findings.iter().filter(|f| f.level == level).count()
    }

    /// Whether the check failed: findings at error level, or files that could not be linted.
    pub fn failed(&self) -> bool {
        self.count(Level::Error) > 0 || !self.not_linted.is_empty()
    }

    /// An error when no Rust file was linted and none failed to be (a folder without Rust, a
    /// patch that touches none, only generated or vendored files), saying which.
    pub fn require_linted(&self, options: &CheckOptions) -> Result<(), CheckError> {
        if self.linted > 0 || !self.not_linted.is_empty() {
            return Ok(());
        }
        let paths: Vec<String> = options.paths.iter().map(|p| p.display().to_string()).collect();
        let found = if options.touched.is_some() {
            format!("the diff touches none of the {} Rust file(s) under", self.found)
        } else {
            format!("{} Rust file(s) found under", self.found)
        };
        let skipped = if self.skipped_generated.is_empty() && self.skipped_vendored.is_empty() {
            ""
        } else {
            ", every one of them generated or vendored (--include-generated, --vendored lint them)"
        };
        Err(CheckError::NothingLinted(format!("{found} {}{skipped}", paths.join(" "))))
    }
}

/// Records and reports a path or file that cannot be linted.
fn not_linted(
    checked: &mut Checked,
    why: NotLinted,
    report: &mut Report<'_>,
) -> Result<(), CheckError> {
    report(Event::NotLinted(&why))?;
    checked.not_linted.push(why);
    Ok(())
}

/// Lints one input, with clippy's findings for it (taken out of `clippy`, by file), unless the
/// patch does not touch it, it is vendored or generated, or it cannot be read.
fn check_file(
    options: &CheckOptions,
    input: &Input,
    clippy: &mut BTreeMap<String, Vec<Finding>>,
    checked: &mut Checked,
    report: &mut Report<'_>,
) -> Result<(), CheckError> {
    if options.touched.as_ref().is_some_and(|t| !t.contains_key(&input.name)) {
        return Ok(());
    }
    if let Some(v) = &input.vendored
        && !options.vendored
    {
        // Not kernel code: clippy's findings there (the kernel builds them with
        // `--cap-lints=allow`, so there should be none) go with the file.
        *checked.skipped_vendored.entry(v.clone()).or_default() += 1;
        clippy.remove(&input.name);
        return Ok(());
    }
    let text = match read(input, options.include_generated) {
        Ok(Some(text)) => text,
        Ok(None) => {
            checked.skipped_generated.push(input.name.clone());
            return Ok(());
        }
        Err(why) => return not_linted(checked, why, report),
    };
    checked.linted += 1;
    let mut cx = FileContext::for_path(&input.name);
    cx.name = input.name.clone();
    let extra = clippy.remove(&input.name).unwrap_or_default();
    let mut result = lint::lint_file(&cx, &text, &options.config, extra);
    checked.suppressed += result.suppressed;
    if let Some(lines) = options.touched.as_ref().and_then(|t| t.get(&input.name)) {
        result.findings.retain(|f| {
            (f.span.line..=f.span.end_line.max(f.span.line)).any(|l| lines.contains(&l))
        });
    }
    for finding in result.findings {
        report(Event::Finding { finding: &finding, text: Some(&text), path: &input.path })?;
        checked.findings.push(finding);
    }
    Ok(())
}

/// The text of `input` to lint, `None` for a generated file that is skipped, or why it cannot
/// be linted.
fn read(input: &Input, include_generated: bool) -> Result<Option<String>, NotLinted> {
    let unreadable = |source| NotLinted::Unreadable { path: input.path.clone(), source };
    let bytes = std::fs::read(&input.path).map_err(unreadable)?;
    let source = if files::made_by_kbuild(&input.path) {
        Source::Generated
    } else {
        files::classify(&input.name, bytes)
    };
    match source {
        Source::Generated if !include_generated => Ok(None),
        Source::Generated => std::fs::read_to_string(&input.path).map(Some).map_err(unreadable),
        Source::NotUtf8(at) => Err(NotLinted::NotUtf8 { name: input.name.clone(), at }),
        Source::Text(text) => Ok(Some(text)),
    }
}

/// clippy's findings in files that were not linted (outside the paths): still reported, but
/// for generated files (the kernel's doctests, `rust/doctests_kernel_generated.rs`, where
/// `no-panic` would not apply either), which are skipped like ours, and lines a patch does not
/// add.
fn report_clippy_elsewhere(
    options: &CheckOptions,
    mut clippy: BTreeMap<String, Vec<Finding>>,
    checked: &mut Checked,
    report: &mut Report<'_>,
) -> Result<(), CheckError> {
    if !options.include_generated {
        clippy.retain(|file, found| {
            let generated = files::generated_name(file);
            if generated {
                checked.skipped_generated_clippy.insert(file.clone(), found.len());
            }
            !generated
        });
    }
    for f in clippy.into_values().flatten() {
        let touched = |t: &Touched| t.get(&f.file).is_some_and(|l| l.contains(&f.span.line));
        if options.touched.as_ref().is_some_and(|t| !touched(t)) {
            continue;
        }
        let path = options.base.join(&f.file);
        let text = std::fs::read_to_string(&path).ok();
        report(Event::Finding { finding: &f, text: text.as_deref(), path: &path })?;
        checked.findings.push(f);
    }
    Ok(())
}

/// The kernel's clippy findings, by file (named like the inputs): the tree's run and each
/// external module's.
fn run_clippy(
    options: &ClippyOptions,
    base: &Path,
    report: &mut Report<'_>,
) -> Result<BTreeMap<String, Vec<Finding>>, CheckError> {
    let mut by_file: BTreeMap<String, Vec<Finding>> = BTreeMap::new();
    if options.tree {
        for f in clippy_tree(options, report)? {
            by_file.entry(f.file.clone()).or_default().push(f);
        }
    }
    for module in &options.modules {
        for f in clippy_module(options, module, base)? {
            by_file.entry(f.file.clone()).or_default().push(f);
        }
    }
    Ok(by_file)
}

/// The kernel's clippy run on the crates the configuration built, its JSON saved when asked.
fn clippy_tree(
    options: &ClippyOptions,
    report: &mut Report<'_>,
) -> Result<Vec<Finding>, CheckError> {
    let step = progress::start("clippy: the kernel's clippy run, outside the tree");
    let run = match clippy::run(&options.srctree, &options.objtree, Some(clippy::CLIPPY_TOML)) {
        Ok(run) => run,
        Err(e) => {
            step.failed();
            return Err(e.into());
        }
    };
    step.done(&format!("{} crates, {} findings", run.targets.len(), run.findings.len()));
    if !run.additions_left_out.is_empty() {
        report(Event::ClippyKeptKernel(&run.additions_left_out))?;
    }
    if let Some(log) = &options.log {
        std::fs::write(log, &run.json)
            .map_err(|source| CheckError::ClippyLog { path: log.clone(), source })?;
    }
    Ok(run.findings)
}

/// clippy on an external module, its findings named like the files of its sources (relative to
/// `base` when under it).
fn clippy_module(
    options: &ClippyOptions,
    module: &ClippyModule,
    base: &Path,
) -> Result<Vec<Finding>, CheckError> {
    let step = progress::start(&format!("clippy: make M={} CLIPPY=1", module.build.display()));
    let (srctree, objtree) = (&options.srctree, &options.objtree);
    let run = match clippy::run_module(srctree, objtree, &module.build, Some(clippy::CLIPPY_TOML)) {
        Ok(run) => run,
        Err(e) => {
            step.failed();
            return Err(e.into());
        }
    };
    step.done(&format!("{} objects, {} findings", run.targets.len(), run.findings.len()));
    let mut findings = run.findings;
    for f in &mut findings {
        // From the build copy back to the source file, named like the inputs.
        if let Ok(rel) = Path::new(&f.file).strip_prefix(&module.build) {
            let path = module.source.join(rel);
            f.file = path
                .strip_prefix(base)
                .map_or_else(|_| path.display().to_string(), |r| r.display().to_string());
        }
    }
    Ok(findings)
}
