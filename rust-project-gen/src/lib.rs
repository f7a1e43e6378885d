//! `rust-project-gen`: writes `rust-project.json` for rust-analyzer from what kbuild actually
//! ran, instead of guessing the crate graph from Makefiles as `scripts/generate_rust_analyzer.py`
//! does.
//!
//! - [`graph`] (pure) turns the rustc invocations that `kbuild::scan` found into a crate graph;
//! - [`json`] (the edge) mirrors the `rust-project.json` format and serialises the graph;
//! - [`generate`] ties them to the trees on disk and writes the file atomically;
//! - [`std_deps`] (pure) reads which of `std`'s crates.io dependencies the file gives it;
//! - [`guess`] stands in for the `.cmd` files of a tree that is configured but not built;
//! - [`upstream`] runs the tree's own `scripts/generate_rust_analyzer.py`, for comparisons;
//! - [`discover`] finds a file's kernel build, for rust-analyzer's `workspace.discoverConfig`;
//! - [`store`] keeps what a run may reuse: the last scan of each tree, rust-analyzer's version.

pub mod discover;
pub mod generate;
pub mod graph;
pub mod guess;
pub mod json;
pub mod rust_analyzer;
pub mod std_deps;
pub mod store;
pub mod upstream;

pub use generate::{GenerateError, Output, Trees, cargo_home, generate};
pub use graph::{Crate, Origin, Project, build_project};
