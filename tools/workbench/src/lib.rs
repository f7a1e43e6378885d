//! The workbench: turns a Debian kernel source package and its demo kernel's folder
//! (`demo-kernel/VERSION/`: a patch series and a config fragment) into a built kernel tree, and
//! boots it with the in-tree Rust samples.
//!
//! - [`apt`]: a source package of another Debian suite, fetched with a private apt state;
//!
//! Each stage is keyed by a stamp of its inputs, so a change to the tarball, a patch or the
//! fragment re-prepares what depends on it and nothing else:
//! - [`srctree`]: unpack and patch into a temporary directory, then rename into place;
//! - [`objtree`]: `tinyconfig` plus the fragment, checked option by option;
//! - [`build`]: kbuild itself, which rebuilds nothing when nothing changed;
//! - [`extmod`]: the out-of-tree modules of `demo-kernel/modules/`, built with `M=`.

pub mod apt;
pub mod build;
pub mod extmod;
pub mod inputs;
pub mod kernel;
pub mod objtree;
pub mod srctree;

use std::path::Path;

/// The file in a prepared tree that records what it was prepared from.
pub const STAMP: &str = ".workbench-stamp";

pub use kbuild::make::kernel_make;

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
