//! The kbuild model, shared by every tool of the suite: what a kernel source tree (`srctree`)
//! and a build tree (`objtree`) are, what their `.config` says, and whether they are ready.
//!
//! Parsers take text and return values; only [`tree`] reads files.

pub mod config;
pub mod tree;

pub use config::{Config, ConfigError, Unmet};
pub use tree::{Built, KernelVersion, Objtree, Srctree, TreeError};
