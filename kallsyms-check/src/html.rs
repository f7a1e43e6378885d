//! The HTML report: each scenario's frames, and a histogram of Rust symbol lengths per image
//! against `KSYM_NAME_LEN`. One self-contained file (inline CSS and SVG), no scripts.

use std::fmt::Write as _;

use report::{PAGE_END, escape, page_start};

use crate::{FrameCheck, KSYM_NAME_LEN};

/// One scenario's outcome, for the report.
pub struct ScenarioReport<'a> {
    /// The module loaded.
    pub name: &'a str,
    /// What it shows.
    pub what: &'a str,
    /// Whether every check held.
    pub ok: bool,
    /// Its frames.
    pub frames: &'a [FrameCheck],
}

/// One image's histogram: (bucket label, count), as from [`crate::length_histogram`].
pub struct ImageHistogram<'a> {
    /// `vmlinux` or a module name.
    pub name: &'a str,
    /// The buckets.
    pub buckets: &'a [(String, usize)],
}

/// Renders the report.
pub fn render_html(
    title: &str,
    scenarios: &[ScenarioReport<'_>],
    images: &[ImageHistogram<'_>],
) -> String {
    let mut h = String::new();
    h.push_str(&page_start(title));
    for s in scenarios {
        let (class, verdict) = if s.ok { ("ok", "ok") } else { ("fail", "FAILED") };
        let _ = write!(
            h,
            "<h2>{} <span class=\"{class}\">{verdict}</span></h2>\n<p>{}</p>\n<table>\n\
             <tr><th>check</th><th>verdict</th><th>length</th><th>printed</th><th>image</th><th>source</th></tr>\n",
            escape(s.name),
            escape(s.what)
        );
        for f in s.frames {
            let (class, check) = if f.ok() { ("ok", "ok") } else { ("fail", "FAIL") };
            let mut verdict = format!("{:?}", f.verdict);
            if let Some(actual) = &f.actual {
                verdict +=
                    &format!(" (the address is in {}, {} chars)", escape(actual), actual.len());
            }
            let _ = writeln!(
                h,
                "<tr><td class=\"{class}\">{check}</td><td>{verdict}</td><td>{}</td><td class=\"name\">{}</td><td>{}</td><td>{}</td></tr>",
                f.length,
                escape(&f.printed),
                escape(f.module.as_deref().unwrap_or("vmlinux")),
                escape(f.source.as_deref().unwrap_or("-"))
            );
        }
        h.push_str("</table>\n");
    }
    let _ = writeln!(h, "<h2>Rust symbol lengths against KSYM_NAME_LEN ({KSYM_NAME_LEN})</h2>");
    for image in images {
        let max = image.buckets.iter().map(|(_, c)| *c).max().unwrap_or(0).max(1);
        let _ = writeln!(
            h,
            "<h3>{}</h3>\n<svg width=\"640\" height=\"{}\" role=\"img\" aria-label=\"histogram for {}\">",
            escape(image.name),
            image.buckets.len() * 22 + 4,
            escape(image.name)
        );
        for (i, (label, count)) in image.buckets.iter().enumerate() {
            let y = i * 22 + 2;
            let width = count * 440 / max;
            let fill = if label.starts_with(">=") { "#b00" } else { "#47a" };
            let _ = writeln!(
                h,
                "<text x=\"0\" y=\"{}\" font-size=\"13\">{}</text><rect x=\"80\" y=\"{y}\" width=\"{width}\" height=\"18\" fill=\"{fill}\"/>\
                 <text x=\"{}\" y=\"{}\" font-size=\"13\">{count}</text>",
                y + 14,
                escape(label),
                86 + width,
                y + 14
            );
        }
        h.push_str("</svg>\n");
    }
    h.push_str(PAGE_END);
    h
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;
    use crate::Verdict;

    #[test]
    fn report_of_one_scenario_and_one_image() {
        let frames = [FrameCheck {
            printed: "_RNvCs1_4demo4main<".to_owned(),
            module: Some("demo".to_owned()),
            verdict: Verdict::Whole,
            length: 19,
            demangles: true,
            offset_in_symbol: true,
            table_size: Some(32),
            printed_size: 32,
            actual: None,
            source: Some("demo/main.rs:7".to_owned()),
            dwarf_agrees: Some(true),
        }];
        let buckets = [("< 512".to_owned(), 3), (">= 512".to_owned(), 1)];
        let html = render_html(
            "kallsyms-check",
            &[ScenarioReport { name: "demo", what: "a test", ok: true, frames: &frames }],
            &[ImageHistogram { name: "demo", buckets: &buckets }],
        );
        let body = &html[html.find("<h1>").unwrap()..];
        expect![[r##"
            <h1>kallsyms-check</h1>
            <h2>demo <span class="ok">ok</span></h2>
            <p>a test</p>
            <table>
            <tr><th>check</th><th>verdict</th><th>length</th><th>printed</th><th>image</th><th>source</th></tr>
            <tr><td class="ok">ok</td><td>Whole</td><td>19</td><td class="name">_RNvCs1_4demo4main&lt;</td><td>demo</td><td>demo/main.rs:7</td></tr>
            </table>
            <h2>Rust symbol lengths against KSYM_NAME_LEN (512)</h2>
            <h3>demo</h3>
            <svg width="640" height="48" role="img" aria-label="histogram for demo">
            <text x="0" y="16" font-size="13">&lt; 512</text><rect x="80" y="2" width="440" height="18" fill="#47a"/><text x="526" y="16" font-size="13">3</text>
            <text x="0" y="38" font-size="13">&gt;= 512</text><rect x="80" y="24" width="146" height="18" fill="#b00"/><text x="232" y="38" font-size="13">1</text>
            </svg>
            </body></html>
        "##]]
        .assert_eq(body);
    }
}
