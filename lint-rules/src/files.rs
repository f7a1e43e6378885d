//! Finding and reading the files to lint: directories walked in a stable order, generated
//! files skipped (they are not written by hand), third-party crates vendored into the tree
//! recognised (they are not kernel code), bad files reported and the rest kept.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Why a file is not linted, or its text.
#[derive(Debug)]
pub enum Source {
    /// The file's text.
    Text(String),
    /// Generated code (bindgen's output and the like): skipped unless asked for.
    Generated,
    /// Not UTF-8: at which byte.
    NotUtf8(usize),
}

/// A file to lint.
#[derive(Debug)]
pub struct Input {
    /// Its path on disk.
    pub path: PathBuf,
    /// Its name in findings: relative to the base directory when under it.
    pub name: String,
    /// The vendored third-party crate it belongs to, if any.
    pub vendored: Option<Vendored>,
}

/// A third-party crate vendored into the tree, as its folder's `README.md` says: "These source
/// files come from the Rust `syn` crate, version 2.0.106 [...]" (Linux 7.3's `rust/syn`,
/// `rust/quote`, `rust/proc-macro2`, `rust/zerocopy` and `rust/zerocopy-derive`, which
/// `rust/Makefile` builds with `--cap-lints=allow`; older kernels' `rust/alloc`, from the
/// standard library). Crates the kernel maintains itself, like `rust/pin-init`, have no such
/// README and are kernel code.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Vendored {
    /// The crate, as its README names it (else its folder's name).
    pub name: String,
    /// The upstream version it was taken from, when the README says.
    pub version: Option<String>,
    /// Its folder, named like the inputs (relative to the base directory when under it).
    pub dir: String,
}

/// Whether a crate folder's README says its files are vendored from elsewhere, and the crate and
/// version it names; `dir` names the folder (and the crate when the README does not).
pub fn vendored_from_readme(readme: &str, dir: &str) -> Option<Vendored> {
    // The sentence is wrapped anywhere: read the text as one line of words.
    let text = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let rest = &text
        [text.find("These source files come from ")? + "These source files come from ".len()..];
    let sentence = &rest[..rest.find(". ").unwrap_or(rest.len())];
    let quoted = sentence.split('`').nth(1).filter(|_| sentence.matches('`').count() >= 2);
    let folder = dir.rsplit('/').next().unwrap_or(dir);
    let name = quoted.unwrap_or(folder).to_owned();
    let version = sentence
        .split_once("version ")
        .and_then(|(_, v)| v.split([' ', ',', '(', ')']).next())
        .map(|v| v.trim_end_matches('.').to_owned())
        .filter(|v| v.starts_with(|c: char| c.is_ascii_digit() || c == 'v'));
    Some(Vendored { name, version, dir: dir.to_owned() })
}

/// A path that cannot be linted.
#[derive(Debug, thiserror::Error)]
pub enum FilesError {
    /// It does not exist.
    #[error("{}: no such file or directory", .0.display())]
    Missing(PathBuf),
    /// Reading it (or the directory) failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// The `.rs` files under `paths` (files as given, directories walked), sorted, named relative
/// to `base` when under it, each with the vendored crate it belongs to (the nearest folder
/// above it, up to `base`, whose `README.md` says so). Missing paths are errors; the walk goes
/// on past them.
pub fn collect(paths: &[PathBuf], base: &Path) -> (Vec<Input>, Vec<FilesError>) {
    let mut inputs = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        match std::fs::metadata(p) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                errors.push(FilesError::Missing(p.clone()))
            }
            Err(e) => errors.push(FilesError::Io { path: p.clone(), source: e }),
            Ok(m) if m.is_dir() => walk(p, &mut inputs, &mut errors),
            Ok(_) => inputs.push(p.clone()),
        }
    }
    inputs.sort();
    inputs.dedup();
    let mut readmes = HashMap::new();
    let inputs = inputs
        .into_iter()
        .map(|path| {
            let name = relative_name(&path, base);
            let vendored = vendored_crate(&path, base, &mut readmes);
            Input { path, name, vendored }
        })
        .collect();
    (inputs, errors)
}

fn relative_name(path: &Path, base: &Path) -> String {
    path.strip_prefix(base).map_or_else(|_| path.display().to_string(), |r| r.display().to_string())
}

/// The vendored crate whose folder holds `path`: the nearest folder above it (up to `base` when
/// `path` is under it) whose `README.md` says so. `readmes` remembers each folder's verdict.
fn vendored_crate(
    path: &Path,
    base: &Path,
    readmes: &mut HashMap<PathBuf, Option<Vendored>>,
) -> Option<Vendored> {
    let under_base = path.starts_with(base);
    for dir in path.ancestors().skip(1) {
        if under_base && !dir.starts_with(base) {
            break;
        }
        let verdict = readmes.entry(dir.to_owned()).or_insert_with(|| {
            let readme = std::fs::read_to_string(dir.join("README.md")).ok()?;
            vendored_from_readme(&readme, &relative_name(dir, base))
        });
        if verdict.is_some() {
            return verdict.clone();
        }
    }
    None
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>, errors: &mut Vec<FilesError>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            errors.push(FilesError::Io { path: dir.to_owned(), source: e });
            return;
        }
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(ft) = entry.file_type() else { continue };
        if ft.is_dir() {
            walk(&path, out, errors);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// bindgen's own helper types, which it writes at the top of its output when the C types need
/// them and which no one writes by hand: they tell its output when the banner was stripped
/// (nova-core's `gsp/fw/r570_144/bindings.rs`, committed without it).
const BINDGEN_HELPERS: &[&str] = &[
    "pub struct __BindgenBitfieldUnit<",
    "pub struct __IncompleteArrayField<",
    "pub struct __BindgenUnionField<",
];

/// Whether a file's name says it is generated (`*_generated.rs`, like the kernel's
/// `bindings_generated.rs` and `doctests_kernel_generated.rs`).
pub fn generated_name(name: &str) -> bool {
    name.ends_with("_generated.rs")
}

/// Whether kbuild made the file at `path` ([`kbuild::saved_cmd_of`] is there).
pub fn made_by_kbuild(path: &Path) -> bool {
    kbuild::saved_cmd_of(path).is_some_and(|cmd| cmd.is_file())
}

/// Classifies a file's bytes: generated (by name, `*_generated.rs`, or a generator's banner or
/// bindgen's helper types in its first lines), not UTF-8, or text.
pub fn classify(name: &str, bytes: Vec<u8>) -> Source {
    if generated_name(name) {
        return Source::Generated;
    }
    let head = &bytes[..bytes.len().min(1024)];
    let head = String::from_utf8_lossy(head);
    if head.contains("automatically generated by rust-bindgen")
        || head.contains("@generated")
        || BINDGEN_HELPERS.iter().any(|h| head.contains(h))
    {
        return Source::Generated;
    }
    match String::from_utf8(bytes) {
        Ok(text) => Source::Text(text),
        Err(e) => Source::NotUtf8(e.utf8_error().valid_up_to()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(readme: &str, dir: &str, expect: Option<(&str, Option<&str>)>) {
        let got = vendored_from_readme(readme, dir);
        let got = got.as_ref().map(|v| (v.name.as_str(), v.version.as_deref()));
        assert_eq!(got, expect, "{readme}");
    }

    #[test]
    fn vendored_crates_are_told_by_their_readme() {
        // Linux 7.3's rust/proc-macro2/README.md, wrapped as it is.
        check(
            "# `proc-macro2`\n\nThese source files come from the Rust `proc-macro2` crate, version\n1.0.101 (released 2025-08-16), hosted in the\n<https://github.com/dtolnay/proc-macro2> repository, licensed under\n\"Apache-2.0 OR MIT\" and only modified to add the SPDX license\nidentifiers and to remove the `unicode-ident` dependency.\n",
            "rust/proc-macro2",
            Some(("proc-macro2", Some("1.0.101"))),
        );
        check(
            "These source files come from the Rust `zerocopy` crate, version v0.8.54\n(released 2026-07-08), hosted in",
            "rust/zerocopy",
            Some(("zerocopy", Some("v0.8.54"))),
        );
        // Linux 6.1's rust/alloc: the standard library, no crate name in backticks.
        check(
            "These source files come from the Rust standard library, hosted in\nthe <https://github.com/rust-lang/rust> repository, licensed under\n",
            "rust/alloc",
            Some(("alloc", None)),
        );
        // rust/pin-init: the kernel's own crate, whose README is the crate's documentation.
        check(
            "# `pin-init`\n\nLibrary to safely and fallibly initialize pinned `struct`s using in-place constructors.\n",
            "rust/pin-init",
            None,
        );
        check("", "rust/kernel", None);
    }

    /// Regression: nova-core's firmware bindings (`gsp/fw/r570_144/bindings.rs`) are bindgen's
    /// output committed without its banner; its 17 findings on 7.3 (no `//!` docs, unsafe
    /// blocks of bindgen's bitfield accessors without `// SAFETY:`) were about generated code.
    #[test]
    fn a_kbuild_target_is_made_by_kbuild() {
        let dir = tempfile::tempdir().unwrap();
        let made = dir.path().join("generated_arch_warn_asm.rs");
        let written = dir.path().join("task.rs");
        for file in [&made, &written] {
            std::fs::write(file, "// SPDX-License-Identifier: GPL-2.0\n").unwrap();
        }
        std::fs::write(dir.path().join(".generated_arch_warn_asm.rs.cmd"), "savedcmd_x := ...\n")
            .unwrap();
        assert!(made_by_kbuild(&made));
        assert!(!made_by_kbuild(&written));
    }

    #[test]
    fn bindgen_output_without_its_banner_is_generated() {
        let generated = |name: &str, text: &str| {
            matches!(classify(name, text.as_bytes().to_vec()), Source::Generated)
        };
        let r570 = "// SPDX-License-Identifier: GPL-2.0\n\n#[repr(C)]\n#[derive(Default)]\npub struct __IncompleteArrayField<T>(::core::marker::PhantomData<T>, [T; 0]);\n";
        assert!(generated("drivers/gpu/nova-core/gsp/fw/r570_144/bindings.rs", r570));
        assert!(generated("rust/doctests_kernel_generated.rs", ""));
        // Code that uses the helper types is not their definition.
        let user = "// SPDX-License-Identifier: GPL-2.0\n\n//! Uses bindgen's types.\n\nunsafe impl<T> Zeroable for __IncompleteArrayField<T> {}\n";
        assert!(!generated("drivers/gpu/nova-core/gsp/fw/r570_144.rs", user));
    }
}
