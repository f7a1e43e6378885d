//! Boots a kernel in QEMU, the machine of its architecture ([`kbuild::Arch`]), and reports what
//! happened.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use subprocess::{Command, Stream};

use crate::console::{Console, parse_console};

/// How many console lines [`Boot::tail`] keeps.
const TAIL_LINES: usize = 30;

/// Which accelerator QEMU uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Accel {
    /// KVM when `/dev/kvm` can be opened for reading and writing, TCG otherwise.
    Auto,
    /// KVM, or an error when it is not usable.
    Kvm,
    /// TCG, QEMU's software emulation.
    Tcg,
}

/// How to boot.
#[derive(Clone, Debug)]
pub struct BootConfig {
    /// The kernel's architecture: QEMU's program, machine, CPU and console.
    pub arch: kbuild::Arch,
    /// The QEMU binary.
    pub qemu: PathBuf,
    /// The kernel image (`arch/x86/boot/bzImage`, `arch/arm64/boot/Image`).
    pub kernel: PathBuf,
    /// The initramfs (see [`crate::write_initramfs`]).
    pub initramfs: PathBuf,
    /// Kernel command-line arguments added after the runner's own
    /// (`console=ttyS0 panic=-1 rdinit=/init`, the architecture's console); a later argument
    /// wins.
    pub append: String,
    /// Guest memory.
    pub memory_mib: u32,
    /// The accelerator.
    pub accel: Accel,
    /// The hard limit for the whole boot; QEMU is killed when it passes.
    pub timeout: Duration,
    /// Where the serial console is written, line by line as it arrives.
    pub log: PathBuf,
}

impl BootConfig {
    /// Defaults: the architecture's QEMU (`qemu-system-x86_64`) from `PATH`, 512 MiB, KVM if
    /// usable, two minutes.
    pub fn new(arch: &kbuild::Arch, kernel: &Path, initramfs: &Path, log: &Path) -> BootConfig {
        BootConfig {
            arch: arch.clone(),
            qemu: PathBuf::from(&arch.qemu),
            kernel: kernel.to_owned(),
            initramfs: initramfs.to_owned(),
            append: String::new(),
            memory_mib: 512,
            accel: Accel::Auto,
            timeout: Duration::from_secs(120),
            log: log.to_owned(),
        }
    }
}

/// What a boot did.
#[derive(Clone, Debug, Serialize)]
pub struct Boot {
    /// `kvm` or `tcg`.
    pub accel: &'static str,
    /// Why TCG was used although `/dev/kvm` exists, if it was.
    pub accel_note: Option<String>,
    /// The whole kernel command line.
    pub cmdline: String,
    /// What the console showed.
    pub console: Console,
    /// The timeout passed and QEMU was killed.
    pub timed_out: bool,
    /// How QEMU ended ("exit status 0", "killed by signal 9").
    pub qemu_status: String,
    /// QEMU exited with status 0 (the guest rebooted, which `-no-reboot` turns into an exit).
    pub qemu_ok: bool,
    /// The full console log.
    pub log: PathBuf,
    /// Wall time of the boot.
    pub elapsed_secs: f64,
    /// The last lines of the console (and QEMU's own messages).
    pub tail: Vec<String>,
}

/// How a boot ended, from worst to best.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// The kernel panicked.
    Panicked,
    /// The timeout passed.
    TimedOut,
    /// QEMU itself failed (bad kernel image, bad option).
    QemuFailed,
    /// QEMU exited before `/init` ran.
    NeverReachedInit,
    /// `/init` started but did not get through its steps.
    InitDidNotFinish,
    /// `/init` ran every step and the guest rebooted.
    Completed,
}

impl Boot {
    /// How the boot ended.
    pub fn outcome(&self) -> Outcome {
        if self.console.panic.is_some() {
            Outcome::Panicked
        } else if self.timed_out {
            Outcome::TimedOut
        } else if !self.qemu_ok && !self.console.reached_init {
            Outcome::QemuFailed
        } else if !self.console.reached_init {
            Outcome::NeverReachedInit
        } else if !self.console.finished {
            Outcome::InitDidNotFinish
        } else {
            Outcome::Completed
        }
    }

    /// Each step's command, exit code and output, for people: `commands` are the guest's steps,
    /// every line is indented by `indent`.
    pub fn transcript(&self, commands: &[String], indent: &str) -> String {
        let mut out = String::new();
        for (command, step) in commands.iter().zip(&self.console.steps) {
            let code = step.exit_code.map_or("did not end".to_owned(), |c| format!("exit {c}"));
            out += &format!("{indent}$ {command}  [{code}]\n");
            for line in &step.lines {
                out += &format!("{indent}    {line}\n");
            }
        }
        out
    }

    /// One line saying how the boot ended, for people.
    pub fn describe(&self) -> String {
        let secs = self.elapsed_secs;
        match self.outcome() {
            Outcome::Completed => format!(
                "booted ({}) and ran {} steps in {secs:.1}s",
                self.accel,
                self.console.steps.len()
            ),
            Outcome::Panicked => format!(
                "kernel panicked after {secs:.1}s: {}",
                self.console.panic.as_deref().unwrap_or_default()
            ),
            Outcome::TimedOut => format!(
                "timed out after {secs:.1}s ({}) and QEMU was killed",
                if self.console.reached_init { "in /init" } else { "before /init" }
            ),
            Outcome::QemuFailed => {
                format!("QEMU failed ({}) before the kernel ran /init", self.qemu_status)
            }
            Outcome::NeverReachedInit => format!(
                "the kernel never reached /init (QEMU {} after {secs:.1}s; is busybox static and the kernel built with BLK_DEV_INITRD?)",
                self.qemu_status
            ),
            Outcome::InitDidNotFinish => format!(
                "/init stopped before its last step (QEMU {} after {secs:.1}s)",
                self.qemu_status
            ),
        }
    }
}

/// Why QEMU could not be started at all.
#[derive(Debug, thiserror::Error)]
pub enum BootError {
    /// An input file is missing.
    #[error("{what} {} does not exist{hint}", path.display())]
    MissingInput {
        /// "kernel image" or "initramfs".
        what: &'static str,
        /// The path.
        path: PathBuf,
        /// What to do about it.
        hint: &'static str,
    },
    /// KVM was asked for and cannot be used.
    #[error(
        "KVM was requested but /dev/kvm cannot be opened read-write ({0}): use --accel tcg or auto"
    )]
    NoKvm(std::io::Error),
    /// KVM was asked for a kernel of another architecture than the machine's.
    #[error(
        "KVM was requested for an {0} kernel, which KVM cannot run on this machine: use --accel tcg or auto"
    )]
    ForeignKvm(String),
    /// The console log cannot be written.
    #[error("cannot write the console log {}: {source}", path.display())]
    Log {
        /// The log path.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// QEMU could not be run.
    #[error(transparent)]
    Run(#[from] subprocess::Error),
    /// The initramfs could not be made.
    #[error(transparent)]
    Initramfs(#[from] crate::InitramfsError),
}

/// Whether KVM can be used here: `/dev/kvm` opens for reading and writing.
pub fn kvm_usable() -> Result<(), std::io::Error> {
    std::fs::OpenOptions::new().read(true).write(true).open("/dev/kvm").map(drop)
}

/// The kernel command line for `append`, with the console `console` (`ttyS0`).
pub fn cmdline(console: &str, append: &str) -> String {
    let mut cmdline = format!("console={console} panic=-1 rdinit=/init");
    if !append.trim().is_empty() {
        cmdline.push(' ');
        cmdline.push_str(append.trim());
    }
    cmdline
}

/// Packs `guest` into `dir/initramfs.cpio` and boots `kernel`, of `arch`, with it, logging the
/// console to `dir/console.log`; `configure` adjusts the defaults of [`BootConfig::new`]
/// (timeout, command line, accelerator).
pub fn boot_guest(
    arch: &kbuild::Arch,
    kernel: &Path,
    guest: &crate::Guest,
    dir: &Path,
    configure: impl FnOnce(&mut BootConfig),
    on_line: &mut dyn FnMut(&str),
) -> Result<Boot, BootError> {
    let initramfs = dir.join("initramfs.cpio");
    crate::write_initramfs(guest, &initramfs)?;
    let mut config = BootConfig::new(arch, kernel, &initramfs, &dir.join("console.log"));
    configure(&mut config);
    boot(&config, on_line)
}

/// The statically linked busybox the guest of `arch` runs: the machine's own (Debian's
/// busybox-static, `/bin/busybox`) for its own architecture; for another, Debian's
/// busybox-static of that architecture, which `make kernel ARCH=...` unpacks in the suite's
/// cache (`packages/busybox-static-arm64/bin/busybox`).
pub fn guest_busybox(arch: &kbuild::Arch) -> PathBuf {
    if arch.is_host() {
        return PathBuf::from("/bin/busybox");
    }
    let cache = kvm_verdict::suite_cache()
        .unwrap_or_else(|| PathBuf::from("/nonexistent/rust-kernel-tools"));
    foreign_busybox(&cache, arch)
}

/// Where Debian's busybox-static of `arch` is unpacked in the suite's `cache`.
pub fn foreign_busybox(cache: &Path, arch: &kbuild::Arch) -> PathBuf {
    cache.join(format!("packages/busybox-static-{}/bin/busybox", arch.debian))
}

/// How long a KVM boot may stay silent before KVM is judged unusable (a TCG boot prints its
/// first line within a second).
const KVM_PROBE: Duration = Duration::from_secs(20);

/// Under `make test` (`subprocess::BOOTS_VAR` names a file), adds a line naming the test this
/// boot is for, so that `make test` counts the tests that boot a kernel. A line is one short
/// append, whole even when tests boot at once; a file that cannot be written loses the count,
/// not the boot.
fn record_boot() {
    let Some(path) = std::env::var_os(subprocess::BOOTS_VAR) else { return };
    let line = format!("{}\n", subprocess::test_identity());
    let file = std::fs::OpenOptions::new().create(true).append(true).open(&path);
    if let Err(e) = file.and_then(|mut f| f.write_all(line.as_bytes())) {
        eprintln!("qemu: cannot record the boot in {}: {e}", Path::new(&path).display());
    }
}

/// Boots, calling `on_line` with each console line as it arrives, and waits for QEMU to end.
///
/// With [`Accel::Auto`], KVM is used when `/dev/kvm` opens and KVM has not failed
/// [`kvm_verdict::GIVE_UP_AFTER`] boots in a row on this machine since it booted; a KVM boot that
/// prints nothing, or that QEMU aborts before the kernel prints anything (nested virtualisation
/// can do either), is retried under TCG and counted in the suite's cache (see [`kvm_verdict`]).
pub fn boot(config: &BootConfig, on_line: &mut dyn FnMut(&str)) -> Result<Boot, BootError> {
    for (what, path, hint) in [
        ("kernel image", &config.kernel, " (build the kernel first: `make kernel`)"),
        ("initramfs", &config.initramfs, ""),
    ] {
        if !path.is_file() {
            return Err(BootError::MissingInput { what, path: path.clone(), hint });
        }
    }
    let mut accel_note = None;
    let mut kvm = match config.accel {
        Accel::Tcg => false,
        Accel::Kvm if !config.arch.is_host() => {
            return Err(BootError::ForeignKvm(config.arch.name.clone()));
        }
        Accel::Kvm => {
            kvm_usable().map_err(BootError::NoKvm)?;
            true
        }
        // KVM runs only kernels of the machine's own architecture.
        Accel::Auto if !config.arch.is_host() => false,
        Accel::Auto => match kvm_usable() {
            Err(_) => false,
            Ok(()) => match kvm_verdict::given_up() {
                Some(why) => {
                    accel_note = Some(format!("KVM is unusable on this machine ({why}): used TCG"));
                    false
                }
                None => true,
            },
        },
    };
    if kvm && config.accel == Accel::Auto {
        let attempt = run_qemu(config, true, Some(KVM_PROBE), on_line)?;
        let broken = if attempt.output.silent {
            Some(format!("a KVM boot printed nothing within {}s", KVM_PROBE.as_secs()))
        } else if attempt.console.is_empty() && !attempt.output.success() {
            Some(format!(
                "QEMU with KVM failed with {} before the kernel printed anything",
                subprocess::describe_status(attempt.output.status)
            ))
        } else {
            None
        };
        match broken {
            None => {
                kvm_verdict::record(&kvm_verdict::Attempt::Printed);
                return Ok(attempt.into_boot(config, true, None));
            }
            Some(broken) => {
                kvm_verdict::record(&kvm_verdict::Attempt::Failed(broken.clone()));
                kvm = false;
                accel_note = Some(format!("KVM failed on this boot ({broken}): used TCG"));
            }
        }
    }
    let attempt = run_qemu(config, kvm, None, on_line)?;
    Ok(attempt.into_boot(config, kvm, accel_note))
}

/// One run of QEMU.
struct Attempt {
    output: subprocess::Output,
    console: String,
    cmdline: String,
    tail: Vec<String>,
}

impl Attempt {
    fn into_boot(self, config: &BootConfig, kvm: bool, accel_note: Option<String>) -> Boot {
        Boot {
            accel: if kvm { "kvm" } else { "tcg" },
            accel_note,
            cmdline: self.cmdline,
            console: parse_console(&self.console),
            timed_out: self.output.timed_out,
            qemu_status: subprocess::describe_status(self.output.status),
            qemu_ok: self.output.success(),
            log: config.log.clone(),
            elapsed_secs: self.output.elapsed.as_secs_f64(),
            tail: self.tail,
        }
    }
}

fn run_qemu(
    config: &BootConfig,
    kvm: bool,
    first_output_timeout: Option<Duration>,
    on_line: &mut dyn FnMut(&str),
) -> Result<Attempt, BootError> {
    let log_error = |source| BootError::Log { path: config.log.clone(), source };
    let mut log = BufWriter::new(File::create(&config.log).map_err(log_error)?);

    let arch = &config.arch;
    let cmdline = cmdline(&arch.console, &config.append);
    let cwd = config.log.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut cmd = Command::new(&config.qemu, cwd)
        .args(["-nodefaults", "-no-reboot", "-display", "none", "-serial", "stdio"])
        // The architecture's machine (x86-64's has no PS/2 controller: see its arch.conf).
        .args(["-machine", &arch.qemu_machine])
        .args(["-monitor", "none", "-smp", "1", "-m", &config.memory_mib.to_string()])
        // QEMU runs in the log's folder: a path relative to ours would not be found there.
        .arg("-kernel")
        .arg(std::path::absolute(&config.kernel).unwrap_or_else(|_| config.kernel.clone()))
        .arg("-initrd")
        .arg(std::path::absolute(&config.initramfs).unwrap_or_else(|_| config.initramfs.clone()))
        .arg("-append")
        .arg(&cmdline)
        .timeout(config.timeout)
        .capture_limit(64 << 10)
        // QEMU's serial port waits while the pipe is full, and the guest's console, polling it,
        // gives up after 10 ms and drops characters: a whole boot's console fits in 1 MiB.
        .pipe_capacity(1 << 20);
    cmd = match (kvm, &arch.qemu_cpu) {
        (true, _) => cmd.args(["-accel", "kvm", "-cpu", "host"]),
        (false, Some(cpu)) => cmd.args(["-accel", "tcg", "-cpu", cpu]),
        (false, None) => cmd.args(["-accel", "tcg"]),
    };
    if let Some(t) = first_output_timeout {
        cmd = cmd.first_output_timeout(t);
    }

    let mut console = String::new();
    let mut tail = VecDeque::new();
    let mut write_error = None;
    let output = cmd.run_with(&mut |stream, line| {
        if stream == Stream::Stdout {
            console.push_str(line);
            console.push('\n');
            on_line(line);
        }
        if let Err(e) = writeln!(log, "{line}").and_then(|()| log.flush()) {
            write_error.get_or_insert(e);
        }
        if tail.len() == TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(line.to_owned());
    })?;
    // QEMU ran (it did not fail to start).
    record_boot();
    if let Some(e) = write_error {
        return Err(log_error(e));
    }
    Ok(Attempt { output, console, cmdline, tail: tail.into() })
}

/// What this machine's KVM has been seen to do since it booted, kept in the suite's cache so
/// that every process (each test, each CLI run) learns it once.
///
/// One silent boot may just be a slow one (a loaded host, a first boot that faults in a large
/// guest): KVM is only given up after [`kvm_verdict::GIVE_UP_AFTER`] failed KVM boots in a row,
/// and a KVM boot that prints starts the count again. The count belongs to one host boot (its
/// `boot_id`): a reboot, maybe with another kernel or module options, tries KVM afresh.
pub mod kvm_verdict {
    use std::io::Write;
    use std::path::{Path, PathBuf};

    use serde::{Deserialize, Serialize};

    /// The environment variable through which the Makefile passes its `CACHE`.
    pub use freshness::CACHE_ENV;

    /// How many failed KVM boots in a row make KVM unusable until the host reboots.
    pub const GIVE_UP_AFTER: u32 = 2;

    /// The file, in the cache's `qemu/` folder.
    const FILE: &str = "kvm-verdict.json";

    /// What KVM has done on one host boot.
    #[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
    pub struct State {
        /// The host's `/proc/sys/kernel/random/boot_id`.
        pub boot_id: String,
        /// Failed KVM boots since the last one that printed.
        pub failures_in_a_row: u32,
        /// Why the last KVM boot failed, if one did since the last that printed.
        pub last_failure: Option<String>,
    }

    /// What one KVM boot did.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub enum Attempt {
        /// The kernel printed: KVM works.
        Printed,
        /// It printed nothing in time, or QEMU failed before it did; the reason.
        Failed(String),
    }

    impl State {
        /// Why KVM is not to be tried, if it has failed often enough on this host boot.
        pub fn given_up(&self, boot_id: &str) -> Option<String> {
            (self.boot_id == boot_id && self.failures_in_a_row >= GIVE_UP_AFTER).then(|| {
                format!(
                    "{} KVM boots in a row failed since the host booted, the last: {}",
                    self.failures_in_a_row,
                    self.last_failure.as_deref().unwrap_or("no reason recorded")
                )
            })
        }

        /// The state after `attempt` on host boot `boot_id`: what an earlier host boot saw
        /// is forgotten.
        pub fn after(&self, boot_id: &str, attempt: &Attempt) -> State {
            let failures = if self.boot_id == boot_id { self.failures_in_a_row } else { 0 };
            match attempt {
                Attempt::Printed => {
                    State { boot_id: boot_id.to_owned(), failures_in_a_row: 0, last_failure: None }
                }
                Attempt::Failed(why) => State {
                    boot_id: boot_id.to_owned(),
                    failures_in_a_row: failures.saturating_add(1),
                    last_failure: Some(why.clone()),
                },
            }
        }
    }

    /// The suite's cache ([`freshness::suite_cache`]).
    pub use freshness::suite_cache;

    /// Where the state of this host is kept, and its boot id.
    fn here() -> Option<(PathBuf, String)> {
        let boot_id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
        Some((suite_cache()?.join("qemu"), boot_id.trim().to_owned()))
    }

    /// The state kept in `dir`; the default when there is none or it cannot be read.
    pub fn load(dir: &Path) -> State {
        std::fs::read_to_string(dir.join(FILE))
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or_default()
    }

    /// Replaces the state kept in `dir` at once (a temporary file beside it, renamed over it),
    /// so that a reader sees the old state or the new one.
    pub fn store(dir: &Path, state: &State) -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
        serde_json::to_writer_pretty(&mut tmp, state)?;
        tmp.write_all(b"\n")?;
        tmp.persist(dir.join(FILE)).map_err(|e| e.error)?;
        Ok(())
    }

    /// Why KVM is not to be tried on this host boot, if it has failed often enough.
    pub(super) fn given_up() -> Option<String> {
        let (dir, boot_id) = here()?;
        load(&dir).given_up(&boot_id)
    }

    /// Records what a KVM boot did; a state that cannot be kept only costs a later boot a probe.
    pub(super) fn record(attempt: &Attempt) {
        let Some((dir, boot_id)) = here() else { return };
        let old = load(&dir);
        let new = old.after(&boot_id, attempt);
        if new != old {
            let _ = store(&dir, &new);
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        const BOOT: &str = "554e12b0-9e38-4093-bc40-e3f1d2e2d98d";

        fn silent() -> Attempt {
            Attempt::Failed("a KVM boot printed nothing within 20s".to_owned())
        }

        /// Found when one slow boot on a loaded host turned KVM off until the host rebooted.
        #[test]
        fn one_silent_boot_does_not_give_up_on_kvm() {
            let state = State::default().after(BOOT, &silent());
            assert_eq!(state.failures_in_a_row, 1);
            assert_eq!(state.given_up(BOOT), None);
        }

        #[test]
        fn two_silent_boots_in_a_row_give_up_until_the_host_reboots() {
            let state = State::default().after(BOOT, &silent()).after(BOOT, &silent());
            assert_eq!(
                state.given_up(BOOT).as_deref(),
                Some(
                    "2 KVM boots in a row failed since the host booted, the last: \
                     a KVM boot printed nothing within 20s"
                )
            );
            assert_eq!(state.given_up("another-boot"), None);
        }

        #[test]
        fn a_boot_that_printed_starts_the_count_again() {
            let state = State::default()
                .after(BOOT, &silent())
                .after(BOOT, &Attempt::Printed)
                .after(BOOT, &silent());
            assert_eq!(state.failures_in_a_row, 1);
            assert_eq!(state.given_up(BOOT), None);
            let printed = state.after(BOOT, &Attempt::Printed);
            assert_eq!(
                printed,
                State { boot_id: BOOT.to_owned(), failures_in_a_row: 0, last_failure: None }
            );
        }

        #[test]
        fn an_earlier_host_boots_failures_are_forgotten() {
            let old = State::default().after("old", &silent()).after("old", &silent());
            assert!(old.given_up("old").is_some());
            let state = old.after(BOOT, &silent());
            assert_eq!(state.failures_in_a_row, 1);
            assert_eq!(state.given_up(BOOT), None);
        }

        #[test]
        fn the_state_is_kept_in_the_cache_and_replaced_whole() {
            let cache = tempfile::tempdir().unwrap();
            let dir = cache.path().join("qemu");
            assert_eq!(load(&dir), State::default());
            let state = State::default().after(BOOT, &silent());
            store(&dir, &state).unwrap();
            assert_eq!(load(&dir), state);
            let state = state.after(BOOT, &silent());
            store(&dir, &state).unwrap();
            assert_eq!(load(&dir), state);
            // Only the state file is left: the temporary one was renamed over it.
            let names: Vec<_> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect();
            assert_eq!(names, [FILE]);
        }

        #[test]
        fn a_symlink_in_place_of_the_state_is_replaced_not_followed() {
            let cache = tempfile::tempdir().unwrap();
            let victim = cache.path().join("victim");
            std::fs::write(&victim, "precious").unwrap();
            let dir = cache.path().join("qemu");
            std::fs::create_dir(&dir).unwrap();
            std::os::unix::fs::symlink(&victim, dir.join(FILE)).unwrap();
            store(&dir, &State::default().after(BOOT, &silent())).unwrap();
            assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
            assert!(!dir.join(FILE).is_symlink());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcript_of_steps() {
        let console = crate::parse_console(
            "@@qemu-runner: init@@\n@@qemu-runner: step 0 begin@@\nhello\n@@qemu-runner: step 0 end 0@@\n\
             @@qemu-runner: step 1 begin@@\n",
        );
        let boot = Boot {
            accel: "tcg",
            accel_note: None,
            cmdline: cmdline("ttyS0", ""),
            console,
            timed_out: true,
            qemu_status: "killed by signal 9".to_owned(),
            qemu_ok: false,
            log: PathBuf::from("console.log"),
            elapsed_secs: 1.0,
            tail: Vec::new(),
        };
        let commands = ["echo hello".to_owned(), "sleep 600".to_owned()];
        assert_eq!(
            boot.transcript(&commands, "  "),
            "  $ echo hello  [exit 0]\n      hello\n  $ sleep 600  [did not end]\n"
        );
    }

    #[test]
    fn later_arguments_follow_the_runners_own() {
        assert_eq!(cmdline("ttyS0", ""), "console=ttyS0 panic=-1 rdinit=/init");
        assert_eq!(
            cmdline("ttyAMA0", " rdinit=/nope "),
            "console=ttyAMA0 panic=-1 rdinit=/init rdinit=/nope"
        );
    }

    #[test]
    fn missing_qemu_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let kernel = dir.path().join("bzImage");
        std::fs::write(&kernel, b"").unwrap();
        let mut config =
            BootConfig::new(&x86_64(), &kernel, &kernel, &dir.path().join("console.log"));
        config.qemu = PathBuf::from("qemu-system-nonexistent");
        let err = boot(&config, &mut |_| {}).unwrap_err().to_string();
        assert!(err.starts_with("cannot run `qemu-system-nonexistent -nodefaults"), "{err}");
        assert!(err.ends_with("No such file or directory (os error 2) (is it installed? `make setup` installs what the suite needs)"), "{err}");
    }

    #[test]
    fn missing_kernel_says_to_build_it() {
        let dir = tempfile::tempdir().unwrap();
        let config = BootConfig::new(
            &x86_64(),
            &dir.path().join("bzImage"),
            dir.path(),
            &dir.path().join("log"),
        );
        let err = boot(&config, &mut |_| {}).unwrap_err().to_string();
        assert!(
            err.ends_with("bzImage does not exist (build the kernel first: `make kernel`)"),
            "{err}"
        );
    }

    #[test]
    fn qemu_rejects_a_file_that_is_no_kernel() {
        let dir = tempfile::tempdir().unwrap();
        let kernel = dir.path().join("not-a-kernel");
        std::fs::write(&kernel, b"this is not a bzImage").unwrap();
        let mut config =
            BootConfig::new(&x86_64(), &kernel, &kernel, &dir.path().join("console.log"));
        config.accel = Accel::Tcg;
        config.timeout = Duration::from_secs(30);
        let boot = boot(&config, &mut |_| {}).unwrap();
        assert_eq!(boot.outcome(), Outcome::QemuFailed, "{boot:#?}");
        assert!(boot.tail.iter().any(|l| l.contains("kernel")), "{:?}", boot.tail);
        assert!(boot.describe().starts_with("QEMU failed (exit status 1)"), "{}", boot.describe());
    }

    #[test]
    fn kvm_is_not_asked_of_another_architecture() {
        let dir = tempfile::tempdir().unwrap();
        let kernel = dir.path().join("Image");
        std::fs::write(&kernel, b"").unwrap();
        let arm64 = kbuild::arch::named("arm64").unwrap();
        let mut config = BootConfig::new(&arm64, &kernel, &kernel, &dir.path().join("log"));
        config.accel = Accel::Kvm;
        let err = boot(&config, &mut |_| {}).unwrap_err().to_string();
        assert_eq!(
            err,
            "KVM was requested for an arm64 kernel, which KVM cannot run on this machine: use --accel tcg or auto"
        );
        assert_eq!(config.qemu, PathBuf::from("qemu-system-aarch64"));
    }

    #[test]
    fn a_foreign_guest_runs_debians_busybox_of_its_architecture() {
        let arm64 = kbuild::arch::named("arm64").unwrap();
        assert_eq!(
            foreign_busybox(Path::new("/cache"), &arm64),
            Path::new("/cache/packages/busybox-static-arm64/bin/busybox")
        );
        assert_eq!(guest_busybox(&x86_64()), Path::new("/bin/busybox"));
    }

    fn x86_64() -> kbuild::Arch {
        kbuild::arch::named("x86_64").unwrap()
    }
}
