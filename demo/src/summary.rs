//! The demo's summary, rendered from the tools' typed results: one line a tool (verdict, time,
//! what it found) and the files it wrote.

use report::results::ToolResult;

use crate::tools::Ran;

/// What a tool found, in one line.
pub fn one_line(result: &ToolResult) -> String {
    match result {
        ToolResult::RustProjectGen(p) => {
            let mut line = format!("{} crates from {} .cmd files", p.crates, p.cmd_files);
            if !p.problems.is_empty() {
                line += &format!("; {} problems, the graph is partial", p.problems.len());
            }
            line
        }
        ToolResult::RustAnalyzer(a) => format!("{}: {}", a.rust_analyzer, a.verdict()),
        ToolResult::LintRules(l) => l.summary(),
        ToolResult::DocsSite(d) => d.summary(),
        ToolResult::LayoutCheck(l) => l.summary(),
        ToolResult::KallsymsCheck(k) => k.summary(),
        ToolResult::DecodeStacktrace(d) => format!(
            "{} frames of rust_oops_null's oops, {} with file:line",
            d.frames.len(),
            d.located()
        ),
    }
}

/// The `tools:` table of the summary.
pub fn render(ran: &[Ran]) -> String {
    let mut out = String::from("tools:\n");
    for r in ran {
        let verdict = match (r.ok(), r.reused) {
            (false, _) => "FAILED",
            (true, true) => "reused",
            (true, false) => "ok",
        };
        let line = match &r.result {
            Ok(result) => one_line(result),
            Err(why) => why.lines().next_back().unwrap_or(why).to_owned(),
        };
        out += &format!(
            "  {:<18} {verdict:<6} {:>7}  {line}\n",
            r.tool,
            progress::format_duration(r.took)
        );
        for output in &r.outputs {
            out += &format!("  {:<18} {:<6} {:>7}  {}\n", "", "", "", output.display());
        }
    }
    out
}

#[cfg(test)]
mod tests;
