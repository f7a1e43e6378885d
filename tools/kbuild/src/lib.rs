//! The kbuild model, shared by every tool of the suite: what a kernel source tree (`srctree`)
//! and a build tree (`objtree`) are, what their `.config` says, and whether they are ready.
//!
//! Parsers take text and return values; only [`tree`], [`scan`] and [`bindgen::read_bindgen`]
//! read files, and [`make`] builds (does not run) the commands that run kbuild.

pub mod arch;
pub mod bindgen;
pub mod config;
pub mod flycheck;
pub mod make;
pub mod rustc;
pub mod scan;
pub mod shell;
#[doc(hidden)]
pub mod testing;
pub mod tree;

pub use arch::Arch;
pub use config::{Config, ConfigError, Unmet};
pub use rustc::{
    CmdFile, RustcError, RustcInvocation, find_rustc, parse_cmd_file, response_file_cfgs,
};
pub use scan::{
    RustBuild, Scan, ScanProblem, ScanRecord, rescan_rust_builds, saved_cmd_of, scan_rust_builds,
};
pub use tree::{Built, KernelVersion, Objtree, Srctree, TreeError, built_modules};
