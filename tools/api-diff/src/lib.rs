//! What changed in a crate's public API between two versions (the kernel crate of 6.12 and of
//! 7.3, say), read from rustdoc's JSON output
//! (`RUSTC_BOOTSTRAP=1 rustdoc -Z unstable-options --output-format json`) through the
//! `rustdoc-types` crate, whose release must match the JSON's format version ([`FORMAT_VERSION`]).
//!
//! [`read_crate`] and [`parse_crate`] check the JSON's `format_version` before anything else.
//! [`api()`] walks a crate's public module tree into an [`Api`]; [`diff()`] compares two of them
//! into a [`Diff`]: items added, removed, moved and changed, each with its rustdoc page in the
//! versions where it exists ([`url()`], [`member_url`]) and, for changes, short reasons.
//! [`summary`] counts them; [`render_text`] and [`render_html`] show them. Only [`read_crate`]
//! and [`diff_files`] do I/O.
//!
//! # What is compared
//!
//! The items reachable from the crate root through public modules and `pub use` (globs
//! included), under their canonical path (where they are defined, or for an item of a private
//! module the shortest path that re-exports it), with the other paths that reach them.
//! Functions: parameter and return types, generic parameters, bounds (wherever written),
//! `unsafe`, `const`, `async`, ABI. Structs, unions, enums: generics, public fields and their
//! types, variants as declared, private fields, `#[non_exhaustive]`, and their trait impls
//! (auto-trait ones included) with their bounds. Traits: items, `unsafe`, supertraits,
//! generics, dyn compatibility. Type aliases, constants and statics: their type and value.
//! `macro_rules!` macros: their rules' matchers. Proc macros: their kind and helper attributes.
//! Types compare by the full path of the items they name, the old version's paths mapped
//! through the items that moved.
//!
//! # What is not
//!
//! Items of another crate that this one re-exports are listed (under their path there) but not
//! compared: their JSON is not read. Glob re-exports of another crate's module or of an enum's
//! variants are not followed. Blanket impls, and impls of this crate's traits for other crates'
//! types, are not listed; an impl's provided methods it does not override are not its members.
//! Moves are found among module-level items only, and only when one old and one new item have
//! that name and kind. Documentation, deprecation, attributes other than `#[non_exhaustive]`,
//! `#[repr]`, macro bodies and function bodies are not compared. A second anchor rustdoc
//! numbers (`#method.fmt-1`, for two trait impls' `fmt` on one page) is not modelled.

mod api;
mod diff;
mod print;
mod render;
mod url;

use std::path::{Path, PathBuf};

pub use rustdoc_types::{Crate, FORMAT_VERSION};

pub use crate::api::Place;
pub use crate::api::{Api, api};
pub use crate::diff::{ChangeKind, Counts, Diff, Entry, Reason, Summary, diff, summary};
pub use crate::render::{Sides, Version, heading, render_html, render_text};
pub use crate::url::{member_url, url};

/// The kinds of items the diff knows, each with its rustdoc page or anchor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ItemKind {
    /// `mod m`: `m/index.html`.
    Module,
    /// `struct S`: `struct.S.html`.
    Struct,
    /// `enum E`: `enum.E.html`.
    Enum,
    /// `union U`: `union.U.html`.
    Union,
    /// `trait T`: `trait.T.html`.
    Trait,
    /// A free function: `fn.f.html`.
    Function,
    /// `const C`: `constant.C.html`.
    Constant,
    /// `static S`: `static.S.html`.
    Static,
    /// `type T = ...`: `type.T.html`.
    TypeAlias,
    /// A `macro_rules!` macro or a function-like proc macro: `macro.m.html`.
    Macro,
    /// An attribute proc macro: `attr.A.html`.
    AttributeMacro,
    /// A derive proc macro: `derive.D.html`.
    DeriveMacro,
    /// A function of an inherent or trait impl, `Type::method`: `#method.m` on the type's page.
    Method,
    /// A trait's method without a default body: `#tymethod.m` on the trait's page.
    RequiredMethod,
    /// A trait's method with a default body: `#method.m` on the trait's page.
    ProvidedMethod,
    /// An associated constant of a trait or impl: `#associatedconstant.C`.
    AssocConst,
    /// An associated type of a trait or impl: `#associatedtype.T`.
    AssocType,
    /// An enum's variant: `#variant.V` on the enum's page.
    Variant,
    /// A struct's or union's field: `#structfield.f`.
    Field,
}

impl ItemKind {
    /// How the reports name the kind: `"struct"`, `"type alias"`, `"required method"`.
    pub fn name(self) -> &'static str {
        match self {
            ItemKind::Module => "module",
            ItemKind::Struct => "struct",
            ItemKind::Enum => "enum",
            ItemKind::Union => "union",
            ItemKind::Trait => "trait",
            ItemKind::Function => "function",
            ItemKind::Constant => "constant",
            ItemKind::Static => "static",
            ItemKind::TypeAlias => "type alias",
            ItemKind::Macro => "macro",
            ItemKind::AttributeMacro => "attribute macro",
            ItemKind::DeriveMacro => "derive macro",
            ItemKind::Method => "method",
            ItemKind::RequiredMethod => "required method",
            ItemKind::ProvidedMethod => "provided method",
            ItemKind::AssocConst => "associated constant",
            ItemKind::AssocType => "associated type",
            ItemKind::Variant => "variant",
            ItemKind::Field => "field",
        }
    }
}

/// What can go wrong reading rustdoc's JSON.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The file could not be read.
    #[error("cannot read {}: {source}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The text is not JSON with a numeric `format_version`.
    #[error(
        "{} is not rustdoc's JSON output (no numeric `format_version`): {source}",
        file.display()
    )]
    NotRustdocJson {
        /// The file.
        file: PathBuf,
        /// What serde_json said.
        source: serde_json::Error,
    },
    /// The JSON was written by a rustdoc whose format this build of api-diff does not read.
    #[error(
        "{} is rustdoc JSON of format version {found}, but api-diff reads format version \
         {expected} (rustdoc-types 0.{expected}.x): generate the JSON with the rustdoc of Rust \
         1.95, the workspace's toolchain (`RUSTC_BOOTSTRAP=1 rustdoc -Z unstable-options \
         --output-format json`), or move the workspace's `rustdoc-types` dependency to the \
         release whose FORMAT_VERSION is {found} (0.{found}.x)",
        file.display()
    )]
    FormatVersion {
        /// The file.
        file: PathBuf,
        /// The file's `format_version`.
        found: u32,
        /// [`FORMAT_VERSION`], the one api-diff reads.
        expected: u32,
    },
    /// The format version matches but the JSON does not fit `rustdoc-types`.
    #[error(
        "{} does not fit rustdoc JSON format version {FORMAT_VERSION}: {source}",
        file.display()
    )]
    Json {
        /// The file.
        file: PathBuf,
        /// What serde_json said.
        source: serde_json::Error,
    },
}

/// Reads and parses the rustdoc JSON at `file`; see [`parse_crate`].
pub fn read_crate(file: &Path) -> Result<Crate, Error> {
    let json = std::fs::read_to_string(file)
        .map_err(|source| Error::Read { file: file.to_owned(), source })?;
    parse_crate(&json, file)
}

/// Parses rustdoc JSON text; `file` names it in errors. A `format_version` other than
/// [`FORMAT_VERSION`] is an [`Error::FormatVersion`], checked before the rest is read.
pub fn parse_crate(json: &str, file: &Path) -> Result<Crate, Error> {
    #[derive(serde::Deserialize)]
    struct Header {
        format_version: u32,
    }
    let header: Header = serde_json::from_str(json)
        .map_err(|source| Error::NotRustdocJson { file: file.to_owned(), source })?;
    if header.format_version != FORMAT_VERSION {
        return Err(Error::FormatVersion {
            file: file.to_owned(),
            found: header.format_version,
            expected: FORMAT_VERSION,
        });
    }
    serde_json::from_str(json).map_err(|source| Error::Json { file: file.to_owned(), source })
}

/// Reads two versions' rustdoc JSON and compares their public APIs.
pub fn diff_files(old: &Path, new: &Path) -> Result<Diff, Error> {
    let old = api(&read_crate(old)?);
    let new = api(&read_crate(new)?);
    Ok(diff(&old, &new))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn another_format_version_is_a_clear_error() {
        let json = r#"{"root": 0, "format_version": 56, "index": {}}"#;
        let err = parse_crate(json, Path::new("out/kernel.json")).unwrap_err();
        assert!(
            matches!(err, Error::FormatVersion { found: 56, expected: FORMAT_VERSION, .. }),
            "{err:?}"
        );
        let message = err.to_string();
        assert!(message.starts_with("out/kernel.json is rustdoc JSON of format version 56"));
        assert!(message.contains(&format!("api-diff reads format version {FORMAT_VERSION}")));
        assert!(message.contains("release whose FORMAT_VERSION is 56 (0.56.x)"), "{message}");
    }

    #[test]
    fn text_without_a_format_version_is_not_rustdoc_json() {
        let err = parse_crate(r#"{"root": 0}"#, Path::new("x.json")).unwrap_err();
        assert!(matches!(err, Error::NotRustdocJson { .. }), "{err:?}");
        assert!(err.to_string().starts_with("x.json is not rustdoc's JSON output"));
    }

    #[test]
    fn the_right_format_version_with_a_broken_body_is_a_json_error() {
        let json = format!(r#"{{"format_version": {FORMAT_VERSION}, "root": "x"}}"#);
        let err = parse_crate(&json, Path::new("x.json")).unwrap_err();
        assert!(matches!(err, Error::Json { .. }), "{err:?}");
    }
}
