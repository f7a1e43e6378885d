//! The QEMU runner: the only code in the suite that starts QEMU.
//!
//! [`initramfs`] packs busybox, the modules to load and a generated `/init` that runs a list of
//! shell steps between markers and then reboots. [`boot`] starts QEMU's machine of the kernel's
//! architecture (`qemu-system-x86_64`, `qemu-system-aarch64 -M virt`) on a kernel and that
//! initramfs, streams and logs the serial console, and enforces a hard timeout.
//! [`console`] reads the console back into a structured result: whether `/init` was reached,
//! each step's output and exit code, whether the kernel panicked.

pub mod boot;
pub mod console;
pub mod initramfs;

pub use boot::{
    Accel, Boot, BootConfig, BootError, Outcome, boot, boot_guest, foreign_busybox, guest_busybox,
};
pub use console::{Console, StepOutput, parse_console};
pub use initramfs::{Guest, InitramfsError, init_script, write_initramfs};
