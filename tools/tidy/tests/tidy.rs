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

/// `text` without comment lines, and without the whitespace around `::` (`std :: process`).
fn code_paths(text: &str) -> String {
    let code: Vec<&str> = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
    let code = code.join("\n");
    let mut out = String::with_capacity(code.len());
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_whitespace() {
            while chars.next_if(|c| c.is_whitespace()).is_some() {}
            if !out.ends_with(':') && chars.peek() != Some(&':') {
                out.push(' ');
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether `text` names the standard library's `Command` in any spelling: `std::process::Command`,
/// `process::Command` (after `use std::process`), `Command` in a `process::{...}` group (on one
/// line or several, nested in `std::{...}` or not), or a `process::*` glob; not
/// `subprocess::Command`, nor anything in a comment line.
fn mentions_std_command(text: &str) -> bool {
    let code = code_paths(text);
    let word_at = |at: usize, word: &str| {
        code[at..].starts_with(word)
            && !code[..at].ends_with(is_ident)
            && !code[at + word.len()..].starts_with(is_ident)
    };
    code.match_indices("process::").any(|(at, _)| {
        if code[..at].ends_with(is_ident) {
            return false; // subprocess::, or another crate's module
        }
        let rest = at + "process::".len();
        if word_at(rest, "Command") || code[rest..].starts_with('*') {
            return true;
        }
        // A group: `Command` anywhere before its closing brace, nested groups included.
        if !code[rest..].starts_with('{') {
            return false;
        }
        let mut depth = 0;
        for (i, c) in code[rest..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 1 => return false,
                '}' => depth -= 1,
                'C' if word_at(rest + i, "Command") => return true,
                _ => {}
            }
        }
        false
    })
}

#[test]
fn std_command_is_told_apart_from_ours() {
    for yes in [
        "let c = std::process::Command::new(\"make\");",
        "use std::process::Command;",
        "use std::process::Command as StdCommand;",
        "use std::process;\nlet c = process::Command::new(\"make\");",
        "use std::process::{Child, Command, Stdio};",
        "use std::process::{\n    Child,\n    Command,\n    Stdio,\n};",
        "use std::{io, process::Command};",
        "use std::{\n    io,\n    process::{Command, Stdio},\n};",
        "use std::process::{Stdio, Command as C};",
        "use std::process::*;",
        "let c = std :: process :: Command::new(\"make\");",
        "let c = ::std::process::Command::new(\"make\");",
    ] {
        assert!(mentions_std_command(yes), "not seen: {yes}");
    }
    for no in [
        "use subprocess::Command;\nlet c: subprocess::Command;",
        "let c = subprocess :: Command::new(\"make\", dir);",
        "use std::process::{ChildStdin, ExitCode};\nlet c = Command::new(\"make\", dir);",
        "use std::process::{ChildStdin, ExitCode};\nfn f() { Command::new(\"x\", d) }",
        "use std::os::unix::process::CommandExt;",
        "/// Unlike std::process::Command, this one has a deadline.",
        "    // std::process::Command would hang here",
    ] {
        assert!(!mentions_std_command(no), "seen: {no}");
    }
}

/// The files that may still use the standard library's `Command`, and why: each is a debt,
/// to convert to `subprocess::Command` and `subprocess::testing` when it can be touched.
const STD_COMMAND_ALLOWED: &[(&str, &str)] =
    &[("tools/tidy/tests/tidy.rs", "names each spelling it refuses, in its own tests")];

/// Found when tests ran rust-analyzer, make and QEMU runners with no deadline: a hang blocked
/// `make test` instead of failing it, and a killed test left its children running.
#[test]
fn only_tools_subprocess_spawns_processes() {
    let sources = sources();
    let offenders: Vec<String> = sources
        .iter()
        .filter(|(path, _)| !path.starts_with("tools/subprocess/"))
        .filter(|(path, _)| !STD_COMMAND_ALLOWED.iter().any(|(allowed, _)| path == allowed))
        .filter(|(_, text)| mentions_std_command(text))
        .map(|(path, _)| path.clone())
        .collect();
    assert_eq!(
        offenders,
        Vec::<String>::new(),
        "spawn processes through tools/subprocess: `subprocess::Command`, and in tests \
         `subprocess::testing::run` or `subprocess::testing::Interactive`"
    );
    // The allow-list only shrinks: an entry whose file no longer needs it must go.
    let stale: Vec<&str> = STD_COMMAND_ALLOWED
        .iter()
        .filter(|(allowed, _)| {
            !sources.iter().any(|(path, text)| path == allowed && mentions_std_command(text))
        })
        .map(|(allowed, _)| *allowed)
        .collect();
    assert_eq!(stale, Vec::<&str>::new(), "remove these from STD_COMMAND_ALLOWED");
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

/// Our code holds no `unsafe` but the symbolizer's mapping of ELF files into memory: the
/// workspace's lints forbid it, every member but the symbolizer takes them, and the symbolizer,
/// which only denies it, allows it in `image.rs` alone. (The kernel code of `demo-kernel/`
/// follows the kernel's rules.)
#[test]
fn unsafe_code_is_in_the_symbolizers_image_reader_only() {
    const ALLOWED: &str = "tools/symbolizer/src/image.rs";
    let allows: Vec<String> = sources()
        .into_iter()
        .filter(|(path, _)| !path.starts_with("demo-kernel/") && path != "tools/tidy/tests/tidy.rs")
        .filter(|(_, text)| code_paths(text).contains("allow(unsafe_code)"))
        .map(|(path, _)| path)
        .collect();
    assert_eq!(allows, [ALLOWED], "files that allow unsafe code");

    let root = workspace_root();
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    assert!(manifest.contains("unsafe_code = \"forbid\""), "the workspace forbids unsafe code");
    let members: Vec<&str> = manifest
        .split("members = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .unwrap()
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .collect();
    assert!(members.len() > 10, "{members:?}");
    let own_lints: Vec<&str> = members
        .into_iter()
        .filter(|member| {
            let text = std::fs::read_to_string(root.join(member).join("Cargo.toml")).unwrap();
            !text.contains("[lints]\nworkspace = true")
        })
        .collect();
    assert_eq!(own_lints, ["tools/symbolizer"], "members that do not take the workspace's lints");
}
