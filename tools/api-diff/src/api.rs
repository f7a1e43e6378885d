//! A crate's public API: its items by canonical path, found by walking the public module tree
//! from the crate root and following `pub use`, each with what the diff compares.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};

use rustdoc_types::{
    Attribute, Crate, Function, Generics, Id, Impl, Item as RItem, ItemEnum, ItemKind as RKind,
    MacroKind, StructKind, Type, VariantKind, Visibility,
};

use crate::ItemKind;
use crate::print::{Printer, Text, abi};
use crate::url::url;

/// One version of a crate's public API, as [`api`] reads it from rustdoc's JSON.
#[derive(Debug)]
pub struct Api {
    pub(crate) items: BTreeMap<Key, Item>,
}

impl Api {
    /// The public items, sorted by canonical path, each with its kind and place.
    pub fn items(&self) -> impl Iterator<Item = (ItemKind, Place)> {
        self.items.values().map(|item| (item.kind, place(item)))
    }
}

/// Names in different namespaces may share a path: `fn foo`, `mod foo` and `macro foo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Namespace {
    Type,
    Value,
    Macro,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Key {
    pub(crate) path: String,
    pub(crate) ns: Namespace,
}

/// A module-level item.
#[derive(Debug)]
pub(crate) struct Item {
    /// The canonical path: where the item is defined, or for an item of a private module the
    /// shortest path that re-exports it (where rustdoc inlines its page).
    pub(crate) path: String,
    pub(crate) name: String,
    pub(crate) kind: ItemKind,
    /// The other public paths that reach it.
    pub(crate) reexports: BTreeSet<String>,
    /// Where rustdoc's HTML puts its page: the canonical path, but for another crate's item
    /// the shortest `pub use` that rustdoc inlines (one without `#[doc(no_inline)]`), if any.
    pub(crate) page: String,
    pub(crate) shape: Shape,
    pub(crate) members: BTreeMap<MemberKey, Member>,
    /// A type's trait impls, auto-trait ones included, blanket ones not: each as shown
    /// (`Clone for Foo<T>`, `!Send for Foo`) with its bounds.
    pub(crate) impls: BTreeMap<String, Vec<Text>>,
}

/// Which part of an item a member belongs to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Group {
    Field,
    Variant,
    TraitItem,
    /// An inherent impl; the impl's self type when two impls share a name (`impl Foo<u8>`,
    /// `impl Foo<u16>`), else empty.
    Inherent(String),
    /// A trait impl: the trait as shown (`From<u32>`) and its self type, which make the
    /// impl's key in [`Item::impls`]: `From<u32> for Foo`.
    TraitImpl {
        trait_: String,
        self_ty: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct MemberKey {
    pub(crate) group: Group,
    pub(crate) ns: Namespace,
    pub(crate) name: String,
}

/// A method, trait item, variant or field.
#[derive(Debug)]
pub(crate) struct Member {
    pub(crate) name: String,
    pub(crate) kind: ItemKind,
    /// For a trait impl's member: the impl's self type when it is not simply the parent
    /// (`&Foo`), and the trait, as shown: `<&Foo as Trait>::m`.
    pub(crate) impl_of: Option<(Option<String>, String)>,
    pub(crate) shape: Shape,
}

/// What the diff compares of an item, printed.
#[derive(Debug)]
pub(crate) enum Shape {
    /// An item of another crate, re-exported: its JSON is not at hand.
    External,
    Module,
    Function(Box<FnShape>),
    Struct {
        kind: &'static str,
        generics: GenericsShape,
        stripped: bool,
        non_exhaustive: bool,
    },
    Enum {
        generics: GenericsShape,
        stripped: bool,
        non_exhaustive: bool,
    },
    Union {
        generics: GenericsShape,
        stripped: bool,
    },
    Trait {
        generics: GenericsShape,
        supertraits: Vec<Text>,
        is_unsafe: bool,
        dyn_compatible: bool,
    },
    TypeAlias {
        generics: GenericsShape,
        ty: Text,
    },
    Constant {
        ty: Text,
        value: String,
    },
    Static {
        ty: Text,
        is_mutable: bool,
        is_unsafe: bool,
    },
    /// The rules' matchers, one per rule: `($x:expr)`.
    Macro {
        rules: Vec<String>,
    },
    ProcMacro {
        helpers: Vec<String>,
    },
    AssocConst {
        ty: Text,
        value: Option<String>,
    },
    AssocType {
        generics: GenericsShape,
        bounds: Vec<Text>,
        default: Option<Text>,
    },
    Field {
        ty: Text,
    },
    /// The variant as declared: `B(u32)`, `C { x: u8 }`, `D = 4`.
    Variant {
        decl: Text,
    },
}

#[derive(Debug, Default)]
pub(crate) struct GenericsShape {
    pub(crate) params: Vec<Text>,
    pub(crate) bounds: Vec<Text>,
}

#[derive(Debug)]
pub(crate) struct Param {
    pub(crate) ty: Text,
    /// As written in the signature: `x: u32`, `&self`.
    pub(crate) decl: Text,
}

#[derive(Debug)]
pub(crate) struct FnShape {
    pub(crate) is_const: bool,
    pub(crate) is_async: bool,
    pub(crate) is_unsafe: bool,
    pub(crate) abi: Option<String>,
    pub(crate) params: Vec<Param>,
    pub(crate) output: Option<Text>,
    pub(crate) generics: GenericsShape,
}

/// Reads a crate's public API: the items reachable from its root through public modules and
/// `pub use`, each under its canonical path with the other paths that reach it.
pub fn api(krate: &Crate) -> Api {
    let reach = walk(krate);
    let canonical: HashMap<Id, String> =
        reach.iter().map(|(id, r)| (*id, r.canonical(krate, *id))).collect();
    let printer = Printer { krate, canonical: &canonical };
    let mut items = BTreeMap::new();
    for (id, r) in &reach {
        if *id == krate.root {
            continue;
        }
        let path = canonical[id].clone();
        let Some(Described { kind, ns, shape, members, impls }) = describe(&printer, *id) else {
            continue;
        };
        let name = path.rsplit("::").next().unwrap_or(&path).to_owned();
        let reexports = r.all().filter(|p| **p != path).cloned().collect();
        let page = match shape {
            Shape::External => shortest(&r.inlined).unwrap_or(&path).clone(),
            _ => path.clone(),
        };
        items.insert(
            Key { path: path.clone(), ns },
            Item { path, name, kind, reexports, page, shape, members, impls },
        );
    }
    Api { items }
}

/// Where an item is reachable.
#[derive(Default)]
struct Reach {
    /// In a public module that defines it (or that `pub use` inlines, for a private module).
    defined: Vec<String>,
    /// Through a `pub use`.
    reexported: Vec<String>,
    /// The paths of `reexported` whose `pub use` rustdoc inlines.
    inlined: Vec<String>,
}

/// The path with the fewest segments, then the shortest, then the first in byte order.
fn shortest(paths: &[String]) -> Option<&String> {
    paths.iter().min_by_key(|p| (p.matches("::").count(), p.len(), *p))
}

impl Reach {
    fn all(&self) -> impl Iterator<Item = &String> {
        self.defined.iter().chain(&self.reexported)
    }

    /// Where the item is defined, preferring the path rustdoc gives it; else its shortest
    /// re-export; for another crate's item, its path there.
    fn canonical(&self, krate: &Crate, id: Id) -> String {
        let summary = krate.paths.get(&id).map(|s| s.path.join("::"));
        if !krate.index.contains_key(&id)
            && let Some(summary) = summary
        {
            return summary;
        }
        let candidates = if self.defined.is_empty() { &self.reexported } else { &self.defined };
        if let Some(summary) = summary
            && candidates.contains(&summary)
        {
            return summary;
        }
        shortest(candidates).expect("an item is reached some way").clone()
    }
}

/// Every public path of every reachable item: breadth first through public modules, then
/// through `pub use` (whose private modules are walked as if defined where they are re-exported,
/// the way rustdoc inlines them), until nothing new is reached.
fn walk(krate: &Crate) -> HashMap<Id, Reach> {
    let mut w = Walk::default();
    let Some(root) = krate.index.get(&krate.root) else { return w.reach };
    let crate_name = root.name.clone().unwrap_or_default();
    w.reach.entry(krate.root).or_default().defined.push(crate_name.clone());
    w.walked.insert(krate.root);
    w.modules.push_back((krate.root, crate_name));
    let mut globs_seen = HashSet::new();
    loop {
        while let Some((module, path)) = w.modules.pop_front() {
            if let Some(ItemEnum::Module(m)) = krate.index.get(&module).map(|i| &i.inner) {
                w.visit(krate, &m.items, &path, true);
            }
        }
        let Some((path, use_item)) = w.uses.pop_front() else { break };
        let ItemEnum::Use(u) = &krate.index[&use_item].inner else { continue };
        let Some(target) = u.id else { continue };
        if u.is_glob {
            // The target module's public items, here. Another crate's module or an enum's
            // variants are not followed.
            if let Some(ItemEnum::Module(m)) = krate.index.get(&target).map(|i| &i.inner)
                && globs_seen.insert((target, path.clone()))
            {
                w.visit(krate, &m.items, &path, false);
            }
            continue;
        }
        let item_path = format!("{path}::{}", u.name);
        let r = w.reach.entry(target).or_default();
        r.reexported.push(item_path.clone());
        let no_inline = krate.index[&use_item].attrs.iter().any(
            |a| matches!(a, Attribute::Other(text) if text.replace(' ', "") == "#[doc(no_inline)]"),
        );
        if !no_inline {
            r.inlined.push(item_path.clone());
        }
        let is_module =
            matches!(krate.index.get(&target).map(|i| &i.inner), Some(ItemEnum::Module(_)));
        if is_module && w.walked.insert(target) {
            w.modules.push_back((target, item_path));
        }
    }
    w.reach
}

/// The state of [`walk`].
#[derive(Default)]
struct Walk {
    reach: HashMap<Id, Reach>,
    /// The modules walked or to walk.
    walked: HashSet<Id>,
    /// The modules to walk, with the path they are walked at.
    modules: VecDeque<(Id, String)>,
    /// The `pub use` items met, with the path of their module.
    uses: VecDeque<(String, Id)>,
}

impl Walk {
    /// Records the public `items` of a module walked at `path` (`defined` there, or brought
    /// there by a glob), queueing their modules and `pub use`s.
    fn visit(&mut self, krate: &Crate, items: &[Id], path: &str, defined: bool) {
        for id in items {
            let Some(item) = krate.index.get(id) else { continue };
            if item.visibility != Visibility::Public {
                continue;
            }
            if let ItemEnum::Use(_) = item.inner {
                self.uses.push_back((path.to_owned(), *id));
                continue;
            }
            let Some(name) = &item.name else { continue };
            let item_path = format!("{path}::{name}");
            let r = self.reach.entry(*id).or_default();
            if defined { &mut r.defined } else { &mut r.reexported }.push(item_path.clone());
            if matches!(item.inner, ItemEnum::Module(_)) && self.walked.insert(*id) {
                self.modules.push_back((*id, item_path));
            }
        }
    }
}

struct Described {
    kind: ItemKind,
    ns: Namespace,
    shape: Shape,
    members: BTreeMap<MemberKey, Member>,
    impls: BTreeMap<String, Vec<Text>>,
}

/// The kind, namespace, shape and members of the item `id`, or `None` for the kinds
/// the diff does not track (extern crates, primitives, trait aliases, extern types).
fn describe(p: &Printer, id: Id) -> Option<Described> {
    let Some(item) = p.krate.index.get(&id) else {
        let (kind, ns) = match p.krate.paths.get(&id)?.kind {
            RKind::Module => (ItemKind::Module, Namespace::Type),
            RKind::Struct => (ItemKind::Struct, Namespace::Type),
            RKind::Enum => (ItemKind::Enum, Namespace::Type),
            RKind::Union => (ItemKind::Union, Namespace::Type),
            RKind::Trait => (ItemKind::Trait, Namespace::Type),
            RKind::TypeAlias => (ItemKind::TypeAlias, Namespace::Type),
            RKind::Function => (ItemKind::Function, Namespace::Value),
            RKind::Constant => (ItemKind::Constant, Namespace::Value),
            RKind::Static => (ItemKind::Static, Namespace::Value),
            RKind::Macro => (ItemKind::Macro, Namespace::Macro),
            RKind::ProcAttribute => (ItemKind::AttributeMacro, Namespace::Macro),
            RKind::ProcDerive => (ItemKind::DeriveMacro, Namespace::Macro),
            _ => return None,
        };
        let (members, impls) = (BTreeMap::new(), BTreeMap::new());
        return Some(Described { kind, ns, shape: Shape::External, members, impls });
    };
    let mut members = BTreeMap::new();
    let mut impls = BTreeMap::new();
    let non_exhaustive = item.attrs.contains(&Attribute::NonExhaustive);
    let (kind, ns, shape) = match &item.inner {
        ItemEnum::Module(_) => (ItemKind::Module, Namespace::Type, Shape::Module),
        ItemEnum::Function(f) => {
            (ItemKind::Function, Namespace::Value, Shape::Function(fn_shape(p, f, None)))
        }
        ItemEnum::Struct(s) => {
            let (kind, stripped) = match &s.kind {
                StructKind::Unit => ("unit", false),
                StructKind::Tuple(fields) => {
                    for (i, field) in fields.iter().enumerate() {
                        if let Some(field) = field {
                            add_field(p, &mut members, *field, Some(i.to_string()));
                        }
                    }
                    ("tuple", fields.iter().any(Option::is_none))
                }
                StructKind::Plain { fields, has_stripped_fields } => {
                    for field in fields {
                        add_field(p, &mut members, *field, None);
                    }
                    ("plain", *has_stripped_fields)
                }
            };
            add_impls(p, &mut members, &mut impls, id, &s.impls);
            let generics = generics_shape(p, &s.generics);
            (
                ItemKind::Struct,
                Namespace::Type,
                Shape::Struct { kind, generics, stripped, non_exhaustive },
            )
        }
        ItemEnum::Union(u) => {
            for field in &u.fields {
                add_field(p, &mut members, *field, None);
            }
            add_impls(p, &mut members, &mut impls, id, &u.impls);
            let generics = generics_shape(p, &u.generics);
            (
                ItemKind::Union,
                Namespace::Type,
                Shape::Union { generics, stripped: u.has_stripped_fields },
            )
        }
        ItemEnum::Enum(e) => {
            for variant in &e.variants {
                add_variant(p, &mut members, *variant);
            }
            add_impls(p, &mut members, &mut impls, id, &e.impls);
            let generics = generics_shape(p, &e.generics);
            let stripped = e.has_stripped_variants;
            (ItemKind::Enum, Namespace::Type, Shape::Enum { generics, stripped, non_exhaustive })
        }
        ItemEnum::Trait(t) => {
            for member in &t.items {
                if let Some(member) = p.krate.index.get(member) {
                    add_member(p, &mut members, member, Group::TraitItem, None, None, None);
                }
            }
            let shape = Shape::Trait {
                generics: generics_shape(p, &t.generics),
                supertraits: t.bounds.iter().map(|b| p.bound_text(b)).collect(),
                is_unsafe: t.is_unsafe,
                dyn_compatible: t.is_dyn_compatible,
            };
            (ItemKind::Trait, Namespace::Type, shape)
        }
        ItemEnum::TypeAlias(t) => {
            let shape =
                Shape::TypeAlias { generics: generics_shape(p, &t.generics), ty: p.ty(&t.type_) };
            (ItemKind::TypeAlias, Namespace::Type, shape)
        }
        ItemEnum::Constant { type_, const_ } => {
            let value = const_.value.clone().unwrap_or_else(|| const_.expr.clone());
            (ItemKind::Constant, Namespace::Value, Shape::Constant { ty: p.ty(type_), value })
        }
        ItemEnum::Static(s) => {
            let shape = Shape::Static {
                ty: p.ty(&s.type_),
                is_mutable: s.is_mutable,
                is_unsafe: s.is_unsafe,
            };
            (ItemKind::Static, Namespace::Value, shape)
        }
        ItemEnum::Macro(text) => {
            (ItemKind::Macro, Namespace::Macro, Shape::Macro { rules: matchers(text) })
        }
        ItemEnum::ProcMacro(m) => {
            let kind = match m.kind {
                MacroKind::Bang => ItemKind::Macro,
                MacroKind::Attr => ItemKind::AttributeMacro,
                MacroKind::Derive => ItemKind::DeriveMacro,
            };
            (kind, Namespace::Macro, Shape::ProcMacro { helpers: m.helpers.clone() })
        }
        _ => return None,
    };
    Some(Described { kind, ns, shape, members, impls })
}

fn add_field(p: &Printer, members: &mut BTreeMap<MemberKey, Member>, id: Id, name: Option<String>) {
    let Some(field) = p.krate.index.get(&id) else { return };
    let ItemEnum::StructField(ty) = &field.inner else { return };
    if field.visibility != Visibility::Public {
        return;
    }
    let Some(name) = name.or_else(|| field.name.clone()) else { return };
    let key = MemberKey { group: Group::Field, ns: Namespace::Value, name: name.clone() };
    let shape = Shape::Field { ty: p.ty(ty) };
    members.insert(key, Member { name, kind: ItemKind::Field, impl_of: None, shape });
}

fn add_variant(p: &Printer, members: &mut BTreeMap<MemberKey, Member>, id: Id) {
    let Some(variant) = p.krate.index.get(&id) else { return };
    let (ItemEnum::Variant(v), Some(name)) = (&variant.inner, &variant.name) else { return };
    let mut decl = Text::lit(name);
    let field = |id: &Id| match p.krate.index.get(id).map(|f| (&f.inner, &f.name)) {
        Some((ItemEnum::StructField(ty), name)) => Some((name.clone(), p.ty(ty))),
        _ => None,
    };
    let mut parts: Vec<Text> = Vec::new();
    let (open, close) = match &v.kind {
        VariantKind::Plain => ("", ""),
        VariantKind::Tuple(fields) => {
            for f in fields {
                parts.push(f.as_ref().and_then(field).map_or_else(|| Text::lit("_"), |(_, ty)| ty));
            }
            ("(", ")")
        }
        VariantKind::Struct { fields, has_stripped_fields } => {
            for f in fields.iter().filter_map(field) {
                let mut t = Text::lit(&format!("{}: ", f.0.unwrap_or_default()));
                t.append(&f.1);
                parts.push(t);
            }
            if *has_stripped_fields {
                parts.push(Text::lit(".."));
            }
            (" { ", " }")
        }
    };
    if !open.is_empty() {
        decl.append(&Text::lit(open));
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                decl.append(&Text::lit(", "));
            }
            decl.append(part);
        }
        decl.append(&Text::lit(close));
    }
    if let Some(d) = &v.discriminant {
        decl.append(&Text::lit(&format!(" = {}", d.value)));
    }
    let key = MemberKey { group: Group::Variant, ns: Namespace::Value, name: name.clone() };
    let shape = Shape::Variant { decl };
    members
        .insert(key, Member { name: name.clone(), kind: ItemKind::Variant, impl_of: None, shape });
}

/// The impls of the type `owner` (but blanket impls, which it did not write) and the members
/// of those that are not synthetic (auto-trait impls have none).
fn add_impls(
    p: &Printer,
    members: &mut BTreeMap<MemberKey, Member>,
    trait_impls: &mut BTreeMap<String, Vec<Text>>,
    owner: Id,
    impls: &[Id],
) {
    for id in impls {
        let Some(RItem { inner: ItemEnum::Impl(imp), .. }) = p.krate.index.get(id) else {
            continue;
        };
        if imp.blanket_impl.is_some() {
            continue;
        }
        let self_ty = p.ty(&imp.for_).shown();
        let Some(trait_) = &imp.trait_ else {
            for member in imp.items.iter().filter_map(|m| p.krate.index.get(m)) {
                if member.visibility == Visibility::Public {
                    let group = Group::Inherent(String::new());
                    add_member(p, members, member, group, Some(imp), Some(self_ty.clone()), None);
                }
            }
            continue;
        };
        let trait_ = p.ty(&Type::ResolvedPath(trait_.clone())).shown();
        let not = if imp.is_negative { "!" } else { "" };
        let bounds = p.predicates(&imp.generics.params, &imp.generics.where_predicates);
        trait_impls.insert(format!("{not}{trait_} for {self_ty}"), bounds);
        let simple = matches!(&imp.for_, Type::ResolvedPath(path) if path.id == owner);
        let impl_of = (if simple { None } else { Some(self_ty.clone()) }, trait_.clone());
        let group = Group::TraitImpl { trait_, self_ty };
        for member in imp.items.iter().filter_map(|m| p.krate.index.get(m)) {
            // The impl's bounds are the impl's, compared there.
            add_member(p, members, member, group.clone(), None, None, Some(impl_of.clone()));
        }
    }
}

/// Adds a trait's or impl's function, constant or type; `self_ty` (an inherent impl's self
/// type) tells apart two impls' members of one name; `impl_of` is [`Member::impl_of`].
fn add_member(
    p: &Printer,
    members: &mut BTreeMap<MemberKey, Member>,
    member: &RItem,
    group: Group,
    imp: Option<&Impl>,
    self_ty: Option<String>,
    impl_of: Option<(Option<String>, String)>,
) {
    let Some(name) = member.name.clone() else { return };
    let in_trait = group == Group::TraitItem;
    let (kind, ns, shape) = match &member.inner {
        ItemEnum::Function(f) => {
            let kind = match (in_trait, f.has_body) {
                (false, _) => ItemKind::Method,
                (true, false) => ItemKind::RequiredMethod,
                (true, true) => ItemKind::ProvidedMethod,
            };
            let impl_generics = imp.map(|i| &i.generics);
            (kind, Namespace::Value, Shape::Function(fn_shape(p, f, impl_generics)))
        }
        ItemEnum::AssocConst { type_, value } => {
            let shape = Shape::AssocConst { ty: p.ty(type_), value: value.clone() };
            (ItemKind::AssocConst, Namespace::Value, shape)
        }
        ItemEnum::AssocType { generics, bounds, type_ } => {
            let shape = Shape::AssocType {
                generics: generics_shape(p, generics),
                bounds: bounds.iter().map(|b| p.bound_text(b)).collect(),
                default: type_.as_ref().map(|t| p.ty(t)),
            };
            (ItemKind::AssocType, Namespace::Type, shape)
        }
        _ => return,
    };
    let mut key = MemberKey { group, ns, name: name.clone() };
    if members.contains_key(&key)
        && let (Group::Inherent(_), Some(self_ty)) = (&key.group, self_ty)
    {
        key.group = Group::Inherent(self_ty);
    }
    members.insert(key, Member { name, kind, impl_of, shape });
}

fn fn_shape(p: &Printer, f: &Function, impl_generics: Option<&Generics>) -> Box<FnShape> {
    let mut generics = generics_shape(p, &f.generics);
    if let Some(outer) = impl_generics {
        let mut bounds = p.predicates(&outer.params, &outer.where_predicates);
        bounds.append(&mut generics.bounds);
        generics.bounds = bounds;
    }
    Box::new(FnShape {
        is_const: f.header.is_const,
        is_async: f.header.is_async,
        is_unsafe: f.header.is_unsafe,
        abi: abi(&f.header.abi),
        params: f
            .sig
            .inputs
            .iter()
            .map(|(name, t)| Param { ty: p.ty(t), decl: p.fn_param(name, t) })
            .collect(),
        output: f.sig.output.as_ref().map(|t| p.ty(t)),
        generics,
    })
}

fn generics_shape(p: &Printer, g: &Generics) -> GenericsShape {
    GenericsShape {
        params: p.params(&g.params),
        bounds: p.predicates(&g.params, &g.where_predicates),
    }
}

/// A `macro_rules!` macro's matchers (`($x:expr)`), from the rules as rustdoc prints them, one
/// per line with an elided body: `($x:expr) => { ... };`.
fn matchers(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim();
            let l = l.strip_suffix(';').unwrap_or(l);
            Some(l.strip_suffix("=> { ... }")?.trim_end().to_owned())
        })
        .collect()
}

/// Where an item is in one version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Place {
    /// Its canonical path (`kernel::sync::Arc`), for a method `Type::method`, for a trait
    /// impl's member `<Type as Trait>::method`.
    pub path: String,
    /// Its rustdoc page, relative to the doc root: see [`url`] and [`crate::url::member_url`].
    pub url: String,
    /// The other public paths that reach it (`pub use`), sorted.
    pub reexports: Vec<String>,
}

/// An item's place in its version.
pub(crate) fn place(item: &Item) -> Place {
    Place {
        path: item.path.clone(),
        url: url(&item.page, item.kind),
        reexports: item.reexports.iter().cloned().collect(),
    }
}
