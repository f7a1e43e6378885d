//! The JSON output in a real editor session: the real rust-analyzer (the toolchain's), driven
//! over LSP on stdio, with `lint-rules check --message-format=json` as its check command
//! (`check.overrideCommand`): a file with an `unsafe` block and no `// SAFETY:` comment is
//! saved, and rust-analyzer publishes our diagnostic on the right line; adding the comment and
//! saving again clears it. (With rust-project-gen's file and the kernel's check on save, the
//! same in `demo/tests/lint_rules_in_the_editor.rs`, above both tools.)

use std::time::Duration;

use lsp::rust_analyzer_checking_on_save as start;
use lsp::toolchain_sysroot as sysroot;
use lsp::uri;
use serde_json::{Value, json};

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
