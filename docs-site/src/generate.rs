//! From a built kernel tree to a finished site: scan what kbuild ran, plan and run rustdoc,
//! assemble, run or reuse the doctests, and swap the site into place.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use freshness::Fingerprint;
use kbuild::{Objtree, RustBuild, Srctree};

use crate::build::{self, BuildConfig, CrateResult, Status};
use crate::cdefs;
use crate::doctests::{self, Results};
use crate::html::{self, SrctreeLinks};
use crate::linkcheck;
use crate::mend::{self, Unlinked};
use crate::plan::{self, CoreDocs, Kind, PlanConfig};
use crate::site::{self, CrateEntry, Manifest, Meta, SiteError};

/// What to build.
#[derive(Clone, Debug)]
pub struct Options {
    /// The kernel source tree.
    pub srctree: PathBuf,
    /// Its built objtree.
    pub objtree: PathBuf,
    /// Build directories of out-of-tree modules (`M=`), each scanned like the objtree.
    pub extmod_dirs: Vec<PathBuf>,
    /// Where the site goes (replaced whole).
    pub out: PathBuf,
    /// Where the crates' documentation and stamps are kept between builds.
    pub work: PathBuf,
    /// Document `core` here, or link to its upstream documentation.
    pub core_upstream: bool,
    /// Where `srctree/` links go.
    pub srctree_links: SrctreeLinks,
    /// The configuration's name for the landing page.
    pub config_name: String,
    /// How many rustdoc runs at a time.
    pub jobs: usize,
    /// Boot the kernel to run its doctests (reused while its image is unchanged).
    pub doctests: bool,
    /// The rustdoc program.
    pub rustdoc: PathBuf,
    /// The store of documentation that trees share (`--shared-dir`), if any.
    pub shared: Option<PathBuf>,
}

/// What a build did.
#[derive(Debug)]
pub struct Summary {
    /// The site's `index.html`.
    pub index: PathBuf,
    /// Every crate's outcome.
    pub crates: Vec<CrateResult>,
    /// The site's size in bytes.
    pub size: u64,
    /// The doctest results, when run.
    pub doctests: Option<Results>,
    /// Problems that did not stop the build (unreadable `.cmd` files).
    pub problems: Vec<String>,
    /// The links rustdoc wrote to items it did not document, made text (see [`mend`]).
    pub unlinked: Vec<Unlinked>,
    /// The link checker's report on the site as it was swapped into place, or, when the site in
    /// place was kept as it was, the one its manifest kept (`None` for a site made before the
    /// manifest kept one).
    pub links: Option<linkcheck::Report>,
    /// The C side of the bindings' pages ([`cdefs`]), when `bindings` was documented.
    pub c_side: Option<cdefs::Applied>,
    /// Time spent in rustdoc, and in all.
    pub rustdoc_time: Duration,
    /// Wall time of the whole build.
    pub total_time: Duration,
}

/// Why no site could be built.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The trees are not usable.
    #[error(transparent)]
    Tree(#[from] kbuild::TreeError),
    /// The tree has no rustc invocations.
    #[error(
        "no rustc invocation in the .cmd files of {}: the tree is configured but not built; build it (`make kernel` for the demo tree, or `make -C <srctree> O=<objtree>`)",
        .0.display()
    )]
    NotBuilt(PathBuf),
    /// A directory could not be scanned.
    #[error("cannot read {}: {error}", path.display())]
    Read {
        /// What.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// A tool could not be run.
    #[error(transparent)]
    Tool(#[from] subprocess::Error),
    /// Assembling failed.
    #[error(transparent)]
    Site(#[from] SiteError),
    /// Every crate failed.
    #[error("rustdoc failed for every crate; the first error:\n{0}")]
    AllFailed(String),
    /// The doctests could not be run.
    #[error(transparent)]
    Doctests(#[from] doctests::DoctestError),
    /// What the link checker read of a crate's pages could not be kept in its work folder.
    #[error("{0}")]
    Scans(String),
}

/// Builds the site.
pub fn generate(options: &Options) -> Result<Summary, GenerateError> {
    let start = Instant::now();
    let srctree = Srctree::open(&options.srctree)?;
    let objtree = Objtree::open(&srctree, &options.objtree)?;
    let built = objtree.built(&srctree)?;
    site::check_out(&options.out)?;

    let (builds, problems) = read_builds(&objtree.path, &options.extmod_dirs)?;

    let rustc_version = tool_version(Path::new("rustc"), &objtree.path)?;
    let rustdoc_version = tool_version(&options.rustdoc, &objtree.path)?;
    let semver = rustc_version.split_whitespace().nth(1).unwrap_or("").to_owned();
    let core = if options.core_upstream {
        CoreDocs::Upstream(format!("https://doc.rust-lang.org/{semver}/"))
    } else {
        CoreDocs::Local
    };
    let plan = plan_jobs(&builds, &objtree.path, srctree.version.to_string(), &semver, &core);
    let config = rustdoc_config(options, &srctree.path, &plan.jobs, rustdoc_version, &semver);
    let (results, rustdoc_time) = run_rustdoc_jobs(&plan.jobs, &config)?;

    let doctest_results = if options.doctests {
        Some(doctest_results(&built, &objtree, &options.work)?)
    } else {
        None
    };

    let (size, unlinked, links, c_side) = keep_or_assemble_site(
        options,
        &srctree,
        &plan,
        &results,
        &core,
        &rustc_version,
        &built.arch.name,
        doctest_results.as_ref(),
    )?;
    Ok(Summary {
        index: options.out.join("index.html"),
        crates: results,
        size,
        doctests: doctest_results,
        problems,
        unlinked,
        links,
        c_side,
        rustdoc_time,
        total_time: start.elapsed(),
    })
}

/// A Rust build that kbuild ran, with the folder rustc ran in and its kind, as [`plan::plan`]
/// takes it.
type Build = (PathBuf, RustBuild, Kind);

/// Reads what kbuild ran in the objtree and in each external module's build folder: every
/// Rust build with the folder rustc ran in and its kind, and the `.cmd` files that could not
/// be read.
fn read_builds(
    objtree: &Path,
    extmod_dirs: &[PathBuf],
) -> Result<(Vec<Build>, Vec<String>), GenerateError> {
    let step = progress::start("reading what kbuild ran");
    let mut builds = Vec::new();
    let mut problems = Vec::new();
    let scan = kbuild::scan_rust_builds(objtree)
        .map_err(|e| GenerateError::Read { path: objtree.to_owned(), error: e })?;
    problems.extend(scan.problems.iter().map(|p| format!("{}: {}", p.path.display(), p.message)));
    if scan.builds.is_empty() {
        return Err(GenerateError::NotBuilt(objtree.to_owned()));
    }
    for b in scan.builds {
        let kind = if b.target.starts_with("rust/") { Kind::Kernel } else { Kind::Module };
        builds.push((b.working_dir(objtree), b, kind));
    }
    for dir in extmod_dirs {
        let scan = kbuild::scan_rust_builds(dir)
            .map_err(|e| GenerateError::Read { path: dir.clone(), error: e })?;
        problems
            .extend(scan.problems.iter().map(|p| format!("{}: {}", p.path.display(), p.message)));
        for b in scan.builds {
            // In the objtree before Linux 6.13, in the module's folder since.
            builds.push((b.working_dir(objtree), b, Kind::External));
        }
    }
    step.done(&format!("{} rustc invocations", builds.len()));
    Ok((builds, problems))
}

/// Plans one rustdoc job per crate of `builds`, for the rustc of version `semver` (`1.95.0`).
fn plan_jobs(
    builds: &[Build],
    objtree: &Path,
    crate_version: String,
    semver: &str,
    core: &CoreDocs,
) -> plan::Plan {
    let rustc_minor = semver.split('.').nth(1).and_then(|m| m.parse().ok()).unwrap_or(0);
    plan::plan(
        builds,
        &PlanConfig { objtree: objtree.to_owned(), rustc_minor, crate_version, core: core.clone() },
    )
}

/// What every rustdoc run shares, the crates of the site that others may link to among it.
fn rustdoc_config(
    options: &Options,
    srctree: &Path,
    jobs: &[plan::Job],
    rustdoc_version: String,
    semver: &str,
) -> BuildConfig {
    let linkable: Vec<String> = jobs
        .iter()
        .filter(|j| matches!(j.kind, Kind::Library | Kind::Kernel | Kind::Host))
        .map(|j| j.name.clone())
        .collect();
    BuildConfig {
        work: options.work.clone(),
        shared: options.shared.clone(),
        rustdoc: options.rustdoc.clone(),
        rustdoc_version,
        srctree: srctree.to_owned(),
        srctree_links: options.srctree_links.clone(),
        site_crates: linkable.clone(),
        upstream: html::UpstreamDocs {
            base: format!("https://doc.rust-lang.org/{semver}/"),
            local: linkable,
        },
        jobs: options.jobs,
        timeout: Duration::from_secs(3600),
    }
}

/// Runs rustdoc for every job (or reuses its documentation), telling of each as it ends;
/// returns every crate's outcome and the time spent, or the first error when every crate failed.
fn run_rustdoc_jobs(
    jobs: &[plan::Job],
    config: &BuildConfig,
) -> Result<(Vec<CrateResult>, Duration), GenerateError> {
    let step = progress::start(&format!("documenting {} crates", jobs.len()));
    let rustdoc_start = Instant::now();
    let results = build::build_all(jobs, config, &|r| match &r.status {
        Status::Built => step.println(&format!(
            "  documented {} in {}",
            r.name,
            progress::format_duration(r.elapsed)
        )),
        Status::Fresh => step.println(&format!("  {} is up to date", r.name)),
        Status::Shared => step.println(&format!(
            "  {} taken from the shared store: another tree's, every input the same",
            r.name
        )),
        Status::Failed(_) => step.println(&format!("  rustdoc failed for {}", r.name)),
    });
    let rustdoc_time = rustdoc_start.elapsed();
    let built_now = results.iter().filter(|r| r.status == Status::Built).count();
    let failed: Vec<&CrateResult> =
        results.iter().filter(|r| matches!(r.status, Status::Failed(_))).collect();
    step.done(&format!("{built_now} documented, {} failed", failed.len()));
    if failed.len() == results.len()
        && let Some(Status::Failed(message)) = failed.first().map(|r| &r.status)
    {
        return Err(GenerateError::AllFailed(message.clone()));
    }
    Ok((results, rustdoc_time))
}

/// Keeps the site in place when nothing it is made of changed, else assembles a new one beside
/// it and swaps that into place; returns the site's size, its links made text and its link
/// check.
#[allow(clippy::too_many_arguments)]
fn keep_or_assemble_site(
    options: &Options,
    srctree: &Srctree,
    plan: &plan::Plan,
    results: &[CrateResult],
    core: &CoreDocs,
    rustc_version: &str,
    arch: &str,
    doctest_results: Option<&Results>,
) -> Result<Kept, GenerateError> {
    // Nothing changed since the site in place was built: keep it as it is.
    let crates = crate_entries(&plan.jobs, results);
    let fingerprint =
        site_fingerprint(options, plan, &crates, results, doctest_results, rustc_version, arch);
    if let Some(manifest) = manifest_in_place(&options.out, &fingerprint)
        && results.iter().all(|r| r.status == Status::Fresh)
    {
        eprintln!("==> the site is up to date");
        return Ok((
            site::tree_size(&options.out),
            manifest.unlinked,
            manifest.links,
            manifest.c_side,
        ));
    }

    let step = progress::start("assembling the site");
    let tmp = site::temp_dir_for(&options.out)?;
    let assembled = assemble(
        &tmp,
        options,
        srctree,
        plan,
        crates,
        results,
        core,
        rustc_version,
        arch,
        doctest_results,
        fingerprint,
    );
    let assembled = match assembled {
        Ok(assembled) => assembled,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    site::swap_into_place(&tmp, &options.out)?;
    let size = site::tree_size(&options.out);
    step.done(&site::format_size(size));
    Ok((size, assembled.unlinked, Some(assembled.links), assembled.c_side))
}

/// The manifest of the site in `out` when that site was made of what `fingerprint` says and
/// its manifest kept its link check.
fn manifest_in_place(out: &Path, fingerprint: &str) -> Option<Manifest> {
    std::fs::read_to_string(out.join(site::MARKER))
        .ok()
        .and_then(|text| serde_json::from_str::<Manifest>(&text).ok())
        // A site from before its manifest kept the link check is assembled once more.
        .filter(|m| m.fingerprint == fingerprint && m.links.is_some())
}

/// What [`assemble`] found out about the site's links.
struct Assembled {
    unlinked: Vec<Unlinked>,
    links: linkcheck::Report,
    c_side: Option<cdefs::Applied>,
}

/// The site kept or assembled: its size, the links made text, its link check and its C side.
type Kept = (u64, Vec<Unlinked>, Option<linkcheck::Report>, Option<cdefs::Applied>);

/// Assembles the site in `tmp`: the documented crates linked in and merged, the kernel's logo,
/// the source view, the doctest results, a page for each missing crate, the landing page and
/// the manifest with the site's link check.
#[allow(clippy::too_many_arguments)]
fn assemble(
    tmp: &Path,
    options: &Options,
    srctree: &Srctree,
    plan: &plan::Plan,
    crates: Vec<CrateEntry>,
    results: &[CrateResult],
    core: &CoreDocs,
    rustc_version: &str,
    arch: &str,
    doctest_results: Option<&Results>,
    fingerprint: String,
) -> Result<Assembled, GenerateError> {
    let ok: Vec<&CrateResult> =
        results.iter().filter(|r| !matches!(r.status, Status::Failed(_))).collect();
    let (bound, rest): (Vec<&CrateResult>, Vec<&CrateResult>) =
        ok.iter().partition(|r| cdefs::BINDING_CRATES.contains(&r.name.as_str()));
    // Both cores, on work that writes different files: rustdoc merges the crates' search
    // indexes and trait implementors, then the other crates are linked in; beside it, the
    // bindings' pages are written with their C side, then the rest of theirs linked in around
    // them.
    let (merged, bound_side) = std::thread::scope(|s| {
        let merge = s.spawn(|| {
            merge_crates(tmp, &options.rustdoc, &ok)?;
            link_crates(tmp, &rest)
        });
        let bound_side = (|| {
            let mut targets = BTreeSet::new();
            let annotated = annotate_bindings(tmp, options, srctree, &bound, &mut targets)?;
            targets.extend(link_crates(tmp, &bound)?);
            Ok::<_, SiteError>((annotated, targets))
        })();
        (merge.join().expect("the merge thread does not panic"), bound_side)
    });
    // rustdoc's lock file, the merge's and one in each crate's documentation.
    let _ = std::fs::remove_file(tmp.join(".lock"));
    let mut targets = merged?;
    let (annotated, bound_targets) = bound_side?;
    targets.extend(bound_targets);
    let c_side = match annotated {
        Some((step, annotated)) => Some(link_to_c(tmp, plan, &ok, step, annotated, &mut targets)?),
        None => None,
    };
    copy_logo(tmp, &srctree.path)?;
    site::write_source_view(tmp, &srctree.path, &targets)?;
    let summary_line = match doctest_results {
        Some(results) => {
            apply_doctests(tmp, &srctree.path, results)?;
            Some(results.summary_line())
        }
        None => None,
    };
    write_missing_pages(tmp, &crates)?;
    let now = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let mut manifest = Manifest {
        meta: Meta {
            kernel_version: srctree.version.to_string(),
            arch: arch.to_owned(),
            config_name: options.config_name.clone(),
            rustc_version: rustc_version.to_owned(),
            build_date: site::format_utc(now),
            core: match core {
                CoreDocs::Local => "local".to_owned(),
                CoreDocs::Upstream(url) => url.clone(),
            },
        },
        crates,
        skipped: plan.skipped.iter().map(|s| (s.name.clone(), s.reason.clone())).collect(),
        doctests: summary_line,
        unlinked: Vec::new(),
        fingerprint,
        links: None,
        c_side,
    };
    let links = write_landing_page_and_check_links(tmp, &mut manifest, options.jobs, &ok)?;
    manifest.links = Some(links.clone());
    let marker = serde_json::to_string_pretty(&manifest).expect("the manifest serializes");
    write_page(tmp, site::MARKER, marker.as_bytes())?;
    Ok(Assembled { unlinked: manifest.unlinked, links, c_side: manifest.c_side })
}

/// The C side of the pages of `bindings` and `uapi` ([`cdefs::annotate`]), when `bindings` was
/// documented: read from the objtree's `vmlinux` and bindgen's headers, written into `tmp`
/// before the crates `bound` are linked in. A `vmlinux` that cannot be read leaves it out, said
/// on stderr. Returns the step under way, for [`link_to_c`].
fn annotate_bindings(
    tmp: &Path,
    options: &Options,
    srctree: &Srctree,
    bound: &[&CrateResult],
    targets: &mut BTreeSet<String>,
) -> Result<Option<(progress::Step, cdefs::Annotated)>, SiteError> {
    if !bound.iter().any(|r| r.name == "bindings") {
        return Ok(None);
    }
    let step = progress::start("linking the bindings to their C declarations");
    let c = match cdefs::read(&srctree.path, &options.objtree) {
        Ok(c) => c,
        Err(e) => {
            step.failed();
            eprintln!("  the bindings' pages do not link to C: {e}");
            return Ok(None);
        }
    };
    let docs: Vec<(&str, PathBuf)> =
        bound.iter().map(|r| (r.name.as_str(), r.dir.join("out"))).collect();
    let annotated = cdefs::annotate(tmp, &docs, &srctree.path, &c, targets)?;
    Ok(Some((step, annotated)))
}

/// The rest of the C side once every crate is in `tmp` ([`cdefs::link_to_c`]): the reverse
/// index from the sources of the other documented kernel crates.
fn link_to_c(
    tmp: &Path,
    plan: &plan::Plan,
    ok: &[&CrateResult],
    step: progress::Step,
    annotated: cdefs::Annotated,
    targets: &mut BTreeSet<String>,
) -> Result<cdefs::Applied, SiteError> {
    let documented: BTreeSet<&str> = ok.iter().map(|r| r.name.as_str()).collect();
    let sources: Vec<(String, PathBuf)> = plan
        .jobs
        .iter()
        .filter(|j| documented.contains(j.name.as_str()))
        .filter(|j| !cdefs::BINDING_CRATES.contains(&j.name.as_str()))
        .filter(|j| !matches!(j.name.as_str(), "core" | "compiler_builtins"))
        .map(|j| (j.name.clone(), j.cwd.join(&j.root)))
        .collect();
    let applied = cdefs::link_to_c(tmp, annotated, &sources, targets)?;
    step.done(&format!(
        "{} of {} pages located in C, {} with kernel-doc, {} with a layout verdict; {} header pages",
        applied.located, applied.pages, applied.with_kernel_doc, applied.with_layout, applied.headers
    ));
    Ok(applied)
}

/// Links the documentation of the crates `ok` into `tmp`; returns the `srctree/` files their
/// pages link to, for the source view.
fn link_crates(tmp: &Path, ok: &[&CrateResult]) -> Result<BTreeSet<String>, SiteError> {
    let mut targets = BTreeSet::new();
    for r in ok {
        site::link_tree(&r.dir.join("out"), tmp)?;
        if let Ok(text) = std::fs::read_to_string(r.dir.join("srctree-targets.txt")) {
            targets.extend(text.lines().map(str::to_owned));
        }
    }
    Ok(targets)
}

/// Merges what the crates `ok` documented separately into `tmp` with rustdoc's
/// `--merge=finalize`, which leaves its `.lock` there (every trait without implementors
/// elsewhere gets its empty list when the links are checked:
/// [`site::fill_missing_implementors`]).
fn merge_crates(tmp: &Path, rustdoc: &Path, ok: &[&CrateResult]) -> Result<(), SiteError> {
    // The search index, crate list and trait implementors of all crates together.
    let mut merge = subprocess::Command::new(rustdoc, tmp)
        .env("RUSTC_BOOTSTRAP", "1")
        .arg("-Zunstable-options")
        .arg("--merge=finalize")
        .arg(format!("--out-dir={}", tmp.display()));
    for r in ok {
        merge = merge.arg(format!("--include-parts-dir={}", r.dir.join("parts").display()));
    }
    merge.run_checked().map_err(|e| SiteError::Merge(e.to_string()))?;
    Ok(())
}

/// Copies the kernel's logo and its licence from the srctree into the site's static files.
fn copy_logo(tmp: &Path, srctree: &Path) -> Result<(), SiteError> {
    for file in ["logo.svg", "COPYING-logo"] {
        let from = srctree.join("Documentation/images").join(file);
        let to = tmp.join("static.files").join(file);
        std::fs::copy(&from, &to).map_err(|source| SiteError::Io {
            what: "cannot copy",
            path: from.clone(),
            source,
        })?;
    }
    Ok(())
}

/// The landing page's entry of every planned crate, by kind, with why it is missing when
/// rustdoc failed for it.
fn crate_entries(jobs: &[plan::Job], results: &[CrateResult]) -> Vec<CrateEntry> {
    let status: BTreeMap<&str, &Status> =
        results.iter().map(|r| (r.name.as_str(), &r.status)).collect();
    plan::by_kind(jobs)
        .into_iter()
        .map(|job| CrateEntry {
            name: job.name.clone(),
            kind: format!("{:?}", job.kind).to_lowercase(),
            target: job.target.clone(),
            edition: job.edition.clone(),
            missing: match status.get(job.name.as_str()) {
                Some(Status::Failed(why)) => Some(why.clone()),
                _ => None,
            },
        })
        .collect()
}

/// Writes a page where each missing crate's documentation would be, saying why it is not.
fn write_missing_pages(tmp: &Path, crates: &[CrateEntry]) -> Result<(), SiteError> {
    for c in crates.iter().filter(|c| c.missing.is_some()) {
        let page = site::landing_missing_page(c);
        let dir = tmp.join(&c.name);
        std::fs::create_dir_all(&dir).map_err(|source| SiteError::Io {
            what: "cannot create",
            path: dir.clone(),
            source,
        })?;
        std::fs::write(dir.join("index.html"), page).map_err(|source| SiteError::Io {
            what: "cannot write",
            path: dir.clone(),
            source,
        })?;
    }
    Ok(())
}

/// Writes the landing page, checks the site's links and makes text of those to undocumented
/// items, then lists them on their own page and in `manifest` (and the landing page, written
/// again); returns the link check, the known upstream mistakes set aside.
fn write_landing_page_and_check_links(
    tmp: &Path,
    manifest: &mut Manifest,
    threads: usize,
    ok: &[&CrateResult],
) -> Result<linkcheck::Report, GenerateError> {
    let search_crate = search_crate(manifest);
    let search_crate = search_crate.as_deref();
    // The size before the landing page, which is tiny.
    let size = site::format_size(site::tree_size(tmp));
    // The landing page is there when the links are checked (the source view links it), and
    // written again when it has the links made text to tell of.
    let index = site::landing_page(manifest, search_crate, Some(&size));
    write_page(tmp, "index.html", index.as_bytes())?;
    let (mut site_links, mut links, unlinked) = mend_links(tmp, threads, ok)?;
    if !unlinked.is_empty() {
        let page = mend::page(&unlinked);
        write_page(tmp, mend::PAGE, page.as_bytes())?;
        links.update_page(&mut site_links, mend::PAGE, html::scan_page(&page));
        manifest.unlinked = unlinked;
        let index = site::landing_page(manifest, search_crate, Some(&size));
        write_page(tmp, "index.html", index.as_bytes())?;
        links.update_page(&mut site_links, "index.html", html::scan_page(&index));
    }
    linkcheck::set_aside_known(&mut links, linkcheck::KNOWN_UPSTREAM);
    Ok(links)
}

/// The crate whose search the landing page offers: `kernel`, else the first documented one.
fn search_crate(manifest: &Manifest) -> Option<String> {
    manifest
        .crates
        .iter()
        .filter(|c| c.missing.is_none())
        .map(|c| c.name.as_str())
        .find(|n| *n == "kernel")
        .or_else(|| manifest.crates.iter().find(|c| c.missing.is_none()).map(|c| c.name.as_str()))
        .map(str::to_owned)
}

/// Writes the page `name` of the site in `tmp`.
fn write_page(tmp: &Path, name: &str, text: &[u8]) -> Result<(), SiteError> {
    std::fs::write(tmp.join(name), text).map_err(|source| SiteError::Io {
        what: "cannot write",
        path: tmp.join(name),
        source,
    })
}

/// Reads the site in `tmp` for the link checker and makes text of the links rustdoc wrote to
/// items it did not document (see [`mend`]), in the crates `ok`; returns the site as the
/// checker sees it now, its report (the known upstream mistakes not yet set aside), and every
/// link made text, those of the crates' own rewriting included.
fn mend_links(
    tmp: &Path,
    threads: usize,
    ok: &[&CrateResult],
) -> Result<(linkcheck::Site, linkcheck::Report, Vec<Unlinked>), GenerateError> {
    let io = |what: &'static str, path: &Path| {
        let path = path.to_owned();
        move |source| SiteError::Io { what, path, source }
    };
    let mut unlinked = Vec::new();
    for r in ok {
        let path = r.dir.join(build::UNLINKED);
        let text = std::fs::read_to_string(&path).map_err(io("cannot read", &path))?;
        for line in text.lines() {
            if let Some((page, link)) = line.split_once('\t') {
                unlinked.push(Unlinked { page: page.to_owned(), link: link.to_owned() });
            }
        }
    }
    // Pages that are the very files a crate's last link check read are not read again.
    let (known, unscanned) = build::kept_page_scans(ok);
    let (mut site, ids) =
        linkcheck::scan_site_reusing(tmp, threads, &known).map_err(io("cannot read", tmp))?;
    let unscanned: Vec<&CrateResult> = unscanned.iter().map(|&i| ok[i]).collect();
    let written = site::fill_missing_implementors(tmp, &site)?;
    site.files.extend(written);
    // The crates' pages are kept for the next check while this one runs: both only read.
    let (kept, mut report) = std::thread::scope(|s| {
        let keep = s.spawn(|| build::keep_page_scans(&unscanned, &site, &ids));
        let report = linkcheck::check_in_parallel(&site, threads);
        (keep.join().expect("the keeping thread does not panic"), report)
    });
    kept.map_err(GenerateError::Scans)?;
    let mut unknown = report.clone();
    linkcheck::set_aside_known(&mut unknown, linkcheck::KNOWN_UPSTREAM);
    let documented: BTreeSet<String> = ok.iter().map(|r| r.name.clone()).collect();
    for (page, links) in mend::candidates(&unknown.broken, &documented) {
        let path = tmp.join(&page);
        let text = std::fs::read_to_string(&path).map_err(io("cannot read", &path))?;
        if let Some((new, removed)) = mend::unlink(&text, &links, page.starts_with("src/")) {
            site::replace_file(&path, &new)?;
            site.pages.insert(page.clone(), html::scan_page(&new));
            // Only links went, no anchor: every other verdict of the report stands.
            for link in &removed {
                let forgotten = report.forget_broken(&page, link);
                debug_assert!(forgotten, "{page}: {link} was not broken");
            }
            unlinked.extend(removed.into_iter().map(|link| Unlinked { page: page.clone(), link }));
        }
    }
    unlinked.sort();
    Ok((site, report, unlinked))
}

/// What the site is made of: every crate's stamp, what the landing page lists (`crates`, and
/// the plan's skipped crates), the doctest results and the options that shape the pages. Equal
/// fingerprints mean an identical site, bar the build date.
fn site_fingerprint(
    options: &Options,
    plan: &plan::Plan,
    crates: &[CrateEntry],
    results: &[CrateResult],
    doctests: Option<&Results>,
    rustc_version: &str,
    arch: &str,
) -> String {
    let mut hash = Fingerprint::new();
    hash.add(env!("CARGO_PKG_VERSION"));
    hash.add(html::REWRITE_VERSION);
    // The bindings' C side, read from vmlinux (its DWARF says where C declares each item).
    hash.add(cdefs::VERSION);
    let vmlinux = std::fs::metadata(options.objtree.join("vmlinux")).ok();
    hash.add(&format!("{:?}", vmlinux.map(|m| (m.len(), m.modified().ok()))));
    hash.add(rustc_version);
    hash.add(arch);
    hash.add(&options.config_name);
    hash.add(&format!("{:?} {}", options.srctree_links, options.core_upstream));
    for r in results {
        hash.add(&r.name);
        hash.add(&std::fs::read_to_string(r.dir.join("stamp.json")).unwrap_or_default());
    }
    // The landing page's lists: a crate's kind or target can change with its pages unchanged.
    hash.add(&serde_json::to_string(crates).unwrap_or_default());
    for skipped in &plan.skipped {
        hash.add(&format!("{} {} {}", skipped.name, skipped.target, skipped.reason));
    }
    hash.add(&serde_json::to_string(&doctests).unwrap_or_default());
    hash.finish()
}

/// The doctest results of the `built` kernel's image: reused when this image has been booted
/// before, else a boot (a minute or so under TCG).
fn doctest_results(
    built: &kbuild::Built,
    objtree: &Objtree,
    work: &Path,
) -> Result<Results, GenerateError> {
    let bytes = std::fs::read(&built.image)
        .map_err(|e| GenerateError::Read { path: built.image.clone(), error: e })?;
    let hash = freshness::sha256(&bytes);
    let dir = work.join("doctests");
    // The results' format is part of the name: results read by an older parser are not reused.
    let cached = dir.join(format!("{}-{}.json", &hash[..16], doctests::RESULTS_VERSION));
    if let Ok(text) = std::fs::read_to_string(&cached)
        && let Ok(results) = serde_json::from_str::<Results>(&text)
    {
        eprintln!("==> doctest results of this kernel image reused ({})", results.summary_line());
        return Ok(results);
    }
    let step = progress::start("running the kernel's doctests in QEMU (KUnit)");
    let results = doctests::boot_and_collect(
        built,
        &objtree.config,
        &objtree.path,
        &dir.join("boot"),
        &mut |line| {
            if line.contains("rust_doctest") && line.contains("ok ") {
                step.message(line.trim());
            }
        },
    );
    let results = match results {
        Ok(r) => r,
        Err(e) => {
            step.failed();
            return Err(e.into());
        }
    };
    step.done(&results.summary_line());
    if results.incomplete().is_none() {
        // An incomplete run (a boot that ended early) is not kept: the next build boots again.
        let text = serde_json::to_string_pretty(&results).expect("results serialize");
        crate::write_atomically(&cached, text.as_bytes())
            .map_err(|e| GenerateError::Read { path: cached.clone(), error: e })?;
    }
    Ok(results)
}

/// Puts each doctest's badge on its item's page and writes `doctests.html`.
fn apply_doctests(site_dir: &Path, srctree: &Path, results: &Results) -> Result<(), SiteError> {
    let io = |what: &'static str, path: &Path| {
        let path = path.to_owned();
        move |source| SiteError::Io { what, path, source }
    };
    let krate = site_dir.join("kernel");
    let mut pages = BTreeMap::new();
    let mut links = Vec::new();
    if krate.is_dir() {
        for (page, _) in html::html_files(&krate).map_err(io("cannot read", &krate))? {
            let rel =
                page.strip_prefix(site_dir).expect("under the site").to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&page).map_err(io("cannot read", &page))?;
            links.extend(doctests::src_links(&rel, &text, "kernel"));
            pages.insert(rel, text);
        }
    }
    let is_inner_doc = |t: &doctests::Doctest| {
        let text = std::fs::read_to_string(srctree.join(&t.file)).unwrap_or_default();
        let line = text.lines().nth(t.line.saturating_sub(1) as usize);
        line.is_some_and(|l| l.trim_start().starts_with("//!"))
    };
    let placed = doctests::place(&results.tests, &links, "rust/kernel/", &is_inner_doc);
    let mut by_page: BTreeMap<&str, Vec<(usize, String)>> = BTreeMap::new();
    let mut item_pages = BTreeMap::new();
    for ((page, offset), tests) in &placed {
        let depth = page.matches('/').count();
        by_page.entry(page.as_str()).or_default().push((*offset, doctests::badge(tests, depth)));
        for t in tests {
            // The item's own page, rather than a page that shows it among others.
            let better = item_pages.get(&t.name).is_none_or(|p: &String| p.len() > page.len());
            if better {
                item_pages.insert(t.name.clone(), page.clone());
            }
        }
    }
    for (page, badges) in by_page {
        let text = &pages[page];
        site::replace_file(&site_dir.join(page), &doctests::insert_badges(text, &badges))?;
    }
    let source_href = |t: &doctests::Doctest| {
        let rel = t.file.strip_prefix("rust/kernel/")?;
        let href = format!("src/kernel/{rel}.html");
        if !site_dir.join(&href).is_file() {
            return None;
        }
        // An example in docs that a macro writes can have a line past the file's end (7.3's
        // `rust/kernel/sizes.rs:142`, of 134 lines): the file, then, without a line.
        let lines = std::fs::read_to_string(srctree.join(&t.file)).map_or(0, |s| s.lines().count());
        Some(if (1..=lines).contains(&(t.line as usize)) {
            format!("{href}#{}", t.line)
        } else {
            href
        })
    };
    let page = doctests::results_page(results, &item_pages, &source_href);
    std::fs::write(site_dir.join("doctests.html"), page).map_err(io("cannot write", site_dir))
}

fn tool_version(program: &Path, cwd: &Path) -> Result<String, GenerateError> {
    let out = subprocess::Command::new(program, cwd).arg("--version").run_checked()?;
    Ok(out.stdout.trim().to_owned())
}

/// The crates that could not be documented, for the summary.
pub fn failed(summary: &Summary) -> Vec<(&str, &str)> {
    summary
        .crates
        .iter()
        .filter_map(|r| match &r.status {
            Status::Failed(why) => Some((r.name.as_str(), why.as_str())),
            _ => None,
        })
        .collect()
}
