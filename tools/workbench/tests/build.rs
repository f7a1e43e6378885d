//! `build`'s skip of kbuild, against a real `make` on a small tree with kbuild's `O=` layout:
//! skipped only while nothing make reads has changed, and never after a failure.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use workbench::WorkbenchError;
use workbench::build::{BuildReport, build};

/// The trees and the build log of a test in `root`: (srctree, objtree, log).
struct Trees {
    src: PathBuf,
    obj: PathBuf,
    log: PathBuf,
}

impl Trees {
    fn new(root: &Path) -> Trees {
        tree(root);
        Trees {
            src: root.join("srctree"),
            obj: root.join("objtree"),
            log: root.join("logs/kernel-build.log"),
        }
    }

    fn build(&self, jobs: usize) -> Result<BuildReport, WorkbenchError> {
        build(&self.src, &self.obj, jobs, &self.log)
    }
}

/// A srctree whose Makefile "links" `vmlinux` in `O=` from `main.c`, as kbuild is run.
fn tree(root: &Path) {
    fs::create_dir_all(root.join("srctree")).unwrap();
    fs::create_dir_all(root.join("objtree")).unwrap();
    fs::write(root.join("srctree/Makefile"), "$(O)/vmlinux: main.c\n\tcat main.c > $(O)/vmlinux\n")
        .unwrap();
    fs::write(root.join("srctree/main.c"), "int main;\n").unwrap();
}

#[test]
fn kbuild_is_skipped_only_while_nothing_it_reads_changed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let trees = Trees::new(root);
    let (src, obj) = (&trees.src, &trees.obj);
    let run = |jobs| trees.build(jobs).unwrap();

    let first = run(1);
    assert!(first.relinked && !first.skipped, "{first:?}");
    assert!(root.join("logs/kernel-build.stamp").is_file());
    let again = run(1);
    assert!(again.skipped && !again.relinked, "{again:?}");
    assert_eq!(again.state, first.state, "the state a skip reports is the one recorded");

    // An edit, even one that keeps the size, is seen by its time, as make sees it.
    let main = src.join("main.c");
    fs::write(&main, "int mian;\n").unwrap();
    let later = SystemTime::now() + Duration::from_secs(2);
    fs::File::options().write(true).open(&main).unwrap().set_modified(later).unwrap();
    let edited = run(1);
    assert!(edited.relinked && !edited.skipped, "{edited:?}");
    assert_eq!(fs::read_to_string(obj.join("vmlinux")).unwrap(), "int mian;\n");
    assert!(run(1).skipped);

    // Another command line is another build.
    let other = run(2);
    assert!(!other.skipped, "-j2 after -j1: {other:?}");
    assert!(run(2).skipped);

    // A build that fails leaves no stamp, so the next one runs make again.
    fs::write(src.join("Makefile"), "$(O)/vmlinux: missing.c\n\tcat missing.c > $@\n").unwrap();
    assert!(trees.build(2).is_err());
    assert!(!root.join("logs/kernel-build.stamp").exists());
    tree(root);
    let mended = run(2);
    assert!(!mended.skipped, "{mended:?}");
}

#[test]
fn a_tree_whose_vmlinux_is_gone_is_built_again() {
    let dir = tempfile::tempdir().unwrap();
    let trees = Trees::new(dir.path());
    trees.build(1).unwrap();
    fs::remove_file(trees.obj.join("vmlinux")).unwrap();
    let rebuilt = trees.build(1).unwrap();
    assert!(!rebuilt.skipped && trees.obj.join("vmlinux").is_file(), "{rebuilt:?}");
}
