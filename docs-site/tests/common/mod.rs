//! Shared by the integration tests: the demo tree that `make test` built, the real binary, and
//! the site of the demo tree, built once per test binary.

#![allow(dead_code)]

pub mod chromium;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;
use std::time::Duration;

use subprocess::Command;

/// The demo tree's paths, from the environment `make test` sets.
pub struct Tree {
    pub srctree: PathBuf,
    pub objtree: PathBuf,
    pub extmod: PathBuf,
    /// `6.12`, `7.3`: the demo kernel's name.
    pub kernel: String,
    /// `7.3.4`: the tree's version.
    pub version: String,
}

pub fn tree() -> Tree {
    let demo = kbuild::testing::demo_tree();
    let version = &demo.srctree.version;
    let tree = Tree {
        kernel: format!("{}.{}", version.version, version.patchlevel),
        version: version.to_string(),
        srctree: demo.srctree.path,
        objtree: demo.objtree.path,
        extmod: demo.extmod_dir,
    };
    assert!(
        tree.objtree.join("rust/libkernel.rmeta").is_file(),
        "{} is not built: run `make kernel`",
        tree.objtree.display()
    );
    tree
}

/// Runs the real `docs-site` binary (a site with its doctest boot takes minutes; an hour is a
/// hang), with what it printed as bytes, as the tests read it.
pub fn docs_site(args: &[&str]) -> Output {
    let cmd = Command::new(env!("CARGO_BIN_EXE_docs-site"), Path::new(env!("CARGO_MANIFEST_DIR")))
        .args(args)
        .timeout(Duration::from_secs(3600));
    let out = subprocess::testing::run(&cmd);
    let out = Output {
        status: out.status,
        stdout: out.stdout.into_bytes(),
        stderr: out.stderr.into_bytes(),
    };
    eprintln!(
        "$ docs-site {}\n[{}]\n--- stdout\n{}--- stderr\n{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Where the tests keep the demo tree's site between runs (so a second `make test` reuses the
/// documented crates and the doctest results), under the target directory.
pub fn site_root() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("docs-site")
}

pub struct Site {
    pub dir: PathBuf,
    pub build: Output,
}

/// Runs `docs-site build` of `tree` with the modules of `extmod` into `out`, plus `extra`.
pub fn build_site(tree: &Tree, extmod: &Path, out: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "build",
        "--srctree",
        tree.srctree.to_str().unwrap(),
        "--objtree",
        tree.objtree.to_str().unwrap(),
        "--extmod-dir",
        extmod.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    docs_site(&args)
}

/// The demo tree's site, with `core` linked upstream (the whole of `core` is 300 MB and is
/// built by `make docs`), the doctests run in QEMU and the links checked: built once.
pub fn demo_site() -> &'static Site {
    static SITE: OnceLock<Site> = OnceLock::new();
    SITE.get_or_init(|| {
        let tree = tree();
        let dir = site_root().join("site");
        let build = build_site(
            &tree,
            &tree.extmod,
            &dir,
            &[
                "--core-upstream",
                "--doctests",
                "--check",
                "--config-name",
                "tinyconfig + the demo kernel's demo.config",
            ],
        );
        Site { dir, build }
    })
}
