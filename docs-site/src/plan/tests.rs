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
            macros (Kernel, rust/libmacros.so, edition 2021) deps []
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
