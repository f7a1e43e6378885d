//! Embeds every architecture of `demo-kernel/arch/*/arch.conf`, the data the Makefile reads too,
//! so that adding one is adding a folder (see `src/arch.rs`).

use std::fmt::Write;
use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let arches = manifest.join("../../demo-kernel/arch");
    println!("cargo::rerun-if-changed={}", arches.display());
    let mut names: Vec<String> = std::fs::read_dir(&arches)
        .unwrap_or_else(|e| panic!("{}: {e}", arches.display()))
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("arch.conf").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut out = String::from("/// Each `demo-kernel/arch/NAME/arch.conf`: `(NAME, text)`.\n");
    out.push_str("pub(crate) const ARCH_CONFS: &[(&str, &str)] = &[\n");
    for name in &names {
        let conf = arches.join(name).join("arch.conf");
        println!("cargo::rerun-if-changed={}", conf.display());
        let conf = conf.canonicalize().expect("it is a file");
        writeln!(out, "    ({name:?}, include_str!({:?})),", conf.display().to_string())
            .expect("a String takes every write");
    }
    out.push_str("];\n");
    let dest = PathBuf::from(std::env::var_os("OUT_DIR").expect("set by cargo")).join("arches.rs");
    std::fs::write(&dest, out).unwrap_or_else(|e| panic!("{}: {e}", dest.display()));
}
