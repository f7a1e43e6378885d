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
            found.insert((f.rule().to_owned(), format!("{}:{}", f.file, f.span.line)));
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

/// The counts a README states next to the triage files' names, as (file, what, number):
/// "97 findings", "97 true positives", "526 places", in each table cell or paragraph that names
/// a file, each count taken as that of the file named last before it (else first after it).
fn stated_counts(readme: &str, files: &[&str]) -> Vec<(String, String, usize)> {
    let mut chunks = Vec::new();
    for paragraph in readme.split("\n\n") {
        if paragraph.trim_start().starts_with('|') {
            chunks.extend(paragraph.lines().flat_map(|l| l.split('|')).map(str::to_owned));
        } else {
            chunks.push(paragraph.to_owned());
        }
    }
    let mut counts = Vec::new();
    for chunk in &chunks {
        let mentions: Vec<(usize, &str)> =
            files.iter().flat_map(|f| chunk.match_indices(f).map(|(at, _)| (at, *f))).collect();
        if mentions.is_empty() {
            continue;
        }
        let words: Vec<(usize, String)> = chunk
            .split_whitespace()
            .map(|w| {
                let at = w.as_ptr() as usize - chunk.as_ptr() as usize;
                (at, w.trim_matches(|c: char| !c.is_alphanumeric()).to_owned())
            })
            .collect();
        for (i, (at, word)) in words.iter().enumerate() {
            let Ok(n) = word.replace(',', "").parse::<usize>() else { continue };
            let next = |k: usize| words.get(i + k).map(|(_, w)| w.as_str());
            let what = match (next(1), next(2)) {
                (Some("findings"), _) => "findings",
                (Some("places"), _) => "places",
                (Some("true"), Some("positives")) => "true positives",
                _ => continue,
            };
            // The file named last before the count, else the first after it.
            let before = mentions.iter().filter(|(m, _)| m < at).max_by_key(|(m, _)| *m);
            let after = mentions.iter().filter(|(m, _)| m > at).min_by_key(|(m, _)| *m);
            let file = before.or(after).map(|(_, f)| *f);
            counts.push((file.unwrap_or_default().to_owned(), what.to_owned(), n));
        }
    }
    counts
}

/// The READMEs say what the triage files hold: a figure that drifts from its triage (as "96
/// findings" once did, against 97) fails here. "N findings at M places": M is the triage's
/// count (a place is a rule on a line), N at least that.
#[test]
fn the_readmes_state_the_triage_counts() {
    let names: Vec<String> = triage_names().into_iter().filter(|n| n.ends_with(".md")).collect();
    let files: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for (label, path) in [("README.md", "../README.md"), ("lint-rules/README.md", "README.md")] {
        let counts = stated_counts(&std::fs::read_to_string(path).unwrap(), &files);
        for (name, what, n) in &counts {
            let triage =
                parse(name, &std::fs::read_to_string(Path::new("triage").join(name)).unwrap());
            let [total, true_positives, _] = triage.total.expect("a total row");
            let places = counts.iter().any(|(f, w, _)| f == name && w == "places");
            let right = match what.as_str() {
                "places" => *n == total,
                "true positives" => *n == true_positives,
                _ if places => *n >= total,
                _ => *n == total,
            };
            checked += 1;
            if !right {
                wrong.push(format!(
                    "{label} says {n} {what} for triage/{name}, which has {total} ({true_positives} true positives)"
                ));
            }
        }
    }
    assert!(checked >= 4, "too few figures found next to the triage files' names: {checked}");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn counts_are_read_from_cells_and_paragraphs() {
    let readme = "| lint-rules | ok: 97 findings (`triage/a.md`) | 529 findings at 526 places (`triage/b.md`) |\n\n\
                  its 96 findings there are\nall triaged in `triage/a.md`, 1,024 true positives.\n\n\
                  - [a.md] (9 findings) or\n  [b.md] (8 places)\n\n\
                  12 findings elsewhere.\n";
    let f = |file: &str, what: &str, n| (file.to_owned(), what.to_owned(), n);
    assert_eq!(
        stated_counts(readme, &["a.md", "b.md"]),
        [
            f("a.md", "findings", 97),
            f("b.md", "findings", 529),
            f("b.md", "places", 526),
            f("a.md", "findings", 96),
            f("a.md", "true positives", 1024),
            f("a.md", "findings", 9),
            f("b.md", "places", 8),
        ]
    );
}
