//! The suite's one freshness mechanism: a result is up to date while a SHA-256 of what went
//! into it is the same, contents included, never sizes and times (a rebuilt file with the same
//! bytes is fresh; a changed one with the same size and time is not). The workbench's input
//! stamps, the demo's reuse and docs-site's crate stamps and site fingerprints are made here.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

/// The SHA-256 of `data`, in lowercase hex.
pub fn sha256(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

/// The SHA-256 of the file at `path`, `None` when it cannot be read.
///
/// A file is read once per process while its size and modification time stay the same: a run
/// asks again and again for the same inputs (docs-site's stamps name `libcore.rmeta`, 58 MB,
/// once per crate), and what may change between two runs is checked by its contents.
pub fn file_sha256(path: &Path) -> Option<String> {
    type Seen = HashMap<PathBuf, (u64, SystemTime, String)>;
    static SEEN: OnceLock<Mutex<Seen>> = OnceLock::new();
    let meta = std::fs::metadata(path).ok()?;
    let stat = (meta.len(), meta.modified().ok()?);
    let seen = SEEN.get_or_init(Mutex::default);
    if let Some((len, mtime, hash)) = seen.lock().unwrap_or_else(|e| e.into_inner()).get(path)
        && (*len, *mtime) == stat
    {
        return Some(hash.clone());
    }
    let hash = sha256(&std::fs::read(path).ok()?);
    // A file written in the last moments may be written again within the clock's granularity,
    // its size and time unchanged: it is not remembered (git's "racily clean" files).
    let settled = stat.1.elapsed().is_ok_and(|age| age > Duration::from_secs(2));
    if settled {
        let entry = (stat.0, stat.1, hash.clone());
        seen.lock().unwrap_or_else(|e| e.into_inner()).insert(path.to_owned(), entry);
    }
    Some(hash)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A hash of several parts, each told apart from the next (`"ab", "c"` is not `"a", "bc"`).
#[derive(Default)]
pub struct Fingerprint {
    hash: Sha256,
}

impl Fingerprint {
    /// An empty fingerprint.
    pub fn new() -> Fingerprint {
        Fingerprint::default()
    }

    /// Adds a part.
    pub fn add(&mut self, part: &str) -> &mut Fingerprint {
        self.hash.update(part.as_bytes());
        self.hash.update([0]);
        self
    }

    /// Adds a file: its path, and its contents' hash or that it is missing.
    pub fn add_file(&mut self, path: &Path) -> &mut Fingerprint {
        let contents = file_sha256(path).unwrap_or_else(|| "missing".to_owned());
        self.add(&path.display().to_string()).add(&contents)
    }

    /// The fingerprint, in lowercase hex.
    pub fn finish(self) -> String {
        hex(&self.hash.finalize())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_told_apart() {
        let of = |parts: &[&str]| {
            let mut f = Fingerprint::new();
            for p in parts {
                f.add(p);
            }
            f.finish()
        };
        assert_ne!(of(&["ab", "c"]), of(&["a", "bc"]));
        assert_eq!(of(&["a", "b"]), of(&["a", "b"]));
        assert_eq!(sha256(b"").len(), 64);
    }

    #[test]
    fn a_file_is_its_contents_not_its_time() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vmlinux");
        let of = |path: &Path| {
            let mut f = Fingerprint::new();
            f.add_file(path);
            f.finish()
        };
        let missing = of(&path);
        std::fs::write(&path, "one").unwrap();
        let one = of(&path);
        assert_ne!(one, missing);
        std::fs::write(&path, "one").unwrap();
        assert_eq!(of(&path), one, "rewritten with the same bytes");
        std::fs::write(&path, "two").unwrap();
        assert_ne!(of(&path), one, "rewritten at once, its size and perhaps its time the same");
    }
}
