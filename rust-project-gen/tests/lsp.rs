//! A real editor session: the real rust-analyzer, driven over LSP on stdio, on a module built
//! out of tree against the demo kernel with our `rust-project.json`. Go to definition into
//! `rust/kernel/`, into bindgen's output in the objtree and into `core` (an inherent method of a
//! primitive type among them); hover docs and completion from both; and the check on save
//! (`kbuild-flycheck`) bringing rustc's error into the editor.
//!
//! `make test` sets `KERNEL_SRC` and `KERNEL_OBJ`; without them this test fails and says so.

mod common;

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

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
        let _ = p.is_null();
        Ok(LspDemo { numbers: KVec::new() })
    }
}
"#;

use kbuild::testing::env_path as var;
use lsp::{Server, position, uri};

/// rust-analyzer for the module, with the check on save of our generated file.
fn start(root: &Path) -> Server {
    Server::start(
        &common::sysroot().join("bin/rust-analyzer"),
        root,
        json!({
            "textDocument": { "hover": { "contentFormat": ["markdown", "plaintext"] },
                              "publishDiagnostics": {} },
            "window": { "workDoneProgress": true },
            "experimental": { "serverStatusNotification": true }
        }),
        json!({ "checkOnSave": true, "check": { "workspace": false } }),
        Duration::from_secs(20 * 60),
    )
}

/// The labels of the completions offered at `at`.
fn completions(server: &mut Server, path: &Path, at: Value) -> Vec<String> {
    let list = server.request(
        "textDocument/completion",
        json!({ "textDocument": { "uri": uri(path) }, "position": at }),
    );
    let items = list.get("items").unwrap_or(&list);
    items
        .as_array()
        .map(|items| items.iter().filter_map(|i| i["label"].as_str()).map(str::to_owned).collect())
        .unwrap_or_default()
}

#[test]
fn editor_session_on_an_out_of_tree_module() {
    let (src, obj) = (var("KERNEL_SRC"), var("KERNEL_OBJ"));
    let dir = tempfile::tempdir().unwrap();
    let module_dir = dir.path().canonicalize().unwrap();
    let file = kbuild::testing::build_module(&src, &obj, &module_dir, "lsp_demo", MODULE);

    let sysroot_src = common::sysroot().join("lib/rustlib/src/rust/library");
    let run = common::run_on_tree(&src, &obj, &[module_dir.as_os_str()]);
    assert_eq!(run.code, 0, "{}", run.stderr);

    let mut server = start(&module_dir);
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
    // An inherent method of a primitive type: found only with `core` as the sysroot's own
    // crate (rust-analyzer issue 21321), which the file's `sysroot_project` makes it.
    let is_null = server.definition(&file, position(&text, "is_null", 1));
    assert!(
        is_null.starts_with(&sysroot_src.join("core/src/ptr").display().to_string()),
        "{is_null}"
    );
    // Hover shows the documentation of a kernel item and of a core one.
    let on_kvec = server.hover(&file, position(&text, "KVec<u32>", 1));
    assert!(on_kvec.contains("Kmalloc"), "hover on KVec: {on_kvec}");
    let on_null_mut = server.hover(&file, position(&text, "null_mut", 1));
    assert!(
        on_null_mut.contains("Creates a null mutable raw pointer"),
        "hover on null_mut: {on_null_mut}"
    );
    // Completion offers the kernel's associated functions and core's methods.
    let kvec = completions(&mut server, &file, position(&text, "KVec::new", 6));
    assert!(kvec.iter().any(|l| l.starts_with("with_capacity")), "after `KVec::`: {kvec:?}");
    let pointer = completions(&mut server, &file, position(&text, "p.is_null", 2));
    for method in ["is_null", "add", "cast"] {
        assert!(pointer.iter().any(|l| l.starts_with(method)), "after `p.`: {pointer:?}");
    }

    // Check on save: a type error goes through kbuild-flycheck and comes back from rustc.
    let broken = text.replace(
        "let _ = p.is_null();",
        "let _ = p.is_null();\n        let _x: u32 = \"not a number\";",
    );
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
