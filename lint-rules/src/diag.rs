//! Output: rustc-style human diagnostics with snippets, rustc's JSON diagnostic format (what
//! rust-analyzer's check command reads), and a summary table.

use serde::Serialize;

use crate::finding::{Finding, Origin};
use crate::lines::LineIndex;
use crate::rule::Level;

/// A finding as rustc prints it:
///
/// ```text
/// error[safety-comment]: `unsafe` block without a preceding `// SAFETY:` comment
///   --> rust/kernel/foo.rs:12:9
///    |
/// 12 |         unsafe { bar() }
///    |         ^^^^^^
///    = help: ...
/// ```
pub fn render_human(f: &Finding, source: Option<&str>) -> String {
    let mut out = format!("{}[{}]: {}\n", f.level, f.rule(), f.message);
    let gutter = f.span.end_line.max(f.span.line).to_string().len();
    let pad = " ".repeat(gutter);
    out.push_str(&format!("{pad}--> {}:{}:{}\n", f.file, f.span.line, f.span.col));
    if let Some(source) = source {
        let index = LineIndex::new(source);
        let line = index.line_text(f.span.line);
        out.push_str(&format!("{pad} |\n"));
        out.push_str(&format!("{:>gutter$} | {}\n", f.span.line, line.trim_end()));
        let width = if f.span.end_line == f.span.line {
            f.span.end_col.saturating_sub(f.span.col).max(1)
        } else {
            line.chars().count().saturating_sub(f.span.col.saturating_sub(1)).max(1)
        };
        let indent: String = line
            .chars()
            .take(f.span.col.saturating_sub(1))
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        out.push_str(&format!("{pad} | {indent}{}\n", "^".repeat(width)));
    }
    if let Some(help) = &f.help {
        out.push_str(&format!("{pad} = help: {help}\n"));
    }
    if let Some(rule) = f.ours() {
        out.push_str(&format!(
            "{pad} = note: `lint-rules explain {}` for the rule and its guideline\n",
            rule.id
        ));
    }
    out
}

/// rustc's JSON diagnostic (`--error-format=json`), one line per finding.
#[derive(Debug, Serialize)]
pub struct RustcDiagnostic {
    /// Always `"diagnostic"`.
    #[serde(rename = "$message_type")]
    pub message_type: &'static str,
    /// The message.
    pub message: String,
    /// The lint code.
    pub code: Option<RustcCode>,
    /// `error`, `warning` or `help`.
    pub level: &'static str,
    /// Where.
    pub spans: Vec<RustcSpan>,
    /// Help lines.
    pub children: Vec<RustcDiagnostic>,
    /// The human rendering.
    pub rendered: Option<String>,
}

/// The code of a diagnostic.
#[derive(Debug, Serialize)]
pub struct RustcCode {
    /// `lint_rules::safety-comment`.
    pub code: String,
    /// Not used.
    pub explanation: Option<String>,
}

/// A span of a diagnostic.
#[derive(Debug, Serialize)]
pub struct RustcSpan {
    /// The file.
    pub file_name: String,
    /// Byte offsets.
    pub byte_start: usize,
    /// Byte offsets.
    pub byte_end: usize,
    /// 1-based lines.
    pub line_start: usize,
    /// 1-based lines.
    pub line_end: usize,
    /// 1-based columns in characters.
    pub column_start: usize,
    /// 1-based columns in characters.
    pub column_end: usize,
    /// Always true here.
    pub is_primary: bool,
    /// The lines of the snippet.
    pub text: Vec<RustcSpanLine>,
    /// No label.
    pub label: Option<String>,
    /// No suggestion.
    pub suggested_replacement: Option<String>,
    /// No suggestion.
    pub suggestion_applicability: Option<String>,
    /// Not from a macro expansion.
    pub expansion: Option<()>,
}

/// A line of a span's snippet.
#[derive(Debug, Serialize)]
pub struct RustcSpanLine {
    /// The line.
    pub text: String,
    /// 1-based highlight.
    pub highlight_start: usize,
    /// 1-based highlight.
    pub highlight_end: usize,
}

/// The rustc JSON diagnostic of a finding. `file_name` is what the editor should open (an
/// absolute path, for rust-analyzer).
pub fn to_rustc(f: &Finding, source: Option<&str>, file_name: &str) -> RustcDiagnostic {
    let text = source
        .map(|s| {
            let index = LineIndex::new(s);
            vec![RustcSpanLine {
                text: index.line_text(f.span.line).to_owned(),
                highlight_start: f.span.col,
                highlight_end: if f.span.end_line == f.span.line {
                    f.span.end_col
                } else {
                    index.line_text(f.span.line).chars().count() + 1
                },
            }]
        })
        .unwrap_or_default();
    let code = match &f.origin {
        Origin::Rule(_) | Origin::Parser => format!("lint_rules::{}", f.rule()),
        Origin::Clippy(lint) => lint.clone(),
    };
    let children = f
        .help
        .iter()
        .map(|h| RustcDiagnostic {
            message_type: "diagnostic",
            message: h.clone(),
            code: None,
            level: "help",
            spans: Vec::new(),
            children: Vec::new(),
            rendered: None,
        })
        .collect();
    RustcDiagnostic {
        message_type: "diagnostic",
        message: f.message.clone(),
        code: Some(RustcCode { code, explanation: None }),
        level: match f.level {
            Level::Error => "error",
            _ => "warning",
        },
        spans: vec![RustcSpan {
            file_name: file_name.to_owned(),
            byte_start: f.span.start,
            byte_end: f.span.end,
            line_start: f.span.line,
            line_end: f.span.end_line,
            column_start: f.span.col,
            column_end: f.span.end_col,
            is_primary: true,
            text,
            label: None,
            suggested_replacement: None,
            suggestion_applicability: None,
            expansion: None,
        }],
        children,
        rendered: Some(render_human(f, source)),
    }
}

/// One line of findings per rule: `rule  level  count`, sorted by rule, for the summary.
pub fn table(findings: &[Finding]) -> String {
    let mut counts: std::collections::BTreeMap<(&str, Level), usize> = Default::default();
    for f in findings {
        *counts.entry((f.rule(), f.level)).or_default() += 1;
    }
    let mut out = String::new();
    for ((rule, level), n) in counts {
        out.push_str(&format!("{rule:<40} {level:<8} {n:>5}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lines::Span;

    /// clippy's JSON is input: a column of 0 (rustc's are 1-based) must not underflow.
    #[test]
    fn a_column_of_zero_from_clippy_renders() {
        let f = Finding {
            file: "rust/kernel/foo.rs".to_owned(),
            span: Span { start: 0, end: 3, line: 1, col: 0, end_line: 2, end_col: 0 },
            level: Level::Warning,
            message: "an example".to_owned(),
            help: None,
            origin: Origin::Clippy("clippy::example".to_owned()),
        };
        let text = render_human(&f, Some("fn x() {}\n}\n"));
        assert!(text.contains("1 | fn x() {}\n  | ^^^^^^^^^"), "{text}");
    }
}
