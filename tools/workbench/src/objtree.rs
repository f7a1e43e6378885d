//! The objtree: `make tinyconfig`, the fragments merged on top, `make olddefconfig`, and a check
//! that every option of the fragments came out as asked (kconfig drops what it cannot satisfy).

use std::path::Path;
use std::time::Duration;

use kbuild::Config;
use subprocess::Command;

use crate::inputs::{Inputs, stamp_changes};
use crate::{STAMP, WorkbenchError, kernel_make, remove_owned};

/// Whether the objtree had to be (re-)configured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Configured {
    /// Its stamp matched: nothing was done.
    UpToDate,
    /// It was made afresh.
    Fresh,
}

/// Makes `objtree` a build tree of `srctree` configured with the fragments, unless it already is.
pub fn configure(
    inputs: &Inputs,
    srctree: &Path,
    objtree: &Path,
) -> Result<Configured, WorkbenchError> {
    let stamp = inputs.objtree_stamp();
    let old = std::fs::read_to_string(objtree.join(STAMP)).ok();
    if old.as_deref() == Some(stamp.as_str()) && objtree.join(".config").is_file() {
        return Ok(Configured::UpToDate);
    }
    if let Some(old) = &old {
        eprintln!("objtree inputs changed, rebuilding {} from scratch:", objtree.display());
        for change in stamp_changes(old, &stamp) {
            eprintln!("  {change}");
        }
    }
    let io = |path: &Path, source| WorkbenchError::Io { path: path.to_owned(), source };
    remove_owned(objtree, STAMP)?;
    std::fs::create_dir_all(objtree).map_err(|e| io(objtree, e))?;
    // Claimed before anything else, so an interrupted run leaves a tree we may remove; the real
    // stamp replaces this one only once the configuration is complete.
    std::fs::write(objtree.join(STAMP), "incomplete\n").map_err(|e| io(objtree, e))?;

    let step = progress::start(&format!(
        "configuring the kernel (tinyconfig + {})",
        inputs.fragment_names()
    ));
    let result = configure_steps(inputs, srctree, objtree);
    match result {
        Ok(()) => {
            step.done("");
            std::fs::write(objtree.join(STAMP), stamp).map_err(|e| io(objtree, e))?;
            Ok(Configured::Fresh)
        }
        Err(e) => {
            step.failed();
            Err(e)
        }
    }
}

fn configure_steps(inputs: &Inputs, srctree: &Path, objtree: &Path) -> Result<(), WorkbenchError> {
    let timeout = Duration::from_secs(300);
    kernel_make(srctree, objtree).arg("tinyconfig").timeout(timeout).run_checked()?;
    Command::new(srctree.join("scripts/kconfig/merge_config.sh"), srctree)
        .args(["-m", "-O"])
        .arg(objtree)
        .arg(objtree.join(".config"))
        .args(inputs.fragments.iter().map(|f| &f.path))
        .timeout(timeout)
        .run_checked()?;
    kernel_make(srctree, objtree).arg("olddefconfig").timeout(timeout).run_checked()?;

    let path = objtree.join(".config");
    let text = std::fs::read_to_string(&path)
        .map_err(|source| WorkbenchError::Io { path: path.clone(), source })?;
    let config = Config::parse(&text)
        .map_err(|e| WorkbenchError::Config(format!("{}: {e}", path.display())))?;
    let unmet = config.unmet(&inputs.wanted_config());
    if unmet.is_empty() {
        return Ok(());
    }
    let mut msg = format!(
        "the kernel configuration in {} does not have what {} asks for:",
        path.display(),
        inputs.fragment_names()
    );
    for u in &unmet {
        msg.push_str(&format!("\n  CONFIG_{}={} (got {})", u.name, u.wanted, u.got));
    }
    if unmet.iter().any(|u| u.name == "RUST") {
        let why = kernel_make(srctree, objtree).arg("rustavailable").timeout(timeout).run()?;
        msg.push_str("\nCONFIG_RUST needs a usable Rust toolchain; `make rustavailable` says:");
        msg.push_str(&subprocess::format_tail(&why.tail));
    } else {
        msg.push_str(&format!(
            "\ncheck their dependencies with `make -C {} O={} menuconfig` (search with `/`) and fix the fragments",
            srctree.display(),
            objtree.display()
        ));
    }
    Err(WorkbenchError::Config(msg))
}
