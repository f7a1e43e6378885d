//! A kernel tree ready for the tools: either ours, prepared and built from the inputs, or the
//! user's own (`KERNEL_SRC=`/`KERNEL_OBJ=`), checked and used as it is.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kbuild::{Built, Objtree, Srctree};

use crate::build::{BuildReport, build};
use crate::objtree::{Configured, configure};
use crate::srctree::{Prepared, prepare};
use crate::{WorkbenchError, inputs};

/// Where the trees are and, for ours, what they are made from.
#[derive(Clone, Debug)]
pub struct KernelOptions {
    /// The source tree.
    pub srctree: PathBuf,
    /// The build tree (`O=`); the srctree itself for an in-tree build.
    pub objtree: PathBuf,
    /// `Some` when the workbench owns the trees and prepares them.
    pub managed: Option<Managed>,
    /// Parallel jobs for kbuild.
    pub jobs: usize,
    /// Out-of-tree modules to build: (their sources, where to build them).
    pub extmods: Option<(PathBuf, PathBuf)>,
}

/// The inputs of a tree the workbench prepares.
#[derive(Clone, Debug)]
pub struct Managed {
    /// Where the kernel source tarball comes from.
    pub source: Source,
    /// The demo kernel's folder (`demo-kernel/6.12`): `patches/series` and `demo.config`.
    pub demo_kernel: PathBuf,
    /// Config fragments merged after the demo kernel's `demo.config`.
    pub extra_fragments: Vec<PathBuf>,
    /// Where build logs go.
    pub log_dir: PathBuf,
}

/// Where a demo kernel's source tarball comes from.
#[derive(Clone, Debug)]
pub enum Source {
    /// A tarball that is there (a package of the machine's own, such as
    /// `/usr/src/linux-source-6.12.tar.xz`, or the user's `KERNEL_TARBALL=`).
    Tarball(PathBuf),
    /// A Debian package of another suite, fetched by [`crate::apt::fetch_source`] into a folder
    /// of the cache.
    Apt {
        /// The package, `linux-source-7.3`.
        package: String,
        /// The suite, `trixie-backports`.
        suite: String,
        /// The cache folder it is unpacked into.
        dir: PathBuf,
    },
}

impl Source {
    /// The tarball, fetched first if it comes from apt and is not there yet.
    pub fn tarball(&self) -> Result<PathBuf, WorkbenchError> {
        match self {
            Source::Tarball(path) => Ok(path.clone()),
            Source::Apt { package, suite, dir } => crate::apt::fetch_source(dir, package, suite),
        }
    }
}

/// A ready kernel tree and how it got ready.
#[derive(Debug)]
pub struct Kernel {
    /// The source tree.
    pub srctree: Srctree,
    /// The configured build tree.
    pub objtree: Objtree,
    /// Its build artefacts.
    pub built: Built,
    /// The out-of-tree modules, built.
    pub extmods: Vec<crate::extmod::ExtModule>,
    /// What each stage did and how long it took, in order.
    pub stages: Vec<(String, String, Duration)>,
    /// The patches applied to the srctree, in order (none for a user's tree).
    pub patches: Vec<inputs::Patch>,
}

/// Makes the kernel tree ready, or says why it is not.
pub fn ensure(opts: &KernelOptions) -> Result<Kernel, WorkbenchError> {
    let mut stages = Vec::new();
    let mut patches = Vec::new();
    // What kbuild reads of the trees we built, for the out-of-tree modules' builds (none for a
    // user's tree, whose modules are always built again).
    let mut kernel_state = None;
    if let Some(managed) = &opts.managed {
        let t = Instant::now();
        let tarball = managed.source.tarball()?;
        if let Source::Apt { package, suite, .. } = &managed.source {
            stages.push(("source".to_owned(), format!("{package} from {suite}"), t.elapsed()));
        }
        let inputs = inputs::load(&tarball, &managed.demo_kernel, &managed.extra_fragments)?;

        let t = Instant::now();
        let what = match prepare(&inputs, &opts.srctree)? {
            Prepared::UpToDate => "up to date",
            Prepared::Fresh => "unpacked and patched",
        };
        stages.push((
            "srctree".to_owned(),
            format!("{what} ({} patches)", inputs.patches.len()),
            t.elapsed(),
        ));

        let t = Instant::now();
        let what = match configure(&inputs, &opts.srctree, &opts.objtree)? {
            Configured::UpToDate => "up to date",
            Configured::Fresh => "configured",
        };
        stages.push(("config".to_owned(), what.to_owned(), t.elapsed()));

        let t = Instant::now();
        let BuildReport { relinked, skipped, state, log } = build(
            &opts.srctree,
            &opts.objtree,
            opts.jobs,
            &managed.log_dir.join("kernel-build.log"),
        )?;
        let what = if skipped {
            "up to date: no file, tool or variable kbuild reads changed since the last build, kbuild not run"
        } else if relinked {
            "built"
        } else {
            "built, vmlinux unchanged (not relinked)"
        };
        stages.push(("build".to_owned(), format!("{what} (log {})", log.display()), t.elapsed()));
        patches = inputs.patches;
        kernel_state = state;
    }
    let srctree = Srctree::open(&opts.srctree)?;
    let objtree = Objtree::open(&srctree, &opts.objtree)?;
    let built = objtree.built(&srctree)?;
    if !built.arch.is_host() {
        // The guest of another architecture runs Debian's busybox-static of it.
        let t = Instant::now();
        let busybox = qemu::guest_busybox(&built.arch);
        let root = busybox.parent().and_then(Path::parent).unwrap_or(&busybox);
        if !busybox.is_file() {
            crate::apt::fetch_busybox(root, &built.arch.debian)?;
            stages.push((
                "busybox".to_owned(),
                format!("busybox-static ({})", built.arch.debian),
                t.elapsed(),
            ));
        }
    }
    let mut extmods = Vec::new();
    if let Some((sources, build_dir)) = &opts.extmods {
        let t = Instant::now();
        let step = progress::start("building out-of-tree modules (make M=)");
        let trees = (srctree.path.as_path(), objtree.path.as_path());
        match crate::extmod::build_all(
            trees,
            sources,
            build_dir,
            opts.jobs,
            kernel_state.as_deref(),
        ) {
            Ok(built) => {
                let names: Vec<&str> = built.iter().map(|m| m.name.as_str()).collect();
                step.done(&names.join(", "));
                let what = if built.iter().any(|m| m.made) {
                    "built"
                } else {
                    "up to date (kbuild not run)"
                };
                stages.push((
                    "extmod".to_owned(),
                    format!("{what}: {}", names.join(", ")),
                    t.elapsed(),
                ));
                extmods = built;
            }
            Err(e) => {
                step.failed();
                return Err(e);
            }
        }
    }
    Ok(Kernel { srctree, objtree, built, extmods, stages, patches })
}

/// The `.ko` of each `(CONFIG option, path)` in `wanted`, or an error naming the options that
/// are not `=m` in this tree.
pub fn modules(kernel: &Kernel, wanted: &[(&str, &str)]) -> Result<Vec<PathBuf>, WorkbenchError> {
    let not_modules: Vec<String> = wanted
        .iter()
        .filter(|(option, _)| kernel.objtree.config.get(option) != Some("m"))
        .map(|(option, _)| format!("CONFIG_{option}=m"))
        .collect();
    if !not_modules.is_empty() {
        return Err(WorkbenchError::Config(format!(
            "{}/.config: the demo needs {} (loadable modules, with CONFIG_MODULES=y)",
            kernel.objtree.path.display(),
            not_modules.join(" ")
        )));
    }
    let paths: Vec<PathBuf> = wanted.iter().map(|(_, rel)| kernel.objtree.module(rel)).collect();
    for path in &paths {
        if !path.is_file() {
            return Err(WorkbenchError::Tree(kbuild::TreeError::NotBuilt {
                srctree: kernel.srctree.path.clone(),
                objtree: kernel.objtree.path.clone(),
                missing: path.clone(),
            }));
        }
    }
    Ok(paths)
}

/// The tree as `make kernel` and `make demo` print it: version, trees, images, external
/// modules, and each stage's time.
pub fn describe(kernel: &Kernel) -> String {
    let mut out = format!("kernel: Linux {}\n", kernel.srctree.version);
    out += &format!("  srctree  {}\n", kernel.srctree.path.display());
    out += &format!("  objtree  {}\n", kernel.objtree.path.display());
    out += &format!("  arch     {}\n", kernel.built.arch.name);
    for path in [&kernel.built.vmlinux, &kernel.built.image] {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        out += &format!("  {name:<8} {} ({})\n", path.display(), progress::file_size(path));
    }
    for module in &kernel.extmods {
        out +=
            &format!("  M={}  {} ({} .ko)\n", module.dir.display(), module.name, module.kos.len());
    }
    for (stage, what, took) in &kernel.stages {
        out += &format!("  {stage:<8} {what} in {}\n", progress::format_duration(*took));
    }
    out
}
