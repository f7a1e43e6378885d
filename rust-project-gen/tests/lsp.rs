//! A real editor session: the real rust-analyzer, driven over LSP on stdio, on a module built
//! out of tree against the demo kernel with our `rust-project.json`. Go to definition into
//! `rust/kernel/`, into bindgen's output in the objtree and into `core`; hover docs; and the
//! check on save (`kbuild-flycheck`) bringing rustc's error into the editor.
//!
//! `make test` sets `KERNEL_SRC` and `KERNEL_OBJ`; without them this test fails and says so.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::ChildStdin;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use subprocess::Command;
use subprocess::testing::{Interactive, report, run};

const MODULE: &str = r#"// SPDX-License-Identifier: GPL-2.0

//! A module for the LSP test.

use kernel::prelude::*;

module! {
    type: LspDemo,
    name: "lsp_demo",
    authors: ["Rust-for-Linux developer tools"],
    description: "LSP test module",
    license: "GPL",
}

struct LspDemo {
    numbers: KVec<u32>,
}

impl kernel::Module for LspDemo {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let p: *mut u8 = core::ptr::null_mut();
        let _ = p;
        Ok(LspDemo { numbers: KVec::new() })
    }
}
"#;

use kbuild::testing::env_path as var;

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// The zero-based LSP position of the first `needle` in `text`, plus `offset` characters.
fn position(text: &str, needle: &str, offset: usize) -> Value {
    let at = text.find(needle).unwrap_or_else(|| panic!("{needle:?} not in the file"));
    let line = text[..at].matches('\n').count();
    let column = at - text[..at].rfind('\n').map_or(0, |i| i + 1) + offset;
    json!({ "line": line, "character": column })
}

struct Server {
    /// rust-analyzer; its process group is killed when this drops, or after 20 minutes.
    child: Interactive,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
    /// Notifications seen while waiting for something else.
    notifications: Vec<Value>,
}

impl Server {
    fn start(root: &Path) -> Server {
        let ra = common::sysroot().join("bin/rust-analyzer");
        let mut child =
            Interactive::start(&Command::new(ra, root).timeout(Duration::from_secs(20 * 60)));
        let stdin = child.take_stdin();
        let stdout = child.take_stdout();
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
        let mut server =
            Server { child, stdin, messages: rx, next_id: 0, notifications: Vec::new() };
        server.request(
            "initialize",
            json!({
                "processId": std::process::id(),
                "rootUri": uri(root),
                "capabilities": {
                    "textDocument": { "hover": { "contentFormat": ["markdown", "plaintext"] },
                                      "publishDiagnostics": {} },
                    "window": { "workDoneProgress": true },
                    "experimental": { "serverStatusNotification": true }
                },
                "initializationOptions": { "checkOnSave": true, "check": { "workspace": false } }
            }),
        );
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
        if let Some(i) = self.notifications.iter().position(want) {
            return self.notifications.remove(i);
        }
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) => {
                    if want(&message) {
                        return message;
                    }
                    if message.get("id").is_some() && message.get("method").is_some() {
                        // A request from the server (configuration, progress tokens): answer it.
                        let result = if message["method"] == "workspace/configuration" {
                            json!([{ "checkOnSave": true, "check": { "workspace": false } }])
                        } else {
                            Value::Null
                        };
                        self.send(
                            json!({ "jsonrpc": "2.0", "id": message["id"], "result": result }),
                        );
                    } else if message.get("method").is_some() {
                        self.notifications.push(message);
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("no {what} within {timeout:?}"),
                Err(RecvTimeoutError::Disconnected) if self.child.timed_out() => {
                    panic!("rust-analyzer was killed at its deadline while waiting for {what}")
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("rust-analyzer exited while waiting for {what}")
                }
            }
        }
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let response = self.wait_for(method, Duration::from_secs(120), &|m| {
            m["id"] == id && m.get("method").is_none()
        });
        assert!(response.get("error").is_none(), "{method} failed: {response}");
        response["result"].clone()
    }

    fn wait_until_quiescent(&mut self) {
        self.wait_for("a quiescent server", Duration::from_secs(300), &|m| {
            m["method"] == "experimental/serverStatus" && m["params"]["quiescent"] == true
        });
    }

    fn open(&mut self, path: &Path) -> String {
        let text = std::fs::read_to_string(path).unwrap();
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri(path), "languageId": "rust", "version": 1, "text": text } }),
        );
        text
    }

    /// The file that the definition of what is at `position` in `path` lies in.
    fn definition(&mut self, path: &Path, position: Value) -> String {
        let result = self.request(
            "textDocument/definition",
            json!({ "textDocument": { "uri": uri(path) }, "position": position }),
        );
        let first = if result.is_array() { result[0].clone() } else { result };
        let target = first.get("targetUri").or(first.get("uri")).cloned().unwrap_or(Value::Null);
        target
            .as_str()
            .unwrap_or_else(|| panic!("no definition: {first}"))
            .trim_start_matches("file://")
            .to_owned()
    }
}

#[test]
fn editor_session_on_an_out_of_tree_module() {
    let (src, obj) = (var("KERNEL_SRC"), var("KERNEL_OBJ"));
    let dir = tempfile::tempdir().unwrap();
    let module_dir = dir.path().canonicalize().unwrap();
    let file = module_dir.join("lsp_demo.rs");
    common::write(&module_dir.join("Kbuild"), "obj-m := lsp_demo.o\n");
    common::write(&file, MODULE);
    let make = kbuild::make::kernel_make(&src, &obj)
        .arg(format!("M={}", module_dir.display()))
        .arg("modules")
        .timeout(Duration::from_secs(600));
    let build = run(&make);
    assert!(build.status.success(), "the module does not build: {}", report(&make, &build));

    let sysroot = common::sysroot();
    let sysroot_src = sysroot.join("lib/rustlib/src/rust/library");
    let run = common::run(&[
        src.as_os_str(),
        obj.as_os_str(),
        sysroot.as_os_str(),
        sysroot_src.as_os_str(),
        module_dir.as_os_str(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);

    let mut server = Server::start(&module_dir);
    let text = server.open(&file);
    server.wait_until_quiescent();

    // From the module into the kernel crate.
    let kvec = server.definition(&file, position(&text, "KVec<u32>", 1));
    assert_eq!(kvec, src.join("rust/kernel/alloc/kvec.rs").display().to_string());
    // From the module into core, which rust-analyzer loads from the sysroot.
    let null_mut = server.definition(&file, position(&text, "null_mut", 1));
    assert!(
        null_mut.starts_with(&sysroot_src.join("core/src/ptr").display().to_string()),
        "{null_mut}"
    );
    // From the kernel crate into bindgen's output in the objtree.
    let error_rs = src.join("rust/kernel/error.rs");
    let error_text = server.open(&error_rs);
    let max_errno = server.definition(&error_rs, position(&error_text, "bindings::MAX_ERRNO", 11));
    assert_eq!(max_errno, obj.join("rust/bindings/bindings_generated.rs").display().to_string());
    // Hover shows a kernel item's documentation.
    let hover = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri(&file) }, "position": position(&text, "KVec<u32>", 1) }),
    );
    let hover = hover["contents"]["value"].as_str().unwrap_or_default().to_owned();
    assert!(hover.contains("Kmalloc"), "hover on KVec: {hover}");

    // Check on save: a type error goes through kbuild-flycheck and comes back from rustc.
    let broken = text.replace("let _ = p;", "let _ = p;\n        let _x: u32 = \"not a number\";");
    std::fs::write(&file, &broken).unwrap();
    server.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri(&file), "version": 2 }, "contentChanges": [{ "text": broken }] }),
    );
    server.notify("textDocument/didSave", json!({ "textDocument": { "uri": uri(&file) } }));
    let file_uri = uri(&file);
    let published = server.wait_for(
        "rustc's diagnostic from the check on save",
        Duration::from_secs(300),
        &|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == file_uri.as_str()
                && m["params"]["diagnostics"].as_array().is_some_and(|d| {
                    d.iter().any(|d| d["source"] == "rustc" && d["code"] == "E0308")
                })
        },
    );
    let diagnostic = published["params"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "E0308")
        .unwrap()
        .clone();
    let message = diagnostic["message"].as_str().unwrap();
    assert!(message.contains("expected `u32`") || message.contains("expected u32"), "{message}");
    assert_eq!(
        diagnostic["range"]["start"]["line"],
        position(&broken, "\"not a number\"", 0)["line"]
    );
}
