//! The tools' results as KernelCI's KCIDB data (schema 5): the checkout (the kernel version and
//! the patches applied), the build (architecture, compilers, configuration) and one test per
//! result, each at a stable dotted path (`rust.kallsyms.rust_oops_long`,
//! `rust.layout.task_struct`, `rust.doctest.kernel.rust_doctest_kernel_alloc_kbox_rs_0`) with
//! its status and figures. Pure: [`render`] takes values and gives the JSON that `kci-dev`
//! submits and `kcidb-io` validates.

use serde_json::{Value, json};

use crate::results::{ScenarioVerdict, ToolResult};

/// The origin of every object: the CI system that submits them (`[a-z0-9_]+`).
pub const ORIGIN: &str = "rust_kernel_tools";

/// KCIDB's schema version this writes.
pub const VERSION: (u32, u32) = (5, 3);

/// What was checked out: a kernel version and the patches applied to it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checkout {
    /// The tree (`linux-6.12`, or a user's tree's folder name).
    pub tree_name: String,
    /// The kernel's version (`6.12.118`).
    pub version: String,
    /// The patches applied, in order: name and SHA-256 of its contents.
    pub patches: Vec<(String, String)>,
}

/// How it was built.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Build {
    /// KCIDB's architecture name (`x86_64`, `arm64`).
    pub architecture: String,
    /// The C compiler and rustc (`CONFIG_CC_VERSION_TEXT`, `CONFIG_RUSTC_VERSION_TEXT`).
    pub compiler: String,
    /// The configuration's name (`tinyconfig + demo-kernel/6.12/demo.config`).
    pub config_name: String,
    /// A hash of the `.config`, which tells builds of one checkout apart.
    pub config_sha256: String,
    /// How long the build took, when it was built now.
    pub duration: Option<f64>,
    /// Whether the tree was built.
    pub ok: bool,
    /// The command that builds it again, when a build tool recorded one (TuxMake's reproducer).
    pub command: Option<String>,
    /// What the build tool recorded besides (`{"tuxmake": "1.45.0", "toolchain": "rustgcc"}`).
    pub misc: Option<Value>,
}

/// The checkout's patchset hash as KCIDB defines it: the SHA-256 of the patches' SHA-256s, each
/// followed by a newline (`sha256sum *.patch | cut -c-64 | sha256sum`).
pub fn patchset_hash(patches: &[(String, String)]) -> String {
    let text: String = patches.iter().map(|(_, sha)| format!("{sha}\n")).collect();
    freshness::sha256(text.as_bytes())
}

/// A test path element: KCIDB allows letters, digits, `_` and `-`.
fn element(name: &str) -> String {
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect()
}

/// One test: its path, status (`PASS`, `FAIL`, `ERROR`, `SKIP`, `DONE`) and figures.
struct Test {
    path: String,
    status: &'static str,
    misc: Value,
}

fn test(path: impl Into<String>, status: &'static str, misc: Value) -> Test {
    Test { path: path.into(), status, misc }
}

fn pass_if(ok: bool) -> &'static str {
    if ok { "PASS" } else { "FAIL" }
}

/// The tests of one tool's result.
fn tests_of(result: &ToolResult) -> Vec<Test> {
    match result {
        ToolResult::RustProjectGen(p) => vec![test(
            "rust.project_gen",
            pass_if(p.ok()),
            json!({ "crates": p.crates, "cmd_files": p.cmd_files, "problems": p.problems }),
        )],
        ToolResult::RustAnalyzer(a) => vec![test(
            "rust.analyzer.errors",
            pass_if(a.ok()),
            json!({
                "rust_analyzer": a.rust_analyzer,
                "errors": a.errors.len(),
                "known_bug_errors": a.known_bugs.len(),
            }),
        )],
        // The kernel's findings are triaged (lint-rules/triage/), not a verdict.
        ToolResult::LintRules(l) => vec![test(
            "rust.lint",
            if l.ok() { "DONE" } else { "ERROR" },
            json!({
                "files": l.files,
                "errors": l.count("error"),
                "warnings": l.count("warning"),
                "suppressed": l.suppressed,
            }),
        )],
        ToolResult::DocsSite(d) => docs_tests(d),
        ToolResult::LayoutCheck(l) => {
            let mut tests = vec![test(
                "rust.layout",
                pass_if(l.ok()),
                json!({ "compared": l.compared, "matching": l.matching, "mismatches": l.mismatches.len() }),
            )];
            tests.extend(l.mismatches.iter().map(|m| {
                test(
                    format!("rust.layout.{}", element(&m.name)),
                    "FAIL",
                    json!({ "cause": m.cause, "caused_by": m.caused_by, "c": m.c, "rust": m.rust }),
                )
            }));
            tests
        }
        ToolResult::KallsymsCheck(k) => {
            let mut tests: Vec<Test> = k
                .scenarios
                .iter()
                .map(|s| {
                    let status = match s.verdict {
                        ScenarioVerdict::Ok => "PASS",
                        ScenarioVerdict::Failed => "FAIL",
                        ScenarioVerdict::NotRun => "SKIP",
                    };
                    test(
                        format!("rust.kallsyms.{}", element(&s.name)),
                        status,
                        json!({ "frames": s.frames.len(), "reports": s.reports, "why": s.why }),
                    )
                })
                .collect();
            if !k.images.is_empty() {
                tests.push(test(
                    "rust.kallsyms.symbol_lengths",
                    pass_if(k.left_out() == 0),
                    json!({
                        "images": k.images.len(),
                        "rust_symbols": k.images.iter().map(|i| i.rust_symbols).sum::<usize>(),
                        "over_reader_len": k.images.iter().map(|i| i.over_reader_len).sum::<usize>(),
                        "at_ksym_name_len": k.images.iter().map(|i| i.at_ksym_name_len.len()).sum::<usize>(),
                        "left_out": k.left_out(),
                    }),
                ));
            }
            tests
        }
        ToolResult::DecodeStacktrace(d) => vec![test(
            "rust.decode_stacktrace",
            pass_if(d.ok()),
            json!({ "frames": d.frames.len(), "located": d.located() }),
        )],
    }
}

fn docs_tests(d: &crate::results::Docs) -> Vec<Test> {
    let mut tests = vec![test(
        "rust.docs.build",
        pass_if(!d.crates.is_empty() && d.failed().is_empty()),
        json!({ "crates": d.crates.len(), "failed": d.failed().len(), "size": d.size }),
    )];
    if let Some(l) = &d.links {
        tests.push(test(
            "rust.docs.links",
            pass_if(l.broken.is_empty()),
            json!({ "pages": l.pages, "checked": l.checked, "broken": l.broken.len() }),
        ));
    }
    if let Some(doctests) = &d.doctests {
        tests.push(test(
            "rust.doctest.kernel",
            pass_if(doctests.ok()),
            json!({
                "passed": doctests.passed,
                "failed": doctests.failed.len(),
                "crashed": doctests.crashed.len(),
                "skipped": doctests.skipped,
                "incomplete": doctests.incomplete,
            }),
        ));
        tests.extend(doctests.cases.iter().map(|c| {
            let status = match c.outcome.as_str() {
                "pass" => "PASS",
                "skip" => "SKIP",
                "crash" => "ERROR",
                _ => "FAIL",
            };
            test(
                format!("rust.doctest.kernel.{}", element(&c.name)),
                status,
                json!({ "location": c.location }),
            )
        }));
    }
    tests
}

/// The KCIDB document of one checkout, its build and the tools' `results` on it.
pub fn render(checkout: &Checkout, build: &Build, results: &[ToolResult]) -> Value {
    let patchset = patchset_hash(&checkout.patches);
    let checkout_id = format!(
        "{ORIGIN}:{}-{}-{}",
        element(&checkout.tree_name),
        checkout.version,
        &patchset[..16]
    );
    let build_id = format!(
        "{checkout_id}-{}-{}",
        build.architecture,
        &build.config_sha256[..16.min(build.config_sha256.len())]
    );
    let mut build_json = json!({
        "id": build_id,
        "checkout_id": checkout_id,
        "origin": ORIGIN,
        "architecture": build.architecture,
        "compiler": build.compiler,
        "config_name": build.config_name,
        "status": if build.ok { "PASS" } else { "FAIL" },
    });
    if let Some(duration) = build.duration {
        build_json["duration"] = json!(duration);
    }
    if let Some(command) = &build.command {
        build_json["command"] = json!(command);
    }
    if let Some(misc) = &build.misc {
        build_json["misc"] = misc.clone();
    }
    let mut checkout_json = json!({
        "id": checkout_id,
        "origin": ORIGIN,
        "tree_name": checkout.tree_name,
        "git_commit_name": format!("v{}", checkout.version),
        "valid": true,
        "misc": { "kernel_version": checkout.version },
    });
    if !checkout.patches.is_empty() {
        checkout_json["patchset_hash"] = json!(patchset);
        checkout_json["misc"]["patches"] =
            json!(checkout.patches.iter().map(|(name, _)| name).collect::<Vec<_>>());
    }
    let tests: Vec<Value> = results
        .iter()
        .flat_map(tests_of)
        .map(|t| {
            json!({
                "id": format!("{build_id}:{}", t.path),
                "build_id": build_id,
                "origin": ORIGIN,
                "path": t.path,
                "status": t.status,
                "misc": t.misc,
            })
        })
        .collect();
    json!({
        "version": { "major": VERSION.0, "minor": VERSION.1 },
        "checkouts": [checkout_json],
        "builds": [build_json],
        "tests": tests,
    })
}

#[cfg(test)]
mod tests;

/// Why documents cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// Not a KCIDB document of this version.
    #[error("not KCIDB {major}.{minor} data: {0}", major = VERSION.0, minor = VERSION.1)]
    Version(String),
    /// Two objects with one id differ.
    #[error("two different {kind} with the id {id}")]
    Conflict {
        /// `checkouts`, `builds`, `tests`.
        kind: &'static str,
        /// The id.
        id: String,
    },
}

/// Several documents (one per CI cell) as one: each object once, by its id; the same id with
/// different contents is a conflict.
pub fn merge(documents: &[Value]) -> Result<Value, MergeError> {
    let mut merged = json!({ "version": { "major": VERSION.0, "minor": VERSION.1 }, "checkouts": [], "builds": [], "tests": [] });
    for document in documents {
        if document["version"] != merged["version"] {
            return Err(MergeError::Version(document["version"].to_string()));
        }
        for kind in ["checkouts", "builds", "tests"] {
            for object in document[kind].as_array().into_iter().flatten() {
                let list = merged[kind].as_array_mut().expect("made as an array");
                match list.iter().find(|o| o["id"] == object["id"]) {
                    Some(same) if same == object => {}
                    Some(_) => {
                        return Err(MergeError::Conflict {
                            kind,
                            id: object["id"].as_str().unwrap_or_default().to_owned(),
                        });
                    }
                    None => list.push(object.clone()),
                }
            }
        }
    }
    Ok(merged)
}
