//! The keys that `module!` accepts, read from a kernel's `rust/macros/module.rs`, and how they
//! differ between two kernels. Pure: takes the file's text.
//!
//! Two parsers are known. Up to 6.12 (our 6.12 tree with the series' 0008 and 0009), a
//! hand-written token walk: `const EXPECTED_KEYS: &[&str] = &["type", ...]`,
//! `const REQUIRED_KEYS`, and a `match` whose arms say how each value is read
//! (`"author" => info.author = Some(expect_string(it))`); a parameter's fields are read with
//! `expect_field(.., "default")` and a `match` on the next one. Since 6.19 or so (7.3), `syn`:
//! `parse_ordered_fields! { from input; type as type_ [required] => input.parse()?, ... }`
//! in `impl Parse for ModuleInfo` (and in `impl Parse for Parameter` for a parameter's
//! fields), the value's type read from the struct's field (`Option<Punctuated<AsciiLitStr,
//! Token![,]>>` inside `bracketed!`: a list of ASCII strings), and the keys must come in that
//! order.

use std::fmt::Write as _;

/// One key of `module!` (or of a parameter's braces).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    /// `authors`.
    pub name: String,
    /// Whether `module!` fails without it.
    pub required: bool,
    /// What its value looks like, where the source says: `["ASCII string", ...]`.
    pub shape: Option<String>,
}

/// What a `module.rs` accepts.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleKeys {
    /// The keys of `module!`, in the order the source lists them.
    pub keys: Vec<Key>,
    /// The fields of a parameter in `params: { name: type { ... } }`.
    pub param_fields: Vec<Key>,
    /// Whether the keys must come in the listed order.
    pub ordered: bool,
}

/// Reads the keys from the text of `rust/macros/module.rs`; `None` when neither known parser
/// is there.
pub fn extract(source: &str) -> Option<ModuleKeys> {
    if source.contains("parse_ordered_fields!") {
        extract_ordered(source)
    } else {
        extract_token_walk(source)
    }
}

/// What a reading function of the token walk (`expect_string_array`) reads.
fn walk_shape(expr: &str) -> Option<String> {
    let shapes = [
        ("parse_all", "{ name: type { ... }, ... }"),
        // 6.12's `expect_string_array` (module.rs:7) asserts that each string is ASCII.
        ("expect_string_array", "[\"ASCII string\", ...]"),
        ("expect_string_ascii", "\"ASCII string\""),
        ("expect_string", "\"string\""),
        ("expect_ident", "identifier"),
        ("expect_group", "{ ... }"),
        ("expect_literal", "literal"),
    ];
    shapes.iter().find(|(f, _)| expr.contains(f)).map(|(_, s)| (*s).to_owned())
}

/// The string literals of the array `const NAME: &[&str] = &[...]`.
fn const_array(source: &str, name: &str) -> Option<Vec<String>> {
    let start = source.find(&format!("const {name}"))?;
    let rest = &source[start..];
    let open = rest.find("= &[")? + 4;
    let close = open + rest[open..].find(']')?;
    Some(rest[open..close].split(',').filter_map(|s| unquote(s.trim())).collect())
}

fn unquote(s: &str) -> Option<String> {
    Some(s.strip_prefix('"')?.strip_suffix('"')?.to_owned())
}

/// `"key" => rest-of-the-arm` of every match arm on a string key in `text`.
fn string_arms(text: &str) -> Vec<(String, String)> {
    let mut arms = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        let Some((pattern, expr)) = line.split_once("=>") else { continue };
        if let Some(key) = unquote(pattern.trim()) {
            arms.push((key, expr.trim().to_owned()));
        }
    }
    arms
}

/// The text of the function `name` (from its `fn` to the next top-level `fn` or the end).
fn function<'a>(source: &'a str, name: &str) -> Option<&'a str> {
    let start = source.find(&format!("fn {name}("))?;
    let rest = &source[start..];
    let end = rest[1..].find("\n    fn ").map_or(rest.len(), |e| e + 1);
    Some(&rest[..end])
}

fn extract_token_walk(source: &str) -> Option<ModuleKeys> {
    let expected = const_array(source, "EXPECTED_KEYS")?;
    let required = const_array(source, "REQUIRED_KEYS").unwrap_or_default();
    let arms = string_arms(source);
    let keys = expected
        .iter()
        .map(|name| Key {
            name: name.clone(),
            required: required.contains(name),
            shape: arms.iter().filter(|(k, _)| k == name).find_map(|(_, e)| walk_shape(e)),
        })
        .collect();
    let mut param_fields: Vec<Key> = Vec::new();
    if let Some(parse_all) = function(source, "parse_all") {
        // `expect_field(&mut fit, &name, "default")`: required; a `match` arm: one of several.
        let mut rest = parse_all;
        let mut found: Vec<(String, bool)> = Vec::new();
        loop {
            let field = rest.find("expect_field(").map(|i| (i, true));
            let arm = rest.find("\" =>").map(|i| (i, false));
            let Some((i, required)) = [field, arm].into_iter().flatten().min() else { break };
            let name = if required {
                let args = &rest[i..];
                let end = args.find(')').unwrap_or(args.len());
                args[..end].rsplit(',').next().and_then(|s| unquote(s.trim()))
            } else {
                let before = &rest[..i];
                before.rfind('"').map(|q| before[q + 1..].to_owned())
            };
            if let Some(name) = name.filter(|n| !n.is_empty() && !n.contains(' ')) {
                match found.iter_mut().find(|(n, _)| *n == name) {
                    Some(entry) => entry.1 |= required,
                    None => found.push((name, required)),
                }
            }
            rest = &rest[i + 4..];
        }
        param_fields =
            found.into_iter().map(|(name, required)| Key { name, required, shape: None }).collect();
    }
    Some(ModuleKeys { keys, param_fields, ordered: false })
}

/// The entries of each `parse_ordered_fields! { from INPUT; ... }` invocation, with the struct
/// of the `impl Parse for STRUCT` it is in.
fn ordered_invocations(source: &str) -> Vec<(String, &str)> {
    let mut found = Vec::new();
    let mut offset = 0;
    while let Some(i) = source[offset..].find("parse_ordered_fields!") {
        let start = offset + i;
        offset = start + 1;
        let after = &source[start + "parse_ordered_fields!".len()..];
        let Some(open) = after.find(['(', '{']) else { continue };
        if !after[open + 1..].trim_start().starts_with("from ") {
            continue; // The macro's own definition or a doc example.
        }
        let body = &after[open + 1..];
        let Some(close) = matching_close(body) else { continue };
        let body = &body[..close];
        let body = body.split_once(';').map_or(body, |(_, entries)| entries);
        let before = &source[..start];
        let krate = before
            .rfind("impl Parse for ")
            .map(|p| {
                before[p + 15..]
                    .split(|c: char| !c.is_alphanumeric() && c != '_')
                    .next()
                    .unwrap_or("")
                    .to_owned()
            })
            .unwrap_or_default();
        found.push((krate, body));
    }
    found
}

/// The offset of the bracket that closes the group whose inside starts `text`.
fn matching_close(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        match c {
            '(' | '{' | '[' => depth += 1,
            ')' | '}' | ']' if depth == 0 => return Some(i),
            ')' | '}' | ']' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// `text` split at its top-level commas.
fn top_level_split(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '{' | '[' | '<' => depth += 1,
            ')' | '}' | ']' | '>' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts.into_iter().map(str::trim).filter(|p| !p.is_empty()).collect()
}

/// The type of each field of `struct NAME { field: Type, ... }`.
fn struct_fields(source: &str, name: &str) -> Vec<(String, String)> {
    let Some(start) = source.find(&format!("struct {name} {{")) else { return Vec::new() };
    let body = &source[start..];
    let open = body.find('{').expect("found above") + 1;
    let Some(close) = matching_close(&body[open..]) else { return Vec::new() };
    top_level_split(&body[open..open + close])
        .into_iter()
        .filter_map(|field| {
            let (name, ty) = field.split_once(':')?;
            let name = name.trim().trim_start_matches("pub(crate) ").trim_start_matches("pub ");
            Some((name.to_owned(), ty.split_whitespace().collect::<Vec<_>>().join(" ")))
        })
        .collect()
}

/// What a value of syn type `ty` looks like.
fn syn_shape(ty: &str) -> String {
    let ty = ty.strip_prefix("Option<").and_then(|t| t.strip_suffix('>')).unwrap_or(ty);
    if let Some(inner) = ty.strip_prefix("Punctuated<") {
        let element = inner.split(',').next().unwrap_or("").trim();
        return format!("{}, ...", syn_shape(element));
    }
    match ty {
        "AsciiLitStr" => "\"ASCII string\"",
        "LitStr" => "\"string\"",
        "Type" => "type",
        "Ident" => "identifier",
        "Expr" => "expression",
        "Parameter" => "name: type { ... }",
        other => other,
    }
    .to_owned()
}

fn extract_ordered(source: &str) -> Option<ModuleKeys> {
    let mut keys = ModuleKeys { ordered: true, ..ModuleKeys::default() };
    let mut any = false;
    for (krate, body) in ordered_invocations(source) {
        let fields = struct_fields(source, &krate);
        let mut entries = Vec::new();
        for entry in top_level_split(body) {
            let Some((head, expr)) = entry.split_once("=>") else { continue };
            let required = head.contains("[required]");
            let head = head.replace("[required]", "");
            let mut words = head.split_whitespace();
            let Some(key) = words.next() else { continue };
            let field = match (words.next(), words.next()) {
                (Some("as"), Some(name)) => name,
                _ => key,
            };
            let ty = fields.iter().find(|(n, _)| n == field).map(|(_, t)| t.as_str());
            let inner = ty.map(syn_shape);
            let shape = if expr.contains("bracketed!") {
                inner.map(|i| format!("[{i}]"))
            } else if expr.contains("braced!") {
                inner.map(|i| format!("{{ {i} }}"))
            } else {
                inner
            };
            entries.push(Key { name: key.to_owned(), required, shape });
        }
        any = true;
        match krate.as_str() {
            "Parameter" => keys.param_fields = entries,
            _ => keys.keys = entries,
        }
    }
    any.then_some(keys)
}

/// What changed in `module!`'s keys between two kernels.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KeysDiff {
    /// Keys only the new kernel accepts.
    pub added: Vec<Key>,
    /// Keys only the old kernel accepts.
    pub removed: Vec<Key>,
    /// Keys both accept whose shape or requiredness differ: (old, new).
    pub changed: Vec<(Key, Key)>,
    /// Parameter fields only the new kernel accepts.
    pub param_added: Vec<Key>,
    /// Parameter fields only the old kernel accepts.
    pub param_removed: Vec<Key>,
    /// Parameter fields that became required or optional: (old, new).
    pub param_changed: Vec<(Key, Key)>,
    /// (old, new): whether the keys must be in order.
    pub ordered: (bool, bool),
}

fn diff_keys(old: &[Key], new: &[Key]) -> (Vec<Key>, Vec<Key>, Vec<(Key, Key)>) {
    let added = new.iter().filter(|k| !old.iter().any(|o| o.name == k.name)).cloned().collect();
    let removed = old.iter().filter(|k| !new.iter().any(|n| n.name == k.name)).cloned().collect();
    let changed = old
        .iter()
        .filter_map(|o| {
            let n = new.iter().find(|n| n.name == o.name)?;
            let shape_differs = o.shape.is_some() && n.shape.is_some() && o.shape != n.shape;
            (shape_differs || o.required != n.required).then(|| (o.clone(), n.clone()))
        })
        .collect();
    (added, removed, changed)
}

/// Compares the keys of two kernels.
pub fn diff(old: &ModuleKeys, new: &ModuleKeys) -> KeysDiff {
    let (added, removed, changed) = diff_keys(&old.keys, &new.keys);
    let (param_added, param_removed, param_changed) =
        diff_keys(&old.param_fields, &new.param_fields);
    KeysDiff {
        added,
        removed,
        changed,
        param_added,
        param_removed,
        param_changed,
        ordered: (old.ordered, new.ordered),
    }
}

impl KeysDiff {
    /// Whether anything differs.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
            && self.param_added.is_empty()
            && self.param_removed.is_empty()
            && self.param_changed.is_empty()
            && self.ordered.0 == self.ordered.1
    }
}

fn describe(key: &Key) -> String {
    let mut out = format!("`{}`", key.name);
    if let Some(shape) = &key.shape {
        write!(out, ": `{shape}`").unwrap();
    }
    if key.required {
        out.push_str(" (required)");
    }
    out
}

/// The keys of each kernel and their difference, one line each, for the text report and the
/// changes page (code between backticks).
pub fn lines(old: &ModuleKeys, new: &ModuleKeys, old_label: &str, new_label: &str) -> Vec<String> {
    let d = diff(old, new);
    let mut out = Vec::new();
    for k in &d.added {
        out.push(format!("key added in {new_label}: {}", describe(k)));
    }
    for k in &d.removed {
        out.push(format!("key removed in {new_label}: {}", describe(k)));
    }
    for (o, n) in &d.changed {
        out.push(format!("key changed: {} → {}", describe(o), describe(n)));
    }
    for k in &d.param_added {
        out.push(format!("parameter field added in {new_label}: {}", describe(k)));
    }
    for k in &d.param_removed {
        out.push(format!("parameter field removed in {new_label}: {}", describe(k)));
    }
    for (o, n) in &d.param_changed {
        out.push(format!("parameter field changed: {} → {}", describe(o), describe(n)));
    }
    match d.ordered {
        (false, true) => {
            out.push(format!("{new_label} requires the keys in the order it lists them"))
        }
        (true, false) => out.push(format!("{new_label} accepts the keys in any order")),
        _ => {}
    }
    let list = |keys: &ModuleKeys| {
        keys.keys.iter().map(|k| format!("`{}`", k.name)).collect::<Vec<_>>().join(", ")
    };
    out.push(format!("{old_label} accepts: {}", list(old)));
    out.push(format!("{new_label} accepts: {}", list(new)));
    out
}

#[cfg(test)]
mod tests;
