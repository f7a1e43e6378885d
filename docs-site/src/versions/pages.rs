//! The combined site's own pages: the landing page (one line a version), `changes/index.html`
//! (counts per crate), `changes/CRATE.html` (api-diff's report; for `bindings` and `uapi`
//! counts and a capped list) and `changes/modules.html` (the porting lists). Pure.

use std::fmt::Write as _;

use api_diff::{ChangeKind, Diff, Sides, Version, heading, render_html, summary};
use report::{PAGE_END, escape, page_start};

use crate::versions::porting::Use;

/// How many entries of a summary crate (`bindings`, `uapi`) its page lists.
pub const SUMMARY_CAP: usize = 200;

/// One version of the combined site.
#[derive(Clone, Debug)]
pub struct VersionLine {
    /// The folder and label: `7.3`.
    pub label: String,
    /// The tree's version: `7.3.4`.
    pub kernel_version: String,
    /// The architecture it was built for: `arm64`.
    pub arch: String,
    /// The number of crates documented.
    pub crates: usize,
    /// The doctest summary, if they ran.
    pub doctests: Option<String>,
}

/// What the changes say about one crate.
#[derive(Clone, Debug)]
pub enum CrateChanges {
    /// Compared in full (`summary` false) or in counts and a capped list.
    Compared {
        /// Its diff.
        diff: Diff,
        /// Counts and a capped list only (`bindings`, `uapi`).
        summary: bool,
    },
    /// Documented in one version only.
    OnlyIn(String),
    /// Its JSON could not be made in a version: why.
    Failed(String),
}

/// One crate's line of the changes.
#[derive(Clone, Debug)]
pub struct CrateLine {
    /// The crate.
    pub name: String,
    /// What changed.
    pub changes: CrateChanges,
}

/// The labels of the two sites compared, and what they are: two versions, or one version on two
/// architectures.
#[derive(Clone, Copy, Debug)]
pub struct Pair<'a> {
    /// `6.12`.
    pub old: &'a str,
    /// `7.3`.
    pub new: &'a str,
    /// What the two are.
    pub sides: Sides,
}

impl Pair<'_> {
    /// What the comparison is called: `API changes from Linux 6.12 to 7.3`, or `What Linux
    /// 7.3-x86_64 and 7.3-arm64 do not share`.
    fn title(&self) -> String {
        match self.sides {
            Sides::Versions => format!("API changes from Linux {} to {}", self.old, self.new),
            Sides::Architectures => {
                format!("What Linux {} and {} do not share", self.old, self.new)
            }
        }
    }
}

/// The counts of a diff: `12 added, 3 removed`.
pub fn counts_text(diff: &Diff) -> String {
    let total = summary(diff).total;
    let parts: Vec<String> =
        ChangeKind::ALL.iter().map(|c| format!("{} {}", total.get(*c), c.name())).collect();
    parts.join(", ")
}

/// The combined landing page.
pub fn landing(versions: &[VersionLine], pair: Pair) -> String {
    let mut out = page_start("Rust in Linux: documentation of several kernels");
    out.push_str(
        "<p>Each kernel's documentation as <code>docs-site build</code> made it, with its own \
         search; every page has a version switcher (bottom right) that opens the same item in \
         the other kernel, or says that it does not exist there.</p>\n<table>\n\
         <tr><th>Kernel</th><th>Version</th><th>Architecture</th><th>Crates</th><th>Doctests</th></tr>\n",
    );
    for v in versions {
        writeln!(
            out,
            "<tr><td><a href=\"{l}/index.html\">Linux {l}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&v.kernel_version),
            escape(&v.arch),
            v.crates,
            escape(v.doctests.as_deref().unwrap_or("not run")),
            l = escape(&v.label),
        )
        .unwrap();
    }
    out.push_str("</table>\n");
    let (o, n) = (escape(pair.old), escape(pair.new));
    let (heading, what) = match pair.sides {
        Sides::Versions => (format!("From {o} to {n}"), "API changes per crate"),
        Sides::Architectures => {
            (format!("{o} and {n}"), "What each crate offers on one and not on the other")
        }
    };
    writeln!(
        out,
        "<h2>{heading}</h2>\n<ul><li><a href=\"changes/index.html\">{what}</a> \
         (from rustdoc's JSON of each crate, diffed)</li>\n<li><a href=\"changes/modules.html\">What \
         our out-of-tree modules use of them</a></li></ul>"
    )
    .unwrap();
    out.push_str(PAGE_END);
    out
}

/// `changes/index.html`: a line per crate.
pub fn changes_index(crates: &[CrateLine], pair: Pair) -> String {
    let mut out = page_start(&pair.title());
    out.push_str("<p><a href=\"../index.html\">All kernels</a> · <a href=\"modules.html\">Porting our modules</a></p>\n");
    out.push_str("<table>\n<tr><th>Crate</th>");
    for change in ChangeKind::ALL {
        write!(out, "<th>{}</th>", escape(&heading(change, pair.sides, pair.old, pair.new)))
            .unwrap();
    }
    out.push_str("<th></th></tr>\n");
    for c in crates {
        let name = escape(&c.name);
        match &c.changes {
            CrateChanges::Compared { diff, summary: brief } => {
                let total = summary(diff).total;
                write!(out, "<tr><td><a href=\"{name}.html\"><code>{name}</code></a></td>").unwrap();
                for change in ChangeKind::ALL {
                    write!(out, "<td>{}</td>", total.get(change)).unwrap();
                }
                let note = if *brief { "counts and a list" } else { "" };
                writeln!(out, "<td>{note}</td></tr>").unwrap();
            }
            CrateChanges::OnlyIn(label) => writeln!(
                out,
                "<tr><td><code>{name}</code></td><td colspan=\"5\">only in Linux {} \
                 (<a href=\"../{l}/{name}/index.html\">its documentation</a>)</td></tr>",
                escape(label),
                l = escape(label)
            )
            .unwrap(),
            CrateChanges::Failed(why) => writeln!(
                out,
                "<tr><td><code>{name}</code></td><td colspan=\"5\" class=\"fail\">not compared: {}</td></tr>",
                escape(why)
            )
            .unwrap(),
        }
    }
    out.push_str("</table>\n");
    out.push_str(
        "<p>Compared: each crate's items reachable from its root (see api-diff's documentation \
         for what is and is not compared); items are matched by path, moves by name and kind.</p>\n",
    );
    out.push_str(PAGE_END);
    out
}

/// `changes/CRATE.html`; `extra` goes first (the `module!` keys on `macros`' page).
pub fn crate_page(name: &str, diff: &Diff, brief: bool, pair: Pair, extra: &str) -> String {
    let mut out = page_start(&format!("{name}: {}", pair.title()));
    out.push_str("<p><a href=\"index.html\">All crates</a> · <a href=\"../index.html\">All kernels</a></p>\n");
    out.push_str(extra);
    let old = Version { label: pair.old, doc_root: &format!("../{}/", pair.old) };
    let new_root = format!("../{}/", pair.new);
    let new = Version { label: pair.new, doc_root: &new_root };
    if !brief {
        out.push_str(&render_html(diff, &old, &new, pair.sides));
    } else {
        writeln!(out, "<p>{}.</p>", escape(&counts_text(diff))).unwrap();
        let mut shown = 0;
        for change in ChangeKind::ALL {
            let entries: Vec<_> = diff.entries.iter().filter(|e| e.change == change).collect();
            if entries.is_empty() {
                continue;
            }
            let title = heading(change, pair.sides, pair.old, pair.new);
            writeln!(out, "<h2>{} ({})</h2>\n<ul>", escape(&title), entries.len()).unwrap();
            for e in entries.iter().take(SUMMARY_CAP.saturating_sub(shown)) {
                let (place, root) = match (&e.new, &e.old) {
                    (Some(p), _) => (p, new_root.as_str()),
                    (None, Some(p)) => (p, old.doc_root),
                    (None, None) => continue,
                };
                writeln!(
                    out,
                    "<li>{} <a href=\"{}{}\"><code>{}</code></a></li>",
                    escape(e.kind.name()),
                    escape(root),
                    escape(&place.url),
                    escape(&place.path)
                )
                .unwrap();
                shown += 1;
            }
            if entries.len() > SUMMARY_CAP.min(shown) {
                writeln!(out, "<li>… the list stops at {SUMMARY_CAP} entries</li>").unwrap();
            }
            out.push_str("</ul>\n");
        }
    }
    out.push_str(PAGE_END);
    out
}

/// The `module!` keys' section of `macros`' page, from [`super::module_keys::lines`].
pub fn keys_section(lines: &[String]) -> String {
    let mut out =
        String::from("<h2 id=\"module-keys\">The keys of <code>module!</code></h2>\n<ul>\n");
    for line in lines {
        writeln!(out, "<li>{}</li>", code_spans(line)).unwrap();
    }
    out.push_str("</ul>\n");
    out
}

/// Text with its code between backticks as `<code>`.
fn code_spans(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 1 {
            write!(out, "<code>{}</code>", escape(part)).unwrap();
        } else {
            out.push_str(&escape(part));
        }
    }
    out
}

/// `changes/modules.html`: each module's uses of the changes.
pub fn modules_page(modules: &[(String, Vec<Use>)], pair: Pair) -> String {
    let mut out =
        page_start(&format!("Porting our modules from Linux {} to {}", pair.old, pair.new));
    out.push_str("<p><a href=\"index.html\">All crates</a> · <a href=\"../index.html\">All kernels</a></p>\n");
    out.push_str(
        "<p>What each out-of-tree module's sources name of what changed: paths in <code>use</code> \
         trees and in the code, names its prelude glob brings in, and its <code>module!</code> \
         keys. Name-based, not type-checked: a method called as <code>value.method()</code> is \
         not seen, and a local name equal to a changed prelude name is listed too. \
         <code>docs-site porting --module DIR</code> prints the same list.</p>\n",
    );
    for (module, uses) in modules {
        writeln!(
            out,
            "<h2 id=\"{m}\"><code>{m}</code>: {} uses</h2>",
            uses.len(),
            m = escape(module)
        )
        .unwrap();
        if uses.is_empty() {
            out.push_str("<p>Nothing it names changed.</p>\n");
            continue;
        }
        out.push_str("<table>\n<tr><th>Where</th><th>Names</th><th>Change</th></tr>\n");
        for u in uses {
            let change = match &u.entry {
                Some((krate, url)) if !url.is_empty() => format!(
                    "{} <a href=\"../{}/{}\">{}</a> <a href=\"{}.html\">changes</a>",
                    code_spans(&u.change),
                    escape(pair.old),
                    escape(url),
                    escape(pair.old),
                    escape(krate)
                ),
                _ => format!(
                    "{} <a href=\"macros.html#module-keys\">changes</a>",
                    code_spans(&u.change)
                ),
            };
            writeln!(
                out,
                "<tr><td><code>{}:{}</code></td><td><code>{}</code></td><td>{change}</td></tr>",
                escape(&u.file),
                u.line,
                escape(&u.name)
            )
            .unwrap();
        }
        out.push_str("</table>\n");
    }
    out.push_str(PAGE_END);
    out
}

/// `html` (one of our pages, `depth` folders below the combined root) with the kernel's logo
/// of `version`'s site as its icon: without one, the browser asks for `/favicon.ico`.
pub fn with_icon(html: &str, depth: usize, version: &str) -> String {
    let icon = format!(
        "<meta charset=\"utf-8\"><link rel=\"icon\" href=\"{}{}/static.files/logo.svg\">",
        "../".repeat(depth),
        escape(version)
    );
    html.replacen("<meta charset=\"utf-8\">", &icon, 1)
}

/// `html` with every `<a href="LINK">text</a>` whose link is in `broken` made its text:
/// links of our pages that lead to no page (an item of another crate, an anchor rustdoc
/// numbered).
pub fn unlink(html: &str, broken: &std::collections::BTreeSet<String>) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(i) = rest.find("<a href=\"") {
        let after = &rest[i + 9..];
        let Some(end) = after.find('"') else { break };
        let link = crate::html::decode_entities(&after[..end]);
        let close = after.find('>').and_then(|gt| after[gt..].find("</a>").map(|c| (gt, gt + c)));
        match close {
            Some((gt, c)) if broken.contains(&link) => {
                out.push_str(&rest[..i]);
                out.push_str(&after[gt + 1..c]);
                rest = &after[c + 4..];
            }
            _ => {
                out.push_str(&rest[..i + 9]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}
