//! layout-check: do the Rust types that bindgen made of the kernel's C types (the `bindings`
//! and `uapi` crates) have the layout C gives them?
//!
//! Both sides come from the DWARF of the built kernel ([`dwarf`]): what the C compiler laid out,
//! and what rustc laid out, each as a [`model::Type`]. [`compare`] (pure) compares size,
//! alignment, and every member's offset and size, and says for each type that differs where it
//! starts and why. [`bindgen`] is the second, independent check: the kernel's own bindgen
//! command rerun with its layout tests, compiled. [`result`]: the suite's typed result of both.

pub mod bindgen;
pub mod compare;
pub mod dwarf;
pub mod html;
pub mod model;
pub mod result;
pub mod text;

pub use compare::{Definitions, Report, compare};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dwarf::{CDecls, Collector, ReadError, Sections};

/// What [`read_images`] read.
#[derive(Debug, Default)]
pub struct Read {
    /// Both sides of every binding.
    pub defs: Definitions,
    /// Where C declares each top-level name ([`CDecls`]), when asked for.
    pub decls: BTreeMap<String, String>,
}

/// Why images could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ImagesError {
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// A file's DWARF could not be read.
    #[error("cannot read the DWARF of {}: {source}", path.display())]
    Dwarf {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: ReadError,
    },
    /// No image has a type of the bindgen crates.
    #[error(
        "no type of Rust's bindings or uapi crates in the DWARF of {}: build the kernel with CONFIG_RUST=y and CONFIG_DEBUG_INFO",
        .0.display()
    )]
    NoRust(PathBuf),
}

/// Reads both sides from every image (vmlinux first; a module without DWARF is skipped): Rust's
/// types first, since they say which C names matter, then C's; and, with `decls`, where C
/// declares every other name.
pub fn read_images(files: &[PathBuf], decls: bool) -> Result<Read, ImagesError> {
    let mut data = Vec::new();
    for file in files {
        let bytes =
            std::fs::read(file).map_err(|source| ImagesError::Io { path: file.clone(), source })?;
        data.push(bytes);
    }
    let dwarf_error = |path: &Path| {
        let path = path.to_owned();
        move |source| ImagesError::Dwarf { path, source }
    };
    let mut sections: Vec<(&PathBuf, Sections<'_>)> = Vec::new();
    for (file, bytes) in files.iter().zip(&data) {
        match Sections::parse(bytes) {
            Ok(s) => sections.push((file, s)),
            // A module built without debug information has nothing to say; vmlinux must.
            Err(ReadError::NoDwarf) if !sections.is_empty() => {}
            Err(e) => return Err(dwarf_error(file)(e)),
        }
    }
    let mut collector = Collector::default();
    for (file, s) in &sections {
        collector.add_rust(&s.dwarf()).map_err(dwarf_error(file))?;
    }
    for (file, s) in &sections {
        collector.add_c(&s.dwarf()).map_err(dwarf_error(file))?;
    }
    if collector.defs.rust.is_empty() {
        return Err(ImagesError::NoRust(files.first().cloned().unwrap_or_default()));
    }
    let mut c_decls = CDecls::default();
    if decls {
        for (file, s) in &sections {
            c_decls.add(&s.dwarf()).map_err(dwarf_error(file))?;
        }
    }
    Ok(Read { defs: collector.defs, decls: c_decls.decls })
}

/// Makes the declarations under `srctree` relative to it (`include/linux/sched.h:835`): the C
/// definitions' of `defs`, and `decls`.
pub fn shorten_decls(defs: &mut Definitions, decls: &mut BTreeMap<String, String>, srctree: &Path) {
    let prefix = format!("{}/", srctree.display());
    let shorten = |decl: &mut String| {
        if let Some(rest) = decl.strip_prefix(&prefix) {
            *decl = rest.to_owned();
        }
    };
    defs.c.values_mut().flatten().filter_map(|t| t.decl.as_mut()).for_each(shorten);
    decls.values_mut().for_each(shorten);
}
