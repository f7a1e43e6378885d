//! Check on save: the kbuild command that rebuilds one crate with rustc's JSON diagnostics,
//! for rust-analyzer's `flycheck` runnable.

use std::path::{Path, PathBuf};

/// The arguments of a check on save, which rust-project.json's `flycheck` runnable passes:
/// shared by `kbuild-flycheck` and `lint-rules flycheck`.
#[derive(clap::Args, Clone, Debug)]
pub struct FlycheckArgs {
    /// The kernel source tree.
    #[arg(long)]
    pub srctree: PathBuf,
    /// The kernel build tree.
    #[arg(long)]
    pub objtree: PathBuf,
    /// Run clippy too (`make CLIPPY=1`).
    #[arg(long)]
    pub clippy: bool,
    /// The crate's build label: its object's path (`$OBJTREE/rust/kernel.o`).
    pub label: PathBuf,
}

/// What to run for a crate's build label.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckCommand {
    /// `make` arguments after `-C SRCTREE O=OBJTREE`: `M=` for an external module, the
    /// flags, and the target relative to its tree.
    pub make_args: Vec<String>,
}

/// Why a label cannot be checked.
#[derive(Debug, thiserror::Error)]
#[error("build label {} is not a kbuild object (a .o under {} or an external module)", label.display(), objtree.display())]
pub struct LabelError {
    /// The label.
    pub label: PathBuf,
    /// The objtree.
    pub objtree: PathBuf,
}

/// The check for `label` (an object path from `rust-project.json`): within the objtree it is
/// an in-tree target; elsewhere it belongs to the external module in its directory (`M=`).
pub fn check_command(
    objtree: &Path,
    label: &Path,
    clippy: bool,
) -> Result<CheckCommand, LabelError> {
    let error = || LabelError { label: label.to_owned(), objtree: objtree.to_owned() };
    if label.extension().is_none_or(|e| e != "o") || !label.is_absolute() {
        return Err(error());
    }
    let mut make_args = Vec::new();
    let target = match label.strip_prefix(objtree) {
        Ok(rel) => rel.to_owned(),
        Err(_) => {
            let exttree = label.parent().ok_or_else(error)?;
            make_args.push(format!("M={}", exttree.display()));
            PathBuf::from(label.file_name().ok_or_else(error)?)
        }
    };
    make_args.push("KRUSTFLAGS=--error-format=json".to_owned());
    if clippy {
        make_args.push("CLIPPY=1".to_owned());
    }
    make_args.push(target.display().to_string());
    Ok(CheckCommand { make_args })
}

/// Whether a line of rustc's stderr is a JSON diagnostic for rust-analyzer.
pub fn is_diagnostic(line: &str) -> bool {
    line.starts_with('{') && line.contains("\"$message_type\":\"diagnostic\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(label: &str, clippy: bool) -> String {
        match check_command(Path::new("/obj"), Path::new(label), clippy) {
            Ok(c) => c.make_args.join(" "),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn labels_become_make_targets() {
        assert_eq!(
            check("/obj/rust/kernel.o", false),
            "KRUSTFLAGS=--error-format=json rust/kernel.o"
        );
        assert_eq!(
            check("/obj/samples/rust/rust_minimal.o", true),
            "KRUSTFLAGS=--error-format=json CLIPPY=1 samples/rust/rust_minimal.o"
        );
        assert_eq!(
            check("/ext/rust_out_of_tree/rust_out_of_tree.o", false),
            "M=/ext/rust_out_of_tree KRUSTFLAGS=--error-format=json rust_out_of_tree.o"
        );
        assert_eq!(
            check("rust/kernel.o", false),
            "build label rust/kernel.o is not a kbuild object (a .o under /obj or an external module)"
        );
        assert_eq!(
            check("/obj/scripts/generate_rust_target", false),
            "build label /obj/scripts/generate_rust_target is not a kbuild object (a .o under /obj or an external module)"
        );
    }

    #[test]
    fn json_diagnostics_are_told_from_make_output() {
        assert!(is_diagnostic(r#"{"$message_type":"diagnostic","message":"mismatched types"}"#));
        assert!(!is_diagnostic("  RUSTC L rust/kernel.o"));
        assert!(!is_diagnostic(r#"{"$message_type":"artifact"}"#));
    }
}
