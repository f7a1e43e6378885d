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
    let path = scans.join(format!("{key}.{RECORD_EXTENSION}"));
    let previous =
        std::fs::read(&path).ok().and_then(|bytes| postcard::from_bytes::<ScanRecord>(&bytes).ok());
    let (scan, record) = rescan_rust_builds(tree, previous.as_ref())?;
    if previous.as_ref() != Some(&record) {
        let bytes = postcard::to_stdvec(&record).expect("a scan record serializes");
        if keep(&path, &bytes).is_ok() {
            forget_old_trees(&scans);
        }
    }
    Ok(scan)
}

/// The scan records' file extension: they are postcard, a compact binary form of serde's data
/// model, read at every run (a tenth of the time JSON took on the demo trees, 433 folders and
/// 1634 `.cmd` files); form 2 keeps a folder's hash of its C objects' stamps as a number.
const RECORD_EXTENSION: &str = "postcard2";

/// The extensions of the records of earlier versions, removed as old trees.
const OLD_EXTENSIONS: &[&str] = &["json", "postcard"];

/// Removes the records of `scans` beyond the [`KEPT_TREES`] written last, and those of another
/// form.
fn forget_old_trees(scans: &Path) {
    let Ok(entries) = std::fs::read_dir(scans) else { return };
    let mut records: Vec<(SystemTime, PathBuf)> = entries
        .flatten()
        .filter(|e| match e.path().extension().and_then(|x| x.to_str()) {
            Some(RECORD_EXTENSION) => true,
            Some(x) if OLD_EXTENSIONS.contains(&x) => {
                let _ = std::fs::remove_file(e.path());
                false
            }
            _ => false,
        })
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
/// answer depends on the toolchain it picks, and a bare name, which `PATH` resolves, are always
/// asked.
pub fn version(
    store: Option<&Path>,
    binary: &Path,
    ask: impl FnOnce() -> anyhow::Result<String>,
) -> anyhow::Result<String> {
    version_at(store, binary, SystemTime::now(), ask)
}

fn version_at(
    store: Option<&Path>,
    binary: &Path,
    now: SystemTime,
    ask: impl FnOnce() -> anyhow::Result<String>,
) -> anyhow::Result<String> {
    let canonical = binary.is_absolute().then(|| std::fs::canonicalize(binary).ok()).flatten();
    let proxy = canonical.as_deref().and_then(Path::file_stem).is_some_and(|s| s == "rustup");
    let stamp = canonical
        .as_deref()
        .and_then(|c| std::fs::metadata(c).ok())
        .and_then(|m| Stamp::settled(&m, now));
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

#[cfg(test)]
mod tests {
    use std::cell::Cell;
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_version_is_asked_once_per_binary_while_it_is_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store");
        let ra = dir.path().join("bin/rust-analyzer");
        std::fs::create_dir_all(ra.parent().unwrap()).unwrap();
        std::fs::write(&ra, "1.95").unwrap();
        let asked = Cell::new(0);
        let version = |binary: &Path, later: u64| {
            let now = SystemTime::now() + Duration::from_secs(later);
            version_at(Some(&store), binary, now, || {
                asked.set(asked.get() + 1);
                Ok(std::fs::read_to_string(binary).unwrap_or_default())
            })
            .unwrap()
        };
        // Written just now: its times cannot yet say it is unchanged.
        assert_eq!((version(&ra, 0), asked.get()), ("1.95".to_owned(), 1));
        assert_eq!((version(&ra, 0), asked.get()), ("1.95".to_owned(), 2));
        assert_eq!((version(&ra, 3), asked.get()), ("1.95".to_owned(), 3));
        assert_eq!((version(&ra, 3), asked.get()), ("1.95".to_owned(), 3), "kept");

        // A toolchain update replaces the binary.
        std::fs::write(dir.path().join("new"), "1.96").unwrap();
        std::fs::rename(dir.path().join("new"), &ra).unwrap();
        assert_eq!((version(&ra, 3), asked.get()), ("1.96".to_owned(), 4));
        assert_eq!((version(&ra, 3), asked.get()), ("1.96".to_owned(), 4));

        // A rustup proxy picks its toolchain each time; a bare name is PATH's to resolve.
        let rustup = dir.path().join("bin/rustup");
        std::fs::write(&rustup, "proxy").unwrap();
        let proxy = dir.path().join("cargo-bin/rust-analyzer");
        std::fs::create_dir_all(proxy.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&rustup, &proxy).unwrap();
        for binary in [proxy.as_path(), Path::new("rust-analyzer")] {
            let before = asked.get();
            version(binary, 3);
            version(binary, 3);
            assert_eq!(asked.get(), before + 2, "{}", binary.display());
        }
        // Without a store, always asked.
        let before = asked.get();
        for _ in 0..2 {
            let later = SystemTime::now() + Duration::from_secs(3);
            version_at(None, &ra, later, || {
                asked.set(asked.get() + 1);
                Ok(String::new())
            })
            .unwrap();
        }
        assert_eq!(asked.get(), before + 2);
    }
}
