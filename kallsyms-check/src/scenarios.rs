//! The oops scenarios: what each boots, what it needs of the tree, the boot, and the checks of
//! its console log, as the suite's result (`report::results::Scenario`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use qemu::{Guest, Outcome};
use report::results::{self, ScenarioVerdict};

use crate::images::Images;
use crate::{
    Ending, FrameCheck, KallsymsEntry, NothingChecked, identity_matches, parse_proc_kallsyms,
    trigger_argument,
};

/// Why a scenario could not be booted.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// QEMU or the initramfs.
    #[error(transparent)]
    Boot(#[from] qemu::BootError),
    /// A work folder or the console log.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: std::io::Error,
    },
}

/// One way to make the demo kernel oops in Rust code.
pub struct Scenario {
    /// Its name: the module loaded, or how the built-in sample ends (the kernel command line
    /// that triggers it is shown at run time, in the form the tree's sample takes).
    pub name: &'static str,
    /// What it shows.
    pub what: &'static str,
    /// The out-of-tree module that oopses on load (`rust_oops/NAME.ko`), or `None` for the
    /// built-in `rust_long_symbols` sample, which `ending` triggers.
    pub module: Option<&'static str>,
    /// How the built-in sample's chain ends.
    pub ending: Option<Ending>,
    /// What its symbols contain: the frames with it are looked for in `/proc/kallsyms`.
    pub symbols: &'static str,
}

impl Scenario {
    /// The name of its kept console log: the module, or the sample and how it ends.
    pub fn log_name(&self) -> String {
        match (self.module, self.ending) {
            (Some(module), _) => module.to_owned(),
            (None, Some(Ending::NullWrite)) => "rust_long_symbols-null".to_owned(),
            (None, Some(Ending::Panic)) => "rust_long_symbols-panic".to_owned(),
            (None, None) => self.name.replace(' ', "-"),
        }
    }
}

/// Every scenario, in the order they run.
pub const SCENARIOS: &[Scenario] = &[
    Scenario {
        name: "rust_oops_null",
        what: "module: NULL-pointer write at the end of a chain of long generic frames",
        module: Some("rust_oops_null"),
        ending: None,
        symbols: "rust_oops_null",
    },
    Scenario {
        name: "rust_oops_panic",
        what: "module: Rust panic (BUG()) at the end of the same chain",
        module: Some("rust_oops_panic"),
        ending: None,
        symbols: "rust_oops_panic",
    },
    Scenario {
        name: "rust_oops_long",
        what: "module: frames with symbols of 505 and over 512 characters",
        module: Some("rust_oops_long"),
        ending: None,
        symbols: "rust_oops_long",
    },
    Scenario {
        name: "rust_long_symbols null",
        what: "vmlinux: NULL-pointer write under frames of about 100, 300, 480, exactly 511 and 512, and over 512 characters",
        module: None,
        ending: Some(Ending::NullWrite),
        symbols: "rust_long_symbols",
    },
    Scenario {
        name: "rust_long_symbols panic",
        what: "vmlinux: Rust panic (BUG()) under the same frames",
        module: None,
        ending: Some(Ending::Panic),
        symbols: "rust_long_symbols",
    },
];

/// What the kernel command line needs to trigger the scenario (nothing for a module, the
/// built-in sample's trigger parameter, read from `modules.builtin.modinfo`, otherwise), or why
/// this tree cannot run it.
pub fn prerequisites(
    scenario: &Scenario,
    builtin_modinfo: &[u8],
    modinfo_path: &Path,
    module_dir: &Path,
) -> Result<String, String> {
    match (scenario.module, scenario.ending) {
        (Some(module), _) => {
            let ko = module_dir.join(format!("{module}.ko"));
            if ko.is_file() {
                Ok(String::new())
            } else {
                Err(format!(
                    "{} is missing: build demo-kernel/modules/rust_oops against this tree with M= (make kernel does)",
                    ko.display()
                ))
            }
        }
        (None, Some(ending)) => trigger_argument(builtin_modinfo, ending).ok_or_else(|| {
            format!(
                "{} lists no built-in rust_long_symbols sample with a trigger parameter: it comes with the demo series (CONFIG_SAMPLE_RUST_LONG_SYMBOLS=y)",
                modinfo_path.display()
            )
        }),
        (None, None) => Ok(String::new()),
    }
}

/// Boots the demo kernel with the scenario's module loaded or `cmdline` added, lets the CPU idle
/// for a second, so that what the oops left behind shows before the guest powers off (arm64's
/// context tracking warned only at the next entry to idle, which a guest busy to the end never
/// made), then reads the scenario's symbols in `/proc/kallsyms`; returns the boot and its
/// console log.
pub fn boot_scenario(
    scenario: &Scenario,
    built: &kbuild::Built,
    module_dir: &Path,
    cmdline: &str,
) -> Result<(qemu::Boot, String), ScenarioError> {
    let io = |what: &str| {
        let what = what.to_owned();
        move |source| ScenarioError::Io { what, source }
    };
    let dir = tempfile::tempdir().map_err(io("cannot make a work folder"))?;
    let mut guest = Guest {
        busybox: qemu::guest_busybox(&built.arch),
        modules: Vec::new(),
        steps: vec!["sleep 1".to_owned(), format!("grep {} /proc/kallsyms", scenario.symbols)],
    };
    if let Some(module) = scenario.module {
        guest.modules.push(module_dir.join(format!("{module}.ko")));
        guest.steps.insert(0, format!("insmod /lib/modules/{module}.ko"));
    }
    let step = progress::start(&format!("scenario {}", scenario.name));
    let boot = qemu::boot_guest(
        &built.arch,
        &built.image,
        &guest,
        dir.path(),
        |config| {
            config.timeout = Duration::from_secs(120);
            config.append = cmdline.to_owned();
        },
        &mut |line| step.message(line),
    )?;
    step.done(&boot.describe());
    let log = std::fs::read_to_string(&boot.log)
        .map_err(io(&format!("cannot read {}", boot.log.display())))?;
    Ok((boot, log))
}

/// What one scenario's boot showed, checked.
pub struct ScenarioResult {
    /// What the kernel command line had added to trigger it (empty for a module).
    pub cmdline: String,
    /// The boot.
    pub boot: qemu::Boot,
    /// Its console log.
    pub log: String,
    /// The oops reports of the log.
    pub reports: Vec<oops::Report>,
    /// Their Rust frames, checked.
    pub checks: Vec<FrameCheck>,
    /// Why the log held nothing to check, when it did not.
    pub nothing_checked: Option<NothingChecked>,
    /// What the guest's /proc/kallsyms holds of the scenario's code, read after the oops.
    pub kallsyms: Vec<KallsymsEntry>,
    /// The frames of the scenario's code printed with a name /proc/kallsyms does not hold.
    pub missing: Vec<String>,
    /// Whether the function it said it would die in is the symbol at the address it printed.
    pub identity: Option<bool>,
    /// Every check holds.
    pub ok: bool,
}

/// Checks a scenario's boot: its one oops, its Rust frames against `images`, and its frames'
/// names against the guest's `/proc/kallsyms`.
pub fn check_scenario(
    scenario: &Scenario,
    images: &Images,
    cmdline: String,
    boot: qemu::Boot,
    log: String,
) -> ScenarioResult {
    let reports = oops::parse_log(&log);
    let (checks, nothing_checked) = match images.check(&reports) {
        Ok(result) => (result.checks, None),
        Err(why) => (Vec::new(), Some(why)),
    };
    // What the guest's /proc/kallsyms holds of the scenario's code, read after the oops.
    let kallsyms = boot
        .console
        .steps
        .last()
        .map(|s| parse_proc_kallsyms(&s.output.join("\n")))
        .unwrap_or_default();
    let missing: Vec<String> = checks
        .iter()
        .filter(|c| c.module.as_deref() == scenario.module)
        .filter(|c| scenario.module.is_some() || c.printed.contains(scenario.symbols))
        .map(|c| c.printed.as_str())
        .filter(|printed| !kallsyms.iter().any(|e| e.name == *printed))
        .map(str::to_owned)
        .collect();
    let identity = identity_matches(&log, &kallsyms);
    // One oops per scenario: a second one means the kernel broke while reporting.
    let ok = boot.outcome() == Outcome::Completed
        && reports.len() == 1
        && !checks.is_empty()
        && checks.iter().all(FrameCheck::ok)
        && !kallsyms.is_empty()
        && missing.is_empty()
        && identity != Some(false);
    ScenarioResult {
        cmdline,
        boot,
        log,
        reports,
        checks,
        nothing_checked,
        kallsyms,
        missing,
        identity,
        ok,
    }
}

/// A scenario's result, for `--json`.
pub fn scenario_result(
    scenario: &Scenario,
    result: &ScenarioResult,
    log: Option<PathBuf>,
) -> results::Scenario {
    let mut why = Vec::new();
    if let Some(nothing) = &result.nothing_checked {
        why.push(format!("nothing checked: {nothing}"));
    }
    if result.boot.outcome() != Outcome::Completed {
        why.push(format!("the boot: {:?}", result.boot.outcome()));
    }
    if result.reports.len() != 1 {
        why.push(format!("the kernel reported {} problems, not one", result.reports.len()));
    }
    why.extend(
        result.checks.iter().filter(|c| !c.ok()).map(|c| format!("{}: {:?}", c.printed, c.verdict)),
    );
    if result.identity == Some(false) {
        why.push("the address it printed is not the function it said it would die in".into());
    }
    results::Scenario {
        name: scenario.name.into(),
        what: scenario.what.into(),
        verdict: if result.ok { ScenarioVerdict::Ok } else { ScenarioVerdict::Failed },
        why,
        cmdline: result.cmdline.clone(),
        reports: result.reports.len(),
        frames: result
            .checks
            .iter()
            .map(|c| results::FrameVerdict {
                printed: c.printed.clone(),
                ok: c.ok(),
                verdict: match &c.actual {
                    Some(actual) => format!("{:?} (the address is in {actual})", c.verdict),
                    None => format!("{:?}", c.verdict),
                },
            })
            .collect(),
        proc_kallsyms_symbols: result.kallsyms.len(),
        missing_from_proc_kallsyms: result.missing.clone(),
        identity_matches: result.identity,
        log,
    }
}

/// A scenario the tree could not run, for `--json`.
pub fn not_run_result(scenario: &Scenario, why: &str) -> results::Scenario {
    results::Scenario {
        name: scenario.name.into(),
        what: scenario.what.into(),
        verdict: ScenarioVerdict::NotRun,
        why: vec![why.to_owned()],
        cmdline: String::new(),
        reports: 0,
        frames: Vec::new(),
        proc_kallsyms_symbols: 0,
        missing_from_proc_kallsyms: Vec::new(),
        identity_matches: None,
        log: None,
    }
}
