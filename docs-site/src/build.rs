//! Runs the planned rustdoc jobs, in parallel, each into its own folder of the work directory,
//! and skips a crate whose inputs (arguments, toolchain, every file rustdoc read) are unchanged.
//!
//! Crates are independent runs: rustdoc reads the dependencies' metadata that kbuild built
//! (`rust/libkernel.rmeta`), not their documentation. Links between crates are made relative
//! because each run sees an (empty) folder for every other crate of the site; the search index
//! and trait implementors across crates are merged when the site is assembled
//! (`--merge=none`, then `--merge=finalize`).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use freshness::Fingerprint;

use crate::plan::Job;
use crate::{html, linkcheck};

/// What every job shares.
#[derive(Clone, Debug)]
pub struct BuildConfig {
    /// The work directory (`<work>/crates/<name>/`).
    pub work: PathBuf,
    /// The rustdoc program.
    pub rustdoc: PathBuf,
    /// `rustdoc --version`, part of every fingerprint.
    pub rustdoc_version: String,
    /// The srctree, for `srctree/` links.
    pub srctree: PathBuf,
    /// Where `srctree/` links lead (see [`html::SrctreeLinks`]).
    pub srctree_links: html::SrctreeLinks,
    /// The crates of the site that others can link to: `core` (when documented) and the
    /// kernel's crates in `rust/`. Modules are never another crate's dependency, so they are
    /// left out: adding or removing a module reuses every other crate.
    pub site_crates: Vec<String>,
    /// Where links into the Rust project's documentation that the site lacks go.
    pub upstream: html::UpstreamDocs,
    /// How many rustdoc runs at a time.
    pub jobs: usize,
    /// The limit for one run.
    pub timeout: Duration,
    /// The store of documentation that trees share (see [`shared_key`]), if any.
    pub shared: Option<PathBuf>,
}

/// The outcome of one crate.
#[derive(Clone, Debug)]
pub struct CrateResult {
    /// The crate.
    pub name: String,
    /// Its folder in the work directory.
    pub dir: PathBuf,
    /// Documented now, reused, or failed with rustdoc's message.
    pub status: Status,
    /// How long it took (0 when reused).
    pub elapsed: Duration,
}

/// Whether a crate's documentation is there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// rustdoc ran and succeeded.
    Built,
    /// The inputs were unchanged: the previous documentation is kept.
    Fresh,
    /// Another tree's documentation of the crate, the same in every input, was taken from the
    /// shared store.
    Shared,
    /// rustdoc failed (or could not run); the message says why.
    Failed(String),
}

/// What a successful run recorded: its fingerprint and what it read.
#[derive(Debug, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
struct Stamp {
    fingerprint: String,
    inputs: Vec<Input>,
}

#[derive(Debug, serde::Serialize, serde::Deserialize, PartialEq, Eq)]
struct Input {
    path: PathBuf,
    /// Its contents' hash: an input is unchanged while its bytes are.
    sha256: String,
}

/// The file of a crate's work folder that lists the links its pages lost (see
/// [`html::Rewritten::unlinked`]), one `page<TAB>link` a line.
pub const UNLINKED: &str = "unlinked.txt";

/// The folder of `job` in the work directory.
pub fn crate_dir(work: &Path, name: &str) -> PathBuf {
    work.join("crates").join(name)
}

/// The kernel's crates that take longest to document, the longest first.
const BIGGEST: [&str; 3] = ["bindings", "uapi", "kernel"];

/// When `job` starts among the others (the lowest first): the longest first, so that none is
/// left to run alone at the end. `core`, then the bindgen crates (`bindings` takes as long as
/// `core`, `uapi` a third of that), `kernel`, and the many small ones after, in plan order.
fn start_order(job: &Job) -> (bool, usize) {
    let big = BIGGEST.iter().position(|name| *name == job.name).unwrap_or(BIGGEST.len());
    (job.kind != crate::plan::Kind::Library, big)
}

/// Documents every job, `config.jobs` at a time, the biggest first; calls `on_done` as each
/// ends. A failure is recorded, and the other jobs go on.
pub fn build_all(
    jobs: &[Job],
    config: &BuildConfig,
    on_done: &(dyn Fn(&CrateResult) + Sync),
) -> Vec<CrateResult> {
    let mut results =
        run_jobs(jobs, config.jobs, start_order, &|job| build_one(job, config), on_done);
    results.sort_by(|a, b| a.name.cmp(&b.name));
    results
}

/// Runs `one` on every job, `threads` at a time, in the order of `priority` (the lowest
/// first), and calls `on_done` as each ends.
fn run_jobs<K: Ord, R: Send>(
    jobs: &[Job],
    threads: usize,
    priority: impl Fn(&Job) -> K,
    one: &(dyn Fn(&Job) -> R + Sync),
    on_done: &(dyn Fn(&R) + Sync),
) -> Vec<R> {
    let mut queue: Vec<&Job> = jobs.iter().collect();
    queue.sort_by_key(|job| priority(job));
    // Popped from the end.
    queue.reverse();
    pool(queue, threads, &|job: &Job| {
        let result = one(job);
        on_done(&result);
        result
    })
}

/// Runs `work` on every item of `queue` (taken from its end), `threads` at a time.
fn pool<T: Sync, R: Send>(
    queue: Vec<&T>,
    threads: usize,
    work: &(dyn Fn(&T) -> R + Sync),
) -> Vec<R> {
    let queue = Mutex::new(queue);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                loop {
                    let Some(item) = queue.lock().unwrap_or_else(|e| e.into_inner()).pop() else {
                        return;
                    };
                    let result = work(item);
                    results.lock().unwrap_or_else(|e| e.into_inner()).push(result);
                }
            });
        }
    });
    results.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// The fingerprint of everything but the files rustdoc reads.
fn fingerprint(job: &Job, config: &BuildConfig) -> String {
    let mut after_cwd = vec![
        format!("{:?}", config.srctree_links),
        format!("{:?}", config.upstream),
        config.srctree.display().to_string(),
    ];
    after_cwd.extend(config.site_crates.iter().cloned());
    job_fingerprint(job, &[html::REWRITE_VERSION, &config.rustdoc_version], &after_cwd)
}

/// A hash of this tool's version, `before_cwd`, the job's working directory, `after_cwd`, and
/// its environment and arguments: what decides a rustdoc run's output besides its input files.
fn job_fingerprint(job: &Job, before_cwd: &[&str], after_cwd: &[String]) -> String {
    let mut hash = Fingerprint::new();
    hash.add(env!("CARGO_PKG_VERSION"));
    for s in before_cwd {
        hash.add(s);
    }
    hash.add(&job.cwd.display().to_string());
    for s in after_cwd {
        hash.add(s);
    }
    for (k, v) in &job.env {
        hash.add(&format!("{k}={v}"));
    }
    for arg in &job.args {
        hash.add(arg);
    }
    hash.finish()
}

fn input(path: &Path) -> Option<Input> {
    Some(Input { path: path.to_owned(), sha256: freshness::file_sha256(path)? })
}

/// Whether the stamp in `dir` matches `fingerprint` and every input file is unchanged.
fn is_fresh(dir: &Path, fingerprint: &str) -> bool {
    read_stamp(dir).is_some_and(|stamp| {
        stamp.fingerprint == fingerprint && dir.join("out").is_dir() && stamp.inputs_unchanged()
    })
}

/// The stamp in `dir`, when there is a readable one.
fn read_stamp(dir: &Path) -> Option<Stamp> {
    let text = std::fs::read_to_string(dir.join("stamp.json")).ok()?;
    serde_json::from_str(&text).ok()
}

impl Stamp {
    /// Whether every file the run read still holds the same bytes.
    fn inputs_unchanged(&self) -> bool {
        self.inputs.iter().all(|i| input(&i.path).as_ref() == Some(i))
    }
}

/// Writes `dir/stamp.json` for a run with `fingerprint` that read the files of `dep_info` (paths
/// relative to `cwd`).
fn write_stamp(dir: &Path, cwd: &Path, dep_info: &Path, fingerprint: String) -> Result<(), String> {
    let io = |what: &str, path: &Path, e: std::io::Error| format!("{what} {}: {e}", path.display());
    let dep_text = std::fs::read_to_string(dep_info).map_err(|e| io("cannot read", dep_info, e))?;
    let mut inputs = Vec::new();
    for path in dep_info_inputs(&dep_text) {
        let path = cwd.join(path);
        inputs.push(
            input(&path)
                .ok_or_else(|| format!("rustdoc read {} but it is gone", path.display()))?,
        );
    }
    let stamp = Stamp { fingerprint, inputs };
    let text = serde_json::to_string_pretty(&stamp).expect("a stamp serializes");
    crate::write_atomically(&dir.join("stamp.json"), text.as_bytes())
        .map_err(|e| io("cannot write", &dir.join("stamp.json"), e))
}

fn build_one(job: &Job, config: &BuildConfig) -> CrateResult {
    let start = Instant::now();
    let dir = crate_dir(&config.work, &job.name);
    let fingerprint = fingerprint(job, config);
    let result = |status| CrateResult {
        name: job.name.clone(),
        dir: dir.clone(),
        status,
        elapsed: start.elapsed(),
    };
    if is_fresh(&dir, &fingerprint) {
        return CrateResult { elapsed: Duration::ZERO, ..result(Status::Fresh) };
    }
    let shared = config.shared.as_deref().zip(shared_key(job, config));
    if let Some((store, key)) = &shared
        && take_shared(store, &key.0, job, &dir, &fingerprint).is_ok()
    {
        return result(Status::Shared);
    }
    match run_rustdoc(job, config, &dir, fingerprint) {
        Ok(()) => {
            if let Some((store, key)) = &shared {
                // The store is a cache: a crate that cannot be shared is documented all the same.
                let _ = share(store, key, job, config, &dir);
            }
            result(Status::Built)
        }
        Err(message) => {
            // A failed crate leaves no documentation behind, so no stale pages are reused.
            let _ = std::fs::remove_file(dir.join("stamp.json"));
            let _ = std::fs::remove_dir_all(dir.join("out"));
            result(Status::Failed(message))
        }
    }
}

fn run_rustdoc(
    job: &Job,
    config: &BuildConfig,
    dir: &Path,
    fingerprint: String,
) -> Result<(), String> {
    let io = |what: &str, path: &Path, e: std::io::Error| format!("{what} {}: {e}", path.display());
    let out = dir.join("out");
    let parts = dir.join("parts");
    let dep_info = dir.join("deps.d");
    let _ = std::fs::remove_file(dir.join("stamp.json"));
    for d in [&out, &parts] {
        if d.exists() {
            std::fs::remove_dir_all(d).map_err(|e| io("cannot remove", d, e))?;
        }
    }
    std::fs::create_dir_all(&out).map_err(|e| io("cannot create", &out, e))?;
    // An empty folder per other crate makes rustdoc link to it relatively (`../core/...`).
    let others: Vec<PathBuf> = config
        .site_crates
        .iter()
        .filter(|name| **name != job.name)
        .map(|name| out.join(name))
        .collect();
    for other in &others {
        std::fs::create_dir_all(other).map_err(|e| io("cannot create", other, e))?;
    }
    let command = subprocess::Command::new(&config.rustdoc, &job.cwd)
        .args(job.command_args(&out, &parts, &dep_info))
        .timeout(config.timeout);
    let command = job.env.iter().fold(command, |command, (key, value)| command.env(key, value));
    let output = command.run().map_err(|e| e.to_string())?;
    std::fs::write(dir.join("rustdoc.log"), output.stderr.as_bytes())
        .map_err(|e| io("cannot write", &dir.join("rustdoc.log"), e))?;
    if let Err(e) = output.check(&command) {
        return Err(format!("rustdoc failed for {} ({}): {e}", job.name, job.target));
    }
    for other in &others {
        // Only the empty placeholder: rustdoc never writes into another crate's folder.
        let _ = std::fs::remove_dir(other);
    }
    let rewritten =
        html::rewrite_tree(&out, &config.srctree, &config.srctree_links, &config.upstream)
            .map_err(|e| format!("cannot post-process the pages of {}: {e}", job.name))?;
    let targets_text: String = rewritten.srctree_targets.iter().map(|t| format!("{t}\n")).collect();
    std::fs::write(dir.join("srctree-targets.txt"), targets_text)
        .map_err(|e| io("cannot write", dir, e))?;
    let unlinked_text: String =
        rewritten.unlinked.iter().map(|(page, link)| format!("{page}\t{link}\n")).collect();
    std::fs::write(dir.join(UNLINKED), unlinked_text).map_err(|e| io("cannot write", dir, e))?;
    write_stamp(dir, &job.cwd, &dep_info, fingerprint)
}

/// What the JSON runs share (see [`build_json_all`]).
#[derive(Clone, Debug)]
pub struct JsonConfig {
    /// The work directory (`<work>/json/<name>/`).
    pub work: PathBuf,
    /// The rustdoc program.
    pub rustdoc: PathBuf,
    /// `rustdoc --version`, part of every fingerprint.
    pub rustdoc_version: String,
    /// How many rustdoc runs at a time.
    pub jobs: usize,
    /// The limit for one run.
    pub timeout: Duration,
}

/// The outcome of one crate's JSON run.
#[derive(Clone, Debug)]
pub struct JsonResult {
    /// The crate.
    pub name: String,
    /// Its JSON file (`<work>/json/<name>/out/<name>.json`).
    pub file: PathBuf,
    /// Written now, reused, or failed with rustdoc's message.
    pub status: Status,
    /// How long it took (0 when reused).
    pub elapsed: Duration,
}

/// The folder of a crate's JSON run in the work directory.
pub fn json_dir(work: &Path, name: &str) -> PathBuf {
    work.join("json").join(name)
}

/// Runs rustdoc's JSON output (`--output-format json`, [`Job::command_args`]'s flags otherwise
/// the same) for every job, `config.jobs` at a time, each into its own folder of the work
/// directory, and reuses a crate whose arguments, rustdoc and input files are unchanged, like
/// [`build_all`]; calls `on_done` as each ends.
pub fn build_json_all(
    jobs: &[Job],
    config: &JsonConfig,
    on_done: &(dyn Fn(&JsonResult) + Sync),
) -> Vec<JsonResult> {
    // `kernel` and `bindings` take longest: start them first.
    let first = |job: &Job| !matches!(job.name.as_str(), "kernel" | "bindings");
    let mut results = run_jobs(jobs, config.jobs, first, &|job| json_one(job, config), on_done);
    results.sort_by(|a, b| a.name.cmp(&b.name));
    results
}

/// The fingerprint of a JSON run, but for the files rustdoc reads.
fn json_fingerprint(job: &Job, config: &JsonConfig) -> String {
    job_fingerprint(job, &["json", &config.rustdoc_version], &[])
}

fn json_one(job: &Job, config: &JsonConfig) -> JsonResult {
    let start = Instant::now();
    let dir = json_dir(&config.work, &job.name);
    let file = dir.join("out").join(format!("{}.json", job.name));
    let fingerprint = json_fingerprint(job, config);
    let result = |status| JsonResult {
        name: job.name.clone(),
        file: file.clone(),
        status,
        elapsed: start.elapsed(),
    };
    if is_fresh(&dir, &fingerprint) && file.is_file() {
        return JsonResult { elapsed: Duration::ZERO, ..result(Status::Fresh) };
    }
    match run_json(job, config, &dir, fingerprint) {
        Ok(()) => result(Status::Built),
        Err(message) => {
            let _ = std::fs::remove_file(dir.join("stamp.json"));
            let _ = std::fs::remove_dir_all(dir.join("out"));
            result(Status::Failed(message))
        }
    }
}

fn run_json(job: &Job, config: &JsonConfig, dir: &Path, fingerprint: String) -> Result<(), String> {
    let io = |what: &str, path: &Path, e: std::io::Error| format!("{what} {}: {e}", path.display());
    let out = dir.join("out");
    let dep_info = dir.join("deps.d");
    let _ = std::fs::remove_file(dir.join("stamp.json"));
    if out.exists() {
        std::fs::remove_dir_all(&out).map_err(|e| io("cannot remove", &out, e))?;
    }
    std::fs::create_dir_all(&out).map_err(|e| io("cannot create", &out, e))?;
    let command = subprocess::Command::new(&config.rustdoc, &job.cwd)
        .args(job.json_command_args(&out, &dep_info))
        .timeout(config.timeout);
    let command = job.env.iter().fold(command, |command, (key, value)| command.env(key, value));
    let output = command.run().map_err(|e| e.to_string())?;
    std::fs::write(dir.join("rustdoc.log"), output.stderr.as_bytes())
        .map_err(|e| io("cannot write", &dir.join("rustdoc.log"), e))?;
    if let Err(e) = output.check(&command) {
        return Err(format!("rustdoc's JSON output failed for {} ({}): {e}", job.name, job.target));
    }
    let file = out.join(format!("{}.json", job.name));
    if !file.is_file() {
        return Err(format!("rustdoc wrote no {} for {}", file.display(), job.name));
    }
    write_stamp(dir, &job.cwd, &dep_info, fingerprint)
}

/// The files a Makefile-style dependency list (`rustdoc --emit=dep-info`) names as inputs: the
/// prerequisites of its rules, each once, in order.
pub fn dep_info_inputs(text: &str) -> Vec<String> {
    let mut seen = BTreeMap::new();
    let joined = text.replace("\\\n", " ");
    for line in joined.lines() {
        let Some((_, prereqs)) =
            line.split_once(": ").or_else(|| line.strip_suffix(':').map(|t| (t, "")))
        else {
            continue;
        };
        if line.starts_with('#') {
            continue;
        }
        let mut word = String::new();
        let mut chars = prereqs.chars().peekable();
        let mut flush = |word: &mut String| {
            if !word.is_empty() {
                let n = seen.len();
                seen.entry(std::mem::take(word)).or_insert(n);
            }
        };
        while let Some(c) = chars.next() {
            match c {
                '\\' if chars.peek() == Some(&' ') => {
                    word.push(' ');
                    chars.next();
                }
                ' ' | '\t' => flush(&mut word),
                c => word.push(c),
            }
        }
        flush(&mut word);
    }
    let mut inputs: Vec<(usize, String)> = seen.into_iter().map(|(k, v)| (v, k)).collect();
    inputs.sort();
    inputs.into_iter().map(|(_, path)| path).collect()
}

#[cfg(test)]
mod tests;

/// The file of a crate's work folder that keeps what the link checker read of its pages, for
/// as long as its stamp is the same.
const PAGE_SCANS: &str = "page-scans.json";

/// What the link checker read of a crate's pages (`out/`), and the stamp they were made under.
#[derive(serde::Serialize, serde::Deserialize)]
struct PageScans {
    /// The hash of `stamp.json` when the pages were read.
    stamp: String,
    /// Each page, by its path under `out/`.
    pages: BTreeMap<String, html::PageLinks>,
}

/// The hash of a crate's `stamp.json`, `None` when it has none (a failed crate).
fn stamp_hash(dir: &Path) -> Option<String> {
    std::fs::read(dir.join("stamp.json")).ok().map(|bytes| freshness::sha256(&bytes))
}

/// The identity of each file under `out`, by path relative to it.
fn file_ids(out: &Path) -> BTreeMap<String, linkcheck::FileId> {
    // An unreadable folder leaves its pages to be read again.
    linkcheck::files_with_ids(out).unwrap_or_default().into_iter().collect()
}

/// What the link checker read before of the pages of the crates `results`, by file identity:
/// the scans a crate's work folder kept while its stamp is unchanged (its pages are then the
/// same files). Returns them and the crates that kept none.
pub fn kept_page_scans(
    results: &[&CrateResult],
) -> (HashMap<linkcheck::FileId, html::PageLinks>, Vec<usize>) {
    let mut known = HashMap::new();
    let mut missing = Vec::new();
    for (i, r) in results.iter().enumerate() {
        let kept = std::fs::read_to_string(r.dir.join(PAGE_SCANS))
            .ok()
            .and_then(|text| serde_json::from_str::<PageScans>(&text).ok())
            .filter(|kept| Some(&kept.stamp) == stamp_hash(&r.dir).as_ref());
        let Some(kept) = kept else {
            missing.push(i);
            continue;
        };
        let ids = file_ids(&r.dir.join("out"));
        for (rel, links) in kept.pages {
            if let Some(id) = ids.get(&rel) {
                known.insert(*id, links);
            }
        }
    }
    (known, missing)
}

/// Keeps in the work folder of each crate of `results` what `site` read of its pages (those
/// of the site that are its files, by `ids`), for the next link check.
pub fn keep_page_scans(
    results: &[&CrateResult],
    site: &linkcheck::Site,
    ids: &BTreeMap<String, linkcheck::FileId>,
) -> Result<(), String> {
    let by_id: HashMap<linkcheck::FileId, &String> = ids.iter().map(|(p, id)| (*id, p)).collect();
    for r in results {
        let Some(stamp) = stamp_hash(&r.dir) else { continue };
        let pages = file_ids(&r.dir.join("out"))
            .into_iter()
            .filter(|(rel, _)| rel.ends_with(".html"))
            .filter_map(|(rel, id)| Some((rel, site.pages.get(*by_id.get(&id)?)?.clone())))
            .collect();
        let text = serde_json::to_string(&PageScans { stamp, pages }).expect("scans serialize");
        let path = r.dir.join(PAGE_SCANS);
        crate::write_atomically(&path, text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

/// The key of a crate's documentation in the shared store, and whether its sources must be
/// shown never to name a kernel configuration option before it is shared; `None` for a crate
/// whose documentation is the tree's own.
///
/// Only a library that depends on no other crate of the site is shared: `core`. Its sources
/// are the toolchain's, so its documentation is decided by the toolchain, this tool and the
/// arguments, with the trees' paths left out and the files the arguments name inside the
/// objtree (the target specification) by their contents. The kernel configuration's cfgs
/// (`@include/generated/rustc_cfg`, every line a `--cfg=CONFIG_...`) differ from tree to tree
/// and change nothing in a crate that never names a `CONFIG_` option: they are left out of the
/// key, and [`share`] checks that the crate's sources never do.
fn shared_key(job: &Job, config: &BuildConfig) -> Option<(String, bool)> {
    if job.kind != crate::plan::Kind::Library || !job.deps.is_empty() {
        return None;
    }
    let mut key = Fingerprint::new();
    key.add(env!("CARGO_PKG_VERSION")).add(html::REWRITE_VERSION).add(&config.rustdoc_version);
    // Of the site's own crates, those a toolchain's crate can link to decide which of its links
    // stay in the site: the other crates of the toolchain.
    let toolchain_crates: Vec<&String> = config
        .upstream
        .local
        .iter()
        .filter(|c| ["alloc", "core", "proc_macro", "std", "test"].contains(&c.as_str()))
        .collect();
    key.add(&format!("{:?} {} {toolchain_crates:?}", config.srctree_links, config.upstream.base));
    key.add(&job.name);
    let cwd = job.cwd.display().to_string();
    let srctree = config.srctree.display().to_string();
    let portable = |text: &str| text.replace(&cwd, "$OBJTREE").replace(&srctree, "$SRCTREE");
    for (k, v) in &job.env {
        key.add(&format!("{k}={}", portable(v)));
    }
    let mut config_cfgs = false;
    for arg in &job.args {
        let file = match (arg.strip_prefix('@'), arg.strip_prefix("--target=")) {
            (Some(path), _) => Some(("@", path)),
            (None, Some(path)) if path.ends_with(".json") => Some(("--target=", path)),
            _ => None,
        };
        match file {
            Some((option, path)) => {
                let text = std::fs::read_to_string(job.cwd.join(path)).ok()?;
                let only_config = option == "@"
                    && text.lines().all(|l| l.is_empty() || l.starts_with("--cfg=CONFIG_"));
                if only_config {
                    config_cfgs = true;
                    key.add("@the kernel configuration's cfgs");
                } else {
                    key.add(option).add(&freshness::sha256(text.as_bytes()));
                }
            }
            None => {
                key.add(&portable(arg));
            }
        }
    }
    Some((key.finish(), config_cfgs))
}

/// The folder of a crate's documentation in the shared store.
fn shared_entry(store: &Path, key: &str, job: &Job) -> PathBuf {
    store.join(format!("{}-{}", job.name, &key[..16]))
}

/// The small files of a crate's work folder that go with its pages.
const SHARED_FILES: &[&str] = &["deps.d", "srctree-targets.txt", UNLINKED];

/// Takes the crate's documentation from the shared store into `dir` when an entry for `key` is
/// there and every file it read is unchanged; its stamp gets this tree's `fingerprint`.
fn take_shared(
    store: &Path,
    key: &str,
    job: &Job,
    dir: &Path,
    fingerprint: &str,
) -> Result<(), String> {
    let entry = shared_entry(store, key, job);
    let stamp = read_stamp(&entry).ok_or("no entry in the store")?;
    if !stamp.inputs_unchanged() {
        return Err("an input changed".to_owned());
    }
    for sub in ["out", "parts"] {
        let _ = std::fs::remove_dir_all(dir.join(sub));
        crate::site::link_tree(&entry.join(sub), &dir.join(sub)).map_err(|e| e.to_string())?;
    }
    for file in SHARED_FILES {
        std::fs::copy(entry.join(file), dir.join(file)).map_err(|e| e.to_string())?;
    }
    let stamp = Stamp { fingerprint: fingerprint.to_owned(), inputs: stamp.inputs };
    let text = serde_json::to_string_pretty(&stamp).expect("a stamp serializes");
    crate::write_atomically(&dir.join("stamp.json"), text.as_bytes()).map_err(|e| e.to_string())
}

/// Puts the crate's documentation in `dir` into the shared store (hard links), when every file
/// rustdoc read is outside the trees and, if its key left the configuration's cfgs out, none
/// of them names a `CONFIG_` option.
fn share(
    store: &Path,
    (key, config_cfgs): &(String, bool),
    job: &Job,
    config: &BuildConfig,
    dir: &Path,
) -> Result<(), String> {
    let stamp = read_stamp(dir).ok_or("no stamp")?;
    for i in &stamp.inputs {
        if i.path.starts_with(&job.cwd) || i.path.starts_with(&config.srctree) {
            return Err(format!("{} is the tree's", i.path.display()));
        }
        if *config_cfgs
            && std::fs::read(&i.path)
                .is_ok_and(|bytes| bytes.windows(b"CONFIG_".len()).any(|w| w == b"CONFIG_"))
        {
            return Err(format!("{} names a CONFIG_ option", i.path.display()));
        }
    }
    let entry = shared_entry(store, key, job);
    if read_stamp(&entry).is_some_and(|s| s.inputs_unchanged()) {
        return Ok(());
    }
    // An entry whose inputs have changed since (or half made) gives way to this one.
    let _ = std::fs::remove_dir_all(&entry);
    std::fs::create_dir_all(store).map_err(|e| e.to_string())?;
    let tmp = store.join(format!(".{}.tmp-{}", job.name, std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let made = (|| {
        for sub in ["out", "parts"] {
            crate::site::link_tree(&dir.join(sub), &tmp.join(sub)).map_err(|e| e.to_string())?;
        }
        for file in SHARED_FILES.iter().chain(&["stamp.json"]) {
            std::fs::copy(dir.join(file), tmp.join(file)).map_err(|e| e.to_string())?;
        }
        // Another process may have shared it meanwhile: its entry stands.
        std::fs::rename(&tmp, &entry).map_err(|e| e.to_string())
    })();
    if made.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    made
}
