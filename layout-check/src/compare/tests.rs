//! The comparison on small hand-made layouts, each shaped like a case met in the kernel's
//! DWARF: the report as text.

use expect_test::{Expect, expect};

use super::*;

fn int() -> Ty {
    Ty::Scalar { name: "int".to_owned(), size: 4, align: Align::abi(4) }
}

fn ptr() -> Ty {
    Ty::Scalar { name: "*".to_owned(), size: 8, align: Align::abi(8) }
}

fn named(name: &str, size: u64, align: Align) -> Ty {
    Ty::Named { kind: Kind::Struct, name: name.to_owned(), size, align }
}

fn member(name: &str, byte: u64, ty: Ty) -> Member {
    Member { name: Some(name.to_owned()), bit_offset: byte * 8, bit_size: None, align: None, ty }
}

/// A Rust member: rustc gives each its alignment.
fn rust(name: &str, byte: u64, ty: Ty) -> Member {
    Member { align: Some(ty.align().bytes), ..member(name, byte, ty) }
}

fn bitfield(name: &str, bit: u64, bits: u64) -> Member {
    Member {
        name: Some(name.to_owned()),
        bit_offset: bit,
        bit_size: Some(bits),
        align: None,
        ty: int(),
    }
}

fn ty(name: &str, size: u64, align: Align, members: Vec<Member>) -> Type {
    Type { name: name.to_owned(), kind: Kind::Struct, size, align, members, decl: None }
}

/// Compares C definitions with Rust types of the `bindings` crate.
fn check(c: Vec<Type>, rust: Vec<Type>, expect: Expect) {
    let mut defs = Definitions::default();
    for t in c {
        defs.c.entry(t.name.clone()).or_default().push(t);
    }
    for t in rust {
        defs.rust.insert(("bindings".to_owned(), t.name.clone()), t);
    }
    let report = compare(&defs);
    let mut out = crate::text::render(&report);
    for u in &report.unpaired {
        out += &format!("unpaired: {}.{} ({})\n", u.name, u.member, u.side);
    }
    expect.assert_eq(&out);
}

/// 7.3's task_struct, reduced: an empty struct aligned 64 (C) that bindgen emits aligned 1.
/// GCC puts the alignment on the member too, as rustc puts every member's.
fn task_struct(rust_side: bool, stats_at: u64, size: u64) -> Type {
    let m = if rust_side { rust } else { member };
    let stats_align = if rust_side { 1 } else { 64 };
    let mut t = ty(
        "task_struct",
        size,
        Align::attribute(64),
        vec![
            m("sched_class", 0, ptr()),
            m("stats", stats_at, named("sched_statistics", 0, Align::attribute(stats_align))),
            m("pid", stats_at, int()),
            m("group_leader", stats_at + 8, ptr()),
        ],
    );
    t.members[1].align = Some(stats_align);
    t
}

fn sched_statistics(align: u64) -> Type {
    ty("sched_statistics", 0, Align::attribute(align), vec![])
}

#[test]
fn an_empty_aligned_struct_moves_what_follows_it() {
    check(
        vec![sched_statistics(64), task_struct(false, 64, 128)],
        vec![sched_statistics(1), task_struct(true, 8, 64)],
        expect![[r#"
            type                        C size/align  Rust size/align  first moved (C → Rust)  cause
            bindings::sched_statistics          0/64              0/1  -                       sched_statistics: C aligned 64, Rust aligned 1 (an empty C struct with an aligned attribute: bindgen emits it without one) [root cause]
            bindings::task_struct             128/64            64/64  stats 64 → 8 (+2 more)  stats: C aligned 64, Rust aligned 1 (sched_statistics) → see sched_statistics

            2 Rust types of bindings and uapi in DWARF; 2 with a C definition compared: 0 match, 2 differ (1 root cause); 0 without a C definition (no C code uses them); 0 bindgen placeholders for types it saw only declared
            members: 4 compared by offset and size, 0 by offset only (flexible arrays, union fields); renamed by bindgen: 0 anonymous members paired with __bindgen_anon_N by position, 0 C bitfields found in a Rust bitfield unit; 0 only in C, 0 only in Rust
            0 opaque types (size and alignment only); 0 names with several C definitions: 0 matched one, 0 ambiguous, 0 compared with the one in a header
        "#]],
    );
}

/// 6.12's task_struct: the same empty struct, at an offset that is a multiple of 64 anyway.
#[test]
fn at_an_aligned_offset_by_chance_it_is_latent() {
    check(
        vec![sched_statistics(64), task_struct(false, 512, 576)],
        vec![sched_statistics(1), task_struct(true, 512, 576)],
        expect![[r#"
            type                        C size/align  Rust size/align  first moved (C → Rust)  cause
            bindings::sched_statistics          0/64              0/1  -                       sched_statistics: C aligned 64, Rust aligned 1 (an empty C struct with an aligned attribute: bindgen emits it without one) [root cause]

            latent: bindings::task_struct.stats (struct sched_statistics): C aligned 64, Rust aligned 1, at 512 on both sides by chance
            2 Rust types of bindings and uapi in DWARF; 2 with a C definition compared: 1 match, 1 differ (1 root cause); 0 without a C definition (no C code uses them); 0 bindgen placeholders for types it saw only declared
            members: 4 compared by offset and size, 0 by offset only (flexible arrays, union fields); renamed by bindgen: 0 anonymous members paired with __bindgen_anon_N by position, 0 C bitfields found in a Rust bitfield unit; 0 only in C, 0 only in Rust
            0 opaque types (size and alignment only); 0 names with several C definitions: 0 matched one, 0 ambiguous, 0 compared with the one in a header
        "#]],
    );
}

#[test]
fn a_member_of_another_size_moves_the_next_one() {
    check(
        vec![
            ty("inner", 16, Align::members(8), vec![member("a", 0, ptr()), member("b", 8, ptr())]),
            ty(
                "outer",
                24,
                Align::members(8),
                vec![member("x", 0, named("inner", 16, Align::members(8))), member("y", 16, ptr())],
            ),
        ],
        vec![
            ty("inner", 8, Align::attribute(8), vec![rust("a", 0, ptr())]),
            ty(
                "outer",
                16,
                Align::attribute(8),
                vec![rust("x", 0, named("inner", 8, Align::attribute(8))), rust("y", 8, ptr())],
            ),
        ],
        expect![[r#"
            type             C size/align  Rust size/align  first moved (C → Rust)  cause
            bindings::inner         16/8?              8/8  -                       b is only in C [root cause]
            bindings::outer         24/8?             16/8  y 16 → 8                x: C size 16, Rust size 8 (inner) → see inner
              bindings::outer: members of another size: x (C 16, Rust 8)

            2 Rust types of bindings and uapi in DWARF; 2 with a C definition compared: 0 match, 2 differ (1 root cause); 0 without a C definition (no C code uses them); 0 bindgen placeholders for types it saw only declared
            members: 3 compared by offset and size, 0 by offset only (flexible arrays, union fields); renamed by bindgen: 0 anonymous members paired with __bindgen_anon_N by position, 0 C bitfields found in a Rust bitfield unit; 1 only in C, 0 only in Rust
            0 opaque types (size and alignment only); 0 names with several C definitions: 0 matched one, 0 ambiguous, 0 compared with the one in a header
            unpaired: inner.b (C)
        "#]],
    );
}

/// bindgen's renamings: anonymous unions as `__bindgen_anon_N` with types named
/// `outer__bindgen_ty_N`, bitfields in `_bitfield_1`, padding and alignment helpers, a
/// keyword member (`type` as `type_`), a flexible array as `__IncompleteArrayField`.
#[test]
fn bindgen_renamings_pair_up_and_match() {
    let c_union = Type {
        name: String::new(),
        kind: Kind::Union,
        size: 8,
        align: Align::members(8),
        members: vec![member("a", 0, int()), member("b", 0, ptr())],
        decl: None,
    };
    let rust_union = Type {
        name: "outer__bindgen_ty_1".to_owned(),
        kind: Kind::Union,
        size: 8,
        align: Align::attribute(8),
        members: vec![rust("a", 0, int()), rust("b", 0, ptr())],
        decl: None,
    };
    let c = ty(
        "outer",
        24,
        Align::members(8),
        vec![
            member("type", 0, int()),
            bitfield("f1", 32, 1),
            bitfield("f2", 33, 3),
            Member { name: None, ..member("", 8, Ty::Anonymous(Box::new(c_union))) },
            Member {
                name: Some("tail".to_owned()),
                ..member("", 16, Ty::Array { element: Box::new(int()), count: None })
            },
        ],
    );
    let rust_ty = ty(
        "outer",
        24,
        Align::attribute(8),
        vec![
            rust("type_", 0, int()),
            rust("_bitfield_align_1", 4, Ty::Array { element: Box::new(int()), count: Some(0) }),
            rust("_bitfield_1", 4, Ty::BitfieldUnit { size: 1 }),
            rust("__bindgen_padding_0", 5, Ty::Array { element: Box::new(int()), count: Some(0) }),
            rust("__bindgen_anon_1", 8, Ty::Anonymous(Box::new(rust_union))),
            rust("tail", 16, Ty::IncompleteArray { align: 4 }),
        ],
    );
    check(
        vec![c],
        vec![rust_ty],
        expect![[r#"
            1 Rust types of bindings and uapi in DWARF; 1 with a C definition compared: 1 match, 0 differ (0 root causes); 0 without a C definition (no C code uses them); 0 bindgen placeholders for types it saw only declared
            members: 4 compared by offset and size, 1 by offset only (flexible arrays, union fields); renamed by bindgen: 1 anonymous members paired with __bindgen_anon_N by position, 2 C bitfields found in a Rust bitfield unit; 0 only in C, 0 only in Rust
            0 opaque types (size and alignment only); 0 names with several C definitions: 0 matched one, 0 ambiguous, 0 compared with the one in a header
        "#]],
    );
}

/// A bitfield unit that starts a byte later than C's bits: the first of them is named.
#[test]
fn a_bitfield_outside_every_unit_moved() {
    check(
        vec![ty("flags", 8, Align::members(4), vec![member("a", 0, int()), bitfield("on", 32, 1)])],
        vec![ty(
            "flags",
            8,
            Align::attribute(4),
            vec![rust("a", 0, int()), rust("_bitfield_1", 5, Ty::BitfieldUnit { size: 1 })],
        )],
        expect![[r#"
            type             C size/align  Rust size/align  first moved (C → Rust)  cause
            bindings::flags          8/4?              8/4  on 4 → no unit          on: a C bitfield at 4 that no Rust bitfield unit holds [root cause]

            1 Rust types of bindings and uapi in DWARF; 1 with a C definition compared: 0 match, 1 differ (1 root cause); 0 without a C definition (no C code uses them); 0 bindgen placeholders for types it saw only declared
            members: 1 compared by offset and size, 0 by offset only (flexible arrays, union fields); renamed by bindgen: 0 anonymous members paired with __bindgen_anon_N by position, 0 C bitfields found in a Rust bitfield unit; 0 only in C, 0 only in Rust
            0 opaque types (size and alignment only); 0 names with several C definitions: 0 matched one, 0 ambiguous, 0 compared with the one in a header
        "#]],
    );
}

/// A C struct packed with its members where they would be anyway: its alignment from members
/// (8) is only an upper bound, and Rust's `repr(packed)` 1 is no mismatch. bindgen's
/// placeholders, opaque types and types C does not define are not compared.
#[test]
fn what_cannot_be_told_is_no_mismatch() {
    let packed =
        ty("hdr", 16, Align::members(8), vec![member("a", 0, ptr()), member("b", 8, ptr())]);
    let rust_packed =
        ty("hdr", 16, Align::attribute(1), vec![rust("a", 0, ptr()), rust("b", 8, ptr())]);
    let opaque_c = ty("xregs_state", 576, Align::attribute(64), vec![member("x", 0, int())]);
    let opaque_rust = ty(
        "xregs_state",
        576,
        Align::attribute(64),
        vec![rust("_bindgen_opaque_blob", 0, Ty::OpaqueBlob { size: 576, align: 64 })],
    );
    let placeholder = ty(
        "anon_vma",
        0,
        Align::attribute(1),
        vec![rust("_unused", 0, Ty::Array { element: Box::new(int()), count: Some(0) })],
    );
    let only_rust = ty("drm_device", 8, Align::attribute(8), vec![rust("p", 0, ptr())]);
    check(
        vec![packed, opaque_c, ty("anon_vma", 80, Align::members(8), vec![])],
        vec![rust_packed, opaque_rust, placeholder, only_rust],
        expect![[r#"
            4 Rust types of bindings and uapi in DWARF; 2 with a C definition compared: 2 match, 0 differ (0 root causes); 1 without a C definition (no C code uses them); 1 bindgen placeholders for types it saw only declared
            members: 2 compared by offset and size, 0 by offset only (flexible arrays, union fields); renamed by bindgen: 0 anonymous members paired with __bindgen_anon_N by position, 0 C bitfields found in a Rust bitfield unit; 0 only in C, 0 only in Rust
            1 opaque types (size and alignment only); 0 names with several C definitions: 0 matched one, 0 ambiguous, 0 compared with the one in a header
        "#]],
    );
}

/// A name two C files define differently: the definition like Rust's is used; when neither
/// is and both are in headers, the name is ambiguous, not a mismatch; when one is a header's,
/// it is bindgen's.
#[test]
fn several_c_definitions() {
    let in_header = |size: u64, file: &str| Type {
        decl: Some(format!("{file}:3")),
        ..ty("ctx", size, Align::members(8), vec![member("p", 0, ptr())])
    };
    let rust_ctx = ty("ctx", 8, Align::attribute(8), vec![rust("p", 0, ptr())]);
    check(
        vec![in_header(16, "drivers/a.c"), in_header(8, "include/linux/ctx.h")],
        vec![rust_ctx.clone()],
        expect![[r#"
            1 Rust types of bindings and uapi in DWARF; 1 with a C definition compared: 1 match, 0 differ (0 root causes); 0 without a C definition (no C code uses them); 0 bindgen placeholders for types it saw only declared
            members: 1 compared by offset and size, 0 by offset only (flexible arrays, union fields); renamed by bindgen: 0 anonymous members paired with __bindgen_anon_N by position, 0 C bitfields found in a Rust bitfield unit; 0 only in C, 0 only in Rust
            0 opaque types (size and alignment only); 1 names with several C definitions: 1 matched one, 0 ambiguous, 0 compared with the one in a header
        "#]],
    );
    check(
        vec![in_header(16, "include/a.h"), in_header(24, "include/b.h")],
        vec![rust_ctx.clone()],
        expect![[r#"
            ambiguous: bindings::ctx: C definitions differ, none is Rust's:
              include/a.h:3: size 16, align 8 (from members): ctx: size C 16, Rust 8, every member in place (trailing padding differs)
              include/b.h:3: size 24, align 8 (from members): ctx: size C 24, Rust 8, every member in place (trailing padding differs)
            1 Rust types of bindings and uapi in DWARF; 1 with a C definition compared: 0 match, 0 differ (0 root causes); 0 without a C definition (no C code uses them); 0 bindgen placeholders for types it saw only declared
            members: 0 compared by offset and size, 0 by offset only (flexible arrays, union fields); renamed by bindgen: 0 anonymous members paired with __bindgen_anon_N by position, 0 C bitfields found in a Rust bitfield unit; 0 only in C, 0 only in Rust
            0 opaque types (size and alignment only); 1 names with several C definitions: 0 matched one, 1 ambiguous, 0 compared with the one in a header
        "#]],
    );
    check(
        vec![in_header(16, "drivers/a.c"), in_header(24, "include/b.h")],
        vec![rust_ctx],
        expect![[r#"
            type           C size/align  Rust size/align  first moved (C → Rust)  cause
            bindings::ctx         24/8?              8/8  -                       ctx: size C 24, Rust 8, every member in place (trailing padding differs) [root cause]

            1 Rust types of bindings and uapi in DWARF; 1 with a C definition compared: 0 match, 1 differ (1 root cause); 0 without a C definition (no C code uses them); 0 bindgen placeholders for types it saw only declared
            members: 1 compared by offset and size, 0 by offset only (flexible arrays, union fields); renamed by bindgen: 0 anonymous members paired with __bindgen_anon_N by position, 0 C bitfields found in a Rust bitfield unit; 0 only in C, 0 only in Rust
            0 opaque types (size and alignment only); 1 names with several C definitions: 0 matched one, 0 ambiguous, 1 compared with the one in a header
        "#]],
    );
}
