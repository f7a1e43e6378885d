//! The inputs of a demo kernel and their stamps: the kernel tarball, `demo-kernel/VERSION/patches/`
//! (a quilt-style `series` file naming `git format-patch` files) and the config fragment.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Bumped when the way trees are prepared changes, so that old trees are re-prepared.
const RECIPE: u32 = 1;

/// Everything the demo kernel is made from.
#[derive(Clone, Debug)]
pub struct Inputs {
    /// The kernel source tarball (`/usr/src/linux-source-6.12.tar.xz`, or one fetched by [`crate::apt`]).
    pub tarball: Tarball,
    /// The patches, in `series` order.
    pub patches: Vec<Patch>,
    /// The config fragments merged onto `tinyconfig`, in order: the demo kernel's
    /// `demo.config`, then any the user adds (later ones override earlier ones).
    pub fragments: Vec<Fragment>,
}

/// The tarball, identified by path, size and modification time (a new package version changes them).
#[derive(Clone, Debug)]
pub struct Tarball {
    /// Its path.
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// Its modification time, in seconds since the epoch.
    pub mtime: u64,
}

impl Tarball {
    /// The tarball at `path`, by its size and modification time.
    pub fn read(path: &Path) -> Result<Tarball, InputError> {
        let meta = std::fs::metadata(path).map_err(|_| InputError::NoTarball(path.to_owned()))?;
        let mtime = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_secs());
        Ok(Tarball { path: path.to_owned(), size: meta.len(), mtime })
    }
}

/// One patch of the series.
#[derive(Clone, Debug)]
pub struct Patch {
    /// Its name in `series`.
    pub name: String,
    /// Its path.
    pub path: PathBuf,
    /// SHA-256 of its content.
    pub sha256: String,
}

/// The config fragment.
#[derive(Clone, Debug)]
pub struct Fragment {
    /// Its path.
    pub path: PathBuf,
    /// Its options.
    pub config: kbuild::Config,
    /// SHA-256 of its content.
    pub sha256: String,
}

/// A bad or missing input.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The tarball is missing.
    #[error("kernel source {} not found: install it with `apt-get install {}` (`make setup` does)", .0.display(), package_of(.0))]
    NoTarball(PathBuf),
    /// `series` names a patch that is not there.
    #[error("{}:{line}: patch {name} not found in {}", series.display(), dir.display())]
    MissingPatch {
        /// The series file.
        series: PathBuf,
        /// Its line.
        line: usize,
        /// The patch name.
        name: String,
        /// The patch directory.
        dir: PathBuf,
    },
    /// The fragment does not parse.
    #[error("config fragment {}: {source}", path.display())]
    Fragment {
        /// The fragment.
        path: PathBuf,
        /// The bad line.
        source: kbuild::ConfigError,
    },
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
}

/// The Debian package a kernel tarball comes from: `/usr/src/linux-source-6.12.tar.xz` is
/// `linux-source-6.12`'s.
fn package_of(tarball: &Path) -> String {
    let name = tarball.file_name().unwrap_or_default().to_string_lossy();
    name.split(".tar").next().unwrap_or_default().to_owned()
}

/// The patch names in a `series` file, with their line numbers: one per line, `#` comments,
/// blank lines ignored, and quilt's `-p1` option accepted.
pub fn parse_series(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let line = line.split('#').next().unwrap_or("").trim();
            let name = line.split_whitespace().next()?;
            Some((i + 1, name.to_owned()))
        })
        .collect()
}

fn read(path: &Path) -> Result<Vec<u8>, InputError> {
    std::fs::read(path).map_err(|source| InputError::Read { path: path.to_owned(), source })
}

pub use freshness::sha256;

/// Reads the inputs: `tarball`, and `demo_kernel/patches/series` with its patches and
/// `demo_kernel/demo.config` (`demo_kernel` is one version's folder, `demo-kernel/6.12`), then
/// the `extra_fragments` merged after it.
pub fn load(
    tarball: &Path,
    demo_kernel: &Path,
    extra_fragments: &[PathBuf],
) -> Result<Inputs, InputError> {
    let tarball = Tarball::read(tarball)?;

    let patch_dir = demo_kernel.join("patches");
    let series = patch_dir.join("series");
    let series_text = String::from_utf8_lossy(&read(&series)?).into_owned();
    let mut patches = Vec::new();
    for (line, name) in parse_series(&series_text) {
        let path = patch_dir.join(&name);
        let data = std::fs::read(&path).map_err(|_| InputError::MissingPatch {
            series: series.clone(),
            line,
            name: name.clone(),
            dir: patch_dir.clone(),
        })?;
        patches.push(Patch { name, path, sha256: sha256(&data) });
    }

    let fragments = std::iter::once(demo_kernel.join("demo.config"))
        .chain(extra_fragments.iter().cloned())
        .map(|path| load_fragment(&path))
        .collect::<Result<_, _>>()?;
    Ok(Inputs { tarball, patches, fragments })
}

/// Reads one config fragment.
pub fn load_fragment(path: &Path) -> Result<Fragment, InputError> {
    let data = read(path)?;
    let config = kbuild::Config::parse(&String::from_utf8_lossy(&data))
        .map_err(|source| InputError::Fragment { path: path.to_owned(), source })?;
    Ok(Fragment { path: path.to_owned(), config, sha256: sha256(&data) })
}

impl Inputs {
    /// What the srctree is made from, as text (kept in the tree, compared on the next run).
    pub fn srctree_stamp(&self) -> String {
        let t = &self.tarball;
        let mut s = format!(
            "recipe {RECIPE}\ntarball {} size {} mtime {}\n",
            t.path.display(),
            t.size,
            t.mtime
        );
        for p in &self.patches {
            let _ = writeln!(s, "patch {} sha256 {}", p.name, p.sha256);
        }
        s
    }

    /// What the objtree is made from: the srctree's stamp and the fragments.
    pub fn objtree_stamp(&self) -> String {
        // The fragments by content only: a checkout in another folder is the same input.
        let mut s = self.srctree_stamp();
        for f in &self.fragments {
            let _ = writeln!(s, "fragment sha256 {}", f.sha256);
        }
        s
    }

    /// What the fragments ask for together, later ones overriding earlier ones.
    pub fn wanted_config(&self) -> kbuild::Config {
        self.fragments.iter().fold(kbuild::Config::default(), |c, f| c.overlaid(&f.config))
    }

    /// The fragments' paths, for messages: `a + b`.
    pub fn fragment_names(&self) -> String {
        let names: Vec<String> =
            self.fragments.iter().map(|f| f.path.display().to_string()).collect();
        names.join(" + ")
    }
}

/// Which lines of two stamps differ, to say why a tree is re-prepared.
pub fn stamp_changes(old: &str, new: &str) -> Vec<String> {
    let mut changes: Vec<String> =
        old.lines().filter(|l| !new.lines().any(|n| n == *l)).map(|l| format!("- {l}")).collect();
    changes.extend(new.lines().filter(|l| !old.lines().any(|o| o == *l)).map(|l| format!("+ {l}")));
    changes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_skips_comments_blanks_and_options() {
        let series = "# the demo series\n\n0001-rust-add-module-parameter-support.patch\n\
                      0002-rust-macros-add-params.patch -p1 # quilt style\n   \n";
        assert_eq!(
            parse_series(series),
            [
                (3, "0001-rust-add-module-parameter-support.patch".to_owned()),
                (4, "0002-rust-macros-add-params.patch".to_owned())
            ]
        );
        assert_eq!(parse_series("# empty at first\n"), []);
    }

    fn demo(dir: &Path, series: &str, fragment: &str) -> Result<Inputs, InputError> {
        std::fs::create_dir_all(dir.join("demo-kernel/patches")).unwrap();
        // Written once: a rewrite could land in the next second and so change the stamp by
        // its mtime (seen on a busy CI machine).
        let tarball = dir.join("linux.tar.xz");
        if !tarball.exists() {
            std::fs::write(&tarball, b"tarball").unwrap();
        }
        std::fs::write(dir.join("demo-kernel/patches/series"), series).unwrap();
        std::fs::write(dir.join("demo-kernel/patches/0001-a.patch"), b"patch a").unwrap();
        std::fs::write(dir.join("demo-kernel/demo.config"), fragment).unwrap();
        load(&dir.join("linux.tar.xz"), &dir.join("demo-kernel"), &[])
    }

    #[test]
    fn a_changed_patch_or_fragment_changes_the_right_stamps() {
        let dir = tempfile::tempdir().unwrap();
        let a = demo(dir.path(), "0001-a.patch\n", "CONFIG_RUST=y\n").unwrap();
        let same = demo(dir.path(), "0001-a.patch\n", "CONFIG_RUST=y\n").unwrap();
        assert_eq!(a.srctree_stamp(), same.srctree_stamp());
        assert_eq!(a.objtree_stamp(), same.objtree_stamp());

        // Regression: the fragment's path was in the stamp, so a clone in another folder
        // rebuilt the kernel from scratch (seen on a second CI clone).
        assert!(!a.objtree_stamp().contains("demo-kernel"), "{}", a.objtree_stamp());

        let frag = demo(dir.path(), "0001-a.patch\n", "CONFIG_RUST=y\nCONFIG_MODULES=y\n").unwrap();
        assert_eq!(a.srctree_stamp(), frag.srctree_stamp());
        assert_ne!(a.objtree_stamp(), frag.objtree_stamp());

        let unpatched = demo(dir.path(), "", "CONFIG_RUST=y\n").unwrap();
        assert_ne!(a.srctree_stamp(), unpatched.srctree_stamp());
        assert_eq!(
            stamp_changes(&a.srctree_stamp(), &unpatched.srctree_stamp()),
            [
                "- patch 0001-a.patch sha256 c068764ca804764202a5747ca14c767b2bb33ef89dbeda6881c33c79f4bc8488"
            ]
        );
    }

    #[test]
    fn an_extra_fragment_changes_the_objtree_and_overrides_the_demo_config() {
        let dir = tempfile::tempdir().unwrap();
        let a = demo(dir.path(), "0001-a.patch\n", "CONFIG_SCHEDSTATS=n\nCONFIG_RUST=y\n").unwrap();
        std::fs::write(dir.path().join("wide.config"), "CONFIG_SCHEDSTATS=y\n").unwrap();
        let wide = load(
            &dir.path().join("linux.tar.xz"),
            &dir.path().join("demo-kernel"),
            &[dir.path().join("wide.config")],
        )
        .unwrap();
        assert_eq!(a.srctree_stamp(), wide.srctree_stamp());
        assert_ne!(a.objtree_stamp(), wide.objtree_stamp());
        assert_eq!(wide.wanted_config().get("SCHEDSTATS"), Some("y"));
        assert_eq!(wide.wanted_config().get("RUST"), Some("y"));

        std::fs::write(dir.path().join("bad.config"), "SCHEDSTATS=y\n").unwrap();
        let err = load(
            &dir.path().join("linux.tar.xz"),
            &dir.path().join("demo-kernel"),
            &[dir.path().join("bad.config")],
        )
        .unwrap_err();
        let msg = err.to_string().replace(&dir.path().display().to_string(), "$DIR");
        assert_eq!(
            msg,
            "config fragment $DIR/bad.config: line 1: option names start with `CONFIG_`: `SCHEDSTATS=y`"
        );
    }

    #[test]
    fn missing_patch_names_series_line() {
        let dir = tempfile::tempdir().unwrap();
        let err =
            demo(dir.path(), "0001-a.patch\n0002-gone.patch\n", "CONFIG_RUST=y\n").unwrap_err();
        let msg = err.to_string().replace(&dir.path().display().to_string(), "$DIR");
        assert_eq!(
            msg,
            "$DIR/demo-kernel/patches/series:2: patch 0002-gone.patch not found in $DIR/demo-kernel/patches"
        );
    }

    #[test]
    fn bad_fragment_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let err = demo(dir.path(), "", "CONFIG_RUST=y\nSAMPLES=y\n").unwrap_err();
        let msg = err.to_string().replace(&dir.path().display().to_string(), "$DIR");
        assert_eq!(
            msg,
            "config fragment $DIR/demo-kernel/demo.config: line 2: option names start with `CONFIG_`: `SAMPLES=y`"
        );
    }

    #[test]
    fn missing_tarball_says_which_package() {
        let err = load(
            Path::new("/nonexistent/linux-source-6.12.tar.xz"),
            Path::new("/nonexistent"),
            &[],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "kernel source /nonexistent/linux-source-6.12.tar.xz not found: install it with `apt-get install linux-source-6.12` (`make setup` does)"
        );
    }
}
