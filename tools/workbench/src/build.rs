//! Builds the objtree with kbuild, streaming its output to a log and a progress line.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use subprocess::Command;

use crate::{WorkbenchError, kernel_make};

/// How a build went.
#[derive(Clone, Debug)]
pub struct BuildReport {
    /// Whether `vmlinux` was relinked (false: kbuild found nothing to do).
    pub relinked: bool,
    /// Whether kbuild was not run at all: nothing it reads had changed since the last build
    /// that succeeded ([`kbuild_state`]).
    pub skipped: bool,
    /// The trees' [`kbuild_state`] now, after the build (`None` when it could not be taken):
    /// what the out-of-tree modules' builds depend on.
    pub state: Option<String>,
    /// The full build log.
    pub log: PathBuf,
}

/// Runs `make -jN` (all: `vmlinux`, `bzImage`, modules) in `objtree`, logging to `log`.
pub fn build(
    srctree: &Path,
    objtree: &Path,
    jobs: usize,
    log: &Path,
) -> Result<BuildReport, WorkbenchError> {
    build_with(srctree, objtree, jobs, &[], log)
}

/// [`build`] with more make variables (`CLIPPY=1`).
pub fn build_with(
    srctree: &Path,
    objtree: &Path,
    jobs: usize,
    vars: &[&str],
    log: &Path,
) -> Result<BuildReport, WorkbenchError> {
    let io = |path: &Path, source| WorkbenchError::Io { path: path.to_owned(), source };
    let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let vmlinux = objtree.join("vmlinux");
    let before: Option<SystemTime> = mtime(&vmlinux);

    if let Some(dir) = log.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    }
    let cmd = kernel_make(srctree, objtree)
        .arg(format!("-j{jobs}"))
        .args(vars)
        .timeout(Duration::from_secs(90 * 60))
        .capture_limit(1 << 20);
    // The trees' state after the last build that succeeded, beside its log (outside the trees).
    let stamp = log.with_extension("stamp");
    let state = || kbuild_state(&cmd, srctree, objtree);
    let now = if vmlinux.is_file() { state() } else { None };
    if let (Ok(recorded), Some(now)) = (std::fs::read_to_string(&stamp), &now)
        && recorded.trim() == now
    {
        let step = progress::start("building the kernel");
        step.done("nothing kbuild reads changed since the last build: kbuild not run");
        return Ok(BuildReport {
            relinked: false,
            skipped: true,
            state: Some(now.clone()),
            log: log.to_owned(),
        });
    }
    // A build that fails, or is killed, leaves no stamp.
    let _ = std::fs::remove_file(&stamp);
    let mut log_file = std::io::BufWriter::new(std::fs::File::create(log).map_err(|e| io(log, e))?);
    let step =
        progress::start(&format!("building the kernel (make -j{jobs} in {})", objtree.display()));
    eprintln!("    {cmd}");
    let out = cmd.run_with(&mut |_, line| {
        use std::io::Write;
        let _ = writeln!(log_file, "{line}");
        step.message(line.trim());
    });
    let out = out.and_then(|out| out.check(&cmd));
    match out {
        Ok(_) => {
            let relinked = mtime(&vmlinux) != before;
            step.done(if relinked { "vmlinux linked" } else { "vmlinux unchanged, not relinked" });
            let state = state();
            if let Some(state) = &state {
                report::write_atomically(&stamp, state).map_err(|e| io(&stamp, e))?;
            }
            Ok(BuildReport { relinked, skipped: false, state, log: log.to_owned() })
        }
        Err(e) => {
            step.failed();
            eprintln!("full build log: {}", log.display());
            Err(e.into())
        }
    }
}

/// Environment variables that differ from one shell, terminal or make invocation to the next
/// and that kbuild does not read: left out of [`kbuild_state`] so that `make demo` after
/// `make test` finds the same state. Every other variable counts, as kbuild may read it.
const VOLATILE_ENV: &[&str] = &[
    "_",
    "COLUMNS",
    "DISPLAY",
    "LINES",
    "MAKEFLAGS",
    "MAKELEVEL",
    "MAKEOVERRIDES",
    "MAKE_TERMERR",
    "MAKE_TERMOUT",
    "MFLAGS",
    "OLDPWD",
    "PWD",
    "SHLVL",
    "SSH_AUTH_SOCK",
    "SSH_CLIENT",
    "SSH_CONNECTION",
    "SSH_TTY",
    "STY",
    "TERM",
    "TMUX",
    "TMUX_PANE",
    "WINDOWID",
    subprocess::BOOTS_VAR,
    subprocess::TEST_VAR,
];

/// Whether kbuild would find anything to do in the trees, as a hash: the trees' times
/// ([`freshness::tree_times`]: make decides by times), make's command line, the environment
/// but [`VOLATILE_ENV`], `rustc -vV` (kbuild reconfigures when the Rust compiler's version
/// changes), and the size and time of the C compiler the tree was built with, its linker and
/// bindgen. `None` when a tree cannot be walked: then kbuild runs.
pub fn kbuild_state(cmd: &Command, srctree: &Path, objtree: &Path) -> Option<String> {
    let mut f = freshness::Fingerprint::new();
    f.add(&freshness::tree_times(&[srctree, objtree]).ok()?);
    f.add(&cmd.to_string());
    let mut env: Vec<(String, String)> = std::env::vars_os()
        .map(|(k, v)| (k.to_string_lossy().into_owned(), v.to_string_lossy().into_owned()))
        .filter(|(k, _)| !VOLATILE_ENV.contains(&k.as_str()))
        .collect();
    env.sort();
    for (key, value) in env {
        f.add(&key).add(&value);
    }
    let rustc = Command::new("rustc", objtree).arg("-vV").timeout(Duration::from_secs(60));
    f.add(&rustc.run_checked().ok()?.stdout);
    let cc = std::fs::read_to_string(objtree.join("init/.main.o.cmd"))
        .ok()
        .and_then(|text| kbuild::parse_cmd_file(&text))
        .and_then(|cmd| cmd.command.split_whitespace().next().map(str::to_owned))
        .unwrap_or_else(|| "gcc".to_owned());
    let ld = match cc.strip_suffix("gcc") {
        Some(prefix) => format!("{prefix}ld"),
        None => cc.replacen("clang", "ld.lld", 1),
    };
    for tool in [cc.as_str(), ld.as_str(), "bindgen"] {
        f.add(tool);
        match which(tool).and_then(|path| std::fs::metadata(&path).ok().map(|m| (path, m))) {
            Some((path, meta)) => {
                use std::os::unix::fs::MetadataExt;
                f.add(&format!(
                    "{} {} {}.{}",
                    path.display(),
                    meta.len(),
                    meta.mtime(),
                    meta.mtime_nsec()
                ))
            }
            None => f.add("absent"),
        };
    }
    Some(f.finish())
}

/// Where `PATH` finds `program` (itself when it names a path).
fn which(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        return Some(PathBuf::from(program));
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}
