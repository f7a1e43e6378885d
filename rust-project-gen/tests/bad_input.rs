//! The real binary on trees that are not ready or hold bad `.cmd` files: a clear message naming
//! the file and what to run, nothing written over a good file without `--force`.

mod common;

use std::ffi::OsStr;
use std::path::Path;

use common::{Fixture, write};

fn args<'a>(f: &'a Fixture, extra: &'a [&'a str]) -> Vec<&'a OsStr> {
    let mut args: Vec<&OsStr> = vec![
        f.srctree.as_os_str(),
        f.objtree.as_os_str(),
        f.sysroot.as_os_str(),
        f.sysroot_src.as_os_str(),
    ];
    args.extend(extra.iter().map(OsStr::new));
    args
}

#[test]
fn writes_and_prints_the_path() {
    let f = Fixture::new("demo");
    let run = f.run(&args(&f, &[]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let path = f.objtree.join("rust-project.json");
    assert_eq!(run.stdout, format!("{}\n", path.display()));
    assert!(std::fs::read_to_string(&path).unwrap().contains("\"display_name\": \"kernel\""));
}

#[test]
fn objtree_not_configured() {
    let f = Fixture::new("demo");
    std::fs::remove_file(f.objtree.join(".config")).unwrap();
    let run = f.run(&args(&f, &[]));
    assert_eq!(run.code, 2);
    assert_eq!(
        f.normalise(&run.stderr),
        "rust-project-gen: error: $OBJTREE is not configured (no .config): configure it with `make -C $SRCTREE O=$OBJTREE defconfig`, enable CONFIG_RUST, then build it\n"
    );
}

#[test]
fn objtree_without_rust() {
    let f = Fixture::new("demo");
    write(&f.objtree.join(".config"), "# CONFIG_RUST is not set\n");
    let run = f.run(&args(&f, &[]));
    assert_eq!(run.code, 2);
    assert!(
        f.normalise(&run.stderr)
            .starts_with("rust-project-gen: error: $OBJTREE/.config does not enable CONFIG_RUST"),
        "{}",
        run.stderr
    );
}

/// Configured, never built: no `.cmd` file, no `rustc_cfg`. The crates are guessed, said so,
/// and only modules whose option is enabled are guessed.
#[test]
fn configured_but_not_built_falls_back_to_guessing() {
    let f = Fixture::new("demo");
    for dir in ["rust", "samples", "scripts", "include"] {
        std::fs::remove_dir_all(f.objtree.join(dir)).unwrap();
    }
    write(
        &f.srctree.join("samples/rust/Makefile"),
        "obj-$(CONFIG_SAMPLE_RUST_MINIMAL) += rust_minimal.o\nobj-$(CONFIG_SAMPLE_RUST_PRINT) += rust_print.o\nobj-$(CONFIG_SAMPLE_RUST_OFF) += rust_off.o\n",
    );
    write(&f.srctree.join("samples/rust/rust_off.rs"), "");
    write(
        &f.objtree.join(".config"),
        "CONFIG_RUST=y\nCONFIG_SAMPLE_RUST_MINIMAL=m\nCONFIG_SAMPLE_RUST_PRINT=y\n# CONFIG_SAMPLE_RUST_OFF is not set\n",
    );
    let run = f.run(&args(&f, &["--stdout"]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        f.normalise(&run.stderr).starts_with("rust-project-gen: warning: $OBJTREE is configured but not built, so these crates are guessed from Makefiles, as upstream's script does: compiler_builtins, build_error, ffi, macros, bindings, uapi, kernel, rust_minimal, rust_print; build the tree (make -C $SRCTREE O=$OBJTREE) and rerun"),
        "{}",
        run.stderr
    );
    let json: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let crates = json["crates"].as_array().unwrap();
    let minimal = crates.iter().find(|c| c["display_name"] == "rust_minimal").unwrap();
    assert_eq!(minimal["cfg"], serde_json::json!(["MODULE"]));
    assert!(
        json["cfg_groups"]["rustc_cfg"]
            .as_array()
            .unwrap()
            .contains(&serde_json::json!("CONFIG_RUST"))
    );
    assert!(!crates.iter().any(|c| c["display_name"] == "rust_off"));
}

#[test]
fn external_module_not_built() {
    let f = Fixture::new("demo");
    let ext = f.dir.path().join("ext");
    std::fs::create_dir_all(&ext).unwrap();
    let mut a = args(&f, &[]);
    a.push(ext.as_os_str());
    let run = f.run(&a);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("no rustc invocation in the .cmd files of"), "{}", run.stderr);
}

#[test]
fn missing_rust_src() {
    let f = Fixture::new("demo");
    std::fs::remove_dir_all(&f.sysroot_src).unwrap();
    let run = f.run(&args(&f, &[]));
    assert_eq!(run.code, 2);
    assert!(run.stderr.ends_with("does not exist: install the Rust sources with `rustup component add rust-src` (`make setup` does)\n"), "{}", run.stderr);
}

/// A stale `.cmd` (its source was deleted) and a malformed one: each named, the graph partial,
/// so the good file stays unless `--force`.
#[test]
fn stale_and_malformed_cmd_files_keep_the_good_file_unless_forced() {
    let f = Fixture::new("demo");
    let path = f.objtree.join("rust-project.json");
    assert_eq!(f.run(&args(&f, &[])).code, 0);
    let good = std::fs::read_to_string(&path).unwrap();

    std::fs::remove_file(f.srctree.join("samples/rust/rust_print.rs")).unwrap();
    write(
        &f.objtree.join("samples/rust/.broken.o.cmd"),
        "savedcmd_samples/rust/broken.o := rustc --crate-name 'broken x.rs\n",
    );
    let run1 = f.run(&args(&f, &[]));
    assert_eq!(run1.code, 2);
    let stderr = f.normalise(&run1.stderr);
    assert!(stderr.contains("rust-project-gen: warning: $OBJTREE/samples/rust/.broken.o.cmd: saved command for samples/rust/broken.o: unterminated single quote\n"), "{stderr}");
    assert!(stderr.contains("rust-project-gen: warning: $OBJTREE/samples/rust/.rust_print.o.cmd: crate rust_print names $SRCTREE/samples/rust/rust_print.rs, which no longer exists: the build is stale, rebuild with make\n"), "{stderr}");
    assert!(stderr.ends_with("rust-project-gen: error: 2 problem(s) above: the crate graph would be partial, so nothing was written; fix them (usually by rebuilding), or pass --force to write it anyway\n"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), good, "the good file was overwritten");

    let forced = f.run(&args(&f, &["--force"]));
    assert_eq!(forced.code, 0, "{}", forced.stderr);
    let partial = std::fs::read_to_string(&path).unwrap();
    assert!(!partial.contains("rust_print") && partial.contains("rust_minimal"));
}

#[test]
fn check_says_stale_or_up_to_date() {
    let f = Fixture::new("demo");
    let path = f.objtree.join("rust-project.json");
    let missing = f.run(&args(&f, &["--check"]));
    assert_eq!(
        (missing.code, f.normalise(&missing.stderr).as_str()),
        (1, "$OBJTREE/rust-project.json is stale or missing: run rust-project-gen to update it\n")
    );
    assert!(!path.exists(), "--check writes nothing");
    assert_eq!(f.run(&args(&f, &[])).code, 0);
    let fresh = f.run(&args(&f, &["--check"]));
    assert_eq!(fresh.code, 0, "{}", fresh.stderr);
    write(
        &f.objtree.join("samples/rust/.rust_minimal.o.cmd"),
        &f.fill(
            &std::fs::read_to_string(
                Path::new(env!("CARGO_MANIFEST_DIR"))
                    .join("tests/fixtures/demo/objtree/samples/rust/.rust_minimal.o.cmd"),
            )
            .unwrap()
            .replace("--edition=2021", "--edition=2024"),
        ),
    );
    assert_eq!(f.run(&args(&f, &["--check"])).code, 1);
}

#[test]
fn wrong_number_of_trees() {
    let f = Fixture::new("demo");
    let run = f.run(&[f.srctree.as_os_str(), f.objtree.as_os_str()]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "rust-project-gen: error: give all of SRCTREE OBJTREE SYSROOT SYSROOT_SRC [EXTTREE], or none to find them\n"
    );
}

/// The sysroot crates of the file written for the rust-analyzer whose `--version` says
/// `version` (a script that says it: only its version is asked).
fn sysroot_crates_for(f: &Fixture, version: &str) -> (Vec<String>, String) {
    let ra = f.dir.path().join("rust-analyzer");
    write(&ra, &format!("#!/bin/sh\necho '{version}'\n"));
    std::fs::set_permissions(&ra, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let run = f.run(&args(f, &["--rust-analyzer", ra.to_str().unwrap()]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    let text = std::fs::read_to_string(f.objtree.join("rust-project.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let names = json["sysroot_project"]["crates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["display_name"].as_str().unwrap().to_owned())
        .collect();
    (names, f.normalise(&run.stderr))
}

/// std's hashbrown goes to a rust-analyzer that reports E0282 without it, not to one that
/// only spends memory on it.
#[test]
fn std_dependencies_for_the_rust_analyzer_that_needs_them() {
    let f = Fixture::new("demo");
    let (names, _) = sysroot_crates_for(&f, "rust-analyzer 0.0.348 (bb3bbbd9e 2026-08-16)");
    assert_eq!(names, ["core", "alloc", "std", "proc_macro", "hashbrown"]);
    let (names, _) = sysroot_crates_for(&f, "rust-analyzer 1.95.0 (5980761 2026-04-14)");
    assert_eq!(names, ["core", "alloc", "std", "proc_macro"]);
}

/// Without std's hashbrown in cargo's registry the file is still whole, less `HashMap`'s
/// types: written, with a warning that names the command that fetches it.
#[test]
fn std_dependency_not_fetched() {
    let f = Fixture::new("demo");
    std::fs::remove_dir_all(f.cargo_home.join("registry")).unwrap();
    let (names, stderr) = sysroot_crates_for(&f, "rust-analyzer 0.0.348 (bb3bbbd9e 2026-08-16)");
    assert!(
        stderr.contains(
            "rust-project-gen: warning: std's hashbrown 0.16.1 is not in cargo's registry ($CARGO_HOME/registry/src/*/hashbrown-0.16.1), so a recent rust-analyzer cannot infer `HashMap::new()` in host crates: fetch it with `RUSTC_BOOTSTRAP=1 cargo fetch --locked --manifest-path $SYSROOT/lib/rustlib/src/rust/library/Cargo.toml` (`make setup` does)\n"
        ),
        "{stderr}"
    );
    assert_eq!(names, ["core", "alloc", "std", "proc_macro"]);
    // Nothing to say to a rust-analyzer that would not be given it.
    let (_, stderr) = sysroot_crates_for(&f, "rust-analyzer 1.95.0 (5980761 2026-04-14)");
    assert!(!stderr.contains("hashbrown"), "{stderr}");
}

/// `discover` answers a file of no kernel, and an argument it cannot read, with one JSON error
/// line that rust-analyzer shows: exit 2, nothing on stderr (which rust-analyzer reads too).
#[test]
fn discover_answers_what_it_cannot_use_with_one_error_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().canonicalize().unwrap().join("notes.rs");
    write(&file, "");
    let arg = format!("{{\"path\":\"{}\"}}", file.display());
    let run = common::run(&[OsStr::new("discover"), OsStr::new(&arg)]);
    assert_eq!((run.code, run.stderr.as_str()), (2, ""));
    let line: serde_json::Value = serde_json::from_str(run.stdout.trim_end()).unwrap();
    assert_eq!(run.stdout.lines().count(), 1, "{}", run.stdout);
    assert_eq!(line["kind"], "error");
    assert_eq!(line["source"], file.display().to_string());
    assert!(line["error"].as_str().unwrap().contains("is in no kernel source tree"), "{line}");

    let run = common::run(&[OsStr::new("discover"), OsStr::new("{\"file\": 1}")]);
    assert_eq!((run.code, run.stderr.as_str()), (2, ""));
    let line: serde_json::Value = serde_json::from_str(run.stdout.trim_end()).unwrap();
    assert_eq!(line["kind"], "error");
    assert!(line["error"].as_str().unwrap().starts_with("cannot read the argument"), "{line}");
}

/// `discover` on a fixture tree's build tree: progress lines, then the project, its kernel
/// crates' build file the stamp kbuild rewrites at each link.
#[test]
fn discover_answers_a_file_of_a_build_tree_with_its_project() {
    let f = Fixture::new("demo");
    std::fs::create_dir_all(f.objtree.join("include/generated")).unwrap();
    std::os::unix::fs::symlink(&f.srctree, f.objtree.join("source")).unwrap();
    let file = f.objtree.join("rust/kernel/lib.rs");
    write(&file, "");
    let arg = format!("{{\"path\":\"{}\"}}", file.display());
    let run = f.run(&[
        OsStr::new("discover"),
        OsStr::new(&arg),
        OsStr::new("--rust-analyzer"),
        OsStr::new("/bin/true"),
    ]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""), "{}", run.stdout);
    let lines: Vec<serde_json::Value> =
        run.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let (last, progress) = lines.split_last().unwrap();
    assert!(progress.iter().all(|l| l["kind"] == "progress"), "{}", run.stdout);
    assert_eq!(last["kind"], "finished");
    assert_eq!(last["buildfile"], f.objtree.join(".config").display().to_string());
    let crates = last["project"]["crates"].as_array().unwrap();
    let kernel = crates.iter().find(|c| c["display_name"] == "kernel").unwrap();
    assert_eq!(
        kernel["build"]["build_file"],
        f.objtree.join("include/generated/utsversion.h").display().to_string()
    );
}
