//! The invariants of `ARCHITECTURE.md` that can be read off the source, checked on every
//! `make test`.

use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap().to_owned()
}

/// Every `.rs` file of the workspace, as (path relative to the root, text).
fn sources() -> Vec<(String, String)> {
    let root = workspace_root();
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if !name.starts_with('.') && name != "target" {
                    stack.push(path);
                }
            } else if name.ends_with(".rs") {
                let rel = path.strip_prefix(&root).unwrap().to_string_lossy().into_owned();
                out.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
    assert!(out.len() > 10, "found only {} sources under {}", out.len(), root.display());
    out
}

/// Test code: files under `tests/`, `tests.rs` modules, and `#[cfg(test)]` modules' text.
fn non_test_text(path: &str, text: &str) -> Option<String> {
    if path.contains("/tests/") || path.ends_with("/tests.rs") {
        return None;
    }
    Some(text.split("#[cfg(test)]").next().unwrap_or("").to_owned())
}

/// Whether `text` names `process::Command` (not `subprocess::Command`).
fn mentions_std_command(text: &str) -> bool {
    text.match_indices("process::Command")
        .any(|(at, _)| !text[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
}

#[test]
fn std_command_is_told_apart_from_ours() {
    assert!(mentions_std_command("let c = std::process::Command::new(\"make\");"));
    assert!(mentions_std_command("use std::process::Command;"));
    assert!(!mentions_std_command("use subprocess::Command;\nlet c: subprocess::Command;"));
}

#[test]
fn only_tools_subprocess_spawns_processes() {
    let offenders: Vec<String> = sources()
        .into_iter()
        .filter(|(path, _)| {
            !path.starts_with("tools/subprocess/") && !path.starts_with("tools/tidy/")
        })
        .filter_map(|(path, text)| {
            let text = non_test_text(&path, &text)?;
            let spawns = mentions_std_command(&text)
                || text
                    .lines()
                    .any(|l| l.starts_with("use std::process::{") && l.contains("Command"));
            spawns.then_some(path)
        })
        .collect();
    assert_eq!(offenders, Vec::<String>::new(), "spawn processes through tools/subprocess");
}

#[test]
fn only_tools_qemu_starts_qemu() {
    let offenders: Vec<String> = sources()
        .into_iter()
        .filter(|(path, _)| !path.starts_with("tools/qemu/") && !path.starts_with("tools/tidy/"))
        .filter_map(|(path, text)| {
            non_test_text(&path, &text)?.contains("qemu-system").then_some(path)
        })
        .collect();
    assert_eq!(offenders, Vec::<String>::new(), "only tools/qemu starts QEMU");
}

#[test]
fn every_source_file_says_what_it_is_for() {
    let offenders: Vec<String> = sources()
        .into_iter()
        .filter(|(_, text)| {
            // Kernel code opens with its SPDX line, then the module doc.
            let text = match text.strip_prefix("// SPDX-License-Identifier:") {
                Some(rest) => rest.split_once('\n').map_or("", |(_, rest)| rest),
                None => text,
            };
            !text.trim_start().starts_with("//!")
        })
        .map(|(path, _)| path)
        .collect();
    assert_eq!(offenders, Vec::<String>::new(), "start each file with a `//!` comment");
}

#[test]
fn every_binary_ends_quietly_on_a_closed_stdout() {
    let offenders: Vec<String> = sources()
        .into_iter()
        .filter(|(path, _)| path.ends_with("src/main.rs") || path.contains("/src/bin/"))
        .filter(|(_, text)| !text.contains("let _stdout = progress::stdout::quiet_when_closed();"))
        .map(|(path, _)| path)
        .collect();
    assert_eq!(
        offenders,
        Vec::<String>::new(),
        "start `main` with `let _stdout = progress::stdout::quiet_when_closed();`"
    );
}
