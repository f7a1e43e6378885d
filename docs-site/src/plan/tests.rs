//! Tests of the plan, on `.cmd` lines saved from the demo tree (paths replaced by `$OBJTREE`,
//! `$SRCTREE`, `$SYSROOT_SRC`).

use expect_test::{Expect, expect};

use super::*;

fn build(cmd: &str) -> RustBuild {
    let cmd = kbuild::parse_cmd_file(cmd).unwrap();
    RustBuild {
        cmd_file: PathBuf::from("x.cmd"),
        target: cmd.target,
        invocation: kbuild::find_rustc(&cmd.command).unwrap().unwrap(),
    }
}

fn demo_builds() -> Vec<(PathBuf, RustBuild, Kind)> {
    [
        include_str!("fixtures/core.o.cmd"),
        include_str!("fixtures/kernel.o.cmd"),
        include_str!("fixtures/libmacros.so.cmd"),
        include_str!("fixtures/bindings.o.cmd"),
        include_str!("fixtures/rustdoc_test_gen.cmd"),
    ]
    .iter()
    .map(|cmd| (PathBuf::from("$OBJTREE"), build(cmd), Kind::Kernel))
    .collect()
}

fn config(core: CoreDocs) -> PlanConfig {
    PlanConfig {
        objtree: PathBuf::from("$OBJTREE"),
        rustc_minor: 95,
        crate_version: "6.12.118".to_owned(),
        core,
    }
}

fn check(plan: &Plan, expect: Expect) {
    let mut out = String::new();
    for job in &plan.jobs {
        out.push_str(&format!(
            "{} ({:?}, {}, edition {}) deps {:?}\n  env {:?}\n  {}\n",
            job.name,
            job.kind,
            job.target,
            job.edition,
            job.deps,
            job.env,
            job.args.join(" ")
        ));
    }
    for s in &plan.skipped {
        out.push_str(&format!("skipped {} ({}): {}\n", s.name, s.target, s.reason));
    }
    expect.assert_eq(&out);
}

#[test]
fn every_crate_with_the_flags_of_its_build() {
    check(
        &plan(&demo_builds(), &config(CoreDocs::Local)),
        expect![[r#"
            bindings (Kernel, rust/bindings.o, edition 2021) deps []
              env {"OBJTREE": "$OBJTREE", "RUSTC_BOOTSTRAP": "1"}
              --edition=2021 -Zbinary_dep_depinfo=y -Astable_features -Aunused_features -Dnon_ascii_idents -Dunsafe_op_in_unsafe_fn -Wmissing_docs -Wrust_2018_idioms -Wunreachable_pub -Wclippy::all -Aclippy::collapsible_if -Aclippy::collapsible_match -Wclippy::ignored_unit_patterns -Wclippy::mut_mut -Wclippy::needless_bitwise_bool -Aclippy::needless_lifetimes -Wclippy::no_mangle_with_rust_abi -Wclippy::undocumented_unsafe_blocks -Aclippy::uninlined_format_args -Wclippy::unnecessary_safety_comment -Wclippy::unnecessary_safety_doc -Aclippy::unwrap_or_default -Wrustdoc::missing_crate_level_docs -Wrustdoc::unescaped_backticks -Cpanic=abort -Cembed-bitcode=n -Clto=n -Cforce-unwind-tables=n -Ccodegen-units=1 -Csymbol-mangling-version=v0 -Crelocation-model=static -Zfunction-sections=n -Wclippy::float_arithmetic --target=./scripts/target.json -Ctarget-feature=-sse,-sse2,-sse3,-ssse3,-sse4.1,-sse4.2,-avx,-avx2 -Zcf-protection=branch -Cjump-tables=n -Ztune-cpu=generic -Cno-redzone=y -Ccode-model=kernel -Copt-level=s -Cdebug-assertions=n -Coverflow-checks=y -Cforce-frame-pointers=y -Zllvm_module_flag=frame-pointer:u32:2:max -Zdwarf-version=5 -Cdebuginfo=2 @./include/generated/rustc_cfg --extern ffi --crate-type rlib -L./rust --crate-name bindings $SRCTREE/rust/bindings/lib.rs --sysroot=/dev/null -Zunstable-options -Cunsafe-allow-abi-mismatch=fixed-x18 --crate-version=6.12.118
            core (Library, rust/core.o, edition 2024) deps []
              env {"OBJTREE": "$OBJTREE", "RUSTC_BOOTSTRAP": "1"}
              -Zbinary_dep_depinfo=y -Astable_features -Aunused_features -Dnon_ascii_idents -Dunsafe_op_in_unsafe_fn -Wmissing_docs -Wrust_2018_idioms -Wclippy::all -Aclippy::collapsible_if -Aclippy::collapsible_match -Wclippy::ignored_unit_patterns -Wclippy::mut_mut -Wclippy::needless_bitwise_bool -Aclippy::needless_lifetimes -Wclippy::no_mangle_with_rust_abi -Wclippy::undocumented_unsafe_blocks -Aclippy::uninlined_format_args -Wclippy::unnecessary_safety_comment -Wclippy::unnecessary_safety_doc -Aclippy::unwrap_or_default -Wrustdoc::missing_crate_level_docs -Wrustdoc::unescaped_backticks -Cpanic=abort -Cembed-bitcode=n -Clto=n -Cforce-unwind-tables=n -Ccodegen-units=1 -Csymbol-mangling-version=v0 -Crelocation-model=static -Zfunction-sections=n -Wclippy::float_arithmetic --target=./scripts/target.json -Ctarget-feature=-sse,-sse2,-sse3,-ssse3,-sse4.1,-sse4.2,-avx,-avx2 -Zcf-protection=branch -Cjump-tables=n -Ztune-cpu=generic -Cno-redzone=y -Ccode-model=kernel -Copt-level=s -Cdebug-assertions=n -Coverflow-checks=y -Cforce-frame-pointers=y -Zllvm_module_flag=frame-pointer:u32:2:max -Zdwarf-version=5 -Cdebuginfo=2 @./include/generated/rustc_cfg --edition=2024 --cfg no_fp_fmt_parse --crate-type rlib -L./rust --crate-name core $SYSROOT_SRC/core/src/lib.rs --sysroot=/dev/null -Zunstable-options -Cunsafe-allow-abi-mismatch=fixed-x18
            kernel (Kernel, rust/kernel.o, edition 2021) deps ["macros", "bindings"]
              env {"OBJTREE": "$OBJTREE", "RUSTC_BOOTSTRAP": "1"}
              --edition=2021 -Zbinary_dep_depinfo=y -Astable_features -Aunused_features -Dnon_ascii_idents -Dunsafe_op_in_unsafe_fn -Wmissing_docs -Wrust_2018_idioms -Wunreachable_pub -Wclippy::all -Aclippy::collapsible_if -Aclippy::collapsible_match -Wclippy::ignored_unit_patterns -Wclippy::mut_mut -Wclippy::needless_bitwise_bool -Aclippy::needless_lifetimes -Wclippy::no_mangle_with_rust_abi -Wclippy::undocumented_unsafe_blocks -Aclippy::uninlined_format_args -Wclippy::unnecessary_safety_comment -Wclippy::unnecessary_safety_doc -Aclippy::unwrap_or_default -Wrustdoc::missing_crate_level_docs -Wrustdoc::unescaped_backticks -Cpanic=abort -Cembed-bitcode=n -Clto=n -Cforce-unwind-tables=n -Ccodegen-units=1 -Csymbol-mangling-version=v0 -Crelocation-model=static -Zfunction-sections=n -Wclippy::float_arithmetic --target=./scripts/target.json -Ctarget-feature=-sse,-sse2,-sse3,-ssse3,-sse4.1,-sse4.2,-avx,-avx2 -Zcf-protection=branch -Cjump-tables=n -Ztune-cpu=generic -Cno-redzone=y -Ccode-model=kernel -Copt-level=s -Cdebug-assertions=n -Coverflow-checks=y -Cforce-frame-pointers=y -Zllvm_module_flag=frame-pointer:u32:2:max -Zdwarf-version=5 -Cdebuginfo=2 @./include/generated/rustc_cfg --extern ffi --extern build_error --extern macros --extern bindings --extern uapi --crate-type rlib -L./rust --crate-name kernel $SRCTREE/rust/kernel/lib.rs --sysroot=/dev/null -Zunstable-options -Cunsafe-allow-abi-mismatch=fixed-x18 --crate-version=6.12.118
            macros (Host, rust/libmacros.so, edition 2021) deps []
              env {"RUSTC_BOOTSTRAP": "1"}
              --edition=2021 -Zbinary_dep_depinfo=y -Astable_features -Aunused_features -Dnon_ascii_idents -Dunsafe_op_in_unsafe_fn -Wmissing_docs -Wrust_2018_idioms -Wunreachable_pub -Wclippy::all -Aclippy::collapsible_if -Aclippy::collapsible_match -Wclippy::ignored_unit_patterns -Wclippy::mut_mut -Wclippy::needless_bitwise_bool -Aclippy::needless_lifetimes -Wclippy::no_mangle_with_rust_abi -Wclippy::undocumented_unsafe_blocks -Aclippy::uninlined_format_args -Wclippy::unnecessary_safety_comment -Wclippy::unnecessary_safety_doc -Aclippy::unwrap_or_default -Wrustdoc::missing_crate_level_docs -Wrustdoc::unescaped_backticks -Clinker-flavor=gcc -Clinker=gcc -Clink-args=  --extern proc_macro --crate-type proc-macro --crate-name macros $SRCTREE/rust/macros/lib.rs --crate-version=6.12.118
            skipped rustdoc_test_gen (scripts/rustdoc_test_gen): host program, not part of the kernel
        "#]],
    );
}

#[test]
fn core_linked_upstream_is_not_documented() {
    let plan = plan(
        &demo_builds(),
        &config(CoreDocs::Upstream("https://doc.rust-lang.org/1.95.0/".into())),
    );
    let names: Vec<&str> = plan.jobs.iter().map(|j| j.name.as_str()).collect();
    expect![[r#"["bindings", "kernel", "macros"]"#]].assert_eq(&format!("{names:?}"));
    let kernel = plan.jobs.iter().find(|j| j.name == "kernel").unwrap();
    let tail: Vec<&String> = kernel.args.iter().rev().take(3).collect();
    expect![[r#"["--extern-html-root-takes-precedence", "--extern-html-root-url=alloc=https://doc.rust-lang.org/1.95.0/", "--extern-html-root-url=core=https://doc.rust-lang.org/1.95.0/"]"#]]
        .assert_eq(&format!("{tail:?}"));
}

#[test]
fn output_options_are_dropped() {
    let args: Vec<String> = "--emit=dep-info=a.d --emit obj=a.o -o x --out-dir y --error-format=json --json diagnostic-rendered-ansi -Copt-level=s --crate-type rlib a.rs"
        .split(' ')
        .map(str::to_owned)
        .collect();
    expect![[r#"["-Copt-level=s", "--crate-type", "rlib", "a.rs"]"#]]
        .assert_eq(&format!("{:?}", rustdoc_args(&args)));
}

/// The rustdoc arguments of the build in a `.cmd` file's text, one a line.
fn check_args(cmd: &str, expect: Expect) {
    expect.assert_eq(&rustdoc_args(&build(cmd).invocation.args).join("\n"));
}

/// The options dropped from a command line: what goes in, what is left.
fn check_dropped(args: &str, expect: Expect) {
    let args: Vec<String> = args.split(' ').map(str::to_owned).collect();
    expect.assert_eq(&rustdoc_args(&args).join(" "));
}

#[test]
fn every_spelling_of_a_dropped_option_goes_with_its_value() {
    check_dropped(
        "--emit=dep-info=a.d --emit obj=a.o -o x -oy --out-dir y --out-dir=z --error-format=json --json diagnostic-rendered-ansi -Copt-level=s",
        expect!["-Copt-level=s"],
    );
    check_dropped(
        "--remap-path-scope=macro --remap-path-scope object -O -g -lfoo -l bar --print=cfg --explain E0001 --test a.rs",
        expect!["a.rs"],
    );
    // Options that only start like a dropped one, and `--remap-path-prefix`, which rustdoc
    // takes and `make rustdoc` passes.
    check_dropped(
        "-Lrust -L x --out-directory --tests --remap-path-prefix=/src/= -Ofoo -gx",
        expect!["-Lrust -L x --out-directory --tests --remap-path-prefix=/src/= -Ofoo -gx"],
    );
}

#[test]
fn remap_path_scope_of_7_3_is_dropped_as_make_rustdoc_does() {
    // 7.3's kbuild adds `--remap-path-prefix=$(srcroot)/= --remap-path-scope=macro`, which
    // rustdoc rejects ("Unrecognized option: 'remap-path-scope'"): 11 crates failed.
    check_args(
        include_str!("fixtures/7.3-pin_init.o.cmd"),
        expect![[r#"
            --edition=2021
            -Zbinary_dep_depinfo=y
            -Astable_features
            -Aunused_features
            -Dnon_ascii_idents
            -Dunsafe_op_in_unsafe_fn
            -Wmissing_docs
            -Wrust_2018_idioms
            -Wunreachable_pub
            -Wclippy::all
            -Wclippy::as_ptr_cast_mut
            -Wclippy::as_underscore
            -Wclippy::cast_lossless
            -Aclippy::collapsible_if
            -Aclippy::collapsible_match
            -Wclippy::ignored_unit_patterns
            -Aclippy::incompatible_msrv
            -Wclippy::mut_mut
            -Wclippy::needless_bitwise_bool
            -Aclippy::needless_lifetimes
            -Wclippy::no_mangle_with_rust_abi
            -Wclippy::ptr_as_ptr
            -Wclippy::ptr_cast_constness
            -Wclippy::ref_as_ptr
            -Wclippy::undocumented_unsafe_blocks
            -Aclippy::uninlined_format_args
            -Wclippy::unnecessary_safety_comment
            -Wclippy::unnecessary_safety_doc
            -Aclippy::unwrap_or_default
            -Wrustdoc::missing_crate_level_docs
            -Wrustdoc::unescaped_backticks
            -Cpanic=abort
            -Cembed-bitcode=n
            -Clto=n
            -Cforce-unwind-tables=n
            -Ccodegen-units=1
            -Csymbol-mangling-version=v0
            -Crelocation-model=static
            -Zfunction-sections=n
            -Wclippy::float_arithmetic
            --target=./scripts/target.json
            -Ctarget-feature=-sse,-sse2,-sse3,-ssse3,-sse4.1,-sse4.2,-avx,-avx2
            -Zcf-protection=branch
            -Cjump-tables=n
            -Ctarget-cpu=x86-64
            -Ztune-cpu=generic
            -Cno-redzone=y
            -Ccode-model=kernel
            -Copt-level=s
            -Cdebug-assertions=n
            -Coverflow-checks=y
            -Cforce-frame-pointers=y
            -Zllvm_module_flag=frame-pointer:u32:2:max
            --remap-path-prefix=$SRCTREE/=
            -Zdwarf-version=5
            -Cdebuginfo=2
            @./include/generated/rustc_cfg
            --extern
            pin_init_internal
            --extern
            macros
            --cfg=kernel
            --cfg=USE_RUSTC_FEATURES
            --crate-type
            rlib
            -L./rust
            --crate-name
            pin_init
            $SRCTREE/rust/pin-init/src/lib.rs
            --sysroot=/dev/null
            -Zunstable-options"#]],
    );
}

#[test]
fn a_host_library_loses_its_optimisation_and_output_folder() {
    // kbuild builds `syn` with `cmd_rustc_procmacrolibrary` (`--crate-type rlib -O --out-dir`);
    // `make rustdoc` gives it `rust_common_flags` instead, without `-O`.
    check_args(
        include_str!("fixtures/7.3-libsyn.rlib.cmd"),
        expect![[r#"
            --edition=2021
            -Zbinary_dep_depinfo=y
            -Astable_features
            -Aunused_features
            -Dnon_ascii_idents
            -Dunsafe_op_in_unsafe_fn
            -Wmissing_docs
            -Wrust_2018_idioms
            -Wunreachable_pub
            -Wclippy::all
            -Wclippy::as_ptr_cast_mut
            -Wclippy::as_underscore
            -Wclippy::cast_lossless
            -Aclippy::collapsible_if
            -Aclippy::collapsible_match
            -Wclippy::ignored_unit_patterns
            -Aclippy::incompatible_msrv
            -Wclippy::mut_mut
            -Wclippy::needless_bitwise_bool
            -Aclippy::needless_lifetimes
            -Wclippy::no_mangle_with_rust_abi
            -Wclippy::ptr_as_ptr
            -Wclippy::ptr_cast_constness
            -Wclippy::ref_as_ptr
            -Wclippy::undocumented_unsafe_blocks
            -Aclippy::uninlined_format_args
            -Wclippy::unnecessary_safety_comment
            -Wclippy::unnecessary_safety_doc
            -Aclippy::unwrap_or_default
            -Wrustdoc::missing_crate_level_docs
            -Wrustdoc::unescaped_backticks
            --cap-lints=allow
            --extern
            proc_macro2
            --extern
            quote
            --cfg=feature="clone-impls"
            --cfg=feature="derive"
            --cfg=feature="full"
            --cfg=feature="parsing"
            --cfg=feature="printing"
            --cfg=feature="proc-macro"
            --cfg=feature="visit"
            --cfg=feature="visit-mut"
            --crate-type
            rlib
            -L./rust/host
            --crate-name
            syn
            $SRCTREE/rust/syn/lib.rs"#]],
    );
}

#[test]
fn host_libraries_are_documented_host_programs_are_not() {
    // 7.3 builds `proc_macro2`, `quote` and `syn` for the host, in `rust/host/`, as the
    // proc-macros' dependencies; `make rustdoc` documents them too (`rustdoc-syn`, ...).
    let builds: Vec<_> = [
        include_str!("fixtures/7.3-libsyn.rlib.cmd"),
        include_str!("fixtures/7.3-libpin_init_internal.so.cmd"),
        include_str!("fixtures/7.3-pin_init.o.cmd"),
        include_str!("fixtures/rustdoc_test_gen.cmd"),
    ]
    .iter()
    .map(|cmd| (PathBuf::from("$OBJTREE"), build(cmd), Kind::Kernel))
    .collect();
    let plan = plan(&builds, &config(CoreDocs::Local));
    let jobs: Vec<String> =
        plan.jobs.iter().map(|j| format!("{} {:?} deps {:?}", j.name, j.kind, j.deps)).collect();
    expect![[r#"
        [
            "pin_init Kernel deps [\"pin_init_internal\"]",
            "pin_init_internal Host deps [\"syn\"]",
            "syn Host deps []",
        ]
    "#]]
    .assert_debug_eq(&jobs);
    expect![[r#"["rustdoc_test_gen: host program, not part of the kernel"]"#]].assert_eq(&format!(
        "{:?}",
        plan.skipped.iter().map(|s| format!("{}: {}", s.name, s.reason)).collect::<Vec<_>>()
    ));
}

#[test]
fn an_external_module_of_7_3_keeps_all_but_its_outputs() {
    // Built in the module's folder (`--out-dir ./`), with the objtree's paths absolute.
    let args = build(include_str!("fixtures/7.3-rust_oops_null.o.cmd")).invocation.args;
    let kept = rustdoc_args(&args);
    let mut dropped = args.clone();
    for word in &kept {
        let i = dropped.iter().position(|w| w == word).expect("kept words were there");
        dropped.remove(i);
    }
    expect![[r#"["--out-dir", "./", "--emit=dep-info=./.rust_oops_null.o.d", "--emit=obj=rust_oops_null.o"]"#]]
        .assert_eq(&format!("{dropped:?}"));
}
