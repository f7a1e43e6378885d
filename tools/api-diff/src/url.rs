//! Where rustdoc's HTML puts an item's page, relative to the doc root.

use crate::ItemKind;

/// The page of the item at `path` (`"kernel::sync::Arc"`, its canonical path) of `kind`,
/// relative to the doc root: `kernel/sync/struct.Arc.html`, `kernel/sync/index.html` for a
/// module. Members (methods, trait items, variants, fields) have no page of their own but an
/// anchor on their parent's: see [`member_url`].
pub fn url(path: &str, kind: ItemKind) -> String {
    let segments: Vec<&str> = path.split("::").collect();
    if kind == ItemKind::Module {
        return format!("{}/index.html", segments.join("/"));
    }
    let (name, dir) = segments.split_last().expect("split yields at least one segment");
    let prefix = prefix(kind);
    if dir.is_empty() {
        format!("{prefix}.{name}.html")
    } else {
        format!("{}/{prefix}.{name}.html", dir.join("/"))
    }
}

/// The anchor of member `name` of `kind` on its parent's page, the parent being at
/// `parent_path` with `parent_kind`: `kernel/alloc/kvec/struct.Vec.html#method.push`.
pub fn member_url(parent_path: &str, parent_kind: ItemKind, name: &str, kind: ItemKind) -> String {
    format!("{}#{}.{name}", url(parent_path, parent_kind), prefix(kind))
}

/// What rustdoc puts before an item's name in its page's name, or a member's in its anchor.
fn prefix(kind: ItemKind) -> &'static str {
    match kind {
        ItemKind::Module => "index",
        ItemKind::Struct => "struct",
        ItemKind::Enum => "enum",
        ItemKind::Union => "union",
        ItemKind::Trait => "trait",
        ItemKind::Function => "fn",
        ItemKind::Constant => "constant",
        ItemKind::Static => "static",
        ItemKind::TypeAlias => "type",
        ItemKind::Macro => "macro",
        ItemKind::AttributeMacro => "attr",
        ItemKind::DeriveMacro => "derive",
        ItemKind::Method | ItemKind::ProvidedMethod => "method",
        ItemKind::RequiredMethod => "tymethod",
        ItemKind::AssocConst => "associatedconstant",
        ItemKind::AssocType => "associatedtype",
        ItemKind::Variant => "variant",
        ItemKind::Field => "structfield",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_rustdocs_page() {
        let cases = [
            ("kernel", ItemKind::Module, "kernel/index.html"),
            ("kernel::sync", ItemKind::Module, "kernel/sync/index.html"),
            ("kernel::alloc::kvec::KVec", ItemKind::TypeAlias, "kernel/alloc/kvec/type.KVec.html"),
            ("kernel::alloc::kvec::Vec", ItemKind::Struct, "kernel/alloc/kvec/struct.Vec.html"),
            ("kernel::error::Error", ItemKind::Struct, "kernel/error/struct.Error.html"),
            ("kernel::alloc::Flags", ItemKind::Struct, "kernel/alloc/struct.Flags.html"),
            ("kernel::f", ItemKind::Function, "kernel/fn.f.html"),
            ("kernel::m", ItemKind::Macro, "kernel/macro.m.html"),
            (
                "kernel::sync::LockClassKey",
                ItemKind::Struct,
                "kernel/sync/struct.LockClassKey.html",
            ),
            ("kernel::E", ItemKind::Enum, "kernel/enum.E.html"),
            ("kernel::U", ItemKind::Union, "kernel/union.U.html"),
            ("pin_init::PinInit", ItemKind::Trait, "pin_init/trait.PinInit.html"),
            ("kernel::page::PAGE_SIZE", ItemKind::Constant, "kernel/page/constant.PAGE_SIZE.html"),
            ("kernel::S", ItemKind::Static, "kernel/static.S.html"),
            ("macros::module", ItemKind::Macro, "macros/macro.module.html"),
            ("macros::vtable", ItemKind::AttributeMacro, "macros/attr.vtable.html"),
            ("pin_init::Zeroable", ItemKind::DeriveMacro, "pin_init/derive.Zeroable.html"),
        ];
        for (path, kind, expected) in cases {
            assert_eq!(url(path, kind), expected, "{kind:?} {path}");
        }
    }

    #[test]
    fn each_member_kind_has_rustdocs_anchor() {
        let vec = ("kernel::alloc::kvec::Vec", ItemKind::Struct);
        let cases = [
            (vec, "push", ItemKind::Method, "kernel/alloc/kvec/struct.Vec.html#method.push"),
            (vec, "len", ItemKind::Field, "kernel/alloc/kvec/struct.Vec.html#structfield.len"),
            (
                vec,
                "MAX",
                ItemKind::AssocConst,
                "kernel/alloc/kvec/struct.Vec.html#associatedconstant.MAX",
            ),
            (("kernel::E", ItemKind::Enum), "V", ItemKind::Variant, "kernel/enum.E.html#variant.V"),
            (
                ("kernel::U", ItemKind::Union),
                "f",
                ItemKind::Field,
                "kernel/union.U.html#structfield.f",
            ),
            (
                ("kernel::T", ItemKind::Trait),
                "x",
                ItemKind::RequiredMethod,
                "kernel/trait.T.html#tymethod.x",
            ),
            (
                ("kernel::T", ItemKind::Trait),
                "y",
                ItemKind::ProvidedMethod,
                "kernel/trait.T.html#method.y",
            ),
            (
                ("kernel::T", ItemKind::Trait),
                "A",
                ItemKind::AssocType,
                "kernel/trait.T.html#associatedtype.A",
            ),
            (
                ("kernel::T", ItemKind::Trait),
                "C",
                ItemKind::AssocConst,
                "kernel/trait.T.html#associatedconstant.C",
            ),
        ];
        for ((parent, parent_kind), name, kind, expected) in cases {
            assert_eq!(member_url(parent, parent_kind, name, kind), expected, "{kind:?} {name}");
        }
    }
}
