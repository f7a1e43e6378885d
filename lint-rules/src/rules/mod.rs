//! The rules, and [`RULES`], the list of them.
//!
//! Each rule is a folder here, `<rule>/mod.rs`: its catalogue entry (`RULE`, a `static`
//! [`Rule`]: id, summary, rationale, examples, default level, clippy counterparts, and the
//! `Check` that says which of its functions the walk calls), those functions, which report
//! with `cx.push(&RULE, ...)`, and its fixture (`fixture.rs`, which `tests/rules.rs` lints
//! against `tests/golden/`) where it has one of its own; the module's documentation says where
//! its test data is. `util` holds what several rules share: tokens and trivia, the comments
//! before a statement, test and compile-time contexts, panicking calls, public functions,
//! documentation.
//!
//! Adding a rule is adding its folder and its two lines here, its `mod` line and its line in
//! [`RULES`] (a test below fails when a folder is not listed, or listed twice); its fixture is
//! found by `tests/rules.rs`, and `UPDATE_EXPECT=1 cargo test -p lint-rules --test rules`
//! writes its golden file and `RULES.md`.
//!
//! The rules import the types of `rule` (and `util`), never this list, the catalogue or the
//! walk, which sit above them.

use crate::rule::Rule;

pub(crate) mod util;

pub(crate) mod bad_suppression;
pub(crate) mod core_ffi_types;
pub(crate) mod doc_first_sentence;
pub(crate) mod expect_over_allow;
pub(crate) mod infallible_alloc;
pub(crate) mod invariant_comment;
pub(crate) mod leaf_bindings;
pub(crate) mod module_docs;
pub(crate) mod no_float;
pub(crate) mod no_panic;
pub(crate) mod panics_section;
pub(crate) mod safety_comment;
pub(crate) mod safety_section;
pub(crate) mod safety_todo;
pub(crate) mod spdx;
pub(crate) mod srctree_links;
pub(crate) mod unused_suppression;
pub(crate) mod vertical_imports;

/// Every rule, in the order of the generated documentation (`RULES.md`, `lint-rules rules`).
pub static RULES: &[&Rule] = &[
    &spdx::RULE,
    &module_docs::RULE,
    &safety_comment::RULE,
    &safety_todo::RULE,
    &safety_section::RULE,
    &invariant_comment::RULE,
    &srctree_links::RULE,
    &doc_first_sentence::RULE,
    &vertical_imports::RULE,
    &no_panic::RULE,
    &panics_section::RULE,
    &infallible_alloc::RULE,
    &no_float::RULE,
    &leaf_bindings::RULE,
    &expect_over_allow::RULE,
    &core_ffi_types::RULE,
    &bad_suppression::RULE,
    &unused_suppression::RULE,
];

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::RULES;

    /// The rules' folders, `src/rules/<rule>/` (not the shared helpers, `util.rs`), by name.
    fn folders() -> Vec<String> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/rules");
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// Every folder under `src/rules/` is a rule whose `RULE` is in [`RULES`] exactly once, and
    /// every rule of [`RULES`] is a folder of its own, named after its id (`no-panic` in
    /// `no_panic/`), whose `mod.rs` declares it.
    #[test]
    fn every_rule_folder_is_listed_once() {
        let mut listed: BTreeMap<String, usize> = BTreeMap::new();
        for rule in RULES {
            *listed.entry(rule.id.replace('-', "_")).or_default() += 1;
        }
        let folders = folders();
        let unlisted: Vec<&String> = folders.iter().filter(|f| !listed.contains_key(*f)).collect();
        assert!(unlisted.is_empty(), "rule folders not in RULES (src/rules/mod.rs): {unlisted:?}");
        let twice: Vec<&String> = listed.iter().filter(|(_, n)| **n > 1).map(|(f, _)| f).collect();
        assert!(twice.is_empty(), "rules listed more than once in RULES: {twice:?}");
        let homeless: Vec<&String> = listed.keys().filter(|id| !folders.contains(id)).collect();
        assert!(homeless.is_empty(), "rules of RULES without a folder of their own: {homeless:?}");
        for rule in RULES {
            let path = format!(
                "{}/src/rules/{}/mod.rs",
                env!("CARGO_MANIFEST_DIR"),
                rule.id.replace('-', "_")
            );
            let text = std::fs::read_to_string(&path).unwrap();
            let entry = format!("pub(crate) static RULE: Rule = Rule {{\n    id: \"{}\",", rule.id);
            assert!(text.contains(&entry), "{path} does not declare the rule {}", rule.id);
        }
    }
}
