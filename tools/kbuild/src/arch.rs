//! Architectures as data: each folder of `demo-kernel/arch/` (`x86_64`, `arm64`) holds an
//! `arch.conf` that the Makefile includes and that is embedded here, so that adding an
//! architecture is adding a folder. A tree's architecture is the one whose Kconfig symbol its
//! `.config` enables ([`of_config`]).

use crate::config::Config;

include!(concat!(env!("OUT_DIR"), "/arches.rs"));

/// One architecture: how kbuild builds for it and how QEMU boots it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arch {
    /// Its folder's name, kbuild's `ARCH=` and KCIDB's architecture (`x86_64`, `arm64`).
    pub name: String,
    /// The Kconfig symbol a `.config` of it enables (`X86_64`, `ARM64`).
    pub config: String,
    /// `uname -m` on it (`x86_64`, `aarch64`), as Rust's `std::env::consts::ARCH` says it.
    pub uname: String,
    /// Debian's name for it (`amd64`, `arm64`).
    pub debian: String,
    /// kbuild's `CROSS_COMPILE` on an x86-64 machine (empty for its own architecture).
    pub cross_compile: String,
    /// The image the boot loader takes, relative to the objtree (`arch/arm64/boot/Image`).
    pub image: String,
    /// QEMU's program for it (the system emulator of `aarch64`), which only `tools/qemu` runs.
    pub qemu: String,
    /// QEMU's `-machine`.
    pub qemu_machine: String,
    /// QEMU's `-cpu` under TCG; `None` for QEMU's default.
    pub qemu_cpu: Option<String>,
    /// The console device (`ttyS0`, `ttyAMA0`).
    pub console: String,
}

/// Why an `arch.conf` cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ArchError {
    /// A line is neither a comment, blank, nor `NAME = value`.
    #[error("line {line}: expected `ARCH_NAME = value`, a comment or a blank line: {text:?}")]
    BadLine {
        /// 1-based.
        line: usize,
        /// The line.
        text: String,
    },
    /// A variable is missing.
    #[error("no {0} = ... line")]
    Missing(&'static str),
}

impl Arch {
    /// Reads `text`, an `arch.conf` in Make's `NAME = value` form, as architecture `name`.
    pub fn parse(name: &str, text: &str) -> Result<Arch, ArchError> {
        let mut vars = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let Some((key, value)) = line.split_once('=') else {
                return Err(ArchError::BadLine { line: i + 1, text: line.to_owned() });
            };
            vars.push((key.trim().to_owned(), value.trim().to_owned()));
        }
        let get = |key: &'static str| {
            vars.iter()
                .rev()
                .find(|(k, _)| k == key)
                .map(|(_, v)| v.clone())
                .ok_or(ArchError::Missing(key))
        };
        Ok(Arch {
            name: name.to_owned(),
            config: get("ARCH_CONFIG")?,
            uname: get("ARCH_UNAME")?,
            debian: get("ARCH_DEBIAN")?,
            cross_compile: get("ARCH_CROSS_COMPILE")?,
            image: get("ARCH_IMAGE")?,
            qemu: get("ARCH_QEMU")?,
            qemu_machine: get("ARCH_QEMU_MACHINE")?,
            qemu_cpu: Some(get("ARCH_QEMU_CPU")?).filter(|cpu| !cpu.is_empty()),
            console: get("ARCH_CONSOLE")?,
        })
    }

    /// Whether this is the architecture the tools run on: its binaries (busybox) run here
    /// and KVM can run its kernels.
    pub fn is_host(&self) -> bool {
        self.uname == std::env::consts::ARCH
    }
}

/// Every architecture the suite knows.
///
/// # Panics
///
/// If an embedded `arch.conf` does not parse (a unit test reads them all).
pub fn all() -> Vec<Arch> {
    ARCH_CONFS
        .iter()
        .map(|(name, text)| {
            Arch::parse(name, text)
                .unwrap_or_else(|e| panic!("demo-kernel/arch/{name}/arch.conf: {e}"))
        })
        .collect()
}

/// The architecture named `name` (`arm64`), or `None`.
pub fn named(name: &str) -> Option<Arch> {
    all().into_iter().find(|a| a.name == name)
}

/// The architecture of a tree with this `.config`, or `None` when it is none the suite knows.
pub fn of_config(config: &Config) -> Option<Arch> {
    all().into_iter().find(|a| config.is_enabled(&a.config))
}

/// The names of every architecture, for messages: `arm64, x86_64`.
pub fn names() -> String {
    ARCH_CONFS.iter().map(|(name, _)| *name).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_arch_conf_reads() {
        let arches = all();
        let names: Vec<&str> = arches.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["arm64", "x86_64"]);
        let arm64 = named("arm64").unwrap();
        assert_eq!(arm64.image, "arch/arm64/boot/Image");
        assert_eq!(arm64.cross_compile, "aarch64-linux-gnu-");
        assert_eq!(arm64.qemu_cpu.as_deref(), Some("max"));
        assert_eq!(named("x86_64").unwrap().qemu_cpu, None);
        assert!(named("x86_64").unwrap().is_host(), "the suite runs on x86-64 machines");
        assert!(!arm64.is_host());
    }

    #[test]
    fn a_tree_is_of_the_arch_its_config_enables() {
        let config = |text: &str| Config::parse(text).unwrap();
        assert_eq!(of_config(&config("CONFIG_ARM64=y\nCONFIG_64BIT=y\n")).unwrap().name, "arm64");
        assert_eq!(of_config(&config("CONFIG_X86_64=y\n")).unwrap().name, "x86_64");
        assert_eq!(of_config(&config("CONFIG_RISCV=y\n")), None);
    }

    #[test]
    fn bad_arch_conf_says_which_line() {
        assert_eq!(
            Arch::parse("x", "# ok\n\nARCH_CONFIG = X\nnonsense\n"),
            Err(ArchError::BadLine { line: 4, text: "nonsense".into() })
        );
        assert_eq!(Arch::parse("x", "ARCH_CONFIG = X\n"), Err(ArchError::Missing("ARCH_UNAME")));
    }
}
