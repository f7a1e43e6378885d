//! Reads both sides' layouts from an ELF file's DWARF, with gimli: the Rust types of the
//! `bindings` and `uapi` crates (structs and unions under those namespaces in any Rust compile
//! unit: the crates' own, `kernel`'s, the doctests', a module's), and the C definitions of the
//! same names in the C compile units (struct and union tags, and `typedef`s of anonymous ones).
//!
//! Takes bytes, does no I/O. A relocatable file (a `.ko`, a `.o`) has its debug sections'
//! relocations applied first, as its DWARF refers to strings through them.
//!
//! Each C compile unit has its own copy of every type it uses. A definition is read once: later
//! copies with the same name, size, alignment attribute and declaration line and column are
//! taken to be the same; one that differs is read and kept as another definition of the name.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};

use gimli::{
    AttributeValue, DwAt, DwTag, EndianSlice, LittleEndian, Reader as _, Unit, UnitOffset,
    constants,
};
use object::{Object, ObjectSection, ObjectSymbol, RelocationKind, RelocationTarget};

use crate::compare::Definitions;
use crate::model::{Align, AlignFrom, Kind, Member, Ty, Type};

/// Why an ELF file's DWARF cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Not an ELF file object reads.
    #[error("not an object file: {0}")]
    Object(#[from] object::Error),
    /// Malformed DWARF.
    #[error("bad DWARF: {0}")]
    Dwarf(#[from] gimli::Error),
    /// No `.debug_info` at all.
    #[error("no DWARF (.debug_info): build with CONFIG_DEBUG_INFO")]
    NoDwarf,
    /// A relocation that does not fit its section.
    #[error("relocation at {offset:#x} of {section} is out of bounds")]
    Relocation {
        /// The section.
        section: String,
        /// The offset.
        offset: u64,
    },
}

type Slice<'a> = EndianSlice<'a, LittleEndian>;

/// An ELF file's debug sections, relocated when the file is relocatable.
pub struct Sections<'data> {
    sections: gimli::DwarfSections<Cow<'data, [u8]>>,
}

impl<'data> Sections<'data> {
    /// Parses the file's debug sections out of its bytes.
    pub fn parse(data: &'data [u8]) -> Result<Sections<'data>, ReadError> {
        let file = object::File::parse(data)?;
        if file.section_by_name(".debug_info").is_none() {
            return Err(ReadError::NoDwarf);
        }
        let relocatable = file.kind() == object::ObjectKind::Relocatable;
        let sections = gimli::DwarfSections::load(|id| -> Result<Cow<'data, [u8]>, ReadError> {
            let Some(section) = file.section_by_name(id.name()) else {
                return Ok(Cow::Borrowed(&[]));
            };
            let mut bytes = section.uncompressed_data()?;
            if relocatable {
                relocate(&file, &section, bytes.to_mut())?;
            }
            Ok(bytes)
        })?;
        Ok(Sections { sections })
    }

    /// gimli's view of them.
    pub fn dwarf(&self) -> gimli::Dwarf<Slice<'_>> {
        self.sections.borrow(|s| EndianSlice::new(s, LittleEndian))
    }
}

/// Applies a debug section's absolute relocations (symbol value plus addend), which is what DWARF
/// in a relocatable file needs: offsets into `.debug_str`, `.debug_line`, `.debug_str_offsets`.
fn relocate(
    file: &object::File<'_>,
    section: &object::Section<'_, '_>,
    bytes: &mut [u8],
) -> Result<(), ReadError> {
    for (offset, relocation) in section.relocations() {
        if relocation.kind() != RelocationKind::Absolute {
            continue;
        }
        let base = match relocation.target() {
            RelocationTarget::Symbol(index) => file.symbol_by_index(index)?.address(),
            RelocationTarget::Section(_) => 0,
            _ => continue,
        };
        let value = base.wrapping_add_signed(relocation.addend());
        let width = usize::from(relocation.size() / 8);
        let start = offset as usize;
        let out_of_bounds =
            || ReadError::Relocation { section: section.name().unwrap_or("?").to_owned(), offset };
        let slot = start
            .checked_add(width)
            .and_then(|end| bytes.get_mut(start..end))
            .ok_or_else(out_of_bounds)?;
        match width {
            4 => slot.copy_from_slice(&(value as u32).to_le_bytes()),
            8 => slot.copy_from_slice(&value.to_le_bytes()),
            _ => continue,
        }
    }
    Ok(())
}

/// The Rust crates whose types are bindgen's.
pub const BINDGEN_CRATES: &[&str] = &["bindings", "uapi"];

/// Whether a Rust type of a bindgen crate is a top-level binding (and not one of bindgen's
/// generic helpers, or an anonymous type compared in place).
fn is_binding(name: &str) -> bool {
    !name.contains('<') && !name.contains("__bindgen_ty_") && !name.starts_with("__Bindgen")
}

/// Reads both sides out of images, in two passes: first every image's Rust types (which say
/// which names matter), then every image's C definitions of those names.
#[derive(Default)]
pub struct Collector {
    /// What was read.
    pub defs: Definitions,
    /// C definitions seen, to read each one once.
    seen: HashSet<Fingerprint>,
}

/// What tells a C definition apart from another of the same name without reading its members.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Fingerprint {
    name: String,
    tag: DwTag,
    size: Option<u64>,
    align: Option<u64>,
    line: Option<u64>,
    column: Option<u64>,
}

impl Collector {
    /// Adds the Rust types of `bindings` and `uapi` in `dwarf`'s Rust compile units.
    pub fn add_rust(&mut self, dwarf: &gimli::Dwarf<Slice<'_>>) -> Result<(), ReadError> {
        let mut units = dwarf.units();
        while let Some(header) = units.next()? {
            let unit = dwarf.unit(header)?;
            if language(&unit) != Some(constants::DW_LANG_Rust) {
                continue;
            }
            let mut reader = UnitReader::new(dwarf, &unit, true);
            let mut tree = unit.entries_tree(None)?;
            let root = tree.root()?;
            let mut path = Vec::new();
            reader.walk_rust(root, &mut path, &mut self.defs.rust)?;
        }
        Ok(())
    }

    /// Adds the C definitions in `dwarf`'s C compile units of the names Rust has.
    pub fn add_c(&mut self, dwarf: &gimli::Dwarf<Slice<'_>>) -> Result<(), ReadError> {
        let wanted: HashSet<&str> = self.defs.rust.keys().map(|(_, name)| name.as_str()).collect();
        let mut found: Vec<Type> = Vec::new();
        let mut units = dwarf.units();
        while let Some(header) = units.next()? {
            let unit = dwarf.unit(header)?;
            if !is_c(&unit) {
                continue;
            }
            let mut reader = UnitReader::new(dwarf, &unit, false);
            let mut tree = unit.entries_tree(None)?;
            let root = tree.root()?;
            let mut children = root.children();
            while let Some(child) = children.next()? {
                let entry = child.entry();
                let tag = entry.tag();
                if !matches!(
                    tag,
                    constants::DW_TAG_structure_type
                        | constants::DW_TAG_union_type
                        | constants::DW_TAG_typedef
                ) {
                    continue;
                }
                let Some(name) = reader.string(entry, constants::DW_AT_name) else { continue };
                if !wanted.contains(name.as_str()) {
                    continue;
                }
                // A typedef names a definition when it is of an anonymous struct or union.
                let offset = if tag == constants::DW_TAG_typedef {
                    let Some(target) = reader.reference(entry, constants::DW_AT_type) else {
                        continue;
                    };
                    let target_entry = unit.entry(target)?;
                    if !matches!(
                        target_entry.tag(),
                        constants::DW_TAG_structure_type | constants::DW_TAG_union_type
                    ) || target_entry.attr(constants::DW_AT_name).is_some()
                    {
                        continue;
                    }
                    target
                } else {
                    entry.offset()
                };
                let def = unit.entry(offset)?;
                if def.attr(constants::DW_AT_declaration).is_some() {
                    continue;
                }
                let fingerprint = Fingerprint {
                    name: name.clone(),
                    tag: def.tag(),
                    size: udata(&def, constants::DW_AT_byte_size),
                    align: udata(&def, constants::DW_AT_alignment),
                    line: udata(&def, constants::DW_AT_decl_line),
                    column: udata(&def, constants::DW_AT_decl_column),
                };
                if !self.seen.insert(fingerprint) {
                    continue;
                }
                let mut ty = reader.parse_type(offset)?;
                ty.name = name;
                ty.decl = reader.decl(&def);
                found.push(ty);
            }
        }
        for ty in found {
            let defs = self.defs.c.entry(ty.name.clone()).or_default();
            // The same definition declared elsewhere (or read twice) is one definition.
            if !defs.iter().any(|d| same_layout(d, &ty)) {
                defs.push(ty);
            }
        }
        Ok(())
    }
}

/// Where C declares every top-level name of the C compile units: functions (where they are
/// defined, else declared), enums and their enumerators, typedefs and variables; the first one
/// read wins. For documentation that links a binding to its C declaration, beside the struct and
/// union definitions of [`Collector`].
#[derive(Default)]
pub struct CDecls {
    /// `file:line` by name; an enumerator has its enum's.
    pub decls: BTreeMap<String, String>,
    /// Functions seen only declared so far, which a definition replaces.
    declared_only: HashSet<String>,
}

impl CDecls {
    /// Adds the declarations of `dwarf`'s C compile units.
    pub fn add(&mut self, dwarf: &gimli::Dwarf<Slice<'_>>) -> Result<(), ReadError> {
        let mut units = dwarf.units();
        while let Some(header) = units.next()? {
            let unit = dwarf.unit(header)?;
            if !is_c(&unit) {
                continue;
            }
            let reader = UnitReader::new(dwarf, &unit, false);
            let mut tree = unit.entries_tree(None)?;
            let root = tree.root()?;
            let mut children = root.children();
            while let Some(child) = children.next()? {
                let entry = child.entry().clone();
                let tag = entry.tag();
                if !matches!(
                    tag,
                    constants::DW_TAG_subprogram
                        | constants::DW_TAG_enumeration_type
                        | constants::DW_TAG_typedef
                        | constants::DW_TAG_variable
                ) {
                    continue;
                }
                let Some(decl) = reader.decl(&entry) else { continue };
                let declaration = entry.attr(constants::DW_AT_declaration).is_some();
                let name = reader.string(&entry, constants::DW_AT_name);
                if tag == constants::DW_TAG_enumeration_type {
                    let mut enumerators = child.children();
                    while let Some(e) = enumerators.next()? {
                        if let Some(name) = reader.string(e.entry(), constants::DW_AT_name) {
                            self.decls.entry(name).or_insert_with(|| decl.clone());
                        }
                    }
                }
                let Some(name) = name else { continue };
                let definition_of_declared = !declaration
                    && tag == constants::DW_TAG_subprogram
                    && self.declared_only.remove(&name);
                if definition_of_declared {
                    self.decls.insert(name, decl);
                } else if !self.decls.contains_key(&name) {
                    if declaration && tag == constants::DW_TAG_subprogram {
                        self.declared_only.insert(name.clone());
                    }
                    self.decls.insert(name, decl);
                }
            }
        }
        Ok(())
    }
}

/// Whether two C definitions have the same layout (where they are declared aside).
fn same_layout(a: &Type, b: &Type) -> bool {
    a.kind == b.kind && a.size == b.size && a.align == b.align && a.members == b.members
}

/// A compile unit of C (not Rust, not assembly, not of an unknown language).
fn is_c(unit: &Unit<Slice<'_>>) -> bool {
    !matches!(
        language(unit),
        Some(constants::DW_LANG_Rust | constants::DW_LANG_Mips_Assembler) | None
    )
}

fn language(unit: &Unit<Slice<'_>>) -> Option<gimli::DwLang> {
    let mut entries = unit.entries();
    let root = entries.next_dfs().ok()??;
    match root.attr_value(constants::DW_AT_language)? {
        AttributeValue::Language(lang) => Some(lang),
        _ => None,
    }
}

fn udata(entry: &gimli::DebuggingInformationEntry<Slice<'_>>, at: DwAt) -> Option<u64> {
    entry.attr(at)?.udata_value()
}

/// How deep types may nest before the reader gives up on them (a loop in bad DWARF).
const MAX_DEPTH: usize = 64;

/// Reads types out of one compile unit, each DIE once.
struct UnitReader<'a, 'd> {
    dwarf: &'a gimli::Dwarf<Slice<'d>>,
    unit: &'a Unit<Slice<'d>>,
    rust: bool,
    types: HashMap<UnitOffset, Ty>,
    depth: usize,
}

impl<'a, 'd> UnitReader<'a, 'd> {
    fn new(dwarf: &'a gimli::Dwarf<Slice<'d>>, unit: &'a Unit<Slice<'d>>, rust: bool) -> Self {
        UnitReader { dwarf, unit, rust, types: HashMap::new(), depth: 0 }
    }

    fn string(
        &self,
        entry: &gimli::DebuggingInformationEntry<Slice<'d>>,
        at: DwAt,
    ) -> Option<String> {
        let value = entry.attr(at)?.value();
        let s = self.dwarf.attr_string(self.unit, value).ok()?;
        Some(s.to_string_lossy().into_owned())
    }

    fn reference(
        &self,
        entry: &gimli::DebuggingInformationEntry<Slice<'d>>,
        at: DwAt,
    ) -> Option<UnitOffset> {
        match entry.attr(at)?.value() {
            AttributeValue::UnitRef(offset) => Some(offset),
            AttributeValue::DebugInfoRef(offset) => offset.to_unit_offset(&self.unit.header),
            _ => None,
        }
    }

    /// `file:line` of a declaration, through the unit's line program.
    fn decl(&self, entry: &gimli::DebuggingInformationEntry<Slice<'d>>) -> Option<String> {
        let line = udata(entry, constants::DW_AT_decl_line)?;
        let index = udata(entry, constants::DW_AT_decl_file)?;
        let header = self.unit.line_program.as_ref()?.header();
        let file = header.file(index)?;
        let name = self.dwarf.attr_string(self.unit, file.path_name()).ok()?;
        let name = name.to_string_lossy().into_owned();
        let path = if name.starts_with('/') {
            name
        } else {
            let dir =
                file.directory(header).and_then(|d| self.dwarf.attr_string(self.unit, d).ok());
            match dir.map(|d| d.to_string_lossy().into_owned()) {
                Some(dir) if !dir.is_empty() => format!("{dir}/{name}"),
                _ => name,
            }
        };
        Some(format!("{path}:{line}"))
    }

    /// Walks namespaces, reading the structs and unions of bindgen's crates.
    fn walk_rust(
        &mut self,
        node: gimli::EntriesTreeNode<'_, '_, Slice<'d>>,
        path: &mut Vec<String>,
        out: &mut BTreeMap<(String, String), Type>,
    ) -> Result<(), ReadError> {
        let mut children = node.children();
        while let Some(child) = children.next()? {
            let entry = child.entry();
            match entry.tag() {
                constants::DW_TAG_namespace => {
                    let name = self.string(entry, constants::DW_AT_name).unwrap_or_default();
                    if path.is_empty() && !BINDGEN_CRATES.contains(&name.as_str()) {
                        continue;
                    }
                    path.push(name);
                    self.walk_rust(child, path, out)?;
                    path.pop();
                }
                constants::DW_TAG_structure_type | constants::DW_TAG_union_type
                    if !path.is_empty() =>
                {
                    let Some(name) = self.string(entry, constants::DW_AT_name) else { continue };
                    let key = (path[0].clone(), name);
                    if !is_binding(&key.1) || out.contains_key(&key) {
                        continue;
                    }
                    if entry.attr(constants::DW_AT_declaration).is_some() {
                        continue;
                    }
                    let ty = self.parse_type(entry.offset())?;
                    out.insert(key, ty);
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Reads the struct or union at `offset`.
    fn parse_type(&mut self, offset: UnitOffset) -> Result<Type, ReadError> {
        let unit = self.unit;
        let mut tree = unit.entries_tree(Some(offset))?;
        let root = tree.root()?;
        let entry = root.entry();
        let kind =
            if entry.tag() == constants::DW_TAG_union_type { Kind::Union } else { Kind::Struct };
        let name = self.string(entry, constants::DW_AT_name).unwrap_or_default();
        let size = udata(entry, constants::DW_AT_byte_size).unwrap_or(0);
        let align_attribute = udata(entry, constants::DW_AT_alignment);
        let mut members = Vec::new();
        let mut children = root.children();
        while let Some(child) = children.next()? {
            let entry = child.entry();
            if entry.tag() != constants::DW_TAG_member
                || entry.attr(constants::DW_AT_external).is_some()
            {
                continue;
            }
            members.push(self.member(entry)?);
        }
        let align = match align_attribute {
            Some(bytes) => Align::attribute(bytes),
            None => natural(size, &members),
        };
        Ok(Type { name, kind, size, align, members, decl: None })
    }

    fn member(
        &mut self,
        entry: &gimli::DebuggingInformationEntry<Slice<'d>>,
    ) -> Result<Member, ReadError> {
        let name = self.string(entry, constants::DW_AT_name);
        let ty = match self.reference(entry, constants::DW_AT_type) {
            Some(offset) => self.resolve(offset)?,
            None => Ty::Scalar { name: "void".to_owned(), size: 0, align: Align::members(1) },
        };
        let byte_offset = match entry.attr(constants::DW_AT_data_member_location).map(|a| a.value())
        {
            Some(AttributeValue::Exprloc(expr)) => plus_uconst(expr.0),
            Some(value) => value.udata_value().unwrap_or(0),
            None => 0,
        };
        let bit_size = udata(entry, constants::DW_AT_bit_size);
        let bit_offset = match (udata(entry, constants::DW_AT_data_bit_offset), bit_size) {
            (Some(bits), _) => bits,
            // DWARF 2 to 4: the bit offset counts from the storage unit's most significant bit.
            (None, Some(bits)) => match (
                udata(entry, constants::DW_AT_bit_offset),
                udata(entry, constants::DW_AT_byte_size),
            ) {
                (Some(from_top), Some(storage)) => {
                    byte_offset * 8 + (storage * 8).saturating_sub(from_top + bits)
                }
                _ => byte_offset * 8,
            },
            (None, None) => byte_offset * 8,
        };
        let align = udata(entry, constants::DW_AT_alignment);
        Ok(Member { name, bit_offset, bit_size, align, ty })
    }

    /// The type at `offset`, as far as layout needs.
    fn resolve(&mut self, offset: UnitOffset) -> Result<Ty, ReadError> {
        if let Some(ty) = self.types.get(&offset) {
            return Ok(ty.clone());
        }
        if self.depth >= MAX_DEPTH {
            return Ok(Ty::Scalar {
                name: "(too deep)".to_owned(),
                size: 0,
                align: Align::members(1),
            });
        }
        self.depth += 1;
        let ty = self.resolve_uncached(offset);
        self.depth -= 1;
        let ty = ty?;
        self.types.insert(offset, ty.clone());
        Ok(ty)
    }

    fn resolve_uncached(&mut self, offset: UnitOffset) -> Result<Ty, ReadError> {
        let entry = self.unit.entry(offset)?;
        let name = self.string(&entry, constants::DW_AT_name);
        let size = udata(&entry, constants::DW_AT_byte_size);
        let align = udata(&entry, constants::DW_AT_alignment);
        let target = self.reference(&entry, constants::DW_AT_type);
        let void = || Ty::Scalar { name: "void".to_owned(), size: 0, align: Align::members(1) };
        Ok(match entry.tag() {
            constants::DW_TAG_base_type | constants::DW_TAG_enumeration_type => {
                let size = size.unwrap_or(0);
                Ty::Scalar {
                    name: name.unwrap_or_else(|| "enum".to_owned()),
                    size,
                    align: align.map_or(Align::abi(size.clamp(1, 16)), Align::attribute),
                }
            }
            constants::DW_TAG_pointer_type
            | constants::DW_TAG_reference_type
            | constants::DW_TAG_rvalue_reference_type
            | constants::DW_TAG_ptr_to_member_type => {
                let size = size.unwrap_or(u64::from(self.unit.header.address_size()));
                Ty::Scalar { name: "*".to_owned(), size, align: Align::abi(size.max(1)) }
            }
            constants::DW_TAG_typedef => {
                let Some(target) = target else { return Ok(void()) };
                let target_entry = self.unit.entry(target)?;
                let anonymous = target_entry.attr(constants::DW_AT_name).is_none();
                let mut ty = match target_entry.tag() {
                    // A typedef of an anonymous struct names it (`atomic_t`), as bindgen does.
                    constants::DW_TAG_structure_type | constants::DW_TAG_union_type
                        if anonymous && !self.rust =>
                    {
                        let t = self.parse_type(target)?;
                        Ty::Named {
                            kind: t.kind,
                            name: name.unwrap_or_default(),
                            size: t.size,
                            align: t.align,
                        }
                    }
                    _ => self.resolve(target)?,
                };
                if let Some(bytes) = align {
                    set_align(&mut ty, Align::attribute(bytes));
                }
                ty
            }
            constants::DW_TAG_structure_type
            | constants::DW_TAG_union_type
            | constants::DW_TAG_class_type => self.aggregate(offset, &entry, name, size, align)?,
            constants::DW_TAG_array_type => {
                let element = match target {
                    Some(t) => self.resolve(t)?,
                    None => void(),
                };
                let mut counts = Vec::new();
                let mut tree = self.unit.entries_tree(Some(offset))?;
                let root = tree.root()?;
                let mut children = root.children();
                while let Some(child) = children.next()? {
                    let e = child.entry();
                    if e.tag() == constants::DW_TAG_subrange_type {
                        counts.push(count(e));
                    }
                }
                if counts.is_empty() {
                    counts.push(None);
                }
                // Outermost dimension first in DWARF; build from the innermost.
                counts
                    .into_iter()
                    .rev()
                    .fold(element, |element, count| Ty::Array { element: Box::new(element), count })
            }
            constants::DW_TAG_subroutine_type => {
                Ty::Scalar { name: "fn".to_owned(), size: 0, align: Align::members(1) }
            }
            // const, volatile, restrict, _Atomic, and anything else that wraps a type.
            _ => match target {
                Some(t) => {
                    let mut ty = self.resolve(t)?;
                    if let Some(bytes) = align {
                        set_align(&mut ty, Align::attribute(bytes));
                    }
                    ty
                }
                None => void(),
            },
        })
    }

    fn aggregate(
        &mut self,
        offset: UnitOffset,
        entry: &gimli::DebuggingInformationEntry<Slice<'d>>,
        name: Option<String>,
        size: Option<u64>,
        align: Option<u64>,
    ) -> Result<Ty, ReadError> {
        let kind =
            if entry.tag() == constants::DW_TAG_union_type { Kind::Union } else { Kind::Struct };
        let size_or_0 = size.unwrap_or(0);
        let Some(name) = name else {
            return Ok(Ty::Anonymous(Box::new(self.parse_type(offset)?)));
        };
        if self.rust {
            if name.starts_with("__BindgenBitfieldUnit<") {
                return Ok(Ty::BitfieldUnit { size: size_or_0 });
            }
            if name.starts_with("__IncompleteArrayField<") {
                return Ok(Ty::IncompleteArray { align: align.unwrap_or(1) });
            }
            if name.starts_with("__BindgenUnionField<") {
                return Ok(Ty::UnionField);
            }
            if name.starts_with("__BindgenOpaqueArray") {
                return Ok(Ty::OpaqueBlob { size: size_or_0, align: align.unwrap_or(1) });
            }
            if name.contains("__bindgen_ty_") {
                return Ok(Ty::Anonymous(Box::new(self.parse_type(offset)?)));
            }
        }
        let align = match align {
            Some(bytes) => Align::attribute(bytes),
            None if entry.attr(constants::DW_AT_declaration).is_some() => Align::members(1),
            // A C struct's alignment is its members' unless DWARF says otherwise.
            None => self.parse_type(offset)?.align,
        };
        Ok(Ty::Named { kind, name, size: size_or_0, align })
    }
}

/// Replaces a type's alignment (an aligned typedef or qualifier).
fn set_align(ty: &mut Ty, new: Align) {
    match ty {
        Ty::Scalar { align, .. } | Ty::Named { align, .. } => *align = new,
        Ty::Anonymous(t) => t.align = new,
        _ => {}
    }
}

/// The element count of a `DW_TAG_subrange_type`: `DW_AT_count`, or the bounds; `None` for a
/// flexible array (neither), `0` for `[0]` (an upper bound of -1).
fn count(entry: &gimli::DebuggingInformationEntry<Slice<'_>>) -> Option<u64> {
    if let Some(count) = udata(entry, constants::DW_AT_count) {
        return Some(count);
    }
    let upper = entry.attr(constants::DW_AT_upper_bound)?;
    let lower = udata(entry, constants::DW_AT_lower_bound).unwrap_or(0);
    let upper = match upper.value() {
        AttributeValue::Sdata(v) if v < 0 => return Some(0),
        AttributeValue::Data4(0xffff_ffff) => return Some(0),
        AttributeValue::Data8(u64::MAX) => return Some(0),
        value => value.udata_value()?,
    };
    Some((upper + 1).saturating_sub(lower))
}

/// A member location written as `DW_OP_plus_uconst N` (older DWARF).
fn plus_uconst(mut expr: Slice<'_>) -> u64 {
    match expr.read_u8() {
        Ok(0x23) => expr.read_uleb128().unwrap_or(0),
        _ => 0,
    }
}

/// The alignment a C type gets from its members. A member below its exact alignment (a base
/// type's, an attribute's) means the type is packed: aligned 1. A member below an alignment
/// derived from its own members means that member's type is packed, and it counts for what
/// its offset allows.
fn natural(size: u64, members: &[Member]) -> Align {
    let (mut largest, mut largest_exact) = (1, 1);
    for m in members {
        let align = m.alignment();
        let bytes = align.bytes.max(1);
        let offset = m.bit_offset / 8;
        let misplaced = m.bit_size.is_none()
            && (!m.bit_offset.is_multiple_of(8) || !offset.is_multiple_of(bytes));
        if misplaced && align.exact() {
            return Align { bytes: 1, from: AlignFrom::Packed };
        }
        let fits = if misplaced {
            1 << offset.trailing_zeros().min(bytes.trailing_zeros())
        } else {
            bytes
        };
        largest = largest.max(fits);
        if align.exact() {
            largest_exact = largest_exact.max(bytes);
        }
    }
    if !size.is_multiple_of(largest_exact) {
        return Align { bytes: 1, from: AlignFrom::Packed };
    }
    if !size.is_multiple_of(largest) {
        largest = 1 << size.trailing_zeros().min(largest.trailing_zeros());
    }
    Align::members(largest)
}
