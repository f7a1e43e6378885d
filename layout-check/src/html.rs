//! The HTML report, in kallsyms-check's style: the types that differ (root causes first), each
//! with where it starts and why, then the latent alignments, the ambiguous names and the counts.
//! One self-contained file (inline CSS), no scripts.

use std::fmt::Write as _;

use report::{PAGE_END, escape, page_start};

use crate::bindgen::LayoutTest;
use crate::compare::Report;
use crate::text::{cause_cell, moved_cell, shape_cell, summary};

/// Renders the report; `bindgen` is the layout-test check's failed assertions, when it ran.
pub fn render_html(title: &str, report: &Report, bindgen: Option<&[LayoutTest]>) -> String {
    let mut h = String::new();
    h.push_str(&page_start(title));
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
    if let Some(failed) = bindgen {
        let (class, verdict) = if failed.is_empty() { ("ok", "ok") } else { ("fail", "FAILED") };
        let _ = writeln!(
            h,
            "<h2>bindgen's layout tests (clang's layout against Rust's) <span class=\"{class}\">{verdict}</span></h2>"
        );
        if !failed.is_empty() {
            h.push_str("<table>\n<tr><th>check</th><th>crate</th><th>assertion</th><th>clang</th><th>Rust</th></tr>\n");
            for t in failed {
                let show = |v: Option<u64>| v.map_or("?".to_owned(), |v| v.to_string());
                let _ = writeln!(
                    h,
                    "<tr><td class=\"fail\">FAIL</td><td>{}</td><td class=\"name\">{}</td><td>{}</td><td>{}</td></tr>",
                    escape(&t.krate),
                    escape(&t.assertion),
                    show(t.clang),
                    show(t.rust)
                );
            }
            h.push_str("</table>\n");
        }
    }
    h.push_str(PAGE_END);
    h
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::compare::{Mismatch, Moved, Shape, Summary};
    use crate::model::{Align, Kind};

    #[test]
    fn report_of_one_mismatch_and_one_failed_layout_test() {
        let report = Report {
            mismatches: vec![Mismatch {
                krate: "bindings".to_owned(),
                name: "task_struct".to_owned(),
                kind: Kind::Struct,
                decl: Some("include/linux/sched.h:835".to_owned()),
                c: Shape { size: 2112, align: Align::attribute(64) },
                rust: Shape { size: 2048, align: Align::attribute(64) },
                first_moved: Some(Moved {
                    member: "stats".to_owned(),
                    c_bits: 768 * 8,
                    rust_bits: Some(712 * 8),
                }),
                moved: 2,
                resized: vec![],
                cause: "stats: C aligned 64, Rust aligned 1 (sched_statistics)".to_owned(),
                cause_member: Some("stats".to_owned()),
                caused_by: Some("sched_statistics".to_owned()),
                root: false,
            }],
            summary: Summary { rust_types: 1, compared: 1, mismatching: 1, ..Summary::default() },
            ..Report::default()
        };
        let failed = [LayoutTest {
            krate: "bindings".to_owned(),
            assertion: "Size of task_struct".to_owned(),
            clang: Some(2112),
            rust: Some(2048),
            detail: String::new(),
        }];
        let html = render_html("layout-check", &report, Some(&failed));
        let body = &html[html.find("<h2>").unwrap()..];
        expect![[r#"
            <h2>C and Rust layouts from DWARF <span class="fail">FAILED</span></h2>
            <p>1 Rust types of bindings and uapi in DWARF; 1 with a C definition compared: 0 match, 1 differ (0 root causes); 0 without a C definition (no C code uses them); 0 bindgen placeholders for types it saw only declared</p>
            <p>members: 0 compared by offset and size, 0 by offset only (flexible arrays, union fields); renamed by bindgen: 0 anonymous members paired with __bindgen_anon_N by position, 0 C bitfields found in a Rust bitfield unit; 0 only in C, 0 only in Rust</p>
            <p>0 opaque types (size and alignment only); 0 names with several C definitions: 0 matched one, 0 ambiguous, 0 compared with the one in a header</p>
            <table>
            <tr><th>check</th><th>type</th><th>C size/align</th><th>Rust size/align</th><th>first moved (C → Rust)</th><th>cause</th><th>declared</th></tr>
            <tr><td class="fail">differs</td><td class="name">bindings::task_struct</td><td>2112/64</td><td>2048/64</td><td class="name">stats 768 → 712 (+1 more)</td><td>stats: C aligned 64, Rust aligned 1 (sched_statistics) → see sched_statistics</td><td class="name">include/linux/sched.h:835</td></tr>
            </table>
            <h2>bindgen's layout tests (clang's layout against Rust's) <span class="fail">FAILED</span></h2>
            <table>
            <tr><th>check</th><th>crate</th><th>assertion</th><th>clang</th><th>Rust</th></tr>
            <tr><td class="fail">FAIL</td><td>bindings</td><td class="name">Size of task_struct</td><td>2112</td><td>2048</td></tr>
            </table>
            </body></html>
        "#]]
        .assert_eq(body);
    }
}
