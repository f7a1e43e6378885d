//! The kernel's own clippy run (`make CLIPPY=1` with rustc's JSON diagnostics): reading its
//! findings and merging them with ours. What clippy can express by configuration is left to it
//! (see `lint-rules/clippy.toml`); our rules cover what it cannot and code it does not build.

use std::path::{Component, Path, PathBuf};

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
                && catalogue::rule(&o.rule).and_then(|r| r.clippy) == Some(c.rule.as_str())
        });
        if !duplicate {
            merged.push(c);
        }
    }
    merged.sort_by(|a, b| (&a.file, a.span.start, &a.rule).cmp(&(&b.file, b.span.start, &b.rule)));
    merged
}
