//! The real rust-analyzer on the wide tree's drivers (`demo-kernel/VERSION/wide.config`), over
//! LSP with our `rust-project.json`: go to definition from a driver into `kernel`, and on into
//! bindgen's output, as a kernel developer does in the code of rnull and (7.3) binder.
//!
//! Not part of `cargo test --workspace` (`test = false`): `make test-wide` runs it against the
//! wide tree; on a tree that builds none of these drivers it fails and says so.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use kbuild::testing::env_path as var;
use lsp::{Server, position};
use serde_json::json;

/// rust-analyzer on the tree, reading the file at `project` (no check on save).
fn start(srctree: &Path, project: &Path) -> Server {
    Server::start(
        &common::sysroot().join("bin/rust-analyzer"),
        srctree,
        json!({
            "textDocument": { "hover": { "contentFormat": ["markdown", "plaintext"] } },
            "window": { "workDoneProgress": true },
            "experimental": { "serverStatusNotification": true }
        }),
        json!({ "linkedProjects": [project], "checkOnSave": false }),
        Duration::from_secs(20 * 60),
    )
}

/// rnull's source: one file in 6.12, a folder of its own since.
fn rnull(srctree: &Path) -> PathBuf {
    let folder = srctree.join("drivers/block/rnull/rnull.rs");
    if folder.is_file() { folder } else { srctree.join("drivers/block/rnull.rs") }
}

#[test]
fn from_a_driver_into_kernel_and_bindings() {
    let tree = kbuild::testing::demo_tree();
    let (src, obj) = (var("KERNEL_SRC"), var("KERNEL_OBJ"));
    assert!(
        tree.objtree.config.is_enabled("BLK_DEV_RUST_NULL"),
        "{}/.config does not build rnull: this test runs against the wide tree (`make test-wide`)",
        obj.display()
    );
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("rust-project.json");
    let run = common::run_on_tree(&src, &obj, &["--output".as_ref(), project.as_os_str()]);
    assert_eq!(run.code, 0, "{}", run.stderr);

    let mut server = start(&src, &project);
    let driver = rnull(&src);
    let text = server.open(&driver);
    server.wait_until_quiescent();

    // From the driver into the kernel crate's block layer.
    let builder = server.definition(&driver, position(&text, "GenDiskBuilder::new", 1));
    let gen_disk = src.join("rust/kernel/block/mq/gen_disk.rs");
    assert_eq!(builder, gen_disk.display().to_string());
    // And from there into bindgen's output in the objtree.
    let gen_disk_text = server.open(&gen_disk);
    let page_size =
        server.definition(&gen_disk, position(&gen_disk_text, "bindings::PAGE_SIZE", 11));
    let bindings = obj.join("rust/bindings/bindings_generated.rs");
    assert_eq!(page_size, bindings.display().to_string());
    let on_builder = server.hover(&driver, position(&text, "GenDiskBuilder::new", 1));
    assert!(on_builder.contains("GenDiskBuilder"), "hover: {on_builder}");

    // Binder (7.3) uses bindgen's types itself.
    if tree.objtree.config.is_enabled("ANDROID_BINDER_IPC_RUST") {
        let binder = src.join("drivers/android/binder/deferred_close.rs");
        let binder_text = server.open(&binder);
        let head =
            server.definition(&binder, position(&binder_text, "bindings::callback_head", 11));
        assert_eq!(head, bindings.display().to_string());
        let kbox = server.definition(&binder, position(&binder_text, "KBox::new", 1));
        assert!(kbox.starts_with(&src.join("rust/kernel").display().to_string()), "{kbox}");
    }
}
