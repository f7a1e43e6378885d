//! The C side of the `bindings` and `uapi` crates: each item's page links to where C declares it
//! in the site's source view (from the DWARF of the build, or from bindgen's headers for a
//! `#define`), shows the kernel-doc comment there, and for a struct or union layout-check's
//! verdict; and a page per C header lists the Rust items that name its bindings.
//!
//! [`annotate_page`], [`kernel_doc_before`], [`defines`], [`wrappers`] and the page renderers are
//! pure; [`annotate`] writes the binding pages, [`link_to_c`] the rest once the site is there.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::html::{self, CSS, source_view_page};
use crate::site::{SiteError, write_page};

/// The version of what [`annotate`] and [`link_to_c`] write: a site made by another is made
/// again.
pub const VERSION: &str = "cdefs 4";

/// The verdict of a struct no Rust code of the build uses: rustc laid it out nowhere, so
/// layout-check has nothing to compare.
pub const NOT_CHECKED: &str =
    "not checked: no Rust code of this build uses it, so no DWARF holds its Rust layout";

/// The folder of the per-header pages, under the site's root.
pub const FOLDER: &str = "c";

/// What the site says of one binding's C side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CItem {
    /// The header or C file, relative to the srctree (`include/linux/sched.h`).
    pub file: String,
    /// The line of the declaration.
    pub line: u64,
    /// The kernel-doc comment right above it, without its `/**`, `*/` and leading `*`.
    pub kernel_doc: Option<String>,
    /// layout-check's verdict, for a struct or union.
    pub layout: Option<String>,
}

/// The names a header declares that the DWARF of a build may lack, with their lines: its
/// `#define`s and its enumerators (a constant nothing compiled uses), and the tags of the
/// structs and unions it defines (`struct NAME {`), each with `struct`/`union` before it.
pub fn defines(text: &str) -> Vec<(String, u64)> {
    let mut found = Vec::new();
    let mut in_enum = false;
    for (i, line) in text.lines().enumerate() {
        let n = i as u64 + 1;
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix('#') {
            let Some(rest) = rest.trim_start().strip_prefix("define") else { continue };
            if !rest.starts_with([' ', '\t']) {
                continue;
            }
            let name = ident_prefix(rest.trim_start());
            if !name.is_empty() {
                found.push((name.to_owned(), n));
            }
            continue;
        }
        for tag in ["struct ", "union "] {
            if let Some(rest) = trimmed
                .strip_prefix(tag)
                .or_else(|| trimmed.strip_prefix("typedef ").and_then(|t| t.strip_prefix(tag)))
            {
                let name = ident_prefix(rest);
                if !name.is_empty() && rest[name.len()..].trim_start().starts_with('{') {
                    found.push((format!("{}{name}", tag), n));
                }
            }
        }
        if trimmed.starts_with("enum") && line.contains('{') && !line.contains('}') {
            in_enum = true;
            continue;
        }
        if in_enum {
            if trimmed.starts_with('}') {
                in_enum = false;
                continue;
            }
            let name = ident_prefix(trimmed);
            let after = trimmed[name.len()..].trim_start();
            if !name.is_empty() && (after.is_empty() || after.starts_with(['=', ',', '/'])) {
                found.push((name.to_owned(), n));
            }
        }
    }
    found
}

fn ident_prefix(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

/// The kernel-doc comment (`/** ... */`) that ends on the line right above `line` (1-based) of
/// `text`, its lines without the leading `*`.
pub fn kernel_doc_before(text: &str, line: u64) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let end = usize::try_from(line).ok()?.checked_sub(2)?;
    if !lines.get(end)?.trim_end().ends_with("*/") {
        return None;
    }
    let start = (0..=end).rev().take(200).find(|&i| lines[i].trim_start().starts_with("/*"))?;
    if !lines[start].trim_start().starts_with("/**") {
        return None;
    }
    let mut doc = Vec::new();
    for (i, l) in lines[start..=end].iter().enumerate() {
        let mut l = l.trim();
        if i == 0 {
            l = l.trim_start_matches("/**").trim_start();
        }
        if i == end - start {
            l = l.trim_end_matches("*/").trim_end();
        }
        let l = l.strip_prefix('*').map_or(l, |r| r.strip_prefix(' ').unwrap_or(r));
        doc.push(l.to_owned());
    }
    while doc.first().is_some_and(String::is_empty) {
        doc.remove(0);
    }
    while doc.last().is_some_and(String::is_empty) {
        doc.pop();
    }
    (!doc.is_empty()).then(|| doc.join("\n"))
}

/// The name and kind of a rustdoc item page (`struct.task_struct.html`).
pub fn page_item(file_name: &str) -> Option<(&str, &str)> {
    let stem = file_name.strip_suffix(".html")?;
    let (kind, name) = stem.split_once('.')?;
    matches!(kind, "struct" | "union" | "fn" | "constant" | "type" | "static" | "enum")
        .then_some((kind, name))
}

/// Adds the C side to a binding's page, `depth` folders below the site's root, after its
/// heading. `None` when the page has no heading to put it after, or has it already.
pub fn annotate_page(page: &str, item: &CItem, depth: usize) -> Option<String> {
    if page.contains("class=\"c-definition\"") {
        return None;
    }
    let heading = page.find("<div class=\"main-heading\"")?;
    let h1_end = heading + page[heading..].find("</h1>")?;
    let at = h1_end + page[h1_end..].find("</div>")? + "</div>".len();
    let href =
        format!("{}{}#L{}", "../".repeat(depth), source_view_page(&item.file, false), item.line);
    let mut block = format!(
        "<div class=\"c-definition\"><p>C: <a class=\"c-decl\" href=\"{}\"><code>{}:{}</code></a>",
        escape(&href),
        escape(&item.file),
        item.line
    );
    if let Some(layout) = &item.layout {
        let _ = write!(block, " · layout: {}", escape(layout));
    }
    block.push_str("</p>");
    if let Some(doc) = &item.kernel_doc {
        let _ = write!(block, "<pre class=\"kernel-doc\">{}</pre>", escape(doc));
    }
    block.push_str("</div>");
    let mut out = String::with_capacity(page.len() + block.len());
    out.push_str(&page[..at]);
    out.push_str(&block);
    out.push_str(&page[at..]);
    Some(out)
}

/// Links each mention of a C struct or union in a page's prose, `<code>struct task_struct</code>`
/// as the kernel's documentation writes it, to the page of its binding (`bindings/struct.*.html`
/// or `union.*`), for a page `depth` folders below the site's root; `has_page` says whether the
/// binding has one. Mentions already in a link are left alone. `None` when nothing changed.
pub fn link_c_mentions(
    page: &str,
    depth: usize,
    has_page: &dyn Fn(&str, &str) -> bool,
) -> Option<String> {
    const OPEN: &str = "<code>";
    let mut out = String::with_capacity(page.len());
    let mut rest = page;
    let mut changed = false;
    while let Some(i) = rest.find(OPEN) {
        let (before, at) = rest.split_at(i);
        out.push_str(before);
        let inner_start = OPEN.len();
        let Some(len) = at[inner_start..].find("</code>") else { break };
        let inner = &at[inner_start..inner_start + len];
        let whole = &at[..inner_start + len + "</code>".len()];
        let in_link = out.rfind("<a ").is_some_and(|a| out[a..].find("</a>").is_none());
        let target = inner.split_once(' ').filter(|(kind, name)| {
            matches!(*kind, "struct" | "union") && is_ident(name) && has_page(kind, name)
        });
        match target {
            Some((kind, name)) if !in_link => {
                let _ = write!(
                    out,
                    "<a class=\"c-mention\" href=\"{}bindings/{kind}.{name}.html\">{whole}</a>",
                    "../".repeat(depth)
                );
                changed = true;
            }
            _ => out.push_str(whole),
        }
        rest = &at[whole.len()..];
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// An item of Rust code that names a binding (`bindings::task_struct`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Wrapper {
    /// The item's path inside its file: `Task`, or `Task::pid` for a function of an `impl`.
    pub item: String,
    /// `struct`, `enum`, `union`, `trait`, `type`, `fn` or `const`.
    pub kind: &'static str,
    /// Whether it is `pub` (and so may have a page).
    pub public: bool,
    /// The binding's name.
    pub binding: String,
}

/// The items of a Rust file that name a binding, innermost first: a struct whose fields name
/// `bindings::task_struct` wraps it; a function that names `bindings::wake_up_process` calls
/// it. Comments and literals are skipped; an `impl` names its functions after its type.
pub fn wrappers(text: &str) -> Vec<Wrapper> {
    let tokens = tokens(text);
    let mut found = BTreeSet::new();
    // Open items: (path, kind, public, brace depth inside them).
    let mut open: Vec<(String, &'static str, bool, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut pending: Option<(String, &'static str, bool)> = None;
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i];
        match t {
            "{" => {
                depth += 1;
                if let Some((item, kind, public)) = pending.take() {
                    open.push((item, kind, public, depth));
                }
            }
            "}" => {
                if open.last().is_some_and(|o| o.3 == depth) {
                    open.pop();
                }
                depth = depth.saturating_sub(1);
            }
            // `struct A(B);`, `const N: u32 = ...;`: the item ends here, after what it named.
            ";" => pending = None,
            "struct" | "enum" | "union" | "trait" | "fn" | "type" | "const" | "impl"
                if at_item_start(&tokens, i) =>
            {
                let public = is_public(&tokens, i);
                let kind = match t {
                    "struct" => "struct",
                    "enum" => "enum",
                    "union" => "union",
                    "trait" => "trait",
                    "fn" => "fn",
                    "type" => "type",
                    "const" => "const",
                    _ => "impl",
                };
                let name = if kind == "impl" {
                    impl_type(&tokens[i + 1..])
                } else {
                    tokens.get(i + 1).copied()
                };
                if let Some(name) = name.filter(|n| is_ident(n) && !QUALIFIERS.contains(n)) {
                    let parent = open.iter().rev().find(|o| o.1 == "impl" || o.1 == "trait");
                    let path = match (parent, kind) {
                        (Some(p), "fn" | "const" | "type") => format!("{}::{name}", p.0),
                        _ => name.to_owned(),
                    };
                    pending = Some((path, kind, public));
                }
            }
            "bindings" if tokens.get(i + 1) == Some(&"::") => {
                if let Some(name) = tokens.get(i + 2).filter(|n| is_ident(n)) {
                    let owner = pending
                        .as_ref()
                        .map(|(p, k, public)| (p.clone(), *k, *public))
                        .or_else(|| {
                            open.iter()
                                .rev()
                                .find(|o| o.1 != "impl")
                                .map(|o| (o.0.clone(), o.1, o.2))
                        });
                    if let Some((item, kind, public)) = owner.filter(|o| o.1 != "impl") {
                        found.insert(Wrapper { item, kind, public, binding: (*name).to_owned() });
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    found.into_iter().collect()
}

/// The words that may come between `pub` and an item's keyword.
const QUALIFIERS: &[&str] = &["unsafe", "const", "async", "extern", "default", "fn"];

/// Whether the keyword at `i` starts an item (not `*const T`, `-> impl Trait` or `x: impl F`):
/// what comes before it ends an item or an attribute, or qualifies it.
fn at_item_start(tokens: &[&str], i: usize) -> bool {
    let Some(prev) = i.checked_sub(1).map(|j| tokens[j]) else { return true };
    matches!(prev, "{" | "}" | ";" | "]" | "pub" | ")") || QUALIFIERS.contains(&prev)
}

/// Whether the item whose keyword is at `i` is `pub` (not `pub(crate)`).
fn is_public(tokens: &[&str], i: usize) -> bool {
    let mut j = i;
    while j > 0 && QUALIFIERS.contains(&tokens[j - 1]) {
        j -= 1;
    }
    j > 0 && tokens[j - 1] == "pub"
}

/// The type an `impl` is for: `impl<T> Foo<T>` and `impl Bar for Foo` give `Foo`.
fn impl_type<'a>(rest: &[&'a str]) -> Option<&'a str> {
    let mut angle = 0i32;
    let mut last = None;
    for &t in rest {
        match t {
            "<" => angle += 1,
            ">" => angle -= 1,
            "{" | "where" => break,
            "for" if angle == 0 => last = None,
            _ if angle == 0 && is_ident(t) && t != "unsafe" && t != "dyn" && last.is_none() => {
                last = Some(t);
            }
            _ => {}
        }
    }
    last
}

fn is_ident(t: &str) -> bool {
    t.chars().next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Rust tokens, enough for [`wrappers`]: identifiers, `::` and single punctuation; comments,
/// strings, chars and lifetimes left out.
fn tokens(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if text[i..].starts_with("//") {
            i += text[i..].find('\n').unwrap_or(text.len() - i);
        } else if text[i..].starts_with("/*") {
            i += text[i..].find("*/").map_or(text.len() - i, |e| e + 2);
        } else if c == b'"' || (c == b'r' && matches!(bytes.get(i + 1), Some(b'"' | b'#'))) {
            i = skip_string(text, i);
        } else if c == b'\'' {
            // A char literal ('a', '\n') or a lifetime ('a).
            let rest = &text[i + 1..];
            i += match rest.find('\'') {
                Some(e) if e <= 4 && !rest[..e].contains(char::is_whitespace) => e + 2,
                _ => {
                    1 + rest
                        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .unwrap_or(rest.len())
                }
            };
        } else if c.is_ascii_alphanumeric() || c == b'_' {
            let end = text[i..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(text.len(), |e| i + e);
            out.push(&text[i..end]);
            i = end;
        } else if text[i..].starts_with("::") {
            out.push("::");
            i += 2;
        } else {
            let len = text[i..].chars().next().map_or(1, char::len_utf8);
            out.push(&text[i..i + len]);
            i += len;
        }
    }
    out
}

/// The index after the string literal that starts at `i` (`"..."`, `r"..."`, `r#"..."#`).
fn skip_string(text: &str, i: usize) -> usize {
    let bytes = text.as_bytes();
    if bytes[i] == b'r' {
        let hashes = text[i + 1..].bytes().take_while(|&b| b == b'#').count();
        let close = format!("\"{}", "#".repeat(hashes));
        let body = i + 1 + hashes + 1;
        return text
            .get(body..)
            .and_then(|r| r.find(&close))
            .map_or(text.len(), |e| body + e + close.len());
    }
    let mut j = i + 1;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' => j += 2,
            b'"' => return j + 1,
            _ => j += 1,
        }
    }
    text.len()
}

fn escape(s: &str) -> String {
    html_escape::encode_text_minimal(s).replace('"', "&quot;")
}

/// One Rust item for a header's page: its path, and its page in the site if it has one.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RustUse {
    /// `kernel::task::Task`, `kernel::task::Task::pid`.
    pub path: String,
    /// Its page, relative to the site's root (`kernel/task/struct.Task.html#method.pid`).
    pub page: Option<String>,
    /// The bindings it names from this header.
    pub bindings: BTreeSet<String>,
}

/// The page of a header: the Rust items that name its bindings.
pub fn header_page(header: &str, uses: &[RustUse]) -> String {
    let depth = header.matches('/').count() + 1;
    let root = "../".repeat(depth);
    let mut list = String::new();
    for u in uses {
        let name = match &u.page {
            Some(page) => {
                format!("<a href=\"{root}{}\"><code>{}</code></a>", escape(page), escape(&u.path))
            }
            None => format!("<code>{}</code>", escape(&u.path)),
        };
        let bindings: Vec<String> =
            u.bindings.iter().map(|b| format!("<code>{}</code>", escape(b))).collect();
        let _ = writeln!(list, "<li>{name}: {}</li>", bindings.join(", "));
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{h} - Rust users</title>\
         <link rel=\"icon\" href=\"{root}static.files/logo.svg\"><style>{CSS}</style>{v}</head>\
         <body><p><a href=\"{root}index.html\">Rust in Linux</a> / <a href=\"{root}{FOLDER}/index.html\">C headers</a> / \
         <a href=\"{root}{src}\"><code>{h}</code></a></p>\
         <h1>Rust code that uses <code>{h}</code></h1>\
         <p>{n} Rust items name the bindings of what this header declares.</p><ul class=\"rust-users\">{list}</ul></body></html>\n",
        h = escape(header),
        src = escape(&source_view_page(header, false)),
        n = uses.len(),
        v = html::versions_tag(depth),
    )
}

/// The index of the header pages, with how many Rust items use each.
pub fn index_page(headers: &BTreeMap<String, usize>) -> String {
    let mut list = String::new();
    for (header, n) in headers {
        let _ = writeln!(
            list,
            "<li><a href=\"{}.html\"><code>{}</code></a>: {n}</li>",
            escape(header),
            escape(header)
        );
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>C headers Rust uses</title>\
         <link rel=\"icon\" href=\"../static.files/logo.svg\"><style>{CSS}</style>{v}</head>\
         <body><p><a href=\"../index.html\">Rust in Linux</a> / C headers</p>\
         <h1>C headers Rust uses</h1><p>For each header, the Rust items whose code names the bindings of what it declares.</p>\
         <ul>{list}</ul></body></html>\n",
        v = html::versions_tag(1),
    )
}

/// What [`annotate`] and [`link_to_c`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Applied {
    /// Binding pages given a C location.
    pub located: usize,
    /// Of them, with a kernel-doc comment.
    pub with_kernel_doc: usize,
    /// Of them, with layout-check's verdict.
    pub with_layout: usize,
    /// Binding pages in all.
    pub pages: usize,
    /// Header pages written.
    pub headers: usize,
    /// Pages of the other crates whose mentions of a C struct (`struct task_struct`) now link
    /// to its binding.
    #[serde(default)]
    pub mentions_linked: usize,
}

/// The C side of a built tree: where C declares each name, layout-check's verdicts, and the
/// `#define`s of bindgen's headers.
pub struct CSide {
    /// `file:line` by name, for functions, enums and enumerators, typedefs and variables.
    decls: BTreeMap<String, String>,
    /// Structs and unions: `file:line` and the layout verdict.
    records: BTreeMap<String, (String, String)>,
    /// `#define`d names: `file:line`.
    defines: BTreeMap<String, String>,
}

/// Why the C side could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CSideError {
    /// layout-check could not read vmlinux.
    #[error(transparent)]
    Images(#[from] layout_check::ImagesError),
}

/// Reads the C side of the tree built in `objtree` from `srctree`: `vmlinux`'s DWARF through
/// layout-check, and the headers bindgen read (the dependencies kbuild saved for
/// `rust/bindings/bindings_generated.rs` and `rust/uapi/uapi_generated.rs`).
pub fn read(srctree: &Path, objtree: &Path) -> Result<CSide, CSideError> {
    let mut read = layout_check::read_images(&[objtree.join("vmlinux")], true)?;
    layout_check::shorten_decls(&mut read.defs, &mut read.decls, srctree);
    let report = layout_check::compare(&read.defs);
    let mut records = BTreeMap::new();
    for ((krate, name), rust) in &read.defs.rust {
        let Some(c) = read.defs.c.get(name).and_then(|defs| defs.first()) else { continue };
        let Some(decl) = c.decl.clone() else { continue };
        let verdict = match report.mismatches.iter().find(|m| &m.krate == krate && &m.name == name)
        {
            Some(m) => format!(
                "Rust's differs from C's: C {} bytes aligned {}, Rust {} aligned {}; first member moved: {}; {}",
                m.c.size,
                m.c.align.bytes,
                m.rust.size,
                m.rust.align.bytes,
                layout_check::text::moved_cell(m),
                m.cause
            ),
            None => format!(
                "matches what the C compiler built ({} bytes, aligned {})",
                rust.size, rust.align.bytes
            ),
        };
        records.insert(name.clone(), (decl, verdict));
    }
    let mut defines = BTreeMap::new();
    for generated in ["rust/bindings/bindings_generated.rs", "rust/uapi/uapi_generated.rs"] {
        let Some(cmd) = kbuild::scan::saved_cmd_of(&objtree.join(generated)) else { continue };
        let Ok(text) = std::fs::read_to_string(&cmd) else { continue };
        for header in dependencies(&text) {
            let path = if header.starts_with('/') {
                PathBuf::from(&header)
            } else {
                objtree.join(&header)
            };
            let Ok(rel) = path.strip_prefix(srctree) else { continue };
            let Ok(source) = std::fs::read_to_string(&path) else { continue };
            for (name, line) in self::defines(&source) {
                defines.entry(name).or_insert_with(|| format!("{}:{line}", rel.display()));
            }
        }
    }
    Ok(CSide { decls: read.decls, records, defines })
}

/// The files of a `.cmd` file's dependency list.
fn dependencies(cmd: &str) -> Vec<String> {
    let Some(start) = cmd.find("\ndeps_") else { return Vec::new() };
    cmd[start + 1..]
        .lines()
        .skip(1)
        .map_while(|l| {
            l.strip_suffix('\\').map(str::trim).or_else(|| Some(l.trim()).filter(|l| !l.is_empty()))
        })
        .filter(|l| !l.is_empty() && !l.starts_with("$("))
        .map(str::to_owned)
        .collect()
}

impl CSide {
    /// Where C declares the item of a page of kind `kind` (`struct`, `fn`, ...) named `name`.
    fn locate(&self, kind: &str, name: &str) -> Option<(String, Option<String>)> {
        match kind {
            "struct" | "union" => self
                .records
                .get(name)
                .map(|(decl, verdict)| (decl.clone(), Some(verdict.clone())))
                .or_else(|| {
                    self.defines
                        .get(&format!("{kind} {name}"))
                        .map(|d| (d.clone(), Some(NOT_CHECKED.to_owned())))
                }),
            "constant" => {
                self.decls.get(name).or_else(|| self.defines.get(name)).map(|d| (d.clone(), None))
            }
            _ => self.decls.get(name).map(|d| (d.clone(), None)),
        }
    }
}

/// The crates whose pages are bindings, given their C side by [`annotate`].
pub const BINDING_CRATES: [&str; 2] = ["bindings", "uapi"];

/// What [`annotate`] did, for [`link_to_c`].
#[derive(Debug, Default)]
pub struct Annotated {
    applied: Applied,
    /// The header of each `bindings` item given a C location.
    header_of: BTreeMap<String, String>,
}

/// Gives every page of the [`BINDING_CRATES`] its C side: reads each page under `docs` (a
/// crate's documentation, the folder that holds `bindings/`), and writes the annotated ones at
/// the same place under `site`, as new files (`docs` may be `site` itself, or a crate's work
/// folder whose pages are then linked into `site` around the annotated ones). The headers and
/// C files linked are added to `targets`, for the source view.
pub fn annotate(
    site: &Path,
    docs: &[(&str, PathBuf)],
    srctree: &Path,
    c: &CSide,
    targets: &mut BTreeSet<String>,
) -> Result<Annotated, SiteError> {
    let mut applied = Applied::default();
    let mut header_of: BTreeMap<String, String> = BTreeMap::new();
    let mut texts: BTreeMap<String, Option<String>> = BTreeMap::new();
    for (krate, docs) in docs.iter().filter(|(k, _)| BINDING_CRATES.contains(k)) {
        let from = docs.join(krate);
        let to = site.join(krate);
        let Ok(entries) = std::fs::read_dir(&from) else { continue };
        let mut names: Vec<String> =
            entries.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        std::fs::create_dir_all(&to).map_err(|source| SiteError::Io {
            what: "cannot create",
            path: to.clone(),
            source,
        })?;
        for file_name in names {
            let Some((kind, name)) = page_item(&file_name) else { continue };
            applied.pages += 1;
            let Some((decl, layout)) = c.locate(kind, name) else { continue };
            let Some((file, line)) = decl.rsplit_once(':') else { continue };
            let Ok(line) = line.parse::<u64>() else { continue };
            let Some(file) = normalize(file) else { continue };
            let file = file.as_str();
            if !srctree.join(file).is_file() {
                continue;
            }
            let text = texts
                .entry(file.to_owned())
                .or_insert_with(|| std::fs::read_to_string(srctree.join(file)).ok());
            let kernel_doc = text.as_deref().and_then(|t| kernel_doc_before(t, line));
            let item = CItem { file: file.to_owned(), line, kernel_doc, layout };
            let Ok(page) = std::fs::read_to_string(from.join(&file_name)) else { continue };
            let Some(new) = annotate_page(&page, &item, 1) else { continue };
            write_unlinked(&to.join(&file_name), &new)?;
            applied.located += 1;
            applied.with_kernel_doc += usize::from(item.kernel_doc.is_some());
            applied.with_layout +=
                usize::from(item.layout.as_deref().is_some_and(|l| l != NOT_CHECKED));
            targets.insert(item.file.clone());
            if *krate == "bindings" {
                header_of.insert(name.to_owned(), item.file);
            }
        }
    }
    Ok(Annotated { applied, header_of })
}

/// Once every crate of `site` is there, [`annotate`]'s pages among them: links the mentions of
/// C structs in the prose of the other crates' pages to their bindings, and writes a page per
/// header under [`FOLDER`] listing the Rust items that name its bindings (read from the sources
/// of the site's other crates, `crate_sources`: name and root file). The headers are added to
/// `targets`, for the source view.
pub fn link_to_c(
    site: &Path,
    annotated: Annotated,
    crate_sources: &[(String, PathBuf)],
    targets: &mut BTreeSet<String>,
) -> Result<Applied, SiteError> {
    let Annotated { mut applied, header_of } = annotated;
    // Mentions of C structs in the prose of the other crates' pages.
    let has_page =
        |kind: &str, name: &str| site.join(format!("bindings/{kind}.{name}.html")).is_file();
    for (krate, _) in crate_sources {
        let Ok(pages) = html::html_files(&site.join(krate)) else { continue };
        for (path, depth) in pages {
            let Ok(page) = std::fs::read_to_string(&path) else { continue };
            if !page.contains("<code>struct ") && !page.contains("<code>union ") {
                continue;
            }
            if let Some(new) = link_c_mentions(&page, depth + 1, &has_page) {
                write_unlinked(&path, &new)?;
                applied.mentions_linked += 1;
            }
        }
    }
    // The reverse index: which Rust items name the bindings of each header.
    let mut by_header: BTreeMap<String, BTreeMap<String, RustUse>> = BTreeMap::new();
    // The pages of the items' owners, read once each for their anchors.
    let mut owner_pages: BTreeMap<String, String> = BTreeMap::new();
    for (krate, root) in crate_sources {
        for file in rust_files(root) {
            let Ok(text) = std::fs::read_to_string(&file) else { continue };
            let module = module_path(krate, root, &file);
            for w in wrappers(&text) {
                let Some(header) = header_of.get(&w.binding) else { continue };
                let path = format!("{module}::{}", w.item);
                let page = item_page(site, &module, &w, &mut owner_pages);
                let entry = by_header
                    .entry(header.clone())
                    .or_default()
                    .entry(path.clone())
                    .or_insert_with(|| RustUse { path, page, bindings: BTreeSet::new() });
                entry.bindings.insert(w.binding.clone());
            }
        }
    }
    let mut counts = BTreeMap::new();
    for (header, uses) in &by_header {
        let uses: Vec<RustUse> = uses.values().cloned().collect();
        write_page(&site.join(format!("{FOLDER}/{header}.html")), &header_page(header, &uses))?;
        counts.insert(header.clone(), uses.len());
        targets.insert(header.clone());
    }
    write_page(&site.join(format!("{FOLDER}/index.html")), &index_page(&counts))?;
    applied.headers = counts.len();
    Ok(applied)
}

/// Writes `text` as a new file at `path`, a page of the site being assembled that may be a hard
/// link into a crate's work folder, which stays as it is. No sync: the whole site is swapped
/// into place once it is written.
fn write_unlinked(path: &Path, text: &str) -> Result<(), SiteError> {
    let io = |what, source| SiteError::Io { what, path: path.to_owned(), source };
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io("cannot remove", e)),
        _ => {}
    }
    std::fs::write(path, text).map_err(|e| io("cannot write", e))
}

/// A relative path with its `.` and `..` resolved (`kernel/locking/../sched/core.c` is
/// `kernel/sched/core.c`); `None` for an absolute one or one that leaves its root.
pub fn normalize(path: &str) -> Option<String> {
    if path.starts_with('/') {
        return None;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ => parts.push(part),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The `.rs` files under the folder of a crate root.
fn rust_files(root: &Path) -> Vec<PathBuf> {
    let Some(dir) = root.parent() else { return Vec::new() };
    // A crate rooted at `lib.rs` owns its folder; one rooted at `foo.rs` owns `foo/` too.
    let mut stack = if root.file_name().is_some_and(|n| n == "lib.rs") {
        vec![dir.to_owned()]
    } else {
        vec![root.with_extension("")]
    };
    let mut files = vec![root.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") && path != root {
                files.push(path);
            }
        }
    }
    files.sort();
    files.dedup();
    files
}

/// The module path of `file` in crate `krate` rooted at `root` (`kernel::sync::lock`).
fn module_path(krate: &str, root: &Path, file: &Path) -> String {
    let base = if root.file_name().is_some_and(|n| n == "lib.rs") {
        root.parent().map(Path::to_owned)
    } else {
        Some(root.with_extension(""))
    };
    let mut path = krate.to_owned();
    if file == root {
        return path;
    }
    let Some(rel) = base.as_deref().and_then(|b| file.strip_prefix(b).ok()) else { return path };
    let rel = rel.with_extension("");
    for part in rel.components() {
        let part = part.as_os_str().to_string_lossy();
        if part != "mod" {
            path.push_str("::");
            path.push_str(&part);
        }
    }
    path
}

/// The page of a wrapper in the site, when it has one: a function, constant or type of an
/// `impl` or a trait is its type's page, at its anchor when the page has one.
fn item_page(
    site: &Path,
    module: &str,
    w: &Wrapper,
    pages: &mut BTreeMap<String, String>,
) -> Option<String> {
    if !w.public {
        return None;
    }
    let dir = module.replace("::", "/");
    let (owner, member) = match w.item.split_once("::") {
        Some((owner, member)) => (owner, Some(member)),
        None => (w.item.as_str(), None),
    };
    let candidates: &[&str] = match (w.kind, member) {
        (_, Some(_)) => &["struct", "enum", "union", "trait"],
        ("fn", None) => &["fn"],
        ("const", None) => &["constant"],
        ("type", None) => &["type"],
        (kind, None) => &[kind],
    };
    let page = candidates
        .iter()
        .map(|kind| format!("{dir}/{kind}.{owner}.html"))
        .find(|p| site.join(p).is_file())?;
    let Some(member) = member else { return Some(page) };
    let anchor = match w.kind {
        "const" => format!("associatedconstant.{member}"),
        "type" => format!("associatedtype.{member}"),
        _ => format!("method.{member}"),
    };
    let text = pages
        .entry(page.clone())
        .or_insert_with(|| std::fs::read_to_string(site.join(&page)).unwrap_or_default());
    Some(if text.contains(&format!("id=\"{anchor}\"")) { format!("{page}#{anchor}") } else { page })
}

#[cfg(test)]
mod tests;
