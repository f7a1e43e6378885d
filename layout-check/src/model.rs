//! The layout model both sides are read into: a struct or union with its size, alignment and
//! members, each member at a bit offset with a type described as far as layout needs. The C
//! side's types come from the C compile units' DWARF, the Rust side's from the `bindings` and
//! `uapi` crates' types in the Rust compile units (see [`crate::dwarf`]).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// A struct or a union.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// `struct`.
    Struct,
    /// `union`.
    Union,
}

impl Kind {
    /// `struct` or `union`.
    pub fn keyword(self) -> &'static str {
        match self {
            Kind::Struct => "struct",
            Kind::Union => "union",
        }
    }
}

/// Where an alignment comes from, which says how sure it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AlignFrom {
    /// `DW_AT_alignment` (rustc puts it on every Rust type and member; C compilers on types
    /// and members with an `aligned` attribute): exact.
    Attribute,
    /// A base type's or pointer's, which the ABI fixes (x86-64: its size, up to 16): exact.
    Abi,
    /// The largest alignment of its members, or the size of a base type: exact unless the C
    /// type is packed with every member at an offset that hides it (DWARF does not say
    /// `packed`), so it is an upper bound.
    Members,
    /// A C member sits below its own alignment, or the size is not a multiple of it: the type
    /// is packed, aligned 1.
    Packed,
}

/// An alignment in bytes, and how it is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Align {
    /// Bytes.
    pub bytes: u64,
    /// Where it comes from.
    pub from: AlignFrom,
}

impl Align {
    /// An alignment from `DW_AT_alignment`.
    pub fn attribute(bytes: u64) -> Align {
        Align { bytes, from: AlignFrom::Attribute }
    }

    /// A base type's or pointer's alignment.
    pub fn abi(bytes: u64) -> Align {
        Align { bytes, from: AlignFrom::Abi }
    }

    /// An alignment derived from members.
    pub fn members(bytes: u64) -> Align {
        Align { bytes, from: AlignFrom::Members }
    }

    /// Whether the alignment is known exactly.
    pub fn exact(self) -> bool {
        self.from != AlignFrom::Members
    }

    /// Whether a C alignment (`self`) and a Rust one surely differ: either is exact and they
    /// differ, or Rust's is larger than the most the C type can have.
    pub fn surely_differs(self, rust: Align) -> bool {
        if self.exact() { self.bytes != rust.bytes } else { rust.bytes > self.bytes }
    }
}

/// A struct or union definition.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Type {
    /// The name: a C tag (or the `typedef` of an anonymous type), a Rust type's last path
    /// segment; empty for a C anonymous type; bindgen's `outer__bindgen_ty_N` for Rust's.
    pub name: String,
    /// Struct or union.
    pub kind: Kind,
    /// `DW_AT_byte_size`.
    pub size: u64,
    /// Its alignment.
    pub align: Align,
    /// Its members, in declaration order.
    pub members: Vec<Member>,
    /// Where a C type is declared (`include/linux/sched.h:835`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decl: Option<String>,
}

/// A member of a struct or union.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Member {
    /// Its name; `None` for a C anonymous struct or union member.
    pub name: Option<String>,
    /// Offset from the start of the type it is in, in bits.
    pub bit_offset: u64,
    /// For a C bitfield, its width in bits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bit_size: Option<u64>,
    /// `DW_AT_alignment` of the member itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub align: Option<u64>,
    /// Its type.
    pub ty: Ty,
}

impl Member {
    /// The member's alignment: its own attribute, else its type's.
    pub fn alignment(&self) -> Align {
        match self.align {
            Some(bytes) => Align::attribute(bytes),
            None => self.ty.align(),
        }
    }

    /// The name to show: the member's, or `(anonymous union)`.
    pub fn display_name(&self) -> String {
        match (&self.name, &self.ty) {
            (Some(name), _) => name.clone(),
            (None, Ty::Anonymous(t)) => format!("(anonymous {})", t.kind.keyword()),
            (None, _) => "(anonymous)".to_owned(),
        }
    }
}

/// A member's type, described as far as layout needs.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ty {
    /// A base type, pointer or enum: its size and alignment are all there is to compare.
    Scalar {
        /// How DWARF names it (`unsigned int`, `*`, `u32`).
        name: String,
        /// Bytes.
        size: u64,
        /// Bytes.
        align: Align,
    },
    /// A named struct or union, compared on its own.
    Named {
        /// Struct or union.
        kind: Kind,
        /// Its name.
        name: String,
        /// Bytes.
        size: u64,
        /// Its alignment.
        align: Align,
    },
    /// An anonymous struct or union (bindgen's `outer__bindgen_ty_N`), compared in place.
    Anonymous(Box<Type>),
    /// An array.
    Array {
        /// The element type.
        element: Box<Ty>,
        /// The number of elements; `None` for a C flexible array member.
        count: Option<u64>,
    },
    /// bindgen's `__BindgenBitfieldUnit<[u8; N]>`: the storage of C bitfields.
    BitfieldUnit {
        /// Bytes.
        size: u64,
    },
    /// bindgen's `__IncompleteArrayField<T>` (a C flexible array member): no size.
    IncompleteArray {
        /// Its element's alignment.
        align: u64,
    },
    /// bindgen's `__BindgenUnionField<T>`, a union member in a struct that stands for a union:
    /// no size of its own.
    UnionField,
    /// bindgen's `_bindgen_opaque_blob` (`--opaque-type`): only size and alignment.
    OpaqueBlob {
        /// Bytes.
        size: u64,
        /// Bytes.
        align: u64,
    },
}

impl Ty {
    /// Its size in bytes; `None` when it has none to compare (a flexible or incomplete array,
    /// a union field).
    pub fn size(&self) -> Option<u64> {
        match self {
            Ty::Scalar { size, .. } | Ty::Named { size, .. } | Ty::BitfieldUnit { size } => {
                Some(*size)
            }
            Ty::OpaqueBlob { size, .. } => Some(*size),
            Ty::Anonymous(t) => Some(t.size),
            Ty::Array { element, count } => Some(element.size()? * (*count)?),
            Ty::IncompleteArray { .. } | Ty::UnionField => None,
        }
    }

    /// Its alignment.
    pub fn align(&self) -> Align {
        match self {
            Ty::Scalar { align, .. } | Ty::Named { align, .. } => *align,
            Ty::Anonymous(t) => t.align,
            Ty::Array { element, .. } => element.align(),
            Ty::BitfieldUnit { .. } | Ty::UnionField => Align::attribute(1),
            Ty::IncompleteArray { align } | Ty::OpaqueBlob { align, .. } => {
                Align::attribute(*align)
            }
        }
    }

    /// The innermost element of an array, or itself.
    pub fn innermost(&self) -> &Ty {
        match self {
            Ty::Array { element, .. } => element.innermost(),
            other => other,
        }
    }

    /// How to show it: `struct sched_statistics`, `u32`, `[unsigned int; 4]`.
    pub fn describe(&self) -> String {
        match self {
            Ty::Scalar { name, .. } => name.clone(),
            Ty::Named { kind, name, .. } => format!("{} {name}", kind.keyword()),
            Ty::Anonymous(t) if t.name.is_empty() => format!("(anonymous {})", t.kind.keyword()),
            Ty::Anonymous(t) => format!("{} {}", t.kind.keyword(), t.name),
            Ty::Array { element, count: Some(n) } => format!("[{}; {n}]", element.describe()),
            Ty::Array { element, count: None } => format!("[{}]", element.describe()),
            Ty::BitfieldUnit { size } => format!("__BindgenBitfieldUnit<[u8; {size}]>"),
            Ty::IncompleteArray { .. } => "__IncompleteArrayField".to_owned(),
            Ty::UnionField => "__BindgenUnionField".to_owned(),
            Ty::OpaqueBlob { size, .. } => format!("opaque blob of {size} bytes"),
        }
    }
}

/// A bit offset as pahole shows it: bytes, and `:bit` when it is not on a byte.
pub fn show_bits(bits: u64) -> String {
    if bits.is_multiple_of(8) {
        (bits / 8).to_string()
    } else {
        format!("{}:{}", bits / 8, bits % 8)
    }
}

/// How an alignment is shown: `64`, `8 (from members)`, `1 (packed)`.
pub fn show_align(align: Align) -> String {
    match align.from {
        AlignFrom::Attribute | AlignFrom::Abi => align.bytes.to_string(),
        AlignFrom::Members => format!("{} (from members)", align.bytes),
        AlignFrom::Packed => format!("{} (packed)", align.bytes),
    }
}

/// A type's layout as text, one member a line, nested anonymous types indented, like `pahole`:
/// for `layout-check show` and for tests.
pub fn render(t: &Type) -> String {
    let mut out = String::new();
    let name = if t.name.is_empty() { "(anonymous)" } else { &t.name };
    let _ = writeln!(
        out,
        "{} {name}: size {}, align {}{}",
        t.kind.keyword(),
        t.size,
        show_align(t.align),
        t.decl.as_deref().map(|d| format!(", {d}")).unwrap_or_default()
    );
    render_members(&mut out, &t.members, 0, 1);
    out
}

fn render_members(out: &mut String, members: &[Member], base: u64, depth: usize) {
    for m in members {
        let at = base + m.bit_offset;
        let size = match (m.bit_size, m.ty.size()) {
            (Some(bits), _) => format!("{bits} bits"),
            (None, Some(bytes)) => bytes.to_string(),
            (None, None) => "-".to_owned(),
        };
        let align = m.align.map(|a| format!(" align {a}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "{:indent$}{:>7} {:>5}  {}: {}{align}",
            "",
            show_bits(at),
            size,
            m.display_name(),
            m.ty.describe(),
            indent = (depth - 1) * 2
        );
        if let Ty::Anonymous(inner) = &m.ty {
            render_members(out, &inner.members, at, depth + 1);
        }
    }
}
