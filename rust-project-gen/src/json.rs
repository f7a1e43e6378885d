//! The `rust-project.json` format, as rust-analyzer reads it, and the conversion from the
//! graph. Field order and sorted maps make the output deterministic.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::graph::{Origin, Project};
use crate::rust_analyzer::Features;
use crate::std_deps::StdDep;

/// The file.
#[derive(Serialize, Debug)]
pub struct ProjectJson {
    /// The toolchain's sysroot.
    pub sysroot: PathBuf,
    /// The sysroot's source root, with `sysroot_project`: `core`'s folder, as there. Without
    /// `sysroot_project` the file leaves it out, as upstream's does: given it, such a
    /// rust-analyzer loads the whole of `std`'s Cargo workspace (half as much memory again on
    /// the demo trees).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sysroot_src: Option<PathBuf>,
    /// The sysroot crates, when rust-analyzer takes them from the file: `core`, `alloc`, `std`
    /// and `proc_macro`, and of `std`'s own dependencies only those its public types are made
    /// of (rust-analyzer otherwise reads them all from the sources' `Cargo.toml`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sysroot_project: Option<SysrootProjectJson>,
    /// Shared cfg lists, by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub cfg_groups: BTreeMap<String, Vec<String>>,
    /// The crates.
    pub crates: Vec<CrateJson>,
    /// Commands rust-analyzer runs for a crate's `build.label`: the flycheck on save.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub runnables: Vec<RunnableJson>,
}

/// The sysroot as a project of its own.
#[derive(Serialize, Debug)]
pub struct SysrootProjectJson {
    /// The toolchain's sysroot.
    pub sysroot: PathBuf,
    /// Its source root: `core`'s folder (see `sysroot_source_root`).
    pub sysroot_src: PathBuf,
    /// `core`, `alloc`, `std`, `proc_macro`, then `std`'s crates.io dependencies.
    pub crates: Vec<CrateJson>,
}

/// The sysroot the file lists, each crate with its dependencies among them (indices): `core`
/// (as a sysroot crate it is what makes rust-analyzer find the inherent methods of primitive
/// types; an ordinary crate named `core`, as upstream's script lists it, does not), `alloc`,
/// and for host crates `std` and `proc_macro`. Not `test`, nor `std`'s own dependencies but
/// [`crate::std_deps::STD_DEPS`].
/// rust-analyzer gives `core`, `alloc` and `std` to every crate; giving `std` and `proc_macro`
/// to the host crates only, as ordinary crates, measured worse on 7.3 (3 errors where there
/// was 1, 5% more memory).
const SYSROOT_PROJECT: &[(&str, &[usize])] =
    &[("core", &[]), ("alloc", &[0]), ("std", &[0, 1]), ("proc_macro", &[0, 2])];
/// Indices into [`SYSROOT_PROJECT`].
const CORE: usize = 0;
const ALLOC: usize = 1;
const STD: usize = 2;

/// A crate of the Rust library, from `sysroot_src`, with the edition and cfgs of the kernel's
/// own `core` build (kbuild builds `core` with the edition the toolchain's library has); 2021
/// when the tree has none.
fn library_crate(
    name: &str,
    deps: Vec<DepJson>,
    project: &Project,
    sysroot_src: &Path,
) -> CrateJson {
    let (edition, core_cfgs) = project
        .sysroot_builds
        .get("core")
        .cloned()
        .unwrap_or_else(|| ("2021".to_owned(), Vec::new()));
    CrateJson {
        display_name: name.to_owned(),
        root_module: sysroot_src.join(name).join("src/lib.rs"),
        edition,
        // Host crates depend on the sysroot crates too: they keep the host's target.
        target: None,
        deps,
        cfg_groups: Vec::new(),
        cfg: if name == "core" { core_cfgs } else { Vec::new() },
        env: BTreeMap::new(),
        is_workspace_member: false,
        is_proc_macro: false,
        proc_macro_dylib_path: None,
        source: None,
        crate_attrs: Vec::new(),
        build: None,
    }
}

/// What the file gives as `sysroot_src` when it lists the sysroot crates itself: `core`'s
/// folder, not the whole library. rust-analyzer loads every Rust file under `sysroot_src` as
/// one more source root, beside each crate's own folder, which it loads anyway. Of the
/// library (34 MB of Rust in 1.95's `rust-src`: stdarch's generators and intrinsics, the
/// library's tests, `compiler-builtins`) the four crates read nothing more: a `#[path]`
/// module outside its crate's root, as `core::arch`'s intrinsics in stdarch are, is not
/// resolved either way. Loading it costs 21 MB on either demo tree, for the same analysis.
fn sysroot_source_root(sysroot_src: &Path) -> PathBuf {
    sysroot_src.join("core/src")
}

/// The sysroot crates, and after them `std_deps`, each depending on `core` and `alloc` (as
/// `std`'s build renames `rustc-std-workspace-core` and `-alloc`) and a dependency of `std`.
fn sysroot_project(
    project: &Project,
    sysroot: &Path,
    sysroot_src: &Path,
    std_deps: &[StdDep],
) -> SysrootProjectJson {
    let dep = |i: usize| DepJson { krate: i, name: SYSROOT_PROJECT[i].0.to_owned() };
    let mut crates: Vec<CrateJson> = SYSROOT_PROJECT
        .iter()
        .map(|(name, deps)| {
            library_crate(name, deps.iter().map(|&i| dep(i)).collect(), project, sysroot_src)
        })
        .collect();
    for std_dep in std_deps {
        let krate = crates.len();
        crates[STD].deps.push(DepJson { krate, name: std_dep.name.clone() });
        crates.push(CrateJson {
            display_name: std_dep.name.clone(),
            root_module: std_dep.root_module.clone(),
            edition: std_dep.edition.clone(),
            deps: vec![dep(CORE), dep(ALLOC)],
            cfg: std_dep.features.iter().map(|f| format!("feature=\"{f}\"")).collect(),
            ..library_crate(&std_dep.name, Vec::new(), project, sysroot_src)
        });
    }
    SysrootProjectJson {
        sysroot: sysroot.to_owned(),
        sysroot_src: sysroot_source_root(sysroot_src),
        crates,
    }
}

/// A command rust-analyzer runs, `{label}` replaced by a crate's build label.
#[derive(Serialize, Debug)]
pub struct RunnableJson {
    /// `flycheck`: run on save, its stdout read as rustc JSON diagnostics.
    pub kind: String,
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its working directory.
    pub cwd: PathBuf,
}

/// How a crate is built, for runnables.
#[derive(Serialize, Debug)]
pub struct BuildJson {
    /// The kbuild target, as an absolute path of the object (`$OBJTREE/rust/kernel.o`).
    pub label: PathBuf,
    /// The kbuild file of the crate's directory.
    pub build_file: PathBuf,
    /// `lib` or `bin`.
    pub target_kind: String,
}

/// One crate.
#[derive(Serialize, Debug)]
pub struct CrateJson {
    /// The crate's name, for display.
    pub display_name: String,
    /// The crate root.
    pub root_module: PathBuf,
    /// The edition.
    pub edition: String,
    /// The target triple, whose cfgs rust-analyzer adds (`target_arch = "aarch64"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Dependencies, by index.
    pub deps: Vec<DepJson>,
    /// Names of `cfg_groups` that apply.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cfg_groups: Vec<String>,
    /// The crate's own cfgs.
    pub cfg: Vec<String>,
    /// Environment for `env!`.
    pub env: BTreeMap<String, String>,
    /// Part of the project being edited (not a dependency from elsewhere).
    pub is_workspace_member: bool,
    /// A proc macro.
    pub is_proc_macro: bool,
    /// The proc macro's built library.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proc_macro_dylib_path: Option<PathBuf>,
    /// Which files belong to the crate, when not just its root's directory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<SourceJson>,
    /// Crate attributes given on the command line (`no_std`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub crate_attrs: Vec<String>,
    /// How kbuild builds it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub build: Option<BuildJson>,
}

/// A dependency.
#[derive(Serialize, Debug)]
pub struct DepJson {
    /// Index into `crates`.
    #[serde(rename = "crate")]
    pub krate: usize,
    /// The name it is imported under.
    pub name: String,
}

/// The files of a crate.
#[derive(Serialize, Debug)]
pub struct SourceJson {
    /// Directories whose files belong to the crate.
    pub include_dirs: Vec<PathBuf>,
    /// Directories whose files do not.
    pub exclude_dirs: Vec<PathBuf>,
}

/// The flycheck command: run for a crate's label when a file of it is saved.
#[derive(Clone, Debug)]
pub struct Flycheck {
    /// The `kbuild-flycheck` binary.
    pub program: PathBuf,
    /// Its arguments before the label.
    pub args: Vec<String>,
    /// Its working directory.
    pub cwd: PathBuf,
}

/// The sysroot crates listed as ordinary crates, for a rust-analyzer without
/// `sysroot_project`: first in the file, each with its dependencies among them; see
/// [`library_deps`] for who gets which.
const LIBRARY_CRATES: &[(&str, &[usize])] = SYSROOT_PROJECT;

/// The library crates (indices into [`LIBRARY_CRATES`]) a crate depends on when they are
/// ordinary crates: `core` for what kbuild builds for the kernel (which has no `alloc` or
/// `std`), all four for host crates (proc macros, host programs).
fn library_deps(c: &crate::graph::Crate) -> Vec<DepJson> {
    let wanted: &[usize] = if c.kernel_target { &[0] } else { &[0, 1, 2, 3] };
    wanted.iter().map(|&i| DepJson { krate: i, name: LIBRARY_CRATES[i].0.to_owned() }).collect()
}

/// The file for `project`, using what the installed rust-analyzer understands. Crates say how
/// kbuild builds them (`build`) when there is a check on save, which runs for their label, or
/// when `builds` asks for it (project discovery, which keys reloads on their build files).
pub fn to_json(
    project: &Project,
    sysroot: PathBuf,
    sysroot_src: PathBuf,
    std_deps: &[StdDep],
    features: Features,
    flycheck: Option<&Flycheck>,
    builds: bool,
) -> ProjectJson {
    let flycheck = flycheck.filter(|_| features.flycheck_runnables);
    // Without `sysroot_project`, the library crates come first and the rest move up.
    let (mut crates, offset) = if features.sysroot_project {
        (Vec::new(), 0)
    } else {
        let library = LIBRARY_CRATES
            .iter()
            .map(|(name, deps)| {
                let deps = deps
                    .iter()
                    .map(|&i| DepJson { krate: i, name: LIBRARY_CRATES[i].0.to_owned() })
                    .collect();
                library_crate(name, deps, project, &sysroot_src)
            })
            .collect();
        (library, LIBRARY_CRATES.len())
    };
    crates.extend(project.crates.iter().map(|c| {
        let (cfg_groups, mut cfg) = if features.cfg_groups {
            (c.cfg_groups.clone(), c.cfgs.clone())
        } else {
            let mut cfg = c.cfgs.clone();
            for group in &c.cfg_groups {
                cfg.extend(project.cfg_groups.get(group).into_iter().flatten().cloned());
            }
            (Vec::new(), cfg)
        };
        cfg.dedup();
        let mut deps = if features.sysroot_project { Vec::new() } else { library_deps(c) };
        deps.extend(
            c.deps.iter().map(|(i, name)| DepJson { krate: i + offset, name: name.clone() }),
        );
        CrateJson {
            display_name: c.name.clone(),
            root_module: c.root.clone(),
            edition: c.edition.clone(),
            target: c.builtin_target.clone(),
            deps,
            cfg_groups,
            cfg,
            env: c.env.clone(),
            is_workspace_member: c.origin == Origin::Kernel,
            is_proc_macro: c.is_proc_macro,
            proc_macro_dylib_path: c.proc_macro_dylib.clone(),
            source: (!c.include_dirs.is_empty()).then(|| SourceJson {
                include_dirs: c.include_dirs.clone(),
                exclude_dirs: Vec::new(),
            }),
            crate_attrs: if features.crate_attrs { c.crate_attrs.clone() } else { Vec::new() },
            build: (flycheck.is_some() || builds).then(|| BuildJson {
                label: c.build_label.clone(),
                build_file: c.build_file.clone(),
                target_kind: if c.is_bin { "bin" } else { "lib" }.to_owned(),
            }),
        }
    }));
    let sysroot_project = features.sysroot_project.then(|| {
        let std_deps = if features.gives_std_deps() { std_deps } else { &[] };
        sysroot_project(project, &sysroot, &sysroot_src, std_deps)
    });
    ProjectJson {
        // The same source root as the sysroot project's.
        sysroot_src: sysroot_project.as_ref().map(|p| p.sysroot_src.clone()),
        sysroot_project,
        sysroot,
        cfg_groups: if features.cfg_groups { project.cfg_groups.clone() } else { BTreeMap::new() },
        crates,
        runnables: flycheck
            .map(|f| RunnableJson {
                kind: "flycheck".to_owned(),
                program: f.program.clone(),
                args: f.args.iter().cloned().chain(["{label}".to_owned()]).collect(),
                cwd: f.cwd.clone(),
            })
            .into_iter()
            .collect(),
    }
}

/// Pretty JSON with a final newline.
pub fn render(json: &ProjectJson) -> String {
    let mut text = serde_json::to_string_pretty(json).expect("plain data always serialises");
    text.push('\n');
    text
}
