//! The README's figures read from tables and cells as data.

use super::{FigureError, figure, readme_kernel, version_cell};

const README: &str = "\
Some prose | with a bar.

| tool | what |
| --- | --- |
| docs-site | 99 crates |

| | 6.12.118 (default) | 7.3.4 |
| --- | --- | --- |
| docs-site | ok: 16 crates, 114 doctests pass | ok: 22 crates (with `syn`), 351 doctests pass |
| layout-check | 0 mismatches of 748 types | 0 mismatches of 974 types (with 0005) |
| rust-project-gen: errors, ours / upstream's | 0 / 361 | 0 / 2,592, and 1 more |
";

fn check(row: &str, kernel: &str, template: &str, expect: Result<u64, FigureError>) {
    let got = version_cell(README, row, kernel).and_then(|cell| figure(cell, template));
    assert_eq!(got, expect, "{row} / {kernel} / {template}");
}

#[test]
fn figures_by_kernel() {
    check("docs-site", "6.12", "{} crates", Ok(16));
    check("docs-site", "7.3", "{} crates", Ok(22));
    check("docs-site", "7.3", "{} doctests pass", Ok(351));
    check("layout-check", "7.3", "0 mismatches of {} types", Ok(974));
    check("rust-project-gen: errors, ours / upstream's", "6.12", "0 / {}", Ok(361));
    check("rust-project-gen: errors, ours / upstream's", "7.3", "0 / {}", Ok(2592));
}

#[test]
fn a_missing_row_column_or_figure_is_named() {
    let no_cell = |row: &str, kernel: &str| FigureError::NoCell {
        row: row.to_owned(),
        kernel: kernel.to_owned(),
    };
    check("lint-rules", "6.12", "{} findings", Err(no_cell("lint-rules", "6.12")));
    // A kernel is named by whole parts of its version: 6.1 is not 6.12.
    check("docs-site", "6.1", "{} crates", Err(no_cell("docs-site", "6.1")));
    check("docs-site", "7.4", "{} crates", Err(no_cell("docs-site", "7.4")));
    check(
        "docs-site",
        "6.12",
        "{} doctests failed",
        Err(FigureError::NoFigure {
            template: "{} doctests failed".to_owned(),
            text: "ok: 16 crates, 114 doctests pass".to_owned(),
        }),
    );
    assert_eq!(figure("1 and 2", "{} and {}"), Err(FigureError::BadTemplate("{} and {}".into())));
    assert_eq!(figure("1", "no number"), Err(FigureError::BadTemplate("no number".into())));
}

#[test]
fn a_template_matches_where_a_number_follows_its_words() {
    // The first "of " has no number after it; the figure is the one that fits the template.
    assert_eq!(figure("most of them: 3 of 748 types", "of {} types"), Ok(748));
    assert_eq!(figure("12,702 layout tests, 13,140 more", "{} layout tests"), Ok(12702));
    // A trailing comma is punctuation, not a digit group.
    assert_eq!(figure("16 crates, 0 broken", "{} crates"), Ok(16));
    assert_eq!(figure("0 / 361, and", "0 / {}"), Ok(361));
    // The leftmost number that fits, whole.
    assert_eq!(figure("ok: 116 crates", "{} crates"), Ok(116));
}

/// `make test` always says whether the tree is the README's: a demo kernel, or nothing for any
/// other tree; a test run without being told fails rather than compare nothing.
#[test]
fn a_readme_kernel_not_set_at_all_is_an_error() {
    assert_eq!(readme_kernel(Some("7.3")), Ok(Some("7.3")));
    assert_eq!(readme_kernel(Some("")), Ok(None));
    assert_eq!(readme_kernel(None), Err(FigureError::NoReadmeKernel));
}
