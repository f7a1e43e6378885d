//! Test support shared by the suite's tests: generated garbage for no-panic checks, and the
//! built demo tree that `make test` provides to integration tests.

use std::path::{Path, PathBuf};

use crate::tree::{Built, Objtree, Srctree};

/// The demo tree of `make test`: `KERNEL_SRC` and `KERNEL_OBJ`, checked to be built, and
/// `EXTMOD_DIR`, where the out-of-tree modules were built.
pub struct DemoTree {
    /// The source tree.
    pub srctree: Srctree,
    /// The build tree.
    pub objtree: Objtree,
    /// What the build produced.
    pub built: Built,
    /// The build folder of the out-of-tree modules.
    pub extmod_dir: PathBuf,
}

/// The path in the environment variable `name`, which `make test` sets (`KERNEL_SRC`,
/// `KERNEL_OBJ`, `EXTMOD_DIR`, `DEMO_KERNEL`).
///
/// # Panics
///
/// When it is not set, saying to run `make test`: integration tests fail rather than skip.
pub fn env_path(name: &str) -> PathBuf {
    std::env::var_os(name).map(PathBuf::from).unwrap_or_else(|| {
        panic!("{name} is not set: run these tests with `make test`, which builds the demo kernel and sets it")
    })
}

/// The demo tree from the environment `make test` sets.
///
/// # Panics
///
/// When a variable is not set or the tree is not built, saying what to run: integration tests
/// fail rather than pass by skipping.
pub fn demo_tree() -> DemoTree {
    let srctree = Srctree::open(&env_path("KERNEL_SRC")).unwrap_or_else(|e| panic!("{e}"));
    let objtree =
        Objtree::open(&srctree, &env_path("KERNEL_OBJ")).unwrap_or_else(|e| panic!("{e}"));
    let built = objtree.built(&srctree).unwrap_or_else(|e| panic!("{e}"));
    DemoTree { srctree, objtree, built, extmod_dir: env_path("EXTMOD_DIR") }
}

/// A kernel tree in `dir` that is configured but not built (`src/`, with a top-level Makefile
/// and Kbuild, and `obj/` with a `.config` enabling Rust), for the tests of what the tools say
/// of it: `(srctree, objtree)`.
///
/// # Panics
///
/// When the files cannot be written.
pub fn configured_not_built(dir: &Path) -> (PathBuf, PathBuf) {
    let (src, obj) = (dir.join("src"), dir.join("obj"));
    let write = |path: PathBuf, text: &str| {
        std::fs::create_dir_all(path.parent().expect("in a folder")).unwrap();
        std::fs::write(path, text).unwrap();
    };
    std::fs::create_dir_all(src.join("rust/kernel")).unwrap();
    write(src.join("Makefile"), "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 1\n");
    write(src.join("Kbuild"), "");
    write(obj.join(".config"), "CONFIG_RUST=y\nCONFIG_X86_64=y\n");
    (src, obj)
}

/// `count` deterministic strings, each up to 40 of `pieces` in a pseudo-random order
/// (xorshift from `seed`): the tokens a parser looks for, in orders it does not expect.
pub fn garbage(seed: u64, pieces: &[&str], count: usize) -> Vec<String> {
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|_| {
            let len = next() % 40;
            (0..len).map(|_| pieces[(next() % pieces.len() as u64) as usize]).collect()
        })
        .collect()
}

/// Writes `source` as `NAME.rs`, with a `Kbuild` naming `NAME.o`, into `module_dir` and builds
/// it out of tree against the demo tree (`make M=module_dir modules`); returns the source
/// file's path.
///
/// # Panics
///
/// When a file cannot be written or the module does not build, with make's command and output.
pub fn build_module(
    srctree: &Path,
    objtree: &Path,
    module_dir: &Path,
    name: &str,
    source: &str,
) -> PathBuf {
    let file = module_dir.join(format!("{name}.rs"));
    let write = |path: &Path, text: &str| {
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    write(&module_dir.join("Kbuild"), &format!("obj-m := {name}.o\n"));
    write(&file, source);
    let make = crate::make::kernel_make(srctree, objtree)
        .arg(format!("M={}", module_dir.display()))
        .arg("modules")
        .timeout(std::time::Duration::from_secs(600));
    let build = subprocess::testing::run(&make);
    assert!(
        build.status.success(),
        "the module does not build: {}",
        subprocess::testing::report(&make, &build)
    );
    file
}
