//! Finds what kbuild ran: every rustc invocation saved in the `.cmd` files of a build tree
//! (an objtree, or an external module's directory).

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

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
}

/// Reads every `.*.cmd` file under `tree` (not following symlinks, such as an objtree's
/// `source`) and keeps the rustc invocations. The tree is read one depth at a time, each
/// depth's directories shared out among threads.
pub fn scan_rust_builds(tree: &Path) -> std::io::Result<Scan> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    scan_with_threads(tree, threads)
}

fn scan_with_threads(tree: &Path, threads: usize) -> std::io::Result<Scan> {
    // The top directory must be readable; a subdirectory that is not is skipped.
    std::fs::read_dir(tree)?;
    let mut scan = Scan::default();
    let mut level = vec![tree.to_owned()];
    while !level.is_empty() {
        let mut next = Vec::new();
        for (part, subdirs) in parallel_map(&level, threads, |dir| scan_dir(dir)) {
            scan.builds.extend(part.builds);
            scan.problems.extend(part.problems);
            scan.cmd_files += part.cmd_files;
            next.extend(subdirs);
        }
        level = next;
    }
    scan.builds.sort_by(|a, b| (&a.target, &a.cmd_file).cmp(&(&b.target, &b.cmd_file)));
    scan.problems.sort_by(|a, b| (&a.path, &a.message).cmp(&(&b.path, &b.message)));
    Ok(scan)
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

/// The rustc invocations of the `.cmd` files in `dir`, and its subdirectories (but `.git`).
fn scan_dir(dir: &Path) -> (Scan, Vec<PathBuf>) {
    let mut scan = Scan::default();
    let mut subdirs = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let Ok(file_type) = entry.file_type() else { continue };
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if file_type.is_dir() {
                if name != ".git" {
                    subdirs.push(entry.path());
                }
            } else if file_type.is_file() && name.starts_with('.') && name.ends_with(".cmd") {
                scan.cmd_files += 1;
                read_cmd_file(&entry.path(), &mut scan);
            }
        }
    }
    (scan, subdirs)
}

fn read_cmd_file(path: &Path, scan: &mut Scan) {
    let problem = |message: String| ScanProblem { path: path.to_owned(), message };
    // The saved command is the first line; the rest (dependency lists) can be long.
    let mut line = Vec::new();
    let read = File::open(path).and_then(|f| BufReader::new(f).read_until(b'\n', &mut line));
    if let Err(e) = read {
        scan.problems.push(problem(format!("cannot read: {e}")));
        return;
    }
    let line = String::from_utf8_lossy(&line);
    if !line.contains("rustc ") && !line.contains("clippy-driver ") {
        return;
    }
    let Some(cmd) = parse_cmd_file(&line) else { return };
    match find_rustc(&cmd.command) {
        Ok(Some(invocation)) => scan.builds.push(RustBuild {
            cmd_file: path.to_owned(),
            target: cmd.target,
            invocation,
        }),
        Ok(None) => {}
        Err(e) => scan.problems.push(problem(format!("saved command for {}: {e}", cmd.target))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_map_keeps_the_order() {
        let items: Vec<u32> = (0..100).collect();
        for threads in [0, 1, 2, 3, 8, 200] {
            let squares = parallel_map(&items, threads, |i| i * i);
            assert_eq!(squares, items.iter().map(|i| i * i).collect::<Vec<_>>(), "{threads}");
        }
        assert_eq!(parallel_map(&[] as &[u32], 4, |i| *i), Vec::<u32>::new());
    }

    #[test]
    fn parallel_map_uses_at_most_its_threads() {
        let items: Vec<u32> = (0..64).collect();
        let ids = parallel_map(&items, 3, |_| {
            std::thread::sleep(std::time::Duration::from_millis(1));
            std::thread::current().id()
        });
        let mut distinct = ids.clone();
        distinct.sort_by_key(|id| format!("{id:?}"));
        distinct.dedup();
        assert!((1..=3).contains(&distinct.len()), "{} threads", distinct.len());
    }

    /// A tree four directories wide and three deep, each directory with a crate's `.cmd` file,
    /// a C object's, a rustc line without a crate root and a file that is no `.cmd`; and a
    /// `.git` folder.
    fn tree() -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        let mut level = vec![root.path().to_owned()];
        for depth in 0..3 {
            let mut next = Vec::new();
            for dir in &level {
                for i in 0..4 {
                    let sub = dir.join(format!("d{depth}{i}"));
                    std::fs::create_dir(&sub).unwrap();
                    let rel = sub.strip_prefix(root.path()).unwrap().display().to_string();
                    let name = rel.replace('/', "_");
                    let write = |file: &str, text: String| {
                        std::fs::write(sub.join(file), text).unwrap();
                    };
                    write(
                        ".m.o.cmd",
                        format!("savedcmd_{rel}/m.o := rustc --crate-name {name} {rel}/m.rs\n"),
                    );
                    write(".c.o.cmd", format!("savedcmd_{rel}/c.o := gcc -c {rel}/c.c\n"));
                    write(
                        ".bad.o.cmd",
                        format!("savedcmd_{rel}/bad.o := rustc --crate-name bad\n"),
                    );
                    write("m.o.cmd", String::from("savedcmd_x.o := rustc --crate-name x x.rs\n"));
                    next.push(sub);
                }
            }
            level = next;
        }
        std::fs::create_dir(root.path().join(".git")).unwrap();
        std::fs::write(root.path().join(".git/.x.o.cmd"), "savedcmd_x.o := rustc x.rs\n").unwrap();
        root
    }

    fn summary(scan: &Scan) -> (Vec<String>, Vec<String>, usize) {
        let builds = scan.builds.iter().map(|b| b.target.clone()).collect();
        let problems =
            scan.problems.iter().map(|p| format!("{}: {}", p.path.display(), p.message)).collect();
        (builds, problems, scan.cmd_files)
    }

    #[test]
    fn every_thread_count_finds_the_same() {
        let tree = tree();
        let one = summary(&scan_with_threads(tree.path(), 1).unwrap());
        // 4 + 16 + 64 directories, three `.cmd` files each.
        assert_eq!(one.0.len(), 84);
        assert_eq!(one.1.len(), 84);
        assert_eq!(one.2, 3 * 84);
        assert_eq!(one.0[0], "d00/d10/d20/m.o");
        assert!(one.0.is_sorted());
        for threads in [2, 3, 8] {
            for _ in 0..5 {
                let scan = scan_with_threads(tree.path(), threads).unwrap();
                assert_eq!(summary(&scan), one, "{threads} threads");
            }
        }
    }

    #[test]
    fn an_unreadable_top_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(scan_rust_builds(&dir.path().join("missing")).is_err());
    }
}
