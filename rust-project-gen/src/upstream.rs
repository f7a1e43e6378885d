//! Upstream's `scripts/generate_rust_analyzer.py`, run with exactly the arguments the tree's own
//! `make rust-analyzer` gives it (they change between versions: 7.3 passes the vendored crates'
//! cfgs and envs), but with its output captured instead of written into the objtree.

use std::path::Path;
use std::time::Duration;

use subprocess::Command;

/// The shell command of `make rust-analyzer`'s recipe in `make -n` output, without its
/// `> .../rust-project.json` redirection; `None` if the output has no such recipe.
pub fn script_command(make_n_output: &str) -> Option<String> {
    let mut lines = make_n_output.lines().skip_while(|l| !l.contains("generate_rust_analyzer.py"));
    let mut command = String::new();
    for line in lines.by_ref() {
        let (text, continued) = match line.trim_end().strip_suffix('\\') {
            Some(text) => (text, true),
            None => (line, false),
        };
        command.push_str(text.trim());
        command.push(' ');
        if !continued {
            break;
        }
    }
    if command.is_empty() {
        return None;
    }
    let command = command.trim_end();
    // The redirection is the recipe's last word(s): `> rust-project.json` (7.3) or
    // `> $(objtree)/rust-project.json` (6.12).
    let (command, target) = command.rsplit_once('>')?;
    (target.trim().ends_with("rust-project.json") && !target.contains('\''))
        .then(|| command.trim().to_owned())
}

/// Why upstream's file could not be made.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// `make -n rust-analyzer` or the script failed.
    #[error(transparent)]
    Command(#[from] subprocess::Error),
    /// The tree's Makefile has no `rust-analyzer` recipe that runs the script.
    #[error(
        "`make -n rust-analyzer` in {} printed no generate_rust_analyzer.py command: the tree has no rust-analyzer target, or CONFIG_RUST is off",
        .0.display()
    )]
    NoRecipe(std::path::PathBuf),
}

/// The text of upstream's `rust-project.json` for a built tree, and the command that made it.
/// Nothing is written into the trees.
pub fn generate(srctree: &Path, objtree: &Path) -> Result<(String, String), UpstreamError> {
    let dry_run = kbuild::make::kernel_make(srctree, objtree)
        .args(["-s", "-n", "rust-analyzer"])
        .timeout(Duration::from_secs(120))
        .run_checked()?;
    let command =
        script_command(&dry_run.stdout).ok_or_else(|| UpstreamError::NoRecipe(objtree.into()))?;
    let output = Command::new("sh", objtree)
        .arg("-c")
        .arg(&command)
        // kbuild exports RUSTC; the 7.3 script asks rustc for its version.
        .env("RUSTC", std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into()))
        .timeout(Duration::from_secs(120))
        .capture_limit(256 << 20)
        .run_checked()?;
    Ok((output.stdout, command))
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::script_command;

    fn check(make_n_output: &str, expect: Expect) {
        expect.assert_eq(&format!("{:?}", script_command(make_n_output)));
    }

    #[test]
    fn mainline_recipe() {
        // `make -s -n rust-analyzer` on 7.3.4 (paths shortened, some --cfgs left out).
        check(
            "sh /src/scripts/rust_is_available.sh\n\
             \tMAKEFLAGS= /src/scripts/generate_rust_analyzer.py \\\n\
             \t\t--cfgs='core=no_fp_fmt_parse' 2024 \\\n\
             \t\t--envs='zerocopy=CARGO_PKG_VERSION=0.8.54' \\\n\
             \t\t/src /obj \\\n\
             \t\t/sysroot /sysroot/lib/rustlib/src/rust/library  \\\n\
             \t\t> rust-project.json\n\
             :\n",
            expect![[
                r#"Some("MAKEFLAGS= /src/scripts/generate_rust_analyzer.py --cfgs='core=no_fp_fmt_parse' 2024 --envs='zerocopy=CARGO_PKG_VERSION=0.8.54' /src /obj /sysroot /sysroot/lib/rustlib/src/rust/library")"#
            ]],
        );
    }

    #[test]
    fn lts_recipe_on_one_line() {
        check(
            "/src/scripts/generate_rust_analyzer.py --cfgs='core=--cfg no_fp_fmt_parse' /src /obj /sysroot /lib  > /obj/rust-project.json\n",
            expect![[
                r#"Some("/src/scripts/generate_rust_analyzer.py --cfgs='core=--cfg no_fp_fmt_parse' /src /obj /sysroot /lib")"#
            ]],
        );
    }

    #[test]
    fn no_recipe_or_no_redirection() {
        check("make: Nothing to be done for 'rust-analyzer'.\n", expect!["None"]);
        check("/src/scripts/generate_rust_analyzer.py /src /obj\n", expect!["None"]);
        check("", expect!["None"]);
    }
}
