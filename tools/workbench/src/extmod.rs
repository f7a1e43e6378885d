//! Out-of-tree modules (`make M=`): each folder of `demo-kernel/modules/` is copied into a
//! build folder in the cache (so no build output lands in the repository) and built against
//! the objtree.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::{WorkbenchError, kernel_make};

/// A built external module.
#[derive(Clone, Debug)]
pub struct ExtModule {
    /// Its folder name (and module name).
    pub name: String,
    /// The build folder, `KBUILD_EXTMOD`.
    pub dir: PathBuf,
    /// The `.ko` files it produced.
    pub kos: Vec<PathBuf>,
    /// Whether kbuild ran (`make M=`); false when nothing it reads had changed.
    pub made: bool,
}

/// Builds every module folder of `sources` into `build_dir/<name>` against `(srctree, objtree)`.
///
/// With `kernel_state`, the trees' [`crate::build::kbuild_state`], a module whose build folder's
/// times ([`freshness::tree_times`]), command and kernel state are those of its last build that
/// succeeded is not given to kbuild again: `make M=` would find nothing to do.
pub fn build_all(
    (srctree, objtree): (&Path, &Path),
    sources: &Path,
    build_dir: &Path,
    jobs: usize,
    kernel_state: Option<&str>,
) -> Result<Vec<ExtModule>, WorkbenchError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| WorkbenchError::Io { path, source }
    };
    let mut folders: Vec<PathBuf> = match std::fs::read_dir(sources) {
        Ok(entries) => entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(sources)(e)),
    };
    folders.sort();
    let mut built = Vec::new();
    for folder in folders {
        let name = folder.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let dir = build_dir.join(&name);
        std::fs::create_dir_all(&dir).map_err(io(&dir))?;
        for entry in std::fs::read_dir(&folder).map_err(io(&folder))?.flatten() {
            let from = entry.path();
            if !from.is_file() {
                continue;
            }
            let to = dir.join(entry.file_name());
            let data = std::fs::read(&from).map_err(io(&from))?;
            // Copy only what changed, so that kbuild sees unchanged files as unchanged.
            if std::fs::read(&to).ok().as_deref() != Some(&data[..]) {
                std::fs::write(&to, &data).map_err(io(&to))?;
            }
        }
        let make = kernel_make(srctree, objtree)
            .arg(format!("M={}", dir.display()))
            .arg(format!("-j{jobs}"))
            .arg("modules")
            .timeout(Duration::from_secs(20 * 60));
        // Beside the build folder, not in it: its times are part of the state.
        let stamp = build_dir.join(format!(".{name}.stamp"));
        let state = || {
            let times = freshness::tree_times(&[&dir]).ok()?;
            let mut f = freshness::Fingerprint::new();
            f.add(kernel_state?).add(&make.to_string()).add(&times);
            Some(f.finish())
        };
        let unchanged = state().is_some_and(|now| {
            std::fs::read_to_string(&stamp).is_ok_and(|recorded| recorded.trim() == now)
        });
        if !unchanged {
            let _ = std::fs::remove_file(&stamp);
            make.run_checked()?;
            if let Some(state) = state() {
                report::write_atomically(&stamp, state).map_err(io(&stamp))?;
            }
        }
        let mut kos: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(io(&dir))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "ko"))
            .collect();
        kos.sort();
        built.push(ExtModule { name, dir, kos, made: !unchanged });
    }
    Ok(built)
}
