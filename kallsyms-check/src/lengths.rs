//! How long the Rust function symbols of vmlinux and the modules are, against the limits of
//! those who read them: tools with `READER_NAME_LEN`-byte buffers (bcc), and kallsyms'
//! own `KSYM_NAME_LEN`, counting the `__pfx_`/`__cfi_` prefixes the build may add.
//!
//! [`image_symbols`] is pure: it takes the names of an image's symbols and, for vmlinux, the
//! names its kallsyms table holds; [`scan`] reads them from the files.

use std::collections::HashSet;
use std::path::Path;

use object::{Object, ObjectSymbol, SymbolKind};
use report::results::{ImageSymbols, LongSymbol, READER_NAME_LEN, SymbolFate};
use symbolizer::ImageError;

use crate::table::{Held, TableError, held_as, read_names};
use crate::{KSYM_NAME_LEN, length_histogram, prefixed_length};

/// Whose symbols they are.
pub enum Owner<'a> {
    /// vmlinux, with the names its kallsyms table holds, or why they could not be read.
    Vmlinux(Result<&'a HashSet<&'a str>, &'a TableError>),
    /// A module: its kallsyms is built at load time from its own symbol table.
    Module,
}

/// The lengths of the Rust function symbols (`_R`) among `names`, those of `image`.
pub fn image_symbols<'a>(
    image: &str,
    names: impl Iterator<Item = &'a str>,
    owner: &Owner<'_>,
) -> ImageSymbols {
    let rust: Vec<&str> = names.filter(|n| n.starts_with("_R")).collect();
    let at_ksym_name_len = rust
        .iter()
        .filter(|n| prefixed_length(n) >= KSYM_NAME_LEN)
        .map(|symbol| LongSymbol { symbol: (*symbol).to_owned(), fate: fate(symbol, owner) })
        .collect();
    ImageSymbols {
        image: image.to_owned(),
        rust_symbols: rust.len(),
        longest: rust.iter().map(|n| n.len()).max().unwrap_or(0),
        histogram: length_histogram(rust.iter().map(|n| n.len())),
        over_reader_len: rust.iter().filter(|n| n.len() >= READER_NAME_LEN).count(),
        at_ksym_name_len,
    }
}

/// What kallsyms makes of `symbol`, whose prefixed name reaches `KSYM_NAME_LEN`.
fn fate(symbol: &str, owner: &Owner<'_>) -> SymbolFate {
    if symbol.len() < KSYM_NAME_LEN {
        return SymbolFate::OverOncePrefixed;
    }
    match owner {
        Owner::Module => SymbolFate::CutInModule,
        Owner::Vmlinux(Err(e)) => SymbolFate::Unknown(e.to_string()),
        Owner::Vmlinux(Ok(held)) => match held_as(symbol, held) {
            Held::Whole => SymbolFate::HeldWhole,
            Held::Cut => SymbolFate::HeldCut,
            Held::LeftOut => SymbolFate::LeftOut,
        },
    }
}

/// [`image_symbols`] of vmlinux (its path and bytes; its symbols as its own kallsyms table
/// holds them) and of every module (`.ko`) with Rust code under `modules_dirs`, vmlinux first.
pub fn scan(
    vmlinux: &Path,
    bytes: &[u8],
    modules_dirs: &[&Path],
) -> Result<Vec<ImageSymbols>, ImageError> {
    let table = read_names(bytes);
    let held: HashSet<&str> = table.iter().flatten().map(|entry| entry.name.as_str()).collect();
    let owner = Owner::Vmlinux(table.as_ref().map(|_| &held));
    let names = function_names(vmlinux, bytes)?;
    let mut images =
        vec![image_symbols(&vmlinux.display().to_string(), names.iter().copied(), &owner)];
    for dir in modules_dirs {
        for (name, path) in symbolizer::find_modules(dir) {
            let error = |message: String| ImageError { path: path.clone(), message };
            let bytes = std::fs::read(&path).map_err(|e| error(e.to_string()))?;
            let names = function_names(&path, &bytes)?;
            let image = image_symbols(&name, names.iter().copied(), &Owner::Module);
            // A C module has nothing to show.
            if image.rust_symbols > 0 {
                images.push(image);
            }
        }
    }
    Ok(images)
}

/// The names of the function symbols of the ELF file `path`, whose bytes are `bytes`.
fn function_names<'a>(path: &Path, bytes: &'a [u8]) -> Result<Vec<&'a str>, ImageError> {
    let file = object::File::parse(bytes)
        .map_err(|e| ImageError { path: path.to_owned(), message: e.to_string() })?;
    let mut names: Vec<&str> = file
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text)
        .filter_map(|s| s.name().ok())
        .collect();
    names.sort_unstable();
    names.dedup();
    Ok(names)
}

#[cfg(test)]
mod tests;
