//! The real binary run again on a tree: it reads again only the `.cmd` files written since
//! the last run (the record it keeps in the suite's cache), and writes the same file as a run
//! that reads every one.

mod common;

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

use common::{Fixture, Run, run_with_cache, write};

fn run(f: &Fixture, cache: &Path, extra: &[&str]) -> Run {
    let mut args: Vec<&OsStr> = vec![
        f.srctree.as_os_str(),
        f.objtree.as_os_str(),
        f.sysroot.as_os_str(),
        f.sysroot_src.as_os_str(),
        OsStr::new("--stdout"),
    ];
    args.extend(extra.iter().map(OsStr::new));
    let run = run_with_cache(&args, Some(&f.cargo_home), cache);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run
}

/// The count of `.cmd` files the summary line says were unchanged since the last run.
fn unchanged(run: &Run) -> usize {
    let Some((_, rest)) = run.stderr.split_once(" .cmd files (") else { return 0 };
    rest.split(' ').next().unwrap().parse().unwrap()
}

#[test]
fn a_second_run_reads_only_what_kbuild_wrote_since() {
    let f = Fixture::new("demo");
    let cache = tempfile::tempdir().unwrap();
    // Times are trusted to say a file is unchanged only a while after it was written.
    std::thread::sleep(freshness::SETTLED_AFTER + Duration::from_millis(100));

    let first = run(&f, cache.path(), &[]);
    assert_eq!(unchanged(&first), 0, "{}", first.stderr);
    let second = run(&f, cache.path(), &[]);
    assert!(second.stderr.contains(".cmd files ("), "{}", second.stderr);
    let cmd_files: usize = second
        .stderr
        .split(" crates from ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(unchanged(&second), cmd_files, "{}", second.stderr);
    assert_eq!(second.stdout, first.stdout);

    // kbuild rebuilds a sample with another edition: that file is read again.
    let cmd = f.objtree.join("samples/rust/.rust_minimal.o.cmd");
    let text = std::fs::read_to_string(&cmd).unwrap();
    write(&cmd, &text.replace("--edition=2021", "--edition=2024"));
    let third = run(&f, cache.path(), &[]);
    assert_eq!(unchanged(&third), cmd_files - 1, "{}", third.stderr);
    assert_ne!(third.stdout, first.stdout);
    let every_file = run(&f, cache.path(), &["--no-cache"]);
    assert_eq!(unchanged(&every_file), 0);
    assert_eq!(third.stdout, every_file.stdout);

    // A record that cannot be read is a scan from scratch, and is written anew.
    let scans = cache.path().join("rust-project-gen/scans");
    let records: Vec<_> = std::fs::read_dir(&scans).unwrap().flatten().map(|e| e.path()).collect();
    assert_eq!(records.len(), 1, "{records:?}");
    std::fs::write(&records[0], "{ not a record").unwrap();
    let after_garbage = run(&f, cache.path(), &[]);
    assert_eq!(unchanged(&after_garbage), 0);
    assert_eq!(after_garbage.stdout, every_file.stdout);
    let record: kbuild::ScanRecord =
        postcard::from_bytes(&std::fs::read(&records[0]).unwrap()).expect("a record again");
    assert_eq!(record.tree, f.objtree);
}
