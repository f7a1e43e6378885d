//! What the site does to rustdoc's pages, and how pages are read: `srctree/` links made to
//! work wherever the site is copied, the kernel's logo and favicon instead of Rust's, and a
//! small tag scanner for links and anchors. Pure but for [`rewrite_tree`].

use std::collections::BTreeSet;
use std::path::Path;

pub use report::escape;

/// Changes whenever the rewriting changes, so that crates are post-processed again.
pub const REWRITE_VERSION: &str = "6";

/// Where `srctree/…` links lead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SrctreeLinks {
    /// The site's own source view (`srctree/<path>.html`, `srctree/<dir>/index.html`).
    SourceView,
    /// `<base>/<path>`, for example a git web view of the same tree.
    BaseUrl(String),
}

/// The page of the source view for `path` in the srctree, relative to the site's root.
pub fn source_view_page(path: &str, is_dir: bool) -> String {
    let path = path.trim_end_matches('/');
    if path.is_empty() {
        "srctree/index.html".to_owned()
    } else if is_dir {
        format!("srctree/{path}/index.html")
    } else {
        format!("srctree/{path}.html")
    }
}

/// Rewrites one page found `depth` folders below the site's root. `srctree/…` links go where
/// `links` says (`is_dir` tells whether a srctree path is a directory; each target is added to
/// `targets`); Rust's logo and favicon become the kernel's (`static.files/logo.svg`), as
/// `make rustdoc` does. Returns `None` when nothing changed.
pub fn rewrite_page(
    html: &str,
    depth: usize,
    links: &SrctreeLinks,
    is_dir: &dyn Fn(&str) -> bool,
    targets: &mut BTreeSet<String>,
) -> Option<String> {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    let mut changed = false;
    const SRCTREE: &str = "href=\"srctree/";
    while let Some(i) = rest.find(SRCTREE) {
        out.push_str(&rest[..i]);
        let after = &rest[i + SRCTREE.len()..];
        let Some(end) = after.find('"') else { break };
        let target = &after[..end];
        let (path, fragment) = match target.split_once('#') {
            Some((path, fragment)) => (path, Some(fragment)),
            None => (target, None),
        };
        let dir = is_dir(path);
        let href = match links {
            SrctreeLinks::SourceView => {
                targets.insert(if dir {
                    format!("{}/", path.trim_end_matches('/'))
                } else {
                    path.to_owned()
                });
                format!("{}{}", "../".repeat(depth), source_view_page(path, dir))
            }
            SrctreeLinks::BaseUrl(base) => format!("{}/{path}", base.trim_end_matches('/')),
        };
        out.push_str("href=\"");
        out.push_str(&href);
        if let Some(fragment) = fragment {
            out.push('#');
            out.push_str(fragment);
        }
        out.push('"');
        rest = &after[end + 1..];
        changed = true;
    }
    out.push_str(rest);
    let mut html = out;
    for (prefix, suffix) in [("rust-logo-", ".svg"), ("favicon-", ".svg")] {
        if let Some(replaced) = replace_hashed(&html, prefix, suffix, "logo.svg") {
            html = replaced;
            changed = true;
        }
    }
    // The PNG favicons would still show Rust's logo in some browsers.
    if let Some(replaced) = remove_tags(&html, "<link rel=\"alternate icon\" type=\"image/png\"") {
        html = replaced;
        changed = true;
    }
    changed.then_some(html)
}

/// The top folders of the Rust project's documentation that `core`'s pages link to relatively,
/// as if the site were doc.rust-lang.org (`../../book/…`, `../../alloc/…`).
pub const RUST_DOC_ROOTS: &[&str] = &[
    "alloc",
    "book",
    "cargo",
    "core",
    "edition-guide",
    "embedded-book",
    "error_codes",
    "nomicon",
    "proc_macro",
    "reference",
    "rust-by-example",
    "rustc",
    "rustdoc",
    "std",
    "style-guide",
    "test",
    "unstable-book",
];

/// Where links into the Rust project's documentation go when the site does not have it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UpstreamDocs {
    /// `https://doc.rust-lang.org/1.95.0/`.
    pub base: String,
    /// The crates the site documents itself (never sent upstream).
    pub local: Vec<String>,
}

/// Points relative links of a page in folder `page_dir` (relative to the site's root) that lead
/// into the Rust project's documentation, which the site does not have, at `upstream`.
pub fn rewrite_upstream_links(
    html: &str,
    page_dir: &str,
    upstream: &UpstreamDocs,
) -> Option<String> {
    map_hrefs(html, |link| {
        let path = (!link.contains(':') && !link.starts_with(['/', '#']))
            .then(|| resolve_relative(page_dir, link))
            .flatten()
            .filter(|path| {
                let top = path.split('/').next().unwrap_or("");
                RUST_DOC_ROOTS.contains(&top) && !upstream.local.iter().any(|l| l == top)
            })?;
        Some(format!("{}/{path}", upstream.base.trim_end_matches('/')))
    })
}

/// `html` with each `href="..."` value that `map` gives a replacement for replaced; `None`
/// when it replaced none.
fn map_hrefs(html: &str, map: impl Fn(&str) -> Option<String>) -> Option<String> {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    let mut changed = false;
    while let Some(i) = rest.find("href=\"") {
        let after = &rest[i + 6..];
        let Some(end) = after.find('"') else { break };
        let link = &after[..end];
        out.push_str(&rest[..i + 6]);
        match map(link) {
            Some(new) => {
                out.push_str(&new);
                changed = true;
            }
            None => out.push_str(link),
        }
        rest = &after[end..];
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// `dir` joined with the relative `link` (fragment and query kept), normalised; `None` when it
/// climbs above the root.
pub fn resolve_relative(dir: &str, link: &str) -> Option<String> {
    let split = link.find(['#', '?']).unwrap_or(link.len());
    let (path, suffix) = link.split_at(split);
    Some(format!("{}{suffix}", resolve_path(dir, path)?))
}

/// `dir` joined with the relative `path`, normalised; `None` when it climbs above the root.
pub fn resolve_path(dir: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// The primitive types whose methods rustdoc's source pages (`--generate-link-to-definition`)
/// link as `foreigntype.<name>.html`, a page that rustdoc never writes; where the methods are.
const FOREIGN_TYPE_PAGES: &[(&str, &str)] = &[
    ("mut_ptr", "primitive.pointer.html"),
    ("const_ptr", "primitive.pointer.html"),
    ("slice", "primitive.slice.html"),
    ("str", "primitive.str.html"),
    ("array", "primitive.array.html"),
    ("char", "primitive.char.html"),
    ("bool", "primitive.bool.html"),
];

/// Mends rustdoc's source-page links to `foreigntype.<name>.html` (methods of primitive types
/// such as `<*mut T>::cast`): to the primitive's page in the crate's root folder where that is
/// known, else the link is removed and its text kept (`foreigntype.num.html` does not say
/// which integer type), and added to `unlinked`.
pub fn mend_foreign_type_links(html: &str, unlinked: &mut Vec<String>) -> Option<String> {
    if !html.contains("foreigntype.") {
        return None;
    }
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(i) = rest.find("<a href=\"") {
        let after = &rest[i + 9..];
        let Some(end) = after.find('"') else { break };
        let link = &after[..end];
        let (path, fragment) = link.split_at(link.find('#').unwrap_or(link.len()));
        let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
        let Some(name) = file.strip_prefix("foreigntype.").and_then(|f| f.strip_suffix(".html"))
        else {
            out.push_str(&rest[..i + 9]);
            rest = after;
            continue;
        };
        out.push_str(&rest[..i]);
        // `core/ptr/foreigntype.mut_ptr.html` → `core/primitive.pointer.html`.
        let root = dir.strip_suffix("/ptr").unwrap_or(dir);
        match FOREIGN_TYPE_PAGES.iter().find(|(n, _)| *n == name) {
            Some((_, page)) => {
                let sep = if root.is_empty() { "" } else { "/" };
                out.push_str(&format!("<a href=\"{root}{sep}{page}{fragment}\""));
                rest = &after[end + 1..];
            }
            None => {
                // Drop `<a ...>` and its `</a>`, keep the text between.
                unlinked.push(decode_entities(link));
                let Some(close) = after.find('>') else { break };
                let inner = &after[close + 1..];
                let text_end = inner.find("</a>").unwrap_or(inner.len());
                out.push_str(&inner[..text_end]);
                rest = inner.get(text_end + 4..).unwrap_or("");
            }
        }
    }
    out.push_str(rest);
    Some(out)
}

/// Mends the links rustdoc's source pages (`--generate-link-to-definition`) write to an enum's
/// variant as if it had a page of its own, `core/option/Option/variant.Some.html`: rustdoc
/// documents a variant on its enum's page, `core/option/enum.Option.html#variant.Some`. Seen
/// in the source of host crates (`syn`), where `core` comes through `std`.
pub fn mend_variant_links(html: &str) -> Option<String> {
    if !html.contains("/variant.") {
        return None;
    }
    map_hrefs(html, variant_page_link)
}

/// `dir/Enum/variant.V.html[#x]` as `dir/enum.Enum.html#variant.V`.
fn variant_page_link(link: &str) -> Option<String> {
    if link.contains(':') {
        return None;
    }
    let path = link.split(['#', '?']).next().unwrap_or(link);
    let (parent, file) = path.rsplit_once('/')?;
    let variant = file.strip_prefix("variant.")?.strip_suffix(".html")?;
    let (dir, name) = parent.rsplit_once('/').unwrap_or(("", parent));
    let is_ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !is_ident(name) || !is_ident(variant) {
        return None;
    }
    let sep = if dir.is_empty() { "" } else { "/" };
    Some(format!("{dir}{sep}enum.{name}.html#variant.{variant}"))
}

/// Replaces `static.files/<prefix><hex><suffix>` with `static.files/<with>`.
fn replace_hashed(html: &str, prefix: &str, suffix: &str, with: &str) -> Option<String> {
    let needle = format!("static.files/{prefix}");
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    let mut changed = false;
    while let Some(i) = rest.find(&needle) {
        let after = &rest[i + needle.len()..];
        let hex = after.bytes().take_while(u8::is_ascii_hexdigit).count();
        out.push_str(&rest[..i]);
        if hex > 0 && after[hex..].starts_with(suffix) {
            out.push_str("static.files/");
            out.push_str(with);
            rest = &after[hex + suffix.len()..];
            changed = true;
        } else {
            out.push_str(&needle);
            rest = after;
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// Removes every tag that starts with `start`, up to its `>`.
fn remove_tags(html: &str, start: &str) -> Option<String> {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    let mut changed = false;
    while let Some(i) = rest.find(start) {
        out.push_str(&rest[..i]);
        let Some(end) = rest[i..].find('>') else { break };
        rest = &rest[i + end + 1..];
        changed = true;
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// The script every page loads from its site's root for the version switcher: in a site of
/// its own, [`VERSIONS_SCRIPT_ALONE`], which does nothing; in a combined site (`docs-site
/// versions`), where each version's site is a folder, the switcher of that version.
pub const VERSIONS_SCRIPT: &str = "versions.js";

/// [`VERSIONS_SCRIPT`] of a site on its own: nothing to switch to.
pub const VERSIONS_SCRIPT_ALONE: &str =
    "// The version switcher: this site is not part of a combined site (docs-site versions).\n";

/// The tag that loads [`VERSIONS_SCRIPT`] from the site's root, for a page `depth` folders
/// below it, put before `</head>`; `None` when the page has no `</head>` or has the tag.
pub fn add_versions_tag(html: &str, depth: usize) -> Option<String> {
    let tag = versions_tag(depth);
    if html.contains(&tag) {
        return None;
    }
    let head = html.find("</head>")?;
    Some(format!("{}{tag}{}", &html[..head], &html[head..]))
}

/// `<script defer src="../../versions.js"></script>` for a page `depth` folders down.
pub fn versions_tag(depth: usize) -> String {
    format!("<script defer src=\"{}{VERSIONS_SCRIPT}\"></script>", "../".repeat(depth))
}

/// What [`rewrite_tree`] found in a crate's pages.
#[derive(Clone, Debug, Default)]
pub struct Rewritten {
    /// The srctree paths its links name.
    pub srctree_targets: BTreeSet<String>,
    /// The links it could not mend and turned into text: (page relative to the crate's
    /// output folder, link as written).
    pub unlinked: Vec<(String, String)>,
}

/// Rewrites every page under `root` (a crate's rustdoc output) with [`mend_foreign_type_links`],
/// [`mend_variant_links`], [`rewrite_page`], [`rewrite_upstream_links`] and
/// [`add_versions_tag`], and writes [`VERSIONS_SCRIPT_ALONE`] as `root`'s [`VERSIONS_SCRIPT`].
pub fn rewrite_tree(
    root: &Path,
    srctree: &Path,
    links: &SrctreeLinks,
    upstream: &UpstreamDocs,
) -> std::io::Result<Rewritten> {
    let mut found = Rewritten::default();
    let targets = &mut found.srctree_targets;
    let is_dir = |path: &str| srctree.join(path).is_dir();
    for (page, depth) in html_files(root)? {
        let original = std::fs::read_to_string(&page)?;
        let mut text = std::borrow::Cow::Borrowed(original.as_str());
        let mut unlinked = Vec::new();
        if let Some(new) = mend_foreign_type_links(&text, &mut unlinked) {
            text = new.into();
        }
        if !unlinked.is_empty() {
            let rel = page.strip_prefix(root).unwrap_or(&page).to_string_lossy().into_owned();
            found.unlinked.extend(unlinked.into_iter().map(|link| (rel.clone(), link)));
        }
        // Before the links into the Rust project's documentation are sent upstream.
        if let Some(new) = mend_variant_links(&text) {
            text = new.into();
        }
        if let Some(new) = rewrite_page(&text, depth, links, &is_dir, targets) {
            text = new.into();
        }
        let dir = page.parent().and_then(|d| d.strip_prefix(root).ok()).unwrap_or(Path::new(""));
        if let Some(new) = rewrite_upstream_links(&text, &dir.to_string_lossy(), upstream) {
            text = new.into();
        }
        if let Some(new) = add_versions_tag(&text, depth) {
            text = new.into();
        }
        if text != original {
            std::fs::write(&page, text.as_bytes())?;
        }
    }
    std::fs::write(root.join(VERSIONS_SCRIPT), VERSIONS_SCRIPT_ALONE)?;
    Ok(found)
}

/// Every `.html` file under `root`, with how many folders below `root` it is.
pub fn html_files(root: &Path) -> std::io::Result<Vec<(std::path::PathBuf, usize)>> {
    let mut files = Vec::new();
    let mut stack = vec![(root.to_owned(), 0)];
    while let Some((dir, depth)) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            if kind.is_dir() {
                stack.push((entry.path(), depth + 1));
            } else if entry.file_name().to_string_lossy().ends_with(".html") {
                files.push((entry.path(), depth));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The links (`href` of `a`/`link`/`area`, `src` of `img`/`script`/`iframe`) and the anchors
/// (`id` and `name` attributes) of a page, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PageLinks {
    /// Link targets, entity-decoded, as written.
    pub links: Vec<String>,
    /// Anchor names.
    pub ids: Vec<String>,
    /// Where a redirect page (`<meta http-equiv="refresh" content="0;URL=...">`, which rustdoc
    /// writes for re-exports, with a script that keeps the `#anchor`) sends the browser.
    pub redirect: Option<String>,
}

/// Scans a page's tags with `lol_html` (not the text inside `<script>` and `<style>`, nor
/// comments).
pub fn scan_page(html: &str) -> PageLinks {
    use lol_html::{HtmlRewriter, Settings, element, text};
    let page = std::cell::RefCell::new(PageLinks::default());
    let noscript = std::cell::RefCell::new(String::new());
    let handler = element!("*", |el| {
        let mut page = page.borrow_mut();
        let name = el.tag_name();
        for attr in el.attributes() {
            let attr_name = attr.name();
            match (name.as_str(), attr_name.as_str()) {
                ("a" | "link" | "area", "href") | ("img" | "script" | "iframe", "src") => {
                    page.links.push(decode_entities(&attr.value()));
                }
                (_, "id") | ("a", "name") => page.ids.push(decode_entities(&attr.value())),
                _ => {}
            }
        }
        if name == "meta"
            && el
                .get_attribute("http-equiv")
                .is_some_and(|v| decode_entities(&v).eq_ignore_ascii_case("refresh"))
            && let Some(content) = el.get_attribute("content").map(|c| decode_entities(&c))
            && let Some((_, url)) =
                content.split_once("URL=").or_else(|| content.split_once("url="))
        {
            page.redirect = Some(url.trim().to_owned());
        }
        Ok(())
    });
    // lol_html parses as a browser with scripts does: a `<noscript>`'s inside is text (rustdoc
    // writes `<noscript><link rel="stylesheet" href="…noscript-….css"></noscript>`). Its tags
    // are scanned on their own, in place.
    let noscript_handler = text!("noscript", |chunk| {
        let mut inside = noscript.borrow_mut();
        inside.push_str(chunk.as_str());
        if chunk.last_in_text_node() {
            let found = scan_page(&inside);
            inside.clear();
            let mut page = page.borrow_mut();
            page.links.extend(found.links);
            page.ids.extend(found.ids);
            if found.redirect.is_some() {
                page.redirect = found.redirect;
            }
        }
        Ok(())
    });
    let mut rewriter = HtmlRewriter::new(
        Settings {
            element_content_handlers: vec![handler, noscript_handler],
            // Not strict: a parsing ambiguity (`<select><xmp>`) must not end the scan.
            strict: false,
            ..Settings::new()
        },
        |_: &[u8]| {},
    );
    // Neither fails: the handlers never do, nothing is strict, and no memory limit is set.
    let _ = rewriter.write(html.as_bytes());
    let _ = rewriter.end();
    page.into_inner()
}

/// The offset of the `>` that ends the tag starting at `tag[0] == '<'`, outside quotes.
pub(crate) fn tag_end(tag: &str) -> Option<usize> {
    let mut quote = None;
    for (i, c) in tag.char_indices() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, '>') => return Some(i),
            _ => {}
        }
    }
    None
}

/// The attributes of a tag's inside (after its name), lowercased names, decoded values.
pub(crate) fn attributes(mut s: &str) -> Vec<(String, String)> {
    let mut attrs = Vec::new();
    loop {
        s = s.trim_start_matches(|c: char| c.is_whitespace() || c == '/');
        if s.is_empty() {
            return attrs;
        }
        let name_len =
            s.find(|c: char| c.is_whitespace() || c == '=' || c == '/').unwrap_or(s.len());
        let name = s[..name_len].to_ascii_lowercase();
        s = s[name_len..].trim_start();
        if let Some(rest) = s.strip_prefix('=') {
            let rest = rest.trim_start();
            let (value, after) = match rest.chars().next() {
                Some(q @ ('"' | '\'')) => match rest[1..].find(q) {
                    Some(end) => (&rest[1..1 + end], &rest[end + 2..]),
                    None => (&rest[1..], ""),
                },
                _ => {
                    let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
                    (&rest[..end], &rest[end..])
                }
            };
            attrs.push((name, decode_entities(value)));
            s = after;
        } else if name_len == 0 {
            // A stray character: skip it.
            s = &s[s.chars().next().map_or(0, char::len_utf8)..];
        } else {
            attrs.push((name, String::new()));
        }
    }
}

/// Decodes the character references in an attribute's value (`html-escape`).
pub fn decode_entities(s: &str) -> String {
    html_escape::decode_html_entities(s).into_owned()
}

/// The style of our own pages (landing page, source view, doctest results).
pub const CSS: &str = "body{font-family:sans-serif;max-width:70em;margin:1em auto;padding:0 1em;color:#222}\
header{display:flex;align-items:center;gap:1em}\
table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:.3em .8em;text-align:left;vertical-align:top}\
dl.meta{display:grid;grid-template-columns:max-content auto;gap:.2em 1em}dl.meta dt{font-weight:bold}\
.warning,.fail{color:#a00}.pass{color:#070}.missing pre{white-space:pre-wrap;max-width:50em}\
form.search input{width:30em;padding:.3em}\
pre.source{line-height:1.4;font-size:.9em}pre.source a.ln{color:#999;display:inline-block;width:4em;\
text-align:right;padding-right:1em;text-decoration:none;user-select:none}\
pre.source span:target{background:#ffa}";

#[cfg(test)]
mod tests;
