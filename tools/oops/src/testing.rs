//! For the suite's tests: the corpus of logs the suite was not written around
//! (`tests/foreign/`, see its README), which the parser's, kallsyms-check's and the
//! symbolizer's tests read.

use std::path::PathBuf;

/// The folder of the corpus.
pub fn foreign_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/foreign")
}

/// Every `.log` of the corpus, sorted.
///
/// # Panics
///
/// When the folder cannot be read.
pub fn foreign_logs() -> Vec<PathBuf> {
    let dir = foreign_dir();
    let mut logs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "log"))
        .collect();
    logs.sort();
    logs
}
