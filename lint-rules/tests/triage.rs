//! The triage of every finding on the demo tree's kernel code (`triage/kernel-6.12.118.md`)
//! against a fresh run over `rust/`, `samples/rust/` and `drivers/` of the demo kernel: the
//! same findings, each with a verdict and a reason, and the per-rule table matching.
//!
//! `make test` sets `KERNEL_SRC`; without it this test fails and says so.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use lint_rules::files::{self, Source};
use lint_rules::{Config, FileContext};

const TRIAGE: &str = "triage/kernel-6.12.118.md";

fn fresh_run(srctree: &std::path::Path) -> BTreeSet<(String, String)> {
    let paths: Vec<PathBuf> =
        ["rust", "samples/rust", "drivers"].iter().map(|p| srctree.join(p)).collect();
    let (inputs, errors) = files::collect(&paths, srctree);
    assert!(errors.is_empty(), "{errors:?}");
    let mut found = BTreeSet::new();
    for input in inputs.into_iter().filter(|i| i.vendored.is_none()) {
        let Source::Text(text) = files::classify(&input.name, std::fs::read(&input.path).unwrap())
        else {
            continue;
        };
        let cx = FileContext::for_path(&input.name);
        let result = lint_rules::lint_file(&cx, &text, &Config::default(), Vec::new());
        assert!(!result.parse_failed, "{} does not parse", input.name);
        for f in result.findings {
            found.insert((f.rule, format!("{}:{}", f.file, f.span.line)));
        }
    }
    found
}

fn code(cell: &str) -> String {
    cell.trim().trim_matches('`').to_owned()
}

#[test]
fn every_finding_on_kernel_code_is_triaged() {
    let srctree = kbuild::testing::env_path("KERNEL_SRC");
    assert!(
        srctree.join("rust/kernel").is_dir(),
        "{} has no rust/kernel: run `make kernel`",
        srctree.display()
    );
    let triage = std::fs::read_to_string(TRIAGE).unwrap();

    let mut rows: BTreeMap<(String, String), (String, String)> = BTreeMap::new();
    let mut table: BTreeMap<String, [usize; 3]> = BTreeMap::new();
    let mut in_table = false;
    for line in triage.lines() {
        if line.starts_with("<!-- per-rule table") {
            in_table = true;
        } else if line.starts_with("<!-- end of table") {
            in_table = false;
        }
        let cells: Vec<&str> = line.split('|').collect();
        if in_table && cells.len() == 6 && cells[1].contains('`') {
            let n = |i: usize| cells[i].trim().parse::<usize>().unwrap();
            table.insert(code(cells[1]), [n(2), n(3), n(4)]);
        } else if !in_table && cells.len() == 6 && cells[2].contains(".rs:") {
            let verdict = cells[3].trim().to_owned();
            assert!(
                verdict == "true" || verdict == "false",
                "verdict must be true or false: {line}"
            );
            assert!(cells[4].trim().len() > 10, "each finding needs a reason: {line}");
            rows.insert((code(cells[1]), code(cells[2])), (verdict, cells[4].trim().to_owned()));
        }
    }

    let found = fresh_run(&srctree);
    let triaged: BTreeSet<(String, String)> = rows.keys().cloned().collect();
    let new: Vec<_> = found.difference(&triaged).collect();
    let gone: Vec<_> = triaged.difference(&found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "{TRIAGE} is out of date.\nnew findings (triage them): {new:#?}\ntriaged but no longer found: {gone:#?}"
    );

    let mut counted: BTreeMap<String, [usize; 3]> = BTreeMap::new();
    for ((rule, _), (verdict, _)) in &rows {
        let c = counted.entry(rule.clone()).or_default();
        c[0] += 1;
        c[if verdict == "true" { 1 } else { 2 }] += 1;
    }
    assert_eq!(table, counted, "the per-rule table of {TRIAGE} does not match its rows");
}
