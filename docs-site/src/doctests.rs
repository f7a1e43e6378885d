//! Tested examples: the `kernel` crate's doctests, built by kbuild as the KUnit suite
//! `rust_doctests_kernel` (`CONFIG_RUST_KERNEL_DOCTESTS`), run in the booted demo kernel; their
//! KTAP results read from the console, and each one placed on the documented item it belongs to.
//!
//! A doctest's KUnit name (`rust_doctest_kernel_alloc_kvec_rs_3`, from
//! `scripts/rustdoc_test_gen.rs`) drops the line, but each test prints
//! `# <name>.location: rust/kernel/alloc/kvec.rs:123` (the line of its code block). The item is
//! the one whose source span (rustdoc's `Source` link, `src/kernel/alloc/kvec.rs.html#130-140`)
//! starts first after that line, since doc comments precede their item; a block in `//!` docs
//! belongs to the module of its file.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::html::escape;

/// How a doctest ended: KUnit's outcome of its case.
pub use kunit::Outcome;

/// One doctest's KUnit result.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Doctest {
    /// The KUnit test name.
    pub name: String,
    /// The documented file, relative to the srctree (`rust/kernel/alloc/kvec.rs`).
    pub file: String,
    /// The line of the example's code block.
    pub line: u32,
    /// How it ended.
    pub outcome: Outcome,
    /// The KTAP lines of this test (diagnostics and its result line).
    pub ktap: Vec<String>,
}

/// The suite's results as read from a console log.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Results {
    /// Every test that reported a result, in order.
    pub tests: Vec<Doctest>,
    /// The suite's own summary line (`# rust_doctests_kernel: pass:59 fail:0 skip:0 total:59`).
    pub summary: Option<String>,
    /// The suite's KTAP plan, `1..N`: how many tests it was to run.
    #[serde(default)]
    pub planned: Option<usize>,
}

impl Results {
    /// `59 passed, 0 failed, 0 skipped`; the failed tests named, those that crashed the
    /// kernel told apart; and why the run is not complete, when it is not (see
    /// [`Results::incomplete`]).
    pub fn summary_line(&self) -> String {
        let count = |o| self.tests.iter().filter(|t| t.outcome == o).count();
        let named = |o| {
            self.tests
                .iter()
                .filter(|t| t.outcome == o)
                .map(|t| t.name.as_str())
                .collect::<Vec<_>>()
        };
        let mut failed = Vec::new();
        for (outcome, word) in [(Outcome::Crash, "crashed"), (Outcome::Fail, "failed")] {
            let names = named(outcome);
            if !names.is_empty() {
                failed.push(format!("{word}: {}", names.join(", ")));
            }
        }
        let failed =
            if failed.is_empty() { String::new() } else { format!(" ({})", failed.join("; ")) };
        let mut line = format!(
            "{} passed, {} failed{failed}, {} skipped",
            count(Outcome::Pass),
            count(Outcome::Fail) + count(Outcome::Crash),
            count(Outcome::Skip)
        );
        if let Some(why) = self.incomplete() {
            line.push_str(&format!("; INCOMPLETE: {why}"));
        }
        line
    }

    /// Why these results are not the whole suite's, if they are not: fewer results than the
    /// KTAP plan `1..N` announced (the boot ended early), no summary line, or a summary whose
    /// totals differ from the results read.
    pub fn incomplete(&self) -> Option<String> {
        let outcomes: Vec<Outcome> = self.tests.iter().map(|t| t.outcome).collect();
        kunit::incomplete(self.planned, self.summary.as_deref(), &outcomes)
    }
}

/// Changes whenever [`parse_ktap`] reads a console differently, so that saved results are
/// read again.
pub const RESULTS_VERSION: &str = "2";

/// The name prefix of the kernel crate's doctests.
const PREFIX: &str = "rust_doctest_kernel_";

/// Reads the `rust_doctests_kernel` suite's KTAP output from a console log (with or without
/// printk timestamps). Each doctest's location comes from its `# NAME.location: FILE:LINE`
/// diagnostic.
pub fn parse_ktap(console: &str) -> Results {
    let suite = kunit::parse_suite(console, "rust_doctests_kernel");
    let tests = suite
        .cases
        .into_iter()
        .filter(|c| c.name.starts_with(PREFIX))
        .map(|c| {
            let marker = format!("# {}.location: ", c.name);
            let (file, line) = c
                .ktap
                .iter()
                .find_map(|l| l.strip_prefix(&marker)?.rsplit_once(':'))
                .and_then(|(file, line)| Some((file.to_owned(), line.trim().parse().ok()?)))
                .unwrap_or_default();
            Doctest { name: c.name, file, line, outcome: c.outcome, ktap: c.ktap }
        })
        .collect();
    Results { tests, summary: suite.summary, planned: suite.planned }
}

/// An item's source span as a page of the site links it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SrcLink {
    /// The page (`kernel/alloc/kvec/type.KVec.html`).
    pub page: String,
    /// Byte offset just after the link's `</a>` in the page.
    pub offset: usize,
    /// The file, relative to rustdoc's `src/<crate>/` (`alloc/kvec.rs`).
    pub file: String,
    /// The span's first line.
    pub first: u32,
    /// Its last line (the first, for a one-line span).
    pub last: u32,
}

/// The `Source` links (`<a class="src ..." href="…/src/kernel/FILE.html#A-B">`) of a page of
/// crate `krate`.
pub fn src_links(page: &str, html: &str, krate: &str) -> Vec<SrcLink> {
    let mut links = Vec::new();
    let needle = "<a class=\"src";
    let marker = format!("src/{krate}/");
    let mut from = 0;
    while let Some(i) = html[from..].find(needle) {
        let start = from + i;
        let Some(end) = html[start..].find("</a>").map(|e| start + e + 4) else { break };
        from = end;
        let tag = &html[start..end];
        let Some(href) = tag.split("href=\"").nth(1).and_then(|h| h.split('"').next()) else {
            continue;
        };
        let Some((path, fragment)) = href.split_once('#') else { continue };
        let Some(file) = path.split_once(&marker).map(|(_, f)| f.trim_end_matches(".html")) else {
            continue;
        };
        let mut lines = fragment.split('-').map(|n| n.parse::<u32>().ok());
        let first = lines.next().flatten();
        if let Some(first) = first {
            let last = lines.next().flatten().unwrap_or(first);
            links.push(SrcLink {
                page: page.to_owned(),
                offset: end,
                file: file.to_owned(),
                first,
                last,
            });
        }
    }
    links
}

/// Which `Source` link each doctest belongs to: the first span that starts after the example's
/// line in the same file, or else the smallest span around it (an item a macro generates has
/// the macro call's span, and rustdoc puts the example somewhere inside it: 7.3's
/// `impl_genmask_fn!` in `bits.rs`), or the file's module (the span that starts first) for a
/// `//!` example
/// (`is_inner_doc` tells). Doctests of `rust/kernel/` only; `krate_dir` is `rust/kernel/`.
pub fn place<'a>(
    tests: &'a [Doctest],
    links: &'a [SrcLink],
    krate_dir: &str,
    is_inner_doc: &dyn Fn(&Doctest) -> bool,
) -> BTreeMap<(String, usize), Vec<&'a Doctest>> {
    let mut placed: BTreeMap<(String, usize), Vec<&Doctest>> = BTreeMap::new();
    for test in tests {
        let Some(file) = test.file.strip_prefix(krate_dir) else { continue };
        let same_file = links.iter().filter(|l| l.file == file);
        let first = if is_inner_doc(test) {
            // The module's own span: it starts first in its file (after the SPDX line).
            same_file.clone().map(|l| l.first).min()
        } else {
            same_file.clone().map(|l| l.first).filter(|f| *f > test.line).min()
        };
        let around = || {
            same_file
                .clone()
                .filter(|l| l.first <= test.line && test.line <= l.last)
                .min_by_key(|l| (l.last - l.first, l.first))
                .map(|l| (l.first, l.last))
        };
        let (first, last) = match first {
            Some(first) => (first, None),
            None => match around() {
                Some((first, last)) => (first, Some(last)),
                None => continue,
            },
        };
        for link in same_file.filter(|l| l.first == first && last.is_none_or(|last| l.last == last))
        {
            placed.entry((link.page.clone(), link.offset)).or_default().push(test);
        }
    }
    placed
}

/// The badge shown next to an item's `Source` link, `depth` folders below the site's root.
pub fn badge(tests: &[&Doctest], depth: usize) -> String {
    let failed =
        tests.iter().filter(|t| matches!(t.outcome, Outcome::Fail | Outcome::Crash)).count();
    let passed = tests.iter().filter(|t| t.outcome == Outcome::Pass).count();
    let (class, text) = if failed > 0 {
        ("fail", format!("✗ {failed} of {} examples failed in the kernel", tests.len()))
    } else if passed == tests.len() {
        let n = if passed == 1 { "example".to_owned() } else { format!("{passed} examples") };
        ("pass", format!("✓ {n} passed in the kernel"))
    } else {
        (
            "skip",
            format!("{} of {} examples skipped in the kernel", tests.len() - passed, tests.len()),
        )
    };
    let color = match class {
        "fail" => "#c00",
        "pass" => "#080",
        _ => "#888",
    };
    format!(
        " <a class=\"doctest-result {class}\" style=\"color:{color};font-size:0.8em;font-weight:normal;margin:0 0.5em\" \
         href=\"{}doctests.html#{}\" title=\"KUnit: {}\">{text}</a>",
        "../".repeat(depth),
        escape(&tests[0].name),
        escape(&tests.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", "))
    )
}

/// Inserts badges into a page's text at the given offsets (ascending or not).
pub fn insert_badges(html: &str, badges: &[(usize, String)]) -> String {
    let mut sorted: Vec<&(usize, String)> = badges.iter().collect();
    sorted.sort_by_key(|(offset, _)| *offset);
    let mut out = String::with_capacity(html.len() + badges.len() * 200);
    let mut at = 0;
    for (offset, badge) in sorted {
        out.push_str(&html[at..*offset]);
        out.push_str(badge);
        at = *offset;
    }
    out.push_str(&html[at..]);
    out
}

/// The results page: every doctest, where it is documented, and its KTAP lines.
/// `item_pages` maps a test name to the page its badge is on; `source_href` gives a link to
/// the example's line, if the site has one.
pub fn results_page(
    results: &Results,
    item_pages: &BTreeMap<String, String>,
    source_href: &dyn Fn(&Doctest) -> Option<String>,
) -> String {
    let mut rows = String::new();
    for t in &results.tests {
        let (class, word) = match t.outcome {
            Outcome::Pass => ("pass", "passed"),
            Outcome::Fail => ("fail", "failed"),
            Outcome::Crash => ("fail", "crashed the kernel (failed)"),
            Outcome::Skip => ("skip", "skipped"),
        };
        let location = format!("{}:{}", t.file, t.line);
        let location = match source_href(t) {
            Some(href) => format!("<a href=\"{}\">{}</a>", escape(&href), escape(&location)),
            None => escape(&location),
        };
        let item = match item_pages.get(&t.name) {
            Some(page) => format!("<a href=\"{0}\">{0}</a>", escape(page)),
            None => "(no item found)".to_owned(),
        };
        let _ = writeln!(
            rows,
            "<tr id=\"{name}\"><td><code>{name}</code></td><td class=\"{class}\">{word}</td><td>{location}</td><td>{item}</td>\
             <td><details><summary>KTAP</summary><pre>{ktap}</pre></details></td></tr>",
            name = escape(&t.name),
            ktap = escape(&t.ktap.join("\n"))
        );
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Doctest results</title>\
         <link rel=\"icon\" href=\"static.files/logo.svg\"><style>{css}</style></head><body>\
         <p><a href=\"index.html\">Rust in Linux</a> / doctests</p>\
         <h1>The kernel crate's examples, run as KUnit tests in the booted kernel</h1>\
         <p>{summary}. Suite: <code>{suite}</code>.</p>{failures}\
         <table><thead><tr><th>KUnit test</th><th>Result</th><th>Example at</th><th>Documented item</th><th>Output</th></tr></thead>\
         <tbody>{rows}</tbody></table></body></html>\n",
        css = crate::html::CSS,
        summary = escape(&results.summary_line()),
        suite = escape(results.summary.as_deref().unwrap_or("no summary line")),
        failures = failures(results),
    )
}

/// The failed tests (and why the run is incomplete) above the table, so that none is missed.
fn failures(results: &Results) -> String {
    let mut items = String::new();
    if let Some(why) = results.incomplete() {
        let _ = write!(items, "<li class=\"fail\">The run is incomplete: {}</li>", escape(&why));
    }
    for t in &results.tests {
        let what = match t.outcome {
            Outcome::Crash => "crashed the kernel (an oops in the test; its KTAP below has it)",
            Outcome::Fail => "failed",
            Outcome::Pass | Outcome::Skip => continue,
        };
        let _ = write!(
            items,
            "<li class=\"fail\"><a href=\"#{0}\"><code>{0}</code></a> ({1}:{2}) {what}</li>",
            escape(&t.name),
            escape(&t.file),
            t.line
        );
    }
    if items.is_empty() { items } else { format!("<ul class=\"failures\">{items}</ul>") }
}

/// Why the doctests could not be run.
#[derive(Debug, thiserror::Error)]
pub enum DoctestError {
    /// The kernel was built without the doctests.
    #[error(
        "{} has no CONFIG_RUST_KERNEL_DOCTESTS=y (and CONFIG_KUNIT=y): add them to the config (demo-kernel/demo.config has them) and rebuild",
        .0.display()
    )]
    NotConfigured(PathBuf),
    /// The boot failed.
    #[error("booting the kernel for its doctests: {0}")]
    Boot(String),
    /// The boot went wrong.
    #[error("the doctest boot did not complete ({0}); console log: {1}")]
    BadBoot(String, PathBuf),
    /// The console had no results.
    #[error("the console log {} has no rust_doctests_kernel results (is kunit.enable=1 honoured?)", .0.display())]
    NoResults(PathBuf),
    /// A file could not be read or written.
    #[error("{}: {error}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
}

/// Boots the `built` kernel's image with `kunit.enable=1` (the demo config leaves KUnit off by
/// default, so other boots skip the suites) and reads the doctest results; the console log is
/// `dir/console.log`.
pub fn boot_and_collect(
    built: &kbuild::Built,
    config: &kbuild::Config,
    objtree: &Path,
    dir: &Path,
    on_line: &mut dyn FnMut(&str),
) -> Result<Results, DoctestError> {
    if config.get("CONFIG_RUST_KERNEL_DOCTESTS") != Some("y") {
        return Err(DoctestError::NotConfigured(objtree.join(".config")));
    }
    std::fs::create_dir_all(dir)
        .map_err(|e| DoctestError::Io { path: dir.to_owned(), error: e })?;
    let guest = qemu::Guest {
        busybox: qemu::guest_busybox(&built.arch),
        modules: Vec::new(),
        steps: vec!["true".to_owned()],
    };
    let boot = qemu::boot_guest(
        &built.arch,
        &built.image,
        &guest,
        dir,
        |c| {
            c.append = "kunit.enable=1".to_owned();
            c.timeout = std::time::Duration::from_secs(600);
        },
        on_line,
    )
    .map_err(|e| DoctestError::Boot(e.to_string()))?;
    let log = dir.join("console.log");
    let console = std::fs::read_to_string(&log)
        .map_err(|e| DoctestError::Io { path: log.clone(), error: e })?;
    let results = parse_ktap(&console);
    if results.tests.is_empty() {
        if boot.outcome() != qemu::Outcome::Completed {
            return Err(DoctestError::BadBoot(boot.describe(), log));
        }
        return Err(DoctestError::NoResults(log));
    }
    // Results of a boot that ended early are kept (they say which test it got to) and flagged
    // incomplete (`Results::incomplete`), whatever the boot's outcome.
    Ok(results)
}

#[cfg(test)]
mod tests;
