//! The comparison (pure): every Rust type of the `bindings` and `uapi` crates that C defines, C
//! against Rust: size, alignment, and each member's offset and size, nested anonymous structs
//! and unions in place; for a type that differs, where it starts (the first member that moved)
//! and what caused it.
//!
//! Members are paired by name. Where bindgen renames, they are paired otherwise, and counted: C
//! anonymous members with Rust's `__bindgen_anon_N` in order; C bitfields with the
//! `_bitfield_N` unit (`__BindgenBitfieldUnit`) that covers their bits. What has no size to
//! compare (`__IncompleteArrayField`, a C flexible array, `__BindgenUnionField`) is compared by
//! offset only; a type bindgen made opaque (`_bindgen_opaque_blob`) by size and alignment only.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::model::{Align, Kind, Member, Ty, Type, show_align, show_bits};

/// What was read from the images: the C definitions of each name (more than one when compile
/// units disagree), and the Rust types of the `bindings` and `uapi` crates.
#[derive(Clone, Debug, Default)]
pub struct Definitions {
    /// C definitions by name, each distinct definition once.
    pub c: BTreeMap<String, Vec<Type>>,
    /// Rust types by (crate, name).
    pub rust: BTreeMap<(String, String), Type>,
}

/// A type's size and alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Shape {
    /// Bytes.
    pub size: u64,
    /// Its alignment.
    pub align: Align,
}

impl Shape {
    fn of(t: &Type) -> Shape {
        Shape { size: t.size, align: t.align }
    }
}

/// The first member that is not where C has it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Moved {
    /// Its path in the type (`stats`, `__bindgen_anon_1.ma_lock`).
    pub member: String,
    /// C's offset from the start of the type, in bits.
    pub c_bits: u64,
    /// Rust's, in bits; `None` for a C bitfield that no Rust bitfield unit covers.
    pub rust_bits: Option<u64>,
}

/// A member whose size differs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Resized {
    /// Its path.
    pub member: String,
    /// C's size in bytes.
    pub c: u64,
    /// Rust's.
    pub rust: u64,
}

/// One Rust type whose layout is not C's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Mismatch {
    /// The Rust crate (`bindings`, `uapi`).
    #[serde(rename = "crate")]
    pub krate: String,
    /// The type's name.
    pub name: String,
    /// Struct or union (C's).
    pub kind: Kind,
    /// Where C declares it.
    pub decl: Option<String>,
    /// C's size and alignment.
    pub c: Shape,
    /// Rust's.
    pub rust: Shape,
    /// The first member that moved.
    pub first_moved: Option<Moved>,
    /// How many members moved.
    pub moved: usize,
    /// Members whose size differs.
    pub resized: Vec<Resized>,
    /// What made it differ, in words (`stats: C aligned 64, Rust aligned 1`).
    pub cause: String,
    /// The member the cause is about.
    pub cause_member: Option<String>,
    /// The type the cause is about, when it is another mismatch (`sched_statistics`).
    pub caused_by: Option<String>,
    /// Whether the cause is in this type itself: a root cause, not a consequence.
    pub root: bool,
}

/// A member whose alignment differs but whose offset agrees, by chance: the layout is right
/// today and breaks when a member before it changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Latent {
    /// The Rust crate.
    #[serde(rename = "crate")]
    pub krate: String,
    /// The type.
    pub name: String,
    /// The member's path.
    pub member: String,
    /// Its type.
    pub member_type: String,
    /// Its offset, in bits (the same on both sides).
    pub bits: u64,
    /// C's alignment of it.
    pub c_align: Align,
    /// Rust's.
    pub rust_align: Align,
}

/// A name whose C definitions differ between compile units, none of which matches Rust.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Ambiguous {
    /// The Rust crate.
    #[serde(rename = "crate")]
    pub krate: String,
    /// The type.
    pub name: String,
    /// Each C definition: where, size and alignment, and how it differs from Rust.
    pub definitions: Vec<String>,
}

/// A member only one side has (C's with no Rust member of its name, or the reverse): not a
/// layout difference in itself, listed so that a pairing bindgen's renaming defeated can be
/// seen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Unpaired {
    /// The Rust crate.
    #[serde(rename = "crate")]
    pub krate: String,
    /// The type.
    pub name: String,
    /// The member's path.
    pub member: String,
    /// `C` or `Rust`: the side that has it.
    pub side: &'static str,
}

/// Counts over the whole comparison.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Rust types of the `bindings` and `uapi` crates found in DWARF.
    pub rust_types: usize,
    /// Of those, the ones C's DWARF defines, compared.
    pub compared: usize,
    /// Compared and the same.
    pub matching: usize,
    /// Compared and different.
    pub mismatching: usize,
    /// Mismatches whose cause is in the type itself.
    pub root_causes: usize,
    /// Names with several C definitions (compile units disagree).
    pub several_c_definitions: usize,
    /// Of those, the ones none of which is Rust's, and more than one in a header: ambiguous,
    /// not compared (else the one in a header is bindgen's, and compared).
    pub ambiguous: usize,
    /// Names with several C definitions of which one matched.
    pub matched_one_of_several: usize,
    /// Rust types without a C definition in DWARF (no C code uses the type): not compared.
    pub without_c_definition: usize,
    /// Rust types that are bindgen's placeholders for a C type it saw only declared
    /// (`_unused: [u8; 0]`, or `_address: u8`): no layout to compare.
    pub placeholders: usize,
    /// Types bindgen made opaque: size and alignment compared, not members.
    pub opaque: usize,
    /// Member pairs compared (offset, and size where both have one).
    pub members_compared: usize,
    /// C anonymous members paired with `__bindgen_anon_N` by position.
    pub anonymous_by_position: usize,
    /// C bitfields checked to lie in a Rust bitfield unit (they have no Rust member).
    pub bitfields_in_units: usize,
    /// Members compared by offset only: flexible and incomplete arrays, union fields.
    pub offset_only: usize,
    /// C members without a Rust member.
    pub only_in_c: usize,
    /// Rust members without a C member.
    pub only_in_rust: usize,
}

/// The comparison's result.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Types whose layouts differ, root causes first, then by name.
    pub mismatches: Vec<Mismatch>,
    /// Members whose alignment differs at an offset that agrees.
    pub latent: Vec<Latent>,
    /// Names with conflicting C definitions.
    pub ambiguous: Vec<Ambiguous>,
    /// Members only one side has.
    pub unpaired: Vec<Unpaired>,
    /// The Rust types (`crate::name`) that no C compile unit defines: not compared.
    pub without_c_definition: Vec<String>,
    /// Counts.
    pub summary: Summary,
}

impl Report {
    /// Whether types were compared and every one matched: a comparison of nothing is no match.
    pub fn ok(&self) -> bool {
        self.summary.compared > 0 && self.mismatches.is_empty()
    }
}

/// Compares every Rust type that has C definitions.
pub fn compare(defs: &Definitions) -> Report {
    let mut report = Report::default();
    let mut summary = Summary { rust_types: defs.rust.len(), ..Summary::default() };
    let mut found: Vec<(Outcome, Counts)> = Vec::new();
    for ((krate, name), rust) in &defs.rust {
        if placeholder(rust) {
            summary.placeholders += 1;
            continue;
        }
        let Some(cdefs) = defs.c.get(name) else {
            summary.without_c_definition += 1;
            report.without_c_definition.push(format!("{krate}::{name}"));
            continue;
        };
        summary.compared += 1;
        let outcomes: Vec<(Outcome, Counts)> =
            cdefs.iter().map(|c| compare_type(krate, c, rust)).collect();
        if cdefs.len() > 1 {
            summary.several_c_definitions += 1;
        }
        let chosen = if let Some(i) = outcomes.iter().position(|(o, _)| o.mismatch.is_none()) {
            if cdefs.len() > 1 {
                summary.matched_one_of_several += 1;
            }
            i
        } else if cdefs.len() == 1 {
            0
        } else {
            // Several definitions, none like Rust's: a header's is bindgen's, if only one is.
            let headers: Vec<usize> = (0..cdefs.len())
                .filter(|&i| cdefs[i].decl.as_deref().is_some_and(|d| d.contains(".h:")))
                .collect();
            if let [one] = headers[..] {
                one
            } else {
                summary.ambiguous += 1;
                report.ambiguous.push(Ambiguous {
                    krate: krate.clone(),
                    name: name.clone(),
                    definitions: cdefs
                        .iter()
                        .zip(&outcomes)
                        .map(|(c, (o, _))| {
                            format!(
                                "{}: size {}, align {}: {}",
                                c.decl.as_deref().unwrap_or("?"),
                                c.size,
                                show_align(c.align),
                                o.mismatch.as_ref().map_or("", |m| m.cause.as_str())
                            )
                        })
                        .collect(),
                });
                continue;
            }
        };
        found.push(outcomes.into_iter().nth(chosen).expect("chosen is an index of outcomes"));
    }
    // The C names of the types that differ: a cause pointing at one of them is not a root.
    let mismatched: BTreeSet<String> =
        found.iter().filter_map(|(o, _)| o.mismatch.as_ref().map(|m| m.name.clone())).collect();
    for (outcome, counts) in found {
        counts.add_to(&mut summary);
        report.latent.extend(outcome.latent);
        report.unpaired.extend(outcome.unpaired);
        match outcome.mismatch {
            None => summary.matching += 1,
            Some(mut m) => {
                summary.mismatching += 1;
                if let Some(t) =
                    outcome.cause_type.filter(|t| *t != m.name && mismatched.contains(t))
                {
                    m.caused_by = Some(t);
                    m.root = false;
                } else {
                    m.root = true;
                    summary.root_causes += 1;
                }
                report.mismatches.push(m);
            }
        }
    }
    report
        .mismatches
        .sort_by(|a, b| (!a.root, &a.name, &a.krate).cmp(&(!b.root, &b.name, &b.krate)));
    report.summary = summary;
    report
}

/// Whether a Rust type is bindgen's placeholder for a type it saw only declared (`struct foo;`
/// in the headers it read): `_unused: [u8; 0]`, or `_address: u8` when it knows nothing of it.
pub fn placeholder(rust: &Type) -> bool {
    match &rust.members[..] {
        [only] => matches!(
            (only.name.as_deref(), &only.ty),
            (Some("_unused"), Ty::Array { count: Some(0), .. })
                | (Some("_address"), Ty::Scalar { size: 1, .. })
        ),
        _ => false,
    }
}

/// What comparing one C definition with the Rust type found.
struct Outcome {
    mismatch: Option<Mismatch>,
    /// The named type the cause is about, to link mismatches once all are known.
    cause_type: Option<String>,
    latent: Vec<Latent>,
    unpaired: Vec<Unpaired>,
}

/// Counts of one type's comparison, added to the summary for the definition chosen.
#[derive(Default)]
struct Counts {
    opaque: usize,
    members_compared: usize,
    anonymous_by_position: usize,
    bitfields_in_units: usize,
    offset_only: usize,
    only_in_c: usize,
    only_in_rust: usize,
}

impl Counts {
    fn add_to(&self, s: &mut Summary) {
        s.opaque += self.opaque;
        s.members_compared += self.members_compared;
        s.anonymous_by_position += self.anonymous_by_position;
        s.bitfields_in_units += self.bitfields_in_units;
        s.offset_only += self.offset_only;
        s.only_in_c += self.only_in_c;
        s.only_in_rust += self.only_in_rust;
    }
}

/// One member's place on one side: offset from the start of the compared type, size, alignment.
#[derive(Clone, Debug)]
struct Place {
    bits: u64,
    /// Bytes; `None` for what has no size to compare (and for bitfields).
    size: Option<u64>,
    align: Align,
    /// Whether the alignment is the member's own attribute (`char cb[48] __aligned(8)`), not its
    /// type's: bindgen keeps such a member in place with padding, so only its offset matters.
    own_align: bool,
    /// A `__BindgenUnionField`, whose alignment says nothing (the union's blob has it).
    union_field: bool,
    /// The named struct or union it is, if any.
    named: Option<String>,
    ty: String,
}

impl Place {
    fn of(m: &Member, base: u64) -> Place {
        let named = match m.ty.innermost() {
            Ty::Named { name, .. } => Some(name.clone()),
            _ => None,
        };
        Place {
            bits: base + m.bit_offset,
            size: if m.bit_size.is_some() { None } else { m.ty.size() },
            align: m.alignment(),
            // GCC also puts its type's alignment on a member of an aligned type.
            own_align: m.align.is_some_and(|a| {
                let of_type = m.ty.align();
                !(of_type.exact() && of_type.bytes == a)
            }),
            union_field: matches!(m.ty, Ty::UnionField),
            named,
            ty: m.ty.describe(),
        }
    }
}

/// A member of either side or both, in the order C declares them (Rust-only members last).
#[derive(Debug)]
struct Entry {
    path: String,
    /// Which struct or union (the compared type or a nested anonymous one) it is in.
    level: usize,
    c: Option<Place>,
    rust: Option<Place>,
    /// A C bitfield: `rust` is the unit that covers it, `None` if none does.
    bitfield: bool,
}

impl Entry {
    fn moved(&self) -> bool {
        match (&self.c, &self.rust) {
            (Some(c), Some(r)) => c.bits != r.bits,
            (Some(_), None) => self.bitfield,
            _ => false,
        }
    }

    fn resized(&self) -> Option<(u64, u64)> {
        match (self.c.as_ref()?.size, self.rust.as_ref()?.size) {
            (Some(c), Some(r)) if c != r => Some((c, r)),
            _ => None,
        }
    }
}

/// What bindgen made of a Rust member.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Named,
    Anonymous,
    BitfieldUnit,
    Opaque,
    /// Layout helpers with no C counterpart: `_bitfield_align_N`, `__bindgen_padding_N`,
    /// `bindgen_union_field`, `_bindgen_align`.
    Helper,
}

fn role(m: &Member) -> Role {
    let name = m.name.as_deref().unwrap_or("");
    if name == "_bindgen_opaque_blob" {
        Role::Opaque
    } else if name.starts_with("_bitfield_align_")
        || name.starts_with("__bindgen_padding_")
        || name == "bindgen_union_field"
        || name == "_bindgen_align"
    {
        Role::Helper
    } else if name.starts_with("_bitfield_") && matches!(m.ty, Ty::BitfieldUnit { .. }) {
        Role::BitfieldUnit
    } else if name.starts_with("__bindgen_anon_") {
        Role::Anonymous
    } else {
        Role::Named
    }
}

struct Walk {
    entries: Vec<Entry>,
    /// For each level: whether it is a union (members do not push each other).
    levels: Vec<Kind>,
    counts: Counts,
}

impl Walk {
    fn members(
        &mut self,
        c: &[Member],
        r: &[Member],
        (c_base, r_base): (u64, u64),
        prefix: &str,
        level: usize,
    ) {
        let mut used = vec![false; r.len()];
        let mut anonymous = (0..r.len()).filter(|&j| role(&r[j]) == Role::Anonymous);
        for cm in c {
            if let Some(bits) = cm.bit_size {
                // A bitfield: Rust has no member for it, only the unit that holds its bits.
                let (start, end) = (cm.bit_offset, cm.bit_offset + bits);
                let unit = (0..r.len()).find(|&j| {
                    role(&r[j]) == Role::BitfieldUnit
                        && r[j].bit_offset <= start
                        && end <= r[j].bit_offset + r[j].ty.size().unwrap_or(0) * 8
                });
                let rust = unit.map(|j| {
                    used[j] = true;
                    Place { bits: r_base + start, size: None, ..Place::of(&r[j], r_base) }
                });
                if rust.is_some() {
                    self.counts.bitfields_in_units += 1;
                }
                self.entries.push(Entry {
                    path: format!("{prefix}{}", cm.display_name()),
                    level,
                    c: Some(Place::of(cm, c_base)),
                    rust,
                    bitfield: true,
                });
                continue;
            }
            let partner = match &cm.name {
                // An anonymous member of a named type (`struct __filename_head;`, a Microsoft
                // extension the kernel uses) is one bindgen leaves out, as padding.
                None if matches!(cm.ty, Ty::Named { .. }) => None,
                None => anonymous.next().inspect(|_| self.counts.anonymous_by_position += 1),
                Some(name) => (0..r.len()).find(|&j| {
                    !used[j]
                        && role(&r[j]) == Role::Named
                        && r[j].name.as_deref().is_some_and(|n| {
                            n == name || n.strip_suffix('_').is_some_and(|n| n == name)
                        })
                }),
            };
            match partner {
                Some(j) => {
                    used[j] = true;
                    self.pair(cm, &r[j], (c_base, r_base), prefix, level);
                }
                None => {
                    self.counts.only_in_c += 1;
                    self.entries.push(Entry {
                        path: format!("{prefix}{}", cm.display_name()),
                        level,
                        c: Some(Place::of(cm, c_base)),
                        rust: None,
                        bitfield: false,
                    });
                }
            }
        }
        for (j, rm) in r.iter().enumerate() {
            if !used[j] && matches!(role(rm), Role::Named | Role::Anonymous) {
                self.counts.only_in_rust += 1;
                self.entries.push(Entry {
                    path: format!("{prefix}{}", rm.display_name()),
                    level,
                    c: None,
                    rust: Some(Place::of(rm, r_base)),
                    bitfield: false,
                });
            }
        }
    }

    fn pair(&mut self, cm: &Member, rm: &Member, bases: (u64, u64), prefix: &str, level: usize) {
        let path = format!("{prefix}{}", rm.display_name());
        let (c, rust) = (Place::of(cm, bases.0), Place::of(rm, bases.1));
        let (c_bits, r_bits) = (c.bits, rust.bits);
        if c.size.is_some() && rust.size.is_some() {
            self.counts.members_compared += 1;
        } else {
            self.counts.offset_only += 1;
        }
        self.entries.push(Entry {
            path: path.clone(),
            level,
            c: Some(c),
            rust: Some(rust),
            bitfield: false,
        });
        // Anonymous structs and unions (and arrays of them) are compared in place.
        let arrays = matches!(cm.ty, Ty::Array { .. }) == matches!(rm.ty, Ty::Array { .. });
        if let (Ty::Anonymous(ci), Ty::Anonymous(ri), true) =
            (cm.ty.innermost(), rm.ty.innermost(), arrays)
        {
            let nested = self.levels.len();
            self.levels.push(ci.kind);
            let inner = if matches!(cm.ty, Ty::Array { .. }) {
                format!("{path}[0].")
            } else {
                format!("{path}.")
            };
            self.members(&ci.members, &ri.members, (c_bits, r_bits), &inner, nested);
        }
    }
}

/// Compares one C definition with the Rust type of the same name.
fn compare_type(krate: &str, c: &Type, rust: &Type) -> (Outcome, Counts) {
    let mut walk = Walk { entries: Vec::new(), levels: vec![c.kind], counts: Counts::default() };
    let opaque = rust.members.iter().any(|m| role(m) == Role::Opaque);
    if opaque {
        walk.counts.opaque += 1;
    } else {
        walk.members(&c.members, &rust.members, (0, 0), "", 0);
    }
    let entries = &walk.entries;
    let latent = entries
        .iter()
        .filter_map(|e| {
            let (ce, re) = (e.c.as_ref()?, e.rust.as_ref()?);
            let by_type = !e.bitfield && !ce.own_align && !re.union_field && ce.align.exact();
            (by_type && ce.bits == re.bits && ce.align.surely_differs(re.align)).then(|| Latent {
                krate: krate.to_owned(),
                name: c.name.clone(),
                member: e.path.clone(),
                member_type: ce.ty.clone(),
                bits: ce.bits,
                c_align: ce.align,
                rust_align: re.align,
            })
        })
        .collect();
    let unpaired = entries
        .iter()
        .filter(|e| !e.bitfield && (e.c.is_none() || e.rust.is_none()))
        .map(|e| Unpaired {
            krate: krate.to_owned(),
            name: c.name.clone(),
            member: e.path.clone(),
            side: if e.c.is_some() { "C" } else { "Rust" },
        })
        .collect();
    let moved: Vec<usize> = (0..entries.len()).filter(|&i| entries[i].moved()).collect();
    let first =
        moved.iter().copied().min_by_key(|&i| (entries[i].c.as_ref().map_or(0, |c| c.bits), i));
    let resized: Vec<Resized> = entries
        .iter()
        .filter(|e| !e.bitfield)
        .filter_map(|e| {
            let (c, rust) = e.resized()?;
            Some(Resized { member: e.path.clone(), c, rust })
        })
        .collect();
    let size_differs = c.size != rust.size;
    let align_differs = c.align.surely_differs(rust.align);
    if !size_differs && !align_differs && moved.is_empty() && resized.is_empty() {
        return (Outcome { mismatch: None, cause_type: None, latent, unpaired }, walk.counts);
    }
    let (cause, cause_member, cause_type) = match first {
        Some(i) => cause_of_move(&walk, i),
        None => cause_in_place(c, rust, entries, &resized),
    };
    let mismatch = Mismatch {
        krate: krate.to_owned(),
        name: c.name.clone(),
        kind: c.kind,
        decl: c.decl.clone(),
        c: Shape::of(c),
        rust: Shape::of(rust),
        first_moved: first.map(|i| Moved {
            member: entries[i].path.clone(),
            c_bits: entries[i].c.as_ref().map_or(0, |p| p.bits),
            rust_bits: entries[i].rust.as_ref().map(|p| p.bits),
        }),
        moved: moved.len(),
        resized,
        cause,
        cause_member,
        caused_by: None,
        root: true,
    };
    (Outcome { mismatch: Some(mismatch), cause_type, latent, unpaired }, walk.counts)
}

type Cause = (String, Option<String>, Option<String>);

/// Why entry `i`, the first member that moved, moved: its own alignment, the size of the member
/// before it, or a member only one side has between them.
fn cause_of_move(walk: &Walk, i: usize) -> Cause {
    let entries = &walk.entries;
    let m = &entries[i];
    let c = m.c.as_ref().expect("a moved entry has a C side");
    let Some(r) = &m.rust else {
        return (
            format!(
                "{}: a C bitfield at {} that no Rust bitfield unit holds",
                m.path,
                show_bits(c.bits)
            ),
            Some(m.path.clone()),
            None,
        );
    };
    if !r.union_field && c.align.surely_differs(r.align) {
        let of =
            m.c.as_ref()
                .and_then(|c| c.named.as_ref())
                .map(|n| format!(" ({n})"))
                .unwrap_or_default();
        return (
            format!("{}: C aligned {}, Rust aligned {}{of}", m.path, c.align.bytes, r.align.bytes),
            Some(m.path.clone()),
            c.named.clone(),
        );
    }
    if walk.levels[m.level] == Kind::Struct {
        // The member just before it in C, at the same level.
        let before = (0..entries.len())
            .filter(|&j| j != i && entries[j].level == m.level)
            .filter(|&j| entries[j].c.as_ref().is_some_and(|p| (p.bits, j) < (c.bits, i)))
            .max_by_key(|&j| (entries[j].c.as_ref().map_or(0, |p| p.bits), j));
        if let Some(p) = before.map(|j| &entries[j])
            && let Some((cs, rs)) = p.resized()
        {
            let named = p.c.as_ref().and_then(|c| c.named.clone());
            let of = named.as_ref().map(|n| format!(" ({n})")).unwrap_or_default();
            return (
                format!("{}: C size {cs}, Rust size {rs}{of}", p.path),
                Some(p.path.clone()),
                named,
            );
        }
        let from = before.and_then(|j| entries[j].c.as_ref()).map_or(0, |p| p.bits);
        let only = entries.iter().find(|e| {
            e.level == m.level
                && match (&e.c, &e.rust) {
                    (Some(p), None) => !e.bitfield && from <= p.bits && p.bits <= c.bits,
                    (None, Some(p)) => p.bits <= r.bits,
                    _ => false,
                }
        });
        if let Some(e) = only {
            let side = if e.c.is_some() { "C" } else { "Rust" };
            return (format!("{} is only in {side}", e.path), Some(e.path.clone()), None);
        }
    }
    if !r.union_field && c.align.bytes != r.align.bytes {
        return (
            format!(
                "{}: C aligned {}, Rust aligned {}",
                m.path,
                show_align(c.align),
                show_align(r.align)
            ),
            Some(m.path.clone()),
            c.named.clone(),
        );
    }
    (
        format!(
            "{}: no member before it differs in size or alignment (padding or packing differs)",
            m.path
        ),
        Some(m.path.clone()),
        None,
    )
}

/// Why a type whose members are all in place still differs: its alignment, or a member's size.
fn cause_in_place(c: &Type, rust: &Type, entries: &[Entry], resized: &[Resized]) -> Cause {
    if c.align.surely_differs(rust.align) {
        let empty = if c.members.is_empty() && c.size == 0 {
            " (an empty C struct with an aligned attribute: bindgen emits it without one)"
        } else {
            ""
        };
        return (
            format!(
                "{}: C aligned {}, Rust aligned {}{empty}",
                c.name, c.align.bytes, rust.align.bytes
            ),
            None,
            None,
        );
    }
    if let Some(e) = entries.iter().find(|e| !e.bitfield && (e.c.is_none() || e.rust.is_none())) {
        let side = if e.c.is_some() { "C" } else { "Rust" };
        return (format!("{} is only in {side}", e.path), Some(e.path.clone()), None);
    }
    if let Some(first) = resized.first() {
        let named = entries
            .iter()
            .find(|e| e.path == first.member)
            .and_then(|e| e.c.as_ref()?.named.clone());
        let of = named.as_ref().map(|n| format!(" ({n})")).unwrap_or_default();
        return (
            format!("{}: C size {}, Rust size {}{of}", first.member, first.c, first.rust),
            Some(first.member.clone()),
            named,
        );
    }
    (
        format!(
            "{}: size C {}, Rust {}, every member in place (trailing padding differs)",
            c.name, c.size, rust.size
        ),
        None,
        None,
    )
}

#[cfg(test)]
mod tests;
