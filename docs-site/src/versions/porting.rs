//! What an out-of-tree module uses of what changed: the paths its sources name (`kernel::...`
//! paths, `use` trees, and the names a `use ...::prelude::*` brings in) and the `module!` keys
//! it writes, matched against the removed, moved and changed items of [`api_diff::Diff`]s and
//! the keys' [`KeysDiff`]. Pure: takes the sources' text.
//!
//! It is name-based, not type-checked: a method is found only as `Type::method` of a type the
//! file imports or names by path (not `value.method()`), a name brought in by a glob other than
//! a prelude is not followed, a macro's expansion is not read, and a local item that shares a
//! changed item's name through the prelude is reported too. It lists where to look, not a proof.

use std::collections::{BTreeMap, BTreeSet};

use api_diff::{ChangeKind, Diff, Entry, ItemKind};

use crate::versions::module_keys::{Key, KeysDiff};

/// The crates whose paths a module may name.
pub const CRATES: &[&str] = &["kernel", "macros", "pin_init", "ffi", "bindings", "uapi"];

/// One use of a change.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Use {
    /// The file, as given.
    pub file: String,
    /// Its 1-based line.
    pub line: usize,
    /// What the source names (`kernel::sync::Arc`, `KVec` through the prelude, `module!`'s
    /// `author`).
    pub name: String,
    /// What changed: `removed kernel::init::PinInit`, with the reasons.
    pub change: String,
    /// The change's entry: crate, and the old page (for links); `None` for `module!` keys.
    pub entry: Option<(String, String)>,
}

/// A reference in a source file: a full path and where.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Reference {
    /// 1-based line.
    pub line: usize,
    /// `kernel::sync::Arc`, or a bare name brought in by a prelude glob (then `via_prelude`).
    pub path: String,
    /// The path came from a `use ...::prelude::*` glob: `path` is the bare name.
    pub via_prelude: bool,
}

/// `text` without comments and string literals (each replaced by spaces, lines kept).
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            '"' => {
                out.push(' ');
                let mut escaped = false;
                for c in chars.by_ref() {
                    if c == '\n' {
                        out.push('\n');
                    }
                    if !escaped && c == '"' {
                        break;
                    }
                    escaped = !escaped && c == '\\';
                }
            }
            c => out.push(c),
        }
    }
    out
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Expands a `use` tree (`kernel::{a, b::{c, d as e}, prelude::*}`) into full paths.
fn expand_use(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head = tree[..open].trim().trim_end_matches("::");
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let prefix = join(prefix, head);
        let mut depth = 0;
        let mut start = 0;
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_use(&inner[start..i], &prefix, out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        expand_use(&inner[start..], &prefix, out);
    } else if !tree.is_empty() {
        let path = tree.split(" as ").next().unwrap_or(tree).trim();
        let path = if path == "self" { prefix.to_owned() } else { join(prefix, path) };
        out.push(path.split_whitespace().collect());
    }
}

fn join(prefix: &str, path: &str) -> String {
    match (prefix.is_empty(), path.is_empty()) {
        (true, _) => path.to_owned(),
        (_, true) => prefix.to_owned(),
        _ => format!("{prefix}::{path}"),
    }
}

/// The references of one source file: `use` trees of [`CRATES`] expanded, `crate::a::b`
/// paths written in the code, `Name::member` for names it imports, and, for a prelude glob,
/// every identifier (matched later against what the prelude had).
pub fn references(text: &str) -> Vec<Reference> {
    let code = code_only(text);
    let mut refs = BTreeSet::new();
    let line_of = |offset: usize| code[..offset].matches('\n').count() + 1;
    // `use` declarations.
    let mut imported: BTreeMap<String, String> = BTreeMap::new();
    let mut prelude = false;
    let mut use_spans = Vec::new();
    let mut offset = 0;
    while let Some(i) = code[offset..].find("use ") {
        let start = offset + i;
        offset = start + 4;
        if start > 0 && code[..start].chars().next_back().is_some_and(is_ident_char) {
            continue;
        }
        let Some(end) = code[start..].find(';') else { break };
        let tree = &code[start + 4..start + end];
        use_spans.push(start..start + end);
        let mut paths = Vec::new();
        expand_use(tree, "", &mut paths);
        for path in paths {
            let root = path.split("::").next().unwrap_or("");
            if !CRATES.contains(&root) {
                continue;
            }
            if let Some(module) = path.strip_suffix("::*") {
                prelude |= module.ends_with("prelude");
                refs.insert(Reference {
                    line: line_of(start),
                    path: module.to_owned(),
                    via_prelude: false,
                });
                continue;
            }
            if let Some(name) = path.rsplit("::").next() {
                imported.insert(name.to_owned(), path.clone());
            }
            refs.insert(Reference { line: line_of(start), path, via_prelude: false });
        }
        offset = start + end;
    }
    // Paths and identifiers in the code.
    let bytes: Vec<(usize, char)> = code.char_indices().collect();
    let mut i = 0;
    while i < bytes.len() {
        let (start, c) = bytes[i];
        if !is_ident_char(c)
            || c.is_ascii_digit()
            || use_spans.iter().any(|span| span.contains(&start))
            || (i > 0 && (is_ident_char(bytes[i - 1].1) || bytes[i - 1].1 == ':'))
        {
            i += 1;
            continue;
        }
        // Read `a::b::c` from here.
        let mut end;
        let mut j = i;
        loop {
            while j < bytes.len() && is_ident_char(bytes[j].1) {
                j += 1;
            }
            end = bytes.get(j).map_or(code.len(), |b| b.0);
            if code[end..].starts_with("::")
                && code[end + 2..].starts_with(|c: char| is_ident_char(c))
            {
                j += 2;
                continue;
            }
            break;
        }
        let path = &code[start..end];
        i = j.max(i + 1);
        let first = path.split("::").next().unwrap_or("");
        let line = line_of(start);
        if CRATES.contains(&first) && path.contains("::") {
            refs.insert(Reference { line, path: path.to_owned(), via_prelude: false });
        } else if let Some(full) = imported.get(first) {
            if path.contains("::") {
                let rest = &path[first.len()..];
                refs.insert(Reference { line, path: format!("{full}{rest}"), via_prelude: false });
            }
        } else if prelude && !is_definition_or_member(&code, start, end) {
            // A macro's name is matched with its `!`, so that `fn init` is not the `init!` macro.
            let bang = if code[end..].trim_start().starts_with('!') { "!" } else { "" };
            refs.insert(Reference { line, path: format!("{path}{bang}"), via_prelude: true });
        }
    }
    refs.into_iter().collect()
}

/// Whether the name at `start..end` of `code` is defined there (`fn init`, `struct S`, `let x`)
/// or is a member (`.field`, `x.method()`, `field: value`): not a use of a prelude name.
fn is_definition_or_member(code: &str, start: usize, end: usize) -> bool {
    let before = code[..start].trim_end();
    let keyword = before.rsplit(|c: char| !is_ident_char(c)).next().unwrap_or("");
    let after = code[end..].trim_start();
    before.ends_with('.')
        || matches!(keyword, "fn" | "struct" | "enum" | "trait" | "type" | "mod" | "let" | "mut")
        || (after.starts_with(':') && !after.starts_with("::"))
}

/// The keys written in the file's `module!` invocation, each with its line, and the fields of
/// its parameters (`params: { name: type { default: ..., } }`) as `params.FIELD`.
pub fn module_keys_used(text: &str) -> Vec<(usize, String)> {
    let code = code_only(text);
    let Some(start) = code.find("module!") else { return Vec::new() };
    let Some(open) = code[start..].find(['{', '(']).map(|o| start + o) else { return Vec::new() };
    let mut used = Vec::new();
    let mut depth = 0usize;
    let mut in_params = false;
    let mut params_depth = 0;
    let mut word = String::new();
    let mut word_start = 0;
    for (i, c) in code[open..].char_indices() {
        let at = open + i;
        match c {
            '{' | '(' | '[' => {
                depth += 1;
                word.clear();
            }
            '}' | ')' | ']' => {
                depth -= 1;
                if in_params && depth < params_depth {
                    in_params = false;
                }
                if depth == 0 {
                    break;
                }
                word.clear();
            }
            ':' if !word.is_empty() && !code[at + 1..].starts_with(':') => {
                let line = code[..word_start].matches('\n').count() + 1;
                if depth == 1 {
                    used.push((line, word.clone()));
                    if word == "params" {
                        in_params = true;
                        params_depth = 2;
                    }
                } else if in_params && depth == params_depth + 1 {
                    used.push((line, format!("params.{word}")));
                }
                word.clear();
            }
            c if is_ident_char(c) => {
                if word.is_empty() {
                    word_start = at;
                }
                word.push(c);
            }
            c if c.is_whitespace() => {}
            _ => word.clear(),
        }
    }
    used
}

/// What the entry says, in a line: `removed struct kernel::x::Y`, `moved trait a → b (…)`.
fn describe(entry: &Entry) -> String {
    let old = entry.old.as_ref().map_or("", |p| p.path.as_str());
    let mut out = match (entry.change, &entry.new) {
        (ChangeKind::Moved, Some(new)) => {
            format!("moved {} {old} → {}", entry.kind.name(), new.path)
        }
        (change, _) => format!("{} {} {old}", change.name(), entry.kind.name()),
    };
    if !entry.reasons.is_empty() {
        let reasons: Vec<&str> = entry.reasons.iter().take(3).map(|r| r.text.as_str()).collect();
        out.push_str(&format!(" ({}", reasons.join("; ")));
        if entry.reasons.len() > 3 {
            out.push_str(&format!("; {} more", entry.reasons.len() - 3));
        }
        out.push(')');
    }
    out
}

/// Every use, in `files` (name and text), of the removed, moved and changed entries of
/// `diffs` (crate name and diff) and of the `module!` keys and parameter fields that `keys`
/// says the new kernel dropped or changed.
pub fn porting_list(
    files: &[(String, String)],
    diffs: &[(String, &Diff)],
    keys: Option<&KeysDiff>,
) -> Vec<Use> {
    // Every old path of a changed entry (its canonical path and its re-exports), and the names
    // the old prelude re-exported.
    let mut by_path: BTreeMap<&str, Vec<(&str, &Entry)>> = BTreeMap::new();
    let mut by_prelude_name: BTreeMap<&str, Vec<(&str, &Entry)>> = BTreeMap::new();
    for (krate, diff) in diffs {
        for entry in &diff.entries {
            if entry.change == ChangeKind::Added {
                continue;
            }
            let Some(old) = &entry.old else { continue };
            for path in std::iter::once(&old.path).chain(&old.reexports) {
                by_path.entry(path.as_str()).or_default().push((krate, entry));
                if let Some((module, name)) = path.rsplit_once("::")
                    && module.ends_with("prelude")
                {
                    by_prelude_name.entry(name).or_default().push((krate, entry));
                }
            }
        }
    }
    let mut uses = BTreeSet::new();
    for (file, text) in files {
        for r in references(text) {
            let found = if r.via_prelude {
                by_prelude_name.get(r.path.trim_end_matches('!').split("::").next().unwrap_or(""))
            } else {
                by_path.get(r.path.as_str())
            };
            for (krate, entry) in found.into_iter().flatten() {
                if r.via_prelude && (entry.kind == ItemKind::Macro) != r.path.ends_with('!') {
                    continue;
                }
                // A move that left the path the module writes in place needs no change.
                let written = if r.via_prelude { None } else { Some(r.path.as_str()) };
                if entry.change == ChangeKind::Moved
                    && still_reaches(entry, written, r.path.trim_end_matches('!'))
                {
                    continue;
                }
                let old = entry.old.as_ref().map(|p| p.url.clone()).unwrap_or_default();
                uses.insert(Use {
                    file: file.clone(),
                    line: r.line,
                    name: if r.via_prelude {
                        format!("{} (through the prelude)", r.path.trim_end_matches('!'))
                    } else {
                        r.path.clone()
                    },
                    change: describe(entry),
                    entry: Some(((*krate).to_owned(), old)),
                });
            }
        }
        let Some(keys) = keys else { continue };
        for (line, key) in module_keys_used(text) {
            let (list_removed, list_changed, name) = match key.strip_prefix("params.") {
                Some(field) => (&keys.param_removed, &keys.param_changed, field),
                None => (&keys.removed, &keys.changed, key.as_str()),
            };
            let what = if key.starts_with("params.") { "parameter field" } else { "key" };
            let change = if list_removed.iter().any(|k| k.name == name) {
                Some(format!("module! {what} `{name}` is not accepted any more"))
            } else {
                list_changed.iter().find(|(o, n)| o.name == name && !widens(o, n)).map(|(o, n)| {
                    format!(
                        "module! {what} `{name}` changed: {} → {}",
                        o.shape.as_deref().unwrap_or("?"),
                        n.shape.as_deref().unwrap_or("?")
                    )
                })
            };
            if let Some(change) = change {
                uses.insert(Use {
                    file: file.clone(),
                    line,
                    name: format!("module! {{ {key}: ... }}"),
                    change,
                    entry: None,
                });
            }
        }
    }
    uses.into_iter().collect()
}

/// Whether the new version's item is still reached by the path the module writes (`written`),
/// or, for a prelude name (`written` is `None`), through a prelude by `name`.
fn still_reaches(entry: &Entry, written: Option<&str>, name: &str) -> bool {
    let Some(new) = &entry.new else { return false };
    let mut paths = std::iter::once(&new.path).chain(&new.reexports);
    match written {
        Some(path) => paths.any(|p| p == path),
        None => paths
            .any(|p| p.rsplit_once("::").is_some_and(|(m, n)| m.ends_with("prelude") && n == name)),
    }
}

/// Whether every value of `old`'s shape is one of `new`'s (an identifier is a type, an ASCII
/// string a string): a module written for the old kernel needs no change for it.
fn widens(old: &Key, new: &Key) -> bool {
    old.required == new.required
        && matches!(
            (old.shape.as_deref(), new.shape.as_deref()),
            (Some("identifier"), Some("type")) | (Some("\"ASCII string\""), Some("\"string\""))
        )
}

/// The list as text, one use a line (`file:line: name: change`), or a line saying there is none.
pub fn render_text(module: &str, uses: &[Use], old: &str, new: &str) -> String {
    let mut out = format!("{module}: {} uses of API changes from {old} to {new}\n", uses.len());
    for u in uses {
        out.push_str(&format!("  {}:{}: {}: {}\n", u.file, u.line, u.name, u.change));
    }
    out
}

#[cfg(test)]
mod tests;
