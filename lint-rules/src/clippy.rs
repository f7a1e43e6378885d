//! The kernel's own clippy run (`make CLIPPY=1` with rustc's JSON diagnostics): reading its
//! findings and merging them with ours. What clippy can express by configuration is left to it
//! (see `lint-rules/kernel-clippy.toml`); our rules cover what it cannot and code it does not build.

use std::path::{Component, Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use subprocess::Command;

use crate::finding::{Finding, Origin};
use crate::lines::Span;
use crate::rule::{Level, Rule};

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
            level,
            message: d.message,
            help,
            origin: Origin::Clippy(d.code.map_or_else(|| "rustc".to_owned(), |c| c.code)),
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
pub fn is_counterpart(rule: &Rule, c: &Finding) -> bool {
    if !rule.clippy.contains(&c.rule()) {
        return false;
    }
    c.rule() != "clippy::disallowed_methods"
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
                && o.ours().is_some_and(|r| is_counterpart(r, &c))
        });
        if !duplicate {
            merged.push(c);
        }
    }
    merged
        .sort_by(|a, b| (&a.file, a.span.start, a.rule()).cmp(&(&b.file, b.span.start, b.rule())));
    merged
}

/// What `make lint` adds to the kernel's `.clippy.toml` (`lint-rules/kernel-clippy.toml`).
pub const CLIPPY_TOML: &str = include_str!("../kernel-clippy.toml");

/// The kernel's `.clippy.toml` with lint-rules' additions merged in.
#[derive(Debug, PartialEq, Eq)]
pub struct MergedConfig {
    /// The merged file, the kernel's text and comments kept as they were.
    pub text: String,
    /// Keys of the additions that the kernel already sets to something they cannot join (a
    /// table, or a plain value: TOML does not allow a key twice), for which the kernel's own
    /// setting is kept.
    pub kept_kernel: Vec<String>,
}

/// The kernel's `.clippy.toml` with `additions`, for `CLIPPY_CONF_DIR`, merged with toml_edit: a
/// key the kernel does not set is added; a list the kernel sets too (`disallowed-methods`,
/// written `[[disallowed-methods]]` in 7.3 or `disallowed-methods = [...]`) gets our entries
/// after its own, in the kernel's form; any other key the kernel sets stays the kernel's, and is
/// named in [`MergedConfig::kept_kernel`]. An error when either text is not TOML.
pub fn merged_config(kernel: &str, additions: &str) -> Result<MergedConfig, toml_edit::TomlError> {
    use toml_edit::{DocumentMut, Item, Value};
    let mut doc: DocumentMut = kernel.parse()?;
    let ours: DocumentMut = additions.parse()?;
    let mut kept_kernel = Vec::new();
    for (key, item) in ours.iter() {
        let Some(theirs) = doc.get_mut(key) else {
            doc.insert(key, item.clone());
            continue;
        };
        match (theirs, item) {
            (Item::ArrayOfTables(theirs), Item::ArrayOfTables(mine)) => {
                for t in mine.iter() {
                    // Written where the kernel's array ends, not where it stood in ours.
                    let mut t = t.clone();
                    t.set_position(None);
                    theirs.push(t);
                }
            }
            (Item::Value(Value::Array(theirs)), Item::ArrayOfTables(mine)) => {
                mine.iter().for_each(|t| theirs.push(t.clone().into_inline_table()));
            }
            (Item::Value(Value::Array(theirs)), Item::Value(Value::Array(mine))) => {
                mine.iter().for_each(|v| theirs.push(v.clone()));
            }
            _ => kept_kernel.push(key.to_owned()),
        }
    }
    Ok(MergedConfig { text: doc.to_string(), kept_kernel })
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
    /// Keys of our `kernel-clippy.toml` additions that clippy ran without, because the kernel's
    /// `.clippy.toml` sets them (all of them when it is not TOML).
    pub additions_left_out: Vec<String>,
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
    #[error("the kernel's clippy run failed")]
    Make(#[from] subprocess::Error),
}

/// The kernel's clippy run over the Rust crates kbuild built in `objtree` (`rust/`,
/// `samples/`, `drivers/`), as `make CLIPPY=1` runs it, with rustc's JSON diagnostics, and
/// without writing into the tree: each crate's own rustc command from its `.cmd` file is run
/// again by `clippy-driver` (what `CLIPPY=1` makes kbuild run), its only output, its metadata,
/// in a temporary folder (`RustcInvocation::check_args`). The crates kbuild checks with
/// `CLIPPY=1` are checked: those built for the kernel, less the ones it marks `skip_clippy`
/// (`core`, and the vendored crates). The tree stays as it was, so the next `make` rebuilds
/// nothing.
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
    // What `make CLIPPY=1` checks: the crates built for the kernel, less those kbuild builds
    // with `skip_clippy` (`core`, from the toolchain's sources, and the vendored crates).
    let sources = module_dir.unwrap_or(srctree);
    let checked: Vec<&kbuild::RustBuild> = scan
        .builds
        .iter()
        .filter(|b| b.invocation.is_kernel_target() && b.target.ends_with(".o"))
        .filter(|b| !b.invocation.is_vendored())
        .filter(|b| {
            let root = b.working_dir(objtree).join(&b.invocation.root);
            root.starts_with(sources) || root.starts_with(srctree)
        })
        .collect();
    if checked.is_empty() {
        return Err(RunError::NothingBuilt(tree.to_owned()));
    }
    let kernel_toml = std::fs::read_to_string(srctree.join(".clippy.toml")).unwrap_or_default();
    let merged = additions.map(|a| merged_config(&kernel_toml, a));
    let conf_dir = tempfile::tempdir().map_err(RunError::Config)?;
    let out_dir = tempfile::tempdir().map_err(RunError::Config)?;
    let mut additions_left_out = Vec::new();
    // kbuild exports CLIPPY_CONF_DIR=$(srctree); with additions, our merged copy instead.
    let mut clippy_conf_dir = srctree.to_owned();
    match &merged {
        Some(Err(e)) => additions_left_out
            .push(format!("all of them ({}/.clippy.toml is not TOML: {e})", srctree.display())),
        Some(Ok(merged)) => {
            additions_left_out.extend(merged.kept_kernel.iter().cloned());
            std::fs::write(conf_dir.path().join(".clippy.toml"), &merged.text)
                .map_err(RunError::Config)?;
            clippy_conf_dir = conf_dir.path().to_owned();
        }
        None => {}
    }
    let mut json = String::new();
    let mut targets = Vec::new();
    for build in checked {
        let inv = &build.invocation;
        let mut cmd = Command::new("clippy-driver", &build.working_dir(objtree))
            .args(inv.check_args(out_dir.path()))
            .env("CLIPPY_CONF_DIR", &clippy_conf_dir)
            // kbuild's top Makefile exports it for every rustc it runs (`-Z` options).
            .env("RUSTC_BOOTSTRAP", "1")
            .timeout(Duration::from_secs(900));
        for (key, value) in &inv.env {
            cmd = cmd.env(key, value);
        }
        let out = cmd.run()?;
        let mut errors = false;
        for line in out.stderr.lines() {
            if line.starts_with('{') && line.contains("\"$message_type\":\"diagnostic\"") {
                errors |= line.contains("\"level\":\"error\"");
                json.push_str(line);
                json.push('\n');
            }
        }
        if !errors {
            // A failure without an error of the crate's own (a missing dependency, a
            // toolchain problem) is the run's, not a finding.
            out.check(&cmd)?;
        }
        targets.push(build.target.clone());
    }
    let findings = parse_output(&json, srctree, objtree);
    Ok(Run { targets, json, findings, additions_left_out })
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

    fn parse(text: &str) -> toml_edit::DocumentMut {
        text.parse().unwrap()
    }

    #[test]
    fn our_additions_join_the_kernel_config() {
        // 6.12: no disallowed-methods of its own; ours are added, the kernel's text kept.
        let kernel =
            "msrv = \"1.78.0\"\n\ndisallowed-macros = [\n    { path = \"kernel::dbg\" },\n]\n";
        let merged = merged_config(kernel, CLIPPY_TOML).unwrap();
        assert!(merged.text.starts_with(kernel), "{}", merged.text);
        assert_eq!(merged.kept_kernel, Vec::<String>::new());
        let doc = parse(&merged.text);
        assert_eq!(doc["disallowed-methods"].as_array_of_tables().unwrap().len(), 4);
        assert_eq!(doc["msrv"].as_str(), Some("1.78.0"));
        // A kernel that lists disallowed-methods inline gets ours in its own form.
        let inline = format!("{kernel}disallowed-methods = [{{ path = \"a::b\" }}]\n");
        let merged = merged_config(&inline, CLIPPY_TOML).unwrap();
        let doc = parse(&merged.text);
        let methods = doc["disallowed-methods"].as_array().unwrap();
        assert_eq!(methods.len(), 5, "{}", merged.text);
        assert_eq!(merged.kept_kernel, Vec::<String>::new());
    }

    /// Regression: one key the kernel also set (`msrv` here) dropped every addition, and
    /// clippy ran with the kernel's file alone. Now that key alone keeps the kernel's value,
    /// and is named.
    #[test]
    fn a_key_both_set_keeps_the_kernels_and_the_other_additions_join() {
        let additions =
            format!("msrv = \"1.0.0\"\navoid-breaking-exported-api = false\n{CLIPPY_TOML}");
        let merged = merged_config(KERNEL_7_3, &additions).unwrap();
        assert_eq!(merged.kept_kernel, ["msrv"]);
        let doc = parse(&merged.text);
        assert_eq!(doc["msrv"].as_str(), Some("1.85.0"));
        assert_eq!(doc["avoid-breaking-exported-api"].as_bool(), Some(false));
        assert_eq!(doc["disallowed-methods"].as_array_of_tables().unwrap().len(), 6);
    }

    /// Regression: 7.3's `.clippy.toml` has `[[disallowed-methods]]` tables of its own, which
    /// the key check did not see; ours were appended as `disallowed-methods = [...]`, and
    /// clippy-driver stopped on the first crate with "error reading Clippy's configuration
    /// file: data did not match any variant of untagged enum DisallowedPathEnum" (found by
    /// `lint-rules check --clippy` on the 7.3 demo tree). Both are arrays of tables now, one
    /// array: the kernel's two entries and our four, the kernel's text and comments kept.
    #[test]
    fn kernel_7_3_disallowed_methods_join_ours() {
        let merged = merged_config(KERNEL_7_3, CLIPPY_TOML).unwrap();
        assert!(merged.text.starts_with(KERNEL_7_3), "{}", merged.text);
        let doc = parse(&merged.text);
        let methods: Vec<&str> = doc["disallowed-methods"]
            .as_array_of_tables()
            .unwrap()
            .iter()
            .map(|t| t["path"].as_str().unwrap())
            .collect();
        assert_eq!(
            methods,
            [
                "core::ffi::CStr::as_ptr",
                "core::ffi::CStr::from_ptr",
                "core::option::Option::unwrap",
                "core::option::Option::expect",
                "core::result::Result::unwrap",
                "core::result::Result::expect"
            ]
        );
    }

    #[test]
    fn a_kernel_config_that_is_not_toml_is_an_error() {
        assert!(merged_config("msrv = = 1\n", CLIPPY_TOML).is_err());
    }
}
