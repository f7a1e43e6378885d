//! Assembles the site from the crates' documentation: a temporary folder next to the target
//! gets every crate (hard links into the work directory), the merged search index, the
//! kernel's logo, the source view, the doctest results and the landing page, and then takes
//! the target's place. A target with pages of an older build is replaced whole, never mixed.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::html::{self, escape};

/// The marker file that says a folder is a site we made (and may replace).
pub const MARKER: &str = ".docs-site.json";

/// What the landing page says about the build.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Meta {
    /// `6.12.118`.
    pub kernel_version: String,
    /// The architecture it was built for, as `ARCH=` names it (`x86_64`, `arm64`); empty in a
    /// site made before it was recorded.
    #[serde(default)]
    pub arch: String,
    /// The configuration's name (`tinyconfig + demo-kernel/demo.config`).
    pub config_name: String,
    /// `rustc 1.95.0 (...)`.
    pub rustc_version: String,
    /// `2026-12-03 08:48 UTC`.
    pub build_date: String,
    /// How `core` is documented: `local`, or the upstream URL.
    pub core: String,
}

/// One crate on the landing page.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct CrateEntry {
    /// Its name.
    pub name: String,
    /// `library`, `kernel`, `host`, `module`, `external` ([`crate::plan::Kind`]).
    pub kind: String,
    /// kbuild's target.
    pub target: String,
    /// Its edition.
    pub edition: String,
    /// `None` when documented; else why it is missing.
    pub missing: Option<String>,
}

/// The site's record of itself, kept in [`MARKER`].
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// The build's facts.
    pub meta: Meta,
    /// The crates, documented or not.
    pub crates: Vec<CrateEntry>,
    /// Crates kbuild built that are not documented on purpose, with why.
    pub skipped: Vec<(String, String)>,
    /// The doctest summary line, if the doctests ran.
    pub doctests: Option<String>,
    /// The links rustdoc wrote to items it did not document, made text (listed on
    /// `unlinked.html`).
    #[serde(default)]
    pub unlinked: Vec<crate::mend::Unlinked>,
    /// What the site was built from (see `generate`); an equal one means nothing to rebuild.
    #[serde(default)]
    pub fingerprint: String,
    /// The link check of the site as written, known upstream mistakes set aside: a site that
    /// is up to date is not read again to check it.
    #[serde(default)]
    pub links: Option<crate::linkcheck::Report>,
    /// The C side of the bindings ([`crate::cdefs`]): how many of their pages link to C, and
    /// how many header pages list the Rust that uses them.
    #[serde(default)]
    pub c_side: Option<crate::cdefs::Applied>,
}

/// Why the site could not be assembled.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    /// An I/O step failed.
    #[error("{what} {}: {source}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// On what.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// The output folder exists and is not a site of ours.
    #[error(
        "{} exists and is not a docs-site site (no {MARKER}): choose another --out, or remove it yourself",
        .0.display()
    )]
    NotOurs(PathBuf),
    /// rustdoc's merge step failed.
    #[error("merging the crates' search indexes failed: {0}")]
    Merge(String),
}

fn io<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> SiteError + 'a {
    move |source| SiteError::Io { what, path: path.to_owned(), source }
}

/// Hard-links (or copies, across file systems) every file under `from` into `to`, keeping
/// files already there.
pub fn link_tree(from: &Path, to: &Path) -> Result<usize, SiteError> {
    let mut count = 0;
    let mut stack = vec![(from.to_owned(), to.to_owned())];
    while let Some((src, dst)) = stack.pop() {
        std::fs::create_dir_all(&dst).map_err(io("cannot create", &dst))?;
        for entry in std::fs::read_dir(&src).map_err(io("cannot read", &src))? {
            let entry = entry.map_err(io("cannot read", &src))?;
            let target = dst.join(entry.file_name());
            if entry.file_type().map_err(io("cannot read", &src))?.is_dir() {
                stack.push((entry.path(), target));
            } else {
                // A file already there is kept: asked by linking, without a `stat` first.
                match std::fs::hard_link(entry.path(), &target) {
                    Ok(()) => count += 1,
                    Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                    Err(_) => {
                        std::fs::copy(entry.path(), &target).map_err(io("cannot copy", &target))?;
                        count += 1;
                    }
                }
            }
        }
    }
    Ok(count)
}

/// A fresh temporary folder beside `out` for building the next site.
pub fn temp_dir_for(out: &Path) -> Result<PathBuf, SiteError> {
    let parent = out.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(io("cannot create", parent))?;
    let name = out.file_name().map_or("site".into(), |n| n.to_string_lossy().into_owned());
    let tmp = parent.join(format!(".{name}.tmp-{}", std::process::id()));
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io("cannot remove", &tmp))?;
    }
    std::fs::create_dir(&tmp).map_err(io("cannot create", &tmp))?;
    Ok(tmp)
}

/// Puts the finished `tmp` in the place of `out`: the old site (ours only) is moved aside and
/// removed after the new one is in place.
pub fn swap_into_place(tmp: &Path, out: &Path) -> Result<(), SiteError> {
    if out.exists() {
        if !out.join(MARKER).is_file() {
            return Err(SiteError::NotOurs(out.to_owned()));
        }
        let old = tmp.with_extension("old");
        if old.exists() {
            std::fs::remove_dir_all(&old).map_err(io("cannot remove", &old))?;
        }
        std::fs::rename(out, &old).map_err(io("cannot move aside", out))?;
        std::fs::rename(tmp, out).map_err(io("cannot move into place", tmp))?;
        std::fs::remove_dir_all(&old).map_err(io("cannot remove", &old))?;
    } else {
        std::fs::rename(tmp, out).map_err(io("cannot move into place", tmp))?;
    }
    Ok(())
}

/// Checks that `out` is absent or a site of ours, before any work is done.
pub fn check_out(out: &Path) -> Result<(), SiteError> {
    if out.exists() && !out.join(MARKER).is_file() {
        return Err(SiteError::NotOurs(out.to_owned()));
    }
    Ok(())
}

/// The landing page.
pub fn landing_page(manifest: &Manifest, search_crate: Option<&str>, size: Option<&str>) -> String {
    let meta = &manifest.meta;
    let mut rows = String::new();
    for c in &manifest.crates {
        let name = match &c.missing {
            None => format!("<a href=\"{0}/index.html\">{0}</a>", escape(&c.name)),
            Some(_) => format!("<span class=\"missing-name\">{}</span>", escape(&c.name)),
        };
        let status = match &c.missing {
            None => "documented".to_owned(),
            Some(why) => format!(
                "<details class=\"missing\"><summary>missing: rustdoc failed</summary><pre>{}</pre></details>",
                escape(why)
            ),
        };
        let _ = writeln!(
            rows,
            "<tr><td>{name}</td><td>{}</td><td><code>{}</code></td><td>{}</td><td>{status}</td></tr>",
            escape(&c.kind),
            escape(&c.target),
            escape(&c.edition)
        );
    }
    let mut skipped = String::new();
    for (name, why) in &manifest.skipped {
        let _ = writeln!(skipped, "<li><code>{}</code>: {}</li>", escape(name), escape(why));
    }
    let search = match search_crate {
        Some(krate) => format!(
            "<form class=\"search\" action=\"{}/index.html\" method=\"get\">\
             <input name=\"search\" placeholder=\"Search all crates (e.g. KVec)\" autofocus> \
             <button type=\"submit\">Search</button></form>",
            escape(krate)
        ),
        None => String::new(),
    };
    let doctests = match &manifest.doctests {
        Some(line) => format!(
            "<p>Examples tested in the booted kernel (KUnit): {} — <a href=\"doctests.html\">results</a></p>",
            escape(line)
        ),
        None => "<p>The kernel's doctests were not run for this build.</p>".to_owned(),
    };
    let missing = manifest.crates.iter().filter(|c| c.missing.is_some()).count();
    let warning = if missing > 0 {
        format!(
            "<p class=\"warning\">{missing} crate(s) could not be documented; see the table.</p>"
        )
    } else {
        String::new()
    };
    let size = size.map(|s| format!("<dt>Size</dt><dd>{}</dd>", escape(s))).unwrap_or_default();
    let c_side = match &manifest.c_side {
        Some(c) => format!(
            "<p>{} of the {} pages of <code>bindings</code> and <code>uapi</code> link to where C \
             declares their item ({} with its kernel-doc comment, {} with layout-check's verdict); \
             <a href=\"{}/index.html\">{} C headers</a> list the Rust code that uses them.</p>",
            c.located,
            c.pages,
            c.with_kernel_doc,
            c.with_layout,
            crate::cdefs::FOLDER,
            c.headers
        ),
        None => String::new(),
    };
    let unlinked = match manifest.unlinked.len() {
        0 => String::new(),
        n => format!(
            "<p>{n} links that rustdoc wrote to items their crates do not document \
             (<code>#[doc(hidden)]</code> or private) are shown as text: \
             <a href=\"{}\">the list</a>.</p>",
            crate::mend::PAGE
        ),
    };
    format!(
        r#"<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Rust in Linux {version}: documentation</title>
<link rel="icon" href="static.files/logo.svg">
<style>{CSS}</style>{versions}</head>
<body><header><img src="static.files/logo.svg" alt="Linux logo" width="64" height="76">
<h1>Rust in Linux {version}</h1></header>
<dl class="meta"><dt>Kernel</dt><dd>{version}</dd><dt>Architecture</dt><dd>{arch}</dd><dt>Configuration</dt><dd>{config}</dd>
<dt>Compiler</dt><dd>{rustc}</dd><dt>Built</dt><dd>{date}</dd><dt>core</dt><dd>{core}</dd>{size}</dl>
{search}
{warning}
<h2>Crates</h2>
<table><thead><tr><th>Crate</th><th>Kind</th><th>kbuild target</th><th>Edition</th><th>Status</th></tr></thead>
<tbody>
{rows}</tbody></table>
{doctests}
{c_side}{unlinked}
<h2>Not documented</h2><ul>
{skipped}</ul>
</body></html>
"#,
        version = escape(&meta.kernel_version),
        arch = escape(&meta.arch),
        config = escape(&meta.config_name),
        rustc = escape(&meta.rustc_version),
        date = escape(&meta.build_date),
        core = core_line(&meta.core),
        versions = html::versions_tag(0),
    )
}

/// The page that stands where a crate's documentation would be when rustdoc failed for it.
pub fn landing_missing_page(entry: &CrateEntry) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{n}: not documented</title>\
         <link rel=\"icon\" href=\"../static.files/logo.svg\"><style>{CSS}</style>{v}</head><body>\
         <p><a href=\"../index.html\">Rust in Linux</a> / {n}</p><h1 class=\"warning\">{n} could not be documented</h1>\
         <p>rustdoc failed for <code>{t}</code>; the other crates of the site are complete.</p><pre>{why}</pre></body></html>\n",
        n = escape(&entry.name),
        t = escape(&entry.target),
        why = escape(entry.missing.as_deref().unwrap_or("")),
        v = html::versions_tag(1),
    )
}

fn core_line(core: &str) -> String {
    if core == "local" {
        "documented in this site".to_owned()
    } else {
        format!("linked to <a href=\"{0}core/index.html\">{0}core/</a> (not shipped)", escape(core))
    }
}

pub use crate::html::CSS;

/// Renders one source file of the view: `path` relative to the srctree, `depth` folders below
/// the site's root.
pub fn source_page(path: &str, text: &str, depth: usize) -> String {
    source_page_with(path, text, depth, false)
}

/// [`source_page`], with a link to the page of the Rust code that uses the header when
/// `rust_users` (see [`crate::cdefs`]).
pub fn source_page_with(path: &str, text: &str, depth: usize, rust_users: bool) -> String {
    let root = "../".repeat(depth);
    let mut body = String::with_capacity(text.len() * 2);
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        let _ = writeln!(
            body,
            "<span id=\"L{n}\"><a class=\"ln\" href=\"#L{n}\">{n}</a>{}</span>",
            escape(line)
        );
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{p} - srctree</title>\
         <link rel=\"icon\" href=\"{root}static.files/logo.svg\"><style>{CSS}</style>{v}</head>\
         <body><p><a href=\"{root}index.html\">Rust in Linux</a> / srctree / <code>{p}</code>{users}</p>\
         <pre class=\"source\">{body}</pre></body></html>\n",
        p = escape(path),
        v = html::versions_tag(depth),
        users = if rust_users {
            format!(
                " · <a class=\"rust-users\" href=\"{root}{}/{}.html\">the Rust code that uses it</a>",
                crate::cdefs::FOLDER,
                escape(path)
            )
        } else {
            String::new()
        },
    )
}

/// Renders a directory of the source view: its entries, linked where the view has them.
pub fn directory_page(path: &str, entries: &[(String, Option<String>)], depth: usize) -> String {
    let root = "../".repeat(depth);
    let mut list = String::new();
    for (name, href) in entries {
        match href {
            Some(href) => {
                let _ =
                    writeln!(list, "<li><a href=\"{}\">{}</a></li>", escape(href), escape(name));
            }
            None => {
                let _ = writeln!(list, "<li>{}</li>", escape(name));
            }
        }
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{p} - srctree</title>\
         <link rel=\"icon\" href=\"{root}static.files/logo.svg\"><style>{CSS}</style>{v}</head>\
         <body><p><a href=\"{root}index.html\">Rust in Linux</a> / srctree / <code>{p}</code></p>\
         <ul>{list}</ul></body></html>\n",
        p = escape(path),
        v = html::versions_tag(depth),
    )
}

/// Writes the source view for `targets` (srctree paths; directories end in `/`) under
/// `site/srctree/`. A directory page links the entries that the view has.
pub fn write_source_view(
    site: &Path,
    srctree: &Path,
    targets: &BTreeSet<String>,
) -> Result<usize, SiteError> {
    let files: BTreeSet<&str> =
        targets.iter().filter(|t| !t.ends_with('/')).map(String::as_str).collect();
    let mut written = 0;
    for target in targets {
        let src = srctree.join(target.trim_end_matches('/'));
        if target.ends_with('/') {
            let dir = target.trim_end_matches('/');
            let page = site.join(html::source_view_page(dir, true));
            let depth = page.strip_prefix(site).map_or(0, |p| p.components().count() - 1);
            let mut entries = Vec::new();
            let Ok(read) = std::fs::read_dir(&src) else { continue };
            for entry in read.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let child = if dir.is_empty() { name.clone() } else { format!("{dir}/{name}") };
                let href = files.contains(child.as_str()).then(|| format!("{name}.html"));
                entries.push((name, href));
            }
            entries.sort();
            write_page(&page, &directory_page(dir, &entries, depth))?;
        } else {
            // A target that is not a readable text file gets no page: the link checker reports it.
            let Ok(bytes) = std::fs::read(&src) else { continue };
            let page = site.join(html::source_view_page(target, false));
            let depth = page.strip_prefix(site).map_or(0, |p| p.components().count() - 1);
            let users = site.join(crate::cdefs::FOLDER).join(format!("{target}.html")).is_file();
            let text = String::from_utf8_lossy(&bytes);
            write_page(&page, &source_page_with(target, &text, depth, users))?;
        }
        written += 1;
    }
    Ok(written)
}

/// Writes a new page at `path`, creating its folder.
pub(crate) fn write_page(path: &Path, text: &str) -> Result<(), SiteError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io("cannot create", parent))?;
    }
    std::fs::write(path, text).map_err(io("cannot write", path))
}

/// Replaces `path` (perhaps a hard link into the work directory) with new contents, leaving
/// the linked file alone.
pub fn replace_file(path: &Path, text: &str) -> Result<(), SiteError> {
    // Through a temporary file beside it, removed when anything fails.
    report::write_atomically(path, text).map_err(io("cannot replace", path))
}

/// What rustdoc writes for a trait without implementors in other crates.
const NO_IMPLEMENTORS: &str = "(function() {\n    const implementors = Object.fromEntries([]);\n    \
if (window.register_implementors) {\n        window.register_implementors(implementors);\n    } \
else {\n        window.pending_implementors = implementors;\n    }\n})()\n";

/// Every trait page loads `trait.impl/<path>.js` for the implementors in other crates; the
/// merge step writes one only for traits that have some. Writes an empty list under `root` for
/// the others, so that no page loads a file that is not there, from the link checker's view of
/// the site (no page is read again). Returns the files written, relative to `root`.
pub fn fill_missing_implementors(
    root: &Path,
    site: &crate::linkcheck::Site,
) -> Result<Vec<String>, SiteError> {
    let mut written = Vec::new();
    for (page, links) in &site.pages {
        let (dir, name) = page.rsplit_once('/').unwrap_or(("", page));
        if !name.starts_with("trait.") {
            continue;
        }
        for link in &links.links {
            if !link.contains("trait.impl/") || !link.ends_with(".js") {
                continue;
            }
            let Some(rel) = html::resolve_path(dir, link) else { continue };
            if site.files.contains(&rel) || written.contains(&rel) {
                continue;
            }
            let target = root.join(&rel);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(io("cannot create", parent))?;
            }
            std::fs::write(&target, NO_IMPLEMENTORS).map_err(io("cannot write", &target))?;
            written.push(rel);
        }
    }
    Ok(written)
}

/// The total size of the files under `dir`, counting each hard-linked file once per link.
pub fn tree_size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&d) else { continue };
        for entry in read.flatten() {
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                stack.push(entry.path());
            } else {
                total += meta.len();
            }
        }
    }
    total
}

/// `412.3 MB`: the suite's one size format.
pub use progress::format_size;

/// A UTC date and time (`2026-12-03 08:48 UTC`) from seconds since the epoch.
pub fn format_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil-from-days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02} UTC", rem / 3600, rem % 3600 / 60)
}

#[cfg(test)]
mod tests;
