//! The JSON output in real editor sessions: the real rust-analyzer (the toolchain's), driven
//! over LSP on stdio.
//!
//! - With `lint-rules check --message-format=json` as its check command
//!   (`check.overrideCommand`): a file with an `unsafe` block and no `// SAFETY:` comment is
//!   saved, and rust-analyzer publishes our diagnostic on the right line; adding the comment and
//!   saving again clears it.
//! - With rust-project-gen's editor setup for an out-of-tree module of the demo kernel and
//!   `lint-rules flycheck` as the check on save (`rust-project-gen --lint`): a saved type error
//!   comes back from rustc through kbuild, and the missing `// SAFETY:` comment from our rules,
//!   in the same check. `make test` sets `KERNEL_SRC` and `KERNEL_OBJ`; without them this test
//!   fails and says so.

use std::path::{Path, PathBuf};
use std::time::Duration;

use lsp::{Server, uri};
use serde_json::{Value, json};
use subprocess::Command;
use subprocess::testing::{report, run};

const FILE: &str = "// SPDX-License-Identifier: GPL-2.0

//! A file for the editor test.

/// Reads a byte.
///
/// # Safety
///
/// `p` must be valid for reads.
pub unsafe fn read(p: *const u8) -> u8 {
    unsafe { *p }
}
";

/// The toolchain's sysroot, as rustc prints it.
fn sysroot() -> PathBuf {
    let cmd = Command::new("rustc", Path::new("/")).args(["--print", "sysroot"]);
    let out = run(&cmd);
    assert!(out.status.success(), "{}", report(&cmd, &out));
    PathBuf::from(out.stdout.trim())
}

/// rust-analyzer in `root` with `check` as its check on save.
fn start(root: &Path, check: Value) -> Server {
    Server::start(
        &sysroot().join("bin/rust-analyzer"),
        root,
        json!({
            "textDocument": { "publishDiagnostics": {} },
            "window": { "workDoneProgress": true },
            "experimental": { "serverStatusNotification": true }
        }),
        json!({ "checkOnSave": true, "check": check }),
        Duration::from_secs(20 * 60),
    )
}

#[test]
fn rust_analyzer_shows_a_missing_safety_comment_on_save() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let file = root.join("lib.rs");
    std::fs::write(&file, FILE).unwrap();
    let project = json!({
        "sysroot": sysroot(),
        "crates": [{
            "root_module": file.display().to_string(),
            "edition": "2021",
            "deps": [],
            "is_workspace_member": true,
            "cfg": [],
        }],
    });
    std::fs::write(root.join("rust-project.json"), project.to_string()).unwrap();

    // What an editor's settings say (see lint-rules/README.md).
    let check = json!({
        "overrideCommand": [
            env!("CARGO_BIN_EXE_lint-rules"), "check", "--message-format=json", root.display().to_string()
        ],
        "workspace": true,
    });
    let mut server = start(&root, check);
    server.open(&file);
    server.wait_until_quiescent();

    server.save(&file, FILE, 2);
    let file_uri = uri(&file);
    let ours = |d: &Value| d["code"].as_str().is_some_and(|c| c.contains("safety-comment"));
    let published =
        server.wait_for("our diagnostic from the check on save", Duration::from_secs(120), &|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == file_uri.as_str()
                && m["params"]["diagnostics"].as_array().is_some_and(|d| d.iter().any(ours))
        });
    let diagnostic = published["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| ours(d))
        .unwrap()
        .clone();
    assert_eq!(diagnostic["range"]["start"]["line"], 10, "{diagnostic}");
    assert_eq!(diagnostic["range"]["start"]["character"], 4, "{diagnostic}");
    assert_eq!(diagnostic["severity"], 1, "an error: {diagnostic}");
    assert!(
        diagnostic["message"]
            .as_str()
            .unwrap()
            .contains("without a preceding `// SAFETY:` comment"),
        "{diagnostic}"
    );

    // With the comment, the next save clears it.
    let fixed = FILE
        .replace("    unsafe { *p }", "    // SAFETY: `p` is valid for reads.\n    unsafe { *p }");
    server.save(&file, &fixed, 3);
    server.wait_for("the diagnostic cleared", Duration::from_secs(120), &|m| {
        m["method"] == "textDocument/publishDiagnostics"
            && m["params"]["uri"] == file_uri.as_str()
            && m["params"]["diagnostics"].as_array().is_some_and(|d| !d.iter().any(ours))
    });
}

const MODULE: &str = r#"// SPDX-License-Identifier: GPL-2.0

//! A module for the editor test.

use kernel::prelude::*;

module! {
    type: LintDemo,
    name: "lint_demo",
    authors: ["Rust-for-Linux developer tools"],
    description: "lint-rules editor test module",
    license: "GPL",
}

struct LintDemo;

fn read(p: *const u8) -> u8 {
    // SAFETY: `p` points at a live byte on the caller's stack.
    unsafe { *p }
}

impl kernel::Module for LintDemo {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let byte = 7u8;
        pr_info!("{}\n", read(&byte));
        Ok(LintDemo)
    }
}
"#;

use kbuild::testing::env_path as var;

#[test]
fn kernel_check_on_save_brings_rustc_and_our_diagnostics() {
    let (src, obj) = (var("KERNEL_SRC"), var("KERNEL_OBJ"));
    let dir = tempfile::tempdir().unwrap();
    let module_dir = dir.path().canonicalize().unwrap();
    let file = kbuild::testing::build_module(&src, &obj, &module_dir, "lint_demo", MODULE);

    // rust-project-gen's file for the module, with `lint-rules flycheck` as the check on save
    // (what `rust-project-gen --lint` writes).
    let sysroot = sysroot();
    let trees = rust_project_gen::Trees {
        srctree: src.clone(),
        objtree: obj.clone(),
        sysroot: sysroot.clone(),
        sysroot_src: sysroot.join("lib/rustlib/src/rust/library"),
        exttree: Some(module_dir.clone()),
    };
    let version = Command::new(sysroot.join("bin/rust-analyzer"), &module_dir).arg("--version");
    let version = run(&version).stdout;
    let features = rust_project_gen::rust_analyzer::features(&version);
    let flycheck = rust_project_gen::json::Flycheck {
        program: PathBuf::from(env!("CARGO_BIN_EXE_lint-rules")),
        args: vec![
            "flycheck".to_owned(),
            "--srctree".to_owned(),
            src.display().to_string(),
            "--objtree".to_owned(),
            obj.display().to_string(),
        ],
        cwd: obj.clone(),
    };
    let output = rust_project_gen::generate(&trees).unwrap();
    std::fs::write(module_dir.join("rust-project.json"), output.text(features, Some(&flycheck)))
        .unwrap();

    let mut server = start(&module_dir, json!({ "workspace": false }));
    server.open(&file);
    server.wait_until_quiescent();

    // Save a type error and an `unsafe` block without its comment.
    let broken = MODULE
        .replace("    // SAFETY: `p` points at a live byte on the caller's stack.\n", "")
        .replace("let byte = 7u8;", "let byte = 7u8;\n        let _x: u32 = \"not a number\";");
    server.save(&file, &broken, 2);
    let file_uri = uri(&file);
    let rustc = |d: &Value| d["code"] == "E0308";
    let ours = |d: &Value| d["code"].as_str().is_some_and(|c| c.contains("safety-comment"));
    let published = server.wait_for(
        "rustc's and our diagnostics from one check on save",
        Duration::from_secs(300),
        &|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == file_uri.as_str()
                && m["params"]["diagnostics"]
                    .as_array()
                    .is_some_and(|d| d.iter().any(rustc) && d.iter().any(ours))
        },
    );
    let diagnostics = published["params"]["diagnostics"].as_array().unwrap();
    let line_of = |needle: &str| broken[..broken.find(needle).unwrap()].matches('\n').count();
    let ours = diagnostics.iter().find(|d| ours(d)).unwrap();
    assert_eq!(ours["range"]["start"]["line"], line_of("unsafe { *p }"), "{ours}");
    let rustc = diagnostics.iter().find(|d| rustc(d)).unwrap();
    assert_eq!(rustc["range"]["start"]["line"], line_of("\"not a number\""), "{rustc}");
}
