//! What a file is checked as: its name in findings and its kind of code ([`FileKind`]: kernel,
//! leaf module or host code), which comes from its path in the tree and decides the rules that
//! apply. Pure.

/// What kind of code a file is, which decides the rules that apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// Kernel code in a core crate (`rust/kernel/`, `rust/ffi.rs`, ...).
    Kernel,
    /// A leaf module: a driver, a sample or an out-of-tree module.
    Leaf,
    /// Code that does not run in the kernel: proc macros, which run in the compiler
    /// (`rust/macros/`, pin-init's `rust/pin-init/internal/`), build tools (`scripts/`), and
    /// pin-init's userspace examples (`rust/pin-init/examples/`, programs on `std` and
    /// pthreads). Only the documentation and comment rules apply.
    Host,
}

/// The kind of a file from its path relative to the source tree (or of an out-of-tree module,
/// which is a leaf).
pub fn file_kind(rel_path: &str) -> FileKind {
    let p = rel_path.trim_start_matches("./");
    const HOST: &[&str] = &[
        "rust/macros/",
        "rust/pin-init/internal/",
        "rust/pin-init/examples/",
        "scripts/",
        "tools/",
    ];
    if HOST.iter().any(|h| p.starts_with(h)) {
        FileKind::Host
    } else if p.starts_with("rust/") {
        FileKind::Kernel
    } else {
        FileKind::Leaf
    }
}

/// What to check a file as.
#[derive(Clone, Debug)]
pub struct FileContext {
    /// The name used in findings.
    pub name: String,
    /// Its kind.
    pub kind: FileKind,
    /// Whether it is the kernel's `ffi` crate, which defines the C types from `core::ffi`.
    pub is_ffi_crate: bool,
}

impl FileContext {
    /// The context of a file known by its path relative to the source tree.
    pub fn for_path(rel_path: &str) -> FileContext {
        let p = rel_path.trim_start_matches("./");
        FileContext { name: p.to_owned(), kind: file_kind(p), is_ffi_crate: p == "rust/ffi.rs" }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_kinds_come_from_the_path() {
        assert_eq!(file_kind("rust/kernel/sync/arc.rs"), FileKind::Kernel);
        assert_eq!(file_kind("rust/macros/module.rs"), FileKind::Host);
        assert_eq!(file_kind("drivers/net/phy/qt2025.rs"), FileKind::Leaf);
        assert_eq!(file_kind("samples/rust/rust_minimal.rs"), FileKind::Leaf);
        assert_eq!(file_kind("./scripts/generate_rust_target.rs"), FileKind::Host);
        // pin-init (7.3): the library is kernel code, its proc macros and its userspace
        // examples are not (no-panic and infallible-alloc reported `unwrap()` and `vec![]` in
        // a proc macro and in programs on `std`).
        assert_eq!(file_kind("rust/pin-init/src/lib.rs"), FileKind::Kernel);
        assert_eq!(file_kind("rust/pin-init/internal/src/init.rs"), FileKind::Host);
        assert_eq!(file_kind("rust/pin-init/examples/mutex.rs"), FileKind::Host);
    }
}
