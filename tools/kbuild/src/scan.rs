//! Finds what kbuild ran: every rustc invocation saved in the `.cmd` files of a build tree
//! (an objtree, or an external module's directory).
//!
//! A scan reads every directory and every `.cmd` file's first line. Given the [`ScanRecord`]
//! of the last scan of the same tree, it reads again only what was written since: a directory
//! whose [`Stamp`] moved (an entry added, removed or renamed in it) and a `.cmd` file whose
//! stamp moved; the rest is taken from the record, as make and git trust unchanged times.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::SystemTime;

use freshness::Stamp;
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
    /// How many `.cmd` files were looked at.
    pub cmd_files: usize,
    /// How many of them were not read again: their first line was the last scan's.
    pub unchanged: usize,
}

/// What a scan saw of a tree, for the next scan of the same tree: each directory's
/// subdirectories and `.cmd` files, and each `.cmd` file's saved rustc command, under the
/// stamps they had when read. An entry that changed in the moments before the scan gets no
/// stamp, and is read again next time.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanRecord {
    /// The tree, as given to the scan.
    pub tree: PathBuf,
    /// Each directory, by its path relative to the tree (`""` for the tree itself).
    dirs: BTreeMap<String, DirRecord>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct DirRecord {
    stamp: Option<Stamp>,
    subdirs: Vec<String>,
    /// By name.
    cmds: Vec<CmdRecord>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct CmdRecord {
    name: String,
    stamp: Option<Stamp>,
    /// The first line, when it names rustc (or clippy-driver); `None` for any other command.
    rustc_line: Option<String>,
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
    let previous = previous.filter(|p| p.tree == tree);
    let mut scan = Scan::default();
    let mut record = ScanRecord { tree: tree.to_owned(), dirs: BTreeMap::new() };
    let mut level = vec![String::new()];
    while !level.is_empty() {
        let mut next = Vec::new();
        let parts = parallel_map(&level, threads, |rel| {
            let before = previous.and_then(|p| p.dirs.get(rel));
            scan_dir(&tree.join(rel), before, now)
        });
        for (rel, (part, dir)) in level.into_iter().zip(parts) {
            scan.builds.extend(part.builds);
            scan.problems.extend(part.problems);
            scan.cmd_files += part.cmd_files;
            scan.unchanged += part.unchanged;
            let subdir =
                |name: &String| if rel.is_empty() { name.clone() } else { format!("{rel}/{name}") };
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

/// The rustc invocations of the `.cmd` files in `dir`, and what it holds: its subdirectories
/// (but `.git`) and `.cmd` files, from `before` when the directory's stamp is the same.
fn scan_dir(dir: &Path, before: Option<&DirRecord>, now: SystemTime) -> (Scan, DirRecord) {
    let mut scan = Scan::default();
    let Ok(meta) = std::fs::symlink_metadata(dir) else { return (scan, DirRecord::default()) };
    let stamp = Stamp::settled(&meta, now);
    let (subdirs, cmd_names) = match before {
        Some(before) if stamp.is_some() && before.stamp == stamp => {
            (before.subdirs.clone(), before.cmds.iter().map(|c| c.name.clone()).collect())
        }
        _ => list_dir(dir),
    };
    let mut cmds = Vec::with_capacity(cmd_names.len());
    for name in cmd_names {
        let path = dir.join(&name);
        let kept = before
            .and_then(|b| b.cmds.binary_search_by(|c| c.name.cmp(&name)).ok().map(|i| &b.cmds[i]))
            .filter(|c| c.stamp.is_some())
            .filter(|c| {
                let now_stamp = std::fs::symlink_metadata(&path).ok().map(|m| Stamp::of(&m));
                c.stamp == now_stamp
            });
        scan.cmd_files += 1;
        let record = match kept {
            Some(kept) => {
                scan.unchanged += 1;
                kept.clone()
            }
            None => match read_first_line(&path, now) {
                Ok((stamp, line)) => CmdRecord { name, stamp, rustc_line: line },
                Err(e) => {
                    scan.problems.push(ScanProblem {
                        path: path.clone(),
                        message: format!("cannot read: {e}"),
                    });
                    continue;
                }
            },
        };
        if let Some(line) = &record.rustc_line {
            use_rustc_line(&path, line, &mut scan);
        }
        cmds.push(record);
    }
    (scan, DirRecord { stamp, subdirs, cmds })
}

/// The subdirectories (but `.git`) and `.cmd` files of `dir`, each sorted by name; none when it
/// cannot be read.
fn list_dir(dir: &Path) -> (Vec<String>, Vec<String>) {
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
    subdirs.sort();
    cmds.sort();
    (subdirs, cmds)
}

/// A `.cmd` file's stamp, taken before it is read (settled, see [`Stamp::settled`]), and its
/// first line when that names rustc: the saved command. The rest (dependency lists) can be long.
fn read_first_line(
    path: &Path,
    now: SystemTime,
) -> std::io::Result<(Option<Stamp>, Option<String>)> {
    let file = File::open(path)?;
    let stamp = Stamp::settled(&file.metadata()?, now);
    let mut line = Vec::new();
    BufReader::new(file).read_until(b'\n', &mut line)?;
    let line = String::from_utf8_lossy(&line);
    let rustc = line.contains("rustc ") || line.contains("clippy-driver ");
    Ok((stamp, rustc.then(|| line.into_owned())))
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
