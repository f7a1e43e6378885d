//! Builds the objtree with kbuild, streaming its output to a log and a progress line.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::{WorkbenchError, kernel_make};

/// How a build went.
#[derive(Clone, Debug)]
pub struct BuildReport {
    /// Whether `vmlinux` was relinked (false: kbuild found nothing to do).
    pub relinked: bool,
    /// The full build log.
    pub log: PathBuf,
}

/// Runs `make -jN` (all: `vmlinux`, `bzImage`, modules) in `objtree`, logging to `log`.
pub fn build(
    srctree: &Path,
    objtree: &Path,
    jobs: usize,
    log: &Path,
) -> Result<BuildReport, WorkbenchError> {
    build_with(srctree, objtree, jobs, &[], log)
}

/// [`build`] with more make variables (`CLIPPY=1`).
pub fn build_with(
    srctree: &Path,
    objtree: &Path,
    jobs: usize,
    vars: &[&str],
    log: &Path,
) -> Result<BuildReport, WorkbenchError> {
    let io = |path: &Path, source| WorkbenchError::Io { path: path.to_owned(), source };
    let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let vmlinux = objtree.join("vmlinux");
    let before: Option<SystemTime> = mtime(&vmlinux);

    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    }
    let mut log_file = std::io::BufWriter::new(std::fs::File::create(log).map_err(|e| io(log, e))?);
    let cmd = kernel_make(srctree, objtree)
        .arg(format!("-j{jobs}"))
        .args(vars)
        .timeout(Duration::from_secs(90 * 60))
        .capture_limit(1 << 20);
    let step =
        progress::start(&format!("building the kernel (make -j{jobs} in {})", objtree.display()));
    eprintln!("    {cmd}");
    let out = cmd.run_with(&mut |_, line| {
        use std::io::Write;
        let _ = writeln!(log_file, "{line}");
        step.message(line.trim());
    });
    let out = out.and_then(|out| out.check(&cmd));
    match out {
        Ok(_) => {
            let relinked = mtime(&vmlinux) != before;
            step.done(if relinked { "vmlinux linked" } else { "up to date, nothing rebuilt" });
            Ok(BuildReport { relinked, log: log.to_owned() })
        }
        Err(e) => {
            step.failed();
            eprintln!("full build log: {}", log.display());
            Err(e.into())
        }
    }
}
