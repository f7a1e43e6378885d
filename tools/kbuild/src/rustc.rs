//! kbuild's saved commands (`.<target>.cmd` files) and the rustc invocations in them: what
//! kbuild actually ran to build each Rust crate.

use std::collections::BTreeMap;
use std::path::Path;

use crate::shell::{ShellError, split_commands};

/// A `.<target>.cmd` file: the command kbuild saved for `target` and the source it compiled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CmdFile {
    /// The target, relative to the objtree (`rust/kernel.o`).
    pub target: String,
    /// The saved shell command line.
    pub command: String,
    /// The `source_...` line's file, if present.
    pub source: Option<String>,
}

/// Parses the text of a `.cmd` file (`savedcmd_T := ...`, or `cmd_T := ...` before 6.3).
pub fn parse_cmd_file(text: &str) -> Option<CmdFile> {
    let mut cmd: Option<CmdFile> = None;
    for line in text.lines() {
        if let Some((lhs, rhs)) = line.split_once(" := ") {
            let saved = lhs.strip_prefix("savedcmd_").or_else(|| lhs.strip_prefix("cmd_"));
            if let (Some(target), None) = (saved, &cmd) {
                cmd = Some(CmdFile {
                    target: target.to_owned(),
                    command: rhs.to_owned(),
                    source: None,
                });
            } else if let (Some(_), Some(cmd)) = (lhs.strip_prefix("source_"), &mut cmd) {
                cmd.source = Some(rhs.trim().to_owned());
            }
        }
    }
    cmd
}

/// One rustc invocation, as kbuild ran it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RustcInvocation {
    /// Environment assignments before `rustc` (`OBJTREE`, `RUST_MODFILE`).
    pub env: BTreeMap<String, String>,
    /// `--crate-name`; without it, the root's file stem, which [`Self::name_crate_from_root`]
    /// replaces with the root's `#![crate_name]` where it has one, as rustc does.
    pub crate_name: String,
    /// Whether `--crate-name` was given.
    pub crate_name_given: bool,
    /// `--crate-type` (rustc's default is `bin`).
    pub crate_type: String,
    /// `--edition` (rustc's default is `2015`).
    pub edition: String,
    /// The crate root as written (relative paths are relative to the objtree).
    pub root: String,
    /// `--cfg` values on the command line, as `name` or `name="value"`.
    pub cfgs: Vec<String>,
    /// `@file` arguments (kbuild's `@./include/generated/rustc_cfg`), relative to the objtree;
    /// see [`response_file_cfgs`].
    pub response_files: Vec<String>,
    /// `--extern` names, in order.
    pub externs: Vec<String>,
    /// `-Zcrate-attr` values (`no_std`, `feature(...)`).
    pub crate_attrs: Vec<String>,
    /// `--test`: a test harness (kbuild's `make rusttest`).
    pub test: bool,
    /// `--cap-lints`: kbuild builds the third-party crates it vendors (`syn`, `zerocopy`) with
    /// `--cap-lints=allow`, since their warnings are not the kernel's to fix.
    pub cap_lints: Option<String>,
    /// `--target`, if any (a path to `target.json` for kernel code; none for host code).
    pub target: Option<String>,
    /// `--emit` kinds and paths (`link` → `rust/libmacros.so`).
    pub emits: Vec<(String, String)>,
    /// Every argument after the program, as kbuild passed them (for tools that rerun the
    /// compiler's options, such as rustdoc with exactly the flags of the build).
    pub args: Vec<String>,
}

/// Why a command is not a usable rustc invocation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RustcError {
    /// The command line does not parse.
    #[error("{0}")]
    Shell(#[from] ShellError),
    /// No crate name, given or derived from the root.
    #[error("rustc invocation without a crate name")]
    NoCrateName,
    /// No `.rs` crate root, or more than one.
    #[error("rustc invocation without a single .rs crate root (found {0:?})")]
    Root(Vec<String>),
    /// An option without its value.
    #[error("rustc option {0} without a value")]
    MissingValue(String),
}

/// rustc options whose value may be the next word.
const WITH_VALUE: &[&str] = &[
    "--edition",
    "--crate-type",
    "--crate-name",
    "--cfg",
    "--extern",
    "--target",
    "--emit",
    "--out-dir",
    "-o",
    "-L",
    "-l",
    "-C",
    "--codegen",
    "-Z",
    "-A",
    "-W",
    "-D",
    "-F",
    "--allow",
    "--warn",
    "--deny",
    "--forbid",
    "--force-warn",
    "--cap-lints",
    "--check-cfg",
    "--sysroot",
    "--error-format",
    "--json",
    "--print",
    "--remap-path-prefix",
    "--color",
    "--explain",
    "--diagnostic-width",
    "--env-set",
];

/// Finds the rustc invocation in a saved command line, if it has one: the first simple
/// command whose program is `rustc` or `clippy-driver` (`make CLIPPY=1`).
pub fn find_rustc(command: &str) -> Result<Option<RustcInvocation>, RustcError> {
    for simple in split_commands(command)? {
        let Some(program) = simple.words.first() else { continue };
        let name = program.rsplit('/').next().unwrap_or(program);
        if name == "rustc" || name == "clippy-driver" {
            let mut words = simple.words;
            let args = words.split_off(1);
            let mut invocation = parse_args(&args)?;
            invocation.env = simple.env.into_iter().collect();
            invocation.args = args;
            return Ok(Some(invocation));
        }
    }
    Ok(None)
}

/// The `--cfg` values in the text of a rustc response file (one argument per line), such as
/// kbuild's `include/generated/rustc_cfg`.
pub fn response_file_cfgs(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    let mut cfgs = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if let Some(cfg) = words[i].strip_prefix("--cfg=") {
            cfgs.push(cfg.to_owned());
        } else if words[i] == "--cfg"
            && let Some(cfg) = words.get(i + 1)
        {
            cfgs.push((*cfg).to_owned());
            i += 1;
        }
        i += 1;
    }
    cfgs
}

fn parse_args(words: &[String]) -> Result<RustcInvocation, RustcError> {
    let mut inv = RustcInvocation {
        crate_type: "bin".to_owned(),
        edition: "2015".to_owned(),
        ..RustcInvocation::default()
    };
    let mut crate_name = None;
    let mut roots = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        i += 1;
        if let Some(path) = word.strip_prefix('@') {
            inv.response_files.push(path.to_owned());
            continue;
        }
        if !word.starts_with('-') || word == "-" {
            roots.push(word.clone());
            continue;
        }
        // `--opt=value`, `-Cvalue` / `-Zvalue`, or `--opt value`.
        let (opt, value) =
            if let Some((opt, value)) = word.split_once('=').filter(|_| word.starts_with("--")) {
                (opt, value)
            } else if let Some((opt, value)) = word.split_at_checked(2)
                && !word.starts_with("--")
                && !value.is_empty()
            {
                // Checked: the second character may be multi-byte (`-é`), an unknown option.
                (opt, value)
            } else if WITH_VALUE.contains(&word.as_str()) {
                let value = words.get(i).ok_or_else(|| RustcError::MissingValue(word.clone()))?;
                i += 1;
                (word.as_str(), value.as_str())
            } else {
                (word.as_str(), "")
            };
        match opt {
            "--edition" => inv.edition = value.to_owned(),
            "--crate-type" => inv.crate_type = value.to_owned(),
            "--crate-name" => crate_name = Some(value.to_owned()),
            "--cfg" => inv.cfgs.push(value.to_owned()),
            "--extern" => {
                let name = value.split_once('=').map_or(value, |(name, _)| name);
                let name = name.rsplit(':').next().unwrap_or(name);
                inv.externs.push(name.to_owned());
            }
            "--target" => inv.target = Some(value.to_owned()),
            "--cap-lints" => inv.cap_lints = Some(value.to_owned()),
            "--test" => inv.test = true,
            "--emit" => {
                for part in value.split(',') {
                    let (kind, path) = part.split_once('=').unwrap_or((part, ""));
                    inv.emits.push((kind.to_owned(), path.to_owned()));
                }
            }
            "-Z" => {
                if let Some(attr) = value.strip_prefix("crate-attr=") {
                    inv.crate_attrs.push(attr.to_owned());
                }
            }
            _ => {}
        }
    }
    roots.retain(|r| r.ends_with(".rs"));
    match <[String; 1]>::try_from(roots) {
        Ok([root]) => inv.root = root,
        Err(roots) => return Err(RustcError::Root(roots)),
    }
    // Like rustc: without `--crate-name`, the root's file stem (host programs in scripts/).
    inv.crate_name_given = crate_name.is_some();
    inv.crate_name = match crate_name {
        Some(name) => name,
        None => {
            let file = inv.root.rsplit('/').next().unwrap_or(&inv.root);
            file.trim_end_matches(".rs").replace('-', "_")
        }
    };
    if inv.crate_name.is_empty() {
        return Err(RustcError::NoCrateName);
    }
    Ok(inv)
}

impl RustcInvocation {
    /// Names the crate as rustc does when no `--crate-name` is given and its root (whose text
    /// is `root_source`) says `#![crate_name = "NAME"]` (binder's `rust_binder_main.rs` is the
    /// crate `rust_binder`).
    pub fn name_crate_from_root(&mut self, root_source: &str) {
        if !self.crate_name_given
            && let Some(name) = crate_name_attribute(root_source)
        {
            self.crate_name = name.to_owned();
        }
    }
}

/// The `#![crate_name = "NAME"]` of a crate root's text, if it has one among its inner
/// attributes (which come before any item).
pub fn crate_name_attribute(root_source: &str) -> Option<&str> {
    for line in root_source.lines().map(str::trim) {
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let attribute = line.strip_prefix("#![")?;
        let Some(value) = attribute.strip_prefix("crate_name") else { continue };
        let value = value.trim_start().strip_prefix('=')?.trim_start().strip_prefix('"')?;
        return value.split_once('"').map(|(name, _)| name).filter(|n| !n.is_empty());
    }
    None
}

/// rustc's options that say where a build writes: [`without_options`] drops them to write
/// somewhere else.
pub const OUTPUT_OPTIONS: &[(&str, bool)] = &[("--emit", true), ("-o", true), ("--out-dir", true)];

/// rustc's options that say how diagnostics are printed (`--error-format=json`).
pub const DIAGNOSTIC_OPTIONS: &[(&str, bool)] = &[("--error-format", true), ("--json", true)];

/// `args` without the `options` (name, whether it takes a value), each dropped with its value
/// in any of rustc's spellings (`--emit=x`, `--emit x`, `-ox`, `-o x`).
pub fn without_options(args: &[String], options: &[(&str, bool)]) -> Vec<String> {
    let mut out = Vec::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        match option_at(word, options) {
            Some((i, true)) if options[i].1 => {
                words.next();
            }
            Some(_) => {}
            None => out.push(word.clone()),
        }
    }
    out
}

/// Which of `options` `word` is (its index), and whether it is the option alone (its value in
/// the next word).
pub fn option_at(word: &str, options: &[(&str, bool)]) -> Option<(usize, bool)> {
    options.iter().enumerate().find_map(|(i, &(option, takes_value))| {
        if word == option {
            return Some((i, true));
        }
        let rest = word.strip_prefix(option)?;
        let attached = if option.starts_with("--") {
            rest.starts_with('=')
        } else {
            // `-ofile`, `-lfoo`: a short option's value follows it directly.
            !rest.is_empty()
        };
        (takes_value && attached).then_some((i, false))
    })
}

impl RustcInvocation {
    /// The path `--emit=KIND=path` names, if any.
    pub fn emit(&self, kind: &str) -> Option<&str> {
        self.emits
            .iter()
            .find(|(k, _)| k == kind)
            .map(|(_, p)| p.as_str())
            .filter(|p| !p.is_empty())
    }

    /// Whether kbuild builds this crate as vendored third-party code: with all its lints
    /// capped to `allow` (rust/Makefile's `--cap-lints=allow` for `syn`, `zerocopy`...).
    pub fn is_vendored(&self) -> bool {
        self.cap_lints.as_deref() == Some("allow")
    }

    /// Whether this is a build of `make rusttest`: the kernel's crates again, for the host, as a
    /// test harness (`--test`) or as a library for one (`--cfg testlib`). No kernel code runs
    /// it; the tools leave it out.
    pub fn is_rusttest(&self) -> bool {
        self.test || self.cfgs.iter().any(|c| c == "testlib")
    }

    /// The arguments that check this crate again with its only output, its metadata, in
    /// `out_dir` rather than in the tree, and rustc's JSON diagnostics: the build's own, less
    /// where it writes and how it prints diagnostics. Run in the build's working directory with
    /// its `env`, by rustc or a driver that takes rustc's arguments (`clippy-driver`), it reads
    /// the tree (sources, dependencies' metadata) and writes nothing there.
    pub fn check_args(&self, out_dir: &Path) -> Vec<String> {
        let options = [OUTPUT_OPTIONS, DIAGNOSTIC_OPTIONS].concat();
        let mut args = without_options(&self.args, &options);
        args.push(format!(
            "--emit=metadata={}",
            out_dir.join(format!("lib{}.rmeta", self.crate_name)).display()
        ));
        args.push("--error-format=json".to_owned());
        args
    }

    /// Whether this is kernel code (built for the kernel's target) rather than host code.
    pub fn is_kernel_target(&self) -> bool {
        self.target.is_some()
    }
}

#[cfg(test)]
mod tests;
