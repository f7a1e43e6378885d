//! Trees laid out in temporary directories, one shortfall at a time.

use std::fs;
use std::path::Path;

use super::*;

const MAKEFILE: &str = "# SPDX-License-Identifier: GPL-2.0\nVERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 118\nEXTRAVERSION =\nNAME = Baby Opossum Posse\n";

fn write(path: &Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

fn srctree(dir: &Path) -> Srctree {
    write(&dir.join("Makefile"), MAKEFILE);
    write(&dir.join("Kbuild"), "");
    fs::create_dir_all(dir.join("rust/kernel")).unwrap();
    Srctree::open(dir).unwrap()
}

fn message(dir: &Path, err: TreeError) -> String {
    err.to_string().replace(&dir.display().to_string(), "$DIR")
}

#[test]
fn version_from_makefile() {
    let v = KernelVersion::from_makefile(MAKEFILE).unwrap();
    assert_eq!(v.to_string(), "6.12.118");
    let rc = KernelVersion::from_makefile(
        "VERSION = 6\nPATCHLEVEL = 13\nSUBLEVEL = 0\nEXTRAVERSION = -rc1\n",
    );
    assert_eq!(rc.unwrap().to_string(), "6.13.0-rc1");
    assert_eq!(KernelVersion::from_makefile("all:\n\techo hi\n"), None);
}

#[test]
fn not_a_kernel_tree() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("Makefile"), "all:\n");
    let err = Srctree::open(dir.path()).unwrap_err();
    assert_eq!(
        message(dir.path(), err),
        "$DIR is not a kernel source tree (no top-level Makefile with VERSION, PATCHLEVEL and SUBLEVEL, or no Kbuild): point KERNEL_SRC at the top of a Linux tree"
    );
    let err = Srctree::open(&dir.path().join("nope")).unwrap_err();
    assert_eq!(message(dir.path(), err), "$DIR/nope: no such directory");
}

#[test]
fn kernel_without_rust() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("Makefile"), &MAKEFILE.replace("PATCHLEVEL = 12", "PATCHLEVEL = 0"));
    write(&dir.path().join("Kbuild"), "");
    let err = Srctree::open(dir.path()).unwrap_err();
    assert_eq!(
        message(dir.path(), err),
        "$DIR (Linux 6.0.118) has no rust/ directory: Rust support needs Linux 6.1 or later, and this suite is built against 6.12"
    );
}

#[test]
fn objtree_not_configured_then_without_rust_then_not_built() {
    let dir = tempfile::tempdir().unwrap();
    let src = srctree(&dir.path().join("src"));
    let obj = dir.path().join("obj");
    fs::create_dir_all(&obj).unwrap();

    let err = Objtree::open(&src, &obj).unwrap_err();
    assert_eq!(
        message(dir.path(), err),
        "$DIR/obj is not configured (no .config): configure it with `make -C $DIR/src O=$DIR/obj defconfig`, enable CONFIG_RUST, then build it"
    );

    write(&obj.join(".config"), "# CONFIG_RUST is not set\nCONFIG_MODULES=y\n");
    let err = Objtree::open(&src, &obj).unwrap_err();
    assert_eq!(
        message(dir.path(), err),
        "$DIR/obj/.config does not enable CONFIG_RUST: check the toolchain with `make -C $DIR/src O=$DIR/obj rustavailable`, enable \"Rust support\" (General setup) in `make O=$DIR/obj menuconfig`, then rebuild"
    );

    write(&obj.join(".config"), "CONFIG_RUST=y\nCONFIG_RISCV=y\n");
    let tree = Objtree::open(&src, &obj).unwrap();
    let err = tree.built(&src).unwrap_err();
    assert_eq!(
        message(dir.path(), err),
        "$DIR/obj/.config is of an architecture the suite does not know (it enables none of the Kconfig symbols of arm64, x86_64): add a folder for it to demo-kernel/arch/"
    );

    write(&obj.join(".config"), "CONFIG_RUST=y\nCONFIG_ARM64=y\n");
    let tree = Objtree::open(&src, &obj).unwrap();
    let err = tree.built(&src).unwrap_err();
    assert_eq!(
        message(dir.path(), err),
        "$DIR/obj is configured but not built ($DIR/obj/vmlinux is missing): build it with `make -C $DIR/src O=$DIR/obj -j$(nproc)`"
    );

    write(&obj.join("vmlinux"), "");
    write(&obj.join("arch/arm64/boot/Image"), "");
    let built = tree.built(&src).unwrap();
    assert_eq!(built.image, obj.join("arch/arm64/boot/Image"));
    assert_eq!(built.arch.name, "arm64");
}

#[test]
fn bad_config_names_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let src = srctree(&dir.path().join("src"));
    write(&dir.path().join("src/.config"), "CONFIG_RUST=y\ngarbage\n");
    let err = Objtree::open(&src, &dir.path().join("src")).unwrap_err();
    assert_eq!(
        message(dir.path(), err),
        "$DIR/src/.config: line 2: expected `CONFIG_NAME=value`: `garbage`"
    );
}
