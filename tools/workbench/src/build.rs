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
    let recorded = std::fs::read_to_string(&stamp).ok();
    if let (Some(recorded), Some(now)) = (&recorded, &now)
        && *recorded == now.text()
    {
        let step = progress::start("building the kernel");
        step.done("nothing kbuild reads changed since the last build: kbuild not run");
        return Ok(BuildReport {
            relinked: false,
            skipped: true,
            state: Some(now.id()),
            log: log.to_owned(),
        });
    }
    // A build that fails, or is killed, leaves no stamp.
    let _ = std::fs::remove_file(&stamp);
    let mut log_file = std::io::BufWriter::new(std::fs::File::create(log).map_err(|e| io(log, e))?);
    let step =
        progress::start(&format!("building the kernel (make -j{jobs} in {})", objtree.display()));
    eprintln!("    {cmd}");
    match (&recorded, &now) {
        (Some(recorded), Some(now)) if recorded.contains('\t') => {
            let changed = now.changed_since(recorded);
            eprintln!("    changed since the last build: {}", describe_changes(&changed));
        }
        (_, Some(_)) => eprintln!("    no record of a build that succeeded"),
        (_, None) => {}
    }
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
                report::write_atomically(&stamp, state.text()).map_err(|e| io(&stamp, e))?;
            }
            let state = state.map(|s| s.id());
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

/// What kbuild reads of the trees and of the machine, in named parts ([`kbuild_state`]): while
/// every part is as it was right after a build that succeeded, kbuild would find nothing to do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KbuildState {
    /// Each part's name (`times of objtree/rust`, `env PATH`, `rustc -vV`) and a hash of it:
    /// values are not kept, the environment's among them.
    parts: Vec<(String, String)>,
}

impl KbuildState {
    fn add(&mut self, name: impl Into<String>, value: &str) {
        self.parts.push((name.into(), freshness::sha256(value.as_bytes())));
    }

    /// The state as kept beside the build log: one line per part, its name and hash.
    pub fn text(&self) -> String {
        self.parts.iter().map(|(name, hash)| format!("{name}\t{hash}\n")).collect()
    }

    /// One hash of the whole state.
    pub fn id(&self) -> String {
        freshness::sha256(self.text().as_bytes())
    }

    /// The names of the parts that differ from `recorded`, a [`KbuildState::text`] kept before:
    /// changed, new or gone, in this state's order and then the gone ones'.
    pub fn changed_since(&self, recorded: &str) -> Vec<String> {
        let before: Vec<(&str, &str)> =
            recorded.lines().filter_map(|line| line.rsplit_once('\t')).collect();
        let mut changed: Vec<String> = self
            .parts
            .iter()
            .filter(|(name, hash)| !before.contains(&(name.as_str(), hash.as_str())))
            .map(|(name, _)| name.clone())
            .collect();
        changed.extend(
            before
                .iter()
                .filter(|(name, _)| !self.parts.iter().any(|(n, _)| n == name))
                .map(|(name, _)| format!("{name} (gone)")),
        );
        changed
    }
}

/// Says which parts of the state changed since the last build, at most a few of them.
fn describe_changes(changed: &[String]) -> String {
    const SHOWN: usize = 6;
    let mut text = changed.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
    if changed.len() > SHOWN {
        text += &format!(" and {} more", changed.len() - SHOWN);
    }
    text
}

/// Whether kbuild would find anything to do in the trees: the trees' times
/// ([`freshness::tree_times_parts`]: make decides by times), make's command line, the
/// environment but [`VOLATILE_ENV`], `rustc -vV` (kbuild reconfigures when the Rust compiler's
/// version changes), and the size and time of the C compiler the tree was built with, its linker
/// and bindgen. `None` when a tree cannot be walked: then kbuild runs.
pub fn kbuild_state(cmd: &Command, srctree: &Path, objtree: &Path) -> Option<KbuildState> {
    let mut state = KbuildState::default();
    for (root, name) in [(srctree, "srctree"), (objtree, "objtree")] {
        for (part, hash) in freshness::tree_times_parts(&[root]).ok()? {
            let rel = part.strip_prefix(root).unwrap_or(&part);
            let part = if rel.as_os_str().is_empty() {
                name.to_owned()
            } else {
                format!("{name}/{}", rel.display())
            };
            state.parts.push((format!("times of {part}"), hash));
        }
    }
    state.add("make's command", &cmd.to_string());
    let mut env: Vec<(String, String)> = std::env::vars_os()
        .map(|(k, v)| (k.to_string_lossy().into_owned(), v.to_string_lossy().into_owned()))
        .filter(|(k, _)| !VOLATILE_ENV.contains(&k.as_str()))
        .collect();
    env.sort();
    for (key, value) in env {
        state.add(format!("env {key}"), &value);
    }
    let rustc = Command::new("rustc", objtree).arg("-vV").timeout(Duration::from_secs(60));
    state.add("rustc -vV", &rustc.run_checked().ok()?.stdout);
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
        let found = match which(tool)
            .and_then(|path| std::fs::metadata(&path).ok().map(|m| (path, m)))
        {
            Some((path, meta)) => {
                use std::os::unix::fs::MetadataExt;
                format!("{} {} {}.{}", path.display(), meta.len(), meta.mtime(), meta.mtime_nsec())
            }
            None => "absent".to_owned(),
        };
        state.add(format!("tool {tool}"), &found);
    }
    Some(state)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_state_names_what_changed_since_the_one_recorded() {
        let state = |parts: &[(&str, &str)]| {
            let mut state = KbuildState::default();
            for (name, value) in parts {
                state.add(*name, value);
            }
            state
        };
        let built =
            state(&[("times of objtree/rust", "1"), ("env PATH", "/bin"), ("env LLVM", "1")]);
        assert_eq!(built.changed_since(&built.text()), Vec::<String>::new());
        let now =
            state(&[("times of objtree/rust", "2"), ("env PATH", "/bin"), ("env KERNEL", "6.12")]);
        assert_eq!(
            now.changed_since(&built.text()),
            ["times of objtree/rust", "env KERNEL", "env LLVM (gone)"]
        );
        assert_ne!(now.id(), built.id());
        assert!(!built.text().contains("/bin"), "values are kept only as hashes");
        assert_eq!(
            describe_changes(&(1..=8).map(|i| format!("env V{i}")).collect::<Vec<_>>()),
            "env V1, env V2, env V3, env V4, env V5, env V6 and 2 more"
        );
    }
}
