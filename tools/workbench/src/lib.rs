//! The workbench: turns a Debian kernel source package and its demo kernel's folder
//! (`demo-kernel/VERSION/`: a patch series and a config fragment) into a built kernel tree, and
//! checks a user's own tree; the demo (`demo/`) boots it and runs the tools against it.
//!
//! - [`apt`]: a source package of another Debian suite, fetched with a private apt state;
//!
//! Each stage is keyed by a stamp of its inputs, so a change to the tarball, a patch or the
//! fragment re-prepares what depends on it and nothing else:
//! - [`srctree`]: unpack and patch into a temporary directory, then rename into place;
//! - [`objtree`]: `tinyconfig` plus the fragment, checked option by option;
//! - [`build`]: kbuild itself, which rebuilds nothing when nothing changed;
//! - [`extmod`]: the out-of-tree modules of `demo-kernel/modules/`, built with `M=`.
//!
//! [`cli`]: the arguments that say where a tree is, shared with the demo.

pub mod apt;
pub mod build;
pub mod cli;
pub mod extmod;
pub mod inputs;
pub mod kernel;
pub mod objtree;
pub mod srctree;

use std::path::Path;

/// The file in a prepared tree that records what it was prepared from.
pub const STAMP: &str = ".workbench-stamp";

pub use kbuild::make::kernel_make;

/// Makes `target` whole or not at all: `make` fills a temporary folder beside it (one left by an
/// interrupted run is removed first), which then replaces `target` if the workbench made it (it
/// holds `owner_file`, which `make` writes) and is renamed into place. On any error the temporary
/// folder is removed and `target` is left as it was.
fn make_in_place(
    target: &Path,
    owner_file: &str,
    make: impl FnOnce(&Path) -> Result<(), WorkbenchError>,
) -> Result<(), WorkbenchError> {
    let io = |path: &Path, source| WorkbenchError::Io { path: path.to_owned(), source };
    let parent = target.parent().unwrap_or(Path::new("/"));
    std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    let tmp = parent.join(format!(".{name}.tmp"));
    if tmp.exists() {
        // Left by an interrupted run: it was never renamed into place, so it is ours.
        std::fs::remove_dir_all(&tmp).map_err(|e| io(&tmp, e))?;
    }
    std::fs::create_dir(&tmp).map_err(|e| io(&tmp, e))?;
    let result = make(&tmp).and_then(|()| {
        remove_owned(target, owner_file)?;
        std::fs::rename(&tmp, target).map_err(|e| io(target, e))
    });
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result
}

/// Removes `dir` if it was made by the workbench (it holds `owner_file`), or if it is empty.
fn remove_owned(dir: &Path, owner_file: &str) -> Result<(), WorkbenchError> {
    if !dir.exists() {
        return Ok(());
    }
    let empty = std::fs::read_dir(dir).map(|mut d| d.next().is_none()).unwrap_or(false);
    if !empty && !dir.join(owner_file).exists() {
        return Err(WorkbenchError::NotOurs(dir.to_owned()));
    }
    let trash = dir.with_file_name(format!(
        "{}.old-{}",
        dir.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    std::fs::rename(dir, &trash)
        .map_err(|source| WorkbenchError::Io { path: dir.to_owned(), source })?;
    std::fs::remove_dir_all(&trash).map_err(|source| WorkbenchError::Io { path: trash, source })
}

/// Why a stage failed.
#[derive(Debug, thiserror::Error)]
pub enum WorkbenchError {
    /// A directory we would replace holds something we did not make.
    #[error(
        "{} exists and was not prepared by the workbench: move it away, or point KERNEL_SRC/KERNEL_OBJ at it to use it as it is",
        .0.display()
    )]
    NotOurs(std::path::PathBuf),
    /// A file operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: std::path::PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// A command failed.
    #[error(transparent)]
    Command(#[from] subprocess::Error),
    /// A bad input.
    #[error(transparent)]
    Inputs(#[from] inputs::InputError),
    /// A patch did not apply.
    #[error("patch {patch} does not apply to {tree}:\n{detail}")]
    Patch {
        /// The patch file name.
        patch: String,
        /// The tree it was applied to.
        tree: String,
        /// What `patch` said and the rejected hunks.
        detail: String,
    },
    /// The configuration did not come out as the fragment asked.
    #[error("{0}")]
    Config(String),
    /// The tree is not usable.
    #[error(transparent)]
    Tree(#[from] kbuild::TreeError),
}
