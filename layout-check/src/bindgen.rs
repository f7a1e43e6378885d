//! The second, independent check: the kernel's own bindgen command for `bindings` and `uapi`
//! (as kbuild saved it) run again with its layout tests, and the result compiled.
//!
//! bindgen writes, for each type, `const _: () = { ["Size of T"][size_of::<T>() - N]; ... };`
//! where `N` is what libclang says; rustc fails to evaluate the ones Rust disagrees with. The
//! kernel passes `--no-layout-tests`, so its build never does this. It compares clang's layout
//! (not the C compiler's) with Rust's, for every type bindgen emits (not only those DWARF has),
//! and stops at the first assertion that fails in each type.
//!
//! The rerun writes only into a work folder: `-o` goes there, and the options that write
//! elsewhere (`-Wp,-MMD,...`, kbuild's dependency file) are left out, as are those only about
//! derives and attributes (`--with-derive-custom*`, `--with-attribute-custom*`), which need the
//! kernel's crates to compile and do not change a layout.

use std::path::{Path, PathBuf};
use std::time::Duration;

use kbuild::bindgen::{BindgenInvocation, read_bindgen};
use serde::Serialize;
use subprocess::Command;

/// One failed layout assertion.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LayoutTest {
    /// The crate (`bindings`, `uapi`).
    #[serde(rename = "crate")]
    pub krate: String,
    /// bindgen's words for it: `Size of task_struct`, `Offset of field: task_struct::stats`.
    pub assertion: String,
    /// What clang says, from the assertion.
    pub clang: Option<u64>,
    /// What Rust has, from rustc's message.
    pub rust: Option<u64>,
    /// rustc's message.
    pub detail: String,
}

/// One crate's layout tests.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Outcome {
    /// The crate.
    #[serde(rename = "crate")]
    pub krate: String,
    /// How many assertions bindgen wrote.
    pub assertions: usize,
    /// The ones that failed.
    pub failed: Vec<LayoutTest>,
}

/// Why the check could not run.
#[derive(Debug, thiserror::Error)]
pub enum BindgenError {
    /// The saved command is not there.
    #[error(transparent)]
    Cmd(#[from] kbuild::bindgen::BindgenCmdError),
    /// A command failed to run or failed.
    #[error(transparent)]
    Run(#[from] subprocess::Error),
    /// A file of the work folder.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// rustc failed without a layout assertion among its errors.
    #[error("rustc failed on {} without a layout test failing:\n{output}", path.display())]
    Compile {
        /// The generated file.
        path: PathBuf,
        /// rustc's output.
        output: String,
    },
}

/// bindgen's options for the rerun: the saved ones, with layout tests, `-o` into `output`, and
/// without what writes outside it or needs the kernel's crates.
pub fn rerun_options(inv: &BindgenInvocation, output: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut words = inv.options.iter();
    while let Some(word) = words.next() {
        match word.as_str() {
            "--no-layout-tests" => {}
            "-o" | "--output" => {
                words.next();
            }
            "--with-derive-custom"
            | "--with-derive-custom-struct"
            | "--with-derive-custom-enum"
            | "--with-derive-custom-union"
            | "--with-attribute-custom"
            | "--with-attribute-custom-struct"
            | "--with-attribute-custom-enum"
            | "--with-attribute-custom-union" => {
                words.next();
            }
            w if w.starts_with("--with-derive-custom")
                || w.starts_with("--with-attribute-custom") => {}
            _ => out.push(word.clone()),
        }
    }
    out.push("-o".to_owned());
    out.push(output.display().to_string());
    out.push("--".to_owned());
    out.extend(
        inv.clang_args
            .iter()
            .filter(|a| !a.starts_with("-Wp,-MMD") && !a.starts_with("-Wp,-MD"))
            .cloned(),
    );
    out
}

/// The crate that compiles bindgen's output on its own, for the host (x86-64, as the kernel's
/// own target): the kernel's `ffi` types (C's, `char` unsigned as the kernel builds it) and the
/// types the kernel blocklists and defines by hand in `rust/bindings/lib.rs`. With `std`, so
/// that output made without `--use-core` compiles too.
pub fn wrapper_source(generated: &Path) -> String {
    format!(
        r#"//! bindgen's output with its layout tests, compiled on its own by layout-check.
#![allow(warnings)]
mod ffi {{
    pub type c_char = u8;
    pub type c_schar = i8;
    pub type c_uchar = u8;
    pub type c_short = i16;
    pub type c_ushort = u16;
    pub type c_int = i32;
    pub type c_uint = u32;
    pub type c_long = isize;
    pub type c_ulong = usize;
    pub type c_longlong = i64;
    pub type c_ulonglong = u64;
    pub use core::ffi::c_void;
}}
type __kernel_size_t = usize;
type __kernel_ssize_t = isize;
type __kernel_ptrdiff_t = isize;
include!({:?});
"#,
        generated.display().to_string()
    )
}

/// How many layout assertions a generated file holds.
pub fn count_assertions(generated: &str) -> usize {
    generated.lines().filter(|l| l.trim_start().starts_with("[\"") && l.contains("\"][")).count()
}

/// The failed assertions in rustc's `--error-format=short` output for `generated` (the file
/// whose lines the errors point at; rustc names it by `file_name`).
pub fn parse_failures(
    krate: &str,
    rustc: &str,
    file_name: &str,
    generated: &str,
) -> Vec<LayoutTest> {
    let lines: Vec<&str> = generated.lines().collect();
    let mut out = Vec::new();
    for error in rustc.lines() {
        // `path:LINE:COL: error[E0080]: message`
        let Some(rest) = error.split_once(file_name).map(|(_, rest)| rest) else { continue };
        let mut parts = rest.trim_start_matches(':').splitn(3, ':');
        let (Some(line), Some(_col), Some(message)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let Ok(line) = line.parse::<usize>() else { continue };
        let Some(source) = line.checked_sub(1).and_then(|i| lines.get(i)) else { continue };
        let Some(assertion) = source
            .trim_start()
            .strip_prefix("[\"")
            .and_then(|s| s.split_once("\"]"))
            .map(|(a, _)| a)
        else {
            continue;
        };
        let clang = source
            .rsplit_once(" - ")
            .and_then(|(_, n)| n.split("usize").next())
            .and_then(|n| n.trim().parse::<u64>().ok());
        // Only const evaluation failing is an assertion failing; other errors are the build's.
        let Some(message) = message.trim().strip_prefix("error[E0080]:") else { continue };
        let message = message.trim();
        let rust = rust_value(message, clang);
        out.push(LayoutTest {
            krate: krate.to_owned(),
            assertion: assertion.to_owned(),
            clang,
            rust,
            detail: message.to_owned(),
        });
    }
    out
}

/// Rust's value from rustc's message: `attempt to compute `2048_usize - 2112_usize`` (Rust is
/// smaller), or `the index is 56` (larger by that much).
fn rust_value(message: &str, clang: Option<u64>) -> Option<u64> {
    if let Some((_, rest)) = message.split_once("attempt to compute `") {
        return rest.split("_usize").next()?.parse().ok();
    }
    let (_, index) = message.split_once("the index is ")?;
    let index: u64 = index.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()?;
    Some(clang? + index)
}

/// Reruns the tree's bindgen command for each crate with layout tests into `work`, and
/// compiles each result with `rustc`.
pub fn run(
    objtree: &Path,
    work: &Path,
    on_step: &mut dyn FnMut(&str),
) -> Result<Vec<Outcome>, BindgenError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| BindgenError::Io { path, source }
    };
    let mut outcomes = Vec::new();
    for (krate, target) in kbuild::bindgen::BINDGEN_TARGETS {
        let inv = read_bindgen(objtree, target)?;
        let generated = work.join(format!("{krate}_generated.rs"));
        on_step(&format!("bindgen for {krate}, with layout tests"));
        let mut cmd = Command::new(&inv.program, objtree)
            .args(rerun_options(&inv, &generated))
            .timeout(Duration::from_secs(600));
        for (k, v) in &inv.env {
            cmd = cmd.env(k, v);
        }
        cmd.run_checked()?;
        let wrapper = work.join(format!("{krate}_layout_tests.rs"));
        std::fs::write(&wrapper, wrapper_source(&generated)).map_err(io(&wrapper))?;
        on_step(&format!("rustc on {krate}'s layout tests"));
        let cmd = Command::new("rustc", work)
            .args(["--edition", "2021", "--crate-type", "lib", "--emit", "metadata"])
            .arg("--crate-name")
            .arg(format!("{krate}_layout_tests"))
            .arg("-o")
            .arg(work.join(format!("{krate}_layout_tests.rmeta")))
            .args(["--error-format", "short", "--cap-lints", "allow"])
            .arg(&wrapper)
            .timeout(Duration::from_secs(900));
        let out = cmd.run()?;
        let text = std::fs::read_to_string(&generated).map_err(io(&generated))?;
        let file_name = generated.file_name().unwrap_or_default().to_string_lossy().into_owned();
        let failed = parse_failures(krate, &out.stderr, &file_name, &text);
        if !out.success() && failed.is_empty() {
            return Err(BindgenError::Compile { path: generated, output: out.stderr });
        }
        outcomes.push(Outcome {
            krate: (*krate).to_owned(),
            assertions: count_assertions(&text),
            failed,
        });
    }
    Ok(outcomes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two of the assertions bindgen writes for 7.3's `sched_statistics` and `task_struct`,
    /// and rustc's errors for them (seen on the 7.3 tree).
    const GENERATED: &str = "\
const _: () = {
    [\"Size of sched_statistics\"][::core::mem::size_of::<sched_statistics>() - 0usize];
    [\"Alignment of sched_statistics\"][::core::mem::align_of::<sched_statistics>() - 64usize];
};
const _: () = {
    [\"Size of task_struct\"][::core::mem::size_of::<task_struct>() - 2112usize];
    [\"Offset of field: task_struct::pid\"][::core::mem::offset_of!(task_struct, pid) - 100usize];
};
";

    #[test]
    fn failures_name_the_assertion_and_both_values() {
        let rustc = "\
/w/bindings_generated.rs:3:39: error[E0080]: attempt to compute `1_usize - 64_usize`, which would overflow: evaluation of `_` failed here
/w/bindings_generated.rs:7:29: error[E0080]: index out of bounds: the length is 1 but the index is 56
error: aborting due to 2 previous errors
";
        let failed = parse_failures("bindings", rustc, "bindings_generated.rs", GENERATED);
        let got: Vec<(&str, Option<u64>, Option<u64>)> =
            failed.iter().map(|t| (t.assertion.as_str(), t.clang, t.rust)).collect();
        assert_eq!(
            got,
            [
                ("Alignment of sched_statistics", Some(64), Some(1)),
                ("Offset of field: task_struct::pid", Some(100), Some(156)),
            ]
        );
        assert_eq!(count_assertions(GENERATED), 4);
    }

    #[test]
    fn the_rerun_writes_only_into_the_work_folder() {
        let inv = kbuild::bindgen::find_bindgen(
            "bindgen h.h --with-derive-custom-struct .*=MaybeZeroable \
             --with-attribute-custom-enum=e='$(pound)[cfi_encoding=\"1e\"]' --no-layout-tests \
             -o rust/bindings/bindings_generated.rs -- -Wp,-MMD,rust/bindings/.b.d -I./include",
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            rerun_options(&inv, Path::new("/w/b.rs")),
            ["h.h", "-o", "/w/b.rs", "--", "-I./include"]
        );
    }
}
