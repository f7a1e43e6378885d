//! The crates.io dependencies of `std` that the file gives it, read from the Rust sources'
//! own manifests (pure: text in, crates out).
//!
//! `std::collections::HashMap` and `HashSet` are wrappers of hashbrown's tables. With
//! `sysroot_project` the file lists `core`, `alloc`, `std` and `proc_macro` only (loading the
//! whole of `std`'s workspace costs half as much memory again), and a rust-analyzer of
//! mid-2026 or later, which reports E0282 "type annotations needed" where it cannot infer a
//! type, then reports it at every `HashMap::new()` of the host crates (`rust/macros`,
//! `scripts/generate_rust_target.rs`). hashbrown is not in the `rust-src` component: cargo
//! fetches it, as it does when rust-analyzer loads `std`'s workspace itself.

use std::path::PathBuf;

use toml_edit::{Document, Item};

/// The crates.io dependencies of `std` the file lists, by name.
pub const STD_DEPS: &[&str] = &["hashbrown"];

/// One of them, found in cargo's registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StdDep {
    /// The crate's name, as `std` imports it.
    pub name: String,
    /// Its crate root in cargo's registry sources.
    pub root_module: PathBuf,
    /// Its edition.
    pub edition: String,
    /// The features `std` builds it with, each feature they turn on included.
    pub features: Vec<String>,
}

/// Why a manifest says nothing usable about a dependency.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum StdDepError {
    /// Not TOML.
    #[error("not TOML: {0}")]
    Toml(String),
    /// The lock file has no package of that name.
    #[error("no [[package]] named {0} with a version")]
    NotLocked(String),
}

/// The document, read only: a `DocumentMut` would first drop every span the parser kept (half
/// the time, on std's manifest).
fn parse(text: &str) -> Result<Document<&str>, StdDepError> {
    Document::parse(text).map_err(|e| StdDepError::Toml(e.message().to_owned()))
}

/// The version of `name` that `library/Cargo.lock` pins.
///
/// Cargo writes each package as a `[[package]]` table of its own lines, `name = "..."` among
/// them: only the one named `name` is parsed (the whole lock is a hundred times longer), and the
/// whole lock only when no table has that line.
pub fn locked_version(cargo_lock: &str, name: &str) -> Result<String, StdDepError> {
    let name_line = format!("name = \"{name}\"");
    let table = cargo_lock
        .split("\n[[package]]\n")
        .skip(1)
        .find(|table| table.lines().any(|line| line == name_line))
        .map(|table| format!("[[package]]\n{table}"));
    let lock = parse(table.as_deref().unwrap_or(cargo_lock))?;
    lock.get("package")
        .and_then(Item::as_array_of_tables)
        .into_iter()
        .flatten()
        .filter(|package| package.get("name").and_then(Item::as_str) == Some(name))
        .find_map(|package| package.get("version").and_then(Item::as_str).map(str::to_owned))
        .ok_or_else(|| StdDepError::NotLocked(name.to_owned()))
}

/// The dependency `name` of `std` as its crate: `std_manifest` is `library/std/Cargo.toml`,
/// `dep_manifest` the dependency's own `Cargo.toml`. Its features are those `std` asks for
/// (and the default ones unless `std` turns them off), closed over the dependency's
/// `[features]` table; an optional dependency a feature turns on is a feature too, as cargo
/// sets it.
pub fn std_dep(
    name: &str,
    root_module: PathBuf,
    std_manifest: &str,
    dep_manifest: &str,
) -> Result<StdDep, StdDepError> {
    let std = parse(std_manifest)?;
    let dep = parse(dep_manifest)?;
    let wanted = std.get("dependencies").and_then(|deps| deps.get(name));
    let mut todo: Vec<String> = wanted
        .and_then(|w| w.get("features"))
        .and_then(Item::as_array)
        .into_iter()
        .flatten()
        .filter_map(|f| f.as_str().map(str::to_owned))
        .collect();
    if wanted.and_then(|w| w.get("default-features")).and_then(Item::as_bool) != Some(false) {
        todo.push("default".to_owned());
    }
    let table = dep.get("features");
    let mut features = Vec::new();
    while let Some(feature) = todo.pop() {
        if features.contains(&feature) {
            continue;
        }
        if let Some(turns_on) = table.and_then(|t| t.get(&feature)).and_then(Item::as_array) {
            for entry in turns_on.iter().filter_map(|v| v.as_str()) {
                // `dep:x` turns on a dependency without a feature of its name; `x/f` and
                // `x?/f` turn on a feature of a dependency: neither is a feature of this crate.
                if !entry.starts_with("dep:") && !entry.contains('/') {
                    todo.push(entry.to_owned());
                }
            }
        }
        features.push(feature);
    }
    features.sort();
    let edition = dep
        .get("package")
        .and_then(|p| p.get("edition"))
        .and_then(Item::as_str)
        .unwrap_or("2015")
        .to_owned();
    Ok(StdDep { name: name.to_owned(), root_module, edition, features })
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCK: &str = r#"
version = 4

[[package]]
name = "foldhash"
version = "0.2.0"

[[package]]
name = "hashbrown"
version = "0.16.1"
source = "registry+https://github.com/rust-lang/crates.io-index"
dependencies = ["foldhash", "rustc-std-workspace-alloc"]
"#;

    const STD: &str = r#"
[package]
name = "std"

[dependencies]
core = { path = "../core", public = true }
hashbrown = { version = "0.16.1", default-features = false, features = [
    'rustc-dep-of-std',
] }
"#;

    const HASHBROWN: &str = r#"
[package]
edition = "2021"
name = "hashbrown"

[features]
default = ["default-hasher", "inline-more"]
default-hasher = ["dep:foldhash"]
inline-more = []
nightly = ["bumpalo/allocator_api"]
rustc-dep-of-std = ["nightly", "core", "alloc", "rustc-internal-api"]
rustc-internal-api = []
"#;

    #[test]
    fn the_locked_version() {
        assert_eq!(locked_version(LOCK, "hashbrown"), Ok("0.16.1".to_owned()));
        assert_eq!(locked_version(LOCK, "libc"), Err(StdDepError::NotLocked("libc".to_owned())));
        assert!(matches!(locked_version("[[package]", "hashbrown"), Err(StdDepError::Toml(_))));
    }

    #[test]
    fn the_features_std_builds_it_with() {
        let dep = std_dep("hashbrown", PathBuf::from("/r/lib.rs"), STD, HASHBROWN).unwrap();
        assert_eq!(dep.edition, "2021");
        // No default features; `nightly`'s `bumpalo/allocator_api` is a dependency's.
        assert_eq!(
            dep.features,
            ["alloc", "core", "nightly", "rustc-dep-of-std", "rustc-internal-api"]
        );
        let with_defaults = STD.replace("default-features = false, ", "");
        let dep = std_dep("hashbrown", PathBuf::new(), &with_defaults, HASHBROWN).unwrap();
        assert_eq!(
            dep.features,
            [
                "alloc",
                "core",
                "default",
                "default-hasher",
                "inline-more",
                "nightly",
                "rustc-dep-of-std",
                "rustc-internal-api"
            ]
        );
    }
}
