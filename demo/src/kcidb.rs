//! The demo's results as KCIDB data (`report::kcidb`): the checkout and the build described
//! from the kernel tree the workbench made ready, the tests from the tools' typed results.

use std::path::Path;

use report::kcidb::{Build, Checkout};
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
    }
}
