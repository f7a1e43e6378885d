//! The kernel's own clippy run (`make CLIPPY=1` with rustc's JSON diagnostics): reading its
//! findings and merging them with ours. What clippy can express by configuration is left to it
//! (see `lint-rules/kernel-clippy.toml`); our rules cover what it cannot and code it does not build.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::catalogue::{self, Level};
use crate::finding::{Finding, Origin, Span};

#[derive(Debug, Deserialize)]
struct Diagnostic {
    #[serde(rename = "$message_type")]
    message_type: Option<String>,
    message: String,
    code: Option<Code>,
    level: String,
    spans: Vec<DiagSpan>,
    #[serde(default)]
    children: Vec<Diagnostic>,
}

#[derive(Debug, Deserialize)]
struct Code {
    code: String,
}

#[derive(Debug, Deserialize)]
struct DiagSpan {
    file_name: String,
    byte_start: usize,
    byte_end: usize,
    line_start: usize,
    line_end: usize,
    column_start: usize,
    column_end: usize,
    is_primary: bool,
}

/// The findings in the output of `make CLIPPY=1 KRUSTFLAGS=--error-format=json` (stderr lines;
/// other lines are ignored). File names are made relative to `srctree`; rustc sees them as
/// kbuild wrote them, relative to `objtree` or absolute.
pub fn parse_output(output: &str, srctree: &Path, objtree: &Path) -> Vec<Finding> {
    let mut findings = Vec::new();
    for line in output.lines() {
        let line = line.trim();
        if !line.starts_with('{') || !line.contains("\"$message_type\":\"diagnostic\"") {
            continue;
        }
        let Ok(d) = serde_json::from_str::<Diagnostic>(line) else { continue };
        if d.message_type.as_deref() != Some("diagnostic") {
            continue;
        }
        let level = match d.level.as_str() {
            "error" => Level::Error,
            "warning" => Level::Warning,
            _ => continue,
        };
        let Some(span) = d.spans.iter().find(|s| s.is_primary) else { continue };
        let file = relative_to_srctree(&span.file_name, srctree, objtree);
        let help = d
            .children
            .iter()
            .find(|c| c.level == "help" && c.spans.is_empty())
            .map(|c| c.message.clone());
        let f = Finding {
            file,
            span: Span {
                start: span.byte_start,
                end: span.byte_end,
                line: span.line_start,
                col: span.column_start,
                end_line: span.line_end,
                end_col: span.column_end,
            },
            rule: d.code.map_or_else(|| "rustc".to_owned(), |c| c.code),
            level,
            message: d.message,
            help,
            origin: Origin::Clippy,
        };
        if !findings.contains(&f) {
            findings.push(f);
        }
    }
    findings
}

fn relative_to_srctree(name: &str, srctree: &Path, objtree: &Path) -> String {
    let path = objtree.join(name);
    let path = normalize(&path);
    let src = normalize(srctree);
    let obj = normalize(objtree);
    path.strip_prefix(&src)
        .or_else(|_| path.strip_prefix(&obj))
        .map_or_else(|_| path.display().to_string(), |p| p.display().to_string())
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// Merges clippy's findings into ours: where clippy reports the counterpart of one of our
/// rules on a line where we report that rule, one finding (ours) is kept.
pub fn merge(ours: Vec<Finding>, clippy: Vec<Finding>) -> Vec<Finding> {
    let mut merged = ours.clone();
    for c in clippy {
        let duplicate = ours.iter().any(|o| {
            o.file == c.file
                && o.span.line == c.span.line
                && catalogue::rule(&o.rule).is_some_and(|r| r.clippy.contains(&c.rule.as_str()))
        });
        if !duplicate {
            merged.push(c);
        }
    }
    merged.sort_by(|a, b| (&a.file, a.span.start, &a.rule).cmp(&(&b.file, b.span.start, &b.rule)));
    merged
}

/// What `make lint` adds to the kernel's `.clippy.toml` (`lint-rules/kernel-clippy.toml`).
pub const CLIPPY_TOML: &str = include_str!("../kernel-clippy.toml");

/// The kernel's `.clippy.toml` with `additions`, for `CLIPPY_CONF_DIR`; `None` when the kernel
/// already configures a key that `additions` sets (TOML does not allow it twice; the kernel's
/// own setting is kept).
pub fn merged_config(kernel: &str, additions: &str) -> Option<String> {
    let keys = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| !l.starts_with([' ', '\t', '#', '{', ']']) && l.contains('='))
            .map(|l| l.split('=').next().unwrap_or("").trim().to_owned())
            .collect()
    };
    let ours = keys(additions);
    if keys(kernel).iter().any(|k| ours.contains(k)) {
        return None;
    }
    Some(format!("{kernel}\n# Added by lint-rules (lint-rules/kernel-clippy.toml).\n{additions}"))
}

/// What a clippy run gave.
#[derive(Debug)]
pub struct Run {
    /// The crates (kbuild targets) it checked.
    pub targets: Vec<String>,
    /// rustc's JSON diagnostics as printed, one per line.
    pub json: String,
    /// The findings in them.
    pub findings: Vec<Finding>,
    /// Whether our `kernel-clippy.toml` additions were used (not when the kernel's file sets the same
    /// keys).
    pub with_additions: bool,
}

/// Why clippy could not run.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The objtree could not be scanned.
    #[error("scanning {} for the Rust crates kbuild built: {source}", objtree.display())]
    Scan {
        /// The objtree.
        objtree: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Nothing was built.
    #[error("no Rust crates built in {}: build the kernel first (`make kernel`)", .0.display())]
    NothingBuilt(PathBuf),
    /// The merged configuration could not be written.
    #[error("writing clippy's configuration into a temporary directory: {0}")]
    Config(std::io::Error),
    /// make failed.
    #[error("the kernel's clippy run failed: {0}")]
    Make(#[from] subprocess::Error),
}

/// `make CLIPPY=1` over the Rust crates kbuild built in `objtree` (`rust/`, `samples/`,
/// `drivers/`), with rustc's JSON diagnostics. kbuild rebuilds a crate only when its command
/// line changes, so a flag that changes nothing but the command line (`--remap-path-prefix`
/// of a path that never occurs, new on each run) makes every run check every crate. The
/// crates are left built by clippy-driver; the next plain `make` rebuilds them with rustc.
///
/// With `additions` (clippy.toml text), clippy reads the kernel's `.clippy.toml` with them.
pub fn run(srctree: &Path, objtree: &Path, additions: Option<&str>) -> Result<Run, RunError> {
    run_in(srctree, objtree, None, additions)
}

/// [`run`] for an external module built with `make M=module_dir`: its file names stay
/// absolute (under `module_dir`).
pub fn run_module(
    srctree: &Path,
    objtree: &Path,
    module_dir: &Path,
    additions: Option<&str>,
) -> Result<Run, RunError> {
    run_in(srctree, objtree, Some(module_dir), additions)
}

fn run_in(
    srctree: &Path,
    objtree: &Path,
    module_dir: Option<&Path>,
    additions: Option<&str>,
) -> Result<Run, RunError> {
    let tree = module_dir.unwrap_or(objtree);
    let scan = kbuild::scan_rust_builds(tree)
        .map_err(|source| RunError::Scan { objtree: tree.to_owned(), source })?;
    let targets: Vec<String> = scan
        .builds
        .iter()
        .filter(|b| b.invocation.is_kernel_target() && b.target.ends_with(".o"))
        // kbuild names an external module's objects by absolute path; make wants them
        // relative to `M=`.
        .map(|b| match module_dir {
            Some(dir) => Path::new(&b.target)
                .strip_prefix(dir)
                .map_or(b.target.clone(), |r| r.display().to_string()),
            None => b.target.clone(),
        })
        .collect();
    if targets.is_empty() {
        return Err(RunError::NothingBuilt(tree.to_owned()));
    }
    let nonce = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let kernel_toml = std::fs::read_to_string(srctree.join(".clippy.toml")).unwrap_or_default();
    let merged = additions.and_then(|a| merged_config(&kernel_toml, a));
    let conf_dir = tempfile::tempdir().map_err(RunError::Config)?;
    let mut cmd = kbuild::make::kernel_make(srctree, objtree);
    if let Some(dir) = module_dir {
        cmd = cmd.arg(format!("M={}", dir.display()));
    }
    if let Some(merged) = &merged {
        std::fs::write(conf_dir.path().join(".clippy.toml"), merged).map_err(RunError::Config)?;
        cmd = cmd.arg(format!("CLIPPY_CONF_DIR={}", conf_dir.path().display()));
    }
    let cmd = cmd
        .arg("CLIPPY=1")
        .arg(format!(
            "KRUSTFLAGS=--error-format=json --remap-path-prefix=/lint-rules-{nonce}=/lint-rules-{nonce}"
        ))
        .args(&targets)
        .timeout(Duration::from_secs(1800));
    let mut json = String::new();
    let out = cmd.run_with(&mut |_, line| {
        if line.starts_with('{') && line.contains("\"$message_type\":\"diagnostic\"") {
            json.push_str(line);
            json.push('\n');
        }
    })?;
    out.check(&cmd)?;
    let findings = parse_output(&json, srctree, objtree);
    Ok(Run { targets, json, findings, with_additions: merged.is_some() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn our_additions_join_the_kernel_config_unless_it_sets_the_same_keys() {
        let kernel =
            "msrv = \"1.78.0\"\n\ndisallowed-macros = [\n    { path = \"kernel::dbg\" },\n]\n";
        let merged = merged_config(kernel, CLIPPY_TOML).unwrap();
        assert!(merged.starts_with(kernel) && merged.contains("core::option::Option::unwrap"));
        let with_methods = format!("{kernel}disallowed-methods = []\n");
        assert_eq!(merged_config(&with_methods, CLIPPY_TOML), None);
    }
}
