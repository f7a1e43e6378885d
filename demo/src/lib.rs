//! The demo, the suite's top floor: the demo kernel made ready (`workbench`) and booted with
//! the Rust samples (`qemu`), then every tool of the suite run against the same tree as a
//! program ([`tools`]), each read back as its typed result (`report::results`), never as text,
//! and one summary rendered from those results ([`summary`]), and the same as KernelCI's KCIDB
//! data ([`kcidb`]). What takes long and depends only
//! on files is reused while their contents are the same ([`reuse`]).

pub mod kcidb;
pub mod reuse;
pub mod summary;
pub mod tools;
