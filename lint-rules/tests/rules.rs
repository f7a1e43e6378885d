//! Fixture tests, one per rule: each fixture holds positive and negative cases, and its
//! findings, rendered like rustc, are compared with `tests/golden/<path>.txt`, where `<path>` is
//! the path in a kernel tree that the fixture is linted as (which decides the kind of code). A
//! rule's own fixtures sit beside it (`src/rules/<rule>/fixture.rs`, and `fixture_<case>.rs`
//! for more) and are found there; fixtures about several rules or none in particular are in
//! `tests/fixtures/`, laid out like a kernel tree, and listed here. Update the golden files
//! with `UPDATE_EXPECT=1 cargo test -p lint-rules --test rules`.

use std::collections::BTreeSet;

use expect_test::expect_file;
use lint_rules::{Config, FileContext, Level, catalogue, diag};

/// The rules about leaf modules, whose fixtures are linted as drivers (`drivers/misc/`); the
/// others' are linted as core kernel code (`rust/kernel/`).
const LEAF_RULES: &[&str] = &["leaf_bindings"];

/// The fixtures in `tests/fixtures/` (relative to the crate), each with the path it is linted
/// as. A fixture that breaks the repository's own tidy rules (a Rust file without a `//!`
/// comment) is stored as `<name>.rs.in`.
const SHARED_FIXTURES: &[(&str, &str)] = &[
    // `bad-suppression` and `unused-suppression`, suppressing `no-panic`.
    ("tests/fixtures/rust/kernel/suppressions.rs", "rust/kernel/suppressions.rs"),
    // `spdx` and `module-docs`.
    (
        "tests/fixtures/rust/kernel/missing_spdx_and_docs.rs.in",
        "rust/kernel/missing_spdx_and_docs.rs",
    ),
    // A file that does not parse: the parser's findings, no rule's.
    ("tests/fixtures/rust/kernel/does_not_parse.rs", "rust/kernel/does_not_parse.rs"),
    // Host code, where only the documentation and comment rules apply.
    ("tests/fixtures/rust/macros/host_code.rs", "rust/macros/host_code.rs"),
];

/// The rules' own fixtures, `src/rules/<rule>/fixture*.rs` (relative to the crate), each with
/// the path it is linted as: `fixture.rs` as `<rule>.rs`, `fixture_<case>.rs` as `<case>.rs`.
fn rule_fixtures() -> Vec<(String, String)> {
    let mut fixtures = Vec::new();
    for rule in rule_folders() {
        let dir = if LEAF_RULES.contains(&rule.as_str()) { "drivers/misc" } else { "rust/kernel" };
        for entry in std::fs::read_dir(format!("src/rules/{rule}")).unwrap() {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            let Some(case) = name.strip_prefix("fixture").and_then(|n| n.strip_suffix(".rs"))
            else {
                continue;
            };
            let linted_as = match case.strip_prefix('_') {
                Some(case) => format!("{dir}/{case}.rs"),
                None => format!("{dir}/{rule}.rs"),
            };
            fixtures.push((format!("src/rules/{rule}/{name}"), linted_as));
        }
    }
    fixtures.sort();
    fixtures
}

/// The rules' folders under `src/rules/`, by name: one a rule of `RULES`, named after its id
/// (the library's own test checks that each folder is one).
fn rule_folders() -> Vec<String> {
    let mut names: Vec<String> =
        lint_rules::catalogue::RULES.iter().map(|rule| rule.id.replace('-', "_")).collect();
    names.sort();
    names
}

/// The findings of the fixture `on_disk` (relative to the crate) linted as `rel`, rendered, and
/// the rules they are of. The rules that are off by default are switched on in their own
/// fixtures.
fn render(on_disk: &str, rel: &str) -> (String, Vec<String>) {
    let text = std::fs::read_to_string(on_disk).unwrap();
    let mut config = Config::default();
    for rule in catalogue::RULES.iter().filter(|r| r.default_level == Level::Allow) {
        if on_disk.starts_with(&format!("src/rules/{}/", rule.id.replace('-', "_"))) {
            config.levels.insert(rule.id.to_owned(), Level::Warning);
        }
    }
    let result = lint_rules::lint_file(&FileContext::for_path(rel), &text, &config, Vec::new());
    let out: String =
        result.findings.iter().map(|f| diag::render_human(f, Some(&text)) + "\n").collect();
    let out = format!("{out}suppressed: {}\n", result.suppressed);
    (out, result.findings.iter().map(|f| f.rule().to_owned()).collect())
}

fn check(on_disk: &str, rel: &str) {
    let (out, _) = render(on_disk, rel);
    expect_file![format!("golden/{}", rel.replace(".rs", ".txt"))].assert_eq(&out);
}

/// Every rule's own fixtures against their golden files.
#[test]
fn rule_fixtures_match_their_goldens() {
    let fixtures = rule_fixtures();
    assert!(!fixtures.is_empty(), "no fixture found under src/rules/");
    for (on_disk, rel) in &fixtures {
        check(on_disk, rel);
    }
}

/// The fixtures about several rules against their golden files.
#[test]
fn shared_fixtures_match_their_goldens() {
    for (on_disk, rel) in SHARED_FIXTURES {
        check(on_disk, rel);
    }
}

/// Every rule of the catalogue has a fixture where it fires.
#[test]
fn every_rule_fires_in_some_fixture() {
    let shared = SHARED_FIXTURES.iter().map(|(d, p)| (d.to_string(), p.to_string()));
    let fired: BTreeSet<String> =
        rule_fixtures().into_iter().chain(shared).flat_map(|(d, p)| render(&d, &p).1).collect();
    let missing: Vec<&str> =
        catalogue::RULES.iter().map(|r| r.id).filter(|id| !fired.contains(*id)).collect();
    assert!(missing.is_empty(), "rules without a positive fixture: {missing:?}");
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
            let parses = !lint_rules::lint_file(
                &FileContext::for_path("rust/kernel/example.rs"),
                &as_items,
                &Config::default(),
                Vec::new(),
            )
            .parse_failed;
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
        result.findings.iter().map(|f| f.rule().to_owned()).collect()
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
