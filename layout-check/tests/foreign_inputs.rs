//! The `layout-check` binary on an ELF file that is no kernel: it fails saying it found no Rust
//! type to compare, rather than reporting 0 mismatches.

use std::time::Duration;

use subprocess::Command;
use subprocess::testing::{report, run, user_space_elf};

#[test]
fn an_image_without_rust_types_is_nothing_to_compare() {
    let dir = tempfile::tempdir().unwrap();
    let elf = user_space_elf(dir.path());
    for subcommand in ["check", "show"] {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_layout-check"), dir.path())
            .arg(subcommand)
            .timeout(Duration::from_secs(60));
        if subcommand == "show" {
            cmd = cmd.arg("task_struct");
        }
        let cmd = cmd.arg(&elf);
        let out = run(&cmd);
        assert_eq!(out.status.code(), Some(2), "{}", report(&cmd, &out));
        assert!(
            out.stderr.contains("no type of Rust's bindings or uapi crates in the DWARF of"),
            "{}",
            report(&cmd, &out)
        );
        assert_eq!(out.stdout, "", "{}", report(&cmd, &out));
    }
}
