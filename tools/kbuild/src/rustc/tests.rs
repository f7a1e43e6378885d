//! rustc invocations from real `.cmd` lines of the demo kernel (6.12.118, paths shortened).

use expect_test::{Expect, expect};

use super::*;

fn check(cmd_file: &str, expect: Expect) {
    let cmd = parse_cmd_file(cmd_file).expect("a savedcmd line");
    let actual = match find_rustc(&cmd.command) {
        Ok(Some(inv)) => format!("target: {}\nsource: {:?}\n{inv:#?}\n", cmd.target, cmd.source),
        Ok(None) => format!("target: {}\nnot rustc\n", cmd.target),
        Err(e) => format!("target: {}\nerror: {e}\n", cmd.target),
    };
    expect.assert_eq(&actual);
}

#[test]
fn kernel_crate() {
    check(
        "savedcmd_rust/kernel.o := OBJTREE=/obj rustc --edition=2021 -Zbinary_dep_depinfo=y \
         -Astable_features -Cpanic=abort --target=./scripts/target.json -Copt-level=s \
         @./include/generated/rustc_cfg --extern ffi --extern build_error --extern macros \
         --extern bindings --extern uapi --emit=dep-info=rust/.kernel.o.d --emit=obj=rust/kernel.o \
         --emit=metadata=rust/libkernel.rmeta --crate-type rlib -L./rust --crate-name kernel \
         /src/rust/kernel/lib.rs --sysroot=/dev/null -Zunstable-options  \n\n\
         source_rust/kernel.o := /src/rust/kernel/lib.rs\n\n\
         deps_rust/kernel.o := \\\n  /src/rust/kernel/alloc.rs \\\n",
        expect![[r#"
            target: rust/kernel.o
            source: Some("/src/rust/kernel/lib.rs")
            RustcInvocation {
                env: {
                    "OBJTREE": "/obj",
                },
                crate_name: "kernel",
                crate_name_given: true,
                crate_type: "rlib",
                edition: "2021",
                root: "/src/rust/kernel/lib.rs",
                cfgs: [],
                response_files: [
                    "./include/generated/rustc_cfg",
                ],
                externs: [
                    "ffi",
                    "build_error",
                    "macros",
                    "bindings",
                    "uapi",
                ],
                crate_attrs: [],
                test: false,
                cap_lints: None,
                target: Some(
                    "./scripts/target.json",
                ),
                emits: [
                    (
                        "dep-info",
                        "rust/.kernel.o.d",
                    ),
                    (
                        "obj",
                        "rust/kernel.o",
                    ),
                    (
                        "metadata",
                        "rust/libkernel.rmeta",
                    ),
                ],
                args: [
                    "--edition=2021",
                    "-Zbinary_dep_depinfo=y",
                    "-Astable_features",
                    "-Cpanic=abort",
                    "--target=./scripts/target.json",
                    "-Copt-level=s",
                    "@./include/generated/rustc_cfg",
                    "--extern",
                    "ffi",
                    "--extern",
                    "build_error",
                    "--extern",
                    "macros",
                    "--extern",
                    "bindings",
                    "--extern",
                    "uapi",
                    "--emit=dep-info=rust/.kernel.o.d",
                    "--emit=obj=rust/kernel.o",
                    "--emit=metadata=rust/libkernel.rmeta",
                    "--crate-type",
                    "rlib",
                    "-L./rust",
                    "--crate-name",
                    "kernel",
                    "/src/rust/kernel/lib.rs",
                    "--sysroot=/dev/null",
                    "-Zunstable-options",
                ],
            }
        "#]],
    );
}

#[test]
fn sample_module_with_crate_attrs_and_objtool_after() {
    check(
        "savedcmd_samples/rust/rust_minimal.o := RUST_MODFILE=samples/rust/rust_minimal rustc \
         --edition=2021 --target=./scripts/target.json  --cfg MODULE  @./include/generated/rustc_cfg \
         -Zallow-features=arbitrary_self_types,lint_reasons -Zcrate-attr=no_std \
         -Zcrate-attr='feature(arbitrary_self_types,lint_reasons)' -Zunstable-options --extern kernel \
         --crate-type rlib -L ./rust/ --crate-name rust_minimal --sysroot=/dev/null \
         --out-dir samples/rust/ --emit=obj=samples/rust/rust_minimal.o /src/samples/rust/rust_minimal.rs  ; \
         ./tools/objtool/objtool --hacks=jump_label --link  --module samples/rust/rust_minimal.o\n",
        expect![[r#"
            target: samples/rust/rust_minimal.o
            source: None
            RustcInvocation {
                env: {
                    "RUST_MODFILE": "samples/rust/rust_minimal",
                },
                crate_name: "rust_minimal",
                crate_name_given: true,
                crate_type: "rlib",
                edition: "2021",
                root: "/src/samples/rust/rust_minimal.rs",
                cfgs: [
                    "MODULE",
                ],
                response_files: [
                    "./include/generated/rustc_cfg",
                ],
                externs: [
                    "kernel",
                ],
                crate_attrs: [
                    "no_std",
                    "feature(arbitrary_self_types,lint_reasons)",
                ],
                test: false,
                cap_lints: None,
                target: Some(
                    "./scripts/target.json",
                ),
                emits: [
                    (
                        "obj",
                        "samples/rust/rust_minimal.o",
                    ),
                ],
                args: [
                    "--edition=2021",
                    "--target=./scripts/target.json",
                    "--cfg",
                    "MODULE",
                    "@./include/generated/rustc_cfg",
                    "-Zallow-features=arbitrary_self_types,lint_reasons",
                    "-Zcrate-attr=no_std",
                    "-Zcrate-attr=feature(arbitrary_self_types,lint_reasons)",
                    "-Zunstable-options",
                    "--extern",
                    "kernel",
                    "--crate-type",
                    "rlib",
                    "-L",
                    "./rust/",
                    "--crate-name",
                    "rust_minimal",
                    "--sysroot=/dev/null",
                    "--out-dir",
                    "samples/rust/",
                    "--emit=obj=samples/rust/rust_minimal.o",
                    "/src/samples/rust/rust_minimal.rs",
                ],
            }
        "#]],
    );
}

#[test]
fn host_proc_macro() {
    check(
        "savedcmd_rust/libmacros.so := rustc --edition=2021 -Clinker-flavor=gcc -Clinker=gcc \
         -Clink-args=' ' --emit=dep-info=rust/.libmacros.so.d --emit=link=rust/libmacros.so \
         --extern proc_macro --crate-type proc-macro --crate-name macros /src/rust/macros/lib.rs\n",
        expect![[r#"
            target: rust/libmacros.so
            source: None
            RustcInvocation {
                env: {},
                crate_name: "macros",
                crate_name_given: true,
                crate_type: "proc-macro",
                edition: "2021",
                root: "/src/rust/macros/lib.rs",
                cfgs: [],
                response_files: [],
                externs: [
                    "proc_macro",
                ],
                crate_attrs: [],
                test: false,
                cap_lints: None,
                target: None,
                emits: [
                    (
                        "dep-info",
                        "rust/.libmacros.so.d",
                    ),
                    (
                        "link",
                        "rust/libmacros.so",
                    ),
                ],
                args: [
                    "--edition=2021",
                    "-Clinker-flavor=gcc",
                    "-Clinker=gcc",
                    "-Clink-args= ",
                    "--emit=dep-info=rust/.libmacros.so.d",
                    "--emit=link=rust/libmacros.so",
                    "--extern",
                    "proc_macro",
                    "--crate-type",
                    "proc-macro",
                    "--crate-name",
                    "macros",
                    "/src/rust/macros/lib.rs",
                ],
            }
        "#]],
    );
}

#[test]
fn host_program_takes_its_crate_name_from_the_root() {
    let cmd = "rustc --out-dir scripts/ --edition=2021 \
               -Clink-args=' ' -o scripts/generate_rust_target /src/scripts/generate-rust_target.rs";
    let inv = find_rustc(cmd).unwrap().unwrap();
    assert_eq!(inv.crate_name, "generate_rust_target");
    assert_eq!(inv.crate_type, "bin");
    assert_eq!(inv.target, None);
}

/// Without `--crate-name`, the root's `#![crate_name]` names the crate, as for rustc (binder);
/// `--crate-name` wins over it.
#[test]
fn a_roots_crate_name_attribute_names_the_crate() {
    let root = "// SPDX-License-Identifier: GPL-2.0\n\n//! Binder.\n#![crate_name = \"rust_binder\"]\n#![recursion_limit = \"256\"]\n\nuse kernel::prelude::*;\n";
    let cmd = "rustc --edition=2021 --emit=obj=drivers/android/binder/rust_binder_main.o \
               /src/drivers/android/binder/rust_binder_main.rs";
    let mut inv = find_rustc(cmd).unwrap().unwrap();
    assert_eq!(inv.crate_name, "rust_binder_main");
    inv.name_crate_from_root(root);
    assert_eq!(inv.crate_name, "rust_binder");
    let mut named = find_rustc(&format!("{cmd} --crate-name=other")).unwrap().unwrap();
    named.name_crate_from_root(root);
    assert_eq!(named.crate_name, "other");
    for (text, name) in [
        ("#![no_std]\n#![crate_name=\"a\"]\n", Some("a")),
        ("/* */\n", None),
        ("use x;\n#![crate_name = \"late\"]\n", None),
        ("#![crate_name = \"\"]\n", None),
        ("#![crate_type = \"lib\"]\n", None),
    ] {
        assert_eq!(crate_name_attribute(text), name, "{text:?}");
    }
}

#[test]
fn c_objects_are_not_rustc() {
    check(
        "savedcmd_init/main.o := gcc -Wp,-MMD,init/.main.o.d -nostdinc -c -o init/main.o init/main.c\n",
        expect![[r#"
            target: init/main.o
            not rustc
        "#]],
    );
}

#[test]
fn rustc_as_another_commands_word_is_not_rustc() {
    check(
        "savedcmd_rust/exports.o := gcc -c -o rust/exports.o rust/exports.c ; echo rustc\n",
        expect![[r#"
            target: rust/exports.o
            not rustc
        "#]],
    );
}

#[test]
fn bad_invocations_are_named() {
    check(
        "savedcmd_x.o := rustc --crate-name x\n",
        expect![[r#"
        target: x.o
        error: rustc invocation without a single .rs crate root (found [])
    "#]],
    );
    check(
        "savedcmd_x.o := rustc .rs\n",
        expect![[r#"
        target: x.o
        error: rustc invocation without a crate name
    "#]],
    );
    check(
        "savedcmd_x.o := rustc --crate-name x a.rs @missing\n",
        expect![[r#"
            target: x.o
            source: None
            RustcInvocation {
                env: {},
                crate_name: "x",
                crate_name_given: true,
                crate_type: "bin",
                edition: "2015",
                root: "a.rs",
                cfgs: [],
                response_files: [
                    "missing",
                ],
                externs: [],
                crate_attrs: [],
                test: false,
                cap_lints: None,
                target: None,
                emits: [],
                args: [
                    "--crate-name",
                    "x",
                    "a.rs",
                    "@missing",
                ],
            }
        "#]],
    );
    check(
        "savedcmd_x.o := rustc --crate-name 'x a.rs\n",
        expect![[r#"
        target: x.o
        error: unterminated single quote
    "#]],
    );
    check(
        "savedcmd_x.o := rustc a.rs --crate-name\n",
        expect![[r#"
        target: x.o
        error: rustc option --crate-name without a value
    "#]],
    );
}

/// Regression: `-é` (a multi-byte character right after the dash) made the `-Cvalue` split cut
/// inside the character and panic; found by an audit of byte-index slicing. It is an unknown
/// option, kept in `args` like the others.
#[test]
fn non_ascii_after_a_single_dash() {
    check(
        "savedcmd_x.o := rustc --crate-name x a.rs -é -éx\n",
        expect![[r#"
            target: x.o
            source: None
            RustcInvocation {
                env: {},
                crate_name: "x",
                crate_name_given: true,
                crate_type: "bin",
                edition: "2015",
                root: "a.rs",
                cfgs: [],
                response_files: [],
                externs: [],
                crate_attrs: [],
                test: false,
                cap_lints: None,
                target: None,
                emits: [],
                args: [
                    "--crate-name",
                    "x",
                    "a.rs",
                    "-é",
                    "-éx",
                ],
            }
        "#]],
    );
}

#[test]
fn cfgs_of_kbuilds_response_file() {
    let text = "--cfg=CONFIG_RUST\n--cfg=CONFIG_RUST=\"y\"\n\n--cfg\nMODULE\n--edition=2021\n";
    assert_eq!(response_file_cfgs(text), ["CONFIG_RUST", "CONFIG_RUST=\"y\"", "MODULE"]);
}

#[test]
fn no_savedcmd_line() {
    assert_eq!(parse_cmd_file("deps_x.o := \\\n  a.h\n"), None);
    let old = parse_cmd_file("cmd_x.o := rustc --crate-name x x.rs\n").unwrap();
    assert_eq!(old.target, "x.o");
}

/// `.cmd` files are whatever is in the objtree: no input may make the parsers panic.
#[test]
fn garbage_never_panics() {
    let pieces = [
        "savedcmd_x.o := ",
        "rustc ",
        "--crate-name",
        " x",
        " a.rs",
        "'",
        "\"",
        "\\",
        ";",
        "&&",
        "=",
        "--cfg",
        "-Z",
        "crate-attr=",
        "@f",
        " ",
        "\n",
        "é",
        "-",
        "--extern",
        "A=1 ",
    ];
    for text in crate::testing::garbage(0x1234_5678_9abc_def1, &pieces, 3000) {
        if let Some(cmd) = parse_cmd_file(&text) {
            let _ = find_rustc(&cmd.command);
        }
    }
}

#[test]
fn vendored_crate_has_its_lints_capped() {
    // 7.3.4's rust/host/.libsyn.rlib.cmd, lint flags left out.
    let cmd = "rustc --edition=2021 -Zbinary_dep_depinfo=y -Dnon_ascii_idents --cap-lints=allow \
               --extern proc_macro2 --extern quote --cfg='feature=\"full\"' \
               --emit=link=rust/host/libsyn.rlib --crate-type rlib -O --out-dir ./rust/host \
               -L./rust/host --crate-name syn /src/rust/syn/lib.rs";
    let inv = find_rustc(cmd).unwrap().unwrap();
    assert_eq!(inv.cap_lints.as_deref(), Some("allow"));
    assert!(inv.is_vendored());
    let inv = find_rustc("rustc --cap-lints warn --crate-name k /src/k.rs").unwrap().unwrap();
    assert_eq!(inv.cap_lints.as_deref(), Some("warn"));
    assert!(!inv.is_vendored(), "only `allow` says the lints are not ours");
    assert!(!find_rustc("rustc /src/rust/kernel/lib.rs").unwrap().unwrap().is_vendored());
}

#[test]
fn rusttest_builds_are_recognised() {
    // 6.12.118's .rusttest-kernel.cmd and .rusttestlib-kernel.cmd, shortened.
    let harness = "rustc --test --edition=2021 --cfg CONFIG_RUST --extern ffi --extern macros \
                   --out-dir ./rust/test -L./rust/test --crate-name kernel /src/rust/kernel/lib.rs";
    let inv = find_rustc(harness).unwrap().unwrap();
    assert!(inv.test && inv.is_rusttest());
    let lib = "rustc --edition=2021 --cfg testlib --crate-type rlib --out-dir ./rust/test \
               --crate-name kernel /src/rust/kernel/lib.rs";
    assert!(find_rustc(lib).unwrap().unwrap().is_rusttest());
    let kernel = "rustc --edition=2021 --target=./scripts/target.json --crate-type rlib \
                  --crate-name kernel /src/rust/kernel/lib.rs";
    assert!(!find_rustc(kernel).unwrap().unwrap().is_rusttest());
}

#[test]
fn options_are_dropped_in_every_spelling() {
    let args: Vec<String> = "--emit=dep-info=a.d --emit obj=a.o -o x -oy --out-dir y --out-dir=z \
                             --error-format=json --json diagnostic-rendered-ansi -Copt-level=s \
                             --out-directory -L./rust --crate-type rlib a.rs"
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let kept = without_options(&args, &[OUTPUT_OPTIONS, DIAGNOSTIC_OPTIONS].concat());
    assert_eq!(kept.join(" "), "-Copt-level=s --out-directory -L./rust --crate-type rlib a.rs");
    assert_eq!(option_at("--emit=metadata=x", OUTPUT_OPTIONS), Some((0, false)));
    assert_eq!(option_at("-o", OUTPUT_OPTIONS), Some((1, true)));
    assert_eq!(option_at("--emitter", OUTPUT_OPTIONS), None);
}

#[test]
fn a_check_writes_only_its_metadata_and_only_outside_the_tree() {
    // 6.12.118's .kernel.o.cmd, shortened.
    let cmd = "OBJTREE=/obj rustc --edition=2021 -Wclippy::all --target=./scripts/target.json \
               @./include/generated/rustc_cfg --extern ffi --crate-type rlib -L./rust \
               --crate-name kernel --out-dir ./rust/ --emit=dep-info=rust/.kernel.o.d \
               --emit=obj=rust/kernel.o --emit=metadata=rust/libkernel.rmeta \
               --error-format=short /src/rust/kernel/lib.rs";
    let inv = find_rustc(cmd).unwrap().unwrap();
    expect![[r#"
        --edition=2021
        -Wclippy::all
        --target=./scripts/target.json
        @./include/generated/rustc_cfg
        --extern
        ffi
        --crate-type
        rlib
        -L./rust
        --crate-name
        kernel
        /src/rust/kernel/lib.rs
        --emit=metadata=/cache/check/libkernel.rmeta
        --error-format=json"#]]
    .assert_eq(&inv.check_args(Path::new("/cache/check")).join("\n"));
}
