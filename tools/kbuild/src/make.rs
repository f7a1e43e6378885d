//! Running kbuild: `make -C SRCTREE O=OBJTREE ...`, as the suite's one way to start it.

use std::path::Path;

use subprocess::Command;

/// A `make` in the kernel tree, isolated from any `make` that runs us: `MAKEFLAGS` would carry
/// our own command-line variables (such as `O=`) and jobserver into kbuild.
pub fn kernel_make(srctree: &Path, objtree: &Path) -> Command {
    Command::new("make", srctree)
        .env_remove("MAKEFLAGS")
        .env_remove("MFLAGS")
        .env_remove("MAKELEVEL")
        .env_remove("MAKEOVERRIDES")
        .arg("-C")
        .arg(srctree)
        .arg(format!("O={}", objtree.display()))
}
