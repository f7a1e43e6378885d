//! The crate graph, from rustc invocations. Pure: paths are resolved against the trees given,
//! nothing is read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use kbuild::RustBuild;

/// Sysroot crates: rust-analyzer loads them from `sysroot_src` and adds them as dependencies
/// itself (`core`, `alloc` and `std` to every crate, `proc_macro` to proc macros), which is what
/// makes it resolve inherent methods of primitive types (`<*mut u8>::add`).
const SYSROOT_CRATES: &[&str] = &["core", "alloc", "std", "proc_macro", "test"];

/// Where things are.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The kernel source tree.
    pub srctree: PathBuf,
    /// The kernel build tree; kbuild runs rustc here, so relative paths start here.
    pub objtree: PathBuf,
    /// The sources of the sysroot crates (`<sysroot>/lib/rustlib/src/rust/library`).
    pub sysroot_src: PathBuf,
}

/// Whose code a crate is, which decides whether rust-analyzer treats it as a workspace member
/// (diagnostics, `cfg(test)`, flycheck) or as a library it only reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The kernel's own code, or an external module's.
    Kernel,
    /// Third-party code kbuild vendors (`syn`, `zerocopy`): built with `--cap-lints=allow`,
    /// like a crates.io dependency in a Cargo workspace.
    Vendored,
}

/// One crate of the graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Crate {
    /// `--crate-name`.
    pub name: String,
    /// The crate root, absolute.
    pub root: PathBuf,
    /// `--edition`.
    pub edition: String,
    /// Command-line `--cfg`s.
    pub cfgs: Vec<String>,
    /// Response files whose `--cfg`s apply, by group name (the file's name: `rustc_cfg`).
    pub cfg_groups: Vec<String>,
    /// Dependencies: (index into [`Project::crates`], name).
    pub deps: Vec<(usize, String)>,
    /// Environment kbuild set (`OBJTREE`, `RUST_MODFILE`).
    pub env: BTreeMap<String, String>,
    /// Whether it is a proc macro.
    pub is_proc_macro: bool,
    /// The proc macro's built library, absolute.
    pub proc_macro_dylib: Option<PathBuf>,
    /// Directories whose files belong to the crate, when it includes generated sources.
    pub include_dirs: Vec<PathBuf>,
    /// `-Zcrate-attr` values.
    pub crate_attrs: Vec<String>,
    /// Built for the kernel (`--target=scripts/target.json`) rather than the host.
    pub kernel_target: bool,
    /// The target, when it is one of rustc's own (`aarch64-unknown-none-softfloat` on arm64),
    /// for rust-analyzer to take the target's cfgs (`target_arch`) from `rustc --print cfg`.
    /// x86-64's kernel target is a target specification file, which stable rustc does not
    /// print cfgs for: its crates keep the host's, which are x86-64's too.
    pub builtin_target: Option<String>,
    /// The kbuild target it came from (`rust/kernel.o`).
    pub kbuild_target: String,
    /// That target as a path in the tree it is built in (objtree, or the external module's).
    pub build_label: PathBuf,
    /// The kbuild file of its source directory (`Makefile` or `Kbuild`), else its root.
    pub build_file: PathBuf,
    /// A program (`--crate-type bin`) rather than a library.
    pub is_bin: bool,
    /// Whose code it is.
    pub origin: Origin,
}

/// The crate graph.
#[derive(Clone, Debug, Default)]
pub struct Project {
    /// Crates, dependencies before dependents.
    pub crates: Vec<Crate>,
    /// `--cfg` lists shared through response files, by group name (see [`group_name`]).
    pub cfg_groups: BTreeMap<String, Vec<String>>,
    /// What could not be resolved, for the user.
    pub warnings: Vec<String>,
    /// Crates left out because kbuild generated their root (the KUnit doctests).
    pub generated: Vec<String>,
    /// The kernel's own builds of sysroot crates (`core`): name → (edition, cfgs).
    pub sysroot_builds: BTreeMap<String, (String, Vec<String>)>,
    /// Crates left out because they are `make rusttest`'s host builds, by kbuild target.
    pub rusttest: Vec<String>,
}

/// Normalises `path` lexically (`a/./b/../c` → `a/c`), joined onto `base` when relative.
pub fn resolve(base: &Path, path: &str) -> PathBuf {
    let joined = base.join(path);
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The group name of a response file: its file name (`rustc_cfg`).
pub fn group_name(response_file: &str) -> String {
    response_file.rsplit('/').next().unwrap_or(response_file).to_owned()
}

/// Builds the graph from `builds`; `response_cfgs` maps each response file (as written) to its
/// `--cfg`s. `exists` says whether a file is there (stale `.cmd` files name removed sources).
pub fn build_project(
    layout: &Layout,
    builds: &[RustBuild],
    response_cfgs: &BTreeMap<String, Vec<String>>,
    exists: &dyn Fn(&Path) -> bool,
) -> Project {
    let mut project = Project::default();
    let crates: Vec<(&RustBuild, Crate)> = builds
        .iter()
        .filter_map(|build| {
            crate_of(layout, build, response_cfgs, exists, &mut project).map(|c| (build, c))
        })
        .collect();
    let edges = dependency_edges(&crates, &mut project.warnings);
    let order = dependencies_first(&crates, &edges).unwrap_or_else(|order| {
        project.warnings.push("the crate graph has a dependency cycle; order is arbitrary".into());
        order
    });
    let mut new_index = vec![0; crates.len()];
    for (new, &old) in order.iter().enumerate() {
        new_index[old] = new;
    }
    for &old in &order {
        let mut krate = crates[old].1.clone();
        krate.deps = edges[old].iter().map(|(d, name)| (new_index[*d], name.clone())).collect();
        project.crates.push(krate);
    }
    project
}

/// The crate one rustc invocation builds, or `None` when it is not one for the file: the
/// kernel's own build of a sysroot crate, a `make rusttest` build, a crate kbuild generated,
/// or a stale one (each noted in `project`).
fn crate_of(
    layout: &Layout,
    build: &RustBuild,
    response_cfgs: &BTreeMap<String, Vec<String>>,
    exists: &dyn Fn(&Path) -> bool,
    project: &mut Project,
) -> Option<Crate> {
    let inv = &build.invocation;
    // Where kbuild ran rustc, which relative paths start from: the objtree, or since 6.13
    // an external module's own directory.
    let rustc_dir = build.working_dir(&layout.objtree);
    let root = resolve(&rustc_dir, &inv.root);
    if root.starts_with(&layout.sysroot_src) {
        // The kernel's own build of `core` (or `alloc`): rust-analyzer's sysroot stands in,
        // with this build's edition and cfgs.
        project
            .sysroot_builds
            .insert(inv.crate_name.clone(), (inv.edition.clone(), inv.cfgs.clone()));
        return None;
    }
    if inv.is_rusttest() {
        // `make rusttest`'s host builds of the kernel's crates: a second `kernel` would
        // double what rust-analyzer loads, for code no module builds against.
        project.rusttest.push(build.target.clone());
        return None;
    }
    if kbuild::saved_cmd_of(&root).is_some_and(|cmd| exists(&cmd)) {
        // `rust/doctests_kernel_generated.rs`: its code is edited, and analysed by
        // rust-analyzer, where it comes from (the doc comments); upstream's script leaves
        // it out too.
        project.generated.push(inv.crate_name.clone());
        return None;
    }
    if !exists(&root) {
        project.warnings.push(format!(
            "{}: crate {} names {}, which no longer exists: the build is stale, rebuild with make",
            build.cmd_file.display(),
            inv.crate_name,
            root.display()
        ));
        return None;
    }
    let mut cfg_groups = Vec::new();
    for file in &inv.response_files {
        let name = group_name(file);
        match response_cfgs.get(file) {
            Some(cfgs) => {
                project.cfg_groups.entry(name.clone()).or_insert_with(|| cfgs.clone());
                cfg_groups.push(name);
            }
            None => project.warnings.push(format!(
                "{}: response file {file} could not be read; its cfgs are missing",
                build.cmd_file.display()
            )),
        }
    }
    let source_dir = root.parent().unwrap_or(Path::new("/"));
    let build_file = ["Makefile", "Kbuild"]
        .iter()
        .map(|f| source_dir.join(f))
        .find(|f| exists(f))
        .unwrap_or_else(|| root.clone());
    Some(Crate {
        name: inv.crate_name.clone(),
        include_dirs: include_dirs(layout, &root, inv.env.contains_key("OBJTREE")),
        root,
        edition: inv.edition.clone(),
        cfgs: inv.cfgs.clone(),
        cfg_groups,
        deps: Vec::new(),
        env: inv.env.clone(),
        is_proc_macro: inv.crate_type == "proc-macro",
        proc_macro_dylib: (inv.crate_type == "proc-macro")
            .then(|| inv.emit("link").map(|p| resolve(&rustc_dir, p)))
            .flatten(),
        crate_attrs: inv.crate_attrs.clone(),
        kernel_target: inv.is_kernel_target(),
        builtin_target: inv.target.clone().filter(|t| !t.ends_with(".json")),
        kbuild_target: build.target.clone(),
        build_label: rustc_dir.join(&build.target),
        build_file,
        is_bin: inv.crate_type == "bin",
        origin: if inv.is_vendored() { Origin::Vendored } else { Origin::Kernel },
    })
}

/// The directories whose files belong to the crate rooted at `root`: when it includes
/// generated files from the objtree (`bindings_generated.rs`, kbuild sets `OBJTREE` for it),
/// both its source directory and the matching objtree directory; else none beyond the root's.
fn include_dirs(layout: &Layout, root: &Path, includes_objtree: bool) -> Vec<PathBuf> {
    if !includes_objtree {
        return Vec::new();
    }
    let dir = root.parent().unwrap_or(Path::new("/")).to_owned();
    let mirror = dir
        .strip_prefix(&layout.srctree)
        .map(|rel| layout.objtree.join(rel))
        .unwrap_or_else(|_| dir.clone());
    let mut dirs = vec![dir];
    if !dirs.contains(&mirror) {
        dirs.push(mirror);
    }
    dirs
}

/// Each crate's dependencies (index into `crates`, name) from its `--extern`s, the sysroot's
/// left to rust-analyzer; a name built twice prefers the one for the same target.
fn dependency_edges(
    crates: &[(&RustBuild, Crate)],
    warnings: &mut Vec<String>,
) -> Vec<Vec<(usize, String)>> {
    let lookup = |name: &str, kernel_target: bool| -> Option<usize> {
        let named = || (0..crates.len()).filter(|&i| crates[i].1.name == name);
        named().find(|&i| crates[i].1.kernel_target == kernel_target).or_else(|| named().next())
    };
    let mut edges = Vec::new();
    for (build, krate) in crates {
        let mut deps = Vec::new();
        for name in &build.invocation.externs {
            if SYSROOT_CRATES.contains(&name.as_str()) {
                continue;
            }
            match lookup(name, krate.kernel_target) {
                Some(i) => deps.push((i, name.clone())),
                None => warnings.push(format!(
                    "{}: crate {} depends on {name}, which kbuild did not build in this tree",
                    build.cmd_file.display(),
                    krate.name
                )),
            }
        }
        edges.push(deps);
    }
    edges
}

/// The crates' indices, dependencies first (Kahn's algorithm), ties broken by kbuild target so
/// that the output is stable; `Err` with every index, the cycle's last, when there is a cycle.
fn dependencies_first(
    crates: &[(&RustBuild, Crate)],
    edges: &[Vec<(usize, String)>],
) -> Result<Vec<usize>, Vec<usize>> {
    let n = crates.len();
    let mut order = Vec::with_capacity(n);
    let mut placed = vec![false; n];
    let mut ready: BTreeSet<(String, usize)> = BTreeSet::new();
    let pending = |i: usize, placed: &[bool]| edges[i].iter().filter(|(d, _)| !placed[*d]).count();
    for (i, (_, krate)) in crates.iter().enumerate() {
        if pending(i, &placed) == 0 {
            ready.insert((krate.kbuild_target.clone(), i));
        }
    }
    while let Some((_, i)) = ready.pop_first() {
        if placed[i] {
            continue;
        }
        placed[i] = true;
        order.push(i);
        for j in 0..n {
            if !placed[j] && edges[j].iter().any(|(d, _)| *d == i) && pending(j, &placed) == 0 {
                ready.insert((crates[j].1.kbuild_target.clone(), j));
            }
        }
    }
    if order.len() < n {
        order.extend((0..n).filter(|i| !placed[*i]));
        return Err(order);
    }
    Ok(order)
}
