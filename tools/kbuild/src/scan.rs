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
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(8);
    scan_with_threads(tree, threads)
}

fn scan_with_threads(tree: &Path, threads: usize) -> std::io::Result<Scan> {
    // The top directory must be readable; a subdirectory that is not is skipped.
    std::fs::read_dir(tree)?;
    let mut scan = Scan::default();
    let docs_output = tree.join(DOCS_OUTPUT);
    let mut level = vec![tree.to_owned()];
    while !level.is_empty() {
        let mut next = Vec::new();
        for (part, subdirs) in parallel_map(&level, threads, |dir| scan_dir(dir)) {
            scan.builds.extend(part.builds);
            scan.problems.extend(part.problems);
            scan.cmd_files += part.cmd_files;
            next.extend(subdirs.into_iter().filter(|d| *d != docs_output));
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
