//! One site for several kernels (`docs-site versions`, `make docs-versions`): each kernel's
//! site, as `docs-site build` made it, hard-linked into a folder named after its version, with
//! a version switcher on every page ([`switcher`]), the API changes per crate between the first
//! and the last version from rustdoc's JSON of each crate ([`api_diff`]), the `module!` keys of
//! each version ([`module_keys`]) and, for out-of-tree modules, what they use of those changes
//! ([`porting`]); the pages are made by [`pages`]. Only this file does I/O.
//!
//! The JSON of a crate is rustdoc run with the flags of the crate's build, as for its pages
//! ([`crate::plan::Job::json_command_args`]), kept in the version's work folder
//! (`<site>.work/json/<crate>/`) and reused while its inputs are unchanged
//! ([`crate::build::build_json_all`]). The combined site is built beside its target and
//! renamed into place, like a site of one kernel, and kept as it is when nothing it is made of
//! changed.

pub mod module_keys;
pub mod pages;
pub mod porting;
pub mod switcher;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use api_diff::Sides;
use freshness::Fingerprint;

use crate::build::{self, JsonConfig, Status};
use crate::html;
use crate::linkcheck;
use crate::plan::{self, CoreDocs, Kind, PlanConfig};
use crate::site::{self, Manifest, SiteError};
use pages::{CrateChanges, CrateLine, Pair, VersionLine};

/// Changes whenever what the combined site's pages say changes, so that a site in place is not
/// kept.
pub const COMBINED_VERSION: &str = "5";

/// The crates whose API is compared in full.
pub const DETAILED: &[&str] = &["kernel", "macros", "pin_init", "ffi"];
/// The crates compared in counts and a capped list (bindgen's output).
pub const SUMMARY: &[&str] = &["bindings", "uapi"];

/// One kernel of the combined site.
#[derive(Clone, Debug)]
pub struct VersionInput {
    /// Its label and folder name: `6.12`.
    pub label: String,
    /// Its source tree.
    pub srctree: PathBuf,
    /// Its built objtree.
    pub objtree: PathBuf,
    /// Its site, from `docs-site build` (`make docs KERNEL=6.12`).
    pub site: PathBuf,
    /// Its work folder (`<site>.work`), where the JSON goes.
    pub work: PathBuf,
}

/// What to build.
#[derive(Clone, Debug)]
pub struct Options {
    /// The kernels, oldest first.
    pub versions: Vec<VersionInput>,
    /// Out-of-tree modules' source folders for the porting lists.
    pub modules: Vec<PathBuf>,
    /// Where the combined site goes (replaced whole).
    pub out: PathBuf,
    /// rustdoc runs at a time.
    pub jobs: usize,
    /// The rustdoc program.
    pub rustdoc: PathBuf,
}

/// What a build did.
#[derive(Debug)]
pub struct Summary {
    /// The combined `index.html`.
    pub index: PathBuf,
    /// Whether the site in place was kept as it was.
    pub reused: bool,
    /// Each version's label and site size.
    pub sites: Vec<(String, u64)>,
    /// The bytes of files the combined site has of its own (the rest are hard links).
    pub own_size: u64,
    /// The time spent in rustdoc's JSON runs, and how many ran (not reused).
    pub json_time: Duration,
    /// JSON runs made now.
    pub json_built: usize,
    /// Each crate's change counts (or why there are none), from old to new.
    pub counts: Vec<(String, String)>,
    /// The porting lists as text.
    pub porting: Vec<String>,
    /// The link check of the combined site's own pages.
    pub links: linkcheck::Report,
    /// Wall time.
    pub total_time: Duration,
}

/// Why the combined site could not be built.
#[derive(Debug, thiserror::Error)]
pub enum VersionsError {
    /// Fewer than two versions.
    #[error("a combined site needs two versions or more (--version LABEL:SRCTREE:OBJTREE:SITE)")]
    TooFew,
    /// A version's site is missing or not ours.
    #[error(
        "the documentation of Linux {label} is not at {} ({what}): its docs build failed or never ran; run `make docs KERNEL={label}` (or `docs-site build ... --out {}`) first",
        site.display(),
        site.display()
    )]
    NoSite {
        /// The version.
        label: String,
        /// Its site.
        site: PathBuf,
        /// What is missing.
        what: String,
    },
    /// A tree is not usable.
    #[error("Linux {label}")]
    Tree {
        /// The version.
        label: String,
        /// Why.
        source: kbuild::TreeError,
    },
    /// A file or folder could not be read or written.
    #[error("cannot {what} {}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// On what.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A tool could not run.
    #[error(transparent)]
    Tool(#[from] subprocess::Error),
    /// A JSON file is not what api-diff reads.
    #[error("Linux {label}, crate {krate}")]
    Json {
        /// The version.
        label: String,
        /// The crate.
        krate: String,
        /// api-diff's error, which names the fix.
        source: api_diff::Error,
    },
    /// Assembling failed.
    #[error(transparent)]
    Site(#[from] SiteError),
}

fn io<'a>(what: &'static str, path: &'a Path) -> impl FnOnce(std::io::Error) -> VersionsError + 'a {
    move |source| VersionsError::Io { what, path: path.to_owned(), source }
}

/// The combined site's marker: what it was made of.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct CombinedManifest {
    /// Always true: tells this marker from a site's [`Manifest`].
    combined: bool,
    versions: Vec<String>,
    fingerprint: String,
    counts: Vec<(String, String)>,
    porting: Vec<String>,
    links: linkcheck::Report,
    own_size: u64,
}

/// Reads a version's site manifest, or says what to run.
fn read_manifest(v: &VersionInput) -> Result<Manifest, VersionsError> {
    let marker = v.site.join(site::MARKER);
    let no_site =
        |what: String| VersionsError::NoSite { label: v.label.clone(), site: v.site.clone(), what };
    let text = std::fs::read_to_string(&marker)
        .map_err(|e| no_site(format!("cannot read {}: {e}", marker.display())))?;
    let manifest: Manifest = serde_json::from_str(&text)
        .map_err(|e| no_site(format!("{} is not a site's manifest: {e}", marker.display())))?;
    if !v.site.join("index.html").is_file() {
        return Err(no_site("no index.html".to_owned()));
    }
    Ok(manifest)
}

fn tool_version(program: &Path, cwd: &Path) -> Result<String, VersionsError> {
    let out = subprocess::Command::new(program, cwd).arg("--version").run_checked()?;
    Ok(out.stdout.trim().to_owned())
}

/// The JSON of the API crates of one version: crate → file, or why it failed.
fn json_of_version(
    v: &VersionInput,
    options: &Options,
    time: &mut Duration,
    built: &mut usize,
) -> Result<BTreeMap<String, Result<PathBuf, String>>, VersionsError> {
    let tree_error = |source| VersionsError::Tree { label: v.label.clone(), source };
    let srctree = kbuild::Srctree::open(&v.srctree).map_err(tree_error)?;
    let objtree = kbuild::Objtree::open(&srctree, &v.objtree).map_err(tree_error)?;
    let scan = kbuild::scan_rust_builds(&objtree.path).map_err(io("read", &objtree.path))?;
    let builds: Vec<(PathBuf, kbuild::RustBuild, Kind)> = scan
        .builds
        .into_iter()
        .filter(|b| b.target.starts_with("rust/"))
        .map(|b| (b.working_dir(&objtree.path), b, Kind::Kernel))
        .collect();
    let rustc_version = tool_version(Path::new("rustc"), &objtree.path)?;
    let semver = rustc_version.split_whitespace().nth(1).unwrap_or("").to_owned();
    let rustc_minor = semver.split('.').nth(1).and_then(|m| m.parse().ok()).unwrap_or(0);
    let plan = plan::plan(
        &builds,
        &PlanConfig {
            objtree: objtree.path.clone(),
            rustc_minor,
            crate_version: srctree.version.to_string(),
            core: CoreDocs::Local,
        },
    );
    let jobs: Vec<plan::Job> = plan
        .jobs
        .into_iter()
        .filter(|j| DETAILED.contains(&j.name.as_str()) || SUMMARY.contains(&j.name.as_str()))
        .collect();
    let config = JsonConfig {
        work: v.work.clone(),
        rustdoc: options.rustdoc.clone(),
        rustdoc_version: tool_version(&options.rustdoc, &objtree.path)?,
        jobs: options.jobs,
        timeout: Duration::from_secs(3600),
    };
    let step =
        progress::start(&format!("rustdoc's JSON of {} crates of Linux {}", jobs.len(), v.label));
    let start = Instant::now();
    let results = build::build_json_all(&jobs, &config, &|r| match &r.status {
        Status::Built => {
            step.println(&format!("  {} in {}", r.name, progress::format_duration(r.elapsed)))
        }
        Status::Fresh | Status::Shared => step.println(&format!("  {} is up to date", r.name)),
        Status::Failed(_) => step.println(&format!("  rustdoc's JSON failed for {}", r.name)),
    });
    *time += start.elapsed();
    let now = results.iter().filter(|r| r.status == Status::Built).count();
    *built += now;
    step.done(&format!("{now} made, {} reused", results.len() - now));
    Ok(results
        .into_iter()
        .map(|r| {
            let file = match r.status {
                Status::Failed(why) => Err(why),
                _ => Ok(r.file),
            };
            (r.name, file)
        })
        .collect())
}

/// Every `.html` page under `root`, relative to it.
fn pages_of(root: &Path) -> Result<Vec<String>, VersionsError> {
    let files = html::html_files(root).map_err(io("read", root))?;
    Ok(files
        .into_iter()
        .filter_map(|(p, _)| Some(p.strip_prefix(root).ok()?.to_string_lossy().into_owned()))
        .collect())
}

/// The `.rs` files under `dir`, relative to it, with their text.
fn module_sources(dir: &Path) -> Result<Vec<(String, String)>, VersionsError> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).map_err(io("read", &d))? {
            let entry = entry.map_err(io("read", &d))?;
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).map_err(io("read", &path))?;
                let rel = path.strip_prefix(dir).unwrap_or(&path).to_string_lossy().into_owned();
                files.push((rel, text));
            }
        }
    }
    files.sort();
    Ok(files)
}

/// The API diffs between two versions' JSON files, per crate, and the crates documented in
/// one version only.
/// The crates compared in both versions, with their diffs.
fn compared(crates: &[CrateLine]) -> Vec<(String, &api_diff::Diff)> {
    crates
        .iter()
        .filter_map(|c| match &c.changes {
            CrateChanges::Compared { diff, .. } => Some((c.name.clone(), diff)),
            _ => None,
        })
        .collect()
}

fn diffs(
    old: (&str, &BTreeMap<String, Result<PathBuf, String>>, &Manifest),
    new: (&str, &BTreeMap<String, Result<PathBuf, String>>, &Manifest),
) -> Result<Vec<CrateLine>, VersionsError> {
    let documented = |m: &Manifest| -> BTreeSet<String> {
        m.crates
            .iter()
            .filter(|c| c.missing.is_none() && matches!(c.kind.as_str(), "kernel" | "host"))
            .map(|c| c.name.clone())
            .collect()
    };
    let (in_old, in_new) = (documented(old.2), documented(new.2));
    let mut lines = Vec::new();
    let names: BTreeSet<&String> = in_old.union(&in_new).collect();
    let order =
        |n: &str| DETAILED.iter().chain(SUMMARY).position(|c| *c == n).unwrap_or(usize::MAX);
    let mut names: Vec<&String> = names.into_iter().collect();
    names.sort_by_key(|n| (order(n), (*n).clone()));
    for name in names {
        let compared = order(name) != usize::MAX;
        let changes = match (in_old.contains(name), in_new.contains(name)) {
            (true, false) => CrateChanges::OnlyIn(old.0.to_owned()),
            (false, true) => CrateChanges::OnlyIn(new.0.to_owned()),
            _ if !compared => continue,
            _ => {
                let file = |side: (&str, &BTreeMap<String, Result<PathBuf, String>>, &Manifest)| {
                    match side.1.get(name.as_str()) {
                        Some(Ok(file)) => Ok(file.clone()),
                        Some(Err(why)) => Err(why.clone()),
                        None => Err(format!("no JSON job for {name} in Linux {}", side.0)),
                    }
                };
                match (file(old), file(new)) {
                    (Ok(o), Ok(n)) => {
                        let read = |label: &str, f: &Path| {
                            api_diff::read_crate(f).map_err(|source| VersionsError::Json {
                                label: label.to_owned(),
                                krate: name.clone(),
                                source,
                            })
                        };
                        let o = api_diff::api(&read(old.0, &o)?);
                        let n = api_diff::api(&read(new.0, &n)?);
                        CrateChanges::Compared {
                            diff: api_diff::diff(&o, &n),
                            summary: SUMMARY.contains(&name.as_str()),
                        }
                    }
                    (Err(why), _) | (_, Err(why)) => CrateChanges::Failed(why),
                }
            }
        };
        lines.push(CrateLine { name: name.clone(), changes });
    }
    Ok(lines)
}

/// The fingerprint of what the combined site is made of.
fn fingerprint(
    options: &Options,
    manifests: &[Manifest],
    json: &[BTreeMap<String, Result<PathBuf, String>>],
) -> Result<String, VersionsError> {
    let mut hash = Fingerprint::new();
    let mut add = |s: &str| {
        hash.add(s);
    };
    add(env!("CARGO_PKG_VERSION"));
    add(COMBINED_VERSION);
    add(html::REWRITE_VERSION);
    for (v, m) in options.versions.iter().zip(manifests) {
        add(&v.label);
        add(&m.fingerprint);
        add(&m.meta.build_date);
        let keys = v.srctree.join("rust/macros/module.rs");
        add(&std::fs::read_to_string(&keys).unwrap_or_default());
    }
    for files in json {
        for (name, file) in files {
            add(name);
            let stamp =
                file.as_ref().ok().and_then(|f| f.parent()?.parent().map(|d| d.join("stamp.json")));
            add(&stamp.and_then(|s| std::fs::read_to_string(s).ok()).unwrap_or_default());
        }
    }
    for dir in &options.modules {
        add(&dir.display().to_string());
        for (file, text) in module_sources(dir)? {
            add(&file);
            add(&text);
        }
    }
    Ok(hash.finish())
}

/// Builds the combined site.
pub fn build(options: &Options) -> Result<Summary, VersionsError> {
    let start = Instant::now();
    if options.versions.len() < 2 {
        return Err(VersionsError::TooFew);
    }
    site::check_out(&options.out)?;
    let manifests: Vec<Manifest> =
        options.versions.iter().map(read_manifest).collect::<Result<_, _>>()?;
    let sites: Vec<(String, u64)> =
        options.versions.iter().map(|v| (v.label.clone(), site::tree_size(&v.site))).collect();

    let (mut json_time, mut json_built) = (Duration::ZERO, 0);
    let mut json = Vec::new();
    for v in &options.versions {
        json.push(json_of_version(v, options, &mut json_time, &mut json_built)?);
    }
    let fingerprint = fingerprint(options, &manifests, &json)?;
    let index = options.out.join("index.html");
    if let Ok(text) = std::fs::read_to_string(options.out.join(site::MARKER))
        && let Ok(kept) = serde_json::from_str::<CombinedManifest>(&text)
        && kept.fingerprint == fingerprint
    {
        eprintln!("==> the combined site is up to date");
        return Ok(Summary {
            index,
            reused: true,
            sites,
            own_size: kept.own_size,
            json_time,
            json_built,
            counts: kept.counts,
            porting: kept.porting,
            links: kept.links,
            total_time: start.elapsed(),
        });
    }

    let (first, last) = (0, options.versions.len() - 1);
    let (old_v, new_v) = (&options.versions[first], &options.versions[last]);
    // The same kernel built for two architectures (`make docs-arches`): what one has and the
    // other has not, rather than what changed.
    let (old_meta, new_meta) = (&manifests[first].meta, &manifests[last].meta);
    let sides = if old_meta.kernel_version == new_meta.kernel_version
        && !old_meta.arch.is_empty()
        && !new_meta.arch.is_empty()
        && old_meta.arch != new_meta.arch
    {
        Sides::Architectures
    } else {
        Sides::Versions
    };
    let pair = Pair { old: &old_v.label, new: &new_v.label, sides };
    let step =
        progress::start(&format!("comparing the APIs of Linux {} and {}", pair.old, pair.new));
    let crates = diffs(
        (pair.old, &json[first], &manifests[first]),
        (pair.new, &json[last], &manifests[last]),
    )?;
    step.done(&format!("{} crates", crates.len()));

    let read_keys = |v: &VersionInput| {
        let path = v.srctree.join("rust/macros/module.rs");
        std::fs::read_to_string(&path).ok().and_then(|t| module_keys::extract(&t))
    };
    let keys = match (read_keys(old_v), read_keys(new_v)) {
        (Some(o), Some(n)) => Some((o, n)),
        _ => None,
    };
    let keys_diff = keys.as_ref().map(|(o, n)| module_keys::diff(o, n));
    let keys_lines =
        keys.as_ref().map(|(o, n)| module_keys::lines(o, n, pair.old, pair.new)).unwrap_or_else(
            || vec!["the keys could not be read from either rust/macros/module.rs".to_owned()],
        );

    let compared = compared(&crates);
    let mut porting_lists = Vec::new();
    let mut porting_text = Vec::new();
    for dir in &options.modules {
        let name = dir.file_name().map_or("module".into(), |n| n.to_string_lossy().into_owned());
        let files = module_sources(dir)?;
        let uses = porting::porting_list(&files, &compared, keys_diff.as_ref());
        porting_text.push(porting::render_text(&name, &uses, pair.old, pair.new));
        porting_lists.push((name, uses));
    }

    let step = progress::start("assembling the combined site");
    let tmp = site::temp_dir_for(&options.out)?;
    let result = assemble(&tmp, options, &manifests, &crates, pair, &keys_lines, &porting_lists);
    let (links, own_size) = match result {
        Ok(done) => done,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    let counts: Vec<(String, String)> = crates
        .iter()
        .map(|c| {
            let text = match &c.changes {
                CrateChanges::Compared { diff, .. } => pages::counts_text(diff),
                CrateChanges::OnlyIn(label) => format!("only in Linux {label}"),
                CrateChanges::Failed(why) => format!("not compared: {why}"),
            };
            (c.name.clone(), text)
        })
        .collect();
    let manifest = CombinedManifest {
        combined: true,
        versions: options.versions.iter().map(|v| v.label.clone()).collect(),
        fingerprint,
        counts: counts.clone(),
        porting: porting_text.clone(),
        links: links.clone(),
        own_size,
    };
    let marker = serde_json::to_string_pretty(&manifest).expect("the manifest serializes");
    crate::write_atomically(&tmp.join(site::MARKER), marker.as_bytes())
        .map_err(io("write", &tmp.join(site::MARKER)))?;
    site::swap_into_place(&tmp, &options.out)?;
    step.done(&site::format_size(own_size));
    Ok(Summary {
        index,
        reused: false,
        sites,
        own_size,
        json_time,
        json_built,
        counts,
        porting: porting_text,
        links,
        total_time: start.elapsed(),
    })
}

/// Writes the combined site into `tmp`; returns the link check of its own pages and the size
/// of its own files.
fn assemble(
    tmp: &Path,
    options: &Options,
    manifests: &[Manifest],
    crates: &[CrateLine],
    pair: Pair,
    keys_lines: &[String],
    porting_lists: &[(String, Vec<porting::Use>)],
) -> Result<(linkcheck::Report, u64), VersionsError> {
    let mut own: Vec<(String, String)> = Vec::new();
    // Each version's pages, for the switcher and the link check.
    let mut version_pages = BTreeMap::new();
    let mut groups = BTreeMap::new();
    for v in &options.versions {
        let pages = pages_of(&v.site)?;
        let lists = switcher::page_lists(&v.label, &pages);
        groups.insert(v.label.clone(), lists.keys().cloned().collect::<Vec<_>>());
        for (group, text) in lists {
            own.push((format!("versions/{}/{}", v.label, switcher::group_file(&group)), text));
        }
        version_pages.insert(v.label.clone(), pages);
    }
    // Moves between the first and last version, both ways.
    let mut moved: BTreeMap<String, BTreeMap<String, BTreeMap<String, String>>> = BTreeMap::new();
    for c in crates {
        let CrateChanges::Compared { diff, .. } = &c.changes else { continue };
        for e in diff.entries.iter().filter(|e| e.change == api_diff::ChangeKind::Moved) {
            if let (Some(o), Some(n)) = (&e.old, &e.new) {
                let (o_url, n_url) = (strip_anchor(&o.url), strip_anchor(&n.url));
                moved
                    .entry(pair.old.to_owned())
                    .or_default()
                    .entry(pair.new.to_owned())
                    .or_default()
                    .insert(o_url.clone(), n_url.clone());
                moved
                    .entry(pair.new.to_owned())
                    .or_default()
                    .entry(pair.old.to_owned())
                    .or_default()
                    .insert(n_url, o_url);
            }
        }
    }
    for v in &options.versions {
        let config = switcher::Config {
            current: v.label.clone(),
            versions: options.versions.iter().map(|v| v.label.clone()).collect(),
            groups: groups.clone(),
            moved: moved.remove(&v.label).unwrap_or_default(),
        };
        own.push((format!("{}/{}", v.label, html::VERSIONS_SCRIPT), switcher::script(&config)));
    }
    // Our pages.
    let lines: Vec<VersionLine> = options
        .versions
        .iter()
        .zip(manifests)
        .map(|(v, m)| VersionLine {
            label: v.label.clone(),
            kernel_version: m.meta.kernel_version.clone(),
            arch: m.meta.arch.clone(),
            crates: m.crates.iter().filter(|c| c.missing.is_none()).count(),
            doctests: m.doctests.clone(),
        })
        .collect();
    let mut ours = vec![
        ("index.html".to_owned(), pages::landing(&lines, pair)),
        ("changes/index.html".to_owned(), pages::changes_index(crates, pair)),
        ("changes/modules.html".to_owned(), pages::modules_page(porting_lists, pair)),
    ];
    for c in crates {
        if let CrateChanges::Compared { diff, summary } = &c.changes {
            let extra =
                if c.name == "macros" { pages::keys_section(keys_lines) } else { String::new() };
            ours.push((
                format!("changes/{}.html", c.name),
                pages::crate_page(&c.name, diff, *summary, pair, &extra),
            ));
        }
    }
    for (rel, text) in &mut ours {
        *text = pages::with_icon(text, rel.matches('/').count(), pair.old);
    }
    // Write our files first: the versions' own `versions.js` (the one that does nothing) is
    // then not linked over ours.
    for (rel, text) in own.iter().chain(&ours) {
        let path = tmp.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io("create", dir))?;
        }
        std::fs::write(&path, text).map_err(io("write", &path))?;
    }
    for v in &options.versions {
        site::link_tree(&v.site, &tmp.join(&v.label))?;
    }
    // The links of our pages, against the files of the combined site; a link to no page (an
    // item of another crate that rustdoc documents elsewhere, a numbered anchor) becomes text.
    let mut files = std::collections::HashSet::new();
    for (label, pages) in &version_pages {
        files.extend(pages.iter().map(|p| format!("{label}/{p}")));
    }
    files.extend(own.iter().chain(&ours).map(|(rel, _)| rel.clone()));
    let mut site = linkcheck::Site { pages: BTreeMap::new(), files };
    let mut targets = BTreeSet::new();
    for (rel, text) in &ours {
        let links = html::scan_page(text);
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        for link in &links.links {
            let Some(target) = html::resolve_path(dir, link.split('#').next().unwrap_or("")) else {
                continue;
            };
            // Files other than pages (the logo) are looked up on disk.
            if !site.files.contains(&target) && tmp.join(&target).is_file() {
                site.files.insert(target.clone());
            }
            if link.contains('#') {
                targets.insert(target);
            }
        }
        site.pages.insert(rel.clone(), links);
    }
    for target in &targets {
        if site.pages.contains_key(target) || !site.files.contains(target) {
            continue;
        }
        let text = std::fs::read(tmp.join(target)).map_err(io("read", &tmp.join(target)))?;
        let mut scanned = html::scan_page(&String::from_utf8_lossy(&text));
        scanned.links.clear();
        site.pages.insert(target.clone(), scanned);
    }
    let report = linkcheck::check(&site);
    let mut broken_by_page: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for b in &report.broken {
        broken_by_page.entry(b.page.clone()).or_default().insert(b.link.clone());
    }
    for (rel, text) in &mut ours {
        if let Some(broken) = broken_by_page.get(rel.as_str()) {
            *text = pages::unlink(text, broken);
            std::fs::write(tmp.join(&*rel), &*text).map_err(io("write", &tmp.join(&*rel)))?;
            site.pages.insert(rel.clone(), html::scan_page(text));
        }
    }
    let mut report = linkcheck::check(&site);
    report.pages = ours.len();
    let own_size = own.iter().chain(&ours).map(|(_, t)| t.len() as u64).sum();
    Ok((report, own_size))
}

fn strip_anchor(url: &str) -> String {
    url.split('#').next().unwrap_or(url).to_owned()
}

/// Whether `dir` holds a combined site (its marker says so).
pub fn is_combined(dir: &Path) -> Option<Vec<String>> {
    let text = std::fs::read_to_string(dir.join(site::MARKER)).ok()?;
    let manifest: CombinedManifest = serde_json::from_str(&text).ok()?;
    manifest.combined.then_some(manifest.versions)
}

/// [`linkcheck::set_aside_known`] for a combined site: each version's known upstream mistakes,
/// under its folder.
pub fn set_aside_known(report: &mut linkcheck::Report, labels: &[String]) {
    let known = |b: &linkcheck::Broken| {
        labels.iter().find_map(|label| {
            let page = b.page.strip_prefix(&format!("{label}/"))?;
            linkcheck::KNOWN_UPSTREAM
                .iter()
                .find(|k| k.page == page && k.link == b.link)
                .map(|k| k.why.to_owned())
        })
    };
    let (matched, broken): (Vec<_>, Vec<_>) =
        std::mem::take(&mut report.broken).into_iter().partition(|b| known(b).is_some());
    report.broken = broken;
    report.known = matched
        .into_iter()
        .map(|b| {
            let why = known(&b).unwrap_or_default();
            (b, why)
        })
        .collect();
}

/// The porting list of one module against the combined site's changes, as text: the diffs are
/// made again from the JSON in the versions' work folders (`docs-site versions` made it).
pub fn porting_text(options: &Options, module: &Path) -> Result<String, VersionsError> {
    if options.versions.len() < 2 {
        return Err(VersionsError::TooFew);
    }
    let manifests: Vec<Manifest> =
        options.versions.iter().map(read_manifest).collect::<Result<_, _>>()?;
    let (mut time, mut built) = (Duration::ZERO, 0);
    let mut json = Vec::new();
    for v in &options.versions {
        json.push(json_of_version(v, options, &mut time, &mut built)?);
    }
    let last = options.versions.len() - 1;
    let (old_v, new_v) = (&options.versions[0], &options.versions[last]);
    let crates = diffs(
        (&old_v.label, &json[0], &manifests[0]),
        (&new_v.label, &json[last], &manifests[last]),
    )?;
    let read_keys = |v: &VersionInput| {
        std::fs::read_to_string(v.srctree.join("rust/macros/module.rs"))
            .ok()
            .and_then(|t| module_keys::extract(&t))
    };
    let keys = match (read_keys(old_v), read_keys(new_v)) {
        (Some(o), Some(n)) => Some(module_keys::diff(&o, &n)),
        _ => None,
    };
    let compared = compared(&crates);
    let files = module_sources(module)?;
    let uses = porting::porting_list(&files, &compared, keys.as_ref());
    let name = module.file_name().map_or("module".into(), |n| n.to_string_lossy().into_owned());
    Ok(porting::render_text(&name, &uses, &old_v.label, &new_v.label))
}
