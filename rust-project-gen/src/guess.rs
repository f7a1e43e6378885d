//! The fallback for a tree that is configured but not built: no `.cmd` file says what kbuild
//! ran, so the invocations are guessed the way `scripts/generate_rust_analyzer.py` guesses
//! them, with one improvement: a module is only guessed when the `.config` enables the option
//! its Makefile builds it under. Pure: the caller reads the files.

use std::path::Path;

use kbuild::{Config, RustBuild, RustcInvocation};

/// The response file that kbuild would pass; [`config_cfgs`] stands in for its text.
pub const RUSTC_CFG: &str = "./include/generated/rustc_cfg";

/// What `include/generated/rustc_cfg` holds for `config`: `CONFIG_X` and `CONFIG_X="value"`
/// for each option that is set.
pub fn config_cfgs(config: &Config) -> Vec<String> {
    let mut cfgs = Vec::new();
    for (name, value) in config.iter() {
        if value == "n" {
            continue;
        }
        if value == "y" || value == "m" {
            cfgs.push(format!("CONFIG_{name}"));
        }
        let value = value.trim_matches('"');
        cfgs.push(format!("CONFIG_{name}=\"{value}\""));
    }
    cfgs
}

/// The option that builds `stem.o` in a Makefile's text (`obj-$(CONFIG_X) += stem.o`), if any.
pub fn option_for(makefile: &str, stem: &str) -> Option<String> {
    let object = format!("{stem}.o");
    makefile.lines().find_map(|line| {
        let (lhs, rhs) = line.split_once("+=").or_else(|| line.split_once(":="))?;
        if !rhs.split_whitespace().any(|w| w == object) {
            return None;
        }
        let option = lhs.trim().strip_prefix("obj-$(")?.strip_suffix(')')?;
        option.strip_prefix("CONFIG_").map(str::to_owned)
    })
}

/// The kernel's own crates, guessed from the files present in `srctree/rust/`.
pub fn kernel_crates(
    srctree: &Path,
    objtree: &Path,
    exists: &dyn Fn(&Path) -> bool,
) -> Vec<RustBuild> {
    let crates: [(&str, &str, &[&str]); 7] = [
        ("compiler_builtins", "rust/compiler_builtins.rs", &[]),
        ("build_error", "rust/build_error.rs", &[]),
        ("ffi", "rust/ffi.rs", &[]),
        ("macros", "rust/macros/lib.rs", &[]),
        ("bindings", "rust/bindings/lib.rs", &["ffi"]),
        ("uapi", "rust/uapi/lib.rs", &["ffi"]),
        ("kernel", "rust/kernel/lib.rs", &["ffi", "build_error", "macros", "bindings", "uapi"]),
    ];
    let present: Vec<&str> = crates
        .iter()
        .filter(|(_, root, _)| exists(&srctree.join(root)))
        .map(|(name, ..)| *name)
        .collect();
    crates
        .iter()
        .filter(|(name, ..)| present.contains(name))
        .map(|(name, root, deps)| {
            let target = if *name == "macros" {
                "rust/libmacros.so".to_owned()
            } else {
                format!("rust/{name}.o")
            };
            let macros = *name == "macros";
            let mut inv = RustcInvocation {
                crate_name: (*name).to_owned(),
                crate_type: if macros { "proc-macro" } else { "rlib" }.to_owned(),
                edition: "2021".to_owned(),
                root: srctree.join(root).display().to_string(),
                externs: deps
                    .iter()
                    .filter(|d| present.contains(d))
                    .map(|d| (*d).to_owned())
                    .collect(),
                ..RustcInvocation::default()
            };
            if macros {
                inv.externs.push("proc_macro".to_owned());
                inv.emits.push(("link".to_owned(), "rust/libmacros.so".to_owned()));
            } else {
                inv.target = Some("./scripts/target.json".to_owned());
                inv.response_files.push(RUSTC_CFG.to_owned());
                inv.env.insert("OBJTREE".to_owned(), objtree.display().to_string());
            }
            synthetic(objtree, &target, inv)
        })
        .collect()
}

/// A module guessed from `dir/stem.rs` built under `option` with `value` (`y` or `m`).
pub fn module_crate(
    srctree: &Path,
    objtree: &Path,
    rel_dir: &str,
    stem: &str,
    value: &str,
) -> RustBuild {
    let mut inv = RustcInvocation {
        crate_name: stem.to_owned(),
        crate_type: "rlib".to_owned(),
        edition: "2021".to_owned(),
        root: srctree.join(rel_dir).join(format!("{stem}.rs")).display().to_string(),
        externs: vec!["kernel".to_owned()],
        crate_attrs: vec!["no_std".to_owned()],
        target: Some("./scripts/target.json".to_owned()),
        response_files: vec![RUSTC_CFG.to_owned()],
        ..RustcInvocation::default()
    };
    if value == "m" {
        inv.cfgs.push("MODULE".to_owned());
    }
    inv.env.insert("RUST_MODFILE".to_owned(), format!("{rel_dir}/{stem}"));
    synthetic(objtree, &format!("{rel_dir}/{stem}.o"), inv)
}

fn synthetic(objtree: &Path, target: &str, invocation: RustcInvocation) -> RustBuild {
    let (dir, file) = target.rsplit_once('/').unwrap_or(("", target));
    RustBuild {
        cmd_file: objtree.join(dir).join(format!(".{file}.cmd")),
        target: target.to_owned(),
        invocation,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_from_makefile_lines() {
        let makefile = "obj-$(CONFIG_SAMPLE_RUST_MINIMAL)\t\t+= rust_minimal.o\n\
                        obj-$(CONFIG_SAMPLE_RUST_PRINT)\t\t+= rust_print.o\n\
                        rust_print-y := rust_print_main.o\n";
        assert_eq!(option_for(makefile, "rust_minimal").as_deref(), Some("SAMPLE_RUST_MINIMAL"));
        assert_eq!(option_for(makefile, "rust_print").as_deref(), Some("SAMPLE_RUST_PRINT"));
        assert_eq!(option_for(makefile, "rust_print_main"), None);
        assert_eq!(option_for(makefile, "rnull"), None);
    }

    #[test]
    fn cfgs_like_rustc_cfg() {
        let config = Config::parse(
            "CONFIG_RUST=y\nCONFIG_HZ=250\nCONFIG_X=m\n# CONFIG_Y is not set\nCONFIG_S=\"a b\"\n",
        )
        .unwrap();
        assert_eq!(
            config_cfgs(&config),
            [
                "CONFIG_HZ=\"250\"",
                "CONFIG_RUST",
                "CONFIG_RUST=\"y\"",
                "CONFIG_S=\"a b\"",
                "CONFIG_X",
                "CONFIG_X=\"m\""
            ]
        );
    }
}
