//! A diff shown: plain text for the terminal, an HTML fragment for the docs site.

use std::fmt::Write;

use report::escape;

use crate::api::Place;
use crate::diff::{ChangeKind, Counts, Diff, Entry, Reason, summary};

/// One side of the diff, as the HTML report links it.
#[derive(Clone, Copy, Debug)]
pub struct Version<'a> {
    /// Its name in the report: `"6.12"`.
    pub label: &'a str,
    /// What goes before an item's page to link it from the report: `"../6.12/"`.
    pub doc_root: &'a str,
}

/// What the two sides of a diff are, which decides the words of its report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sides {
    /// An old and a new version: items are added, removed, moved and changed.
    Versions,
    /// One version built for two architectures: an item is only on one of them, at another
    /// path, or different.
    Architectures,
}

/// `"1 added, 2 changed"`: the non-zero counts, or `"no changes"`.
fn counts_line(counts: &Counts) -> String {
    let parts: Vec<String> = ChangeKind::ALL
        .iter()
        .filter(|c| counts.get(**c) > 0)
        .map(|c| format!("{} {}", counts.get(*c), c.name()))
        .collect();
    if parts.is_empty() { "no changes".to_owned() } else { parts.join(", ") }
}

fn title(change: ChangeKind) -> &'static str {
    match change {
        ChangeKind::Added => "Added",
        ChangeKind::Removed => "Removed",
        ChangeKind::Moved => "Moved",
        ChangeKind::Changed => "Changed",
    }
}

/// The heading of a change kind's entries: `"Added"`, or for [`Sides::Architectures`]
/// `"Only on arm64"` (an item the new side has and the old has not).
pub fn heading(change: ChangeKind, sides: Sides, old: &str, new: &str) -> String {
    match (sides, change) {
        (Sides::Versions, _) => title(change).to_owned(),
        (Sides::Architectures, ChangeKind::Added) => format!("Only on {new}"),
        (Sides::Architectures, ChangeKind::Removed) => format!("Only on {old}"),
        (Sides::Architectures, ChangeKind::Moved) => "At another path".to_owned(),
        (Sides::Architectures, ChangeKind::Changed) => "Different".to_owned(),
    }
}

/// The non-zero counts in the words of [`heading`]: `"3 only on arm64, 1 different"`.
fn counts_words(counts: &Counts, sides: Sides, old: &str, new: &str) -> String {
    if sides == Sides::Versions {
        return counts_line(counts);
    }
    let parts: Vec<String> = ChangeKind::ALL
        .iter()
        .filter(|c| counts.get(**c) > 0)
        .map(|c| format!("{} {}", counts.get(*c), heading(*c, sides, old, new).to_lowercase()))
        .collect();
    if parts.is_empty() {
        "nothing one has and the other has not".to_owned()
    } else {
        parts.join(", ")
    }
}

/// The entries of one change kind.
fn of(diff: &Diff, change: ChangeKind) -> Vec<&Entry> {
    diff.entries.iter().filter(|e| e.change == change).collect()
}

/// The diff for a terminal: the summary, then a section per change kind with an entry per line
/// (kind and path, `old → new` for a move) and its reasons below it.
pub fn render_text(diff: &Diff, old_label: &str, new_label: &str) -> String {
    let summary = summary(diff);
    let mut out =
        format!("API changes from {old_label} to {new_label}: {}\n", counts_line(&summary.total));
    for (kind, counts) in &summary.by_kind {
        writeln!(out, "  {}: {}", kind.name(), counts_line(counts)).unwrap();
    }
    for change in ChangeKind::ALL {
        let entries = of(diff, change);
        if entries.is_empty() {
            continue;
        }
        writeln!(out, "\n{} ({})", title(change), entries.len()).unwrap();
        let width = entries.iter().map(|e| e.kind.name().len()).max().unwrap_or(0);
        for entry in entries {
            let path = match (&entry.old, &entry.new) {
                (Some(o), Some(n)) if o.path != n.path => format!("{} → {}", o.path, n.path),
                (_, Some(p)) | (Some(p), None) => p.path.clone(),
                (None, None) => String::new(),
            };
            writeln!(out, "  {:width$}  {path}", entry.kind.name()).unwrap();
            let indent = " ".repeat(width + 4);
            let place = entry.new.as_ref().or(entry.old.as_ref());
            if let (ChangeKind::Added | ChangeKind::Removed, Some(place)) = (change, place)
                && !place.reexports.is_empty()
            {
                writeln!(out, "{indent}also at {}", place.reexports.join(", ")).unwrap();
            }
            for reason in &entry.reasons {
                writeln!(out, "{indent}- {}", reason.text).unwrap();
            }
        }
    }
    out
}

/// The diff as an HTML fragment for a page of the caller's: a summary table, then a table per
/// change kind whose entries link to their pages in each version where they exist, in the words
/// of `sides`.
pub fn render_html(diff: &Diff, old: &Version, new: &Version, sides: Sides) -> String {
    let summary = summary(diff);
    let mut out = String::from("<div class=\"api-diff\">\n");
    let (o, n) = (old.label, new.label);
    let counts = escape(&counts_words(&summary.total, sides, o, n));
    match sides {
        Sides::Versions => {
            writeln!(out, "<p>API changes from {} to {}: {counts}.</p>", escape(o), escape(n))
        }
        Sides::Architectures => {
            writeln!(out, "<p>{} and {} compared: {counts}.</p>", escape(o), escape(n))
        }
    }
    .unwrap();
    if !summary.by_kind.is_empty() {
        out.push_str("<table class=\"summary\">\n<tr><th>Kind</th>");
        for change in ChangeKind::ALL {
            write!(out, "<th>{}</th>", escape(&heading(change, sides, o, n))).unwrap();
        }
        out.push_str("</tr>\n");
        for (kind, counts) in &summary.by_kind {
            write!(out, "<tr><td>{}</td>", escape(kind.name())).unwrap();
            for change in ChangeKind::ALL {
                write!(out, "<td>{}</td>", counts.get(change)).unwrap();
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table>\n");
    }
    for change in ChangeKind::ALL {
        let entries = of(diff, change);
        if entries.is_empty() {
            continue;
        }
        let (id, count) = (change.name(), entries.len());
        let title = escape(&heading(change, sides, o, n));
        writeln!(out, "<h2 id=\"{id}\">{title} ({count})</h2>\n<table>").unwrap();
        let (old_label, new_label) = (escape(old.label), escape(new.label));
        writeln!(
            out,
            "<tr><th>Kind</th><th>{old_label}</th><th>{new_label}</th><th>Details</th></tr>"
        )
        .unwrap();
        for entry in entries {
            write!(
                out,
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>",
                escape(entry.kind.name()),
                place_html(entry.old.as_ref(), old),
                place_html(entry.new.as_ref(), new)
            )
            .unwrap();
            if !entry.reasons.is_empty() {
                out.push_str("<ul>");
                for reason in &entry.reasons {
                    write!(out, "<li>{}</li>", reason_html(reason, old, new)).unwrap();
                }
                out.push_str("</ul>");
            }
            out.push_str("</td></tr>\n");
        }
        out.push_str("</table>\n");
    }
    out.push_str("</div>\n");
    out
}

/// A path linked to its page in a version, with the other paths that reach it.
fn place_html(place: Option<&Place>, version: &Version) -> String {
    let Some(place) = place else { return String::new() };
    let mut out = format!(
        "<a href=\"{}{}\"><code>{}</code></a>",
        escape(version.doc_root),
        escape(&place.url),
        escape(&place.path)
    );
    if !place.reexports.is_empty() {
        let paths: Vec<String> =
            place.reexports.iter().map(|p| format!("<code>{}</code>", escape(p))).collect();
        write!(out, "<br><small>also at {}</small>", paths.join(", ")).unwrap();
    }
    out
}

/// A reason, its code between backticks as `<code>`, followed by links to the member it names.
fn reason_html(reason: &Reason, old: &Version, new: &Version) -> String {
    let mut out = String::new();
    for (i, part) in reason.text.split('`').enumerate() {
        if i % 2 == 1 {
            write!(out, "<code>{}</code>", escape(part)).unwrap();
        } else {
            out.push_str(&escape(part));
        }
    }
    for (url, version) in [(&reason.old_url, old), (&reason.new_url, new)] {
        if let Some(url) = url {
            write!(
                out,
                " <a href=\"{}{}\">{}</a>",
                escape(version.doc_root),
                escape(url),
                escape(version.label)
            )
            .unwrap();
        }
    }
    out
}
