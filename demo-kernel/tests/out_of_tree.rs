//! The out-of-tree module (`demo-kernel/modules/rust_out_of_tree`), one source for every demo
//! kernel, booted in QEMU: its parameters, written in mainline's `params:` syntax and read with
//! `module_parameters::name.value()`, take their defaults and `insmod` arguments on each version
//! (6.12 through its demo series, 7.3 upstream).

use demo_kernel::assert_step;
use qemu::StepOutput;

/// Asserts that `step` succeeded and that the module printed `lines`, in order.
fn assert_printed(step: &StepOutput, lines: &[&str]) {
    let lines: Vec<String> = lines.iter().map(|l| format!("rust_out_of_tree: {l}")).collect();
    assert_step(step, 0, &lines.iter().map(String::as_str).collect::<Vec<_>>());
}

#[test]
fn out_of_tree_module_reads_mainline_style_parameters() {
    let ko = kbuild::testing::env_path("EXTMOD_DIR").join("rust_out_of_tree/rust_out_of_tree.ko");
    let insmod = "insmod /lib/modules/rust_out_of_tree.ko";
    let with_args = format!("{insmod} greetings=2 shout=y");
    let (boot, _) = demo_kernel::boot(
        &[ko.to_str().unwrap()],
        "",
        &[insmod, "rmmod rust_out_of_tree", &with_args, "rmmod rust_out_of_tree"],
    );
    let steps = &boot.console.steps;
    assert_printed(&steps[0], &["Rust out-of-tree sample (init)", "greetings: 3, shout: false"]);
    assert_printed(
        &steps[1],
        &[
            "Greetings: [\"hello\", \"from\", \"outside the tree\"]",
            "Rust out-of-tree sample (exit)",
        ],
    );
    assert_printed(&steps[2], &["greetings: 2, shout: true"]);
    assert_printed(&steps[3], &["Greetings: [\"HELLO\", \"FROM\"]"]);
}
