//! The srctree: the tarball unpacked and the series applied, in a temporary directory beside
//! the target that is renamed into place only when complete, so no half-made tree is ever used.

use std::path::Path;
use std::time::Duration;

use subprocess::{Command, Stream};

use crate::inputs::{Inputs, stamp_changes};
use crate::{STAMP, WorkbenchError, make_in_place};

/// Whether the srctree had to be (re-)prepared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prepared {
    /// Its stamp matched: nothing was done.
    UpToDate,
    /// It was unpacked and patched afresh.
    Fresh,
}

/// Makes `srctree` the tarball of `inputs` with its patches applied, unless it already is.
pub fn prepare(inputs: &Inputs, srctree: &Path) -> Result<Prepared, WorkbenchError> {
    let stamp = inputs.srctree_stamp();
    let old = std::fs::read_to_string(srctree.join(STAMP)).ok();
    if old.as_deref() == Some(stamp.as_str()) {
        return Ok(Prepared::UpToDate);
    }
    if let Some(old) = &old {
        eprintln!("srctree inputs changed, re-preparing {}:", srctree.display());
        for change in stamp_changes(old, &stamp) {
            eprintln!("  {change}");
        }
    }
    make_in_place(srctree, STAMP, |tmp| {
        unpack_and_patch(inputs, tmp)?;
        std::fs::write(tmp.join(STAMP), &stamp)
            .map_err(|source| WorkbenchError::Io { path: tmp.join(STAMP), source })
    })?;
    Ok(Prepared::Fresh)
}

fn unpack_and_patch(inputs: &Inputs, dir: &Path) -> Result<(), WorkbenchError> {
    let step = progress::start(&format!("unpacking {}", inputs.tarball.path.display()));
    let mut files = 0u64;
    let cmd = Command::new("tar", dir)
        .arg("-xvJf")
        .arg(&inputs.tarball.path)
        .arg("--strip-components=1")
        .timeout(Duration::from_secs(600))
        .capture_limit(64 << 10);
    let unpacked = cmd
        .run_with(&mut |stream, _| {
            if stream == Stream::Stdout {
                files += 1;
                if files.is_multiple_of(2000) {
                    step.message(&format!("{files} files"));
                }
            }
        })
        .and_then(|out| out.check(&cmd));
    if let Err(e) = unpacked {
        step.failed();
        return Err(e.into());
    }
    step.done(&format!("{files} files"));

    for patch in &inputs.patches {
        let cmd = Command::new("patch", dir)
            .args(["-p1", "--batch", "--forward", "--no-backup-if-mismatch", "-i"])
            .arg(&patch.path)
            .timeout(Duration::from_secs(120));
        let out = cmd.run()?;
        if !out.success() {
            return Err(WorkbenchError::Patch {
                patch: patch.name.clone(),
                tree: inputs.tarball.path.display().to_string(),
                detail: rejects(dir, &out.stdout),
            });
        }
        eprintln!("applied {}", patch.name);
    }
    Ok(())
}

/// What `patch` said, followed by the rejected hunks it saved.
fn rejects(dir: &Path, patch_output: &str) -> String {
    let mut detail = patch_output.trim_end().to_owned();
    for line in patch_output.lines() {
        if let Some(rej) = line.split("saving rejects to file ").nth(1)
            && let Ok(text) = std::fs::read_to_string(dir.join(rej.trim()))
        {
            detail.push_str(&format!(
                "\n--- rejected hunks ({}) ---\n{}",
                rej.trim(),
                text.trim_end()
            ));
        }
    }
    detail
}
