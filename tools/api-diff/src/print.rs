//! Rust syntax for rustdoc's types, bounds and generics.
//!
//! A [`Text`] remembers each path twice: as rustdoc's HTML shows it (the last segment, `Pin`)
//! and in full (the item's canonical path, `core::pin::Pin`). Two versions compare in full,
//! after the old version's paths are mapped through the items that moved, so that a type
//! swapped for another of the same name is a change and a type that merely moved is not.

use std::collections::HashMap;

use rustdoc_types::{
    Abi, AssocItemConstraint, AssocItemConstraintKind, Crate, FunctionHeader, FunctionPointer,
    GenericArg, GenericArgs, GenericBound, GenericParamDef, GenericParamDefKind, Id, Path,
    PreciseCapturingArg, Term, TraitBoundModifier, Type, WherePredicate,
};

/// Printed Rust syntax whose paths are known in full.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Text {
    toks: Vec<Tok>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Lit(String),
    Path { short: String, full: String },
}

impl Text {
    /// Text without paths.
    pub(crate) fn lit(s: &str) -> Text {
        let mut t = Text::default();
        t.push(s);
        t
    }

    fn push(&mut self, s: &str) {
        if let Some(Tok::Lit(last)) = self.toks.last_mut() {
            last.push_str(s);
        } else if !s.is_empty() {
            self.toks.push(Tok::Lit(s.to_owned()));
        }
    }

    fn push_path(&mut self, short: &str, full: &str) {
        self.toks.push(Tok::Path { short: short.to_owned(), full: full.to_owned() });
    }

    pub(crate) fn append(&mut self, other: &Text) {
        for tok in &other.toks {
            match tok {
                Tok::Lit(s) => self.push(s),
                Tok::Path { .. } => self.toks.push(tok.clone()),
            }
        }
    }

    /// As rustdoc's HTML shows it: `Pin<&mut T>`.
    pub(crate) fn shown(&self) -> String {
        self.render(|short, _| short.to_owned())
    }

    /// With every path in full, each mapped through `moved` (old canonical path to new).
    pub(crate) fn full(&self, moved: &HashMap<String, String>) -> String {
        self.render(|_, full| moved.get(full).map_or(full, |p| p).to_owned())
    }

    fn render(&self, path: impl Fn(&str, &str) -> String) -> String {
        let mut out = String::new();
        for tok in &self.toks {
            match tok {
                Tok::Lit(s) => out.push_str(s),
                Tok::Path { short, full } => out.push_str(&path(short, full)),
            }
        }
        out
    }
}

/// Prints a crate's types; `canonical` is where the public API walk found each item.
pub(crate) struct Printer<'a> {
    pub(crate) krate: &'a Crate,
    pub(crate) canonical: &'a HashMap<Id, String>,
}

impl Printer<'_> {
    /// The full path of the item a path refers to.
    fn full_path(&self, path: &Path) -> String {
        if let Some(p) = self.canonical.get(&path.id) {
            return p.clone();
        }
        match self.krate.paths.get(&path.id) {
            Some(summary) => summary.path.join("::"),
            None => path.path.clone(),
        }
    }

    fn path(&self, out: &mut Text, path: &Path) {
        let short = path.path.rsplit("::").next().unwrap_or(&path.path);
        out.push_path(short, &self.full_path(path));
        if let Some(args) = &path.args {
            self.generic_args(out, args);
        }
    }

    pub(crate) fn ty(&self, t: &Type) -> Text {
        let mut out = Text::default();
        self.write_ty(&mut out, t);
        out
    }

    fn write_ty(&self, out: &mut Text, t: &Type) {
        match t {
            Type::ResolvedPath(path) => self.path(out, path),
            Type::DynTrait(dyn_trait) => {
                out.push("dyn ");
                for (i, poly) in dyn_trait.traits.iter().enumerate() {
                    if i > 0 {
                        out.push(" + ");
                    }
                    self.for_params(out, &poly.generic_params);
                    self.path(out, &poly.trait_);
                }
                if let Some(lifetime) = &dyn_trait.lifetime {
                    out.push(" + ");
                    out.push(lifetime);
                }
            }
            Type::Generic(name) | Type::Primitive(name) => out.push(name),
            Type::FunctionPointer(f) => self.fn_pointer(out, f),
            Type::Tuple(types) => {
                out.push("(");
                self.list(out, types, |p, out, t| p.write_ty(out, t));
                if types.len() == 1 {
                    out.push(",");
                }
                out.push(")");
            }
            Type::Slice(t) => {
                out.push("[");
                self.write_ty(out, t);
                out.push("]");
            }
            Type::Array { type_, len } => {
                out.push("[");
                self.write_ty(out, type_);
                out.push("; ");
                out.push(len);
                out.push("]");
            }
            Type::Pat { type_, .. } => self.write_ty(out, type_),
            Type::ImplTrait(bounds) => {
                out.push("impl ");
                self.bounds(out, bounds);
            }
            Type::Infer => out.push("_"),
            Type::RawPointer { is_mutable, type_ } => {
                out.push(if *is_mutable { "*mut " } else { "*const " });
                self.write_ty(out, type_);
            }
            Type::BorrowedRef { lifetime, is_mutable, type_ } => {
                out.push("&");
                if let Some(lifetime) = lifetime {
                    out.push(lifetime);
                    out.push(" ");
                }
                if *is_mutable {
                    out.push("mut ");
                }
                self.write_ty(out, type_);
            }
            Type::QualifiedPath { name, args, self_type, trait_ } => {
                match trait_ {
                    Some(trait_) if !is_self(self_type) => {
                        out.push("<");
                        self.write_ty(out, self_type);
                        out.push(" as ");
                        self.path(out, trait_);
                        out.push(">");
                    }
                    _ => self.write_ty(out, self_type),
                }
                out.push("::");
                out.push(name);
                if let Some(args) = args {
                    self.generic_args(out, args);
                }
            }
        }
    }

    fn list<T>(&self, out: &mut Text, items: &[T], each: impl Fn(&Self, &mut Text, &T)) {
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push(", ");
            }
            each(self, out, item);
        }
    }

    fn fn_pointer(&self, out: &mut Text, f: &FunctionPointer) {
        self.for_params(out, &f.generic_params);
        out.push(&header(&f.header));
        out.push("fn(");
        self.list(out, &f.sig.inputs, |p, out, (_, t)| p.write_ty(out, t));
        if f.sig.is_c_variadic {
            out.push(", ...");
        }
        out.push(")");
        if let Some(output) = &f.sig.output {
            out.push(" -> ");
            self.write_ty(out, output);
        }
    }

    fn generic_args(&self, out: &mut Text, args: &GenericArgs) {
        match args {
            GenericArgs::AngleBracketed { args, constraints } => {
                if args.is_empty() && constraints.is_empty() {
                    return;
                }
                out.push("<");
                self.list(out, args, |p, out, arg| match arg {
                    GenericArg::Lifetime(l) => out.push(l),
                    GenericArg::Type(t) => p.write_ty(out, t),
                    GenericArg::Const(c) => out.push(&c.expr),
                    GenericArg::Infer => out.push("_"),
                });
                if !args.is_empty() && !constraints.is_empty() {
                    out.push(", ");
                }
                self.list(out, constraints, |p, out, c| p.constraint(out, c));
                out.push(">");
            }
            GenericArgs::Parenthesized { inputs, output } => {
                out.push("(");
                self.list(out, inputs, |p, out, t| p.write_ty(out, t));
                out.push(")");
                if let Some(output) = output {
                    out.push(" -> ");
                    self.write_ty(out, output);
                }
            }
            GenericArgs::ReturnTypeNotation => out.push("(..)"),
        }
    }

    fn constraint(&self, out: &mut Text, c: &AssocItemConstraint) {
        out.push(&c.name);
        if let Some(args) = &c.args {
            self.generic_args(out, args);
        }
        match &c.binding {
            AssocItemConstraintKind::Equality(term) => {
                out.push(" = ");
                self.term(out, term);
            }
            AssocItemConstraintKind::Constraint(bounds) => {
                out.push(": ");
                self.bounds(out, bounds);
            }
        }
    }

    fn term(&self, out: &mut Text, term: &Term) {
        match term {
            Term::Type(t) => self.write_ty(out, t),
            Term::Constant(c) => out.push(&c.expr),
        }
    }

    fn bounds(&self, out: &mut Text, bounds: &[GenericBound]) {
        for (i, bound) in bounds.iter().enumerate() {
            if i > 0 {
                out.push(" + ");
            }
            self.bound(out, bound);
        }
    }

    fn bound(&self, out: &mut Text, bound: &GenericBound) {
        match bound {
            GenericBound::TraitBound { trait_, generic_params, modifier } => {
                self.for_params(out, generic_params);
                out.push(match modifier {
                    TraitBoundModifier::None => "",
                    TraitBoundModifier::Maybe => "?",
                    TraitBoundModifier::MaybeConst => "[const] ",
                });
                self.path(out, trait_);
            }
            GenericBound::Outlives(lifetime) => out.push(lifetime),
            GenericBound::Use(args) => {
                out.push("use<");
                let names: Vec<&str> = args
                    .iter()
                    .map(|a| match a {
                        PreciseCapturingArg::Lifetime(s) | PreciseCapturingArg::Param(s) => &**s,
                    })
                    .collect();
                out.push(&names.join(", "));
                out.push(">");
            }
        }
    }

    /// One bound, alone: `Send`.
    pub(crate) fn bound_text(&self, bound: &GenericBound) -> Text {
        let mut out = Text::default();
        self.bound(&mut out, bound);
        out
    }

    /// `for<'a> ` of a higher-ranked bound or pointer.
    fn for_params(&self, out: &mut Text, params: &[GenericParamDef]) {
        if params.is_empty() {
            return;
        }
        out.push("for<");
        self.list(out, params, |p, out, param| p.param(out, param));
        out.push("> ");
    }

    /// A generic parameter as declared, without its bounds: `'a`, `T`, `T = ()`,
    /// `const N: usize`.
    fn param(&self, out: &mut Text, param: &GenericParamDef) {
        match &param.kind {
            GenericParamDefKind::Lifetime { .. } => out.push(&param.name),
            GenericParamDefKind::Type { default, .. } => {
                out.push(&param.name);
                if let Some(default) = default {
                    out.push(" = ");
                    self.write_ty(out, default);
                }
            }
            GenericParamDefKind::Const { type_, default } => {
                out.push("const ");
                out.push(&param.name);
                out.push(": ");
                self.write_ty(out, type_);
                if let Some(default) = default {
                    out.push(" = ");
                    out.push(default);
                }
            }
        }
    }

    /// The declared generic parameters, without the ones `impl Trait` arguments make.
    pub(crate) fn params(&self, params: &[GenericParamDef]) -> Vec<Text> {
        params
            .iter()
            .filter(|p| !matches!(p.kind, GenericParamDefKind::Type { is_synthetic: true, .. }))
            .map(|p| {
                let mut out = Text::default();
                self.param(&mut out, p);
                out
            })
            .collect()
    }

    /// Every bound of a generics list, one per text (`T: Send`, `'a: 'b`), wherever it was
    /// written: rustdoc moves some bounds between the parameter list and the where clause.
    pub(crate) fn predicates(
        &self,
        params: &[GenericParamDef],
        predicates: &[WherePredicate],
    ) -> Vec<Text> {
        let mut out = Vec::new();
        for param in params {
            match &param.kind {
                GenericParamDefKind::Lifetime { outlives } => {
                    out.extend(outlives.iter().map(|l| Text::lit(&format!("{}: {l}", param.name))));
                }
                GenericParamDefKind::Type { bounds, is_synthetic: false, .. } => {
                    for bound in bounds {
                        let mut t = Text::lit(&format!("{}: ", param.name));
                        t.append(&self.bound_text(bound));
                        out.push(t);
                    }
                }
                GenericParamDefKind::Type { is_synthetic: true, .. }
                | GenericParamDefKind::Const { .. } => {}
            }
        }
        for predicate in predicates {
            match predicate {
                WherePredicate::BoundPredicate { type_, bounds, generic_params } => {
                    let mut lhs = Text::default();
                    self.for_params(&mut lhs, generic_params);
                    self.write_ty(&mut lhs, type_);
                    lhs.push(": ");
                    for bound in bounds {
                        let mut t = lhs.clone();
                        t.append(&self.bound_text(bound));
                        out.push(t);
                    }
                }
                WherePredicate::LifetimePredicate { lifetime, outlives } => {
                    out.extend(outlives.iter().map(|l| Text::lit(&format!("{lifetime}: {l}"))));
                }
                WherePredicate::EqPredicate { lhs, rhs } => {
                    let mut t = self.ty(lhs);
                    t.push(" = ");
                    self.term(&mut t, rhs);
                    out.push(t);
                }
            }
        }
        out
    }

    /// A parameter as written in a signature: `x: u32`, `&mut self`.
    pub(crate) fn fn_param(&self, name: &str, t: &Type) -> Text {
        if name == "self" {
            match t {
                t if is_self(t) => return Text::lit("self"),
                Type::BorrowedRef { lifetime, is_mutable, type_ } if is_self(type_) => {
                    let lifetime = lifetime.as_deref().map(|l| format!("{l} ")).unwrap_or_default();
                    let mutable = if *is_mutable { "mut " } else { "" };
                    return Text::lit(&format!("&{lifetime}{mutable}self"));
                }
                _ => {}
            }
        }
        let mut out = Text::lit(&format!("{name}: "));
        self.write_ty(&mut out, t);
        out
    }
}

fn is_self(t: &Type) -> bool {
    matches!(t, Type::Generic(s) if s == "Self")
}

/// The qualifiers before `fn`: `const unsafe extern "C" `.
pub(crate) fn header(h: &FunctionHeader) -> String {
    let mut out = String::new();
    for (on, word) in [(h.is_const, "const "), (h.is_async, "async "), (h.is_unsafe, "unsafe ")] {
        if on {
            out.push_str(word);
        }
    }
    if let Some(abi) = abi(&h.abi) {
        out.push_str(&format!("extern \"{abi}\" "));
    }
    out
}

/// The ABI's name, `None` for Rust's.
pub(crate) fn abi(abi: &Abi) -> Option<String> {
    let (name, unwind) = match abi {
        Abi::Rust => return None,
        Abi::C { unwind } => ("C", unwind),
        Abi::Cdecl { unwind } => ("cdecl", unwind),
        Abi::Stdcall { unwind } => ("stdcall", unwind),
        Abi::Fastcall { unwind } => ("fastcall", unwind),
        Abi::Aapcs { unwind } => ("aapcs", unwind),
        Abi::Win64 { unwind } => ("win64", unwind),
        Abi::SysV64 { unwind } => ("sysv64", unwind),
        Abi::System { unwind } => ("system", unwind),
        Abi::Other(name) => return Some(name.clone()),
    };
    Some(if *unwind { format!("{name}-unwind") } else { name.to_owned() })
}
