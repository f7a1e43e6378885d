//! Tests of what a scan finds out about a build, on the targets and `.cmd` paths of the demo
//! trees.

use super::*;

fn check(cmd_file: &str, target: &str, objtree: &str, expect: &str) {
    let build = RustBuild {
        cmd_file: PathBuf::from(cmd_file),
        target: target.to_owned(),
        invocation: RustcInvocation::default(),
    };
    assert_eq!(build.working_dir(Path::new(objtree)), PathBuf::from(expect), "{cmd_file}");
}

#[test]
fn rustc_ran_where_the_target_is_relative_to() {
    // The kernel's crates and samples: the objtree.
    check("/o/rust/.kernel.o.cmd", "rust/kernel.o", "/o", "/o");
    check("/o/rust/host/.libsyn.rlib.cmd", "rust/host/libsyn.rlib", "/o", "/o");
    check("/o/samples/rust/.rust_minimal.o.cmd", "samples/rust/rust_minimal.o", "/o", "/o");
}

#[test]
fn external_modules_ran_in_their_folder_since_6_13() {
    // Linux 7.3: kbuild changes into `M=`; targets and roots are relative to it.
    check("/x/rust_oops/.rust_oops_null.o.cmd", "rust_oops_null.o", "/o", "/x/rust_oops");
    check("/x/m/sub/.a.o.cmd", "sub/a.o", "/o", "/x/m");
    // Linux 6.12: `make O= M=` ran in the objtree and named the module by absolute paths.
    check("/x/rust_oops/.rust_oops_null.o.cmd", "/x/rust_oops/rust_oops_null.o", "/o", "/o");
}

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
                write(".bad.o.cmd", format!("savedcmd_{rel}/bad.o := rustc --crate-name bad\n"));
                write("m.o.cmd", String::from("savedcmd_x.o := rustc --crate-name x x.rs\n"));
                next.push(sub);
            }
        }
        level = next;
    }
    std::fs::create_dir(root.path().join(".git")).unwrap();
    std::fs::write(root.path().join(".git/.x.o.cmd"), "savedcmd_x.o := rustc x.rs\n").unwrap();
    // `make rustdoc`'s output: nothing there is read, though it looked like a crate.
    let rustdoc = root.path().join(DOCS_OUTPUT).join("rust/rustdoc");
    std::fs::create_dir_all(&rustdoc).unwrap();
    std::fs::write(rustdoc.join(".x.o.cmd"), "savedcmd_x.o := rustc x.rs\n").unwrap();
    // The same names anywhere else are the tree's.
    let other = root.path().join("d00/Documentation/output");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join(".y.o.cmd"), "savedcmd_y.o := rustc --crate-name y y.rs\n").unwrap();
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
    let one = summary(&scan_with(tree.path(), 1, None, SystemTime::now()).unwrap().0);
    // 4 + 16 + 64 directories, three `.cmd` files each, and `d00/Documentation/output`'s.
    assert_eq!(one.0.len(), 85);
    assert_eq!(one.1.len(), 84);
    assert_eq!(one.2, 3 * 84 + 1);
    assert_eq!(one.0[0], "d00/d10/d20/m.o");
    assert!(one.0.contains(&"y.o".to_owned()));
    assert!(one.0.is_sorted());
    for threads in [2, 3, 8] {
        for _ in 0..5 {
            let scan = scan_with(tree.path(), threads, None, SystemTime::now()).unwrap().0;
            assert_eq!(summary(&scan), one, "{threads} threads");
        }
    }
}

#[test]
fn an_unreadable_top_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    assert!(scan_rust_builds(&dir.path().join("missing")).is_err());
}

/// Rewrites the `.cmd` file `cmd` with `text` as kbuild's `cmd_and_fixdep` does: the compiler
/// writes a dependency file beside it, fixdep the `.cmd` file in place, and the dependency file
/// is removed (srctree/scripts/Kbuild.include).
fn kbuild_rewrites(cmd: &Path, text: &str) {
    clock_ticks();
    let name = cmd.file_name().unwrap().to_str().unwrap();
    let depfile = cmd.with_file_name(name.replace(".cmd", ".d"));
    std::fs::write(&depfile, "c.o: c.c\n").unwrap();
    std::fs::write(cmd, text).unwrap();
    std::fs::remove_file(&depfile).unwrap();
}

/// Waits until the file system's clock has moved on (it counts in ticks of a few milliseconds),
/// so that what is written next has a later time than anything written before, as it has once
/// a stamp has settled.
fn clock_ticks() {
    let dir = tempfile::tempdir().unwrap();
    let time = |name: &str| {
        std::fs::write(dir.path().join(name), "").unwrap();
        std::fs::metadata(dir.path().join(name)).unwrap().modified().unwrap()
    };
    let before = time("before");
    while time("after") == before {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Asserts that a rescan of `tree` found what a scan from scratch finds, and kept the same
/// record.
fn assert_as_fresh(tree: &Path, (scan, record): (&Scan, &ScanRecord)) {
    let (fresh, fresh_record) = scan_with(tree, 2, None, later()).unwrap();
    assert_eq!((summary(scan), record), (summary(&fresh), &fresh_record));
}

/// A time at which every file of a tree made now has settled.
fn later() -> SystemTime {
    SystemTime::now() + freshness::SETTLED_AFTER + std::time::Duration::from_secs(1)
}

#[test]
fn a_rescan_reads_only_what_was_written_since() {
    let built = tree();
    let (first, record) = scan_with(built.path(), 2, None, later()).unwrap();
    assert_eq!(first.unchanged, 0);
    let (again, again_record) = scan_with(built.path(), 2, Some(&record), later()).unwrap();
    assert_eq!(summary(&again), summary(&first));
    assert_eq!(again.unchanged, again.cmd_files, "nothing was read again");
    // Every folder's record is the last scan's own.
    assert!(record.dirs.keys().eq(again_record.dirs.keys()));
    assert!(record.dirs.values().zip(again_record.dirs.values()).all(|(a, b)| Arc::ptr_eq(a, b)));
    assert_eq!(record, again_record);
    let record = again_record;
    clock_ticks();

    // A crate's command rewritten in place to a C compiler's, the same size, its modification
    // time set back: the change time tells.
    let cmd = built.path().join("d00/d10/.m.o.cmd");
    let text = std::fs::read_to_string(&cmd).unwrap();
    let then = std::fs::metadata(&cmd).unwrap().modified().unwrap();
    std::fs::write(&cmd, text.replacen("rustc", "gcc  ", 1)).unwrap();
    std::fs::File::options().write(true).open(&cmd).unwrap().set_modified(then).unwrap();
    // A new crate in another directory, and a directory gone.
    let new = built.path().join("d01/d11/d21/.n.o.cmd");
    std::fs::write(&new, "savedcmd_d01/d11/d21/n.o := rustc --crate-name n n.rs\n").unwrap();
    std::fs::remove_dir_all(built.path().join("d02/d12")).unwrap();

    let (rescan, record) = scan_with(built.path(), 2, Some(&record), later()).unwrap();
    assert_as_fresh(built.path(), (&rescan, &record));
    let targets = summary(&rescan).0;
    assert!(!targets.contains(&"d00/d10/m.o".to_owned()));
    assert!(targets.contains(&"d01/d11/d21/n.o".to_owned()));
    assert!(!targets.iter().any(|t| t.starts_with("d02/d12/")));
    // Read again: the rewritten file, and the new one's directory's other `.cmd` files, with
    // it: that directory is listed again, and its crate's file is unchanged.
    assert_eq!(rescan.cmd_files - rescan.unchanged, 3);

    // A crate's command rewritten in place, still a crate's, its folder untouched: only it is
    // read again.
    let cmd = built.path().join("d01/d10/.m.o.cmd");
    let text = std::fs::read_to_string(&cmd).unwrap();
    std::fs::write(&cmd, text.replacen("rustc ", "rustc --edition=2021 ", 1)).unwrap();
    let (rescan, record) = scan_with(built.path(), 2, Some(&record), later()).unwrap();
    assert_eq!(rescan.cmd_files - rescan.unchanged, 1);
    assert_as_fresh(built.path(), (&rescan, &record));
    let edition = |scan: &Scan| {
        let build = scan.builds.iter().find(|b| b.target == "d01/d10/m.o").unwrap();
        build.invocation.edition.clone()
    };
    assert_eq!(edition(&rescan), "2021");

    // In the top folder, where `make rusttest` saves its phony targets' commands, a `.cmd` file
    // rewritten in place with the folder untouched is looked at: a rustdoc command that turned
    // into a rustc one.
    let rusttest = built.path().join(".rusttest-macros.cmd");
    std::fs::write(&rusttest, "savedcmd_rusttest-macros := rustdoc --test rust/macros/lib.rs\n")
        .unwrap();
    let (_, record) = scan_with(built.path(), 2, Some(&record), later()).unwrap();
    clock_ticks();
    let rustc = "savedcmd_rusttest-macros := rustc --test --crate-name macros rust/macros/lib.rs\n";
    std::fs::write(&rusttest, rustc).unwrap();
    let (rescan, record) = scan_with(built.path(), 2, Some(&record), later()).unwrap();
    assert!(summary(&rescan).0.contains(&"rusttest-macros".to_owned()));
    assert_as_fresh(built.path(), (&rescan, &record));

    // A C object's command rewritten in place, its folder untouched: kbuild never does that,
    // and it is not looked at.
    let c = built.path().join("d03/d13/.c.o.cmd");
    std::fs::write(&c, "savedcmd_d03/d13/c.o := gcc -O3 -c d03/d13/c.c\n").unwrap();
    let (rescan, record) = scan_with(built.path(), 2, Some(&record), later()).unwrap();
    assert_eq!(rescan.unchanged, rescan.cmd_files);
    // Rewritten as kbuild does: that directory's others are read again.
    kbuild_rewrites(&c, "savedcmd_d03/d13/c.o := gcc -O2 -c d03/d13/c.c\n");
    let (rescan, record) = scan_with(built.path(), 2, Some(&record), later()).unwrap();
    assert_eq!(rescan.cmd_files - rescan.unchanged, 1);
    // Now a crate's: the saved command is read again, and it is one.
    kbuild_rewrites(&c, "savedcmd_d03/d13/c.o := rustc --crate-name c d03/d13/c.rs\n");
    let (rescan, record) = scan_with(built.path(), 2, Some(&record), later()).unwrap();
    assert_eq!(rescan.cmd_files - rescan.unchanged, 1);
    assert!(summary(&rescan).0.contains(&"d03/d13/c.o".to_owned()));
    assert_as_fresh(built.path(), (&rescan, &record));
    let (again, record) = scan_with(built.path(), 2, Some(&record), later()).unwrap();
    assert_eq!(again.unchanged, again.cmd_files, "nothing was read again");

    // The record of another tree is not used.
    let other = tree();
    let (scan, _) = scan_with(other.path(), 2, Some(&record), later()).unwrap();
    assert_eq!(scan.unchanged, 0);
}

#[test]
fn what_changed_just_before_a_scan_is_read_again_by_the_next() {
    let tree = tree();
    // Every file was written within the clock's granularity of this scan: none can be trusted
    // to be unchanged by its times, though they are.
    let (first, record) = scan_with(tree.path(), 1, None, SystemTime::now()).unwrap();
    let (again, _) = scan_with(tree.path(), 1, Some(&record), later()).unwrap();
    assert_eq!(summary(&again), summary(&first));
    assert_eq!(again.unchanged, 0);
}
