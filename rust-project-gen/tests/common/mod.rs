//! Shared by the integration tests: fixture trees laid out in temporary directories, and the
//! real binary.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use subprocess::Command;

/// A srctree, an objtree and a sysroot made from `tests/fixtures/<name>/objtree`, with the
/// `@SRCTREE@`, `@OBJTREE@` and `@SYSROOT@` placeholders of its `.cmd` files filled in and
/// every crate root they name created.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub srctree: PathBuf,
    pub objtree: PathBuf,
    pub sysroot: PathBuf,
    pub sysroot_src: PathBuf,
    /// Cargo's home, whose registry holds std's hashbrown.
    pub cargo_home: PathBuf,
}

/// The parts of the Rust library's manifests (Rust 1.95's) that say which hashbrown `std`
/// builds with, and the parts of hashbrown's own.
const LIBRARY_CARGO_LOCK: &str =
    "version = 4\n\n[[package]]\nname = \"hashbrown\"\nversion = \"0.16.1\"\n";
const STD_CARGO_TOML: &str = "[package]\nname = \"std\"\n\n[dependencies]\nhashbrown = { version = \"0.16.1\", default-features = false, features = [\n    'rustc-dep-of-std',\n] }\n";
const HASHBROWN_CARGO_TOML: &str = "[package]\nedition = \"2021\"\nname = \"hashbrown\"\n\n[features]\nnightly = []\nrustc-dep-of-std = [\"nightly\", \"core\", \"alloc\", \"rustc-internal-api\"]\nrustc-internal-api = []\n";

impl Fixture {
    pub fn new(name: &str) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let fixture = Fixture {
            srctree: root.join("srctree"),
            objtree: root.join("objtree"),
            sysroot: root.join("sysroot"),
            sysroot_src: root.join("sysroot/lib/rustlib/src/rust/library"),
            cargo_home: root.join("cargo"),
            dir,
        };
        let src =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name).join("objtree");
        fixture.copy(&src, &fixture.objtree);
        // The kernel version, from the fixture's top Makefile lines (6.12.118 when it has none).
        let makefile =
            std::fs::read_to_string(src.with_file_name("Makefile")).unwrap_or_else(|_| {
                "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 118\nEXTRAVERSION =\n".to_owned()
            });
        write(&fixture.srctree.join("Makefile"), &makefile);
        write(&fixture.srctree.join("Kbuild"), "");
        std::fs::create_dir_all(fixture.srctree.join("rust/kernel")).unwrap();
        write(&fixture.sysroot_src.join("core/src/lib.rs"), "");
        write(&fixture.sysroot_src.join("Cargo.lock"), LIBRARY_CARGO_LOCK);
        write(&fixture.sysroot_src.join("std/Cargo.toml"), STD_CARGO_TOML);
        let hashbrown = fixture.cargo_home.join("registry/src/index.crates.io-0/hashbrown-0.16.1");
        write(&hashbrown.join("Cargo.toml"), HASHBROWN_CARGO_TOML);
        write(&hashbrown.join("src/lib.rs"), "");
        fixture
    }

    /// Runs the real binary with `args`, this fixture's cargo home its `CARGO_HOME`.
    pub fn run(&self, args: &[&std::ffi::OsStr]) -> Run {
        run_env(args, Some(&self.cargo_home))
    }

    /// Copies `from` to `to`, filling in placeholders and creating the `.rs` files named.
    fn copy(&self, from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for entry in std::fs::read_dir(from).unwrap().flatten() {
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                self.copy(&entry.path(), &target);
                continue;
            }
            let text = self.fill(&std::fs::read_to_string(entry.path()).unwrap());
            for word in text.split_whitespace() {
                if word.ends_with(".rs") && word.starts_with('/') {
                    write(Path::new(word), "");
                }
            }
            write(&target, &text);
        }
    }

    pub fn fill(&self, text: &str) -> String {
        text.replace("@SRCTREE@", &self.srctree.display().to_string())
            .replace("@OBJTREE@", &self.objtree.display().to_string())
            .replace("@SYSROOT@", &self.sysroot.display().to_string())
    }

    /// `text` with this fixture's paths replaced by `$SRCTREE`, `$OBJTREE`, `$SYSROOT`.
    pub fn normalise(&self, text: &str) -> String {
        text.replace(&self.srctree.display().to_string(), "$SRCTREE")
            .replace(&self.objtree.display().to_string(), "$OBJTREE")
            .replace(&self.sysroot.display().to_string(), "$SYSROOT")
            .replace(&self.cargo_home.display().to_string(), "$CARGO_HOME")
    }

    /// The kbuild-style arguments: SRCTREE OBJTREE SYSROOT SYSROOT_SRC.
    pub fn args(&self) -> Vec<PathBuf> {
        vec![
            self.srctree.clone(),
            self.objtree.clone(),
            self.sysroot.clone(),
            self.sysroot_src.clone(),
        ]
    }
}

pub fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// What the real binary did.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs the real binary on a built tree with the toolchain's sysroot, then `more` arguments.
pub fn run_on_tree(srctree: &Path, objtree: &Path, more: &[&std::ffi::OsStr]) -> Run {
    let sysroot = sysroot();
    let sysroot_src = sysroot.join("lib/rustlib/src/rust/library");
    let mut args = vec![
        srctree.as_os_str(),
        objtree.as_os_str(),
        sysroot.as_os_str(),
        sysroot_src.as_os_str(),
    ];
    args.extend_from_slice(more);
    run(&args)
}

/// Runs the real binary with `args` from the manifest's directory, with a deadline.
pub fn run(args: &[&std::ffi::OsStr]) -> Run {
    run_env(args, None)
}

/// [`run`], with `CARGO_HOME` set to `cargo_home` when there is one. Each run has a suite
/// cache of its own, empty: it keeps nothing for the next (see [`run_with_cache`]).
fn run_env(args: &[&std::ffi::OsStr], cargo_home: Option<&Path>) -> Run {
    let cache = tempfile::tempdir().unwrap();
    run_with_cache(args, cargo_home, cache.path())
}

/// [`run`] with `cache` as the suite's cache, where it keeps the record of each tree's scan.
pub fn run_with_cache(args: &[&std::ffi::OsStr], cargo_home: Option<&Path>, cache: &Path) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rust-project-gen"), manifest_dir())
        .args(args)
        .env(freshness::CACHE_ENV, cache)
        .timeout(Duration::from_secs(300));
    if let Some(home) = cargo_home {
        cmd = cmd.env("CARGO_HOME", home);
    }
    let out = subprocess::testing::run(&cmd);
    Run { code: out.status.code().unwrap_or(-1), stdout: out.stdout, stderr: out.stderr }
}

/// The real binary.
pub fn binary() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_rust-project-gen"))
}

pub fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The active toolchain's sysroot (`rustc --print sysroot`).
pub fn sysroot() -> PathBuf {
    lsp::toolchain_sysroot()
}

/// The other rust-analyzers that `make other-rust-analyzers` installs (`OTHER_RUST_ANALYZERS`).
///
/// # Panics
///
/// When fewer than four are named: run the tests with `make test`.
pub fn other_rust_analyzers() -> Vec<PathBuf> {
    let others = std::env::var("OTHER_RUST_ANALYZERS").unwrap_or_default();
    let others: Vec<PathBuf> = others.split_whitespace().map(PathBuf::from).collect();
    assert!(
        others.len() >= 4,
        "OTHER_RUST_ANALYZERS names {} rust-analyzers: run this with `make test`, whose `make other-rust-analyzers` installs them",
        others.len()
    );
    others
}
