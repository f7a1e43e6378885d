//! Two versions of an API compared: what was added, removed, moved and changed, and why.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::ItemKind;
use crate::api::{Api, FnShape, GenericsShape, Group, Item, Key, Member, Place, Shape, place};
use crate::print::Text;
use crate::url::member_url;

/// How an entry of a [`Diff`] changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChangeKind {
    /// In the new version only.
    Added,
    /// In the old version only.
    Removed,
    /// Of the same name and kind at another canonical path; it may also have changed.
    Moved,
    /// At the same path in both, with a different signature, bounds, fields, variants, trait
    /// items or re-exports.
    Changed,
}

impl ChangeKind {
    /// Each kind, in the order the reports show them.
    pub const ALL: [ChangeKind; 4] =
        [ChangeKind::Added, ChangeKind::Removed, ChangeKind::Moved, ChangeKind::Changed];

    /// `"added"`, `"removed"`, `"moved"`, `"changed"`.
    pub fn name(self) -> &'static str {
        match self {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Moved => "moved",
            ChangeKind::Changed => "changed",
        }
    }
}

/// What changed between two versions of an API, entry by entry: sorted by change kind, then
/// path.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diff {
    /// The entries.
    pub entries: Vec<Entry>,
}

/// One item added, removed, moved or changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// How it changed.
    pub change: ChangeKind,
    /// What it is (in the new version, when it exists there).
    pub kind: ItemKind,
    /// Where it is in the old version, if it exists there.
    pub old: Option<Place>,
    /// Where it is in the new version, if it exists there.
    pub new: Option<Place>,
    /// Why a moved or changed item is listed, one short reason each: "now unsafe".
    pub reasons: Vec<Reason>,
}

/// Why an entry is listed: a short text whose code is between backticks ("parameter 2:
/// `&T` → `Pin<&mut T>`"), and where a member it names (a variant, field or trait item) is
/// in each version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reason {
    /// The reason.
    pub text: String,
    /// The page of the member it names in the old version.
    pub old_url: Option<String>,
    /// The page of the member it names in the new version.
    pub new_url: Option<String>,
}

impl Reason {
    fn new(text: String) -> Reason {
        Reason { text, old_url: None, new_url: None }
    }
}

/// How many entries of each change kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// [`ChangeKind::Added`].
    pub added: usize,
    /// [`ChangeKind::Removed`].
    pub removed: usize,
    /// [`ChangeKind::Moved`].
    pub moved: usize,
    /// [`ChangeKind::Changed`].
    pub changed: usize,
}

impl Counts {
    /// The count of one change kind.
    pub fn get(&self, change: ChangeKind) -> usize {
        match change {
            ChangeKind::Added => self.added,
            ChangeKind::Removed => self.removed,
            ChangeKind::Moved => self.moved,
            ChangeKind::Changed => self.changed,
        }
    }

    fn add(&mut self, change: ChangeKind) {
        *match change {
            ChangeKind::Added => &mut self.added,
            ChangeKind::Removed => &mut self.removed,
            ChangeKind::Moved => &mut self.moved,
            ChangeKind::Changed => &mut self.changed,
        } += 1;
    }
}

/// A diff's counts, in all and per item kind.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// All entries.
    pub total: Counts,
    /// The entries of each item kind that has any.
    pub by_kind: BTreeMap<ItemKind, Counts>,
}

/// Counts a diff's entries.
pub fn summary(diff: &Diff) -> Summary {
    let mut summary = Summary::default();
    for entry in &diff.entries {
        summary.total.add(entry.change);
        summary.by_kind.entry(entry.kind).or_default().add(entry.change);
    }
    summary
}

/// Compares two versions of an API.
///
/// Module-level items are matched by canonical path and namespace; of those left, an old and a
/// new item of the same name and kind, when no other item has that name and kind, moved. An
/// impl's members are entries of their own (`Type::method`, `<Type as Trait>::method`); a
/// trait's items are entries of their own when they change, and reasons of their trait when
/// added or removed; fields, variants and trait impls are reasons of their type. Members of an
/// added or removed item or trait impl are not listed.
pub fn diff(old: &Api, new: &Api) -> Diff {
    let only_old: Vec<&Key> = old.items.keys().filter(|k| !new.items.contains_key(*k)).collect();
    let only_new: Vec<&Key> = new.items.keys().filter(|k| !old.items.contains_key(*k)).collect();
    let old_groups = by_name_and_kind(&only_old, &old.items);
    let new_groups = by_name_and_kind(&only_new, &new.items);
    let mut moves: Vec<(Key, Key)> = Vec::new();
    for (name_kind, olds) in &old_groups {
        if let ([o], Some([n])) = (&olds[..], new_groups.get(name_kind).map(|v| &v[..])) {
            moves.push((o.clone(), n.clone()));
        }
    }
    let moved_paths: HashMap<String, String> =
        moves.iter().map(|(o, n)| (o.path.clone(), n.path.clone())).collect();
    let cx = Cx { moved: &moved_paths };

    let mut entries = Vec::new();
    for (key, o) in &old.items {
        if let Some(n) = new.items.get(key) {
            compare(&cx, o, n, false, &mut entries);
        }
    }
    for (o, n) in &moves {
        compare(&cx, &old.items[o], &new.items[n], true, &mut entries);
    }
    let moved_old: BTreeSet<&Key> = moves.iter().map(|(o, _)| o).collect();
    let moved_new: BTreeSet<&Key> = moves.iter().map(|(_, n)| n).collect();
    for key in only_old.into_iter().filter(|k| !moved_old.contains(k)) {
        let item = &old.items[key];
        let old = Some(place(item));
        entries.push(Entry {
            change: ChangeKind::Removed,
            kind: item.kind,
            old,
            new: None,
            reasons: vec![],
        });
    }
    for key in only_new.into_iter().filter(|k| !moved_new.contains(k)) {
        let item = &new.items[key];
        let new = Some(place(item));
        entries.push(Entry {
            change: ChangeKind::Added,
            kind: item.kind,
            old: None,
            new,
            reasons: vec![],
        });
    }
    entries.sort_by(|a, b| {
        // `<Type as Trait>::m` next to `Type`.
        let path = |e: &Entry| {
            let place = e.new.as_ref().or(e.old.as_ref());
            place.map(|p| p.path.trim_start_matches('<').to_owned())
        };
        (a.change, path(a), a.kind).cmp(&(b.change, path(b), b.kind))
    });
    Diff { entries }
}

fn by_name_and_kind(
    keys: &[&Key],
    items: &BTreeMap<Key, Item>,
) -> BTreeMap<(String, ItemKind), Vec<Key>> {
    let mut groups: BTreeMap<(String, ItemKind), Vec<Key>> = BTreeMap::new();
    for key in keys {
        let item = &items[*key];
        groups.entry((item.name.clone(), item.kind)).or_default().push((*key).clone());
    }
    groups
}

/// What comparing needs to know of the whole diff.
struct Cx<'a> {
    /// The old canonical path of each moved item, to its new one.
    moved: &'a HashMap<String, String>,
}

impl Cx<'_> {
    fn same(&self, old: &Text, new: &Text) -> bool {
        old.full(self.moved) == new.full(&HashMap::new())
    }

    /// The two texts as shown, or in full when they only differ there.
    fn show(&self, old: &Text, new: &Text) -> (String, String) {
        let (o, n) = (old.shown(), new.shown());
        if o != n { (o, n) } else { (old.full(&HashMap::new()), new.full(&HashMap::new())) }
    }

    /// The texts only in `old` and only in `new`, as shown.
    fn sets(&self, old: &[Text], new: &[Text]) -> (Vec<String>, Vec<String>) {
        let none = HashMap::new();
        let old_keys: BTreeSet<String> = old.iter().map(|t| t.full(self.moved)).collect();
        let new_keys: BTreeSet<String> = new.iter().map(|t| t.full(&none)).collect();
        let gone = old.iter().filter(|t| !new_keys.contains(&t.full(self.moved)));
        let came = new.iter().filter(|t| !old_keys.contains(&t.full(&none)));
        (dedup(gone.map(Text::shown)), dedup(came.map(Text::shown)))
    }
}

fn dedup(texts: impl Iterator<Item = String>) -> Vec<String> {
    let mut seen = BTreeSet::new();
    texts.filter(|t| seen.insert(t.clone())).collect()
}

/// A member's place, under its parent's.
fn member_place(parent: &Item, m: &Member) -> Place {
    let path = match &m.impl_of {
        None => format!("{}::{}", parent.path, m.name),
        Some((self_ty, trait_)) => {
            let self_ty = self_ty.as_deref().unwrap_or(&parent.path);
            format!("<{self_ty} as {trait_}>::{}", m.name)
        }
    };
    let url = member_url(&parent.page, parent.kind, &m.name, m.kind);
    Place { path, url, reexports: vec![] }
}

/// Compares an item present in both versions (at the same path, or `moved`), pushing its entry
/// and its members'.
fn compare(cx: &Cx, old: &Item, new: &Item, moved: bool, entries: &mut Vec<Entry>) {
    let mut reasons: Vec<Reason> = Vec::new();
    let mut texts = Vec::new();
    if old.kind != new.kind {
        texts.push(format!("was a {}, now a {}", old.kind.name(), new.kind.name()));
    } else {
        shape(cx, &old.shape, &new.shape, &mut texts);
    }
    let old_all: BTreeSet<&String> = old.reexports.iter().chain([&old.path]).collect();
    let new_all: BTreeSet<&String> = new.reexports.iter().chain([&new.path]).collect();
    if moved && new_all.contains(&old.path) {
        texts.push(format!("still re-exported at its old path `{}`", old.path));
    }
    for path in new_all.difference(&old_all).filter(|p| ***p != new.path) {
        texts.push(format!("re-export `{path}` added"));
    }
    for path in old_all.difference(&new_all).filter(|p| ***p != old.path) {
        texts.push(format!("re-export `{path}` removed"));
    }
    reasons.extend(texts.into_iter().map(Reason::new));

    // A trait impl added or removed is a reason of its type, its members are not entries.
    let in_both = |group: &Group| match group {
        Group::TraitImpl { trait_, self_ty } => {
            let key = format!("{trait_} for {self_ty}");
            old.impls.contains_key(&key) && new.impls.contains_key(&key)
        }
        _ => true,
    };
    for (key, old_bounds) in &old.impls {
        match new.impls.get(key) {
            None => reasons.push(Reason::new(format!("impl `{key}` removed"))),
            Some(new_bounds) => {
                let mut texts = Vec::new();
                set(cx, &format!("impl `{key}`: bound"), old_bounds, new_bounds, &mut texts);
                reasons.extend(texts.into_iter().map(Reason::new));
            }
        }
    }
    for key in new.impls.keys().filter(|k| !old.impls.contains_key(*k)) {
        reasons.push(Reason::new(format!("impl `{key}` added")));
    }

    for (key, om) in &old.members {
        let old_url = Some(member_url(&old.page, old.kind, &om.name, om.kind));
        let Some(nm) = new.members.get(key) else {
            match key.group {
                Group::Field | Group::Variant | Group::TraitItem => reasons.push(Reason {
                    text: format!("{} `{}` removed", om.kind.name(), om.name),
                    old_url,
                    new_url: None,
                }),
                Group::Inherent(_) | Group::TraitImpl { .. } => {
                    if in_both(&key.group) {
                        entries.push(Entry {
                            change: ChangeKind::Removed,
                            kind: om.kind,
                            old: Some(member_place(old, om)),
                            new: None,
                            reasons: vec![],
                        });
                    }
                }
            }
            continue;
        };
        let new_url = Some(member_url(&new.page, new.kind, &nm.name, nm.kind));
        let mut texts = Vec::new();
        match (&om.kind, &nm.kind) {
            (ItemKind::RequiredMethod, ItemKind::ProvidedMethod) => {
                texts.push("now has a default body".to_owned());
            }
            (ItemKind::ProvidedMethod, ItemKind::RequiredMethod) => {
                texts.push("no longer has a default body".to_owned());
            }
            (o, n) if o != n => texts.push(format!("was a {}, now a {}", o.name(), n.name())),
            _ => {}
        }
        match (&key.group, &om.shape, &nm.shape) {
            (Group::Field, Shape::Field { ty: o }, Shape::Field { ty: n }) => {
                if !cx.same(o, n) {
                    let (o, n) = cx.show(o, n);
                    let text = format!("field `{}`: `{o}` → `{n}`", om.name);
                    reasons.push(Reason { text, old_url, new_url });
                }
            }
            (Group::Variant, Shape::Variant { decl: o }, Shape::Variant { decl: n }) => {
                if !cx.same(o, n) {
                    let (o, n) = cx.show(o, n);
                    let text = format!("variant `{}`: `{o}` → `{n}`", om.name);
                    reasons.push(Reason { text, old_url, new_url });
                }
            }
            _ => {
                shape(cx, &om.shape, &nm.shape, &mut texts);
                if !texts.is_empty() {
                    entries.push(Entry {
                        change: ChangeKind::Changed,
                        kind: nm.kind,
                        old: Some(member_place(old, om)),
                        new: Some(member_place(new, nm)),
                        reasons: texts.into_iter().map(Reason::new).collect(),
                    });
                }
            }
        }
    }
    for (key, nm) in &new.members {
        if old.members.contains_key(key) || !in_both(&key.group) {
            continue;
        }
        match key.group {
            Group::Field | Group::Variant | Group::TraitItem => reasons.push(Reason {
                text: format!("{} `{}` added", nm.kind.name(), nm.name),
                old_url: None,
                new_url: Some(member_url(&new.page, new.kind, &nm.name, nm.kind)),
            }),
            Group::Inherent(_) | Group::TraitImpl { .. } => entries.push(Entry {
                change: ChangeKind::Added,
                kind: nm.kind,
                old: None,
                new: Some(member_place(new, nm)),
                reasons: vec![],
            }),
        }
    }
    if moved || !reasons.is_empty() {
        let change = if moved { ChangeKind::Moved } else { ChangeKind::Changed };
        entries.push(Entry {
            change,
            kind: new.kind,
            old: Some(place(old)),
            new: Some(place(new)),
            reasons,
        });
    }
}

/// `now` when a flag was set, `no_longer` when it was cleared.
fn flag(old: bool, new: bool, now: &str, no_longer: &str, out: &mut Vec<String>) {
    match (old, new) {
        (false, true) => out.push(now.to_owned()),
        (true, false) => out.push(no_longer.to_owned()),
        _ => {}
    }
}

/// What `what` became, if it changed: "return type: `u32` → `usize`".
fn changed(cx: &Cx, what: &str, old: &Text, new: &Text, out: &mut Vec<String>) {
    if !cx.same(old, new) {
        let (o, n) = cx.show(old, new);
        out.push(format!("{what}: `{o}` → `{n}`"));
    }
}

/// The texts added to and removed from a set: "bound `T: Send` added".
fn set(cx: &Cx, what: &str, old: &[Text], new: &[Text], out: &mut Vec<String>) {
    let (gone, came) = cx.sets(old, new);
    out.extend(came.iter().map(|t| format!("{what} `{t}` added")));
    out.extend(gone.iter().map(|t| format!("{what} `{t}` removed")));
}

fn strings(what: &str, old: &[String], new: &[String], out: &mut Vec<String>) {
    out.extend(new.iter().filter(|s| !old.contains(s)).map(|s| format!("{what} `{s}` added")));
    out.extend(old.iter().filter(|s| !new.contains(s)).map(|s| format!("{what} `{s}` removed")));
}

fn generics(cx: &Cx, old: &GenericsShape, new: &GenericsShape, out: &mut Vec<String>) {
    set(cx, "generic parameter", &old.params, &new.params, out);
    set(cx, "bound", &old.bounds, &new.bounds, out);
}

/// Why two shapes of the same kind differ.
fn shape(cx: &Cx, old: &Shape, new: &Shape, out: &mut Vec<String>) {
    match (old, new) {
        (Shape::Function(o), Shape::Function(n)) => function(cx, o, n, out),
        (
            Shape::Struct { kind: ok, generics: og, stripped: os, non_exhaustive: oe },
            Shape::Struct { kind: nk, generics: ng, stripped: ns, non_exhaustive: ne },
        ) => {
            if ok != nk {
                out.push(format!("was a {ok} struct, now a {nk} struct"));
            }
            generics(cx, og, ng, out);
            flag(*os, *ns, "now has private fields", "no longer has private fields", out);
            flag(*oe, *ne, "now `#[non_exhaustive]`", "no longer `#[non_exhaustive]`", out);
        }
        (
            Shape::Enum { generics: og, stripped: os, non_exhaustive: oe },
            Shape::Enum { generics: ng, stripped: ns, non_exhaustive: ne },
        ) => {
            generics(cx, og, ng, out);
            flag(*os, *ns, "now has hidden variants", "no longer has hidden variants", out);
            flag(*oe, *ne, "now `#[non_exhaustive]`", "no longer `#[non_exhaustive]`", out);
        }
        (
            Shape::Union { generics: og, stripped: os },
            Shape::Union { generics: ng, stripped: ns },
        ) => {
            generics(cx, og, ng, out);
            flag(*os, *ns, "now has private fields", "no longer has private fields", out);
        }
        (
            Shape::Trait { generics: og, supertraits: os, is_unsafe: ou, dyn_compatible: od },
            Shape::Trait { generics: ng, supertraits: ns, is_unsafe: nu, dyn_compatible: nd },
        ) => {
            flag(*ou, *nu, "now an unsafe trait", "no longer an unsafe trait", out);
            generics(cx, og, ng, out);
            set(cx, "supertrait", os, ns, out);
            flag(*od, *nd, "now dyn compatible", "no longer dyn compatible", out);
        }
        (Shape::TypeAlias { generics: og, ty: ot }, Shape::TypeAlias { generics: ng, ty: nt }) => {
            generics(cx, og, ng, out);
            changed(cx, "aliased type", ot, nt, out);
        }
        (Shape::Constant { ty: ot, value: ov }, Shape::Constant { ty: nt, value: nv }) => {
            changed(cx, "type", ot, nt, out);
            if ov != nv {
                out.push(format!("value: `{ov}` → `{nv}`"));
            }
        }
        (
            Shape::Static { ty: ot, is_mutable: om, is_unsafe: ou },
            Shape::Static { ty: nt, is_mutable: nm, is_unsafe: nu },
        ) => {
            changed(cx, "type", ot, nt, out);
            flag(*om, *nm, "now mutable", "no longer mutable", out);
            flag(*ou, *nu, "now unsafe", "no longer unsafe", out);
        }
        (Shape::Macro { rules: o }, Shape::Macro { rules: n }) => strings("rule", o, n, out),
        (Shape::ProcMacro { helpers: o }, Shape::ProcMacro { helpers: n }) => {
            strings("helper attribute", o, n, out);
        }
        (Shape::AssocConst { ty: ot, value: ov }, Shape::AssocConst { ty: nt, value: nv }) => {
            changed(cx, "type", ot, nt, out);
            match (ov, nv) {
                (Some(o), Some(n)) if o != n => out.push(format!("value: `{o}` → `{n}`")),
                (None, Some(n)) => out.push(format!("value `{n}` added")),
                (Some(o), None) => out.push(format!("value `{o}` removed")),
                _ => {}
            }
        }
        (
            Shape::AssocType { generics: og, bounds: ob, default: od },
            Shape::AssocType { generics: ng, bounds: nb, default: nd },
        ) => {
            generics(cx, og, ng, out);
            set(cx, "bound", ob, nb, out);
            match (od, nd) {
                (Some(o), Some(n)) => changed(cx, "type", o, n, out),
                (None, Some(n)) => out.push(format!("type `{}` added", n.shown())),
                (Some(o), None) => out.push(format!("type `{}` removed", o.shown())),
                (None, None) => {}
            }
        }
        (Shape::External, Shape::External) | (Shape::Module, Shape::Module) => {}
        (Shape::External, _) => out.push("now defined in this crate (not compared)".to_owned()),
        (_, Shape::External) => out.push("now defined in another crate (not compared)".to_owned()),
        // Fields and variants are compared by their parent; other pairs differ in kind, which
        // the caller reports.
        _ => {}
    }
}

fn function(cx: &Cx, old: &FnShape, new: &FnShape, out: &mut Vec<String>) {
    flag(old.is_unsafe, new.is_unsafe, "now unsafe", "no longer unsafe", out);
    flag(old.is_const, new.is_const, "now const", "no longer const", out);
    flag(old.is_async, new.is_async, "now async", "no longer async", out);
    if old.abi != new.abi {
        let abi = |a: &Option<String>| a.clone().unwrap_or_else(|| "Rust".to_owned());
        out.push(format!("ABI: `{}` → `{}`", abi(&old.abi), abi(&new.abi)));
    }
    if old.params.len() == new.params.len() {
        for (i, (o, n)) in old.params.iter().zip(&new.params).enumerate() {
            changed(cx, &format!("parameter {}", i + 1), &o.ty, &n.ty, out);
        }
    } else {
        let list = |params: &[crate::api::Param], show: &dyn Fn(&Text) -> String| {
            params.iter().map(|p| show(&p.decl)).collect::<Vec<_>>().join(", ")
        };
        let shown = |t: &Text| t.shown();
        out.push(format!(
            "parameters: `({})` → `({})`",
            list(&old.params, &shown),
            list(&new.params, &shown)
        ));
    }
    let unit = Text::lit("()");
    changed(
        cx,
        "return type",
        old.output.as_ref().unwrap_or(&unit),
        new.output.as_ref().unwrap_or(&unit),
        out,
    );
    generics(cx, &old.generics, &new.generics, out);
}
