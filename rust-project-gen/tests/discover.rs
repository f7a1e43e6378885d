//! rust-analyzer finding the kernel project by itself: the real rust-analyzer, driven over LSP,
//! with `rust-analyzer.workspace.discoverConfig` running `rust-project-gen discover {arg}` and no
//! `linkedProjects`, no `rust-project.json` anywhere. Opening a sample of the demo tree (an
//! `O=` build, found through the user's list of build trees) and then an out-of-tree module
//! built against it must each load a project: go to definition into `kernel` and into
//! `bindings`, hover, a diagnostic, and a reload when the module's `Kbuild` is saved.
//!
//! `make test` sets `KERNEL_SRC` and `KERNEL_OBJ`; without them this test fails and says so.

mod common;

use std::path::Path;
use std::time::Duration;

use kbuild::testing::env_path as var;
use lsp::{Server, position, uri};
use serde_json::json;

const MODULE: &str = r#"// SPDX-License-Identifier: GPL-2.0

//! A module for the discovery test.

use kernel::prelude::*;

module! {
    type: DiscoverDemo,
    name: "discover_demo",
    authors: ["Rust-for-Linux developer tools"],
    description: "discoverConfig test module",
    license: "GPL",
}

struct DiscoverDemo {
    numbers: KVec<u32>,
}

impl kernel::Module for DiscoverDemo {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let errno = kernel::bindings::MAX_ERRNO;
        let _ = errno;
        Ok(DiscoverDemo { numbers: KVec::new() })
    }
}
"#;

/// The label rust-analyzer shows while the command runs.
const LABEL: &str = "rust-project-gen discover";

/// rust-analyzer `program` with only `discoverConfig` set, our command in it, in `root`, finding
/// build trees through the list in `config`.
fn start(program: &Path, root: &Path, config: &Path) -> Server {
    let settings = json!({
        "workspace": { "discoverConfig": {
            "command": [common::binary(), "discover", "{arg}"],
            "progressLabel": LABEL,
            "filesToWatch": ["utsversion.h", "Kbuild", "Makefile"]
        } },
        "checkOnSave": false
    });
    Server::start_with_env(
        program,
        root,
        &[("XDG_CONFIG_HOME", config)],
        json!({
            "textDocument": { "hover": { "contentFormat": ["markdown", "plaintext"] },
                              "publishDiagnostics": {},
                              "synchronization": { "didSave": true } },
            "window": { "workDoneProgress": true },
            "experimental": { "serverStatusNotification": true }
        }),
        settings,
        Duration::from_secs(20 * 60),
    )
}

/// The demo trees, and a folder for the editor whose `config` lists the build tree, as the
/// user's list of build trees (how a source tree built with `O=` finds its objtree).
struct Setup {
    src: std::path::PathBuf,
    obj: std::path::PathBuf,
    _dir: tempfile::TempDir,
    root: std::path::PathBuf,
    config: std::path::PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let (src, obj) = (var("KERNEL_SRC"), var("KERNEL_OBJ"));
        let (src, obj) = (src.canonicalize().unwrap(), obj.canonicalize().unwrap());
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let config = config_listing(&root, &obj);
        Setup { src, obj, _dir: dir, root, config }
    }
}

/// A directory with the user's list of build trees naming `objtree`, as
/// `$XDG_CONFIG_HOME/rust-project-gen/objtrees`.
fn config_listing(root: &Path, objtree: &Path) -> std::path::PathBuf {
    let config = root.join("config");
    std::fs::create_dir_all(config.join("rust-project-gen")).unwrap();
    std::fs::write(
        config.join("rust-project-gen/objtrees"),
        format!("# the demo kernel\n{}\n", objtree.display()),
    )
    .unwrap();
    config
}

/// Waits for the discovery command to run (rust-analyzer shows its progress titled `LABEL`)
/// and end, then for rust-analyzer to load what it answered.
fn wait_for_discovery(server: &mut Server, why: &str) {
    let begin = server.wait_for(why, Duration::from_secs(300), &|m| {
        m["method"] == "$/progress"
            && m["params"]["value"]["kind"] == "begin"
            && m["params"]["value"]["title"] == LABEL
    });
    let token = begin["params"]["token"].clone();
    server.wait_for(&format!("the end of {why}"), Duration::from_secs(300), &|m| {
        m["method"] == "$/progress"
            && m["params"]["token"] == token
            && m["params"]["value"]["kind"] == "end"
    });
    // Statuses from before the project was loaded say nothing of it.
    server.forget_notifications();
    server.wait_until_quiescent();
}

#[test]
fn rust_analyzer_finds_the_kernel_project_of_each_file_it_opens() {
    let Setup { src, obj, _dir, root, config } = Setup::new();
    let module_dir = root.join("discover_demo");
    std::fs::create_dir_all(&module_dir).unwrap();
    let module = kbuild::testing::build_module(&src, &obj, &module_dir, "discover_demo", MODULE);
    let mut server = start(&common::sysroot().join("bin/rust-analyzer"), &root, &config);

    // A sample of the source tree: nothing is loaded, so opening it runs the command.
    let sample = src.join("samples/rust/rust_minimal.rs");
    let text = server.open(&sample);
    wait_for_discovery(&mut server, "discovery for a file of the source tree");
    let kvec = server.definition(&sample, position(&text, "KVec<i32>", 1));
    assert_eq!(kvec, src.join("rust/kernel/alloc/kvec.rs").display().to_string());
    let on_kvec = server.hover(&sample, position(&text, "KVec<i32>", 1));
    assert!(on_kvec.contains("Kmalloc"), "hover on KVec: {on_kvec}");
    // The kernel crate, loaded with the sample, reaches bindgen's output in the objtree.
    let error_rs = src.join("rust/kernel/error.rs");
    let error_text = server.open(&error_rs);
    let max_errno = server.definition(&error_rs, position(&error_text, "bindings::MAX_ERRNO", 11));
    assert_eq!(max_errno, obj.join("rust/bindings/bindings_generated.rs").display().to_string());

    // An out-of-tree module: not in the first project, so the command runs again for it.
    server.forget_notifications();
    let module_text = server.open(&module);
    wait_for_discovery(&mut server, "discovery for the out-of-tree module");
    let kvec = server.definition(&module, position(&module_text, "KVec<u32>", 1));
    assert_eq!(kvec, src.join("rust/kernel/alloc/kvec.rs").display().to_string());
    let max_errno = server.definition(&module, position(&module_text, "MAX_ERRNO", 1));
    assert_eq!(max_errno, obj.join("rust/bindings/bindings_generated.rs").display().to_string());

    // rust-analyzer's own diagnostics in the module.
    let broken = module_text
        .replace("let _ = errno;", "let _ = errno;\n        let _x: u32 = \"not a number\";");
    server.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri(&module), "version": 2 }, "contentChanges": [{ "text": broken }] }),
    );
    let module_uri = uri(&module);
    server.wait_for(
        "rust-analyzer's type mismatch in the module",
        Duration::from_secs(300),
        &|m| {
            m["method"] == "textDocument/publishDiagnostics"
                && m["params"]["uri"] == module_uri.as_str()
                && m["params"]["diagnostics"]
                    .as_array()
                    .is_some_and(|d| d.iter().any(|d| d["code"] == "E0308"))
        },
    );

    // Saving the module's Kbuild, a file named in filesToWatch that is its crate's build file,
    // runs the command again.
    server.forget_notifications();
    let kbuild = module_dir.join("Kbuild");
    let kbuild_text = server.open(&kbuild);
    server.save(&kbuild, &format!("{kbuild_text}# edited\n"), 2);
    wait_for_discovery(&mut server, "discovery again after the Kbuild was saved");
}

/// The other rust-analyzers `make other-rust-analyzers` installs (`OTHER_RUST_ANALYZERS`, from
/// 2025-02 to the newest) have the mode too: each runs the command, which writes the file for
/// what that rust-analyzer reads (its parent process), and goes from a sample into `kernel`.
#[test]
fn other_rust_analyzers_find_the_kernel_project_too() {
    let others = common::other_rust_analyzers();
    let Setup { src, obj: _, _dir, root, config } = Setup::new();
    let sample = src.join("samples/rust/rust_minimal.rs");
    for ra in &others {
        let mut server = start(ra, &root, &config);
        let text = server.open(&sample);
        wait_for_discovery(&mut server, &format!("discovery by {}", ra.display()));
        let kvec = server.definition(&sample, position(&text, "KVec<i32>", 1));
        assert_eq!(
            kvec,
            src.join("rust/kernel/alloc/kvec.rs").display().to_string(),
            "{}",
            ra.display()
        );
    }
}
