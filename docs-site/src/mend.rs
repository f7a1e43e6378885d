//! Links rustdoc writes to items it did not document. A crate's pages show the blanket
//! implementations and trait methods of its dependencies, and rustdoc links each name to the
//! item's page even when the item is `#[doc(hidden)]` or private in its crate (zerocopy's
//! `pointer::invariant` on every type of the kernel crate, `quote::spanned` in `syn`'s source,
//! the hidden `__pin_data` of pin-init's `HasPinData`), so the page does not exist. No page
//! can stand in: the link becomes its text, and each one is counted and listed on the site's
//! `unlinked.html`, never dropped unseen.
//!
//! Only rustdoc's own links are touched: those of a source page, and elsewhere those that name
//! the item's kind (`<a class="trait" …>`, as rustdoc writes in signatures). A link written in
//! a doc comment (no `class`) stays, and a broken one is reported by the link checker. Only
//! links into a crate the site documents are touched; links into a crate rustdoc failed on are
//! broken links. Pure: [`candidates`] and [`unlink`] take the checker's findings and a page.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::html::{attributes, decode_entities, escape, resolve_path, tag_end};
use crate::linkcheck::{Broken, Reason};

/// The file of the site that lists the links made text.
pub const PAGE: &str = "unlinked.html";

/// One link made text.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Unlinked {
    /// The page, relative to the site's root.
    pub page: String,
    /// The link as written.
    pub link: String,
}

impl Unlinked {
    /// Where the link led, relative to the site's root (`zerocopy/pointer/…/trait.Read.html`,
    /// `kernel/debugfs/struct.File.html#tymethod.__pin_data`).
    pub fn target(&self) -> String {
        target(&self.page, &self.link).unwrap_or_else(|| self.link.clone())
    }
}

/// `link` of `page` resolved against the site's root, its fragment kept.
fn target(page: &str, link: &str) -> Option<String> {
    let (path, fragment) = match link.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (link, None),
    };
    let path = path.split('?').next().unwrap_or(path);
    let resolved = if path.is_empty() {
        page.to_owned()
    } else {
        resolve_path(page.rsplit_once('/').map_or("", |(dir, _)| dir), path)?
    };
    Some(match fragment {
        Some(fragment) => format!("{resolved}#{fragment}"),
        None => resolved,
    })
}

/// The broken links, by page, that lead to a missing page or anchor of a crate in
/// `documented` (its folder is the target's first component): the links [`unlink`] may make
/// text.
pub fn candidates(
    broken: &[Broken],
    documented: &BTreeSet<String>,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut pages: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for b in broken {
        if !matches!(b.reason, Reason::MissingFile | Reason::MissingAnchor) {
            continue;
        }
        let Some(target) = target(&b.page, &b.link) else { continue };
        let krate = target.split(['/', '#']).next().unwrap_or("");
        if documented.contains(krate) {
            pages.entry(b.page.clone()).or_default().insert(b.link.clone());
        }
    }
    pages
}

/// `html` with each `<a>` whose `href` is in `links` and that rustdoc wrote (every link of a
/// source page, else one with a `class`) made a `<span>` of the same class, its title saying
/// why; returns the new page and the links made text, or `None` when none was. An `<a>` with
/// an `id` or `name` stays, so the page keeps every anchor.
pub fn unlink(
    html: &str,
    links: &BTreeSet<String>,
    is_source_page: bool,
) -> Option<(String, Vec<String>)> {
    let mut out = String::with_capacity(html.len());
    let mut removed = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find("<a ") {
        out.push_str(&rest[..i]);
        let tag = &rest[i..];
        let Some(end) = tag_end(tag) else {
            rest = tag;
            break;
        };
        let attrs = attributes(&tag[2..end]);
        let get = |name: &str| attrs.iter().find(|(a, _)| a == name).map(|(_, v)| v.as_str());
        let close = tag[end + 1..].find("</a>").map(|c| end + 1 + c);
        match (get("href"), close) {
            (Some(href), Some(close)) if links.contains(href) => {
                let class = get("class");
                // A link that is also an anchor stays: links to it must not break.
                let anchor = get("id").is_some() || get("name").is_some();
                if anchor || (!is_source_page && class.is_none()) {
                    out.push_str(&tag[..=end]);
                    rest = &tag[end + 1..];
                    continue;
                }
                let title = match get("title") {
                    Some(title) => format!("{title}: not documented by its crate"),
                    None => "not documented by its crate".to_owned(),
                };
                let class = class.map_or("unlinked".to_owned(), |c| format!("{c} unlinked"));
                let _ = write!(
                    out,
                    "<span class=\"{}\" title=\"{}\">{}</span>",
                    escape(&class),
                    escape(&title),
                    &tag[end + 1..close]
                );
                removed.push(decode_entities(href));
                rest = &tag[close + 4..];
            }
            _ => {
                out.push_str(&tag[..=end]);
                rest = &tag[end + 1..];
            }
        }
    }
    out.push_str(rest);
    (!removed.is_empty()).then_some((out, removed))
}

/// The links made text as a summary for the terminal: how many, and the `limit` targets with
/// the most.
pub fn render(unlinked: &[Unlinked], limit: usize) -> String {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for u in unlinked {
        *counts.entry(u.target()).or_default() += 1;
    }
    let mut out = format!(
        "{} links to items their crates do not document, shown as text ({} targets, listed on {PAGE})\n",
        unlinked.len(),
        counts.len()
    );
    let mut by_count: Vec<(&String, &usize)> = counts.iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (target, n) in by_count.iter().take(limit) {
        let _ = writeln!(out, "    {n:5} {target}");
    }
    if by_count.len() > limit {
        let _ = writeln!(out, "    ... and {} more targets", by_count.len() - limit);
    }
    out
}

/// The page that lists the links made text, by where they led.
pub fn page(unlinked: &[Unlinked]) -> String {
    let mut by_target: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for u in unlinked {
        let target = u.target();
        *counts.entry(target.clone()).or_default() += 1;
        by_target.entry(target).or_default().insert(&u.page);
    }
    let mut rows = String::new();
    for (target, pages) in &by_target {
        let list: String =
            pages.iter().map(|p| format!("<li><a href=\"{0}\">{0}</a></li>", escape(p))).collect();
        let _ = writeln!(
            rows,
            "<tr><td><code>{}</code></td><td>{}</td><td><details><summary>{} pages</summary><ul>{list}</ul></details></td></tr>",
            escape(target),
            counts[target],
            pages.len()
        );
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Links to undocumented items</title>\
         <link rel=\"icon\" href=\"static.files/logo.svg\"><style>{css}</style></head><body>\
         <p><a href=\"index.html\">Rust in Linux</a> / links to undocumented items</p>\
         <h1>{n} links rustdoc wrote to items it did not document</h1>\
         <p>These items are <code>#[doc(hidden)]</code> or private in their crate (or, for \
         <code>foreigntype.num</code>, rustdoc does not say which integer type), so no page \
         exists for them; the links are shown as text.</p>\
         <table><thead><tr><th>Target</th><th>Links</th><th>On</th></tr></thead>\
         <tbody>{rows}</tbody></table></body></html>\n",
        css = crate::html::CSS,
        n = unlinked.len(),
    )
}

#[cfg(test)]
mod tests;
