//! The suite's one freshness mechanism: a result is up to date while a SHA-256 of what went
//! into it is the same, contents included, never sizes and times (a rebuilt file with the same
//! bytes is fresh; a changed one with the same size and time is not). The workbench's input
//! stamps, the demo's reuse and docs-site's crate stamps and site fingerprints are made here.
//!
//! Two exceptions answer another question, what kbuild has written since a moment, the way make
//! and git answer it: by times. [`tree_times`] tells whether kbuild would find anything to do;
//! a [`Stamp`] tells whether a file or directory is still the one read (kbuild's `.cmd` files,
//! which `kbuild::scan` reads again only when theirs moved).
//!
//! And where results are kept: the suite's cache, [`suite_cache`].

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// How long after its last change a file's times are trusted to say it did not change again:
/// a file written twice within the clock's granularity keeps its time (git's "racily clean"
/// files), and the file system's clock may be a few milliseconds coarse.
pub const SETTLED_AFTER: Duration = Duration::from_secs(2);

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
    let settled = stat.1.elapsed().is_ok_and(|age| age > SETTLED_AFTER);
    if settled {
        let entry = (stat.0, stat.1, hash.clone());
        seen.lock().unwrap_or_else(|e| e.into_inner()).insert(path.to_owned(), entry);
    }
    Some(hash)
}

/// A hash of what make sees of the trees under `roots`: every entry's path, type, size and
/// modification time (to the nanosecond), symbolic links not followed. make decides what to
/// rebuild by comparing times, so while this hash and make's command and environment are the
/// same as right after a build that succeeded, make would rebuild nothing: kbuild's walk of
/// every `.cmd` file (4 to 5 s on the demo trees) can be skipped. A tree walk costs a tenth of
/// that (0.6 s for 97,000 entries).
pub fn tree_times(roots: &[&Path]) -> std::io::Result<String> {
    let mut hash = Sha256::new();
    walk_times(roots, &mut |_, record| hash.update(record))?;
    Ok(hex(&hash.finalize()))
}

/// [`tree_times`] in parts, to say where a tree changed: for each root, a hash of its own
/// entries (under the root's path), then one of each of its folders' whole trees (under the
/// folder's path; an empty folder has none), in the walk's order.
pub fn tree_times_parts(roots: &[&Path]) -> std::io::Result<Vec<(PathBuf, String)>> {
    let mut parts: Vec<(PathBuf, Sha256)> = Vec::new();
    walk_times(roots, &mut |part, record| match parts.last_mut() {
        Some((last, hash)) if last == part => hash.update(record),
        _ => parts.push((part.to_owned(), Sha256::new_with_prefix(record))),
    })?;
    Ok(parts.into_iter().map(|(part, hash)| (part, hex(&hash.finalize()))).collect())
}

/// Walks the trees under `roots`, giving `record` each entry's line (its path, type, size and
/// time) with the part it belongs to ([`tree_times_parts`]). Entries are given in order and
/// folders walked after their parent's entries, so the order is fixed by the trees alone, and
/// each part's entries come one after the other.
fn walk_times(roots: &[&Path], record: &mut dyn FnMut(&Path, &[u8])) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    // Each folder to read, with its part: `None` for a root, whose part is itself.
    let mut stack: Vec<(PathBuf, Option<PathBuf>)> =
        roots.iter().rev().map(|r| (r.to_path_buf(), None)).collect();
    while let Some((dir, part)) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&dir)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.file_name());
        let mut subdirs = Vec::new();
        for entry in entries {
            let meta = entry.metadata()?;
            let kind = if meta.is_dir() {
                let path = entry.path();
                subdirs.push((path.clone(), Some(part.clone().unwrap_or(path))));
                'd'
            } else if meta.is_symlink() {
                'l'
            } else {
                'f'
            };
            let line = format!(
                "{}\0{kind}{} {}.{}\n",
                entry.path().display(),
                meta.len(),
                meta.mtime(),
                meta.mtime_nsec()
            );
            record(part.as_deref().unwrap_or(&dir), line.as_bytes());
        }
        stack.extend(subdirs.into_iter().rev());
    }
    Ok(())
}

/// What the file system says of an entry, without reading it: its device and inode, size, and
/// modification and change times to the nanosecond (the change time moves with every write and
/// cannot be set back, as a copy that keeps times sets the modification time). Two equal stamps
/// of a settled entry mean it was not written in between; for a directory, that no entry was
/// added, removed or renamed in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    /// The stamp of `meta` (not following a symbolic link's target when it came from
    /// `symlink_metadata`).
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: (meta.mtime(), meta.mtime_nsec()),
            ctime: (meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// The stamp of what `stat(2)` returned: its `st_dev`, `st_ino`, `st_size`, and its
    /// `st_mtim` and `st_ctim` as seconds and nanoseconds.
    pub fn from_stat(dev: u64, ino: u64, size: u64, mtime: (i64, i64), ctime: (i64, i64)) -> Stamp {
        Stamp { dev, ino, size, mtime, ctime }
    }

    /// The stamp of `meta` if the entry last changed [`SETTLED_AFTER`] or longer before `now`:
    /// only such a stamp can say later that the entry did not change. `None` for one that
    /// changed since, or whose time is ahead of `now`.
    pub fn settled(meta: &std::fs::Metadata, now: SystemTime) -> Option<Stamp> {
        Stamp::of(meta).settled_at(now)
    }

    /// This stamp if its entry last changed [`SETTLED_AFTER`] or longer before `now`
    /// ([`Stamp::settled`]).
    pub fn settled_at(self, now: SystemTime) -> Option<Stamp> {
        let stamp = self;
        let at = |(secs, nanos): (i64, i64)| {
            let secs = u64::try_from(secs).ok()?;
            let nanos = u32::try_from(nanos).ok()?;
            SystemTime::UNIX_EPOCH.checked_add(Duration::new(secs, nanos))
        };
        let last = at(stamp.mtime)?.max(at(stamp.ctime)?);
        now.duration_since(last).is_ok_and(|age| age >= SETTLED_AFTER).then_some(stamp)
    }
}

/// The environment variable through which the Makefile passes its `CACHE`.
pub const CACHE_ENV: &str = "RUST_KERNEL_TOOLS_CACHE";

/// The suite's cache: `RUST_KERNEL_TOOLS_CACHE` (which the Makefile sets from its `CACHE`),
/// else the Makefile's default, `$XDG_CACHE_HOME` or `$HOME/.cache`, then
/// `rust-kernel-tools`. Relative paths are ignored, as the XDG specification asks.
pub fn cache_dir(
    suite_cache: Option<OsString>,
    xdg_cache_home: Option<OsString>,
    home: Option<OsString>,
) -> Option<PathBuf> {
    let absolute = |v: Option<OsString>| v.map(PathBuf::from).filter(|p| p.is_absolute());
    absolute(suite_cache).or_else(|| {
        absolute(xdg_cache_home)
            .or_else(|| absolute(home).map(|h| h.join(".cache")))
            .map(|c| c.join("rust-kernel-tools"))
    })
}

/// The suite's cache ([`cache_dir`]) from this process's environment.
pub fn suite_cache() -> Option<PathBuf> {
    cache_dir(
        std::env::var_os(CACHE_ENV),
        std::env::var_os("XDG_CACHE_HOME"),
        std::env::var_os("HOME"),
    )
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

    #[test]
    fn tree_times_change_with_any_entry_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let (src, obj) = (dir.path().join("srctree"), dir.path().join("objtree"));
        std::fs::create_dir_all(src.join("rust/kernel")).unwrap();
        std::fs::create_dir_all(&obj).unwrap();
        std::fs::write(src.join("rust/kernel/lib.rs"), "//! kernel").unwrap();
        std::fs::write(obj.join("vmlinux"), "elf").unwrap();
        let of = || tree_times(&[&src, &obj]).unwrap();
        let built = of();
        assert_eq!(of(), built, "nothing changed");

        let lib =
            std::fs::File::options().write(true).open(src.join("rust/kernel/lib.rs")).unwrap();
        let then = std::fs::metadata(src.join("rust/kernel/lib.rs")).unwrap().modified().unwrap();
        lib.set_modified(then + Duration::from_nanos(1)).unwrap();
        assert_ne!(of(), built, "a time moved by a nanosecond");
        lib.set_modified(then).unwrap();
        assert_eq!(of(), built, "and back");

        std::fs::write(obj.join("vmlinux.o"), "").unwrap();
        assert_ne!(of(), built, "a new, empty file");
        std::fs::remove_file(obj.join("vmlinux.o")).unwrap();
        assert_eq!(of(), built);
        std::os::unix::fs::symlink("vmlinux", obj.join("link")).unwrap();
        assert_ne!(of(), built, "a symbolic link");
        std::fs::remove_file(obj.join("link")).unwrap();

        // The roots are told apart: the same file moved from one tree to the other is a change.
        std::fs::rename(obj.join("vmlinux"), src.join("vmlinux")).unwrap();
        assert_ne!(of(), built, "vmlinux moved to the srctree");
        assert!(tree_times(&[&dir.path().join("missing")]).is_err());
    }

    #[test]
    fn tree_times_parts_say_which_folder_changed() {
        let dir = tempfile::tempdir().unwrap();
        let (src, obj) = (dir.path().join("srctree"), dir.path().join("objtree"));
        std::fs::create_dir_all(src.join("rust/kernel")).unwrap();
        std::fs::create_dir_all(obj.join("rust")).unwrap();
        std::fs::create_dir_all(obj.join("samples")).unwrap();
        std::fs::write(src.join("rust/kernel/lib.rs"), "//! kernel").unwrap();
        std::fs::write(obj.join("vmlinux"), "elf").unwrap();
        std::fs::write(obj.join("rust/.kernel.o.cmd"), "savedcmd").unwrap();
        std::fs::write(obj.join("samples/Makefile"), "obj-y += rust/").unwrap();
        let parts = || tree_times_parts(&[&src, &obj]).unwrap();
        let names: Vec<PathBuf> = parts().into_iter().map(|(p, _)| p).collect();
        let expect = [&src, &src.join("rust"), &obj, &obj.join("rust"), &obj.join("samples")];
        assert_eq!(names, expect.map(|p| p.to_owned()));

        let changed = |before: &[(PathBuf, String)]| -> Vec<PathBuf> {
            let after = parts();
            after.iter().filter(|p| !before.contains(p)).map(|(p, _)| p.clone()).collect()
        };
        let built = parts();
        std::fs::write(obj.join("rust/.kernel.o.cmd"), "savedcmd_rust/kernel.o").unwrap();
        assert_eq!(changed(&built), [obj.join("rust")], "a file in a folder rewritten");
        let built = parts();
        std::fs::write(obj.join("samples/.rust_minimal.o.cmd"), "savedcmd").unwrap();
        let (top, samples) = (obj.clone(), obj.join("samples"));
        assert_eq!(changed(&built), [top, samples], "a file added: its folder's time moved");
        let built = parts();
        std::fs::write(obj.join("vmlinux"), "elf, relinked").unwrap();
        assert_eq!(changed(&built), std::slice::from_ref(&obj), "a file at the top");
    }

    #[test]
    fn a_stamp_changes_with_any_write_and_settles() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".kernel.o.cmd");
        std::fs::write(&path, "savedcmd_rust/kernel.o := rustc").unwrap();
        let meta = || std::fs::symlink_metadata(&path).unwrap();
        let first = Stamp::of(&meta());
        assert_eq!(Stamp::of(&meta()), first, "read again, nothing written");
        let now = SystemTime::now();
        assert_eq!(Stamp::settled(&meta(), now), None, "written just now");
        assert_eq!(Stamp::settled(&meta(), now + SETTLED_AFTER), Some(first));
        assert_eq!(Stamp::settled(&meta(), now - SETTLED_AFTER), None, "from the future");

        // The same size, the modification time set back: the change time still moved.
        let then = meta().modified().unwrap();
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(&path, "savedcmd_rust/kernel.o := gcc  ").unwrap();
        std::fs::File::options().write(true).open(&path).unwrap().set_modified(then).unwrap();
        assert_eq!(meta().len(), first.size);
        assert_ne!(Stamp::of(&meta()), first, "rewritten, its time set back");

        // Replaced by another file of the same name.
        let replaced = Stamp::of(&meta());
        std::fs::write(dir.path().join("new"), "savedcmd_rust/kernel.o := gcc  ").unwrap();
        std::fs::rename(dir.path().join("new"), &path).unwrap();
        assert_ne!(Stamp::of(&meta()), replaced, "renamed over");
    }

    #[test]
    fn the_cache_is_the_makefiles() {
        let os = |s: &str| Some(OsString::from(s));
        let check = |suite, xdg, home, expect: Option<&str>| {
            assert_eq!(cache_dir(suite, xdg, home), expect.map(PathBuf::from));
        };
        check(os("/c"), os("/x"), os("/h"), Some("/c"));
        check(None, os("/x"), os("/h"), Some("/x/rust-kernel-tools"));
        check(None, None, os("/h"), Some("/h/.cache/rust-kernel-tools"));
        check(None, os("relative"), os("/h"), Some("/h/.cache/rust-kernel-tools"));
        check(None, None, None, None);
    }
}
