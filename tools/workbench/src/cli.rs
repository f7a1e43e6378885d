//! The command-line arguments of a kernel tree, shared by `workbench kernel` and `demo`
//! (the Makefile passes both the same `TREE_ARGS`).

use std::path::PathBuf;

use clap::Args;

use crate::kernel::{KernelOptions, Managed, Source};

/// Where the kernel tree is, and, for a demo kernel, what to prepare it from.
#[derive(Args, Debug)]
pub struct TreeArgs {
    /// The kernel source tree (KERNEL_SRC).
    #[arg(long)]
    pub srctree: PathBuf,
    /// The build tree (KERNEL_OBJ); defaults to the srctree.
    #[arg(long)]
    objtree: Option<PathBuf>,
    /// Prepare the trees from this demo kernel's folder (`demo-kernel/6.12`: patches/series,
    /// demo.config)...
    #[arg(long, requires_all = ["package", "log_dir"])]
    demo_kernel: Option<PathBuf>,
    /// ...the Debian package of its source (`linux-source-6.12`, whose tarball is
    /// `/usr/src/linux-source-6.12.tar.xz` once installed)...
    #[arg(long, requires = "demo_kernel")]
    package: Option<String>,
    /// ...or, with this Debian suite (`trixie-backports`), fetched with a private apt state...
    #[arg(long, requires_all = ["package", "packages_dir"])]
    suite: Option<String>,
    /// ...into this folder of the cache...
    #[arg(long, requires = "suite")]
    packages_dir: Option<PathBuf>,
    /// ...or this tarball instead of the package's...
    #[arg(long, requires = "demo_kernel")]
    tarball: Option<PathBuf>,
    /// ...and a folder for build logs.
    #[arg(long, requires = "demo_kernel")]
    log_dir: Option<PathBuf>,
    /// A config fragment to merge after demo.config, for a configuration of one's own on top of
    /// the demo's (repeatable; later ones override earlier ones).
    #[arg(long = "config-fragment", value_name = "FRAGMENT", requires = "demo_kernel")]
    config_fragments: Vec<PathBuf>,
    /// Parallel kbuild jobs (default: cores + 1).
    #[arg(long)]
    jobs: Option<usize>,
    /// Build each folder of this directory as an out-of-tree module (make M=)...
    #[arg(long, requires = "extmod_build_dir")]
    extmod_sources: Option<PathBuf>,
    /// ...in a copy under this directory.
    #[arg(long, requires = "extmod_sources")]
    extmod_build_dir: Option<PathBuf>,
}

impl TreeArgs {
    fn source(&self) -> Source {
        let package = self.package.clone().unwrap_or_default();
        match (&self.tarball, &self.suite, &self.packages_dir) {
            (Some(tarball), _, _) => Source::Tarball(tarball.clone()),
            (None, Some(suite), Some(dir)) => {
                Source::Apt { package, suite: suite.clone(), dir: dir.clone() }
            }
            _ => Source::Tarball(PathBuf::from(format!("/usr/src/{package}.tar.xz"))),
        }
    }

    /// What [`crate::kernel::ensure`] makes ready.
    pub fn options(&self) -> KernelOptions {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        KernelOptions {
            srctree: self.srctree.clone(),
            objtree: self.objtree.clone().unwrap_or_else(|| self.srctree.clone()),
            managed: self.demo_kernel.as_ref().map(|demo_kernel| Managed {
                source: self.source(),
                demo_kernel: demo_kernel.clone(),
                extra_fragments: self.config_fragments.clone(),
                log_dir: self.log_dir.clone().unwrap_or_default(),
            }),
            jobs: self.jobs.unwrap_or(cores + 1),
            extmods: self.extmod_sources.clone().zip(self.extmod_build_dir.clone()),
        }
    }
}
