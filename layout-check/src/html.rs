//! The HTML report, in kallsyms-check's style: the types that differ (root causes first), each
//! with where it starts and why, then the latent alignments, the ambiguous names and the counts.
//! One self-contained file (inline CSS), no scripts.

use std::fmt::Write as _;

use crate::bindgen::LayoutTest;
use crate::compare::Report;
use crate::text::{cause_cell, moved_cell, shape_cell, summary};

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Renders the report; `bindgen` is the layout-test check's result, when it ran.
pub fn render_html(title: &str, report: &Report, bindgen: Option<&[LayoutTest]>) -> String {
    let mut h = String::new();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title>\n\
         <style>body{{font-family:sans-serif;margin:2em;max-width:72em}}table{{border-collapse:collapse}}\
         td,th{{border:1px solid #ccc;padding:2px 6px;font-size:90%}}td.name{{font-family:monospace;word-break:break-all}}\
         .ok{{color:#070}}.fail{{color:#b00;font-weight:bold}}</style></head><body>\n<h1>{}</h1>\n",
        escape(title),
        escape(title)
    );
    let (class, verdict) = if report.ok() { ("ok", "ok") } else { ("fail", "FAILED") };
    let _ = writeln!(
        h,
        "<h2>C and Rust layouts from DWARF <span class=\"{class}\">{verdict}</span></h2>"
    );
    for line in summary(&report.summary).lines() {
        let _ = writeln!(h, "<p>{}</p>", escape(line));
    }
    if !report.mismatches.is_empty() {
        h.push_str(
            "<table>\n<tr><th>check</th><th>type</th><th>C size/align</th><th>Rust size/align</th>\
             <th>first moved (C → Rust)</th><th>cause</th><th>declared</th></tr>\n",
        );
        for m in &report.mismatches {
            let _ = writeln!(
                h,
                "<tr><td class=\"fail\">{}</td><td class=\"name\">{}::{}</td><td>{}</td><td>{}</td><td class=\"name\">{}</td><td>{}</td><td class=\"name\">{}</td></tr>",
                if m.root { "root cause" } else { "differs" },
                escape(&m.krate),
                escape(&m.name),
                shape_cell(m.c.size, m.c.align),
                shape_cell(m.rust.size, m.rust.align),
                escape(&moved_cell(m)),
                escape(&cause_cell(m)),
                escape(m.decl.as_deref().unwrap_or("-"))
            );
        }
        h.push_str("</table>\n");
    }
    if !report.latent.is_empty() {
        h.push_str("<h2>Latent: alignment differs, offset agrees by chance</h2>\n<table>\n<tr><th>type</th><th>member</th><th>offset</th><th>C align</th><th>Rust align</th></tr>\n");
        for l in &report.latent {
            let _ = writeln!(
                h,
                "<tr><td class=\"name\">{}::{}</td><td class=\"name\">{} ({})</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                escape(&l.krate),
                escape(&l.name),
                escape(&l.member),
                escape(&l.member_type),
                crate::model::show_bits(l.bits),
                l.c_align.bytes,
                l.rust_align.bytes
            );
        }
        h.push_str("</table>\n");
    }
    for a in &report.ambiguous {
        let _ = writeln!(h, "<h3>Ambiguous: {}::{}</h3>\n<ul>", escape(&a.krate), escape(&a.name));
        for d in &a.definitions {
            let _ = writeln!(h, "<li>{}</li>", escape(d));
        }
        h.push_str("</ul>\n");
    }
    if let Some(tests) = bindgen {
        let failed = tests.iter().filter(|t| !t.passed).count();
        let (class, verdict) = if failed == 0 { ("ok", "ok") } else { ("fail", "FAILED") };
        let _ = writeln!(
            h,
            "<h2>bindgen's layout tests (clang's layout against Rust's) <span class=\"{class}\">{verdict}</span></h2>\n<table>\n<tr><th>check</th><th>crate</th><th>assertion</th><th>Rust</th></tr>"
        );
        for t in tests.iter().filter(|t| !t.passed) {
            let _ = writeln!(
                h,
                "<tr><td class=\"fail\">FAIL</td><td>{}</td><td class=\"name\">{}</td><td>{}</td></tr>",
                escape(&t.krate),
                escape(&t.assertion),
                escape(&t.detail)
            );
        }
        h.push_str("</table>\n");
    }
    h.push_str("</body></html>\n");
    h
}
