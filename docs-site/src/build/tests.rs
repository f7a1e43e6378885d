//! Tests of the dependency lists rustdoc writes.

use expect_test::expect;

use super::*;

#[test]
fn dep_info_lists_each_input_once_in_order() {
    let text = "/w/crates/kernel/deps.d: /src/rust/kernel/lib.rs /src/rust/kernel/alloc.rs \\\n  ./rust/libbindings.rmeta my\\ file.rs\n\n/src/rust/kernel/lib.rs:\n/src/rust/kernel/alloc.rs:\n";
    expect![[r#"
        [
            "/src/rust/kernel/lib.rs",
            "/src/rust/kernel/alloc.rs",
            "./rust/libbindings.rmeta",
            "my file.rs",
        ]
    "#]]
    .assert_debug_eq(&dep_info_inputs(text));
}

/// A `core` job as kbuild's flags give it, run in `objtree` with these configuration cfgs and
/// this target specification.
fn core_job(objtree: &Path, cfgs: &str, target: &str) -> Job {
    std::fs::create_dir_all(objtree.join("include/generated")).unwrap();
    std::fs::create_dir_all(objtree.join("scripts")).unwrap();
    std::fs::write(objtree.join("include/generated/rustc_cfg"), cfgs).unwrap();
    std::fs::write(objtree.join("scripts/target.json"), target).unwrap();
    Job {
        name: "core".into(),
        kind: crate::plan::Kind::Library,
        target: "rust/core.o".into(),
        root: "library/core/src/lib.rs".into(),
        edition: "2024".into(),
        deps: Vec::new(),
        cwd: objtree.to_owned(),
        env: [("OBJTREE".to_owned(), objtree.display().to_string())].into(),
        args: ["--target=./scripts/target.json", "@./include/generated/rustc_cfg", "-L./rust"]
            .map(str::to_owned)
            .to_vec(),
    }
}

fn config(work: &Path, srctree: &Path, local: &[&str]) -> BuildConfig {
    BuildConfig {
        work: work.to_owned(),
        rustdoc: "rustdoc".into(),
        rustdoc_version: "rustdoc 1.95.0".into(),
        srctree: srctree.to_owned(),
        srctree_links: html::SrctreeLinks::SourceView,
        site_crates: local.iter().map(|c| (*c).to_owned()).collect(),
        upstream: html::UpstreamDocs {
            base: "https://doc.rust-lang.org/1.95.0/".into(),
            local: local.iter().map(|c| (*c).to_owned()).collect(),
        },
        jobs: 1,
        timeout: Duration::from_secs(60),
        shared: None,
    }
}

#[test]
fn core_is_shared_by_trees_that_differ_in_paths_configuration_and_kernel_crates() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("6.12"), dir.path().join("7.3"));
    let target = r#"{"arch": "x86_64"}"#;
    let job_a = core_job(&a.join("objtree"), "--cfg=CONFIG_SMP\n", target);
    let job_b = core_job(&b.join("objtree"), "--cfg=CONFIG_RUST\n--cfg=CONFIG_X=\"y\"\n", target);
    let config_a = config(&a.join("work"), &a.join("srctree"), &["core", "kernel"]);
    let config_b = config(&b.join("work"), &b.join("srctree"), &["core", "kernel", "pin_init"]);
    let (key_a, needs_proof) = shared_key(&job_a, &config_a).unwrap();
    assert!(needs_proof, "the configuration's cfgs were left out of the key");
    assert_eq!(shared_key(&job_b, &config_b).unwrap().0, key_a);

    // Another target, a cfg that is not the configuration's, or alloc in the site: another key.
    let other = core_job(&b.join("objtree"), "--cfg=CONFIG_RUST\n", r#"{"arch": "aarch64"}"#);
    assert_ne!(shared_key(&other, &config_b).unwrap().0, key_a);
    let other = core_job(&b.join("objtree"), "--cfg=no_fp_fmt_parse\n", target);
    assert_eq!(
        shared_key(&other, &config_b),
        Some((shared_key(&other, &config_b).unwrap().0, false))
    );
    assert_ne!(shared_key(&other, &config_b).unwrap().0, key_a);
    let with_alloc = config(&b.join("work"), &b.join("srctree"), &["alloc", "core", "kernel"]);
    assert_ne!(shared_key(&job_b, &with_alloc).unwrap().0, key_a);

    // The tree's own crates are never shared.
    let kernel = Job { name: "kernel".into(), kind: crate::plan::Kind::Kernel, ..job_a.clone() };
    assert_eq!(shared_key(&kernel, &config_a), None);
    let alloc = Job { name: "alloc".into(), deps: vec!["core".into()], ..job_a };
    assert_eq!(shared_key(&alloc, &config_a), None);
}

/// A crate's work folder as a successful run leaves it, having read `inputs`.
fn documented(dir: &Path, inputs: &[&Path]) {
    std::fs::create_dir_all(dir.join("out/core")).unwrap();
    std::fs::create_dir_all(dir.join("parts")).unwrap();
    std::fs::write(dir.join("out/core/index.html"), "<title>core</title>").unwrap();
    for file in SHARED_FILES {
        std::fs::write(dir.join(file), "").unwrap();
    }
    let inputs = inputs.iter().map(|p| input(p).unwrap()).collect();
    let stamp = Stamp { fingerprint: "tree a".into(), inputs };
    std::fs::write(dir.join("stamp.json"), serde_json::to_string(&stamp).unwrap()).unwrap();
}

#[test]
fn shared_documentation_is_taken_only_while_its_inputs_hold_and_never_names_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let job = core_job(&root.join("objtree"), "--cfg=CONFIG_SMP\n", "{}");
    let config = config(&root.join("work"), &root.join("srctree"), &["core"]);
    let key = shared_key(&job, &config).unwrap();
    let store = root.join("shared");
    let source = root.join("library/core/src/lib.rs");
    std::fs::create_dir_all(source.parent().unwrap()).unwrap();

    // Sources that name a configuration option are not shared under a key that left it out.
    std::fs::write(&source, "#[cfg(CONFIG_SMP)] pub fn smp() {}").unwrap();
    let (first, second) = (root.join("work/crates/core"), root.join("other/crates/core"));
    documented(&first, &[&source]);
    let refused = share(&store, &key, &job, &config, &first).unwrap_err();
    assert!(refused.contains("names a CONFIG_ option"), "{refused}");
    assert!(take_shared(&store, &key.0, &job, &second, "tree b").is_err(), "nothing there");

    std::fs::write(&source, "//! The Rust core library.").unwrap();
    documented(&first, &[&source]);
    share(&store, &key, &job, &config, &first).unwrap();
    take_shared(&store, &key.0, &job, &second, "tree b").unwrap();
    assert_eq!(
        std::fs::read_to_string(second.join("out/core/index.html")).unwrap(),
        "<title>core</title>"
    );
    assert!(is_fresh(&second, "tree b"), "the taken copy carries this tree's fingerprint");

    // A changed input leaves the entry in the store unused.
    std::fs::write(&source, "//! The Rust core library, changed.").unwrap();
    let third = root.join("third/crates/core");
    assert!(take_shared(&store, &key.0, &job, &third, "tree c").is_err());
    assert!(!third.join("out").exists());
}

/// The longest jobs start first, whatever their place in the plan, so that none is left to
/// run alone at the end; the small ones keep the plan's order.
#[test]
fn the_longest_crates_are_documented_first() {
    let dir = tempfile::tempdir().unwrap();
    let core = core_job(dir.path(), "", "{}");
    let job = |name: &str, kind| Job { name: name.into(), kind, ..core.clone() };
    use crate::plan::Kind::{External, Kernel, Module};
    let plan = [
        job("build_error", Kernel),
        job("bindings", Kernel),
        job("kernel", Kernel),
        job("rust_minimal", Module),
        job("rust_out_of_tree", External),
        job("uapi", Kernel),
        core.clone(),
        job("zerocopy", Kernel),
    ];
    let mut started = Mutex::new(Vec::new());
    run_jobs(
        &plan,
        1,
        start_order,
        &|job: &Job| started.lock().unwrap().push(job.name.clone()),
        &|_| {},
    );
    expect_test::expect![[r#"
        [
            "core",
            "bindings",
            "uapi",
            "kernel",
            "build_error",
            "rust_minimal",
            "rust_out_of_tree",
            "zerocopy",
        ]
    "#]]
    .assert_debug_eq(started.get_mut().unwrap());
}
