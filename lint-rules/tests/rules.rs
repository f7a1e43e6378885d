//! Fixture tests, one per rule: each fixture holds positive and negative cases, and its
//! findings, rendered like rustc, are compared with `tests/golden/<path>.txt`, where `<path>` is
//! the path in a kernel tree that the fixture is linted as (which decides the kind of code). A
//! rule's own fixture sits beside it (`src/rules/<rule>/fixture.rs`); fixtures about several
//! rules or none in particular are in `tests/fixtures/`, laid out like a kernel tree. Update the
//! golden files with `UPDATE_EXPECT=1 cargo test -p lint-rules --test rules`.

use std::collections::BTreeSet;

use expect_test::expect_file;
use lint_rules::{Config, FileContext, Level, catalogue, diag};

/// The findings of the fixture `on_disk` (relative to the crate) linted as `rel`. A fixture
/// that breaks the repository's own tidy rules (a Rust file without a `//!` comment) is stored
/// as `<name>.rs.in`.
fn render(on_disk: &str, rel: &str) -> (String, Vec<String>) {
    let text = std::fs::read_to_string(on_disk).unwrap();
    let mut config = Config::default();
    // The rules that are off by default are switched on in their own fixtures.
    for (id, fixture) in
        [("vertical-imports", "vertical_imports"), ("expect-over-allow", "expect_over_allow")]
    {
        if rel.contains(fixture) {
            config.levels.insert(id.to_owned(), Level::Warning);
        }
    }
    let result = lint_rules::lint_file(&FileContext::for_path(rel), &text, &config, Vec::new());
    let out: String =
        result.findings.iter().map(|f| diag::render_human(f, Some(&text)) + "\n").collect();
    let out = format!("{out}suppressed: {}\n", result.suppressed);
    (out, result.findings.iter().map(|f| f.rule.clone()).collect())
}

fn check(on_disk: &str, rel: &str) -> Vec<String> {
    let (out, rules) = render(on_disk, rel);
    expect_file![format!("golden/{}", rel.replace(".rs", ".txt"))].assert_eq(&out);
    rules
}

macro_rules! fixtures {
    ($($name:ident: $on_disk:literal as $path:literal,)*) => {
        $(
            #[test]
            fn $name() {
                check($on_disk, $path);
            }
        )*

        /// Every rule of the catalogue has a fixture where it fires.
        #[test]
        fn every_rule_fires_in_some_fixture() {
            let fired: BTreeSet<String> =
                [$(($on_disk, $path)),*].iter().flat_map(|(d, p)| render(d, p).1).collect();
            let missing: Vec<&str> =
                catalogue::RULES.iter().map(|r| r.id).filter(|id| !fired.contains(*id)).collect();
            assert!(missing.is_empty(), "rules without a positive fixture: {missing:?}");
        }

        /// Every fixture beside a rule (`src/rules/<rule>/fixture*.rs`) is in the list above.
        #[test]
        fn every_fixture_beside_a_rule_is_linted() {
            let listed = [$($on_disk),*];
            let unlisted: Vec<String> = rule_folders()
                .iter()
                .flat_map(|dir| std::fs::read_dir(dir).unwrap())
                .map(|e| e.unwrap().path().to_string_lossy().into_owned())
                .filter(|p| p.rsplit('/').next().is_some_and(|n| n.starts_with("fixture")))
                .filter(|p| !listed.contains(&p.as_str()))
                .collect();
            assert!(unlisted.is_empty(), "fixtures that no test lints: {unlisted:?}");
        }
    };
}

/// The rules' folders, `src/rules/<rule>/` (not the shared helpers, `util.rs`).
fn rule_folders() -> Vec<String> {
    let mut dirs: Vec<String> = std::fs::read_dir("src/rules")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    dirs
}

/// Each rule of the catalogue is a folder of its own, named after its id, whose `mod.rs` holds
/// its catalogue entry; and each folder is a rule of the catalogue.
#[test]
fn every_rule_is_a_folder() {
    let folders: Vec<String> =
        rule_folders().iter().map(|d| d.trim_start_matches("src/rules/").to_owned()).collect();
    let mut ids: Vec<String> = catalogue::RULES.iter().map(|r| r.id.replace('-', "_")).collect();
    ids.sort();
    assert_eq!(folders, ids);
    for r in catalogue::RULES {
        let path = format!("src/rules/{}/mod.rs", r.id.replace('-', "_"));
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains(&format!("pub(crate) const RULE: Rule = Rule {{\n    id: \"{}\",", r.id)),
            "{path} does not hold the catalogue entry of {}",
            r.id
        );
    }
}

fixtures! {
    safety_comment:
        "src/rules/safety_comment/fixture.rs" as "rust/kernel/safety_comment.rs",
    safety_todo:
        "src/rules/safety_todo/fixture.rs" as "rust/kernel/safety_todo.rs",
    safety_section:
        "src/rules/safety_section/fixture.rs" as "rust/kernel/safety_section.rs",
    invariant_comment:
        "src/rules/invariant_comment/fixture.rs" as "rust/kernel/invariant_comment.rs",
    srctree_links:
        "src/rules/srctree_links/fixture.rs" as "rust/kernel/srctree_links.rs",
    doc_first_sentence:
        "src/rules/doc_first_sentence/fixture.rs" as "rust/kernel/doc_first_sentence.rs",
    vertical_imports:
        "src/rules/vertical_imports/fixture.rs" as "rust/kernel/vertical_imports.rs",
    no_panic:
        "src/rules/no_panic/fixture.rs" as "rust/kernel/no_panic.rs",
    panics_section:
        "src/rules/panics_section/fixture.rs" as "rust/kernel/panics_section.rs",
    infallible_alloc:
        "src/rules/infallible_alloc/fixture.rs" as "rust/kernel/infallible_alloc.rs",
    no_float:
        "src/rules/no_float/fixture.rs" as "rust/kernel/no_float.rs",
    core_ffi_types:
        "src/rules/core_ffi_types/fixture.rs" as "rust/kernel/core_ffi_types.rs",
    expect_over_allow:
        "src/rules/expect_over_allow/fixture.rs" as "rust/kernel/expect_over_allow.rs",
    suppressions:
        "tests/fixtures/rust/kernel/suppressions.rs" as "rust/kernel/suppressions.rs",
    spdx_and_module_docs: "tests/fixtures/rust/kernel/missing_spdx_and_docs.rs.in"
        as "rust/kernel/missing_spdx_and_docs.rs",
    parse_error:
        "tests/fixtures/rust/kernel/does_not_parse.rs" as "rust/kernel/does_not_parse.rs",
    leaf_bindings:
        "src/rules/leaf_bindings/fixture.rs" as "drivers/misc/leaf_bindings.rs",
    local_bindings:
        "src/rules/leaf_bindings/fixture_local_bindings.rs" as "drivers/misc/local_bindings.rs",
    host_code:
        "tests/fixtures/rust/macros/host_code.rs" as "rust/macros/host_code.rs",
}

/// `lint-rules/RULES.md` is the catalogue's generated documentation.
#[test]
fn rules_md_is_in_sync_with_the_catalogue() {
    expect_file!["../RULES.md"].assert_eq(&catalogue::markdown());
}

/// Each rule's bad example in the catalogue (and so in RULES.md) breaks it, and its good
/// example does not. Fragments are checked as items or as a function body; examples that
/// start with an SPDX line or a `//!` comment are whole files.
#[test]
fn catalogue_examples_do_what_they_say() {
    let mut config = Config::default();
    for r in catalogue::RULES {
        config.levels.insert(r.id.to_owned(), Level::Warning);
    }
    let rules_in = |id: &str, example: &str| -> Vec<String> {
        let text = if example.starts_with("// SPDX") || example.starts_with("//!") {
            example.to_owned()
        } else {
            let header = "// SPDX-License-Identifier: GPL-2.0\n\n//! Example.\n\n";
            let as_items = format!("{header}{example}");
            let parses = lint_rules::lint_file(
                &FileContext::for_path("rust/kernel/example.rs"),
                &as_items,
                &Config::default(),
                Vec::new(),
            )
            .findings
            .iter()
            .all(|f| f.rule != "parse-error");
            if parses {
                as_items
            } else {
                format!("{header}fn example() -> Result {{\n{example}}}\n")
            }
        };
        let path = if id == "leaf-bindings" {
            "drivers/misc/example.rs"
        } else {
            "rust/kernel/example.rs"
        };
        let result =
            lint_rules::lint_file(&FileContext::for_path(path), &text, &config, Vec::new());
        assert!(!result.parse_failed, "the example of {id} does not parse:\n{text}");
        result.findings.into_iter().map(|f| f.rule).collect()
    };
    for r in catalogue::RULES {
        assert!(
            rules_in(r.id, r.bad).iter().any(|f| f == r.id),
            "the bad example of {} does not break it",
            r.id
        );
        assert!(
            !rules_in(r.id, r.good).iter().any(|f| f == r.id),
            "the good example of {} breaks it",
            r.id
        );
    }
}
