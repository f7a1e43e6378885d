//! Module parameters of Rust modules (6.12's patches 0002-0004), booted in QEMU: the
//! `rust_module_parameters` sample loaded with and without arguments, its sysfs files read and
//! written, and invalid values refused while the kernel keeps running; and the unit tests of
//! `kernel::module_param`, run by `make rusttest`.

use std::time::Duration;

use demo_kernel::assert_step;

const SAMPLE: &str = "samples/rust/rust_module_parameters.ko";
const INSMOD: &str = "insmod /lib/modules/rust_module_parameters.ko";
const PARAMS: &str = "/sys/module/rust_module_parameters/parameters";

/// Every parameter as the sample prints it at init, in order.
fn printed(values: [&str; 9]) -> Vec<String> {
    let names = [
        "my_bool",
        "my_i8",
        "my_u8",
        "my_u64",
        "my_usize",
        "my_array",
        "my_hidden",
        "my_i32",
        "my_str",
    ];
    names.iter().zip(values).map(|(n, v)| format!("rust_module_parameters: {n}: {v}")).collect()
}

/// Every sysfs file of the sample, as `name=contents` lines (`my_hidden` has none: permissions 0).
fn sysfs(values: [&str; 8]) -> Vec<String> {
    let names = ["my_array", "my_bool", "my_i32", "my_i8", "my_str", "my_u64", "my_u8", "my_usize"];
    names.iter().zip(values).map(|(n, v)| format!("{n}={v}")).collect()
}

fn as_strs(lines: &[String]) -> Vec<&str> {
    lines.iter().map(String::as_str).collect()
}

#[test]
fn loadable_sample_takes_insmod_arguments_and_sysfs_writes() {
    let read_sysfs = format!("cd {PARAMS} && for f in *; do echo $f=$(cat $f); done");
    let with_args = format!("{INSMOD} my_i32=-5 my_bool=n my_str=hello my_array=1,2,3");
    let write = format!("echo 1234 > {PARAMS}/my_i32 && echo world > {PARAMS}/my_str");
    let (boot, _) = demo_kernel::boot(
        &[SAMPLE],
        "",
        &[
            INSMOD,
            &read_sysfs,
            "rmmod rust_module_parameters",
            &with_args,
            &read_sysfs,
            &write,
            &read_sysfs,
            "rmmod rust_module_parameters",
        ],
    );
    let steps = &boot.console.steps;

    let defaults = printed([
        "true",
        "-8",
        "8",
        "18446744073709551615",
        "4096",
        "[0, 1]",
        "7",
        "42",
        "default str val",
    ]);
    let mut expected = vec!["rust_module_parameters: Am I built-in? false".to_owned()];
    expected.extend(defaults);
    assert_step(&steps[0], 0, &as_strs(&expected));
    let files =
        sysfs(["0,1", "Y", "42", "-8", "default str val", "18446744073709551615", "8", "4096"]);
    assert_step(&steps[1], 0, &as_strs(&files));

    let given = printed([
        "false",
        "-8",
        "8",
        "18446744073709551615",
        "4096",
        "[1, 2, 3]",
        "7",
        "-5",
        "hello",
    ]);
    assert_step(&steps[3], 0, &as_strs(&given));
    let files = sysfs(["1,2,3", "N", "-5", "-8", "hello", "18446744073709551615", "8", "4096"]);
    assert_step(&steps[4], 0, &as_strs(&files));

    // Written through sysfs: read back through sysfs, and by the module itself at exit (with
    // the parameter lock held), without the newline `echo` added.
    assert_step(&steps[5], 0, &[]);
    let files = sysfs(["1,2,3", "N", "1234", "-8", "world", "18446744073709551615", "8", "4096"]);
    assert_step(&steps[6], 0, &as_strs(&files));
    assert_step(
        &steps[7],
        0,
        &[
            "rust_module_parameters: my_i32: 1234",
            "rust_module_parameters: my_str: world",
            "rust_module_parameters: Rust module parameters sample (exit)",
        ],
    );
}

#[test]
fn invalid_values_fail_insmod_with_einval_and_the_kernel_goes_on() {
    // Each case: the arguments, and the kernel's message naming the value and the parameter.
    let cases = [
        ("my_i32=abc", "rust_module_parameters: `abc' invalid for parameter `my_i32'"),
        ("my_array=1,2,3,4", "rust_module_parameters: `1,2,3,4' invalid for parameter `my_array'"),
        ("my_u8=256", "rust_module_parameters: `256' invalid for parameter `my_u8'"),
        ("my_i8=-129", "rust_module_parameters: `-129' invalid for parameter `my_i8'"),
        ("my_bool=maybe", "rust_module_parameters: `maybe' invalid for parameter `my_bool'"),
        ("my_array=1,x", "rust_module_parameters: `1,x' invalid for parameter `my_array'"),
    ];
    let mut steps: Vec<String> = cases.iter().map(|(args, _)| format!("{INSMOD} {args}")).collect();
    // Afterwards the module still loads, with a bool given as just its name, and unloads.
    steps.push(format!("{INSMOD} my_bool my_u8=255 my_i8=-128"));
    steps.push(format!("cat {PARAMS}/my_bool {PARAMS}/my_u8 {PARAMS}/my_i8"));
    steps.push("rmmod rust_module_parameters".to_owned());
    let (boot, _) = demo_kernel::boot(&[SAMPLE], "", &as_strs(&steps));
    let out = &boot.console.steps;

    for (i, (_, message)) in cases.iter().enumerate() {
        // busybox's insmod exits with 22 (EINVAL) after `can't insert ...: Invalid argument`.
        assert_step(
            &out[i],
            22,
            &[
                message,
                "insmod: can't insert '/lib/modules/rust_module_parameters.ko': Invalid argument",
            ],
        );
        assert!(!out[i].contains("(init)"), "the module's init ran: {:#?}", out[i].lines);
    }
    let n = cases.len();
    assert_step(
        &out[n],
        0,
        &[
            "rust_module_parameters: my_bool: true",
            "rust_module_parameters: my_i8: -128",
            "rust_module_parameters: my_u8: 255",
        ],
    );
    assert_step(&out[n + 1], 0, &["Y", "255", "-128"]);
    assert_step(&out[n + 2], 0, &["rust_module_parameters: Rust module parameters sample (exit)"]);
    assert!(boot.console.panic.is_none(), "{:?}", boot.console.panic);
}

/// The built-in variant: `rust_long_symbols` (patch 0005, built in by the demo config) takes its
/// `trigger` parameter from the kernel command line, and shows it in sysfs.
#[test]
fn built_in_code_takes_parameters_from_the_kernel_command_line() {
    let read = "cat /sys/module/rust_long_symbols/parameters/trigger";
    let (boot, _) = demo_kernel::boot(&[], "", &[read]);
    assert_step(&boot.console.steps[0], 0, &["none"]);

    // A value the sample does not know: its init fails and says why, and sysfs holds the value.
    let (boot, log) = demo_kernel::boot(&[], "rust_long_symbols.trigger=bogus", &[read]);
    assert_step(&boot.console.steps[0], 0, &["bogus"]);
    assert!(
        log.lines().any(|l| l == "rust_long_symbols: trigger must be none, null or panic"),
        "no message from the sample's init:\n{log}"
    );
}

/// Mistakes in `params` are build errors that say what is wrong (patch 0003): an out-of-tree
/// module is built with each, and the build fails with the macro's message.
#[test]
fn malformed_params_fail_the_build_with_a_clear_message() {
    let kernel = demo_kernel::kernel();
    let cases = [
        (
            "world_writable: i32 { default: 1, permissions: 0o666, description: \"d\", },",
            "Permissions of `world_writable` must be at most 0o775: parameters cannot be world-writable",
        ),
        (
            "decimal_permissions: i32 { default: 1, permissions: 644, description: \"d\", },",
            "Permissions of `decimal_permissions` must be an octal literal such as `0o644` or `0`",
        ),
        (
            "a_float: f32 { default: 1.0, permissions: 0, description: \"d\", },",
            "Unsupported parameter type `f32`",
        ),
        (
            "a_reference: &str { default: \"\", permissions: 0, description: \"d\", },",
            "Expected the type of a parameter, such as `i32`",
        ),
        (
            "too_many: ArrayParam<u8, 2> { default: [1, 2, 3], permissions: 0, description: \"d\", },",
            "more default values than the array parameter holds",
        ),
        (
            "no_description: i32 { default: 1, permissions: 0, },",
            "Expected `description:` in `no_description` (fields: default, permissions, description)",
        ),
    ];
    for (param, message) in cases {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("Kbuild"), "obj-m := bad_params.o\n").unwrap();
        let source = format!(
            "// SPDX-License-Identifier: GPL-2.0\n\n//! A module with a malformed parameter.\n\n\
             use kernel::prelude::*;\n\n\
             module! {{\n    type: BadParams,\n    name: \"bad_params\",\n    license: \"GPL\",\n    \
             params: {{\n        {param}\n    }},\n}}\n\n\
             struct BadParams;\n\n\
             impl kernel::Module for BadParams {{\n    \
             fn init(_module: &'static ThisModule) -> Result<Self> {{\n        Ok(BadParams)\n    }}\n}}\n"
        );
        std::fs::write(dir.path().join("bad_params.rs"), source).unwrap();
        let out = kbuild::make::kernel_make(&kernel.srctree, &kernel.objtree)
            .arg(format!("M={}", dir.path().display()))
            .arg("modules")
            .timeout(std::time::Duration::from_secs(300))
            .run()
            .unwrap();
        let stderr = &out.stderr;
        assert!(!out.success(), "{param}: the build succeeded");
        assert!(stderr.contains(message), "{param}: no {message:?} in:\n{stderr}");
    }
}

#[test]
fn module_param_unit_tests_pass_in_make_rusttest() {
    let kernel = demo_kernel::kernel();
    // `rust_test_quiet=` makes the test binaries list each test.
    let out = kbuild::make::kernel_make(&kernel.srctree, &kernel.objtree)
        .args(["rusttest", "rust_test_quiet="])
        .timeout(Duration::from_secs(600))
        .run_checked()
        .unwrap_or_else(|e| panic!("{e}"));
    let text = &out.stdout;
    for test in [
        "parse_int_accepts_what_kstrtoint_accepts",
        "parse_int_rejects_what_kstrtoint_rejects",
        "parse_int_rejects_out_of_range",
        "parse_bool_as_kstrtobool",
        "array_parses_up_to_its_length",
        "values_format_as_c_prints_them",
    ] {
        let line = format!("test module_param::tests::{test} ... ok");
        assert!(text.contains(&line), "missing {line:?} in:\n{text}");
    }
    assert!(!text.contains("FAILED"), "{text}");
}
