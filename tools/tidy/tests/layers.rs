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
