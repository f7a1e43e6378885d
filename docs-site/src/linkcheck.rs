//! The link checker: every `href`/`src` of every page must lead to a file of the site, and its
//! `#anchor` to an `id` on that page. The check is pure ([`check`]); [`scan_site`] reads a
//! site into what it checks.
//!
//! A link is broken when its file is missing, when its anchor is missing, when it leaves the
//! site (`../` past the root), or when it is an absolute path or `file:` URL: such a link works
//! only on the machine that built the site (what `make rustdoc` does to `srctree/` links).
//! Links to other sites (`https:`) are counted, not followed: the machine has no network.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use crate::html::{PageLinks, resolve_path, scan_page};

/// A site as the checker sees it.
#[derive(Clone, Debug, Default)]
pub struct Site {
    /// Every page, by path relative to the root (`kernel/index.html`), with its links and ids.
    pub pages: BTreeMap<String, PageLinks>,
    /// Every file, pages included: a set looked up for each link, hashed.
    pub files: HashSet<String>,
}

/// Why a link is broken.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Reason {
    /// The file it names does not exist in the site.
    MissingFile,
    /// The file exists, the anchor does not.
    MissingAnchor,
    /// It climbs above the site's root.
    OutsideSite,
    /// An absolute path or `file:` URL: it only works on the machine that built the site.
    AbsolutePath,
}

impl Reason {
    /// A short description.
    pub fn describe(self) -> &'static str {
        match self {
            Reason::MissingFile => "file missing",
            Reason::MissingAnchor => "anchor missing",
            Reason::OutsideSite => "leads outside the site",
            Reason::AbsolutePath => "absolute path of the build machine",
        }
    }
}

/// One broken link.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Broken {
    /// The page it is on.
    pub page: String,
    /// The link as written.
    pub link: String,
    /// Why it is broken.
    pub reason: Reason,
}

/// What the checker found. The site keeps it in its manifest, so that checking a site that has
/// not changed since does not read its pages again.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Report {
    /// Pages scanned.
    pub pages: usize,
    /// Links checked (internal ones).
    pub checked: usize,
    /// Links to other sites (counted, not followed).
    pub external: usize,
    /// The broken links, sorted.
    pub broken: Vec<Broken>,
    /// Broken links that are known mistakes of the kernel's or core's own documentation (see
    /// [`KNOWN_UPSTREAM`]): reported, not counted as broken.
    pub known: Vec<(Broken, String)>,
}

/// A broken link that the kernel's documentation itself has, with the fix it needs upstream.
#[derive(Clone, Copy, Debug)]
pub struct Known {
    /// The page, relative to the site's root.
    pub page: &'static str,
    /// The link as written.
    pub link: &'static str,
    /// What is wrong in the source, and the fix.
    pub why: &'static str,
    /// The kernels (`6.12`) whose documentation has it; `core`'s own mistakes are in every
    /// kernel's, when `core` is documented.
    pub kernels: &'static [&'static str],
}

/// The own broken links of the kernel 6.12 and 7.3 and core 1.95 documentation: no rewriting
/// of ours can mend them, and hiding them would hide the bug. Each one is matched exactly; any
/// other broken link counts. A driver's are there only where the tree builds it.
pub const KNOWN_UPSTREAM: &[Known] = &[
    Known {
        page: "kernel/str/trait.CStrExt.html",
        link: "#method.to_ascii_lowercase",
        why: CSTR_EXT,
        kernels: ONLY_7_3,
    },
    Known {
        page: "kernel/str/trait.CStrExt.html",
        link: "#method.to_ascii_uppercase",
        why: CSTR_EXT,
        kernels: ONLY_7_3,
    },
    Known {
        page: "macros/index.html",
        link: "trait.ForLt.html",
        why: MACROS_FOR_LT,
        kernels: ONLY_7_3,
    },
    Known {
        page: "macros/index.html",
        link: "trait.CovariantForLt.html",
        why: MACROS_FOR_LT,
        kernels: ONLY_7_3,
    },
    Known {
        page: "macros/macro.ForLt.html",
        link: "trait.ForLt.html",
        why: MACROS_FOR_LT,
        kernels: ONLY_7_3,
    },
    Known {
        page: "macros/macro.CovariantForLt.html",
        link: "trait.ForLt.html",
        why: MACROS_FOR_LT,
        kernels: ONLY_7_3,
    },
    Known {
        page: "macros/macro.CovariantForLt.html",
        link: "trait.CovariantForLt.html",
        why: MACROS_FOR_LT,
        kernels: ONLY_7_3,
    },
    Known {
        page: "macros/macro.CovariantForLt.html",
        link: "trait.CovariantForLt.html#method.cast_ref",
        why: MACROS_FOR_LT,
        kernels: ONLY_7_3,
    },
    Known {
        page: "macros/index.html",
        link: "../kernel/fmt/struct.Adapter.html",
        why: MACROS_ADAPTER,
        kernels: ONLY_7_3,
    },
    Known {
        page: "macros/macro.fmt.html",
        link: "../kernel/fmt/struct.Adapter.html",
        why: MACROS_ADAPTER,
        kernels: ONLY_7_3,
    },
    Known {
        page: "macros/macro.module.html",
        link: "../kernel/trait.Module.html",
        why: "rust/macros/lib.rs:63 (7.3) links ../kernel/trait.Module.html; the trait is kernel::module::Module: ../kernel/module/trait.Module.html",
        kernels: ONLY_7_3,
    },
    Known {
        page: "kernel/rbtree/struct.OccupiedEntry.html",
        link: "index.html#get_mut",
        why: "rust/kernel/rbtree.rs:1224 writes [`self#get_mut`] (the module, which has no get_mut) for [`Self::get_mut`]",
        kernels: BOTH,
    },
    Known {
        page: "core/bstr/struct.ByteStr.html",
        link: "#method.to_ascii_lowercase",
        why: CORE_ASCII,
        kernels: BOTH,
    },
    Known {
        page: "core/bstr/struct.ByteStr.html",
        link: "#method.to_ascii_uppercase",
        why: CORE_ASCII,
        kernels: BOTH,
    },
    Known {
        page: "core/primitive.slice.html",
        link: "#method.to_ascii_lowercase",
        why: CORE_ASCII,
        kernels: BOTH,
    },
    Known {
        page: "core/primitive.slice.html",
        link: "#method.to_ascii_uppercase",
        why: CORE_ASCII,
        kernels: BOTH,
    },
    Known {
        page: "core/primitive.str.html",
        link: "#method.to_ascii_lowercase",
        why: CORE_ASCII,
        kernels: BOTH,
    },
    Known {
        page: "core/primitive.str.html",
        link: "#method.to_ascii_uppercase",
        why: CORE_ASCII,
        kernels: BOTH,
    },
    Known {
        page: "kernel/block/mq/trait.Operations.html",
        link: "vtable",
        why: MQ_VTABLE,
        kernels: ONLY_6_12,
    },
    Known {
        page: "ax88796b_rust/index.html",
        link: "./ax88796b.c",
        why: AX88796B_C,
        kernels: BOTH,
    },
];

/// The demo kernels.
const BOTH: &[&str] = &["6.12", "7.3"];

/// The 6.12 demo kernel.
const ONLY_6_12: &[&str] = &["6.12"];

/// The 7.3 demo kernel.
const ONLY_7_3: &[&str] = &["7.3"];

/// Why the 7.3 kernel crate's `CStrExt` page has two broken anchors.
const CSTR_EXT: &str = "rust/kernel/str.rs:255,266 (7.3) link #method.to_ascii_lowercase/uppercase; they are required methods of the trait, whose anchors are #tymethod.to_ascii_lowercase/uppercase";

/// Why the 7.3 macros crate's pages link `ForLt` wrongly.
const MACROS_FOR_LT: &str = "rust/macros/lib.rs:517,532-534 (7.3) link trait.ForLt.html and trait.CovariantForLt.html beside the macros; the traits are kernel::types::ForLt and CovariantForLt: ../kernel/types/trait.ForLt.html";

/// Why the 7.3 macros crate's pages link `Adapter` to nothing.
const MACROS_ADAPTER: &str = "rust/macros/lib.rs:276 (7.3) links ../kernel/fmt/struct.Adapter.html, but kernel::fmt::Adapter is #[doc(hidden)] (rust/kernel/fmt.rs:23), so it has no page";

/// Why 6.12's block layer has a broken link to `#[vtable]`.
const MQ_VTABLE: &str = "rust/macros/vtable.rs:57 (6.12) documents a trait's USE_VTABLE_ATTR with the intra-doc link [`#[vtable]`](vtable), which resolves only where `vtable` is in scope; rust/kernel/block/mq/operations.rs writes #[macros::vtable] and imports no `vtable`, so rustdoc keeps the link as it is (7.3's imports the prelude, which has it; seen where the block layer is built: the wide tree)";

/// Why `ax88796b_rust`'s crate page has a broken link to its C driver.
const AX88796B_C: &str = "drivers/net/phy/ax88796b_rust.rs:6 links the C driver as ./ax88796b.c, a path beside the crate's page; the coding guidelines' form is srctree/drivers/net/phy/ax88796b.c (seen where the crate is built: the wide trees)";

/// Why `core`'s own pages (when the site documents `core`) have six broken anchors.
const CORE_ASCII: &str = "core's docs link to_ascii_lowercase/uppercase, which alloc (not core) defines for [u8] and str; they resolve only in std's docs";

/// Moves the broken links listed in `known` from `report.broken` to `report.known`, and back
/// those set aside before that `known` does not list (a report a site kept, checked against
/// this build's list).
pub fn set_aside_known(report: &mut Report, known: &[Known]) {
    let mut all = std::mem::take(&mut report.broken);
    all.extend(std::mem::take(&mut report.known).into_iter().map(|(broken, _)| broken));
    let (matched, broken): (Vec<Broken>, Vec<Broken>) =
        all.into_iter().partition(|b| known.iter().any(|k| k.page == b.page && k.link == b.link));
    report.broken = broken;
    report.known = matched
        .into_iter()
        .map(|b| {
            let why =
                known.iter().find(|k| k.page == b.page && k.link == b.link).map_or("", |k| k.why);
            (b, why.to_owned())
        })
        .collect();
}

/// Checks every link of `site`.
pub fn check(site: &Site) -> Report {
    check_in_parallel(site, 1)
}

/// [`check`] with `threads` threads, each taking the next pages when it is done with its last.
pub fn check_in_parallel(site: &Site, threads: usize) -> Report {
    use std::sync::atomic::{AtomicUsize, Ordering};
    // Looked up once a link: hashed, not compared along a tree.
    let ids: HashMap<&str, HashSet<&str>> = site
        .pages
        .iter()
        .map(|(path, page)| (path.as_str(), page.ids.iter().map(String::as_str).collect()))
        .collect();
    let has_id = |page: &str, id: &str| ids.get(page).map(|ids| ids.contains(id));
    let pages: Vec<(&String, &PageLinks)> = site.pages.iter().collect();
    const BLOCK: usize = 256;
    let next = AtomicUsize::new(0);
    let parts: Vec<Report> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.clamp(1, pages.len().div_ceil(BLOCK).max(1)))
            .map(|_| {
                s.spawn(|| {
                    let mut part = Report::default();
                    loop {
                        let start = next.fetch_add(BLOCK, Ordering::Relaxed);
                        let Some(block) = pages.get(start..(start + BLOCK).min(pages.len())) else {
                            return part;
                        };
                        for (path, page) in block {
                            part.add_links(site, &has_id, path, page);
                        }
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("checker panicked")).collect()
    });
    let mut report = Report { pages: site.pages.len(), ..Report::default() };
    for part in parts {
        report.checked += part.checked;
        report.external += part.external;
        report.broken.extend(part.broken);
    }
    report.broken.sort();
    report
}

impl Report {
    /// Puts `links` in `site` as `page` (a page added or written again since the report was
    /// made) and brings the report to what [`check`] of the whole site would say: `page`'s own
    /// links and the broken links (few) are checked again, each anchor looked up in its page's
    /// list (for small pages); when the page loses an anchor, the whole site is.
    pub fn update_page(&mut self, site: &mut Site, page: &str, links: PageLinks) {
        if let Some(old) = site.pages.get(page) {
            if old.ids.iter().any(|id| !links.ids.contains(id)) {
                site.pages.insert(page.to_owned(), links);
                site.files.insert(page.to_owned());
                *self = check(site);
                return;
            }
            let mut part = Report::default();
            part.add_links(site, &|p, id| linear_has_id(site, p, id), page, old);
            self.pages -= 1;
            self.checked -= part.checked;
            self.external -= part.external;
            self.broken.retain(|b| b.page != page);
        }
        site.pages.insert(page.to_owned(), links);
        site.files.insert(page.to_owned());
        let mut part = Report::default();
        part.add_links(site, &|p, id| linear_has_id(site, p, id), page, &site.pages[page]);
        self.pages += 1;
        self.checked += part.checked;
        self.external += part.external;
        // Links of other pages into this one may be good now.
        self.broken.retain_mut(|b| {
            match check_link(site, &|p, id| linear_has_id(site, p, id), &b.page, &b.link) {
                Verdict::Broken(reason) => {
                    b.reason = reason;
                    true
                }
                _ => false,
            }
        });
        self.broken.extend(part.broken);
        self.broken.sort();
    }

    /// Takes one broken `link` of `page` out of the report, for a link the page no longer has
    /// (and that was no anchor); returns whether it was there.
    pub fn forget_broken(&mut self, page: &str, link: &str) -> bool {
        let Some(i) = self.broken.iter().position(|b| b.page == page && b.link == link) else {
            return false;
        };
        self.broken.remove(i);
        self.checked -= 1;
        true
    }

    fn add_links(
        &mut self,
        site: &Site,
        has_id: &dyn Fn(&str, &str) -> Option<bool>,
        path: &str,
        page: &PageLinks,
    ) {
        for link in &page.links {
            match check_link(site, has_id, path, link) {
                Verdict::Ok => self.checked += 1,
                Verdict::External => self.external += 1,
                Verdict::Skip => {}
                Verdict::Broken(reason) => {
                    self.checked += 1;
                    self.broken.push(Broken { page: path.to_owned(), link: link.clone(), reason });
                }
            }
        }
    }
}

enum Verdict {
    Ok,
    External,
    Skip,
    Broken(Reason),
}

/// Whether `page` of `site` has anchor `id`, looked up in the page's list.
fn linear_has_id(site: &Site, page: &str, id: &str) -> Option<bool> {
    site.pages.get(page).map(|p| p.ids.iter().any(|i| i == id))
}

/// The verdict on `link` of `page`; `has_id(page, id)` tells whether a page of the site has
/// an anchor (`None` for a file that is not a page).
fn check_link(
    site: &Site,
    has_id: &dyn Fn(&str, &str) -> Option<bool>,
    page: &str,
    link: &str,
) -> Verdict {
    let link = link.trim();
    if let Some((scheme, _)) = link.split_once(':')
        && !scheme.is_empty()
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
    {
        return match scheme.to_ascii_lowercase().as_str() {
            "http" | "https" => Verdict::External,
            "file" => Verdict::Broken(Reason::AbsolutePath),
            _ => Verdict::Skip, // mailto:, javascript:, data:
        };
    }
    if link.starts_with("//") {
        return Verdict::External;
    }
    if link.starts_with('/') {
        return Verdict::Broken(Reason::AbsolutePath);
    }
    let (path, fragment) = match link.split_once('#') {
        Some((path, fragment)) => (path, Some(fragment)),
        None => (link, None),
    };
    let path = path.split_once('?').map_or(path, |(p, _)| p);
    let target = if path.is_empty() {
        page.to_owned()
    } else {
        let dir = page.rsplit_once('/').map_or("", |(dir, _)| dir);
        let Some(mut target) = resolve_path(dir, &percent_decode(path)) else {
            return Verdict::Broken(Reason::OutsideSite);
        };
        if target.is_empty() || path.ends_with('/') || !site.files.contains(&target) {
            let index = if target.is_empty() {
                "index.html".to_owned()
            } else {
                format!("{}/index.html", target.trim_end_matches('/'))
            };
            if site.files.contains(&index) {
                target = index;
            }
        }
        if !site.files.contains(&target) {
            return Verdict::Broken(Reason::MissingFile);
        }
        target
    };
    let Some(fragment) = fragment.filter(|f| !f.is_empty()) else {
        return Verdict::Ok;
    };
    // A redirect page passes the fragment on: check it where the browser ends up.
    let mut target = target;
    for _ in 0..5 {
        let Some(redirect) = site.pages.get(&target).and_then(|p| p.redirect.as_deref()) else {
            break;
        };
        let dir = target.rsplit_once('/').map_or("", |(dir, _)| dir);
        match resolve_path(dir, redirect.split(['#', '?']).next().unwrap_or("")) {
            Some(next) if site.files.contains(&next) => target = next,
            _ => return Verdict::Broken(Reason::MissingFile),
        }
    }
    let Some(found) = has_id(&target, fragment) else {
        // A fragment into a file that is not a page (an image, a script): not checkable.
        return Verdict::Ok;
    };
    // Browsers try the fragment as written, then percent-decoded (rustdoc's ids keep `%3C`).
    let decoded = percent_decode(fragment);
    let has = |id: &str| has_id(&target, id) == Some(true);
    if found || has(&decoded) || line_range_start(&decoded).is_some_and(has) {
        Verdict::Ok
    } else {
        Verdict::Broken(Reason::MissingAnchor)
    }
}

/// rustdoc's source pages link line ranges (`#12-20`), which its script highlights; the range is
/// good when its first line has an anchor: that line.
fn line_range_start(fragment: &str) -> Option<&str> {
    let (first, last) = fragment.split_once('-')?;
    (!first.is_empty()
        && first.bytes().all(|b| b.is_ascii_digit())
        && last.bytes().all(|b| b.is_ascii_digit()))
    .then_some(first)
}

/// A link's path or fragment as the file or id it names: `%XX` escapes decoded (two hex
/// digits each, as URLs write them), invalid UTF-8 replaced.
fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned()
}

/// A file's identity: its device and inode. A page of a site is often a hard link to a crate's
/// documentation in the work folder, the very file scanned before.
pub type FileId = (u64, u64);

/// Every file under `root`, by its path relative to `root`, with its identity; a symbolic link
/// counts as what it leads to. Read from the folders' entries, without a `stat` of each file
/// (a site has 200,000 of them): the inode is the entry's, the device its folder's.
pub fn files_with_ids(root: &Path) -> std::io::Result<Vec<(String, FileId)>> {
    use std::os::unix::fs::{DirEntryExt, MetadataExt};
    let mut files = Vec::new();
    let mut stack = vec![(root.to_owned(), std::fs::metadata(root)?.dev())];
    while let Some((dir, dev)) = stack.pop() {
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let kind = entry.file_type()?;
            let (is_dir, id) = if kind.is_symlink() {
                let meta = std::fs::metadata(entry.path())?;
                (meta.is_dir(), (meta.dev(), meta.ino()))
            } else {
                (kind.is_dir(), (dev, entry.ino()))
            };
            if is_dir {
                // A folder may be another file system's root: its files are of its device.
                let dev = if kind.is_dir() { std::fs::metadata(entry.path())?.dev() } else { id.0 };
                stack.push((entry.path(), dev));
            } else {
                let path = entry.path();
                let rel = path.strip_prefix(root).expect("under the root");
                files.push((rel.to_string_lossy().into_owned(), id));
            }
        }
    }
    Ok(files)
}

/// Reads every file under `root`, scanning the pages, with `threads` threads.
pub fn scan_site(root: &Path, threads: usize) -> std::io::Result<Site> {
    scan_site_reusing(root, threads, &HashMap::new()).map(|(site, _)| site)
}

/// [`scan_site`], taking a page's links from `known` instead of reading it when the page is a
/// file scanned before; also returns the identity of every page.
pub fn scan_site_reusing(
    root: &Path,
    threads: usize,
    known: &HashMap<FileId, PageLinks>,
) -> std::io::Result<(Site, BTreeMap<String, FileId>)> {
    let mut files = Vec::new();
    let mut ids = BTreeMap::new();
    for (rel, id) in files_with_ids(root)? {
        if rel.ends_with(".html") {
            ids.insert(rel.clone(), id);
        }
        files.push(rel);
    }
    let mut site = Site::default();
    let mut pages = Vec::new();
    for (rel, id) in &ids {
        match known.get(id) {
            Some(links) => {
                site.pages.insert(rel.clone(), links.clone());
            }
            None => pages.push(rel),
        }
    }
    // Pages differ in size by a thousand times (a source page against a constant's): each
    // thread takes the next page when it is done with its last.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let scanned: Vec<std::io::Result<Vec<(String, PageLinks)>>> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads.clamp(1, pages.len().max(1)))
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(rel) = pages.get(i) else { return Ok(done) };
                        let bytes = std::fs::read(root.join(rel))?;
                        done.push(((*rel).clone(), scan_page(&String::from_utf8_lossy(&bytes))));
                    }
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().expect("scanner panicked")).collect()
    });
    for part in scanned {
        site.pages.extend(part?);
    }
    site.files = files.into_iter().collect();
    Ok((site, ids))
}

/// The report as text: totals, then broken links grouped by reason, `limit` of each shown.
pub fn render(report: &Report, limit: usize) -> String {
    let mut out = format!(
        "{} pages, {} links checked, {} to other sites (not followed), {} broken\n",
        report.pages,
        report.checked,
        report.external,
        report.broken.len()
    );
    for (b, why) in &report.known {
        out.push_str(&format!("  known upstream mistake: {} -> {} ({why})\n", b.page, b.link));
    }
    let mut by_reason: BTreeMap<Reason, Vec<&Broken>> = BTreeMap::new();
    for b in &report.broken {
        by_reason.entry(b.reason).or_default().push(b);
    }
    for (reason, broken) in by_reason {
        out.push_str(&format!("  {}: {}\n", reason.describe(), broken.len()));
        for b in broken.iter().take(limit) {
            out.push_str(&format!("    {} -> {}\n", b.page, b.link));
        }
        if broken.len() > limit {
            out.push_str(&format!("    ... and {} more\n", broken.len() - limit));
        }
    }
    out
}

#[cfg(test)]
mod tests;
