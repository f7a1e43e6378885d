//! Check on save for kernel crates: what rust-project-gen's `kbuild-flycheck` prints (kbuild
//! rebuilding the crate of a build label with rustc's JSON diagnostics, or clippy's), plus our
//! rules on that crate's source files, in one stream of rustc JSON for rust-analyzer.

use std::path::{Path, PathBuf};

use crate::clippy::parse_output;
use crate::file_kind::FileContext;
use crate::files::{self, Source};
use crate::finding::Finding;
use crate::lint::{self, Config};

/// Why the crate of a label cannot be found.
#[derive(Debug, thiserror::Error)]
pub enum CrateError {
    /// Reading the build tree failed.
    #[error("scanning {} for the crate of {}: {source}", tree.display(), label.display())]
    Scan {
        /// The tree scanned.
        tree: PathBuf,
        /// The label.
        label: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// No rustc invocation built it.
    #[error("no Rust crate was built as {} (build it once, then save again)", .0.display())]
    NotBuilt(PathBuf),
}

/// Where kbuild builds the crate of `label`: the objtree, or an external module's directory.
pub fn build_dir(objtree: &Path, label: &Path) -> PathBuf {
    match label.starts_with(objtree) {
        true => objtree.to_owned(),
        false => label.parent().unwrap_or(Path::new("/")).to_owned(),
    }
}

/// A line of rustc's JSON diagnostics with its relative file names made absolute against
/// `dir`, where kbuild ran the compiler ([`build_dir`]); other lines as they are.
/// rust-analyzer resolves a relative name against the check's working directory (the objtree),
/// but since Linux 6.13 kbuild builds an external module in its own directory, and rustc names
/// its files relative to that (7.3: `lint_demo.rs`).
pub fn absolute_file_names(line: &str, dir: &Path) -> String {
    fn fix(v: &mut serde_json::Value, dir: &Path) {
        match v {
            serde_json::Value::Object(map) => {
                if let Some(serde_json::Value::String(name)) = map.get_mut("file_name")
                    && Path::new(name.as_str()).is_relative()
                {
                    *name = normalize(&dir.join(name.as_str())).display().to_string();
                }
                map.values_mut().for_each(|x| fix(x, dir));
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(|x| fix(x, dir)),
            _ => {}
        }
    }
    match serde_json::from_str::<serde_json::Value>(line) {
        Ok(mut v) if v.is_object() => {
            fix(&mut v, dir);
            v.to_string()
        }
        _ => line.to_owned(),
    }
}

/// The root file of the crate that kbuild built as `label` (an object in the objtree, or of an
/// external module in its own directory), from the saved rustc invocations.
pub fn crate_root(objtree: &Path, label: &Path) -> Result<PathBuf, CrateError> {
    let tree = &build_dir(objtree, label);
    let scan = kbuild::scan_rust_builds(tree).map_err(|source| CrateError::Scan {
        tree: tree.to_owned(),
        label: label.to_owned(),
        source,
    })?;
    let build = scan
        .builds
        .iter()
        .find(|b| normalize(&tree.join(&b.target)) == normalize(label))
        .ok_or_else(|| CrateError::NotBuilt(label.to_owned()))?;
    // A relative root is relative to where kbuild ran rustc: the objtree, or for an external
    // module since Linux 6.13 its own directory (7.3 writes `lint_demo.rs`, 6.12 a path from
    // the objtree).
    let root = &build.invocation.root;
    let candidates = [tree.join(root), objtree.join(root)];
    let found = candidates.iter().find(|p| p.is_file()).unwrap_or(&candidates[1]);
    Ok(normalize(found))
}

/// The files of a crate with root `root`: a `lib.rs` crate is its whole directory; another
/// (a module such as `samples/rust/rust_minimal.rs`) is its file and the directory of its
/// submodules (`rust_minimal/`), if any.
pub fn crate_files(root: &Path) -> Vec<PathBuf> {
    let Some(dir) = root.parent() else { return vec![root.to_owned()] };
    let mut files = Vec::new();
    if root.file_name().is_some_and(|n| n == "lib.rs") {
        walk(dir, &mut files);
    } else {
        files.push(root.to_owned());
        if let Some(stem) = root.file_stem() {
            walk(&dir.join(stem), &mut files);
        }
    }
    files.sort();
    files
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// One file of a crate, linted for the check on save.
#[derive(Debug)]
pub struct Linted {
    /// The file on disk.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
    /// Our findings in it, named relative to the srctree.
    pub findings: Vec<Finding>,
}

/// Our rules on the files of the crate whose root is `root`, each named relative to `srctree`
/// when under it. Files that are not text to lint (unreadable, generated, not UTF-8) are left to
/// rustc.
pub fn lint_crate(root: &Path, srctree: &Path, config: &Config) -> Vec<Linted> {
    let canonical = srctree.canonicalize().unwrap_or_else(|_| srctree.to_owned());
    let mut linted = Vec::new();
    for path in crate_files(root) {
        let name = path
            .strip_prefix(&canonical)
            .or_else(|_| path.strip_prefix(srctree))
            .map_or_else(|_| path.display().to_string(), |r| r.display().to_string());
        let Ok(bytes) = std::fs::read(&path) else { continue };
        let Source::Text(text) = files::classify(&name, bytes) else { continue };
        let findings =
            lint::lint_file(&FileContext::for_path(&name), &text, config, Vec::new()).findings;
        linted.push(Linted { path, text, findings });
    }
    linted
}

/// The lines of kbuild's JSON diagnostics that do not repeat one of `ours` (the clippy
/// counterpart of our rule, on the same line of the same file). Lines are kept as rustc wrote
/// them, suggestions included.
pub fn without_duplicates<'a>(
    lines: &'a [String],
    ours: &[Finding],
    srctree: &Path,
    objtree: &Path,
) -> Vec<&'a str> {
    lines
        .iter()
        .filter(|line| {
            !parse_output(line, srctree, objtree).iter().any(|c| {
                ours.iter().any(|o| {
                    o.file == c.file
                        && o.span.line == c.span.line
                        && o.ours().is_some_and(|r| r.clippy.contains(&c.rule()))
                })
            })
        })
        .map(String::as_str)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Origin;
    use crate::lines::Span;
    use crate::rule::Level;
    use crate::rules::safety_comment;

    fn diagnostic(code: &str, file: &str, line: usize) -> String {
        format!(
            r#"{{"$message_type":"diagnostic","message":"m","code":{{"code":"{code}","explanation":null}},"level":"warning","spans":[{{"file_name":"{file}","byte_start":0,"byte_end":1,"line_start":{line},"line_end":{line},"column_start":1,"column_end":2,"is_primary":true}}],"children":[]}}"#
        )
    }

    #[test]
    fn clippy_lines_that_repeat_ours_are_dropped() {
        let ours = vec![Finding {
            file: "rust/kernel/a.rs".to_owned(),
            span: Span { start: 0, end: 1, line: 7, col: 5, end_line: 7, end_col: 11 },
            level: Level::Error,
            message: String::new(),
            help: None,
            origin: Origin::Rule(&safety_comment::RULE),
        }];
        let lines = vec![
            diagnostic("clippy::undocumented_unsafe_blocks", "../src/rust/kernel/a.rs", 7),
            diagnostic("clippy::undocumented_unsafe_blocks", "../src/rust/kernel/a.rs", 9),
            diagnostic("clippy::needless_return", "../src/rust/kernel/a.rs", 7),
            diagnostic("E0308", "../src/rust/kernel/b.rs", 7),
        ];
        let kept = without_duplicates(&lines, &ours, Path::new("/k/src"), Path::new("/k/obj"));
        assert_eq!(kept, [lines[1].as_str(), lines[2].as_str(), lines[3].as_str()]);
    }

    /// Regression: on 7.3, kbuild builds an external module in its own directory and saves
    /// `rustc ... lint_demo.rs`; the root was taken relative to the objtree, a file that does not
    /// exist, so the check on save had rustc's diagnostics and none of ours (found by
    /// `tests/rust_analyzer.rs` against the 7.3 demo tree).
    #[test]
    fn an_external_module_root_is_relative_to_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        let (objtree, module) = (dir.path().join("obj"), dir.path().join("mod"));
        std::fs::create_dir_all(&objtree).unwrap();
        std::fs::create_dir_all(&module).unwrap();
        std::fs::write(module.join("lint_demo.rs"), "").unwrap();
        let cmd = format!(
            "savedcmd_lint_demo.o := OBJTREE={} RUST_MODFILE=./lint_demo rustc --edition=2021 --emit=obj=lint_demo.o --crate-type rlib --crate-name lint_demo lint_demo.rs\n",
            objtree.display()
        );
        std::fs::write(module.join(".lint_demo.o.cmd"), cmd).unwrap();
        let root = crate_root(&objtree, &module.join("lint_demo.o")).unwrap();
        assert_eq!(root, module.join("lint_demo.rs"));
    }

    /// Regression (with the one above): rustc's own diagnostics named `lint_demo.rs`, which
    /// rust-analyzer looked for in the objtree; they are made absolute against the module's
    /// directory, spans of macro expansions included.
    #[test]
    fn relative_file_names_are_made_absolute_against_the_build_dir() {
        let line = r#"{"$message_type":"diagnostic","message":"mismatched types","spans":[{"file_name":"lint_demo.rs","expansion":{"span":{"file_name":"../k/src/rust/kernel/print.rs"}}},{"file_name":"/abs/a.rs"}],"children":[{"spans":[{"file_name":"./lint_demo.rs"}]}]}"#;
        let fixed = absolute_file_names(line, Path::new("/tmp/mod"));
        let v: serde_json::Value = serde_json::from_str(&fixed).unwrap();
        assert_eq!(v["spans"][0]["file_name"], "/tmp/mod/lint_demo.rs");
        assert_eq!(
            v["spans"][0]["expansion"]["span"]["file_name"],
            "/tmp/k/src/rust/kernel/print.rs"
        );
        assert_eq!(v["spans"][1]["file_name"], "/abs/a.rs");
        assert_eq!(v["children"][0]["spans"][0]["file_name"], "/tmp/mod/lint_demo.rs");
        assert_eq!(
            absolute_file_names("  RUSTC [M] lint_demo.o", Path::new("/x")),
            "  RUSTC [M] lint_demo.o"
        );
        assert_eq!(
            build_dir(Path::new("/obj"), Path::new("/obj/rust/kernel.o")),
            Path::new("/obj")
        );
        assert_eq!(build_dir(Path::new("/obj"), Path::new("/tmp/mod/a.o")), Path::new("/tmp/mod"));
    }

    #[test]
    fn a_crate_is_its_lib_rs_directory_or_its_file_and_submodules() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for f in [
            "kernel/lib.rs",
            "kernel/sync/arc.rs",
            "samples/a.rs",
            "samples/a/sub.rs",
            "samples/b.rs",
        ] {
            std::fs::create_dir_all(d.join(f).parent().unwrap()).unwrap();
            std::fs::write(d.join(f), "").unwrap();
        }
        let names = |root: &str| -> Vec<String> {
            crate_files(&d.join(root))
                .iter()
                .map(|p| p.strip_prefix(d).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(names("kernel/lib.rs"), ["kernel/lib.rs", "kernel/sync/arc.rs"]);
        // Sorted by path components: `a/` before `a.rs`.
        assert_eq!(names("samples/a.rs"), ["samples/a/sub.rs", "samples/a.rs"]);
    }
}
