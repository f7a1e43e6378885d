//! `srctree-links`: C headers mentioned in documentation are linked with `srctree/`.
//!
//! Test data: `fixture.rs` beside this file, which `tests/rules.rs` lints as
//! `rust/kernel/srctree_links.rs` against `tests/golden/rust/kernel/srctree_links.txt`.

use super::util::fenced;
use crate::rule::{Check, Cx, DocLine, Level, Rule};

/// The rule's catalogue entry, with its checks.
pub(crate) static RULE: Rule = Rule {
    id: "srctree-links",
    summary: "C headers mentioned in docs are linked with `srctree/`",
    rationale: "\"the kernel supports creating links relative to the source tree by \
                prefixing the link destination with `srctree/`\", as in \
                ``//! C header: [`include/linux/printk.h`](srctree/include/linux/printk.h)`` \
                (Documentation/rust/coding-guidelines.rst, \"Code documentation\").",
    good: "//! C header: [`include/linux/printk.h`](srctree/include/linux/printk.h)\n",
    bad: "//! C header: `include/linux/printk.h`\n",
    default_level: Level::Warning,
    clippy: &[],
    check: Check { doc: Some(check_doc), ..Check::NONE },
};

fn check_doc(cx: &mut Cx<'_>, lines: &[DocLine<'_>]) {
    let all: String = lines.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>().join("\n");
    for (in_code, line, token) in fenced(lines) {
        if in_code {
            continue;
        }
        for path in c_header_paths(line) {
            if path.at > 0 && line[..path.at].ends_with("srctree/") {
                continue;
            }
            if all.contains(&format!("srctree/{}", path.text)) {
                continue;
            }
            let r = token.text_range();
            let offset = token.text().find(path.text).unwrap_or(0);
            let start = usize::from(r.start()) + offset;
            cx.push(
                &RULE,
                start,
                start + path.text.len(),
                format!("C header `{}` is not linked with `srctree/`", path.text),
                Some("link it: [`include/linux/foo.h`](srctree/include/linux/foo.h)"),
            );
        }
    }
}

struct HeaderPath<'a> {
    at: usize,
    text: &'a str,
}

/// Paths of C headers (`include/linux/foo.h`, `arch/x86/include/asm/foo.h`) in a line.
fn c_header_paths(line: &str) -> Vec<HeaderPath<'_>> {
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '/' | '.' | '-');
    let mut found = Vec::new();
    let mut search = 0;
    while let Some(rel) = line[search..].find("include/") {
        let mut at = search + rel;
        // Back up over `arch/x86/` and the like.
        while at > 0 && line[..at].chars().next_back().is_some_and(is_path_char) {
            at -= 1;
        }
        if line[at..].starts_with("srctree/") {
            at += "srctree/".len();
        }
        let end = line[at..].find(|c: char| !is_path_char(c)).map_or(line.len(), |e| at + e);
        let text = line[at..end].trim_end_matches('.');
        if text.ends_with(".h") && (text.starts_with("include/") || text.starts_with("arch/")) {
            found.push(HeaderPath { at, text });
        }
        search = end.max(search + rel + 8);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_paths_are_found_in_text() {
        let paths =
            |s: &str| c_header_paths(s).iter().map(|p| p.text.to_owned()).collect::<Vec<_>>();
        assert_eq!(paths("C header: include/linux/printk.h."), ["include/linux/printk.h"]);
        assert_eq!(paths("see [x](srctree/include/linux/a.h)"), ["include/linux/a.h"]);
        assert_eq!(paths("arch/x86/include/asm/io.h and include/"), ["arch/x86/include/asm/io.h"]);
        assert!(paths("includes the header").is_empty());
    }
}
