//! The rest of the suite against the demo tree, for `workbench demo`: each tool runs as its own
//! binary (the ones cargo built beside the workbench), and leaves one result line, the files it
//! wrote, and how long it took.
//!
//! What takes long and depends only on files (rust-analyzer's check of the generated file,
//! kallsyms-check's boots) is reused while those files are unchanged: [`Reuse`] keys a result
//! by its inputs' sizes and modification times, and the summary says which results were reused.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, UNIX_EPOCH};

use rust_project_gen::rust_analyzer;
use subprocess::Command;

use crate::inputs::sha256;

/// How one tool did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolResult {
    /// The tool (`rust-project-gen`).
    pub tool: &'static str,
    /// Whether it did what the demo expects.
    pub ok: bool,
    /// Its result, in one line.
    pub summary: String,
    /// What it wrote, for the user to open.
    pub outputs: Vec<PathBuf>,
    /// How long it took (to look up, when reused).
    pub took: Duration,
    /// Whether the result is a previous run's, its inputs unchanged.
    pub reused: bool,
}

/// The last line of `stderr` that starts with `prefix`, without it.
pub fn last_line_after<'a>(stderr: &'a str, prefix: &str) -> Option<&'a str> {
    stderr.lines().rev().find_map(|l| l.strip_prefix(prefix)).map(str::trim)
}

/// kallsyms-check's verdict from its report: how many scenarios were ok, of how many run, and
/// how many the tree could not run.
pub fn kallsyms_scenarios(report: &str) -> (usize, usize, usize) {
    let mut verdicts = (0, 0, 0);
    for line in report.lines().filter(|l| !l.starts_with(' ')) {
        if line.ends_with(": ok") {
            verdicts.0 += 1;
            verdicts.1 += 1;
        } else if line.ends_with(": FAILED") {
            verdicts.1 += 1;
        } else if line.contains(": not run: ") {
            verdicts.2 += 1;
        }
    }
    verdicts
}

/// decode-stacktrace's output: how many frames it decoded, and how many of them got a
/// `file:line`.
pub fn decoded_frames(decoded: &str) -> (usize, usize) {
    let frames: Vec<&str> = decoded
        .lines()
        .filter(|l| l.starts_with(' ') && !l.trim_start().starts_with('<'))
        .filter(|l| l.contains("+0x") && !l.trim_start().starts_with("(inlined)"))
        .collect();
    let located = frames
        .iter()
        .filter(|l| {
            l.rsplit(' ')
                .next()
                .and_then(|loc| loc.rsplit_once(':'))
                .is_some_and(|(_, n)| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .count();
    (frames.len(), located)
}

/// The key of a result: each input's path, size and modification time, one per line; a missing
/// input is keyed as missing.
pub fn inputs_key(inputs: &[PathBuf]) -> String {
    let mut key = String::new();
    for path in inputs {
        let meta = std::fs::metadata(path).ok();
        let mtime = meta
            .as_ref()
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        match meta {
            Some(m) => key.push_str(&format!("{} {} {mtime}\n", path.display(), m.len())),
            None => key.push_str(&format!("{} missing\n", path.display())),
        }
    }
    key
}

/// A result kept in the demo's work folder (`NAME.key`, `NAME.result`), reused while the key of
/// its inputs is the same.
pub struct Reuse {
    key_file: PathBuf,
    result_file: PathBuf,
    key: String,
}

impl Reuse {
    /// The kept result `name` in `work_dir`, for inputs whose key is `key`.
    pub fn new(work_dir: &Path, name: &str, key: String) -> Reuse {
        Reuse {
            key_file: work_dir.join(format!("{name}.key")),
            result_file: work_dir.join(format!("{name}.result")),
            key,
        }
    }

    /// The kept result, if its inputs have not changed.
    pub fn get(&self) -> Option<String> {
        let key = std::fs::read_to_string(&self.key_file).ok()?;
        if key != self.key {
            return None;
        }
        std::fs::read_to_string(&self.result_file).ok()
    }

    /// Keeps `result` for these inputs (result first, then the key: an interrupted write leaves
    /// no key that matches).
    pub fn put(&self, result: &str) {
        let _ = std::fs::remove_file(&self.key_file);
        if std::fs::write(&self.result_file, result).is_ok() {
            let _ = std::fs::write(&self.key_file, &self.key);
        }
    }
}

/// Where things are, for running the tools.
pub struct Suite {
    /// The folder with the suite's binaries.
    pub bin_dir: PathBuf,
    /// The kernel trees.
    pub srctree: PathBuf,
    /// The build tree.
    pub objtree: PathBuf,
    /// The out-of-tree modules' build folder.
    pub extmod_dir: PathBuf,
    /// The demo's work folder: every tool's output goes here.
    pub work_dir: PathBuf,
    /// The documentation site's folder.
    pub docs_dir: PathBuf,
}

impl Suite {
    fn tool(&self, name: &str) -> Command {
        Command::new(self.bin_dir.join(name), &self.work_dir)
    }

    fn binary_key(&self, name: &str) -> PathBuf {
        self.bin_dir.join(name)
    }

    /// rust-project-gen, then rust-analyzer's check of its file (reused while the file and
    /// rust-analyzer are the same).
    pub fn rust_project_gen(&self) -> ToolResult {
        let start = Instant::now();
        let json = self.work_dir.join("rust-project.json");
        let sysroot = match Command::new("rustc", &self.work_dir)
            .args(["--print", "sysroot"])
            .timeout(Duration::from_secs(60))
            .run_checked()
        {
            Ok(out) => PathBuf::from(out.stdout.trim()),
            Err(e) => return failed("rust-project-gen", &e.to_string(), start),
        };
        let cmd = self
            .tool("rust-project-gen")
            .arg(&self.srctree)
            .arg(&self.objtree)
            .arg(&sysroot)
            .arg(sysroot.join("lib/rustlib/src/rust/library"))
            .arg("--output")
            .arg(&json)
            .timeout(Duration::from_secs(300));
        let run = match run_tool(&cmd, &[0]) {
            Ok(run) => run,
            Err(why) => return failed("rust-project-gen", &why, start),
        };
        let generated = last_line_after(&run.stderr, "rust-project-gen: ")
            .unwrap_or("written")
            .split(';')
            .next()
            .unwrap_or_default()
            .to_owned();
        let ra = sysroot.join("bin/rust-analyzer");
        // Which rust-analyzer checked the file: the summary says so.
        let version = match Command::new(&ra, &self.work_dir)
            .arg("--version")
            .timeout(Duration::from_secs(60))
            .run_checked()
        {
            Ok(out) => out.stdout.trim().to_owned(),
            Err(e) => return failed("rust-project-gen", &e.to_string(), start),
        };
        // By the file's content: rust-project-gen rewrites it each time.
        let content = std::fs::read(&json).unwrap_or_default();
        let key = format!(
            "{} {}\n{}",
            json.display(),
            sha256(&content),
            inputs_key(std::slice::from_ref(&ra))
        );
        let reuse = Reuse::new(&self.work_dir, "rust-analyzer", key);
        let (checked, reused) = match reuse.get() {
            Some(kept) => (kept, true),
            None => {
                let checked = match Command::new(&ra, &self.work_dir)
                    .arg("diagnostics")
                    .arg(&self.work_dir)
                    .timeout(Duration::from_secs(900))
                    .run()
                {
                    // It exits 1 when it found an error.
                    Ok(out)
                        if out.success() || !rust_analyzer::error_lines(&out.stdout).is_empty() =>
                    {
                        rust_analyzer_verdict(&out.stdout)
                    }
                    Ok(out) => format!(
                        "rust-analyzer diagnostics failed ({})",
                        subprocess::describe_status(out.status)
                    ),
                    Err(e) => format!("rust-analyzer diagnostics failed: {e}"),
                };
                reuse.put(&checked);
                (checked, false)
            }
        };
        ToolResult {
            tool: "rust-project-gen",
            ok: checked.starts_with("0 errors"),
            summary: format!("{generated}; {version}: {checked}"),
            outputs: vec![json],
            took: start.elapsed(),
            reused,
        }
    }

    /// lint-rules on the kernel's Rust code (its own rules, not clippy: that builds in the tree).
    pub fn lint_rules(&self) -> ToolResult {
        let start = Instant::now();
        let report = self.work_dir.join("lint-rules.txt");
        let cmd = self
            .tool("lint-rules")
            .arg("check")
            .arg("--srctree")
            .arg(&self.srctree)
            .arg("--objtree")
            .arg(&self.objtree)
            .args(["rust", "samples/rust", "drivers"].map(|d| self.srctree.join(d)))
            .timeout(Duration::from_secs(600))
            .capture_limit(256 << 20);
        // 1 means findings, which the kernel has (triaged in lint-rules/triage/).
        let run = match run_tool(&cmd, &[0, 1]) {
            Ok(run) => run,
            Err(why) => return failed("lint-rules", &why, start),
        };
        let _ = std::fs::write(&report, &run.stdout);
        ToolResult {
            tool: "lint-rules",
            ok: true,
            summary: last_line_after(&run.stderr, "lint-rules: ").unwrap_or_default().to_owned(),
            outputs: vec![report],
            took: start.elapsed(),
            reused: false,
        }
    }

    /// docs-site: every crate, the doctests booted, the links checked (it reuses unchanged
    /// crates and the doctest boot itself).
    pub fn docs_site(&self, config_name: &str, doctests: bool) -> ToolResult {
        let start = Instant::now();
        let mut cmd = self
            .tool("docs-site")
            .arg("build")
            .arg("--srctree")
            .arg(&self.srctree)
            .arg("--objtree")
            .arg(&self.objtree)
            .arg("--extmod-dir")
            .arg(&self.extmod_dir)
            .arg("--out")
            .arg(&self.docs_dir)
            .arg("--config-name")
            .arg(config_name)
            .arg("--check")
            .timeout(Duration::from_secs(3600));
        if doctests {
            cmd = cmd.arg("--doctests");
        }
        match cmd.run() {
            Ok(run) => {
                let built = run
                    .stderr
                    .lines()
                    .rev()
                    .find_map(|l| l.strip_prefix("docs-site: ").filter(|l| l.contains(" crates (")))
                    .unwrap_or_default();
                let links = run
                    .stderr
                    .lines()
                    .find_map(|l| l.strip_prefix("docs-site: links: "))
                    .unwrap_or("not checked");
                ToolResult {
                    tool: "docs-site",
                    ok: run.success(),
                    summary: format!("{built}; links: {links}"),
                    outputs: vec![self.docs_dir.join("index.html")],
                    took: start.elapsed(),
                    reused: false,
                }
            }
            Err(e) => failed("docs-site", &e.to_string(), start),
        }
    }

    /// kallsyms-check's oops scenarios in QEMU (reused while the kernel, the modules and the
    /// tool are the same); their console logs are kept for decode-stacktrace.
    pub fn kallsyms_check(&self, kos: &[PathBuf]) -> ToolResult {
        let start = Instant::now();
        let report = self.work_dir.join("kallsyms-check.txt");
        let html = self.work_dir.join("kallsyms-check.html");
        let logs = self.work_dir.join("kallsyms-check-logs");
        let mut inputs = vec![
            self.objtree.join("vmlinux"),
            self.objtree.join("arch/x86/boot/bzImage"),
            self.binary_key("kallsyms-check"),
        ];
        inputs.extend(kos.iter().cloned());
        let reuse = Reuse::new(&self.work_dir, "kallsyms-check", inputs_key(&inputs));
        let (text, reused) = match reuse.get() {
            Some(text) => (text, true),
            None => {
                let cmd = self
                    .tool("kallsyms-check")
                    .arg("run")
                    .arg("--objtree")
                    .arg(&self.objtree)
                    .arg("--extmod-dir")
                    .arg(&self.extmod_dir)
                    .arg("--html")
                    .arg(&html)
                    .arg("--logs")
                    .arg(&logs)
                    .timeout(Duration::from_secs(1800));
                let run = match run_tool(&cmd, &[0, 1]) {
                    Ok(run) => run,
                    Err(why) => return failed("kallsyms-check", &why, start),
                };
                let _ = std::fs::write(&report, &run.stdout);
                if run.success() {
                    reuse.put(&run.stdout);
                }
                (run.stdout, false)
            }
        };
        let (ok, all, not_run) = kallsyms_scenarios(&text);
        let mut summary = format!("{ok} of {all} oops scenarios: every Rust frame whole and right");
        if not_run > 0 {
            summary += &format!("; {not_run} not run on this tree (the report says why)");
        }
        ToolResult {
            tool: "kallsyms-check",
            ok: all > 0 && ok == all,
            summary,
            outputs: vec![report, html, logs],
            took: start.elapsed(),
            reused,
        }
    }

    /// layout-check: Rust's view of every C struct against the C compiler's, from DWARF.
    pub fn layout_check(&self) -> ToolResult {
        let start = Instant::now();
        let report = self.work_dir.join("layout-check.txt");
        let html = self.work_dir.join("layout-check.html");
        let cmd = self
            .tool("layout-check")
            .arg("check")
            .arg(self.objtree.join("vmlinux"))
            .arg(&self.objtree)
            .arg(&self.extmod_dir)
            .arg("--srctree")
            .arg(&self.srctree)
            .arg("--html")
            .arg(&html)
            .timeout(Duration::from_secs(600));
        // 1 means mismatches: a kernel bug, which the summary names.
        let run = match run_tool(&cmd, &[0, 1]) {
            Ok(run) => run,
            Err(why) => return failed("layout-check", &why, start),
        };
        let _ = std::fs::write(&report, &run.stdout);
        let summary = run
            .stdout
            .lines()
            .find(|l| l.contains(" compared: "))
            .and_then(|l| l.split_once("; ").map(|(_, rest)| rest))
            .and_then(|l| l.split(';').next())
            .unwrap_or_default();
        ToolResult {
            tool: "layout-check",
            ok: run.success(),
            summary: summary.trim().to_owned(),
            outputs: vec![report, html],
            took: start.elapsed(),
            reused: false,
        }
    }

    /// decode-stacktrace on the oops of kallsyms-check's NULL-write scenario.
    pub fn decode_stacktrace(&self) -> ToolResult {
        let start = Instant::now();
        let log = self.work_dir.join("kallsyms-check-logs/rust_oops_null.log");
        let decoded = self.work_dir.join("decoded-oops.txt");
        let cmd = self
            .tool("decode-stacktrace")
            .arg(self.objtree.join("vmlinux"))
            .arg(&self.srctree)
            .arg(&self.extmod_dir)
            .arg("--log")
            .arg(&log)
            .timeout(Duration::from_secs(300));
        let run = match run_tool(&cmd, &[0]) {
            Ok(run) => run,
            Err(why) => return failed("decode-stacktrace", &why, start),
        };
        let _ = std::fs::write(&decoded, &run.stdout);
        let (frames, located) = decoded_frames(&run.stdout);
        ToolResult {
            tool: "decode-stacktrace",
            ok: frames > 0 && located > 0,
            summary: format!("{frames} frames of rust_oops_null's oops, {located} with file:line"),
            outputs: vec![decoded],
            took: start.elapsed(),
            reused: false,
        }
    }
}

/// rust-analyzer's verdict on the file from `rust-analyzer diagnostics` output: its errors,
/// with those that are rust-analyzer's own known bugs counted apart.
fn rust_analyzer_verdict(stdout: &str) -> String {
    let errors = rust_analyzer::error_lines(stdout);
    let known: Vec<&&str> =
        errors.iter().filter(|e| rust_analyzer::known_bug(e).is_some()).collect();
    let real = errors.len() - known.len();
    let mut verdict = format!("{real} error{}", if real == 1 { "" } else { "s" });
    if let Some(first) = known.first() {
        verdict += &format!(
            " ({} more from its own bug {})",
            known.len(),
            rust_analyzer::known_bug(first).map_or("", |bug| bug.issue)
        );
    }
    verdict
}

/// Runs `cmd`: its output when it exited with one of `codes` (a tool's 1 often means findings,
/// not failure), else why not, for [`failed`].
fn run_tool(cmd: &Command, codes: &[i32]) -> Result<subprocess::Output, String> {
    match cmd.run() {
        Ok(out) if !out.timed_out && out.status.code().is_some_and(|c| codes.contains(&c)) => {
            Ok(out)
        }
        Ok(out) => Err(tail_of(&out)),
        Err(e) => Err(e.to_string()),
    }
}

fn failed(tool: &'static str, why: &str, start: Instant) -> ToolResult {
    ToolResult {
        tool,
        ok: false,
        summary: why.lines().next_back().unwrap_or(why).to_owned(),
        outputs: Vec::new(),
        took: start.elapsed(),
        reused: false,
    }
}

fn tail_of(out: &subprocess::Output) -> String {
    format!("{}: {}", subprocess::describe_status(out.status), subprocess::format_tail(&out.tail))
}

#[cfg(test)]
mod tests;
