//! The kernel's Rust coding rules (`Documentation/rust/coding-guidelines.rst` and friends),
//! checked on rust-analyzer's lossless syntax tree, merged with the kernel's own clippy run,
//! and reported like rustc (human or JSON, for the editor).
//!
//! The core is pure: [`lint_file`] takes a file's text and gives findings; [`check::check`]
//! walks paths (reading files, running clippy) and returns a typed result, which the binary
//! renders.
//!
//! The modules, from the ground up (each imports only modules below it): `lines` (positions),
//! `file_kind`, `rule` (what a rule is and what its checks get: [`Rule`], [`Level`], the
//! checks' context), `finding`, `suppress` (reading `lint-allow` comments), the rules
//! themselves (`rules/<rule>/`), `rules` (their list, [`RULES`]), `catalogue` (ids and
//! `RULES.md`), `walk` (one file's walk), `clippy` and `diag`, `lint` (one file: ours, clippy's,
//! levels, suppressions), and `check` (the paths). `files`, `diff` and `flycheck` stand apart.

pub mod catalogue;
pub mod check;
pub mod clippy;
pub mod diag;
pub mod diff;
pub mod file_kind;
pub mod files;
pub mod finding;
pub mod flycheck;
pub mod lines;
pub mod lint;
pub mod rule;
pub mod rules;
pub mod suppress;
pub mod walk;

pub use file_kind::{FileContext, FileKind};
pub use finding::{Finding, Origin};
pub use lines::Span;
pub use lint::{Config, FileResult, lint_file};
pub use rule::{Level, Rule};
pub use rules::RULES;
