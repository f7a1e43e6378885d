//! From trees on disk to the text of `rust-project.json`, and writing it safely.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use kbuild::{Objtree, RustBuild, Srctree};

use crate::graph::{Layout, Project, build_project};
use crate::guess;
use crate::json::{Flycheck, render, to_json};
use crate::rust_analyzer::Features;
use crate::std_deps::{STD_DEPS, StdDep, locked_version, std_dep};
use crate::store;

/// The trees, as kbuild's `make rust-analyzer` passes them to the upstream script.
#[derive(Clone, Debug)]
pub struct Trees {
    /// The kernel source tree.
    pub srctree: PathBuf,
    /// The kernel build tree.
    pub objtree: PathBuf,
    /// The toolchain's sysroot (`rustc --print sysroot`).
    pub sysroot: PathBuf,
    /// Its sources (`<sysroot>/lib/rustlib/src/rust/library`, from the `rust-src` component).
    pub sysroot_src: PathBuf,
    /// An external module's directory (`M=`), if the file is for one.
    pub exttree: Option<PathBuf>,
    /// Cargo's home (`$CARGO_HOME`, or `~/.cargo`), whose registry holds the sources of
    /// `std`'s crates.io dependencies ([`STD_DEPS`]); `None` leaves them out.
    pub cargo_home: Option<PathBuf>,
    /// Where the last scan of each tree is kept ([`crate::store`]); `None` reads every `.cmd`
    /// file.
    pub store: Option<PathBuf>,
}

/// A generated crate graph and what went into it.
#[derive(Debug)]
pub struct Output {
    /// The graph.
    pub project: Project,
    /// Problems found on the way (bad `.cmd` files, stale entries, unresolved dependencies):
    /// the graph is partial when there are any.
    pub problems: Vec<String>,
    /// How many `.cmd` files were read.
    pub cmd_files: usize,
    /// How many of them were unchanged since the last run's scan ([`crate::store`]).
    pub unchanged: usize,
    /// The crates guessed from Makefiles because the tree is not built (empty when it is).
    pub guessed: Vec<String>,
    /// The sysroot and its sources.
    pub sysroot: (PathBuf, PathBuf),
    /// `std`'s crates.io dependencies found in cargo's registry.
    pub std_deps: Vec<StdDep>,
    /// What the file lacks without being partial: each of [`STD_DEPS`] not found, and what to
    /// run for it.
    pub notes: Vec<String>,
}

impl Output {
    /// The text of `rust-project.json`, with what the installed rust-analyzer understands.
    pub fn text(&self, features: Features, flycheck: Option<&Flycheck>) -> String {
        let (sysroot, sysroot_src) = self.sysroot.clone();
        render(&to_json(
            &self.project,
            sysroot,
            sysroot_src,
            &self.std_deps,
            features,
            flycheck,
            false,
        ))
    }

    /// The file as rust-analyzer's project discovery gives it ([`crate::discover`]): each
    /// kernel crate's build file is the objtree's `include/generated/utsversion.h`, which kbuild
    /// rewrites at each link of `vmlinux`, and an external module's crate keeps its `Kbuild` or
    /// `Makefile`. rust-analyzer watches those files and, when one named in the editor's
    /// `filesToWatch` changes, asks again for the project.
    pub fn discover_json(
        &self,
        features: Features,
        flycheck: Option<&Flycheck>,
        located: &crate::discover::Located,
    ) -> serde_json::Value {
        let (sysroot, sysroot_src) = self.sysroot.clone();
        let mut json =
            to_json(&self.project, sysroot, sysroot_src, &self.std_deps, features, flycheck, true);
        let stamp = located.objtree.join(crate::discover::KERNEL_BUILD_STAMP);
        for build in json.crates.iter_mut().filter_map(|c| c.build.as_mut()) {
            let of_module =
                located.exttree.as_ref().is_some_and(|m| build.build_file.starts_with(m));
            if !of_module {
                build.build_file = stamp.clone();
            }
        }
        serde_json::to_value(&json).expect("plain data always serialises")
    }

    /// What to warn of for the file written with `features`: the problems, and what `std`'s
    /// dependencies lack when the file gives them.
    pub fn warnings(&self, features: Features) -> impl Iterator<Item = &String> {
        let notes = if features.gives_std_deps() { self.notes.as_slice() } else { &[] };
        self.problems.iter().chain(notes)
    }
}

/// Why no file could be generated.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// The trees are not usable.
    #[error(transparent)]
    Tree(#[from] kbuild::TreeError),
    /// The sysroot sources are missing.
    #[error(
        "{} does not exist: install the Rust sources with `rustup component add rust-src` (`make setup` does)",
        .0.display()
    )]
    NoSysrootSrc(PathBuf),
    /// The tree is configured but has no rustc invocations.
    #[error(
        "no rustc invocation in the .cmd files of {}: the tree is configured but not built; build it with `make -C {} O={} -j$(nproc)` (rust-project-gen reads what kbuild ran)",
        dir.display(), srctree.display(), objtree.display()
    )]
    NotBuilt {
        /// Where we looked.
        dir: PathBuf,
        /// The srctree.
        srctree: PathBuf,
        /// The objtree.
        objtree: PathBuf,
    },
    /// A directory could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The directory.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
}

/// Cargo's home, as cargo finds it: `$CARGO_HOME`, or `.cargo` in the home directory.
pub fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .filter(|home| !home.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::home_dir().map(|home| home.join(".cargo")))
}

/// Builds the crate graph for `trees`.
///
/// The objtree's `.config` and `std`'s manifests are read on one other thread while the
/// objtree is scanned (once it is known to be configured: no other folder is walked). One
/// thread, not one each: a thread's start, its malloc arena and its end cost about what
/// either read does.
pub fn generate(trees: &Trees) -> Result<Output, GenerateError> {
    let srctree = Srctree::open(&trees.srctree)?;
    let configured = trees.objtree.join(".config").is_file();
    let store = trees.store.as_deref();
    let (scan, (objtree, (std_deps, notes))) = std::thread::scope(|s| {
        let beside = s.spawn(|| {
            let objtree = Objtree::open(&srctree, &trees.objtree);
            let std_deps = match &trees.cargo_home {
                Some(cargo_home) => find_std_deps(&trees.sysroot_src, cargo_home),
                None => (Vec::new(), Vec::new()),
            };
            (objtree, std_deps)
        });
        let scan = configured.then(|| store::scan(store, &trees.objtree));
        (scan, beside.join().expect("reading .config and std's manifests does not panic"))
    });
    let objtree = objtree?;
    if !trees.sysroot_src.join("core/src/lib.rs").is_file() {
        return Err(GenerateError::NoSysrootSrc(trees.sysroot_src.clone()));
    }
    let read_error = |path: &Path| {
        let path = path.to_owned();
        move |source| GenerateError::Read { path, source }
    };
    // `.config` came between the two looks: the tree is scanned now.
    let scan = scan.unwrap_or_else(|| store::scan(store, &objtree.path));
    let mut scan = scan.map_err(read_error(&objtree.path))?;
    let (mut cmd_files, mut unchanged) = (scan.cmd_files, scan.unchanged);
    let not_built = |dir: &Path| GenerateError::NotBuilt {
        dir: dir.to_owned(),
        srctree: srctree.path.clone(),
        objtree: objtree.path.clone(),
    };
    let mut guessed = Vec::new();
    if scan.builds.is_empty() {
        if trees.exttree.is_some() {
            return Err(not_built(&objtree.path));
        }
        scan.builds = guess_builds(&srctree.path, &objtree);
        guessed = scan.builds.iter().map(|b| b.invocation.crate_name.clone()).collect();
        if scan.builds.is_empty() {
            return Err(not_built(&objtree.path));
        }
    }
    if let Some(exttree) = &trees.exttree {
        // An external module sees the kernel's own crates, not the in-tree modules.
        scan.builds.retain(|b| b.target.starts_with("rust/"));
        let ext = store::scan(store, exttree).map_err(read_error(exttree))?;
        if ext.builds.is_empty() {
            return Err(not_built(exttree));
        }
        cmd_files += ext.cmd_files;
        unchanged += ext.unchanged;
        scan.builds.extend(ext.builds);
        scan.problems.extend(ext.problems);
    }

    let mut response_cfgs = BTreeMap::new();
    for file in scan.builds.iter().flat_map(|b| &b.invocation.response_files) {
        if !response_cfgs.contains_key(file)
            && let Ok(text) = std::fs::read_to_string(objtree.path.join(file))
        {
            response_cfgs.insert(file.clone(), kbuild::response_file_cfgs(&text));
        }
    }
    if !guessed.is_empty() && !response_cfgs.contains_key(guess::RUSTC_CFG) {
        // Not even `make prepare` ran: the cfgs come from .config as kbuild would write them.
        response_cfgs.insert(guess::RUSTC_CFG.to_owned(), guess::config_cfgs(&objtree.config));
    }
    let layout = Layout {
        srctree: srctree.path.clone(),
        objtree: objtree.path.clone(),
        sysroot_src: trees.sysroot_src.clone(),
    };
    let project = build_project(&layout, &scan.builds, &response_cfgs, &|p| p.exists());
    let mut problems: Vec<String> =
        scan.problems.iter().map(|p| format!("{}: {}", p.path.display(), p.message)).collect();
    problems.extend(project.warnings.iter().cloned());
    let sysroot = (trees.sysroot.clone(), trees.sysroot_src.clone());
    Ok(Output { project, problems, cmd_files, unchanged, guessed, sysroot, std_deps, notes })
}

/// Each of [`STD_DEPS`] at the version `sysroot_src/Cargo.lock` pins, from cargo's registry
/// sources under `cargo_home`; a note for each one not there, naming the command that fetches
/// it.
fn find_std_deps(sysroot_src: &Path, cargo_home: &Path) -> (Vec<StdDep>, Vec<String>) {
    let lock_path = sysroot_src.join("Cargo.lock");
    let std_path = sysroot_src.join("std/Cargo.toml");
    let registry = cargo_home.join("registry/src");
    let fetch = format!(
        "fetch it with `RUSTC_BOOTSTRAP=1 cargo fetch --locked --manifest-path {}` (`make setup` does)",
        sysroot_src.join("Cargo.toml").display()
    );
    let mut found = Vec::new();
    let mut notes = Vec::new();
    let read = |path: &Path| {
        std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    };
    let (lock, std_manifest) = match (read(&lock_path), read(&std_path)) {
        (Ok(lock), Ok(std_manifest)) => (lock, std_manifest),
        (Err(e), _) | (_, Err(e)) => {
            notes.push(format!("std's dependencies ({}) left out: {e}", STD_DEPS.join(", ")));
            return (found, notes);
        }
    };
    let mut indexes: Vec<PathBuf> = std::fs::read_dir(&registry)
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .collect();
    indexes.sort();
    for &name in STD_DEPS {
        let version = match locked_version(&lock, name) {
            Ok(version) => version,
            Err(e) => {
                notes.push(format!("std's {name} left out: {}: {e}", lock_path.display()));
                continue;
            }
        };
        let dir = format!("{name}-{version}");
        let Some(root) = indexes.iter().map(|index| index.join(&dir)).find(|d| d.is_dir()) else {
            notes.push(format!(
                "std's {name} {version} is not in cargo's registry ({}/*/{dir}), so a recent rust-analyzer cannot infer `HashMap::new()` in host crates: {fetch}",
                registry.display()
            ));
            continue;
        };
        let dep = read(&root.join("Cargo.toml")).and_then(|manifest| {
            std_dep(name, root.join("src/lib.rs"), &std_manifest, &manifest)
                .map_err(|e| format!("{}: {e}", root.join("Cargo.toml").display()))
        });
        match dep {
            Ok(dep) => found.push(dep),
            Err(e) => notes.push(format!("std's {name} left out: {e}")),
        }
    }
    (found, notes)
}

/// Guesses the invocations of a configured tree that was never built: the kernel's crates,
/// and each `.rs` file under `samples/` and `drivers/` that a Makefile builds under an option
/// the `.config` enables.
fn guess_builds(srctree: &Path, objtree: &Objtree) -> Vec<RustBuild> {
    let mut builds = guess::kernel_crates(srctree, &objtree.path, &|p| p.exists());
    let mut stack: Vec<PathBuf> = ["samples", "drivers"].iter().map(|d| srctree.join(d)).collect();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut stems = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                stems.push(path.file_stem().unwrap_or_default().to_string_lossy().into_owned());
            }
        }
        if stems.is_empty() {
            continue;
        }
        let makefiles: String = ["Makefile", "Kbuild"]
            .iter()
            .filter_map(|f| std::fs::read_to_string(dir.join(f)).ok())
            .collect();
        let rel_dir = dir.strip_prefix(srctree).unwrap_or(&dir).display().to_string();
        stems.sort();
        for stem in stems {
            let value = guess::option_for(&makefiles, &stem)
                .and_then(|o| objtree.config.get(&o).map(str::to_owned));
            if let Some(value @ ("y" | "m")) = value.as_deref() {
                builds.push(guess::module_crate(srctree, &objtree.path, &rel_dir, &stem, value));
            }
        }
    }
    builds
}
