//! Running kbuild: `make -C SRCTREE O=OBJTREE ...`, as the suite's one way to start it.

use std::path::Path;

use subprocess::Command;

use crate::config::Config;
use crate::rustc::parse_cmd_file;

/// A `make` in the kernel tree, isolated from any `make` that runs us: `MAKEFLAGS` would carry
/// our own command-line variables (such as `O=`) and jobserver into kbuild.
///
/// A tree built with clang gets its toolchain variable again ([`toolchain_vars`]) unless the
/// environment names one (`LLVM`, `CC`): without it kbuild would see GCC, reconfigure the tree
/// and rebuild all of it.
pub fn kernel_make(srctree: &Path, objtree: &Path) -> Command {
    let mut cmd = Command::new("make", srctree)
        .env_remove("MAKEFLAGS")
        .env_remove("MFLAGS")
        .env_remove("MAKELEVEL")
        .env_remove("MAKEOVERRIDES")
        .arg("-C")
        .arg(srctree)
        .arg(format!("O={}", objtree.display()));
    let read = |file: &str| std::fs::read_to_string(objtree.join(file)).ok();
    let built = read(".config")
        .and_then(|config| Config::parse(&config).ok())
        .zip(read("init/.main.o.cmd"));
    if let Some((config, main_o)) = built {
        if std::env::var_os("ARCH").is_none() {
            cmd = cmd.args(arch_vars(&config, &main_o));
        }
        if std::env::var_os("LLVM").is_none() && std::env::var_os("CC").is_none() {
            cmd = cmd.args(toolchain_vars(&config, &main_o));
        }
    }
    cmd
}

/// The make variables that select the architecture a tree was built for, from its `.config`
/// and the `.cmd` file of one C object: none for the machine's own; else `ARCH=` (an
/// [`crate::arch`] name) and, for GCC, the `CROSS_COMPILE=` prefix of the compiler it ran
/// (`aarch64-linux-gnu-gcc`). Without them kbuild would take the tree for the machine's own
/// architecture and reconfigure it.
pub fn arch_vars(config: &Config, main_o_cmd: &str) -> Vec<String> {
    let Some(arch) = crate::arch::of_config(config).filter(|a| !a.is_host()) else {
        return Vec::new();
    };
    let mut vars = vec![format!("ARCH={}", arch.name)];
    if !config.is_enabled("CC_IS_CLANG")
        && let Some(prefix) = parse_cmd_file(main_o_cmd)
            .and_then(|cmd| cmd.command.split_whitespace().next().map(str::to_owned))
            .and_then(|cc| cc.strip_suffix("gcc").map(str::to_owned))
            .filter(|prefix| !prefix.is_empty())
    {
        vars.push(format!("CROSS_COMPILE={prefix}"));
    }
    vars
}

/// The make variables that select the compiler a tree was built with, from its `.config` and
/// the `.cmd` file of one C object (`init/.main.o.cmd`): none for GCC; for clang with LLVM's
/// linker, `LLVM=1`, `LLVM=-19` (`clang-19`) or `LLVM=/usr/lib/llvm-19/bin/` as kbuild's
/// `LLVM` takes them (Documentation/kbuild/llvm.rst); for clang alone, `CC=`.
pub fn toolchain_vars(config: &Config, main_o_cmd: &str) -> Vec<String> {
    if !config.is_enabled("CC_IS_CLANG") {
        return Vec::new();
    }
    let Some(cc) = parse_cmd_file(main_o_cmd)
        .and_then(|cmd| cmd.command.split_whitespace().next().map(str::to_owned))
    else {
        return Vec::new();
    };
    if !config.is_enabled("LD_IS_LLD") {
        return vec![format!("CC={cc}")];
    }
    let llvm = if cc == "clang" {
        Some("1".to_owned())
    } else if let Some(suffix) = cc.strip_prefix("clang-").filter(|s| !s.contains('/')) {
        Some(format!("-{suffix}"))
    } else {
        cc.strip_suffix("clang").filter(|prefix| prefix.ends_with('/')).map(str::to_owned)
    };
    match llvm {
        Some(llvm) => vec![format!("LLVM={llvm}")],
        None => vec![format!("CC={cc}")],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(config: &str, cc: &str) -> Vec<String> {
        let config = Config::parse(config).unwrap();
        toolchain_vars(&config, &format!("savedcmd_init/main.o := {cc} -Wp,-MMD -c init/main.c\n"))
    }

    const LLVM: &str = "CONFIG_CC_IS_CLANG=y\nCONFIG_LD_IS_LLD=y\n";

    #[test]
    fn gcc_needs_nothing() {
        assert_eq!(vars("CONFIG_CC_IS_GCC=y\n", "gcc"), Vec::<String>::new());
    }

    #[test]
    fn llvm_as_kbuild_takes_it() {
        assert_eq!(vars(LLVM, "clang"), ["LLVM=1"]);
        assert_eq!(vars(LLVM, "clang-19"), ["LLVM=-19"]);
        assert_eq!(vars(LLVM, "/usr/lib/llvm-19/bin/clang"), ["LLVM=/usr/lib/llvm-19/bin/"]);
        // Neither a prefix nor a suffix alone: the compiler itself.
        assert_eq!(vars(LLVM, "/opt/bin/clang-19"), ["CC=/opt/bin/clang-19"]);
    }

    #[test]
    fn clang_with_gnu_binutils_is_cc() {
        assert_eq!(vars("CONFIG_CC_IS_CLANG=y\n", "clang-19"), ["CC=clang-19"]);
    }

    #[test]
    fn another_architecture_is_named_with_its_cross_compiler() {
        let arch = |config: &str, cc: &str| {
            let config = Config::parse(config).unwrap();
            arch_vars(&config, &format!("savedcmd_init/main.o := {cc} -c init/main.c\n"))
        };
        assert_eq!(arch("CONFIG_X86_64=y\n", "gcc"), Vec::<String>::new());
        assert_eq!(
            arch("CONFIG_ARM64=y\n", "aarch64-linux-gnu-gcc"),
            ["ARCH=arm64", "CROSS_COMPILE=aarch64-linux-gnu-"]
        );
        assert_eq!(arch(&format!("CONFIG_ARM64=y\n{LLVM}"), "clang-19"), ["ARCH=arm64"]);
        // An architecture the suite does not know: nothing to say.
        assert_eq!(arch("CONFIG_RISCV=y\n", "riscv64-linux-gnu-gcc"), Vec::<String>::new());
    }

    #[test]
    fn no_cmd_line_no_guess() {
        let config = Config::parse(LLVM).unwrap();
        assert_eq!(toolchain_vars(&config, ""), Vec::<String>::new());
        assert_eq!(toolchain_vars(&config, "savedcmd_init/main.o := \n"), Vec::<String>::new());
    }
}
