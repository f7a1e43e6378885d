//! Which crates to document and how: one rustdoc run per crate kbuild built, with the flags,
//! cfgs, edition and externs of its rustc invocation. Pure: takes [`kbuild::RustBuild`]s.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use kbuild::RustBuild;

/// What kind of crate a job documents (for the landing page's grouping).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// `core` (and `alloc` on trees that still build it), as the kernel configures them.
    Library,
    /// The kernel's own crates in `rust/`, built for the kernel (`kernel`, `bindings`, ...).
    Kernel,
    /// The crates in `rust/` built for the host: the proc-macros (`macros`, and on 7.3
    /// `pin_init_internal` and `zerocopy_derive`) and their libraries (`proc_macro2`, `quote`,
    /// `syn`).
    Host,
    /// An in-tree module or sample (`samples/rust/rust_minimal.o`).
    Module,
    /// An out-of-tree module (`M=`).
    External,
}

/// One rustdoc run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The crate's name.
    pub name: String,
    /// Its kind.
    pub kind: Kind,
    /// kbuild's target (`rust/kernel.o`), for messages.
    pub target: String,
    /// The crate root as kbuild named it.
    pub root: String,
    /// `--edition`.
    pub edition: String,
    /// The crates it names with `--extern` that are documented too.
    pub deps: Vec<String>,
    /// The directory rustdoc runs in (kbuild's: the objtree, or the module's build dir).
    pub cwd: PathBuf,
    /// Environment for the run (kbuild's `OBJTREE=`, `RUST_MODFILE=`).
    pub env: BTreeMap<String, String>,
    /// rustdoc's arguments, without the output options (see [`Job::command_args`]).
    pub args: Vec<String>,
}

/// How the site treats `core`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CoreDocs {
    /// Document it like every other crate (about 316 MB).
    Local,
    /// Do not document it; link to its documentation at this base URL
    /// (`https://doc.rust-lang.org/1.95.0/`).
    Upstream(String),
}

/// What [`plan`] needs besides the builds.
#[derive(Clone, Debug)]
pub struct PlanConfig {
    /// The objtree, where kbuild ran rustc for in-tree crates.
    pub objtree: PathBuf,
    /// rustc's minor version (95 for 1.95.0), for the same workarounds kbuild applies.
    pub rustc_minor: u32,
    /// `--crate-version` for the kernel's crates (the kernel version).
    pub crate_version: String,
    /// How to treat `core`.
    pub core: CoreDocs,
}

/// A crate that is not documented, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// The crate.
    pub name: String,
    /// kbuild's target.
    pub target: String,
    /// Why.
    pub reason: String,
}

/// The jobs, sorted by name, and what was left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// One job per documented crate.
    pub jobs: Vec<Job>,
    /// Crates kbuild built that are not documented.
    pub skipped: Vec<Skipped>,
}

/// Why an option of kbuild's rustc command is not passed on to rustdoc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropReason {
    /// Where the build writes (`--emit`, `-o`, `--out-dir`): each job sets rustdoc's own.
    Output,
    /// How the build reports diagnostics (`--error-format=json`): rustdoc's stay readable in
    /// its log.
    Diagnostics,
    /// An option rustc has and rustdoc rejects (`error: Unrecognized option`), such as
    /// `--remap-path-scope`, which 7.3's kbuild passes, and `-O`.
    RustcOnly,
    /// An option rustdoc has with another meaning (`--test` runs the doctests).
    OtherMeaning,
}

/// One rustc option that rustdoc must not get.
#[derive(Clone, Copy, Debug)]
pub struct Dropped {
    /// The option (`--emit`, `-O`).
    pub option: &'static str,
    /// Whether it takes a value (`--emit=x`, `--emit x`, `-ox`, `-o x`).
    pub takes_value: bool,
    /// Why it is dropped.
    pub reason: DropReason,
}

const fn opt(option: &'static str, takes_value: bool, reason: DropReason) -> Dropped {
    Dropped { option, takes_value, reason }
}

/// The options of rustc that rustdoc lacks or reads differently (rustc 1.95's `rustc --help -v`
/// against `rustdoc -Zunstable-options --help`), whatever the kernel version: what remains of
/// a build's command line is what `make rustdoc` passes.
///
/// `make rustdoc` builds rustdoc's command from the flags kbuild gives rustc, less those
/// rustdoc rejects. Linux 7.3's `rust/Makefile`:
///
/// ```make
/// 176:  $(RUSTDOC) $(filter-out $(skip_flags) --remap-path-scope=%,$(if $(rustdoc_host),$(rust_common_flags),$(rust_flags))) \
/// 391:  $(RUSTDOC) --test $(filter-out --remap-path-scope=%,$(rust_flags)) \
/// ```
///
/// (`skip_flags` are already out of the build's command, `rust/Makefile:651`), and a host
/// crate gets `rust_common_flags`, without the `-O` that kbuild builds the host libraries with
/// (`cmd_rustc_procmacrolibrary`, `rust/Makefile:595`: `--crate-type rlib -O`). Upstream
/// keeps `--remap-path-prefix` (rustdoc takes it with `-Zunstable-options`; the pages are the
/// same with or without it), and so does the site.
pub const NOT_FOR_RUSTDOC: &[Dropped] = &[
    opt("--emit", true, DropReason::Output),
    opt("-o", true, DropReason::Output),
    opt("--out-dir", true, DropReason::Output),
    opt("--error-format", true, DropReason::Diagnostics),
    opt("--json", true, DropReason::Diagnostics),
    opt("--remap-path-scope", true, DropReason::RustcOnly),
    opt("-O", false, DropReason::RustcOnly),
    opt("-g", false, DropReason::RustcOnly),
    opt("-l", true, DropReason::RustcOnly),
    opt("--print", true, DropReason::RustcOnly),
    opt("--explain", true, DropReason::RustcOnly),
    opt("--test", false, DropReason::OtherMeaning),
];

/// kbuild's `rustdoc_modifiers_workaround` (`rust/Makefile:165-167`, added to every rustdoc
/// run at line 181): rustdoc does not record target modifiers, so with rustc 1.88 or later
/// it reports an ABI mismatch against crates built with `-Zfixed-x18`.
fn rustdoc_modifiers_workaround(rustc_minor: u32) -> Option<&'static str> {
    (rustc_minor >= 88).then_some("-Cunsafe-allow-abi-mismatch=fixed-x18")
}

/// Plans one rustdoc run per crate in `builds` (of the objtree, then of external modules, each
/// with the directory kbuild ran rustc in): kernel-target crates and host proc-macros, not
/// host programs (`scripts/`) nor the generated doctest crate.
pub fn plan(builds: &[(PathBuf, RustBuild, Kind)], config: &PlanConfig) -> Plan {
    let mut plan = Plan::default();
    let mut seen = BTreeSet::new();
    for (cwd, build, kind) in builds {
        let inv = &build.invocation;
        let skip = |reason: &str| Skipped {
            name: inv.crate_name.clone(),
            target: build.target.clone(),
            reason: reason.to_owned(),
        };
        if !inv.is_kernel_target() && inv.crate_type == "bin" {
            // Host libraries stay: the proc-macros' dependencies (`proc_macro2`, `quote` and
            // `syn`, built in `rust/host/` on 7.3), which `make rustdoc` documents too.
            plan.skipped.push(skip("host program, not part of the kernel"));
            continue;
        }
        if inv.crate_name == "doctests_kernel_generated" {
            plan.skipped.push(skip("the kernel crate's doctests, generated as KUnit tests"));
            continue;
        }
        if !seen.insert(inv.crate_name.clone()) {
            plan.skipped.push(skip("another crate of the same name is documented"));
            continue;
        }
        let kind = match inv.crate_name.as_str() {
            "core" | "alloc" if *kind == Kind::Kernel => Kind::Library,
            _ if *kind == Kind::Kernel && !inv.is_kernel_target() => Kind::Host,
            _ => *kind,
        };
        let mut env = inv.env.clone();
        // The kernel builds with unstable features on a stable toolchain, as kbuild does.
        env.insert("RUSTC_BOOTSTRAP".to_owned(), "1".to_owned());
        let mut args = rustdoc_args(&inv.args);
        if inv.is_kernel_target()
            && let Some(workaround) = rustdoc_modifiers_workaround(config.rustc_minor)
        {
            args.push(workaround.to_owned());
        }
        if kind != Kind::Library {
            args.push(format!("--crate-version={}", config.crate_version));
        }
        plan.jobs.push(Job {
            name: inv.crate_name.clone(),
            kind,
            target: build.target.clone(),
            root: inv.root.clone(),
            edition: inv.edition.clone(),
            deps: Vec::new(),
            cwd: cwd.clone(),
            env,
            args,
        });
    }
    if let CoreDocs::Upstream(url) = &config.core {
        plan.jobs.retain(|job| {
            let upstream = job.kind == Kind::Library;
            if upstream {
                plan.skipped.push(Skipped {
                    name: job.name.clone(),
                    target: job.target.clone(),
                    reason: format!("linked to its upstream documentation at {url}"),
                });
            }
            !upstream
        });
        for job in &mut plan.jobs {
            for name in ["core", "alloc"] {
                job.args.push(format!("--extern-html-root-url={name}={url}"));
            }
            job.args.push("--extern-html-root-takes-precedence".to_owned());
        }
    }
    let names: BTreeSet<String> = plan.jobs.iter().map(|j| j.name.clone()).collect();
    let externs: BTreeMap<&str, &Vec<String>> = builds
        .iter()
        .map(|(_, b, _)| (b.invocation.crate_name.as_str(), &b.invocation.externs))
        .collect();
    for job in &mut plan.jobs {
        if let Some(externs) = externs.get(job.name.as_str()) {
            job.deps = externs.iter().filter(|e| names.contains(*e)).cloned().collect();
        }
    }
    plan.jobs.sort_by(|a, b| a.name.cmp(&b.name));
    plan
}

/// The build's rustc arguments as rustdoc arguments: all but [`NOT_FOR_RUSTDOC`], each
/// dropped with its value in any of rustc's spellings (`--emit=x`, `--emit x`, `-ox`, `-o x`).
pub fn rustdoc_args(rustc_args: &[String]) -> Vec<String> {
    let options: Vec<(&str, bool)> =
        NOT_FOR_RUSTDOC.iter().map(|d| (d.option, d.takes_value)).collect();
    kbuild::rustc::without_options(rustc_args, &options)
}

impl Job {
    /// The full argument list for documenting into `out` with cross-crate parts in `parts`
    /// and the dependency list in `dep_info`.
    pub fn command_args(&self, out: &Path, parts: &Path, dep_info: &Path) -> Vec<String> {
        let mut args = self.args.clone();
        args.extend([
            "-Zunstable-options".to_owned(),
            "--generate-link-to-definition".to_owned(),
            "--merge=none".to_owned(),
            format!("--parts-out-dir={}", parts.display()),
            format!("--emit=invocation-specific,dep-info={}", dep_info.display()),
            format!("--out-dir={}", out.display()),
        ]);
        args
    }
}

impl Job {
    /// The full argument list for rustdoc's JSON output of the crate (the build's arguments,
    /// as for the HTML pages, plus `--output-format json`) into `out` (`out/<crate>.json`), with
    /// the dependency list in `dep_info`: what `docs-site versions` diffs between kernels.
    pub fn json_command_args(&self, out: &Path, dep_info: &Path) -> Vec<String> {
        let mut args = self.args.clone();
        args.extend([
            "-Zunstable-options".to_owned(),
            "--output-format".to_owned(),
            "json".to_owned(),
            // `--emit=dep-info` alone would write only the dependency list.
            format!("--emit=invocation-specific,dep-info={}", dep_info.display()),
            format!("--out-dir={}", out.display()),
        ]);
        args
    }
}

/// The kernel's crates first, then libraries, modules and external modules, by name: the
/// landing page's order.
pub fn by_kind(jobs: &[Job]) -> Vec<&Job> {
    let mut sorted: Vec<&Job> = jobs.iter().collect();
    sorted.sort_by(|a, b| (a.kind, &a.name).cmp(&(b.kind, &b.name)));
    sorted
}

#[cfg(test)]
mod tests;
