//! docs-site: the kernel's Rust documentation as one site. Every crate kbuild built is
//! documented by rustdoc with the flags of its build ([`plan`]), in parallel and only when its
//! inputs changed ([`build`]); the site gets a landing page, the kernel's logo, search across
//! crates, a source view for `srctree/` links and the results of the kernel's doctests run in
//! the booted kernel ([`site`], [`doctests`]), and a link checker proves that no link leads
//! nowhere ([`linkcheck`]).

pub mod build;
pub mod doctests;
pub mod generate;
pub mod html;
pub mod linkcheck;
pub mod mend;
pub mod plan;
pub mod serve;
pub mod site;
pub mod versions;

use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path.file_name().map_or("file".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    drop(file);
    std::fs::rename(&tmp, path)
}
