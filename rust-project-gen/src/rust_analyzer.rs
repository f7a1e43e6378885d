//! What the installed rust-analyzer understands of `rust-project.json`, from its version, and
//! what its check of a file found.

use std::collections::HashMap;
use std::path::Path;

use report::results;

/// Optional `rust-project.json` fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// `cfg_groups`: the kernel's ~1000 cfgs once instead of once per crate.
    pub cfg_groups: bool,
    /// `crate_attrs`: `-Zcrate-attr=no_std`, so that modules cannot silently use `std`.
    pub crate_attrs: bool,
    /// `sysroot_project`: the sysroot crates listed in the file, so that rust-analyzer loads
    /// `core`, `alloc`, `std` and `proc_macro`, and none of `std`'s own dependencies. Without
    /// it the file lists them as ordinary crates, as upstream's script does.
    pub sysroot_project: bool,
    /// Runnables of kind `flycheck` (the check on save). An older rust-analyzer fails to
    /// load a file that has one ("unknown variant `flycheck`").
    pub flycheck_runnables: bool,
    /// `std`'s `hashbrown` in `sysroot_project` ([`crate::std_deps`]). Not a field of the
    /// format: a rust-analyzer that reports E0282 "type annotations needed" where inference
    /// leaves a type unknown reports it at each `HashMap::new()` of the host crates without
    /// it; an older one infers nothing more with it (1 more expression of 108,095 on 6.12) and
    /// spends 3% more memory on it.
    pub std_deps: bool,
}

impl Features {
    /// Everything, for a current rust-analyzer.
    pub const ALL: Features = Features {
        cfg_groups: true,
        crate_attrs: true,
        sysroot_project: true,
        flycheck_runnables: true,
        std_deps: true,
    };

    /// None of them, for a rust-analyzer older than all of them.
    pub const NONE: Features = Features {
        cfg_groups: false,
        crate_attrs: false,
        sysroot_project: false,
        flycheck_runnables: false,
        std_deps: false,
    };

    /// Whether the file gives `std` its crates.io dependencies: in `sysroot_project`, for a
    /// rust-analyzer that reports E0282 without them.
    pub fn gives_std_deps(self) -> bool {
        self.sysroot_project && self.std_deps
    }
}

/// When each feature reached rust-analyzer: the day its pull request was merged (what a
/// standalone build of that day or later has), and the first stable Rust whose
/// `rust-analyzer` component has it (the release branched from `rust-lang/rust` after the
/// subtree sync that brought it).
struct Since {
    merged: (u32, u32, u32),
    rust_minor: u32,
}

/// `cfg_groups`: merged 2024-08-12; Rust 1.82 branched 2024-09-05.
const CFG_GROUPS: Since = Since { merged: (2024, 8, 12), rust_minor: 82 };
/// `sysroot_project`: merged 2025-02-27; Rust 1.87 branched 2025-04-03.
const SYSROOT_PROJECT: Since = Since { merged: (2025, 2, 27), rust_minor: 87 };
/// `crate_attrs`: merged 2025-12-18; Rust 1.94 branched 2026-01-22.
const CRATE_ATTRS: Since = Since { merged: (2025, 12, 18), rust_minor: 94 };
/// `RunnableKind::Flycheck`: merged 2026-01-08, two weeks before Rust 1.94 branched, so
/// whether 1.94 has it depends on a subtree sync; 1.95 is the first release known to.
const FLYCHECK_RUNNABLES: Since = Since { merged: (2026, 1, 8), rust_minor: 95 };
/// E0282 "type annotations needed" at an inference variable left unresolved: merged 2026-04-24
/// (a8b5abd9e8); Rust 1.96 branched 2026-04-10, so 1.97 is the first release with it.
const TYPE_ANNOTATIONS_NEEDED: Since = Since { merged: (2026, 4, 24), rust_minor: 97 };

/// Days a change takes from rust-analyzer's repository to a `rust-lang/rust` nightly at
/// most (the subtree is synced about weekly).
const SYNC_DAYS: u32 = 14;

/// What `rust-analyzer --version` says about the build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Build {
    /// A toolchain's `rust-analyzer` component, stable or beta: `rust-analyzer 1.85.0 (4d91de4
    /// 2025-02-17)`. The date is the release's, weeks after its code branched.
    Release {
        /// The Rust minor version.
        minor: u32,
    },
    /// A nightly toolchain's component (`1.96.0-nightly (... 2026-03-01)`): that day's
    /// `rust-lang/rust`, whose copy of rust-analyzer lags by up to [`SYNC_DAYS`].
    Nightly {
        /// Its date.
        date: (u32, u32, u32),
    },
    /// A build from rust-analyzer's own repository (the editors' bundled `0.3.2345-standalone`,
    /// a `cargo install` of `ra_ap_rust-analyzer`): its commit's date.
    Standalone {
        /// Its date.
        date: (u32, u32, u32),
    },
    /// A development build without a date: taken to be current.
    Unknown,
}

/// Reads `rust-analyzer --version` output.
pub fn build(version: &str) -> Build {
    let number = version.split_whitespace().nth(1).unwrap_or("");
    let date = build_date(version);
    let rust_minor = number
        .strip_prefix("1.")
        .and_then(|rest| rest.split('.').next())
        .and_then(|minor| minor.parse().ok());
    match (rust_minor, date) {
        (Some(_), Some(date)) if number.contains("-nightly") || number.contains("-dev") => {
            Build::Nightly { date }
        }
        (Some(minor), _) => Build::Release { minor },
        (None, Some(date)) => Build::Standalone { date },
        (None, None) => Build::Unknown,
    }
}

/// The build date in `rust-analyzer --version` output, such as
/// `rust-analyzer 1.95.0 (5980761 2026-04-14)`, as `(year, month, day)`.
pub fn build_date(version: &str) -> Option<(u32, u32, u32)> {
    version.split(|c: char| c.is_whitespace() || c == '(' || c == ')').find_map(|word| {
        let mut parts = word.split('-');
        let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || y.len() != 4 {
            return None;
        }
        Some((y.parse().ok()?, m.parse().ok()?, d.parse().ok()?))
    })
}

/// `date` plus `days`, near enough for comparing release dates (months taken as 31 days).
fn plus_days((y, m, d): (u32, u32, u32), days: u32) -> (u32, u32, u32) {
    let mut day = d + days;
    let (mut month, mut year) = (m, y);
    while day > 31 {
        day -= 31;
        month += 1;
        if month > 12 {
            month = 1;
            year += 1;
        }
    }
    (year, month, day)
}

fn has(build: Build, since: &Since) -> bool {
    match build {
        Build::Release { minor } => minor >= since.rust_minor,
        Build::Nightly { date } => date >= plus_days(since.merged, SYNC_DAYS),
        Build::Standalone { date } => date >= since.merged,
        Build::Unknown => true,
    }
}

/// The features of the rust-analyzer whose `--version` printed `version`; all of them for a
/// development build without a date.
pub fn features(version: &str) -> Features {
    let build = build(version);
    Features {
        cfg_groups: has(build, &CFG_GROUPS),
        crate_attrs: has(build, &CRATE_ATTRS),
        sysroot_project: has(build, &SYSROOT_PROJECT),
        flycheck_runnables: has(build, &FLYCHECK_RUNNABLES),
        std_deps: has(build, &TYPE_ANNOTATIONS_NEEDED),
    }
}

/// Whether rust-analyzer's output says it could not load the project at all (a file it cannot
/// read): then it analysed nothing, and "no errors" means nothing.
pub fn load_failure(output: &str) -> Option<&str> {
    output.lines().find(|l| {
        l.contains("Failed to load the project") || l.contains("Failed to deserialize json file")
    })
}

/// The error lines of `rust-analyzer diagnostics` output, each from where its error starts:
/// the progress it prints before an error on the same line (`301/457 65% processing FILE` and
/// backspaces) is left out.
pub fn error_lines(diagnostics_stdout: &str) -> Vec<&str> {
    diagnostics_stdout
        .split(['\n', '\r'])
        .filter(|l| l.contains("Error "))
        .map(|l| l.find("at crate ").or_else(|| l.find("Error ")).map_or(l, |at| &l[at..]))
        .collect()
}

/// What `rust-analyzer analysis-stats` says of a workspace.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnalysisStats {
    /// The expressions it inferred, and those of unknown type (`exprs: 102984, ??ty: 5449
    /// (5%), ?ty: 0 (0%), !ty: 0`).
    pub exprs: Option<(u64, u64)>,
    /// Its total time, as printed (`Total: 7.5s, 660mb`).
    pub total_time: String,
    /// The memory it counts itself, in MB, when it printed it.
    pub total_memory_mb: Option<u64>,
}

/// The figures of `rust-analyzer analysis-stats` output (stdout and stderr: its progress
/// lines end in `\r` and backspaces).
pub fn analysis_stats(output: &str) -> AnalysisStats {
    let mut stats = AnalysisStats::default();
    for line in output.split(['\r', '\n', '\u{8}']).map(str::trim) {
        if let Some(rest) = line.strip_prefix("exprs: ") {
            let total = rest.split(',').next().and_then(|n| n.trim().parse().ok());
            let unknown = rest
                .split("??ty: ")
                .nth(1)
                .and_then(|r| r.split(' ').next())
                .and_then(|n| n.parse().ok());
            stats.exprs = total.zip(unknown);
        } else if let Some(rest) = line.strip_prefix("Total:") {
            let mut parts = rest.split(',');
            stats.total_time = parts.next().unwrap_or("").trim().to_owned();
            let memory = parts.next().unwrap_or("").trim();
            stats.total_memory_mb = memory.strip_suffix("mb").and_then(|m| m.parse().ok());
        }
    }
    stats
}

/// A bug of rust-analyzer itself that shows as an error in correct kernel code, with the
/// smallest crate that shows it: such an error is not the generated file's. The errors it is
/// allowed to explain are exact: one file, one diagnostic, its whole message, as the
/// rust-analyzer at hand words them, and how many times.
pub struct KnownBug {
    /// The upstream issue, or our report for rust-analyzer's tracker, in this repository,
    /// where none is filed yet.
    pub issue: &'static str,
    /// A crate root (`lib.rs`, edition 2024) that rustc compiles and a rust-analyzer with the
    /// bug reports one form's [`BugForm::in_reproduction`] in; the tests check both, so that
    /// an entry goes once rust-analyzer is fixed.
    pub reproduction: &'static str,
    /// How it shows, as rust-analyzer releases worded it over time; a rust-analyzer has one of
    /// them, the one its reproduction shows.
    pub forms: &'static [BugForm],
}

/// One form of a known bug: what the releases that have it say in the reproduction and in
/// the kernel.
pub struct BugForm {
    /// Which releases, in words.
    pub releases: &'static str,
    /// The error it gives in the reproduction.
    pub in_reproduction: BugError,
    /// The errors it gives in the kernel's code; the README's table of demo kernels says how
    /// many each demo tree has.
    pub in_kernel: &'static [BugError],
}

/// One error a known bug gives: a diagnostic in one file, with its whole message.
pub struct BugError {
    /// The file, from its tree's root (`rust/kernel/print.rs`).
    pub file: &'static str,
    /// rust-analyzer's code for the diagnostic (rustc's `E0308`, or its own
    /// `unresolved-macro-call`).
    pub code: &'static str,
    /// Its message.
    pub message: &'static str,
    /// How many times it may be reported in a tree, as measured: about once for each expansion
    /// of the code that shows it (Rust 1.95's rust-analyzer reports binder's one
    /// `declare_trace!` of eleven tracepoints 12 times).
    pub times: usize,
}

impl BugError {
    /// Whether an error line of `rust-analyzer diagnostics` (`at crate C, file PATH: Error
    /// RustcHardError("CODE") from LineCol {..} to LineCol {..}: MESSAGE`) is exactly this
    /// error.
    pub fn matches(&self, line: &str) -> bool {
        let marker = format!(": Error RustcHardError(\"{}\") from ", self.code);
        let Some((before, after)) = line.split_once(&marker) else {
            return false;
        };
        let Some((_, path)) = before.rsplit_once(", file ") else { return false };
        let in_file =
            path == self.file || path.strip_suffix(self.file).is_some_and(|dir| dir.ends_with('/'));
        let message = after.split_once(" }: ").map(|(_, m)| m.trim_end());
        in_file && message == Some(self.message)
    }
}

/// An E0308 of #22174 at a function `#[export]` checks: `expected` is what rust-analyzer gives
/// the foreign item.
macro_rules! export_mismatch {
    ($file:literal, $expected:literal, $signature:literal) => {
        BugError {
            file: $file,
            code: "E0308",
            message: concat!(
                "expected ",
                $expected,
                $signature,
                ", found unsafe extern \"C\" ",
                $signature
            ),
            times: 1,
        }
    };
}

/// The functions of the kernel that `#[export]` checks against bindgen's declarations, as
/// rust-analyzer prints their signatures.
macro_rules! exported_functions {
    ($expected:literal) => {
        &[
            export_mismatch!(
                "rust/kernel/print.rs",
                $expected,
                "fn rust_fmt_argument(*mut u8, *mut u8, *const c_void) -> *mut u8"
            ),
            export_mismatch!(
                "drivers/gpu/drm/drm_panic_qr.rs",
                $expected,
                "fn drm_panic_qr_generate(*const u8, *mut u8, usize, usize, *mut u8, usize) -> u8"
            ),
            export_mismatch!(
                "drivers/gpu/drm/drm_panic_qr.rs",
                $expected,
                "fn drm_panic_qr_max_data_size(u8, usize) -> usize"
            ),
        ]
    };
}

/// The known bugs, newest last.
pub const KNOWN_BUGS: &[KnownBug] = &[
    KnownBug {
        // 7.3's `#[export]` (rust/macros/export.rs) checks a function against bindgen's
        // declaration with `if true { bindings::f } else { f }`. rustc makes both arms `unsafe
        // extern "C"` function pointers. rust-analyzer gives the foreign item a safe signature,
        // and until PR 22183 (April 2026) the Rust ABI too; and it did not make a safe arm
        // unsafe when it joined an `if`'s two function items, until a release between 0.0.352
        // and 0.0.356 (which build with Rust 1.98). Either way it reports E0308 at each
        // `#[export]`: rust/kernel/print.rs, and drm_panic_qr.rs where DRM's panic QR code is
        // built.
        issue: "https://github.com/rust-lang/rust-analyzer/issues/22174",
        reproduction: "mod bindings {\n    unsafe extern \"C\" {\n        pub fn f(x: *mut u8) -> *mut u8;\n    }\n}\n\
                       #[unsafe(no_mangle)]\n\
                       pub unsafe extern \"C\" fn f(x: *mut u8) -> *mut u8 { x }\n\
                       const _: () = { if true { bindings::f } else { f }; };\n",
        forms: &[
            BugForm {
                releases: "before PR 22183 (April 2026): Rust 1.95's, rust-analyzer 0.0.300",
                in_reproduction: export_mismatch!("lib.rs", "", "fn f(*mut u8) -> *mut u8"),
                in_kernel: exported_functions!(""),
            },
            BugForm {
                releases: "PR 22183 to the fix of the join, 0.0.348 among them",
                in_reproduction: export_mismatch!(
                    "lib.rs",
                    "extern \"C\" ",
                    "fn f(*mut u8) -> *mut u8"
                ),
                in_kernel: exported_functions!("extern \"C\" "),
            },
        ],
    },
    KnownBug {
        // rust-analyzer resolves the macro of a call that `#[cfg]` disables, and reports it
        // unresolved when it exists only with the option (open since 2022). The kernel's
        // `static_branch_unlikely!` ends in `#[cfg(CONFIG_JUMP_LABEL)]
        // $crate::jump_label::arch_static_branch! {..}`, a macro defined only with
        // CONFIG_JUMP_LABEL=y: every tracepoint a crate declares (`declare_trace!`) gives one
        // on a tree with CONFIG_TRACEPOINTS=y and CONFIG_JUMP_LABEL unset.
        issue: "https://github.com/rust-lang/rust-analyzer/issues/12192",
        reproduction: "pub fn f() {\n    #[cfg(any())]\n    crate::missing!();\n}\n",
        forms: &[BugForm {
            releases: "every release to 0.0.358 (2026) at least",
            in_reproduction: BugError {
                file: "lib.rs",
                code: "unresolved-macro-call",
                message: "unresolved macro `crate::missing!`",
                times: 1,
            },
            in_kernel: &[
                BugError {
                    file: "samples/rust/rust_print_main.rs",
                    code: "unresolved-macro-call",
                    message: "unresolved macro `$crate::jump_label::arch_static_branch!`",
                    times: 1,
                },
                BugError {
                    file: "drivers/android/binder/trace.rs",
                    code: "unresolved-macro-call",
                    message: "unresolved macro `$crate::jump_label::arch_static_branch!`",
                    times: 12,
                },
            ],
        }],
    },
    KnownBug {
        // rust-analyzer does not take a closure's parameter type from an `Fn` bound whose
        // array length is a const expression: binder's `BinderObject::read_from_inner` takes
        // `R: FnOnce(&mut [u8; size_of::<BinderObject>()])`, and the closure `read_from` gives
        // it indexes its parameter. With a literal length there is no error. Rust 1.95's
        // rust-analyzer says the parameter is immutable; later ones that the bound is not met.
        issue: "rust-project-gen/upstream/rust-analyzer/closure-array-length-bound.md",
        reproduction: CLOSURE_ARRAY_LENGTH,
        forms: &[
            BugForm {
                releases: "Rust 1.95's (2026-04)",
                in_reproduction: BugError {
                    file: "lib.rs",
                    code: "E0384",
                    message: "cannot mutate immutable variable `slice`",
                    times: 1,
                },
                in_kernel: &[BugError {
                    file: "drivers/android/binder/allocation.rs",
                    code: "E0384",
                    message: "cannot mutate immutable variable `slice`",
                    times: 1,
                }],
            },
            BugForm {
                releases: "0.0.348 and 0.0.358 (2026-08 on)",
                in_reproduction: BugError {
                    file: "lib.rs",
                    code: "E0277",
                    message: "the trait bound `impl FnOnce(&mut [u8; 16]) -> Result<(), ()>: FnOnce<(&mut [u8; 16],)>` is not satisfied",
                    times: 1,
                },
                in_kernel: &[
                    BugError {
                        file: "drivers/android/binder/allocation.rs",
                        code: "E0277",
                        message: "the trait bound `impl FnOnce(&mut [u8; 40]) -> Result<(), Error>: FnOnce<(&mut [u8; 40],)>` is not satisfied",
                        times: 1,
                    },
                    BugError {
                        file: "drivers/android/binder/allocation.rs",
                        code: "E0599",
                        message: "no method `len` on type `&mut [u8; 40]`",
                        times: 1,
                    },
                    BugError {
                        file: "drivers/android/binder/allocation.rs",
                        code: "E0282",
                        message: "type annotations needed; type must be known at this point",
                        times: 1,
                    },
                ],
            },
        ],
    },
];

/// The reproduction of the closure-array-length bug, the shape of binder's `read_from`.
const CLOSURE_ARRAY_LENGTH: &str =
    include_str!("../upstream/rust-analyzer/closure-array-length-bound.rs");

/// The known rust-analyzer bug an error line in the kernel's code is, if any, in any of its
/// forms.
pub fn known_bug(error_line: &str) -> Option<&'static KnownBug> {
    known_error(error_line).map(|(bug, _)| bug)
}

/// The known bug and the error of it that an error line is, if any.
fn known_error(error_line: &str) -> Option<(&'static KnownBug, &'static BugError)> {
    KNOWN_BUGS.iter().find_map(|bug| {
        let mut errors = bug.forms.iter().flat_map(|form| form.in_kernel);
        errors.find(|e| e.matches(error_line)).map(|e| (bug, e))
    })
}

/// rust-analyzer's check of `folder` (`rust-analyzer diagnostics`, whose output is
/// `diagnostics_stdout`) by the rust-analyzer that says `version`: its errors, those that are
/// its own known bugs apart (each up to the times it may be reported; past them, an error).
pub fn analysis(folder: &Path, version: &str, diagnostics_stdout: &str) -> results::Analysis {
    let mut analysis = results::Analysis {
        folder: folder.to_owned(),
        rust_analyzer: version.trim().to_owned(),
        ..results::Analysis::default()
    };
    // How many times each known error was reported so far.
    let mut reported: HashMap<*const BugError, usize> = HashMap::new();
    for line in error_lines(diagnostics_stdout) {
        let error = line.trim().to_owned();
        let known = known_error(line).filter(|(_, known)| {
            let times = reported.entry(*known).or_default();
            *times += 1;
            *times <= known.times
        });
        match known {
            Some((bug, _)) => {
                let issue = bug.issue.to_owned();
                analysis.known_bugs.push(results::KnownBugError { issue, error });
            }
            None => analysis.errors.push(error),
        }
    }
    analysis
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_by_release_date() {
        let f = |c, a, s, r, d| Features {
            cfg_groups: c,
            crate_attrs: a,
            sysroot_project: s,
            flycheck_runnables: r,
            std_deps: d,
        };
        let before_type_annotations_needed = f(true, true, true, true, false);
        // Toolchain components: by release, whatever their date says.
        assert_eq!(
            features("rust-analyzer 1.95.0 (5980761 2026-04-14)"),
            before_type_annotations_needed
        );
        assert_eq!(features("rust-analyzer 1.97.0 (0123456 2026-07-07)"), Features::ALL);
        assert_eq!(
            features("rust-analyzer 1.94.1 (e408947 2026-03-25)"),
            f(true, true, true, false, false)
        );
        // 1.86.0 is dated after sysroot_project was merged, but branched before it.
        assert_eq!(
            features("rust-analyzer 1.86.0 (05f9846 2025-03-31)"),
            f(true, false, false, false, false)
        );
        assert_eq!(
            features("rust-analyzer 1.85.0 (4d91de4 2025-02-17)"),
            f(true, false, false, false, false)
        );
        assert_eq!(
            features("rust-analyzer 1.87.0 (17067e9 2025-05-09)"),
            f(true, false, true, false, false)
        );
        assert_eq!(
            features("rust-analyzer 1.95.0-beta.3 (0123456 2026-03-20)"),
            before_type_annotations_needed
        );
        assert_eq!(features("rust-analyzer 1.78.0 (9b00956 2024-04-29)"), Features::NONE);
        // Nightlies: the date, less the subtree sync.
        assert_eq!(
            features("rust-analyzer 1.86.0-nightly (a567209 2025-03-05)"),
            f(true, false, false, false, false)
        );
        assert_eq!(
            features("rust-analyzer 1.87.0-nightly (0000000 2025-03-20)"),
            f(true, false, true, false, false)
        );
        assert_eq!(
            features("rust-analyzer 1.97.0-nightly (0000000 2026-05-01)"),
            before_type_annotations_needed
        );
        assert_eq!(features("rust-analyzer 1.97.0-nightly (e50aa6f 2026-05-19)"), Features::ALL);
        // Standalone builds: their commit's date.
        assert_eq!(
            features("rust-analyzer 0.3.2308-standalone (6d68c475c 2025-02-23)"),
            f(true, false, false, false, false)
        );
        assert_eq!(
            features("rust-analyzer 0.0.300 (9db05508e 2025-08-11)"),
            f(true, false, true, false, false)
        );
        assert_eq!(
            features("rust-analyzer 0.3.2760-standalone (abcdef0 2026-01-19)"),
            before_type_annotations_needed
        );
        assert_eq!(features("rust-analyzer 0.0.348 (bb3bbbd9e 2026-08-16)"), Features::ALL);
        // A release built without its commit's date: current.
        assert_eq!(features("rust-analyzer 0.0.358"), Features::ALL);
        assert_eq!(features("rust-analyzer 0.0.0"), Features::ALL);
        assert_eq!(features("rust-analyzer 0.0.0 (dev)"), Features::ALL);
        assert_eq!(
            build_date("rust-analyzer 0.3.2593-standalone (2025-09-01)"),
            Some((2025, 9, 1))
        );
    }

    /// Exactly the error: its file (wherever the tree is), its function, its two types.
    #[test]
    fn a_known_bug_explains_only_its_own_error() {
        let error = &KNOWN_BUGS[0].forms[0].in_kernel[0];
        let line = "at crate kernel, file /home/me/linux/rust/kernel/print.rs: Error RustcHardError(\"E0308\") from \
            LineCol { line: 22, col: 2 } to LineCol { line: 22, col: 8 }: expected fn \
            rust_fmt_argument(*mut u8, *mut u8, *const c_void) -> *mut u8, found unsafe extern \"C\" \
            fn rust_fmt_argument(*mut u8, *mut u8, *const c_void) -> *mut u8";
        assert!(error.matches(line));
        assert!(known_bug(line).is_some());
        assert!(error.matches(&line.replace("/home/me/linux/", "")));
        for other in [
            line.replace(
                "found unsafe extern \"C\" fn rust_fmt_argument",
                "found unsafe extern \"C\" fn other",
            ),
            line.replace(
                "rust_fmt_argument(*mut u8, *mut u8",
                "rust_fmt_argument(*mut u8, *mut i8",
            ),
            line.replace("rust/kernel/print.rs", "rust/kernel/str.rs"),
            line.replace("linux/rust/kernel/print.rs", "linux/rust/kernel/myprint.rs"),
            line.replace("E0308", "E0599"),
            format!("{line} and more"),
        ] {
            assert!(!error.matches(&other), "{other}");
            assert_eq!(known_bug(&other).map(|b| b.issue), None, "{other}");
        }
    }

    /// Each form explains its own wording only: 0.0.348's line (keeping the ABI, losing
    /// `unsafe`) is the second form's, not the first's.
    #[test]
    fn a_known_bugs_forms_are_distinct() {
        let forms = KNOWN_BUGS[0].forms;
        let line = "at crate kernel, file /r/rust/kernel/print.rs: Error RustcHardError(\"E0308\") from \
            LineCol { line: 22, col: 2 } to LineCol { line: 22, col: 8 }: expected extern \"C\" fn \
            rust_fmt_argument(*mut u8, *mut u8, *const c_void) -> *mut u8, found unsafe extern \"C\" \
            fn rust_fmt_argument(*mut u8, *mut u8, *const c_void) -> *mut u8";
        assert!(forms[1].in_kernel[0].matches(line));
        assert!(!forms[0].in_kernel[0].matches(line));
        assert!(known_bug(line).is_some());
        let both_unsafe = line.replace("expected extern", "expected unsafe extern");
        assert!(forms.iter().all(|form| !form.in_kernel[0].matches(&both_unsafe)));
        assert!(known_bug(&both_unsafe).is_none());
    }

    /// An error printed after progress on the same line is read from where it starts, and a
    /// known bug's error past the times it may be reported is an error of the file's.
    #[test]
    fn errors_after_progress_and_past_their_times() {
        let error = "at crate rust_print_main, file /t/samples/rust/rust_print_main.rs: Error \
            RustcHardError(\"unresolved-macro-call\") from LineCol { line: 105, col: 4 } to \
            LineCol { line: 105, col: 26 }: unresolved macro `$crate::jump_label::arch_static_branch!`";
        let stdout = format!("1/2 50% processing /t/a.rs\x08\x08   {error}\n2/2 b.rs\r{error}\n");
        assert_eq!(error_lines(&stdout), [error, error]);
        let analysis = analysis(Path::new("/t"), "ra", &stdout);
        assert_eq!(analysis.known_bugs.len(), 1, "{analysis:?}");
        assert_eq!(analysis.errors, [error]);
    }

    /// The figures the benches compare, from progress-ridden output.
    #[test]
    fn analysis_stats_figures() {
        let out = "Database loaded: 1.2s\r\u{8}\u{8}exprs: 102984, ??ty: 5449 (5%), ?ty: 0 (0%), !ty: 0\n\
                   Total: 7.5s, 660mb\n";
        let stats = analysis_stats(out);
        assert_eq!(stats.exprs, Some((102_984, 5449)));
        assert_eq!((stats.total_time.as_str(), stats.total_memory_mb), ("7.5s", Some(660)));
        assert_eq!(analysis_stats("Total: 7.5s\n").total_memory_mb, None);
    }

    #[test]
    fn a_file_rust_analyzer_could_not_load() {
        let out = "Error: Failed to load the project at /x/rust-project.json\n\nCaused by:\n    0: Failed to deserialize json file /x/rust-project.json\n    1: unknown variant `flycheck`";
        assert_eq!(
            load_failure(out),
            Some("Error: Failed to load the project at /x/rust-project.json")
        );
        assert_eq!(load_failure("Database loaded: 100ms\nTotal: 1s, 2mb"), None);
    }
}
