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

/// Whether clippy's finding `c` is the counterpart of our rule `rule`: a lint the catalogue
/// lists for it. `disallowed_methods` counts only for the methods that `kernel-clippy.toml`
/// disallows (for `no-panic`): the kernel's own `.clippy.toml` disallows others (7.3:
/// `CStr::as_ptr`), which are no rule of ours.
pub fn is_counterpart(rule: &catalogue::Rule, c: &Finding) -> bool {
    if !rule.clippy.contains(&c.rule.as_str()) {
        return false;
    }
    c.rule != "clippy::disallowed_methods"
        || CLIPPY_TOML
            .lines()
            .filter_map(|l| l.trim().strip_prefix("path = \"")?.strip_suffix('"'))
            .any(|path| c.message.contains(&format!("`{path}`")))
}

/// Merges clippy's findings into ours: where clippy reports the counterpart of one of our
/// rules on a line where we report that rule, one finding (ours) is kept.
pub fn merge(ours: Vec<Finding>, clippy: Vec<Finding>) -> Vec<Finding> {
    let mut merged = ours.clone();
    for c in clippy {
        let duplicate = ours.iter().any(|o| {
            o.file == c.file
                && o.span.line == c.span.line
                && catalogue::rule(&o.rule).is_some_and(|r| is_counterpart(r, &c))
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

/// How a top-level key of a TOML file is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Written {
    /// `key = value`, before any table header.
    Inline,
    /// `[key]`.
    Table,
    /// `[[key]]`, an array of tables, which more `[[key]]` headers extend.
    ArrayOfTables,
}

/// The top-level keys of a TOML text (one configuration file of clippy's: bare keys, headers
/// at the start of their line), and the line where its first table header starts.
fn top_level_keys(text: &str) -> (Vec<(String, Written)>, usize) {
    let mut keys = Vec::new();
    let mut first_header = None;
    for (n, line) in text.lines().enumerate() {
        let header = line
            .strip_prefix("[[")
            .and_then(|l| Some((l.split_once("]]")?.0, Written::ArrayOfTables)))
            .or_else(|| Some((line.strip_prefix('[')?.split_once(']')?.0, Written::Table)));
        if let Some((name, written)) = header {
            first_header.get_or_insert(n);
            keys.push((name.trim().to_owned(), written));
        } else if first_header.is_none()
            && !line.starts_with([' ', '\t', '#', '{', ']'])
            && let Some((key, _)) = line.split_once('=')
        {
            keys.push((key.trim().to_owned(), Written::Inline));
        }
    }
    (keys, first_header.unwrap_or(text.lines().count()))
}

/// The kernel's `.clippy.toml` with `additions`, for `CLIPPY_CONF_DIR`: their top-level keys
/// before the kernel's text, their tables after it, where an array of tables written
/// `[[disallowed-methods]]` in both joins into one (7.3's `.clippy.toml` has its own
/// `disallowed-methods` so). `None` when the kernel configures a key of `additions` in a way
/// they cannot join (TOML does not allow a key twice; the kernel's own setting is kept).
pub fn merged_config(kernel: &str, additions: &str) -> Option<String> {
    let (kernel_keys, _) = top_level_keys(kernel);
    let (ours, first_header) = top_level_keys(additions);
    let joins = |(key, written): &(String, Written)| {
        kernel_keys
            .iter()
            .filter(|(k, _)| k == key)
            .all(|(_, w)| *w == Written::ArrayOfTables && *written == Written::ArrayOfTables)
    };
    if !ours.iter().all(joins) {
        return None;
    }
    let lines: Vec<&str> = additions.lines().collect();
    let (top, tables) = lines.split_at(first_header);
    Some(format!(
        "# Added by lint-rules (lint-rules/kernel-clippy.toml): its top-level keys.\n{}\n\n# The kernel's .clippy.toml.\n{kernel}\n\n# Added by lint-rules (lint-rules/kernel-clippy.toml): its tables.\n{}\n",
        top.join("\n"),
        tables.join("\n")
    ))
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

    /// Linux 7.3's `.clippy.toml`, as it is.
    const KERNEL_7_3: &str = r#"# SPDX-License-Identifier: GPL-2.0

msrv = "1.85.0"

check-private-items = true

disallowed-macros = [
    # The `clippy::dbg_macro` lint only works with `std::dbg!`, thus we simulate
    # it here, see: https://github.com/rust-lang/rust-clippy/issues/11303.
    { path = "kernel::dbg", reason = "the `dbg!` macro is intended as a debugging tool", allow-invalid = true },
]

[[disallowed-methods]]
path = "core::ffi::CStr::as_ptr"
replacement = "kernel::prelude::CStrExt::as_char_ptr"
reason = "kernel's `char` is always unsigned, use `as_char_ptr` instead"

[[disallowed-methods]]
path = "core::ffi::CStr::from_ptr"
replacement = "kernel::prelude::CStrExt::from_char_ptr"
reason = "kernel's `char` is always unsigned, use `from_char_ptr` instead"
"#;

    fn keys(text: &str) -> Vec<(String, Written)> {
        top_level_keys(text).0
    }

    #[test]
    fn our_additions_join_the_kernel_config_unless_it_sets_the_same_keys() {
        // 6.12: no disallowed-methods of its own.
        let kernel =
            "msrv = \"1.78.0\"\n\ndisallowed-macros = [\n    { path = \"kernel::dbg\" },\n]\n";
        let merged = merged_config(kernel, CLIPPY_TOML).unwrap();
        assert!(merged.contains(kernel) && merged.contains("core::option::Option::unwrap"));
        assert_eq!(
            keys(&merged),
            keys(&format!("{kernel}{CLIPPY_TOML}")),
            "the kernel's keys, then ours"
        );
        // Set inline by the kernel: TOML cannot have it twice, the kernel's is kept.
        let with_methods = format!("{kernel}disallowed-methods = []\n");
        assert_eq!(merged_config(&with_methods, CLIPPY_TOML), None);
        // Our plain keys go before the kernel's tables, where they stay top-level.
        let merged = merged_config(KERNEL_7_3, "avoid-breaking-exported-api = false\n").unwrap();
        assert_eq!(keys(&merged)[0], ("avoid-breaking-exported-api".to_owned(), Written::Inline));
        assert_eq!(merged_config(KERNEL_7_3, "msrv = \"1.0.0\"\n"), None);
    }

    /// Regression: 7.3's `.clippy.toml` has `[[disallowed-methods]]` tables of its own, which
    /// the key check did not see; ours were appended as `disallowed-methods = [...]`, and
    /// clippy-driver stopped on the first crate with "error reading Clippy's configuration
    /// file: data did not match any variant of untagged enum DisallowedPathEnum" (found by
    /// `lint-rules check --clippy` on the 7.3 demo tree). Both are arrays of tables now, one
    /// array: the kernel's two entries and our four.
    #[test]
    fn kernel_7_3_disallowed_methods_join_ours() {
        let merged = merged_config(KERNEL_7_3, CLIPPY_TOML).unwrap();
        assert!(merged.contains(KERNEL_7_3), "{merged}");
        let methods = keys(&merged)
            .into_iter()
            .filter(|k| *k == ("disallowed-methods".to_owned(), Written::ArrayOfTables))
            .count();
        assert_eq!(methods, 6, "{merged}");
        // The kernel's last table is not extended by a key of ours.
        let tail = &merged[merged.find("from_char_ptr` instead").unwrap()..];
        let next = tail.lines().skip(1).find(|l| !l.is_empty() && !l.starts_with('#')).unwrap();
        assert_eq!(next, "[[disallowed-methods]]");
    }
}
