//! Every tool of the suite run as its own program against the tree (the binaries `make tools`
//! builds beside the demo's), each with `--json`, its result read back as a
//! `report::results::ToolResult`: [`run_tool`] is the one place that reads a tool's output, and
//! it reads nothing but that document (tidy checks it). A tool's stderr is its progress, shown
//! as it comes and, when it fails, its tail.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use report::results::{self, ToolResult};
use subprocess::Command;

use crate::reuse::{Reuse, key_of};

/// How one tool did.
#[derive(Clone, Debug, PartialEq)]
pub struct Ran {
    /// The tool (`rust-project-gen`).
    pub tool: &'static str,
    /// Its result, or why there is none (it failed to run, or printed no result).
    pub result: Result<ToolResult, String>,
    /// What it wrote, for the user to open.
    pub outputs: Vec<PathBuf>,
    /// How long it took (to look up, when reused).
    pub took: Duration,
    /// Whether the result is a previous run's, its inputs unchanged.
    pub reused: bool,
}

impl Ran {
    /// Whether it did what the demo expects of it.
    pub fn ok(&self) -> bool {
        self.result.as_ref().is_ok_and(ToolResult::ok)
    }
}

/// Where things are, for running the tools.
pub struct Suite {
    /// The folder with the suite's binaries.
    pub bin_dir: PathBuf,
    /// The kernel source tree.
    pub srctree: PathBuf,
    /// The build tree.
    pub objtree: PathBuf,
    /// The out-of-tree modules' build folder.
    pub extmod_dir: PathBuf,
    /// The demo's work folder: every tool's output goes here, each result in `results/`.
    pub work_dir: PathBuf,
    /// The documentation site's folder.
    pub docs_dir: PathBuf,
    /// The store of documentation that trees share (docs-site's `--shared-dir`), if any.
    pub docs_shared_dir: Option<PathBuf>,
    /// The toolchain's sysroot ([`toolchain_sysroot`]).
    pub sysroot: PathBuf,
}

/// Runs the suite's program `name` with `args` and `--json` in `work_dir`: its result, when it
/// exited with one of `codes` (a tool's 1 often means findings, not failure) and printed a
/// document of the schema; else why not.
pub fn run_tool(
    bin_dir: &Path,
    work_dir: &Path,
    name: &str,
    args: Vec<std::ffi::OsString>,
    timeout: Duration,
    codes: &[i32],
) -> Result<ToolResult, String> {
    let program = bin_dir.join(name);
    if !program.is_file() {
        return Err(format!(
            "{} does not exist: build the suite's binaries first (`make tools`)",
            program.display()
        ));
    }
    let cmd = Command::new(&program, work_dir)
        .args(args)
        .arg("--json")
        .timeout(timeout)
        .capture_limit(256 << 20);
    let out = cmd.run().map_err(|e| e.to_string())?;
    if out.timed_out || !out.status.code().is_some_and(|c| codes.contains(&c)) {
        return Err(format!(
            "{}: {}",
            subprocess::describe_status(out.status),
            subprocess::format_tail(&out.tail)
        ));
    }
    results::from_json(&out.stdout).map_err(|e| format!("the output of {name} is {e}"))
}

impl Suite {
    fn run(
        &self,
        name: &str,
        args: Vec<std::ffi::OsString>,
        timeout: Duration,
        codes: &[i32],
    ) -> Result<ToolResult, String> {
        let result = run_tool(&self.bin_dir, &self.work_dir, name, args, timeout, codes)?;
        self.keep(&result);
        Ok(result)
    }

    /// Writes `result` into `results/TOOL.json`, for other programs (a CI engine) to read.
    fn keep(&self, result: &ToolResult) {
        let dir = self.work_dir.join("results");
        let _ = std::fs::create_dir_all(&dir);
        let path = dir.join(format!("{}.json", result.tool()));
        let _ = report::write_atomically(&path, results::to_json(result.clone()));
    }

    /// A result reused while `inputs` (and the tool's binary) hold the same bytes, else run.
    fn reused_or_run(
        &self,
        name: &str,
        inputs: &[PathBuf],
        run: impl FnOnce() -> Result<ToolResult, String>,
    ) -> (Result<ToolResult, String>, bool) {
        let mut inputs = inputs.to_vec();
        inputs.push(self.bin_dir.join(name));
        let reuse = Reuse::new(&self.work_dir, name, key_of(&inputs, name));
        if let Some(result) = reuse.get().and_then(|kept| results::from_json(&kept).ok()) {
            self.keep(&result);
            return (Ok(result), true);
        }
        let result = run();
        if let Ok(r) = &result
            && r.ok()
        {
            reuse.put(&results::to_json(r.clone()));
        }
        (result, false)
    }

    /// rust-project-gen's `rust-project.json` for the tree.
    pub fn rust_project_gen(&self) -> Ran {
        let start = Instant::now();
        let json = self.work_dir.join("rust-project.json");
        let args = vec![
            self.srctree.clone().into(),
            self.objtree.clone().into(),
            self.sysroot.clone().into(),
            self.sysroot.join("lib/rustlib/src/rust/library").into(),
            "--output".into(),
            json.clone().into(),
        ];
        let result = self.run("rust-project-gen", args, Duration::from_secs(300), &[0]);
        done("rust-project-gen", result, vec![json], start, false)
    }

    /// rust-analyzer's check of that file (reused while the file and rust-analyzer are the
    /// same).
    pub fn rust_analyzer(&self) -> Ran {
        let start = Instant::now();
        let inputs =
            [self.work_dir.join("rust-project.json"), self.sysroot.join("bin/rust-analyzer")];
        let (result, reused) = self.reused_or_run("rust-project-check", &inputs, || {
            let args = vec![self.work_dir.clone().into()];
            self.run("rust-project-check", args, Duration::from_secs(900), &[0, 1])
        });
        done("rust-project-check", result, vec![], start, reused)
    }

    /// lint-rules on the kernel's Rust code (its own rules, not clippy: that builds in the
    /// tree).
    pub fn lint_rules(&self) -> Ran {
        let start = Instant::now();
        let mut args: Vec<std::ffi::OsString> = vec![
            "check".into(),
            "--srctree".into(),
            self.srctree.clone().into(),
            "--objtree".into(),
            self.objtree.clone().into(),
        ];
        args.extend(["rust", "samples/rust", "drivers"].map(|d| self.srctree.join(d).into()));
        // 1 means findings, which the kernel has (triaged in lint-rules/triage/).
        let result = self.run("lint-rules", args, Duration::from_secs(600), &[0, 1]);
        done("lint-rules", result, vec![self.result_file("lint-rules")], start, false)
    }

    /// docs-site: every crate, the doctests booted, the links checked (it reuses unchanged
    /// crates and the doctest boot itself).
    pub fn docs_site(&self, config_name: &str, doctests: bool) -> Ran {
        let start = Instant::now();
        let mut args: Vec<std::ffi::OsString> = vec!["build".into()];
        for (flag, value) in [
            ("--srctree", &self.srctree),
            ("--objtree", &self.objtree),
            ("--extmod-dir", &self.extmod_dir),
            ("--out", &self.docs_dir),
        ] {
            args.extend([flag.into(), value.clone().into()]);
        }
        args.extend(["--config-name".into(), config_name.into(), "--check".into()]);
        if let Some(shared) = &self.docs_shared_dir {
            args.extend(["--shared-dir".into(), shared.clone().into()]);
        }
        if doctests {
            args.push("--doctests".into());
        }
        let result = self.run("docs-site", args, Duration::from_secs(3600), &[0, 1]);
        done("docs-site", result, vec![self.docs_dir.join("index.html")], start, false)
    }

    /// kallsyms-check's oops scenarios in QEMU, and the symbol lengths of vmlinux and every
    /// module (reused while the kernel, the modules and the tool are the same); their console
    /// logs are kept for decode-stacktrace.
    pub fn kallsyms_check(&self, image: &Path, kos: &[PathBuf]) -> Ran {
        let start = Instant::now();
        let html = self.work_dir.join("kallsyms-check.html");
        let logs = self.work_dir.join("kallsyms-check-logs");
        let mut inputs = vec![self.objtree.join("vmlinux"), image.to_owned()];
        inputs.extend(kos.iter().cloned());
        inputs.extend(kbuild::built_modules(&self.objtree));
        let (result, reused) = self.reused_or_run("kallsyms-check", &inputs, || {
            let args = vec![
                "run".into(),
                "--objtree".into(),
                self.objtree.clone().into(),
                "--extmod-dir".into(),
                self.extmod_dir.clone().into(),
                "--html".into(),
                html.clone().into(),
                "--logs".into(),
                logs.clone().into(),
            ];
            self.run("kallsyms-check", args, Duration::from_secs(1800), &[0, 1])
        });
        let outputs = vec![self.result_file("kallsyms-check"), html, logs];
        done("kallsyms-check", result, outputs, start, reused)
    }

    /// decode-stacktrace on the oops of kallsyms-check's NULL-write scenario.
    pub fn decode_stacktrace(&self) -> Ran {
        let start = Instant::now();
        let decoded = self.work_dir.join("decoded-oops.txt");
        let args = vec![
            self.objtree.join("vmlinux").into(),
            self.srctree.clone().into(),
            self.extmod_dir.clone().into(),
            "--log".into(),
            self.work_dir.join("kallsyms-check-logs/rust_oops_null.log").into(),
        ];
        let result = self.run("decode-stacktrace", args, Duration::from_secs(300), &[0]);
        if let Ok(ToolResult::DecodeStacktrace(d)) = &result {
            let _ = report::write_atomically(&decoded, &d.text);
        }
        done("decode-stacktrace", result, vec![decoded], start, false)
    }

    /// layout-check: Rust's view of every C struct against the C compiler's, from DWARF.
    pub fn layout_check(&self) -> Ran {
        let start = Instant::now();
        let html = self.work_dir.join("layout-check.html");
        let args = vec![
            "check".into(),
            self.objtree.join("vmlinux").into(),
            self.objtree.clone().into(),
            self.extmod_dir.clone().into(),
            "--srctree".into(),
            self.srctree.clone().into(),
            "--html".into(),
            html.clone().into(),
        ];
        // 1 means mismatches: a kernel bug, which the summary names.
        let result = self.run("layout-check", args, Duration::from_secs(600), &[0, 1]);
        done("layout-check", result, vec![self.result_file("layout-check"), html], start, false)
    }

    fn result_file(&self, tool: &str) -> PathBuf {
        self.work_dir.join("results").join(format!("{tool}.json"))
    }
}

/// The toolchain's sysroot (`rustc --print sysroot`), asked once for the tools that need it.
pub fn toolchain_sysroot(cwd: &Path) -> Result<PathBuf, subprocess::Error> {
    let out = Command::new("rustc", cwd)
        .args(["--print", "sysroot"])
        .timeout(Duration::from_secs(60))
        .run_checked()?;
    Ok(PathBuf::from(out.stdout.trim()))
}

/// The results the last demo kept in `work_dir/results/`, for `make report`: an error names
/// what is missing and what to run.
pub fn kept_results(work_dir: &Path) -> Result<Vec<ToolResult>, String> {
    let dir = work_dir.join("results");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("no results in {}: {e}; run `make demo` first", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    names.sort();
    if names.is_empty() {
        return Err(format!("no results in {}: run `make demo` first", dir.display()));
    }
    names
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            results::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))
        })
        .collect()
}

fn done(
    tool: &'static str,
    result: Result<ToolResult, String>,
    outputs: Vec<PathBuf>,
    start: Instant,
    reused: bool,
) -> Ran {
    Ran { tool, result, outputs, took: start.elapsed(), reused }
}
