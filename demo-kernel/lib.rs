//! Test support for the demo kernel's patch series: the built tree that `make test` provides,
//! and boots of it in QEMU with a list of shell steps.
//!
//! The kernel code itself lives in `VERSION/patches/` (each demo kernel's series, applied to its
//! Debian source package: `6.12/`, `7.3/`) and `modules/` (out-of-tree modules, one source for
//! every version); the tests are in `tests/`.

use std::path::PathBuf;
use std::time::Duration;

use qemu::{Boot, Guest, StepOutput};

/// The demo tree that `make test` built.
pub struct Kernel {
    /// The source tree, patched.
    pub srctree: PathBuf,
    /// The build tree.
    pub objtree: PathBuf,
    /// What the build produced: vmlinux, the image and its architecture.
    pub built: kbuild::Built,
    /// Its `.config`.
    pub config: kbuild::Config,
}

/// The demo tree from `KERNEL_SRC` and `KERNEL_OBJ`, checked to be built.
///
/// # Panics
///
/// If they are not set or the tree is not built, with a message saying to run `make test`.
pub fn kernel() -> Kernel {
    let tree = kbuild::testing::demo_tree();
    Kernel {
        srctree: tree.srctree.path,
        objtree: tree.objtree.path,
        built: tree.built,
        config: tree.objtree.config,
    }
}

/// The folder of the demo kernel `make test` runs against (`DEMO_KERNEL`, `demo-kernel/6.12`):
/// its `kernel.conf`, `demo.config` and `patches/`.
///
/// # Panics
///
/// If `DEMO_KERNEL` is not set, with a message saying to run `make test`.
pub fn demo_kernel_dir() -> PathBuf {
    kbuild::testing::env_path("DEMO_KERNEL")
}

/// Boots the demo kernel with `modules` (paths in the build tree) in `/lib/modules`, the
/// kernel command line `append`, and `steps` for `/init`; fails unless the boot completes.
/// Returns the boot and its whole console log.
pub fn boot(modules: &[&str], append: &str, steps: &[&str]) -> (Boot, String) {
    let kernel = kernel();
    let dir = tempfile::tempdir().unwrap();
    let guest = Guest {
        busybox: qemu::guest_busybox(&kernel.built.arch),
        modules: modules.iter().map(|m| kernel.objtree.join(m)).collect(),
        steps: steps.iter().map(|s| s.to_string()).collect(),
    };
    let configure = |config: &mut qemu::BootConfig| {
        config.append = append.to_owned();
        config.timeout = Duration::from_secs(120);
    };
    let built = &kernel.built;
    let boot =
        qemu::boot_guest(&built.arch, &built.image, &guest, dir.path(), configure, &mut |_| {})
            .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(boot.outcome(), qemu::Outcome::Completed, "{}", boot.transcript(&guest.steps, "  "));
    let log = std::fs::read_to_string(&boot.log).unwrap_or_else(|e| panic!("{e}"));
    (boot, log)
}

/// Asserts that `step` exited with `code` and printed `expected` in this order (other lines,
/// such as unrelated kernel messages, may come in between).
pub fn assert_step(step: &StepOutput, code: i32, expected: &[&str]) {
    let shown = || format!("step {} printed:\n  {}", step.index, step.lines.join("\n  "));
    assert_eq!(step.exit_code, Some(code), "{}", shown());
    let mut lines = step.lines.iter();
    for want in expected {
        assert!(lines.any(|l| l == want), "missing or out of order: {want:?}\n{}", shown());
    }
}
