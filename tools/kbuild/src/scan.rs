//! Finds what kbuild ran: every rustc invocation saved in the `.cmd` files of a build tree
//! (an objtree, or an external module's directory).
//!
//! A scan reads every directory and every `.cmd` file's first line. Given the [`ScanRecord`]
//! of the last scan of the same tree, it reads again only what was written since: a directory
//! whose [`Stamp`] moved (an entry added, removed or renamed in it), a crate's `.cmd` file whose
//! stamp moved, and, in a directory whose stamp moved, the other `.cmd` files (C objects', nine
//! in ten) when the stamp of one of them moved; the rest is taken from the record, as make and
//! git trust unchanged times.
//!
//! The other `.cmd` files of a directory whose stamp did not move are not looked at: kbuild
//! writes a `.cmd` file in place, but each rule that runs rustc or a C compiler first has it
//! write a dependency file in the same directory, which it then removes (`cmd_and_fixdep` in
//! srctree/scripts/Kbuild.include), and that moves the directory's stamp. The rules without
//! one (`if_changed`) run no rustc but for `make rusttest`'s, whose targets are phony, with
//! their `.cmd` files in the tree's top folder: there the others are always looked at. A
//! rescan of an unchanged tree so stats its directories, its crates' `.cmd` files and the top
//! folder's (482 on the 6.12 demo tree, of 2,079).

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

use freshness::Stamp;
use nix::fcntl::{AtFlags, OFlag};
use nix::sys::stat::{FileStat, Mode, fstat, fstatat};
use serde::{Deserialize, Serialize};

use crate::rustc::{RustcInvocation, find_rustc, parse_cmd_file};

/// One crate that kbuild built with rustc.
#[derive(Clone, Debug)]
pub struct RustBuild {
    /// The `.cmd` file it was read from.
    pub cmd_file: PathBuf,
    /// kbuild's target (`rust/kernel.o`, `samples/rust/rust_minimal.o`).
    pub target: String,
    /// The invocation.
    pub invocation: RustcInvocation,
}

impl RustBuild {
    /// The directory kbuild ran rustc in, which the invocation's relative paths (its root,
    /// `--target=./scripts/target.json`, `-L./rust`) are relative to.
    ///
    /// kbuild names each target relative to the directory it runs in, so a relative target
    /// (`rust/kernel.o`, read from `<objtree>/rust/.kernel.o.cmd`) says that directory: the
    /// `.cmd` file's folder less the target's own folders. That is the objtree for the kernel's
    /// crates and, since Linux 6.13 (kbuild changes into `M=` for an external module), an
    /// external module's folder (`rust_oops_null.o`, whose root is `rust_oops_null.rs`). Before
    /// 6.13, `make O= M=` ran in the objtree and named an external module's target and files by
    /// absolute paths: an absolute target means `objtree`.
    pub fn working_dir(&self, objtree: &Path) -> PathBuf {
        let target = Path::new(&self.target);
        if target.is_absolute() {
            return objtree.to_owned();
        }
        let depth = target.parent().map_or(0, |p| p.components().count());
        let dir = self.cmd_file.parent().unwrap_or(Path::new("/"));
        dir.ancestors().nth(depth).unwrap_or(dir).to_owned()
    }
}

/// The `.cmd` file kbuild saves for `file` when it makes it: `.NAME.cmd` beside it. A file
/// that has one is kbuild's output (`rust/doctests_kernel_generated.rs`, and in an in-tree build
/// `rust/kernel/generated_arch_warn_asm.rs` in the source tree), not a source.
pub fn saved_cmd_of(file: &Path) -> Option<PathBuf> {
    let name = file.file_name()?.to_string_lossy();
    Some(file.with_file_name(format!(".{name}.cmd")))
}

/// A `.cmd` file that looked like a rustc invocation but could not be used.
#[derive(Clone, Debug)]
pub struct ScanProblem {
    /// The file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub message: String,
}

/// What a scan found.
#[derive(Clone, Debug, Default)]
pub struct Scan {
    /// The rustc invocations, sorted by target.
    pub builds: Vec<RustBuild>,
    /// The `.cmd` files that could not be used; the scan goes on past them.
    pub problems: Vec<ScanProblem>,
    /// How many `.cmd` files the tree has.
    pub cmd_files: usize,
    /// How many of them were not read again: their first line was the last scan's.
    pub unchanged: usize,
}

/// What a scan saw of a tree, for the next scan of the same tree: each directory's
/// subdirectories and `.cmd` files, each crate's saved rustc command, and the stamps they had
/// when read. An entry that changed in the moments before the scan gets no stamp, and is read
/// again next time.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanRecord {
    /// The tree, as given to the scan.
    pub tree: PathBuf,
    /// Each directory, by its path relative to the tree (`""` for the tree itself). A rescan
    /// shares the record of a directory where nothing changed with the last scan's.
    dirs: BTreeMap<String, Arc<DirRecord>>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct DirRecord {
    stamp: Option<Stamp>,
    subdirs: Names,
    /// Every `.cmd` file.
    cmds: Names,
    /// Those whose first line names rustc (or clippy-driver), by name.
    rustc: Vec<CmdRecord>,
    /// A hash of the others' names and stamps ([`others_digest`]); `None` when one of them had
    /// no stamp.
    others: Option<u64>,
}

/// A directory's entries' names, sorted, each ended by a newline: one string to keep and to
/// read back rather than one per name (a name with a newline in it is no kbuild's, and is left
/// out).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
struct Names(String);

impl Names {
    fn of(mut names: Vec<String>) -> Names {
        names.retain(|name| !name.contains('\n'));
        names.sort();
        Names(names.iter().flat_map(|name| [name.as_str(), "\n"]).collect())
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.split_terminator('\n')
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct CmdRecord {
    name: String,
    stamp: Option<Stamp>,
    /// The first line: the saved command.
    line: String,
}

/// Where the kernel's documentation builders write, under an objtree: `make htmldocs`
/// (Sphinx) and `make rustdoc` (rustdoc, `Documentation/output/rust/rustdoc`). kbuild builds
/// no object there and saves no `.cmd` file, and after a `make rustdoc` it holds nine in ten of
/// the objtree's files (45,000 of 49,000 on the 6.12 demo tree): a scan does not read it.
pub const DOCS_OUTPUT: &str = "Documentation/output";

/// Reads every `.*.cmd` file under `tree` (not following symlinks, such as an objtree's
/// `source`; not in its [`DOCS_OUTPUT`]) and keeps the rustc invocations. The tree is read one
/// depth at a time, each depth's directories shared out among threads.
pub fn scan_rust_builds(tree: &Path) -> std::io::Result<Scan> {
    Ok(rescan_rust_builds(tree, None)?.0)
}

/// [`scan_rust_builds`], reading again only what changed since `previous`, the record of an
/// earlier scan of `tree` (one of another tree is not used); returns this scan's record too.
pub fn rescan_rust_builds(
    tree: &Path,
    previous: Option<&ScanRecord>,
) -> std::io::Result<(Scan, ScanRecord)> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    scan_with(tree, threads, previous, SystemTime::now())
}

fn scan_with(
    tree: &Path,
    threads: usize,
    previous: Option<&ScanRecord>,
    now: SystemTime,
) -> std::io::Result<(Scan, ScanRecord)> {
    // The top directory must be readable; a subdirectory that is not is skipped.
    std::fs::read_dir(tree)?;
    // Every entry is looked at relative to the top: one path lookup per folder below it.
    let top = open_dir(tree)?;
    let previous = previous.filter(|p| p.tree == tree);
    // A rescan stats each folder and each crate's `.cmd` file, a few hundred on a kernel tree:
    // threads started for each depth cost more than they share out (on the 6.12 demo tree,
    // 1.4 ms on one thread against 2 to 3 ms on two). One after a rebuild, which reads most
    // files again, takes as long on one thread as on two while they are in the page cache
    // (20 to 24 ms either way); a first scan, which may read them from the disk, shares out.
    let threads = if previous.is_some() { 1 } else { threads };
    let mut scan = Scan::default();
    let mut record = ScanRecord { tree: tree.to_owned(), dirs: BTreeMap::new() };
    let mut level = vec![String::new()];
    while !level.is_empty() {
        let mut next = Vec::new();
        let parts = parallel_map(&level, threads, |rel| {
            let before = previous.and_then(|p| p.dirs.get(rel));
            scan_dir((&top, tree), rel, before, now)
        });
        for (rel, (part, dir)) in level.into_iter().zip(parts) {
            scan.builds.extend(part.builds);
            scan.problems.extend(part.problems);
            scan.cmd_files += part.cmd_files;
            scan.unchanged += part.unchanged;
            let subdir =
                |name: &str| if rel.is_empty() { name.to_owned() } else { format!("{rel}/{name}") };
            next.extend(dir.subdirs.iter().map(subdir).filter(|d| d != DOCS_OUTPUT));
            record.dirs.insert(rel, dir);
        }
        level = next;
    }
    scan.builds.sort_by(|a, b| (&a.target, &a.cmd_file).cmp(&(&b.target, &b.cmd_file)));
    scan.problems.sort_by(|a, b| (&a.path, &a.message).cmp(&(&b.path, &b.message)));
    Ok((scan, record))
}

/// `f` of each item, in the items' order, computed on up to `threads` scoped threads that each
/// take the next item until none is left and then end: no thread waits for work.
fn parallel_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { return done };
            done.push((i, f(item)));
        }
    };
    let mut results: Vec<Option<R>> = items.iter().map(|_| None).collect();
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads).map(|_| s.spawn(work)).collect();
        for worker in workers {
            for (i, result) in worker.join().expect("scan worker panicked") {
                results[i] = Some(result);
            }
        }
    });
    results.into_iter().map(|r| r.expect("every item was taken by a thread")).collect()
}

/// The rustc invocations of the `.cmd` files in the directory `rel` of the tree (`top`, open
/// as `top_fd`), and what it holds: its subdirectories (but `.git`) and `.cmd` files, from
/// `before` when the directory's stamp is the same. A crate's `.cmd` file is read again when its
/// stamp moved; the others all together when the hash of their stamps moved, which is looked
/// at only in a directory whose stamp moved, in the top folder, or when a crate's file is no
/// longer one (see the module's documentation).
fn scan_dir(
    (top_fd, top): (&OwnedFd, &Path),
    rel: &str,
    before: Option<&Arc<DirRecord>>,
    now: SystemTime,
) -> (Scan, Arc<DirRecord>) {
    let mut scan = Scan::default();
    let at = |name: &str| {
        let mut path = String::with_capacity(rel.len() + 1 + name.len());
        if !rel.is_empty() {
            path.push_str(rel);
            path.push('/');
        }
        path.push_str(name);
        At { top_fd, top, path }
    };
    let dir =
        At { top_fd, top, path: if rel.is_empty() { ".".to_owned() } else { rel.to_owned() } };
    let Ok(stamp) = dir.stat() else { return (scan, Arc::default()) };
    let stamp = stamp.settled_at(now);
    // The directory as the last scan left it: no entry added, removed or renamed in it since.
    let unchanged_dir = before.filter(|before| stamp.is_some() && before.stamp == stamp);
    // Then none of its other `.cmd` files became a crate's, but in the top folder, where
    // `make rusttest` rewrites its phony targets' with no dependency file.
    let others_trusted = unchanged_dir.is_some() && !rel.is_empty();
    let listed;
    let (subdirs, cmds) = match unchanged_dir {
        Some(before) => (&before.subdirs, &before.cmds),
        None => {
            listed = list_dir(&top.join(rel));
            (&listed.0, &listed.1)
        }
    };
    scan.cmd_files = cmds.iter().count();
    // The crates' `.cmd` files whose stamps moved are read again; the crates' that are no
    // longer go with the other `.cmd` files.
    let mut rustc = Vec::new();
    let mut others: Vec<&str> = Vec::new();
    let mut no_longer: Vec<(&str, Option<Stamp>)> = Vec::new();
    for name in cmds.iter() {
        let crate_before = before.and_then(|b| {
            b.rustc.binary_search_by(|c| c.name.as_str().cmp(name)).ok().map(|i| &b.rustc[i])
        });
        let Some(kept) = crate_before else {
            others.push(name);
            continue;
        };
        let file = at(name);
        if kept.stamp.is_some() && kept.stamp == file.stat().ok() {
            scan.unchanged += 1;
            use_rustc_line(&file.path(), &kept.line, &mut scan);
            rustc.push(kept.clone());
        } else {
            read_cmd(&file, name, now, &mut scan, &mut rustc, &mut no_longer);
        }
    }
    let kept = before.and_then(|b| b.others.as_ref());
    let others = if others_trusted && kept.is_some() && no_longer.is_empty() {
        scan.unchanged += others.len();
        kept.copied()
    } else {
        // Otherwise the others' stamps tell whether one of them moved: then all are read.
        let mut others: Vec<(&str, Option<Stamp>)> =
            others.into_iter().map(|name| (name, at(name).stat().ok())).collect();
        let unchanged = kept.is_some_and(|kept| {
            others.iter().all(|(_, stamp)| stamp.is_some()) && others_digest(&others) == *kept
        });
        if unchanged {
            scan.unchanged += others.len();
        } else {
            let names: Vec<&str> = others.drain(..).map(|(name, _)| name).collect();
            for name in names {
                read_cmd(&at(name), name, now, &mut scan, &mut rustc, &mut others);
            }
        }
        if unchanged && no_longer.is_empty() {
            kept.copied()
        } else {
            others.append(&mut no_longer);
            others.sort_by(|a, b| a.0.cmp(b.0));
            others.iter().all(|(_, stamp)| stamp.is_some()).then(|| others_digest(&others))
        }
    };
    rustc.sort_by(|a, b| a.name.cmp(&b.name));
    // Where nothing changed, the record is the last scan's own.
    if let Some(before) = unchanged_dir
        && before.rustc == rustc
        && before.others == others
    {
        return (scan, Arc::clone(before));
    }
    let (subdirs, cmds) = (subdirs.clone(), cmds.clone());
    (scan, Arc::new(DirRecord { stamp, subdirs, cmds, rustc, others }))
}

/// An entry of the tree `top` (open as `top_fd`), by its path relative to it.
struct At<'a> {
    top_fd: &'a OwnedFd,
    top: &'a Path,
    path: String,
}

impl At<'_> {
    /// Its full path, for messages and for the builds found.
    fn path(&self) -> PathBuf {
        self.top.join(&self.path)
    }

    /// Its stamp, not following a symbolic link.
    fn stat(&self) -> nix::Result<Stamp> {
        fstatat(self.top_fd, self.path.as_str(), AtFlags::AT_SYMLINK_NOFOLLOW)
            .map(|st| stamp_of(&st))
    }

    fn open(&self) -> nix::Result<OwnedFd> {
        let flags = OFlag::O_RDONLY | OFlag::O_CLOEXEC;
        nix::fcntl::openat(self.top_fd, self.path.as_str(), flags, Mode::empty())
    }
}

/// Reads the `.cmd` file `file`, named `name`: a crate's goes in `rustc`, any other in
/// `others`, one that cannot be read is a problem.
fn read_cmd<'a>(
    file: &At<'_>,
    name: &'a str,
    now: SystemTime,
    scan: &mut Scan,
    rustc: &mut Vec<CmdRecord>,
    others: &mut Vec<(&'a str, Option<Stamp>)>,
) {
    match read_first_line(file, now) {
        Ok((stamp, line)) if is_rustc_line(&line) => {
            use_rustc_line(&file.path(), &line, scan);
            rustc.push(CmdRecord { name: name.to_owned(), stamp, line });
        }
        Ok((stamp, _)) => others.push((name, stamp)),
        Err(e) => {
            let message = format!("cannot read: {e}");
            scan.problems.push(ScanProblem { path: file.path(), message });
            others.push((name, None));
        }
    }
}

/// A hash of `.cmd` files' names and stamps, in order: SipHash, quick to take of a thousand
/// stamps, which only this program's next runs compare (another build of it that hashes
/// otherwise reads the files again).
fn others_digest(others: &[(&str, Option<Stamp>)]) -> u64 {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut hasher = DefaultHasher::new();
    others.hash(&mut hasher);
    hasher.finish()
}

/// `dir`, opened to look at what is below it ([`At`]).
fn open_dir(dir: &Path) -> nix::Result<OwnedFd> {
    nix::fcntl::open(dir, OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC, Mode::empty())
}

fn stamp_of(st: &FileStat) -> Stamp {
    // `st_size` is never negative; `st_dev` and `st_ino` are unsigned on Linux.
    #[allow(clippy::unnecessary_cast)]
    Stamp::from_stat(
        st.st_dev as u64,
        st.st_ino as u64,
        u64::try_from(st.st_size).unwrap_or(0),
        (st.st_mtime, st.st_mtime_nsec),
        (st.st_ctime, st.st_ctime_nsec),
    )
}

/// The subdirectories (but `.git`) and `.cmd` files of `dir`; none when it cannot be read.
fn list_dir(dir: &Path) -> (Names, Names) {
    let (mut subdirs, mut cmds) = (Vec::new(), Vec::new());
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let Ok(file_type) = entry.file_type() else { continue };
            let Ok(name) = entry.file_name().into_string() else { continue };
            if file_type.is_dir() {
                if name != ".git" {
                    subdirs.push(name);
                }
            } else if file_type.is_file() && name.starts_with('.') && name.ends_with(".cmd") {
                cmds.push(name);
            }
        }
    }
    (Names::of(subdirs), Names::of(cmds))
}

/// A `.cmd` file's stamp, taken before it is read (settled, see [`Stamp::settled`]), and its
/// first line: the saved command. The rest (dependency lists) can be long.
fn read_first_line(file: &At<'_>, now: SystemTime) -> std::io::Result<(Option<Stamp>, String)> {
    let fd = file.open()?;
    let stamp = stamp_of(&fstat(&fd)?).settled_at(now);
    let mut line = Vec::new();
    BufReader::new(File::from(fd)).read_until(b'\n', &mut line)?;
    Ok((stamp, String::from_utf8_lossy(&line).into_owned()))
}

/// Whether a `.cmd` file's first line names rustc (or clippy-driver, under `CLIPPY=1`).
fn is_rustc_line(line: &str) -> bool {
    line.contains("rustc ") || line.contains("clippy-driver ")
}

/// Keeps the rustc invocation of `line`, the first line of the `.cmd` file `path`.
fn use_rustc_line(path: &Path, line: &str, scan: &mut Scan) {
    let problem = |message: String| ScanProblem { path: path.to_owned(), message };
    let Some(cmd) = parse_cmd_file(line) else { return };
    match find_rustc(&cmd.command) {
        Ok(Some(invocation)) => {
            let mut build = RustBuild { cmd_file: path.to_owned(), target: cmd.target, invocation };
            if !build.invocation.crate_name_given {
                // An absolute target (an external module before 6.13) comes with an absolute
                // root, which the working folder does not change.
                let root = build.working_dir(Path::new("/")).join(&build.invocation.root);
                if let Ok(text) = std::fs::read_to_string(&root) {
                    build.invocation.name_crate_from_root(&text);
                }
            }
            scan.builds.push(build);
        }
        Ok(None) => {}
        Err(e) => scan.problems.push(problem(format!("saved command for {}: {e}", cmd.target))),
    }
}

#[cfg(test)]
mod tests;
