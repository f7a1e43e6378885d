//! The report as a table on stdout (pure): one row per type that differs, root causes first,
//! then the latent alignments, the ambiguous names and the counts.

use std::fmt::Write as _;

use crate::compare::{Mismatch, Report, Summary};
use crate::model::{Align, show_bits};

/// `C → Rust` of the first member that moved, and how many did.
pub fn moved_cell(m: &Mismatch) -> String {
    match &m.first_moved {
        None => "-".to_owned(),
        Some(f) => {
            let rust = f.rust_bits.map_or("no unit".to_owned(), show_bits);
            let more =
                if m.moved > 1 { format!(" (+{} more)", m.moved - 1) } else { String::new() };
            format!("{} {} → {rust}{more}", f.member, show_bits(f.c_bits))
        }
    }
}

/// `size/align`.
pub fn shape_cell(size: u64, align: Align) -> String {
    format!("{size}/{}{}", align.bytes, if align.exact() { "" } else { "?" })
}

/// The cause, with what it points to.
pub fn cause_cell(m: &Mismatch) -> String {
    match (&m.caused_by, m.root) {
        (Some(t), _) => format!("{} → see {t}", m.cause),
        (None, true) => format!("{} [root cause]", m.cause),
        (None, false) => m.cause.clone(),
    }
}

/// The whole report as text.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    if !report.mismatches.is_empty() {
        let header = ["type", "C size/align", "Rust size/align", "first moved (C → Rust)", "cause"];
        let rows: Vec<[String; 5]> = report
            .mismatches
            .iter()
            .map(|m| {
                [
                    format!("{}::{}", m.krate, m.name),
                    shape_cell(m.c.size, m.c.align),
                    shape_cell(m.rust.size, m.rust.align),
                    moved_cell(m),
                    cause_cell(m),
                ]
            })
            .collect();
        let width = |i: usize| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([header[i].chars().count()])
                .max()
                .unwrap_or(0)
        };
        let widths = [width(0), width(1), width(2), width(3)];
        let line = |cells: [&str; 5]| {
            format!(
                "{:<w0$}  {:>w1$}  {:>w2$}  {:<w3$}  {}",
                cells[0],
                cells[1],
                cells[2],
                cells[3],
                cells[4],
                w0 = widths[0],
                w1 = widths[1],
                w2 = widths[2],
                w3 = widths[3]
            )
        };
        let _ = writeln!(out, "{}", line(header).trim_end());
        for row in &rows {
            let _ = writeln!(out, "{}", line([&row[0], &row[1], &row[2], &row[3], &row[4]]));
        }
        for m in report.mismatches.iter().filter(|m| !m.resized.is_empty()) {
            let sizes: Vec<String> = m
                .resized
                .iter()
                .map(|r| format!("{} (C {}, Rust {})", r.member, r.c, r.rust))
                .collect();
            let _ = writeln!(
                out,
                "  {}::{}: members of another size: {}",
                m.krate,
                m.name,
                sizes.join(", ")
            );
        }
        out.push('\n');
    }
    for l in &report.latent {
        let _ = writeln!(
            out,
            "latent: {}::{}.{} ({}): C aligned {}, Rust aligned {}, at {} on both sides by chance",
            l.krate,
            l.name,
            l.member,
            l.member_type,
            l.c_align.bytes,
            l.rust_align.bytes,
            show_bits(l.bits)
        );
    }
    for a in &report.ambiguous {
        let _ = writeln!(
            out,
            "ambiguous: {}::{}: C definitions differ, none is Rust's:",
            a.krate, a.name
        );
        for d in &a.definitions {
            let _ = writeln!(out, "  {d}");
        }
    }
    out.push_str(&summary(&report.summary));
    out
}

/// The counts, in sentences.
pub fn summary(s: &Summary) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} Rust types of bindings and uapi in DWARF; {} with a C definition compared: {} match, {} differ ({} root cause{}); {} without a C definition (no C code uses them); {} bindgen placeholders for types it saw only declared",
        s.rust_types,
        s.compared,
        s.matching,
        s.mismatching,
        s.root_causes,
        if s.root_causes == 1 { "" } else { "s" },
        s.without_c_definition,
        s.placeholders,
    );
    let _ = writeln!(
        out,
        "members: {} compared by offset and size, {} by offset only (flexible arrays, union fields); renamed by bindgen: {} anonymous members paired with __bindgen_anon_N by position, {} C bitfields found in a Rust bitfield unit; {} only in C, {} only in Rust",
        s.members_compared,
        s.offset_only,
        s.anonymous_by_position,
        s.bitfields_in_units,
        s.only_in_c,
        s.only_in_rust,
    );
    let _ = writeln!(
        out,
        "{} opaque types (size and alignment only); {} names with several C definitions: {} matched one, {} ambiguous, {} compared with the one in a header",
        s.opaque,
        s.several_c_definitions,
        s.matched_one_of_several,
        s.ambiguous,
        s.several_c_definitions - s.matched_one_of_several - s.ambiguous,
    );
    out
}
