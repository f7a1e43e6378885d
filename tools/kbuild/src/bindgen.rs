//! The bindgen commands kbuild saved: `rust/bindings/.bindings_generated.rs.cmd` and
//! `rust/uapi/.uapi_generated.rs.cmd` hold how the `bindings` and `uapi` crates' Rust was made
//! from C headers, for tools that rerun them (layout-check, with bindgen's layout tests).

use std::path::{Path, PathBuf};

use crate::rustc::parse_cmd_file;
use crate::shell::{ShellError, split_commands};

/// The targets whose commands are bindgen's, by crate.
pub const BINDGEN_TARGETS: &[(&str, &str)] =
    &[("bindings", "rust/bindings/bindings_generated.rs"), ("uapi", "rust/uapi/uapi_generated.rs")];

/// One bindgen invocation, as kbuild ran it (from the objtree).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BindgenInvocation {
    /// Environment assignments before `bindgen`.
    pub env: Vec<(String, String)>,
    /// The program, as written (`bindgen`, or kbuild's `BINDGEN=`).
    pub program: String,
    /// bindgen's own options and the header, before `--`.
    pub options: Vec<String>,
    /// The compiler options after `--`, for libclang.
    pub clang_args: Vec<String>,
}

impl BindgenInvocation {
    /// The value of a bindgen option (`-o`, `--rust-target`), if given.
    pub fn option(&self, name: &str) -> Option<&str> {
        self.options
            .iter()
            .position(|w| w == name)
            .and_then(|i| self.options.get(i + 1))
            .map(String::as_str)
    }
}

/// Finds the bindgen invocation in a saved command line: the first simple command whose
/// program is named `bindgen`. Make's `$(pound)`, which kbuild writes for `#` (its attributes
/// such as `#[cfi_encoding = ...]`), is read as `#`.
pub fn find_bindgen(command: &str) -> Result<Option<BindgenInvocation>, ShellError> {
    let command = command.replace("$(pound)", "#");
    for simple in split_commands(&command)? {
        let Some(program) = simple.words.first() else { continue };
        if !program.rsplit('/').next().unwrap_or(program).starts_with("bindgen") {
            continue;
        }
        let rest = &simple.words[1..];
        let (options, clang_args) = match rest.iter().position(|w| w == "--") {
            Some(i) => (rest[..i].to_vec(), rest[i + 1..].to_vec()),
            None => (rest.to_vec(), Vec::new()),
        };
        return Ok(Some(BindgenInvocation {
            env: simple.env,
            program: program.clone(),
            options,
            clang_args,
        }));
    }
    Ok(None)
}

/// Why a saved bindgen command cannot be had.
#[derive(Debug, thiserror::Error)]
pub enum BindgenCmdError {
    /// The `.cmd` file is not there (or unreadable).
    #[error("cannot read {}: {source} (is the tree built with CONFIG_RUST=y?)", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It holds no bindgen command.
    #[error("{} holds no bindgen command", path.display())]
    NoBindgen {
        /// The file.
        path: PathBuf,
    },
    /// Its command line does not parse.
    #[error("{}: {source}", path.display())]
    Shell {
        /// The file.
        path: PathBuf,
        /// Why.
        source: ShellError,
    },
}

/// The bindgen command kbuild saved for `target` (`rust/bindings/bindings_generated.rs`,
/// relative to the objtree).
pub fn read_bindgen(objtree: &Path, target: &str) -> Result<BindgenInvocation, BindgenCmdError> {
    let (dir, file) = target.rsplit_once('/').unwrap_or(("", target));
    let path = objtree.join(dir).join(format!(".{file}.cmd"));
    let text = std::fs::read_to_string(&path)
        .map_err(|source| BindgenCmdError::Read { path: path.clone(), source })?;
    let no_bindgen = || BindgenCmdError::NoBindgen { path: path.clone() };
    let cmd = parse_cmd_file(&text).ok_or_else(no_bindgen)?;
    find_bindgen(&cmd.command)
        .map_err(|source| BindgenCmdError::Shell { path: path.clone(), source })?
        .ok_or_else(no_bindgen)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 7.3 command, shortened: attributes with `$(pound)`, options, `--`, clang's, and the
    /// `sed` kbuild runs after it.
    const SAVED: &str = "bindgen /s/rust/bindings/bindings_helper.h --opaque-type xregs_state \
        --with-attribute-custom-enum=irqreturn='$(pound)[cfi_encoding=\"9irqreturn\"]' \
        --rust-target 1.85 --no-layout-tests -o rust/bindings/bindings_generated.rs -- \
        -Wp,-MMD,rust/bindings/.bindings_generated.rs.d -I./include -DMODULE  ; \
        sed -Ei 's/pub const RUST_CONST_HELPER_([a-zA-Z0-9_]*)/pub const \\1/g' \
        rust/bindings/bindings_generated.rs";

    #[test]
    fn the_bindgen_command_of_a_saved_line() {
        let inv = find_bindgen(SAVED).unwrap().unwrap();
        assert_eq!(inv.program, "bindgen");
        assert_eq!(
            inv.options,
            [
                "/s/rust/bindings/bindings_helper.h",
                "--opaque-type",
                "xregs_state",
                "--with-attribute-custom-enum=irqreturn=#[cfi_encoding=\"9irqreturn\"]",
                "--rust-target",
                "1.85",
                "--no-layout-tests",
                "-o",
                "rust/bindings/bindings_generated.rs",
            ]
        );
        assert_eq!(
            inv.clang_args,
            ["-Wp,-MMD,rust/bindings/.bindings_generated.rs.d", "-I./include", "-DMODULE"]
        );
        assert_eq!(inv.option("-o"), Some("rust/bindings/bindings_generated.rs"));
        assert_eq!(find_bindgen("rustc --crate-name x x.rs").unwrap(), None);
    }

    #[test]
    fn read_from_an_objtree() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("rust/bindings")).unwrap();
        std::fs::write(
            dir.path().join("rust/bindings/.bindings_generated.rs.cmd"),
            format!("savedcmd_rust/bindings/bindings_generated.rs := {SAVED}\n\nsource_x := y\n"),
        )
        .unwrap();
        let inv = read_bindgen(dir.path(), "rust/bindings/bindings_generated.rs").unwrap();
        assert_eq!(inv.option("--rust-target"), Some("1.85"));
        let missing = read_bindgen(dir.path(), "rust/uapi/uapi_generated.rs").unwrap_err();
        assert!(missing.to_string().contains(".uapi_generated.rs.cmd"), "{missing}");
    }
}
