//! What rust-project-gen keeps between runs, in `rust-project-gen/` of the suite's cache
//! ([`freshness::suite_cache`]): the record of each tree's last scan ([`kbuild::ScanRecord`]),
//! so that a run reads again only the `.cmd` files kbuild wrote since, and each
//! rust-analyzer's `--version` under its binary's stamp. Both only save work: a record that
//! cannot be read is a scan from scratch, one that cannot be written is not kept.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use freshness::Stamp;
use kbuild::{Scan, ScanRecord, rescan_rust_builds};
use serde::{Deserialize, Serialize};

/// How many trees' records are kept: when a record is written, the least recently written
/// beyond these are removed (the trees of tests and of builds long gone).
pub const KEPT_TREES: usize = 32;

/// The folder in the suite's cache; `None` when there is no cache to use (no `$HOME`).
pub fn suite_store() -> Option<PathBuf> {
    Some(freshness::suite_cache()?.join("rust-project-gen"))
}

/// The rustc invocations kbuild saved under `tree` ([`kbuild::scan_rust_builds`]), reading
/// again only what changed since the record kept in `store`, and keeping this scan's record.
pub fn scan(store: Option<&Path>, tree: &Path) -> std::io::Result<Scan> {
    let Some(store) = store else { return kbuild::scan_rust_builds(tree) };
    let scans = store.join("scans");
    let key = freshness::sha256(tree.as_os_str().as_encoded_bytes());
    let path = scans.join(format!("{key}.json"));
    let previous = std::fs::read(&path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<ScanRecord>(&bytes).ok());
    let (scan, record) = rescan_rust_builds(tree, previous.as_ref())?;
    if previous.as_ref() != Some(&record) {
        let text = serde_json::to_vec(&record).expect("a scan record serializes");
        if keep(&path, &text).is_ok() {
            forget_old_trees(&scans);
        }
    }
    Ok(scan)
}

/// Removes the records of `scans` beyond the [`KEPT_TREES`] written last.
fn forget_old_trees(scans: &Path) {
    let Ok(entries) = std::fs::read_dir(scans) else { return };
    let mut records: Vec<(SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    records.sort_by(|a, b| b.cmp(a));
    for (_, old) in records.iter().skip(KEPT_TREES) {
        let _ = std::fs::remove_file(old);
    }
}

/// The versions asked before, by the canonical path of the binary that answered.
#[derive(Default, Serialize, Deserialize)]
struct Versions(BTreeMap<PathBuf, (Stamp, String)>);

/// What `binary --version` printed: `ask`'s answer, or the one kept in `store` while the
/// binary is the same file, unchanged (a rustup update replaces it). A rustup proxy, whose
/// answer depends on the toolchain it picks, is always asked.
pub fn version(
    store: Option<&Path>,
    binary: &Path,
    ask: impl FnOnce() -> anyhow::Result<String>,
) -> anyhow::Result<String> {
    let canonical = std::fs::canonicalize(binary).ok();
    let proxy = canonical.as_deref().and_then(Path::file_stem).is_some_and(|s| s == "rustup");
    let stamp = canonical
        .as_deref()
        .and_then(|c| std::fs::metadata(c).ok())
        .and_then(|m| Stamp::settled(&m, SystemTime::now()));
    let (Some(store), Some(canonical), Some(stamp), false) = (store, canonical, stamp, proxy)
    else {
        return ask();
    };
    let path = store.join("rust-analyzer-versions.json");
    let mut versions: Versions = std::fs::read(&path)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    if let Some((kept, version)) = versions.0.get(&canonical)
        && *kept == stamp
    {
        return Ok(version.clone());
    }
    let version = ask()?;
    versions.0.insert(canonical, (stamp, version.clone()));
    let _ = keep(&path, &serde_json::to_vec(&versions).expect("versions serialize"));
    Ok(version)
}

/// Replaces the file at `path` whole, its folder made first.
fn keep(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(path.parent().expect("a file in the store"))?;
    report::write_atomically(path, contents)
}
