//! `rust-project-gen discover`: rust-analyzer's project discovery (`workspace.discoverConfig`).
//!
//! rust-analyzer runs the command with `{arg}`, `{"path": FILE}` for a file opened outside every
//! loaded project or `{"buildfile": FILE}` to reload one, and reads JSON lines back:
//! `{"kind": "progress", "message"}`, `{"kind": "error", "error", "source"}` and, last,
//! `{"kind": "finished", "buildfile", "project"}` with the `rust-project.json` itself.
//!
//! This module finds, from one file, which kernel build it belongs to ([`locate`]): a file of a
//! source tree, of a build tree (`O=`), or of an external module (`M=`). It reads only what it
//! must of the directories above the file; [`Message`] is the protocol's edge.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use kbuild::scan::scan_rust_builds;

/// The file of a build tree that stands for its kernel crates' build: kbuild rewrites it each
/// time it links `vmlinux` (Linux 6.1 and later), so a rebuild after a new configuration, which
/// may add or remove crates, changes it once the build is done.
pub const KERNEL_BUILD_STAMP: &str = "include/generated/utsversion.h";

/// What rust-analyzer gives as `{arg}`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum DiscoverArgument {
    /// A file that no loaded project has.
    Path(PathBuf),
    /// A project's build file (the `buildfile` of an earlier answer), whose project to reload.
    Buildfile(PathBuf),
}

impl DiscoverArgument {
    /// The file to start from.
    pub fn path(&self) -> &Path {
        match self {
            DiscoverArgument::Path(path) | DiscoverArgument::Buildfile(path) => path,
        }
    }
}

/// Reads `{arg}`: rust-analyzer's JSON, or a bare path (for a person trying the command).
pub fn parse_argument(arg: &str) -> Result<DiscoverArgument, DiscoverError> {
    if !arg.trim_start().starts_with('{') {
        return Ok(DiscoverArgument::Path(PathBuf::from(arg)));
    }
    serde_json::from_str(arg)
        .map_err(|e| DiscoverError::BadArgument { arg: arg.to_owned(), message: e.to_string() })
}

/// One line of the answer.
#[derive(Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Message {
    /// Shown while the command runs.
    Progress {
        /// What it is doing.
        message: String,
    },
    /// Why there is no project.
    Error {
        /// The error and its fix.
        error: String,
        /// The file asked about.
        source: Option<String>,
    },
    /// The project.
    Finished {
        /// The file standing for the build: rust-analyzer asks again with it to reload.
        buildfile: PathBuf,
        /// The `rust-project.json`.
        project: serde_json::Value,
    },
}

impl Message {
    /// The message as one JSON line, without the newline.
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("a message is plain data")
    }
}

/// Where a file's project is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located {
    /// The kernel source tree.
    pub srctree: PathBuf,
    /// The build tree.
    pub objtree: PathBuf,
    /// The external module's directory, when the file is one's.
    pub exttree: Option<PathBuf>,
    /// The file that stands for the build, given back to rust-analyzer as `buildfile`: the
    /// module's `Kbuild` or `Makefile`, or the objtree's `.config`.
    pub buildfile: PathBuf,
    /// How the objtree was found, for the progress line.
    pub how: String,
}

/// Where else to look for a source tree's build: `$KBUILD_OUTPUT`, and the user's list of
/// build trees.
#[derive(Clone, Debug, Default)]
pub struct Hints {
    /// `$KBUILD_OUTPUT`.
    pub kbuild_output: Option<PathBuf>,
    /// The build trees listed in [`Hints::list_file`].
    pub known_objtrees: Vec<PathBuf>,
    /// That list, for the messages (`$XDG_CONFIG_HOME/rust-project-gen/objtrees`).
    pub list_file: Option<PathBuf>,
}

/// The user's list of build trees: one absolute path a line, `#` starting a comment.
pub fn parse_objtree_list(text: &str) -> Vec<PathBuf> {
    text.lines()
        .map(|line| line.split('#').next().unwrap_or("").trim())
        .filter(|line| !line.is_empty())
        .map(PathBuf::from)
        .collect()
}

/// Why a file has no project.
#[derive(Debug, thiserror::Error)]
pub enum DiscoverError {
    /// `{arg}` is neither JSON nor a path.
    #[error(
        "cannot read the argument {arg:?} ({message}): give {{\"path\": FILE}}, {{\"buildfile\": FILE}} or a path"
    )]
    BadArgument {
        /// The argument.
        arg: String,
        /// serde's message.
        message: String,
    },
    /// Nothing above the file is a kernel tree or an external module.
    #[error(
        "{} is in no kernel source tree, build tree or external module (no Makefile and Kbuild beside rust/kernel, no .config beside include/generated, no Kbuild or Makefile with obj-m above it)",
        .0.display()
    )]
    NoKernel(PathBuf),
    /// A source tree with no build that the hints name.
    #[error(
        "{src} is not built in place and no build tree of it is known: build it (make -C {src} O=DIR LLVM=1 ...; make -C DIR), then set KBUILD_OUTPUT=DIR for the editor or add DIR to {list}",
        src = srctree.display(), list = list_file.display()
    )]
    NoObjtree {
        /// The source tree.
        srctree: PathBuf,
        /// The list the user can add the build tree to.
        list_file: PathBuf,
    },
    /// Several build trees of one source tree, none of them named.
    #[error(
        "{} has {} known build trees ({}): set KBUILD_OUTPUT to the one the editor is for",
        srctree.display(), objtrees.len(), objtrees.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
    )]
    SeveralObjtrees {
        /// The source tree.
        srctree: PathBuf,
        /// Its build trees.
        objtrees: Vec<PathBuf>,
    },
    /// An external module that kbuild has not built.
    #[error(
        "the external module in {dir} is not built, so its kernel is unknown: build it with make -C OBJTREE M={dir}",
        dir = .0.display()
    )]
    ModuleNotBuilt(PathBuf),
    /// An external module built before Linux 6.13, whose `.cmd` files do not name the objtree.
    #[error(
        "the external module in {} does not say which build tree it was built against (kbuild before Linux 6.13 does not record it): set KBUILD_OUTPUT=OBJTREE for the editor, or list the build tree alone in {}",
        dir.display(), list_file.display()
    )]
    ModuleObjtreeUnknown {
        /// The module's directory.
        dir: PathBuf,
        /// The list the user can add the build tree to.
        list_file: PathBuf,
    },
}

/// Finds the kernel build that `file` belongs to.
///
/// The nearest directory above the file that is one of these decides:
/// - a build tree (a `.config` beside `include/generated/`): its `source` link names the
///   source tree (or it is one, for an in-place build);
/// - a kernel source tree (a `Makefile` and a `Kbuild` beside `rust/kernel/`): built in place,
///   or by `$KBUILD_OUTPUT`, or by the one build tree of the user's list whose `source` it is.
///
/// Outside every kernel tree, the nearest external module (a `Kbuild`, or a `Makefile` naming
/// `obj-m`) decides: its objtree is the `OBJTREE` that kbuild gives rustc (Linux 6.13 and
/// later), or the only build tree the hints name.
pub fn locate(file: &Path, hints: &Hints) -> Result<Located, DiscoverError> {
    let start = if file.is_dir() { file } else { file.parent().unwrap_or(file) };
    let start = std::fs::canonicalize(start).unwrap_or_else(|_| start.to_owned());
    for dir in start.ancestors() {
        if is_objtree(dir) {
            let srctree = std::fs::canonicalize(dir.join("source")).unwrap_or_else(|_| dir.into());
            return Ok(Located {
                srctree,
                objtree: dir.to_owned(),
                exttree: None,
                buildfile: dir.join(".config"),
                how: format!("the build tree {} holds the file", dir.display()),
            });
        }
        if is_srctree(dir) {
            let (objtree, how) = objtree_of(dir, hints)?;
            return Ok(Located {
                srctree: dir.to_owned(),
                buildfile: objtree.join(".config"),
                objtree,
                exttree: None,
                how,
            });
        }
    }
    for dir in start.ancestors() {
        if let Some(buildfile) = module_buildfile(dir) {
            return module(dir, buildfile, hints);
        }
    }
    Err(DiscoverError::NoKernel(file.to_owned()))
}

/// A configured build tree: a `.config` beside `include/generated/`.
pub fn is_objtree(dir: &Path) -> bool {
    dir.join(".config").is_file() && dir.join("include/generated").is_dir()
}

/// The top of a kernel source tree with Rust support.
fn is_srctree(dir: &Path) -> bool {
    dir.join("Kbuild").is_file()
        && dir.join("Makefile").is_file()
        && dir.join("rust/kernel").is_dir()
}

/// An external module's `Kbuild`, or its `Makefile` when that names `obj-m`.
fn module_buildfile(dir: &Path) -> Option<PathBuf> {
    let kbuild = dir.join("Kbuild");
    if kbuild.is_file() {
        return Some(kbuild);
    }
    let makefile = dir.join("Makefile");
    let text = std::fs::read_to_string(&makefile).ok()?;
    text.contains("obj-m").then_some(makefile)
}

fn list_file(hints: &Hints) -> PathBuf {
    hints.list_file.clone().unwrap_or_else(|| PathBuf::from("~/.config/rust-project-gen/objtrees"))
}

/// The build tree of a source tree that is not itself one.
fn objtree_of(srctree: &Path, hints: &Hints) -> Result<(PathBuf, String), DiscoverError> {
    if is_objtree(srctree) {
        return Ok((srctree.to_owned(), "built in place".to_owned()));
    }
    let builds = |objtree: &Path| {
        is_objtree(objtree)
            && std::fs::canonicalize(objtree.join("source")).is_ok_and(|s| s == srctree)
    };
    if let Some(out) = &hints.kbuild_output
        && builds(out)
    {
        return Ok((out.clone(), "KBUILD_OUTPUT".to_owned()));
    }
    let known: Vec<PathBuf> = hints.known_objtrees.iter().filter(|o| builds(o)).cloned().collect();
    match known.as_slice() {
        [one] => Ok((one.clone(), format!("listed in {}", list_file(hints).display()))),
        [] => Err(DiscoverError::NoObjtree {
            srctree: srctree.to_owned(),
            list_file: list_file(hints),
        }),
        _ => Err(DiscoverError::SeveralObjtrees { srctree: srctree.to_owned(), objtrees: known }),
    }
}

/// An external module's project.
fn module(dir: &Path, buildfile: PathBuf, hints: &Hints) -> Result<Located, DiscoverError> {
    let scan = scan_rust_builds(dir).map_err(|_| DiscoverError::ModuleNotBuilt(dir.into()))?;
    let Some(build) = scan.builds.first() else {
        return Err(DiscoverError::ModuleNotBuilt(dir.to_owned()));
    };
    let (objtree, how) = match build.invocation.env.get("OBJTREE") {
        Some(objtree) => (PathBuf::from(objtree), "the OBJTREE kbuild gave rustc".to_owned()),
        None => {
            let candidates: Vec<&PathBuf> =
                hints.kbuild_output.iter().chain(&hints.known_objtrees).collect();
            match candidates.as_slice() {
                [one] if is_objtree(one) => ((*one).clone(), "the only build tree known".into()),
                _ => {
                    return Err(DiscoverError::ModuleObjtreeUnknown {
                        dir: dir.to_owned(),
                        list_file: list_file(hints),
                    });
                }
            }
        }
    };
    let srctree = std::fs::canonicalize(objtree.join("source")).unwrap_or_else(|_| objtree.clone());
    Ok(Located {
        srctree,
        objtree,
        exttree: Some(dir.to_owned()),
        buildfile,
        how: format!("an external module built against {how}"),
    })
}

#[cfg(test)]
mod tests;
