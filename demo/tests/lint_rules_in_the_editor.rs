//! lint-rules in the editor through rust-project-gen's file, the two tools together: the real
//! rust-analyzer (the toolchain's) over LSP on stdio, with rust-project-gen's editor setup for
//! an out-of-tree module of the demo kernel and `lint-rules flycheck` as the check on save
//! (`rust-project-gen --lint`): a saved type error comes back from rustc through kbuild, and
//! the missing `// SAFETY:` comment from lint-rules' rules, in the same check. `make test` sets
//! `KERNEL_SRC` and `KERNEL_OBJ` and builds the tools' binaries beside the demo's; without them
//! this test fails and says so.

use std::path::{Path, PathBuf};
use std::time::Duration;

use lsp::rust_analyzer_checking_on_save as start;
use lsp::toolchain_sysroot as sysroot;
use lsp::uri;
use serde_json::{Value, json};
use subprocess::Command;
use subprocess::testing::run;

/// The `lint-rules` binary that `make tools` builds beside the demo's.
fn lint_rules() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_demo")).with_file_name("lint-rules")
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
        cargo_home: rust_project_gen::cargo_home(),
        store: None,
    };
    let version = Command::new(sysroot.join("bin/rust-analyzer"), &module_dir).arg("--version");
    let version = run(&version).stdout;
    let features = rust_project_gen::rust_analyzer::features(&version);
    let flycheck = rust_project_gen::json::Flycheck {
        program: lint_rules(),
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
