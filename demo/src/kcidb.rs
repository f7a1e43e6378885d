//! The demo's results as KCIDB data (`report::kcidb`): the checkout and the build described
//! from the kernel tree the workbench made ready, the tests from the tools' typed results.

use std::path::Path;

use report::kcidb::{Build, Checkout};
use serde_json::{Value, json};
use workbench::kernel::Kernel;

/// The tree's name: its folder's (`linux-6.12` for the demo's `linux-6.12/srctree`).
fn tree_name(srctree: &Path) -> String {
    let named = if srctree.ends_with("srctree") { srctree.parent() } else { Some(srctree) };
    named
        .and_then(Path::file_name)
        .map_or_else(|| "linux".to_owned(), |n| n.to_string_lossy().into_owned())
}

/// KCIDB's name of the architecture the tree is configured for.
pub fn architecture(config: &kbuild::Config) -> &'static str {
    [
        ("X86_64", "x86_64"),
        ("ARM64", "arm64"),
        ("RISCV", "riscv"),
        ("LOONGARCH", "loongarch"),
        ("UML", "um"),
        ("ARM", "arm"),
        ("X86_32", "i386"),
    ]
    .into_iter()
    .find(|(option, _)| config.is_enabled(option))
    .map_or("unknown", |(_, arch)| arch)
}

/// The checkout: the kernel's version and the patches applied.
pub fn checkout(kernel: &Kernel) -> Checkout {
    Checkout {
        tree_name: tree_name(&kernel.srctree.path),
        version: kernel.srctree.version.to_string(),
        patches: kernel.patches.iter().map(|p| (p.name.clone(), p.sha256.clone())).collect(),
    }
}

/// The build: architecture, compilers, configuration, and how long kbuild took when it built.
pub fn build(kernel: &Kernel, config_name: &str) -> Build {
    let config = &kernel.objtree.config;
    let text = |option| config.get(option).unwrap_or("").trim_matches('"').to_owned();
    let built =
        kernel.stages.iter().find(|(stage, what, _)| stage == "build" && what.starts_with("built"));
    Build {
        architecture: architecture(config).to_owned(),
        compiler: format!("{}; {}", text("CC_VERSION_TEXT"), text("RUSTC_VERSION_TEXT")),
        config_name: if config_name.is_empty() {
            kernel.objtree.path.join(".config").display().to_string()
        } else {
            config_name.to_owned()
        },
        config_sha256: freshness::file_sha256(&kernel.objtree.path.join(".config"))
            .unwrap_or_default(),
        duration: built.map(|(_, _, took)| took.as_secs_f64()),
        ok: true,
        command: None,
        misc: None,
    }
}

/// Why a TuxMake `metadata.json` cannot describe the build.
#[derive(Debug, thiserror::Error)]
#[error(
    "not a TuxMake metadata.json (no {0}): give the metadata.json of the build whose --build-dir is KERNEL_OBJ"
)]
pub struct TuxmakeError(&'static str);

/// The build as TuxMake (`tuxmake --build-dir`) recorded it in its `metadata.json`: its status,
/// the compiler's version, how long the build took, the command that reproduces it, and what
/// TuxMake says of itself; the rest (architecture, `.config`) from the tree as before.
pub fn with_tuxmake(mut build: Build, metadata: &Value) -> Result<Build, TuxmakeError> {
    let status = metadata["results"]["status"].as_str().ok_or(TuxmakeError("results.status"))?;
    let tuxmake = &metadata["build"];
    let toolchain = tuxmake["toolchain"].as_str().ok_or(TuxmakeError("build.toolchain"))?;
    build.ok = status != "FAIL";
    // The reproducer is an argument list.
    let reproducer: Vec<&str> = tuxmake["reproducer_cmdline"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    build.command = (!reproducer.is_empty()).then(|| reproducer.join(" "));
    build.duration = metadata["results"]["duration"]["build"].as_f64().or(build.duration);
    if let Some(compiler) = metadata["compiler"]["version_full"].as_str() {
        let rustc = build.compiler.split_once("; ").map_or("", |(_, rustc)| rustc).to_owned();
        build.compiler =
            if rustc.is_empty() { compiler.to_owned() } else { format!("{compiler}; {rustc}") };
    }
    let kconfig: Vec<String> = std::iter::once(&tuxmake["kconfig"])
        .chain(tuxmake["kconfig_add"].as_array().into_iter().flatten())
        .filter_map(|k| k.as_str().map(str::to_owned))
        .collect();
    if !kconfig.is_empty() {
        build.config_name = format!("tuxmake: {}", kconfig.join(" + "));
    }
    build.misc = Some(json!({
        "tuxmake": metadata["tuxmake"]["version"],
        "toolchain": toolchain,
        "runtime": tuxmake["runtime"],
        "status": status,
    }));
    Ok(build)
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use super::*;

    /// What TuxMake 1.45.0 wrote for the 7.3 demo configuration, built here with
    /// `tuxmake --runtime null --toolchain rustgcc` (README.md says how).
    const METADATA: &str = include_str!("../tests/fixtures/tuxmake-7.3-metadata.json");

    fn from_the_tree() -> Build {
        Build {
            architecture: "x86_64".into(),
            compiler: "gcc (Debian 12.2.0-14+deb12u1) 12.2.0; rustc 1.95.0 (59807616e 2026-04-14)"
                .into(),
            config_name: "/tmp/tux/build/.config".into(),
            config_sha256: "c".repeat(64),
            duration: None,
            ok: true,
            command: None,
            misc: None,
        }
    }

    #[test]
    fn a_tuxmake_build_is_described_by_its_metadata() {
        let metadata: Value = serde_json::from_str(METADATA).unwrap();
        let build = with_tuxmake(from_the_tree(), &metadata).unwrap();
        expect![[r#"
            Build {
                architecture: "x86_64",
                compiler: "gcc (Debian 12.2.0-14+deb12u1) 12.2.0; rustc 1.95.0 (59807616e 2026-04-14)",
                config_name: "tuxmake: tinyconfig + /work/main/demo-kernel/7.3/demo.config",
                config_sha256: "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc",
                duration: Some(
                    596.4521636962891,
                ),
                ok: true,
                command: Some(
                    "tuxmake --target-arch=x86_64 --kconfig=tinyconfig --kconfig-add=/work/main/demo-kernel/7.3/demo.config --toolchain=rustgcc --wrapper=none --environment=KBUILD_BUILD_TIMESTAMP=@1796417606 --environment=KBUILD_BUILD_USER=tuxmake --environment=KBUILD_BUILD_HOST=tuxmake --runtime=null --image=docker.io/tuxmake/x86_64_rust config default kernel modules",
                ),
                misc: Some(
                    Object {
                        "runtime": String("null"),
                        "status": String("PASS"),
                        "toolchain": String("rustgcc"),
                        "tuxmake": String("1.45.0"),
                    },
                ),
            }
        "#]]
        .assert_debug_eq(&build);
    }

    #[test]
    fn json_that_is_no_tuxmake_metadata_is_named() {
        let err = with_tuxmake(from_the_tree(), &json!({ "results": {} })).unwrap_err();
        assert_eq!(
            err.to_string(),
            "not a TuxMake metadata.json (no results.status): give the metadata.json of the build whose --build-dir is KERNEL_OBJ"
        );
    }
}
