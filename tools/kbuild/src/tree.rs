//! Kernel trees: the source tree (`srctree`) and the build tree (`objtree`, `O=`), which are the
//! same directory for an in-tree build.
//!
//! Opening a tree checks what the suite needs of it and says what to run when it falls short.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::arch::Arch;
use crate::config::{Config, ConfigError};

/// `VERSION.PATCHLEVEL.SUBLEVEL` and `EXTRAVERSION` from the top-level `Makefile`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelVersion {
    /// `VERSION`.
    pub version: u32,
    /// `PATCHLEVEL`.
    pub patchlevel: u32,
    /// `SUBLEVEL`.
    pub sublevel: u32,
    /// `EXTRAVERSION`, often empty.
    pub extraversion: String,
}

impl fmt::Display for KernelVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}{}", self.version, self.patchlevel, self.sublevel, self.extraversion)
    }
}

impl KernelVersion {
    /// Reads the version from the text of a kernel's top-level `Makefile`.
    pub fn from_makefile(text: &str) -> Option<KernelVersion> {
        let var = |name: &str| {
            text.lines().take(20).find_map(|line| {
                let (key, value) = line.split_once('=')?;
                (key.trim() == name).then(|| value.trim().to_owned())
            })
        };
        Some(KernelVersion {
            version: var("VERSION")?.parse().ok()?,
            patchlevel: var("PATCHLEVEL")?.parse().ok()?,
            sublevel: var("SUBLEVEL")?.parse().ok()?,
            extraversion: var("EXTRAVERSION").unwrap_or_default(),
        })
    }
}

/// A kernel source tree with Rust support.
#[derive(Clone, Debug)]
pub struct Srctree {
    /// Its top directory.
    pub path: PathBuf,
    /// Its version, from the `Makefile`.
    pub version: KernelVersion,
}

/// A configured build tree whose `.config` enables Rust.
#[derive(Clone, Debug)]
pub struct Objtree {
    /// Its top directory.
    pub path: PathBuf,
    /// Its `.config`.
    pub config: Config,
}

/// The artefacts of a built objtree.
#[derive(Clone, Debug)]
pub struct Built {
    /// `vmlinux`, with symbols and (in our config) DWARF.
    pub vmlinux: PathBuf,
    /// The image the boot loader takes (`arch/x86/boot/bzImage`, `arch/arm64/boot/Image`).
    pub image: PathBuf,
    /// The architecture it was built for.
    pub arch: Arch,
}

/// Why a tree cannot be used, and what to run about it.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    /// The directory does not exist.
    #[error("{}: no such directory", .0.display())]
    Missing(PathBuf),
    /// Not the top of a kernel source tree.
    #[error(
        "{} is not a kernel source tree (no top-level Makefile with VERSION, PATCHLEVEL and SUBLEVEL, or no Kbuild): point KERNEL_SRC at the top of a Linux tree",
        .0.display()
    )]
    NotSrctree(PathBuf),
    /// A kernel from before Rust support.
    #[error(
        "{} (Linux {version}) has no rust/ directory: Rust support needs Linux 6.1 or later, and this suite is built against 6.12",
        path.display()
    )]
    NoRustSupport {
        /// The srctree.
        path: PathBuf,
        /// Its version.
        version: KernelVersion,
    },
    /// No `.config` in the objtree.
    #[error(
        "{} is not configured (no .config): configure it with `make -C {} O={} defconfig`, enable CONFIG_RUST, then build it",
        objtree.display(), srctree.display(), objtree.display()
    )]
    NotConfigured {
        /// The srctree.
        srctree: PathBuf,
        /// The objtree.
        objtree: PathBuf,
    },
    /// `.config` does not enable `CONFIG_RUST`.
    #[error(
        "{}/.config does not enable CONFIG_RUST: check the toolchain with `make -C {} O={} rustavailable`, enable \"Rust support\" (General setup) in `make O={} menuconfig`, then rebuild",
        objtree.display(), srctree.display(), objtree.display(), objtree.display()
    )]
    NoRust {
        /// The srctree.
        srctree: PathBuf,
        /// The objtree.
        objtree: PathBuf,
    },
    /// A build artefact is missing.
    #[error(
        "{} is configured but not built ({} is missing): build it with `make -C {} O={} -j$(nproc)`",
        objtree.display(), missing.display(), srctree.display(), objtree.display()
    )]
    NotBuilt {
        /// The srctree.
        srctree: PathBuf,
        /// The objtree.
        objtree: PathBuf,
        /// The first missing artefact.
        missing: PathBuf,
    },
    /// The `.config` is of an architecture the suite does not know.
    #[error(
        "{}/.config is of an architecture the suite does not know (it enables none of the Kconfig symbols of {}): add a folder for it to demo-kernel/arch/",
        objtree.display(), crate::arch::names()
    )]
    UnknownArch {
        /// The objtree.
        objtree: PathBuf,
    },
    /// `.config` could not be parsed.
    #[error("{}: {source}", path.display())]
    BadConfig {
        /// The file.
        path: PathBuf,
        /// The bad line.
        source: ConfigError,
    },
    /// A file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
}

fn read(path: &Path) -> Result<String, TreeError> {
    std::fs::read_to_string(path)
        .map_err(|source| TreeError::Read { path: path.to_owned(), source })
}

impl Srctree {
    /// Opens the kernel source tree at `path`.
    pub fn open(path: &Path) -> Result<Srctree, TreeError> {
        if !path.is_dir() {
            return Err(TreeError::Missing(path.to_owned()));
        }
        let makefile = path.join("Makefile");
        let version = match makefile.is_file() && path.join("Kbuild").is_file() {
            true => KernelVersion::from_makefile(&read(&makefile)?),
            false => None,
        };
        let Some(version) = version else {
            return Err(TreeError::NotSrctree(path.to_owned()));
        };
        if !path.join("rust/kernel").is_dir() {
            return Err(TreeError::NoRustSupport { path: path.to_owned(), version });
        }
        Ok(Srctree { path: path.to_owned(), version })
    }
}

impl Objtree {
    /// Opens the build tree at `path` for `srctree`: configured, with `CONFIG_RUST=y`.
    pub fn open(srctree: &Srctree, path: &Path) -> Result<Objtree, TreeError> {
        if !path.is_dir() {
            return Err(TreeError::Missing(path.to_owned()));
        }
        let config_path = path.join(".config");
        if !config_path.is_file() {
            return Err(TreeError::NotConfigured {
                srctree: srctree.path.clone(),
                objtree: path.to_owned(),
            });
        }
        let config = Config::parse(&read(&config_path)?)
            .map_err(|source| TreeError::BadConfig { path: config_path, source })?;
        if config.get("RUST") != Some("y") {
            return Err(TreeError::NoRust {
                srctree: srctree.path.clone(),
                objtree: path.to_owned(),
            });
        }
        Ok(Objtree { path: path.to_owned(), config })
    }

    /// The artefacts of a finished build, or which one is missing.
    pub fn built(&self, srctree: &Srctree) -> Result<Built, TreeError> {
        let arch =
            self.arch().ok_or_else(|| TreeError::UnknownArch { objtree: self.path.clone() })?;
        let built =
            Built { vmlinux: self.path.join("vmlinux"), image: self.path.join(&arch.image), arch };
        for artefact in [&built.vmlinux, &built.image] {
            if !artefact.is_file() {
                return Err(TreeError::NotBuilt {
                    srctree: srctree.path.clone(),
                    objtree: self.path.clone(),
                    missing: artefact.clone(),
                });
            }
        }
        Ok(built)
    }

    /// The build tree at `path` alone, built: its srctree is where its `source` link points
    /// (an `O=` build), else itself (a build in the source tree).
    pub fn open_built(path: &Path) -> Result<(Objtree, Built), TreeError> {
        let srctree = Srctree::open(&path.join("source")).or_else(|_| Srctree::open(path))?;
        let objtree = Objtree::open(&srctree, path)?;
        let built = objtree.built(&srctree)?;
        Ok((objtree, built))
    }

    /// The architecture its `.config` is of, if the suite knows it.
    pub fn arch(&self) -> Option<Arch> {
        crate::arch::of_config(&self.config)
    }

    /// The path of a module built from `srctree`-relative `rel` (for example
    /// `samples/rust/rust_minimal.ko`).
    pub fn module(&self, rel: &str) -> PathBuf {
        self.path.join(rel)
    }
}

/// The modules (`.ko`) kbuild built in `objtree`, as its `modules.order` lists them, in that
/// order (none without one).
pub fn built_modules(objtree: &Path) -> Vec<PathBuf> {
    let order = std::fs::read_to_string(objtree.join("modules.order")).unwrap_or_default();
    order.lines().map(|line| objtree.join(Path::new(line.trim()).with_extension("ko"))).collect()
}

#[cfg(test)]
mod tests;
