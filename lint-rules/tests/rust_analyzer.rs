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

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

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

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

struct Server {
    child: Child,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
    check: Value,
}

impl Server {
    fn start(root: &Path, check: Value) -> Server {
        let sysroot = String::from_utf8(
            Command::new("rustc").args(["--print", "sysroot"]).output().unwrap().stdout,
        )
        .unwrap();
        let ra = Path::new(sysroot.trim()).join("bin/rust-analyzer");
        let mut child = Command::new(&ra)
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("{}: {e}; run `make setup` to install rust-analyzer", ra.display())
            });
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = 0usize;
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) == 0 {
                        return;
                    }
                    let header = header.trim();
                    if header.is_empty() {
                        break;
                    }
                    if let Some(n) = header.strip_prefix("Content-Length: ") {
                        length = n.parse().unwrap();
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                if tx.send(serde_json::from_slice(&body).unwrap()).is_err() {
                    return;
                }
            }
        });
        let mut server = Server { child, stdin, messages: rx, next_id: 0, check: check.clone() };
        server.next_id += 1;
        server.send(json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "processId": std::process::id(),
            "rootUri": uri(root),
            "capabilities": {
                "textDocument": { "publishDiagnostics": {} },
                "window": { "workDoneProgress": true },
                "experimental": { "serverStatusNotification": true }
            },
            "initializationOptions": { "checkOnSave": true, "check": check }
        }}));
        server.wait_for("the initialize response", Duration::from_secs(120), &|m| {
            m["id"] == 1 && m.get("method").is_none()
        });
        server.notify("initialized", json!({}));
        server
    }

    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Waits for a message matching `want`, answering the server's own requests meanwhile.
    fn wait_for(&mut self, what: &str, timeout: Duration, want: &dyn Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) => {
                    if want(&message) {
                        return message;
                    }
                    if message.get("id").is_some() && message.get("method").is_some() {
                        let result = if message["method"] == "workspace/configuration" {
                            json!([{ "checkOnSave": true, "check": self.check }])
                        } else {
                            Value::Null
                        };
                        self.send(
                            json!({ "jsonrpc": "2.0", "id": message["id"], "result": result }),
                        );
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("no {what} within {timeout:?}"),
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("rust-analyzer exited while waiting for {what}")
                }
            }
        }
    }

    fn save(&mut self, path: &Path, text: &str, version: i64) {
        std::fs::write(path, text).unwrap();
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri(path), "version": version }, "contentChanges": [{ "text": text }] }),
        );
        self.notify("textDocument/didSave", json!({ "textDocument": { "uri": uri(path) } }));
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn rust_analyzer_shows_a_missing_safety_comment_on_save() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let file = root.join("lib.rs");
    std::fs::write(&file, FILE).unwrap();
    let sysroot = String::from_utf8(
        Command::new("rustc").args(["--print", "sysroot"]).output().unwrap().stdout,
    )
    .unwrap();
    let project = json!({
        "sysroot": sysroot.trim(),
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
    let mut server = Server::start(&root, check);
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri(&file), "languageId": "rust", "version": 1, "text": FILE } }),
    );
    server.wait_for("a quiescent server", Duration::from_secs(300), &|m| {
        m["method"] == "experimental/serverStatus" && m["params"]["quiescent"] == true
    });

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
    let file = module_dir.join("lint_demo.rs");
    std::fs::write(module_dir.join("Kbuild"), "obj-m := lint_demo.o\n").unwrap();
    std::fs::write(&file, MODULE).unwrap();
    let build = Command::new("make")
        .env_remove("MAKEFLAGS")
        .env_remove("MAKELEVEL")
        .arg("-C")
        .arg(&src)
        .arg(format!("O={}", obj.display()))
        .arg(format!("M={}", module_dir.display()))
        .arg("modules")
        .output()
        .unwrap();
    assert!(
        build.status.success(),
        "the module does not build:\n{}",
        String::from_utf8_lossy(&build.stderr)
    );

    // rust-project-gen's file for the module, with `lint-rules flycheck` as the check on save
    // (what `rust-project-gen --lint` writes).
    let sysroot = String::from_utf8(
        Command::new("rustc").args(["--print", "sysroot"]).output().unwrap().stdout,
    )
    .unwrap();
    let sysroot = PathBuf::from(sysroot.trim());
    let trees = rust_project_gen::Trees {
        srctree: src.clone(),
        objtree: obj.clone(),
        sysroot: sysroot.clone(),
        sysroot_src: sysroot.join("lib/rustlib/src/rust/library"),
        exttree: Some(module_dir.clone()),
    };
    let version =
        Command::new(sysroot.join("bin/rust-analyzer")).arg("--version").output().unwrap();
    let features =
        rust_project_gen::rust_analyzer::features(&String::from_utf8_lossy(&version.stdout));
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

    let mut server = Server::start(&module_dir, json!({ "workspace": false }));
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri(&file), "languageId": "rust", "version": 1, "text": MODULE } }),
    );
    server.wait_for("a quiescent server", Duration::from_secs(300), &|m| {
        m["method"] == "experimental/serverStatus" && m["params"]["quiescent"] == true
    });

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
