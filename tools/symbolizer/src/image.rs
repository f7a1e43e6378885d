//! One ELF image: `vmlinux` (linked, absolute addresses) or a module's `.ko` (a relocatable
//! object: its sections all start at 0 and its DWARF needs relocations, so each allocated
//! section gets a base address of its own, as the module loader would give it, and the
//! relocations are applied while DWARF is read).

use std::collections::HashMap;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use gimli::{EndianReader, LittleEndian, RelocateReader};
use object::{
    Object, ObjectSection, ObjectSymbol, RelocationTarget, SectionFlags, SectionIndex, SymbolKind,
};

/// A source location of an address, innermost (inlined) first in lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The function, demangled without hash (`{:#}`), when DWARF names it.
    pub function: Option<String>,
    /// The file.
    pub file: Option<String>,
    /// The line.
    pub line: Option<u32>,
}

/// Why an image cannot be used.
#[derive(Debug, thiserror::Error)]
#[error("cannot read {}: {message}", path.display())]
pub struct ImageError {
    /// The file.
    pub path: PathBuf,
    /// What went wrong.
    pub message: String,
}

/// Relocations of one debug section: section offset → relocated value.
#[derive(Clone, Debug, Default)]
struct Relocations(Rc<HashMap<usize, u64>>);

impl gimli::Relocate<usize> for Relocations {
    fn relocate_address(&self, offset: usize, value: u64) -> gimli::Result<u64> {
        Ok(self.0.get(&offset).copied().unwrap_or(value))
    }

    fn relocate_offset(&self, offset: usize, value: usize) -> gimli::Result<usize> {
        Ok(self.0.get(&offset).map_or(value, |v| *v as usize))
    }
}

/// An image's bytes, which every section's reader shares: the file mapped into memory (only the
/// pages a lookup touches are read: a few of `vmlinux`'s 29 MB of `.debug_info`), or bytes in
/// memory (a compressed section's, the fuzzer's input).
#[derive(Clone, Debug)]
enum Bytes {
    Mapped(Rc<memmap2::Mmap>),
    Owned(Rc<[u8]>),
}

impl Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Owned(bytes) => bytes,
        }
    }
}

// SAFETY: what a `Bytes` derefs to stays where it is while any clone of it lives, however the
// clones move: it is behind an `Rc`, either a slice on the heap or a mapping, whose pages keep
// their address until it is unmapped on the last drop.
#[allow(unsafe_code)]
unsafe impl stable_deref_trait::StableDeref for Bytes {}
// SAFETY: a clone derefs to the same bytes (it clones the `Rc`), as above.
#[allow(unsafe_code)]
unsafe impl stable_deref_trait::CloneStableDeref for Bytes {}

type Reader = RelocateReader<EndianReader<LittleEndian, Bytes>, Relocations>;

/// An ELF file's function symbols and debug information.
pub struct Image {
    path: PathBuf,
    /// Function symbols by name: (address, size); for a `.ko`, in its own address layout.
    symbols: HashMap<String, (u64, u64)>,
    context: Option<addr2line::Context<Reader>>,
}

/// Where each allocated section of a relocatable object is placed (linked files: where they are).
fn section_bases(file: &object::File<'_>) -> HashMap<SectionIndex, u64> {
    let mut bases = HashMap::new();
    let relocatable = file.kind() == object::ObjectKind::Relocatable;
    let mut next = 0x1000_0000u64;
    for section in file.sections() {
        let alloc = match section.flags() {
            SectionFlags::Elf { sh_flags, .. } => sh_flags.0 & object::elf::SHF_ALLOC.0 != 0,
            _ => false,
        };
        if !relocatable {
            bases.insert(section.index(), 0);
        } else if alloc {
            // A crafted size or alignment can pass the end of the address space: such a
            // section gets no place (its symbols are read at their own addresses).
            let align = section.align().max(1);
            let Some(base) = next.div_ceil(align).checked_mul(align) else { continue };
            bases.insert(section.index(), base);
            next = base.saturating_add(section.size().max(1));
        }
    }
    bases
}

impl Image {
    /// Opens `path`, mapped into memory.
    pub fn open(path: &Path) -> Result<Image, ImageError> {
        let error =
            |e: std::io::Error| ImageError { path: path.to_owned(), message: e.to_string() };
        let file = std::fs::File::open(path).map_err(error)?;
        // SAFETY: the mapping is read-only and private. Were the file truncated or rewritten
        // while it is mapped (a kernel build writing `vmlinux` as we read it), reads would see
        // the new bytes or fault, as for every tool that maps object files (addr2line, gdb);
        // the suite reads build outputs that nothing writes while its tools run.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(error)?;
        Image::read(path, Bytes::Mapped(Rc::new(map)))
    }

    /// Reads an ELF file's symbols and DWARF out of its bytes; `path` names it in errors.
    pub fn parse(path: &Path, data: &[u8]) -> Result<Image, ImageError> {
        Image::read(path, Bytes::Owned(Rc::from(data)))
    }

    fn read(path: &Path, bytes: Bytes) -> Result<Image, ImageError> {
        let error = |message: String| ImageError { path: path.to_owned(), message };
        let data: &[u8] = &bytes;
        let file = object::File::parse(data).map_err(|e| error(e.to_string()))?;
        let bases = section_bases(&file);
        let address_of = |symbol: &object::Symbol<'_, '_>| match symbol.section_index() {
            Some(index) => bases.get(&index).copied().unwrap_or(0).wrapping_add(symbol.address()),
            None => symbol.address(),
        };
        let mut symbols = HashMap::new();
        for symbol in file.symbols() {
            if symbol.kind() == SymbolKind::Text
                && let Ok(name) = symbol.name()
            {
                symbols.entry(name.to_owned()).or_insert((address_of(&symbol), symbol.size()));
            }
        }
        let context = if file.section_by_name(".debug_info").is_some() {
            let load = |id: gimli::SectionId| -> Result<Reader, gimli::Error> {
                let Some(section) = file.section_by_name(id.name()) else {
                    return Ok(RelocateReader::new(
                        EndianReader::new(Bytes::Owned(Rc::from(&[][..])), LittleEndian),
                        Relocations::default(),
                    ));
                };
                let contents = section.uncompressed_data().map_err(|_| gimli::Error::Io)?;
                // A section as it is in the file is a range of the file's bytes; a compressed
                // one is decompressed into bytes of its own.
                let start = (contents.as_ptr() as usize).wrapping_sub(data.as_ptr() as usize);
                let reader = match contents {
                    std::borrow::Cow::Borrowed(slice)
                        if start.checked_add(slice.len()).is_some_and(|end| end <= data.len()) =>
                    {
                        EndianReader::new(bytes.clone(), LittleEndian)
                            .range(start..start + slice.len())
                    }
                    contents => EndianReader::new(Bytes::Owned(Rc::from(&*contents)), LittleEndian),
                };
                let mut relocations = HashMap::new();
                for (offset, relocation) in section.relocations() {
                    let target = match relocation.target() {
                        RelocationTarget::Symbol(index) => match file.symbol_by_index(index) {
                            Ok(symbol) => address_of(&symbol),
                            Err(_) => continue,
                        },
                        RelocationTarget::Section(index) => bases.get(&index).copied().unwrap_or(0),
                        _ => continue,
                    };
                    let value = target.wrapping_add_signed(relocation.addend());
                    relocations.insert(offset as usize, value);
                }
                Ok(RelocateReader::new(reader, Relocations(Rc::new(relocations))))
            };
            let dwarf = gimli::Dwarf::load(load).map_err(|e| error(format!("bad DWARF: {e}")))?;
            Some(
                addr2line::Context::from_dwarf(dwarf)
                    .map_err(|e| error(format!("bad DWARF: {e}")))?,
            )
        } else {
            None
        };
        Ok(Image { path: path.to_owned(), symbols, context })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether it has DWARF (a stripped `vmlinux` has not).
    pub fn has_dwarf(&self) -> bool {
        self.context.is_some()
    }

    /// The address and size of the function symbol `name`.
    pub fn symbol(&self, name: &str) -> Option<(u64, u64)> {
        self.symbols.get(name).copied()
    }

    /// Every function symbol: (name, address, size).
    pub fn symbols(&self) -> impl Iterator<Item = (&str, u64, u64)> {
        self.symbols.iter().map(|(name, (address, size))| (name.as_str(), *address, *size))
    }

    /// The one function symbol that starts with `prefix`, for a name that kallsyms cut at
    /// `KSYM_NAME_LEN - 1` characters: (its whole name, address, size).
    pub fn complete(&self, prefix: &str) -> Option<(&str, u64, u64)> {
        let mut found = self.symbols.iter().filter(|(name, _)| name.starts_with(prefix));
        match (found.next(), found.next()) {
            (Some((name, (address, size))), None) => Some((name.as_str(), *address, *size)),
            _ => None,
        }
    }

    /// The function symbol whose code holds `address`: (name, start, size). Of aliases, the
    /// first by name, so that the answer does not depend on hashing.
    pub fn function_at(&self, address: u64) -> Option<(&str, u64, u64)> {
        self.symbols
            .iter()
            .filter(|(_, (start, size))| (*start..start.saturating_add(*size)).contains(&address))
            .map(|(name, (start, size))| (name.as_str(), *start, *size))
            .min_by(|a, b| a.0.cmp(b.0))
    }

    /// The locations of `address`, innermost first; empty when DWARF does not cover it.
    pub fn locate(&self, address: u64) -> Vec<Location> {
        let mut out = Vec::new();
        let Some(context) = &self.context else { return out };
        let Ok(mut frames) = context.find_frames(address).skip_all_loads() else { return out };
        while let Ok(Some(frame)) = frames.next() {
            let function = frame
                .function
                .as_ref()
                .and_then(|f| f.raw_name().ok())
                .map(|name| format!("{:#}", rustc_demangle::demangle(&name)));
            let (file, line) = match frame.location {
                Some(l) => (l.file.map(str::to_owned), l.line),
                None => (None, None),
            };
            out.push(Location { function, file, line });
        }
        out
    }
}
