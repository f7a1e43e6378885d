//! The layering of `ARCHITECTURE.md`, read off the manifests and the sources: the crates under
//! `tools/` are the ground floor, the tools stand on them, and the demo (and the fuzzers) on
//! top; a tool's human output is read by no other crate; the machine's apt mirror is named
//! nowhere in the repository.

use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap().to_owned()
}

/// Every file under `dir` but build output and version control, as paths relative to the root.
fn files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !matches!(name.as_str(), ".git" | "target" | "corpus" | "artifacts" | "coverage")
                {
                    stack.push(path);
                }
            } else {
                out.push(path.strip_prefix(root).unwrap().to_owned());
            }
        }
    }
    out
}

/// A crate: its folder (relative to the root), package name, dependencies (all kinds) and the
/// programs it builds.
#[derive(Debug)]
struct Crate {
    dir: String,
    name: String,
    dependencies: Vec<String>,
    programs: Vec<String>,
}

fn crates() -> Vec<Crate> {
    let root = workspace_root();
    let mut out = Vec::new();
    for manifest in files(&root).into_iter().filter(|p| p.ends_with("Cargo.toml")) {
        let dir = manifest.parent().unwrap().to_string_lossy().into_owned();
        if dir.is_empty() {
            continue;
        }
        let text = std::fs::read_to_string(root.join(&manifest)).unwrap();
        let name = text
            .lines()
            .find_map(|l| l.strip_prefix("name = \""))
            .and_then(|rest| rest.strip_suffix('"'))
            .unwrap_or_else(|| panic!("{}: no package name", manifest.display()))
            .to_owned();
        let mut dependencies = Vec::new();
        let mut in_dependencies = false;
        for line in text.lines() {
            if line.starts_with('[') {
                in_dependencies = line.ends_with("dependencies]");
            } else if in_dependencies && let Some((dep, _)) = line.split_once(['=', '.']) {
                dependencies.push(dep.trim().to_owned());
            }
        }
        let mut programs = Vec::new();
        if root.join(&dir).join("src/main.rs").is_file() {
            programs.push(name.clone());
        }
        if let Ok(bins) = std::fs::read_dir(root.join(&dir).join("src/bin")) {
            for bin in bins.flatten() {
                let file = bin.file_name().to_string_lossy().into_owned();
                programs.extend(file.strip_suffix(".rs").map(str::to_owned));
            }
        }
        out.push(Crate { dir, name, dependencies, programs });
    }
    assert!(out.len() > 15, "found only {} crates under {}", out.len(), root.display());
    out
}

#[test]
fn no_crate_under_tools_depends_on_a_tool_above_it() {
    let crates = crates();
    let above: Vec<&str> =
        crates.iter().filter(|c| !c.dir.starts_with("tools/")).map(|c| c.name.as_str()).collect();
    assert!(above.contains(&"rust-project-gen") && above.contains(&"demo"), "{above:?}");
    let offenders: Vec<String> = crates
        .iter()
        .filter(|c| c.dir.starts_with("tools/"))
        .flat_map(|c| {
            c.dependencies
                .iter()
                .filter(|d| above.contains(&d.as_str()))
                .map(move |d| format!("{} depends on {d}", c.dir))
        })
        .collect();
    assert_eq!(
        offenders,
        Vec::<String>::new(),
        "tools/ is the ground floor: move what both need down into tools/, or the crate up"
    );
}

/// A tool's messages start with its name (`lint-rules: 75 files, ...`): a string that starts
/// so anywhere but in that tool's own crate is another crate reading its text. Results go
/// between crates as `report::results` values (`--json`).
#[test]
fn no_crate_reads_another_tools_human_output() {
    let root = workspace_root();
    let crates = crates();
    let programs: Vec<(&str, &str)> = crates
        .iter()
        .flat_map(|c| c.programs.iter().map(move |p| (p.as_str(), c.dir.as_str())))
        .collect();
    assert!(programs.len() > 10, "{programs:?}");
    let mut offenders = Vec::new();
    for path in files(&root).into_iter().filter(|p| p.extension().is_some_and(|e| e == "rs")) {
        let rel = path.to_string_lossy();
        if rel.starts_with("tools/tidy/") {
            continue;
        }
        let text = std::fs::read_to_string(root.join(&path)).unwrap();
        for (program, dir) in &programs {
            if !rel.starts_with(&format!("{dir}/")) && text.contains(&format!("\"{program}: ")) {
                offenders.push(format!("{rel} reads {program}'s messages"));
            }
        }
    }
    // The demo reads each tool's stdout only as a result document, and never its stderr.
    for path in files(&root.join("demo/src")) {
        let text = std::fs::read_to_string(root.join("demo/src").join(&path)).unwrap();
        if text.contains(".stderr") {
            offenders.push(format!("demo/src/{} reads a program's stderr", path.display()));
        }
    }
    assert_eq!(
        offenders,
        Vec::<String>::new(),
        "read a tool's result with report::results::from_json"
    );
}

/// The hosts of the machine's apt sources (`deb http://HOST/...` lines and deb822 `URIs:`).
fn apt_hosts() -> Vec<String> {
    let mut texts = vec![std::fs::read_to_string("/etc/apt/sources.list").unwrap_or_default()];
    if let Ok(dir) = std::fs::read_dir("/etc/apt/sources.list.d") {
        texts.extend(dir.flatten().filter_map(|e| std::fs::read_to_string(e.path()).ok()));
    }
    let mut hosts: Vec<String> = texts
        .iter()
        .flat_map(|t| t.split_whitespace())
        .filter_map(|word| word.split_once("://").map(|(_, rest)| rest))
        .filter_map(|rest| rest.split(['/', ':']).next())
        .filter(|host| host.contains('.'))
        .map(str::to_owned)
        .collect();
    // Debian's own redirector, whatever this machine uses.
    hosts.push(["deb", "debian", "org"].join("."));
    hosts.sort();
    hosts.dedup();
    hosts
}

#[test]
fn no_apt_mirror_is_named_in_the_repository() {
    let root = workspace_root();
    let hosts = apt_hosts();
    let mut offenders = Vec::new();
    let files = files(&root);
    assert!(files.len() > 100, "found only {} files", files.len());
    for path in files {
        let Ok(bytes) = std::fs::read(root.join(&path)) else { continue };
        let text = String::from_utf8_lossy(&bytes);
        for host in &hosts {
            if text.contains(host.as_str()) {
                offenders.push(format!("{} names {host}", path.display()));
            }
        }
    }
    assert_eq!(
        offenders,
        Vec::<String>::new(),
        "read the mirror from the machine's apt sources (workbench::apt::mirror_uri)"
    );
}

#[test]
fn no_kernel_tree_or_build_output_in_the_repository() {
    let root = workspace_root();
    let offenders: Vec<String> = files(&root)
        .into_iter()
        .filter(|p| {
            let name = p.file_name().unwrap_or_default().to_string_lossy();
            // Small text files of trees (`.cmd`, `.config`) are the parsers' fixtures.
            matches!(name.as_ref(), "vmlinux" | "bzImage" | "Image" | "Module.symvers")
                || [".ko", ".o", ".tar.xz", ".rlib", ".so"].iter().any(|ext| name.ends_with(ext))
                || std::fs::metadata(root.join(p)).is_ok_and(|m| m.len() > 4 << 20)
        })
        .map(|p| p.display().to_string())
        .collect();
    assert_eq!(offenders, Vec::<String>::new(), "kernel trees and their output live in the cache");
}

/// Each kernel format has one reader: a string only that format has, in the code of no other
/// crate (their tests and fixtures may hold logs).
#[test]
fn one_reader_per_kernel_format() {
    let root = workspace_root();
    let formats = [
        ("KTAP", "tools/kunit/", "# Subtest:"),
        ("kbuild's .cmd files", "tools/kbuild/", "savedcmd_"),
        ("crash reports", "tools/oops/", "Call Trace:"),
        ("crash reports", "tools/oops/", "RIP: 0010:"),
    ];
    let mut offenders = Vec::new();
    for path in files(&root).into_iter().filter(|p| p.extension().is_some_and(|e| e == "rs")) {
        let rel = path.to_string_lossy().into_owned();
        let test_or_bench = ["/tests/", "/benches/", "/fixtures/"].iter().any(|d| rel.contains(d));
        if test_or_bench || rel.ends_with("tests.rs") || rel.starts_with("tools/tidy/") {
            continue;
        }
        let text = std::fs::read_to_string(root.join(&path)).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for (format, reader, mark) in formats {
            let comment = |l: &&str| l.trim_start().starts_with("//");
            if !rel.starts_with(reader)
                && code.lines().filter(|l| !comment(l)).any(|l| l.contains(mark))
            {
                offenders.push(format!("{rel} reads {format} (`{mark}`): that is {reader}'s"));
            }
        }
    }
    assert_eq!(offenders, Vec::<String>::new());
}

/// Every invariant of ARCHITECTURE.md says which test checks it (`checked by
/// path/to/file.rs::test_name`), and that test is there.
#[test]
fn every_invariant_names_the_test_that_checks_it() {
    let root = workspace_root();
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let invariants = text.split("## Invariants").nth(1).expect("an Invariants section");
    let invariants = invariants.split("\n## ").next().unwrap_or_default();
    let bullets: Vec<String> = invariants
        .split("\n- ")
        .skip(1)
        .map(|b| {
            let bullet = b.split("\n\n").next().unwrap_or_default();
            bullet.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect();
    assert!(bullets.len() > 10, "{} invariants read", bullets.len());
    let mut offenders = Vec::new();
    for bullet in &bullets {
        let checks: Vec<&str> = bullet
            .split("checked by ")
            .skip(1)
            .filter_map(|rest| rest.strip_prefix('`')?.split('`').next())
            .collect();
        if checks.is_empty() {
            offenders.push(format!("names no check: {bullet}"));
        }
        for check in checks {
            let Some((file, test)) = check.rsplit_once("::") else {
                offenders.push(format!("`{check}` is not FILE::TEST"));
                continue;
            };
            let found = std::fs::read_to_string(root.join(file))
                .is_ok_and(|code| code.contains(&format!("fn {test}(")));
            if !found {
                offenders.push(format!("no test {test} in {file}"));
            }
        }
    }
    assert_eq!(offenders, Vec::<String>::new());
}

/// The parsers and the pure cores, whole files of them, do no I/O: they take text, bytes or
/// values.
#[test]
fn pure_modules_do_no_io() {
    let root = workspace_root();
    let pure = [
        "tools/kbuild/src/config.rs",
        "tools/kbuild/src/shell.rs",
        "tools/qemu/src/console.rs",
        "tools/kunit/src/lib.rs",
        "tools/oops/src/frame.rs",
        "tools/oops/src/report.rs",
        "tools/report/src/results.rs",
        "rust-project-gen/src/graph.rs",
        "layout-check/src/compare.rs",
        "lint-rules/src/diff.rs",
        "demo/src/summary.rs",
    ];
    let io = ["std::fs", "fs::", "File::", "Command::new", "stdin()", "std::env::var"];
    let mut offenders = Vec::new();
    for file in pure {
        let text =
            std::fs::read_to_string(root.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        let code = text.split("#[cfg(test)]").next().unwrap_or_default();
        for word in io.iter().filter(|w| code.contains(*w)) {
            offenders.push(format!("{file}: {word}"));
        }
    }
    assert_eq!(offenders, Vec::<String>::new(), "keep I/O at the edges");
}

/// upstream-check takes no kernel tree of the user's: only the upstream folder, its own work
/// folder (where it makes its pristine repository) and a source package.
#[test]
fn upstream_check_takes_no_tree_of_the_users() {
    let text =
        std::fs::read_to_string(workspace_root().join("tools/upstream/src/main.rs")).unwrap();
    let args = text.split("struct Args").nth(1).and_then(|a| a.split("\n}").next()).unwrap();
    let fields: Vec<&str> = args
        .lines()
        .filter(|l| !l.trim_start().starts_with("//") && !l.trim_start().starts_with('#'))
        .filter_map(|l| l.split_once(':').map(|(name, _)| name.trim()))
        .collect();
    assert!(fields.contains(&"work_dir"), "{fields:?}");
    for field in &fields {
        assert!(!field.contains("tree") && !field.contains("kernel_"), "a tree argument: {field}");
    }
}
