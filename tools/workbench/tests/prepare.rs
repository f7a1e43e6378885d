//! Preparing a srctree with the real `tar` and `patch`, on a small tarball made here: up to
//! date when nothing changed, re-prepared when a patch changes, and a patch that does not apply
//! stops with its name and hunk while the previous tree stays as it was.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use subprocess::Command;
use subprocess::testing::{report, run};

use workbench::WorkbenchError;
use workbench::srctree::{Prepared, prepare};

const MAKEFILE: &str = "VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 118\nEXTRAVERSION =\n";

fn patch(subject: &str, from: &str, to: &str) -> String {
    format!(
        "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n\
         From: Demo Developer <demo@example.org>\n\
         Subject: [PATCH] {subject}\n\n\
         Signed-off-by: Demo Developer <demo@example.org>\n\
         ---\n hello.c | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\n\
         diff --git a/hello.c b/hello.c\n\
         --- a/hello.c\n+++ b/hello.c\n\
         @@ -1,3 +1,3 @@\n // SPDX-License-Identifier: GPL-2.0\n-{from}\n+{to}\n int y;\n\
         -- \n2.39.5\n"
    )
}

/// A tarball like Debian's (one top directory) and a demo-kernel/ folder with `patches`.
struct Fixture {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Fixture {
    fn new(patches: &[(&str, String)]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_owned();
        let top = root.join("linux-source-6.12");
        fs::create_dir_all(top.join("rust/kernel")).unwrap();
        fs::write(top.join("Makefile"), MAKEFILE).unwrap();
        fs::write(top.join("Kbuild"), "").unwrap();
        fs::write(top.join("hello.c"), "// SPDX-License-Identifier: GPL-2.0\nint x = 1;\nint y;\n")
            .unwrap();
        let tar = Command::new("tar", &root)
            .args(["-cJf", "linux.tar.xz", "linux-source-6.12"])
            .timeout(Duration::from_secs(60));
        let out = run(&tar);
        assert!(out.status.success(), "{}", report(&tar, &out));
        fs::write(root.join("demo.config"), "CONFIG_RUST=y\n").unwrap();
        let fixture = Fixture { _dir: dir, root };
        fixture.set_patches(patches);
        fixture
    }

    fn set_patches(&self, patches: &[(&str, String)]) {
        let dir = self.root.join("demo-kernel/patches");
        fs::create_dir_all(&dir).unwrap();
        let mut series = String::from("# test series\n");
        for (name, text) in patches {
            fs::write(dir.join(name), text).unwrap();
            series += &format!("{name}\n");
        }
        fs::write(dir.join("series"), series).unwrap();
        fs::copy(self.root.join("demo.config"), self.root.join("demo-kernel/demo.config")).unwrap();
    }

    fn prepare(&self) -> Result<Prepared, WorkbenchError> {
        let inputs = workbench::inputs::load(
            &self.root.join("linux.tar.xz"),
            &self.root.join("demo-kernel"),
            &[],
        )
        .unwrap();
        prepare(&inputs, &self.srctree())
    }

    fn srctree(&self) -> PathBuf {
        self.root.join("cache/srctree")
    }

    fn hello(&self) -> String {
        fs::read_to_string(self.srctree().join("hello.c")).unwrap()
    }
}

fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "srctree")
        .collect()
}

#[test]
fn prepared_once_then_up_to_date_then_again_when_a_patch_changes() {
    let fixture = Fixture::new(&[("0001-two.patch", patch("two", "int x = 1;", "int x = 2;"))]);
    assert_eq!(fixture.prepare().unwrap(), Prepared::Fresh);
    assert!(fixture.hello().contains("int x = 2;"));
    kbuild::Srctree::open(&fixture.srctree()).unwrap();

    assert_eq!(fixture.prepare().unwrap(), Prepared::UpToDate);

    fixture.set_patches(&[("0001-two.patch", patch("three", "int x = 1;", "int x = 3;"))]);
    assert_eq!(fixture.prepare().unwrap(), Prepared::Fresh);
    assert!(fixture.hello().contains("int x = 3;"));
    assert_eq!(leftovers(&fixture.root.join("cache")), Vec::<String>::new());
}

#[test]
fn a_patch_that_does_not_apply_names_itself_and_its_hunk_and_keeps_the_old_tree() {
    let fixture = Fixture::new(&[]);
    assert_eq!(fixture.prepare().unwrap(), Prepared::Fresh);
    let before = fixture.hello();

    fixture.set_patches(&[
        ("0001-two.patch", patch("two", "int x = 1;", "int x = 2;")),
        ("0002-stale.patch", patch("stale", "int x = 7;", "int x = 8;")),
    ]);
    let err = fixture.prepare().unwrap_err().to_string();
    assert!(err.starts_with("patch 0002-stale.patch does not apply to "), "{err}");
    assert!(err.contains("Hunk #1 FAILED at 1."), "{err}");
    assert!(err.contains("--- rejected hunks (hello.c.rej) ---"), "{err}");
    assert!(err.contains("-int x = 7;\n+int x = 8;"), "{err}");

    assert_eq!(fixture.hello(), before, "the previous srctree must stay as it was");
    assert_eq!(leftovers(&fixture.root.join("cache")), Vec::<String>::new());
}

#[test]
fn a_tree_we_did_not_make_is_never_replaced() {
    let fixture = Fixture::new(&[]);
    fs::create_dir_all(fixture.srctree()).unwrap();
    fs::write(fixture.srctree().join("precious.txt"), "user data").unwrap();
    let err = fixture.prepare().unwrap_err().to_string();
    assert!(err.ends_with("cache/srctree exists and was not prepared by the workbench: move it away, or point KERNEL_SRC/KERNEL_OBJ at it to use it as it is"), "{err}");
    assert_eq!(fs::read_to_string(fixture.srctree().join("precious.txt")).unwrap(), "user data");
}
