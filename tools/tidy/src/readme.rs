//! The figures the top-level `README.md` states, read so that the test that measures one can
//! say when the README no longer agrees.
//!
//! A figure is found by a template: the README's words around it, with `{}` where the number
//! stands (`"{} doctests pass"`). Per-kernel figures live in the cells of the README's table of
//! demo kernels, whose header names each kernel (`| | 6.12.118 (default) | 7.3.4 |`): a row is
//! found by its first cell, the column by the kernel's name (`6.12`).
//!
//! [`version_cell`] and [`figure`] take text and do no I/O; [`check_stated`] reads the
//! repository's README for a test.

use std::path::{Path, PathBuf};

/// Why a figure could not be read from the README.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FigureError {
    /// No table of the README has a header cell naming the kernel and a row of that name.
    #[error("no table row `{row}` with a column for kernel {kernel}")]
    NoCell {
        /// The row's first cell.
        row: String,
        /// The demo kernel's name, as `6.12`.
        kernel: String,
    },
    /// The text has no number where the template puts one.
    #[error("`{template}` is not in `{text}`")]
    NoFigure {
        /// The words around the figure, `{}` where it stands.
        template: String,
        /// The text searched.
        text: String,
    },
    /// A template must have exactly one `{{}}`.
    #[error("the template `{0}` has no single `{{}}`")]
    BadTemplate(String),
    /// The test was not told whether its tree is the one the README describes.
    #[error(
        "README_KERNEL is not set: run the tests that measure a demo kernel's figures with `make test` (or `make test-kernel KERNEL=...`), which says whether the tree is the one README.md describes"
    )]
    NoReadmeKernel,
}

/// The cells of a Markdown table row (`| a | b |` is `["a", "b"]`), or `None` for a line that is
/// not one.
fn cells(line: &str) -> Option<Vec<&str>> {
    let inner = line.trim().strip_prefix('|')?.strip_suffix('|')?;
    Some(inner.split('|').map(str::trim).collect())
}

/// Whether a header cell names the demo kernel `kernel`: `6.12.118 (default)` names `6.12`,
/// not `6.1`.
fn names_kernel(cell: &str, kernel: &str) -> bool {
    cell.strip_prefix(kernel).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', ' ']))
}

/// The cell in the row whose first cell is `row`, in the column of kernel `kernel`, of the first
/// table of `readme` that has both.
pub fn version_cell<'a>(readme: &'a str, row: &str, kernel: &str) -> Result<&'a str, FigureError> {
    let mut column = None;
    let mut in_table = false;
    for line in readme.lines() {
        let Some(cells) = cells(line) else {
            in_table = false;
            continue;
        };
        if !in_table {
            // A table's first line is its header.
            in_table = true;
            column = cells.iter().position(|c| names_kernel(c, kernel));
            continue;
        }
        if let (Some(column), Some(&first)) = (column, cells.first())
            && first == row
            && let Some(&cell) = cells.get(column)
        {
            return Ok(cell);
        }
    }
    Err(FigureError::NoCell { row: row.to_owned(), kernel: kernel.to_owned() })
}

/// The number in `text` where `template` has `{}`, at its first place where the words around it
/// match; digits may be grouped with commas (`12,702`).
pub fn figure(text: &str, template: &str) -> Result<u64, FigureError> {
    let (before, after) = template
        .split_once("{}")
        .filter(|(_, after)| !after.contains("{}"))
        .ok_or_else(|| FigureError::BadTemplate(template.to_owned()))?;
    for (at, _) in text.match_indices(before) {
        let rest = &text[at + before.len()..];
        let len = rest.find(|c: char| !c.is_ascii_digit() && c != ',').unwrap_or(rest.len());
        let digits = rest[..len].trim_end_matches(',');
        if !digits.is_empty()
            && !digits.starts_with(',')
            && rest[digits.len()..].starts_with(after)
            && let Ok(number) = digits.replace(',', "").parse()
        {
            return Ok(number);
        }
    }
    Err(FigureError::NoFigure { template: template.to_owned(), text: text.to_owned() })
}

/// The repository's `README.md`.
fn readme_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md")
}

/// The demo kernel whose figures the README states, when the tree the tests run against is
/// exactly that one, from `README_KERNEL` (`None` when it is not set at all): `make test` sets
/// it to the demo kernel for its own demo trees built with GCC and the demo configuration, and
/// to nothing for `KERNEL_SRC=`, `LLVM=` or `CONFIG_FRAGMENT=`. Not set, the test was not run by
/// `make test`, and would compare nothing without a word: that is an error.
pub fn readme_kernel(var: Option<&str>) -> Result<Option<&str>, FigureError> {
    match var {
        Some(kernel) => Ok(Some(kernel).filter(|k| !k.is_empty())),
        None => Err(FigureError::NoReadmeKernel),
    }
}

/// For a test that measured `measured` on a demo tree: panics, saying what to fix, unless the
/// README's table of demo kernels states it in row `row` for this kernel, where `template` has
/// `{}`. On any other tree (`README_KERNEL` empty) it says it did not compare; without
/// `README_KERNEL` at all it panics.
#[track_caller]
pub fn check_stated(row: &str, template: &str, measured: u64) {
    let var = std::env::var("README_KERNEL").ok();
    let kernel = match readme_kernel(var.as_deref()) {
        Ok(Some(kernel)) => kernel.to_owned(),
        Ok(None) => {
            eprintln!(
                "not a demo tree as the README describes it: `{row}` ({template}) not compared"
            );
            return;
        }
        Err(e) => panic!("{e}"),
    };
    let path = readme_path();
    let readme =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match version_cell(&readme, row, &kernel).and_then(|cell| figure(cell, template)) {
        Ok(stated) if stated == measured => {}
        Ok(stated) => panic!(
            "README.md states {stated} for kernel {kernel} in row `{row}` (`{template}`), but \
             this test measured {measured}: update the README, or find what changed"
        ),
        Err(e) => panic!("README.md: {e}: state the figure this test measures, {measured}, there"),
    }
}

#[cfg(test)]
mod tests;
