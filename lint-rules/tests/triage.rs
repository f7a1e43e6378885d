//! The triage of every finding on a demo tree's kernel code against a fresh run over `rust/`,
//! `samples/rust/` and `drivers/` of that tree: the same findings, each with a verdict and a
//! reason, the per-rule table matching, and the vendored crates skipped being those the file
//! lists. The file is the tree's version's: `triage/kernel-6.12.118.md` for exactly that
//! release, `triage/kernel-7.3.x.md` for any 7.3 (`triage_file`).
//!
//! `make test` sets `KERNEL_SRC`; without it, or for a version without a triage, this test
//! fails and says so.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use kbuild::{KernelVersion, Srctree};
use lint_rules::files::{self, Source};
use lint_rules::{Config, FileContext};

/// The triage for `version` among the files in `triage/` (`names`): `kernel-<full version>.md`
/// for that release, else `kernel-<version>.<patchlevel>.x.md` for its whole series.
fn triage_file(version: &KernelVersion, names: &[String]) -> Option<String> {
    let exact = format!("kernel-{version}.md");
    let series = format!("kernel-{}.{}.x.md", version.version, version.patchlevel);
    [exact, series].into_iter().find(|n| names.contains(n))
}

fn triage_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir("triage")
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Findings as (rule, `file:line`).
type Places = BTreeSet<(String, String)>;
/// Vendored crates as (crate, version, folder), with their file counts.
type VendoredCrates = BTreeMap<(String, String, String), usize>;

/// The findings of a fresh run, and the vendored crates it skipped.
fn fresh_run(srctree: &Path) -> (Places, VendoredCrates) {
    let paths: Vec<PathBuf> =
        ["rust", "samples/rust", "drivers"].iter().map(|p| srctree.join(p)).collect();
    let (inputs, errors) = files::collect(&paths, srctree);
    assert!(errors.is_empty(), "{errors:?}");
    let mut found = BTreeSet::new();
    let mut vendored = BTreeMap::new();
    for input in inputs {
        if let Some(v) = &input.vendored {
            let version = v.version.clone().unwrap_or_default();
            *vendored.entry((v.name.clone(), version, v.dir.clone())).or_default() += 1;
            continue;
        }
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
    (found, vendored)
}

fn code(cell: &str) -> String {
    cell.trim().trim_matches('`').to_owned()
}

/// A triage file: its findings (rule, place) with verdict and reason, its per-rule table, and
/// its vendored crates.
#[derive(Default)]
struct Triage {
    rows: BTreeMap<(String, String), (String, String)>,
    table: BTreeMap<String, [usize; 3]>,
    total: Option<[usize; 3]>,
    vendored: VendoredCrates,
}

impl Triage {
    /// Per rule, from the rows: findings, true positives, false positives.
    fn counted(&self) -> BTreeMap<String, [usize; 3]> {
        let mut counted: BTreeMap<String, [usize; 3]> = BTreeMap::new();
        for ((rule, _), (verdict, _)) in &self.rows {
            let c = counted.entry(rule.clone()).or_default();
            c[0] += 1;
            c[if verdict == "true" { 1 } else { 2 }] += 1;
        }
        counted
    }

    /// The table and its total row match the rows.
    fn check_table(&self, name: &str) {
        let counted = self.counted();
        assert_eq!(
            self.table, counted,
            "the per-rule table of triage/{name} does not match its rows"
        );
        let sum = counted.values().fold([0; 3], |a, c| [a[0] + c[0], a[1] + c[1], a[2] + c[2]]);
        assert_eq!(self.total, Some(sum), "the total row of triage/{name}");
    }
}

fn parse(name: &str, text: &str) -> Triage {
    let mut t = Triage::default();
    let mut section = "";
    for line in text.lines() {
        if line.starts_with("<!-- per-rule table") {
            section = "table";
        } else if line.starts_with("<!-- vendored crates") {
            section = "vendored";
        } else if line.starts_with("<!-- end of") {
            section = "";
        }
        let cells: Vec<&str> = line.split('|').collect();
        let n = |i: usize| {
            cells[i].trim().parse::<usize>().unwrap_or_else(|e| panic!("{name}: {e}: {line}"))
        };
        match section {
            "table" if cells.len() == 6 && cells[1].contains('`') => {
                t.table.insert(code(cells[1]), [n(2), n(3), n(4)]);
            }
            "table" if cells.len() == 6 && cells[1].trim() == "total" => {
                t.total = Some([n(2), n(3), n(4)]);
            }
            "vendored"
                if cells.len() == 6 && !cells[1].contains("crate") && !line.contains("---") =>
            {
                let key = (code(cells[1]), code(cells[2]), code(cells[3]));
                t.vendored.insert(key, n(4));
            }
            "" if cells.len() == 6 && cells[2].contains(".rs:") => {
                let verdict = cells[3].trim().to_owned();
                assert!(
                    verdict == "true" || verdict == "false",
                    "{name}: verdict must be true or false: {line}"
                );
                assert!(cells[4].trim().len() > 10, "{name}: each finding needs a reason: {line}");
                let key = (code(cells[1]), code(cells[2]));
                let reason = cells[4].trim().to_owned();
                assert!(t.rows.insert(key, (verdict, reason)).is_none(), "{name}: twice: {line}");
            }
            _ => {}
        }
    }
    t
}

#[test]
fn every_finding_on_kernel_code_is_triaged() {
    let srctree = kbuild::testing::env_path("KERNEL_SRC");
    let tree = Srctree::open(&srctree).unwrap_or_else(|e| panic!("{e}: run `make kernel`"));
    let names = triage_names();
    let Some(name) = triage_file(&tree.version, &names) else {
        panic!(
            "{} is Linux {}, which has no triage in lint-rules/triage/ (there are: {names:?}): \
             triage its findings into triage/kernel-{}.{}.x.md",
            srctree.display(),
            tree.version,
            tree.version.version,
            tree.version.patchlevel
        )
    };
    let triage = parse(&name, &std::fs::read_to_string(Path::new("triage").join(&name)).unwrap());

    let (found, vendored) = fresh_run(&srctree);
    let triaged: BTreeSet<(String, String)> = triage.rows.keys().cloned().collect();
    let new: Vec<_> = found.difference(&triaged).collect();
    let gone: Vec<_> = triaged.difference(&found).collect();
    assert!(
        new.is_empty() && gone.is_empty(),
        "triage/{name} is out of date for Linux {}.\nnew findings (triage them): {new:#?}\ntriaged but no longer found: {gone:#?}",
        tree.version
    );
    assert_eq!(
        triage.vendored, vendored,
        "the vendored crates of triage/{name} are not those skipped in the tree"
    );

    triage.check_table(&name);
}

/// Each triage file is well-formed and its table matches its rows, whichever tree the tests run
/// against; and a tree's version finds its own file, not another version's.
#[test]
fn triage_files_parse_and_are_chosen_by_version() {
    let names = triage_names();
    let version = |text: &str| KernelVersion::from_makefile(text).unwrap();
    let v6_12 = version("VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 118\n");
    let v7_3 = version("VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 4\n");
    let v6_12_other = version("VERSION = 6\nPATCHLEVEL = 12\nSUBLEVEL = 119\n");
    let v7_4 = version("VERSION = 7\nPATCHLEVEL = 4\nSUBLEVEL = 0\nEXTRAVERSION = -rc1\n");
    assert_eq!(triage_file(&v6_12, &names).as_deref(), Some("kernel-6.12.118.md"));
    assert_eq!(triage_file(&v7_3, &names).as_deref(), Some("kernel-7.3.x.md"));
    // 6.12's triage is of one release (Debian's 6.12.118); another has other findings.
    assert_eq!(triage_file(&v6_12_other, &names), None);
    assert_eq!(triage_file(&v7_4, &names), None);

    for name in names.iter().filter(|n| n.ends_with(".md")) {
        let t = parse(name, &std::fs::read_to_string(Path::new("triage").join(name)).unwrap());
        assert!(!t.rows.is_empty() && !t.table.is_empty(), "{name}: no findings or no table");
        t.check_table(name);
    }
}
