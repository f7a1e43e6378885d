//! The Rust drivers of the wide tree (`demo-kernel/VERSION/wide.config`: every Rust driver of
//! the kernel that builds on the architecture), booted in QEMU as far as QEMU's machine lets
//! them run: rnull serving I/O, binder's devices in binderfs, the PHY drivers registered, and
//! every module kbuild built (the Rust drivers and samples, and the few C ones it builds too)
//! loading and unloading.
//!
//! Not part of `cargo test --workspace` (`test = false`): `make test-wide` builds the wide tree
//! and runs the tests its demo kernel's `WIDE_TESTS` names (6.12 has no binder).

use std::path::{Path, PathBuf};

use demo_kernel::{Kernel, assert_step, kernel};
use object::{Object, ObjectSection};

/// Fails unless the tree enables each of `options` (so that no test passes having checked
/// nothing on a tree without the driver).
fn require(kernel: &Kernel, options: &[&str]) {
    let missing: Vec<&&str> = options.iter().filter(|o| !kernel.config.is_enabled(o)).collect();
    assert!(
        missing.is_empty(),
        "{}/.config does not enable {missing:?}: these tests run against the wide tree (`make test-wide`)",
        kernel.objtree.display()
    );
}

/// rnull, the Rust null block driver: a device made through configfs where the driver has it
/// (7.3: one with completions in the submitting context, one with soft-IRQ completions), else
/// the one it makes at boot (6.12's `rnullb0`); each reports its size and serves reads and
/// writes of whole blocks.
#[test]
fn rnull_serves_reads_and_writes() {
    let kernel = kernel();
    require(&kernel, &["BLK_DEV_RUST_NULL"]);
    let configfs = kernel.srctree.join("drivers/block/rnull/configfs.rs").is_file();
    let mut steps: Vec<String> = Vec::new();
    let disks: Vec<&str> = if configfs {
        require(&kernel, &["CONFIGFS_FS"]);
        steps.push("mount -t configfs none /sys/kernel/config".into());
        for (disk, irqmode) in [("rnull_a", 0), ("rnull_b", 1)] {
            let dir = format!("/sys/kernel/config/rnull/{disk}");
            steps.push(format!(
                "mkdir {dir} && echo 16 > {dir}/size && echo 512 > {dir}/blocksize && echo {irqmode} > {dir}/irqmode && echo 1 > {dir}/power && cat {dir}/power"
            ));
        }
        vec!["rnull_a", "rnull_b"]
    } else {
        vec!["rnullb0"]
    };
    for disk in &disks {
        steps
            .push(format!("cat /sys/block/{disk}/size /sys/block/{disk}/queue/logical_block_size"));
        steps.push(format!(
            "dd if=/dev/urandom of=/dev/{disk} bs=4096 count=64 && dd if=/dev/{disk} of=/dev/null bs=4096 count=64"
        ));
    }
    if configfs {
        for disk in &disks {
            let dir = format!("/sys/kernel/config/rnull/{disk}");
            steps.push(format!(
                "echo 0 > {dir}/power && rmdir {dir} && test ! -e /sys/block/{disk}"
            ));
        }
    }
    let steps: Vec<&str> = steps.iter().map(String::as_str).collect();
    let (boot, _) = demo_kernel::boot(&[], "", &steps);
    let out = &boot.console.steps;
    let mut at = 0;
    if configfs {
        assert_step(&out[0], 0, &[]);
        assert_step(&out[1], 0, &["1"]);
        assert_step(&out[2], 0, &["1"]);
        at = 3;
    }
    // 16 MiB in 512-byte sectors for the ones made here; 6.12's is 4 GiB.
    let (sectors, block) = if configfs { ("32768", "512") } else { ("8388608", "4096") };
    for _ in &disks {
        assert_step(&out[at], 0, &[sectors, block]);
        assert_step(&out[at + 1], 0, &["64+0 records in", "64+0 records out", "64+0 records in"]);
        at += 2;
    }
    for step in &out[at..] {
        assert_step(step, 0, &[]);
    }
    assert_eq!(out.len(), steps.len());
}

/// Rust binder: binderfs mounts, with the devices `CONFIG_ANDROID_BINDER_DEVICES` names, its
/// control device, its features and (with `stats=global`) its logs, and a process can open a
/// binder device.
#[test]
fn binder_devices_come_up_in_binderfs() {
    let kernel = kernel();
    require(&kernel, &["ANDROID_BINDER_IPC_RUST"]);
    let (boot, _) = demo_kernel::boot(
        &[],
        "",
        &[
            "mkdir /dev/binderfs && mount -t binder -o stats=global binder /dev/binderfs && ls /dev/binderfs",
            "ls /dev/binderfs/binder_logs",
            "cat /dev/binderfs/binder_logs/state",
            "exec 3</dev/binderfs/binder && echo opened",
        ],
    );
    let out = &boot.console.steps;
    let devices = ["binder", "binder-control", "binder_logs", "features", "hwbinder", "vndbinder"];
    assert_step(&out[0], 0, &devices);
    assert_step(&out[1], 0, &["proc", "state", "stats", "transactions"]);
    assert_step(&out[2], 0, &["binder state:"]);
    assert_step(&out[3], 0, &["opened"]);
}

/// The Rust PHY drivers are registered on the MDIO bus under their Rust names.
#[test]
fn phy_drivers_are_registered() {
    let kernel = kernel();
    require(&kernel, &["AX88796B_RUST_PHY", "AMCC_QT2025_PHY"]);
    let (boot, _) = demo_kernel::boot(&[], "", &["ls -1 /sys/bus/mdio_bus/drivers"]);
    assert_step(
        &boot.console.steps[0],
        0,
        &[
            "Asix Electronics AX88772A",
            "Asix Electronics AX88772C",
            "Asix Electronics AX88796B",
            "QT2025 10Gpbs SFP+",
        ],
    );
}

/// A module kbuild built: its name (`nova_core`), its file (`.../nova-core.ko`) and the modules
/// it needs (its `.modinfo`'s `depends=`).
struct Module {
    name: String,
    ko: PathBuf,
    depends: Vec<String>,
}

/// The modules kbuild built (`modules.order`), in an order that loads what a module needs
/// before it.
fn modules_in_load_order(objtree: &Path) -> Vec<Module> {
    let mut pending: Vec<Module> = kbuild::built_modules(objtree)
        .into_iter()
        .map(|ko| {
            let name = ko.file_stem().unwrap().to_string_lossy().replace('-', "_");
            let bytes = std::fs::read(&ko).unwrap_or_else(|e| panic!("{}: {e}", ko.display()));
            let file = object::File::parse(&*bytes).unwrap();
            let modinfo = file.section_by_name(".modinfo").unwrap().data().unwrap().to_vec();
            let depends = modinfo
                .split(|&b| b == 0)
                .filter_map(|entry| entry.strip_prefix(b"depends="))
                .flat_map(|list| {
                    let list = String::from_utf8_lossy(list).into_owned();
                    list.split(',').map(str::to_owned).collect::<Vec<_>>()
                })
                .filter(|d| !d.is_empty())
                .collect();
            Module { name, ko, depends }
        })
        .collect();
    let mut ordered: Vec<Module> = Vec::new();
    while !pending.is_empty() {
        let ready = pending
            .iter()
            .position(|m| m.depends.iter().all(|d| ordered.iter().any(|o| &o.name == d)))
            .unwrap_or_else(|| {
                let names: Vec<(&String, &Vec<String>)> =
                    pending.iter().map(|m| (&m.name, &m.depends)).collect();
                panic!("modules whose dependencies are not built: {names:?}")
            });
        ordered.push(pending.remove(ready));
    }
    ordered
}

/// Every module kbuild built loads, then unloads, in QEMU: the drivers of hardware QEMU's
/// machine lacks register and wait for a device.
#[test]
fn every_module_loads_and_unloads() {
    let kernel = kernel();
    // A wide tree (7.3's builds its hardware drivers and samples as modules; 6.12's has only
    // the demo's samples to load).
    require(&kernel, &["BLK_DEV_RUST_NULL", "MODULES"]);
    let modules = modules_in_load_order(&kernel.objtree);
    assert!(!modules.is_empty(), "{}: no module built", kernel.objtree.display());
    let file = |m: &Module| m.ko.file_name().unwrap().to_string_lossy().into_owned();
    let mut steps: Vec<String> =
        modules.iter().map(|m| format!("insmod /lib/modules/{}", file(m))).collect();
    steps.extend(modules.iter().rev().map(|m| format!("rmmod {}", m.name)));
    steps.push("cat /proc/modules | wc -l".into());
    let paths: Vec<String> = modules
        .iter()
        .map(|m| m.ko.strip_prefix(&kernel.objtree).unwrap().display().to_string())
        .collect();
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    let steps: Vec<&str> = steps.iter().map(String::as_str).collect();
    let (boot, _) = demo_kernel::boot(&paths, "", &steps);
    let out = &boot.console.steps;
    let failed: Vec<String> = out
        .iter()
        .filter(|s| s.exit_code != Some(0))
        .map(|s| format!("{}: exit {:?}: {}", steps[s.index], s.exit_code, s.lines.join(" | ")))
        .collect();
    let names: Vec<&String> = modules.iter().map(|m| &m.name).collect();
    assert!(
        failed.is_empty(),
        "{} of {} steps failed, with the modules {names:?}:\n{}",
        failed.len(),
        steps.len(),
        failed.join("\n")
    );
    assert_eq!(out.len(), steps.len());
    assert_step(&out[steps.len() - 1], 0, &["0"]);
}
