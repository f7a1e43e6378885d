//! Tests of finding a file's kernel build, on directories laid out here.

use std::path::{Path, PathBuf};

use expect_test::{Expect, expect};

use super::*;

fn check_argument(arg: &str, expect: Expect) {
    let got = match parse_argument(arg) {
        Ok(a) => format!("{a:?}"),
        Err(e) => format!("error: {e}"),
    };
    expect.assert_eq(&got);
}

#[test]
fn arguments_as_rust_analyzer_gives_them_or_a_bare_path() {
    check_argument(
        r#"{"path":"/src/rust/kernel/lib.rs"}"#,
        expect![[r#"Path("/src/rust/kernel/lib.rs")"#]],
    );
    check_argument(r#"{"buildfile":"/m/Kbuild"}"#, expect![[r#"Buildfile("/m/Kbuild")"#]]);
    check_argument(
        "samples/rust/rust_minimal.rs",
        expect![[r#"Path("samples/rust/rust_minimal.rs")"#]],
    );
    check_argument(
        r#"{"file":"/x.rs"}"#,
        expect![[
            r#"error: cannot read the argument "{\"file\":\"/x.rs\"}" (unknown variant `file`, expected `path` or `buildfile` at line 1 column 7): give {"path": FILE}, {"buildfile": FILE} or a path"#
        ]],
    );
}

#[test]
fn messages_are_rust_analyzers_json_lines() {
    let lines = [
        Message::Progress { message: "scanning".into() },
        Message::Error { error: "no kernel".into(), source: Some("/x.rs".into()) },
        Message::Finished {
            buildfile: "/obj/.config".into(),
            project: serde_json::json!({ "crates": [] }),
        },
    ];
    let text: Vec<String> = lines.iter().map(Message::to_line).collect();
    expect![[r#"
        {"kind":"progress","message":"scanning"}
        {"kind":"error","error":"no kernel","source":"/x.rs"}
        {"kind":"finished","buildfile":"/obj/.config","project":{"crates":[]}}"#]]
    .assert_eq(&text.join("\n"));
}

#[test]
fn the_objtree_list_takes_a_path_a_line() {
    let list = parse_objtree_list("# my builds\n/k/obj-x86\n\n  /k/obj-arm64  # arm64\n");
    assert_eq!(list, [PathBuf::from("/k/obj-x86"), PathBuf::from("/k/obj-arm64")]);
}

/// Directories laid out for [`locate`]: a source tree, and build trees and modules made on
/// demand.
struct Layout {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Layout {
    fn new() -> Layout {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let layout = Layout { _dir: dir, root };
        layout.file("src/Makefile", "VERSION = 7\nPATCHLEVEL = 3\nSUBLEVEL = 4\n");
        layout.file("src/Kbuild", "");
        layout.file("src/rust/kernel/lib.rs", "");
        layout.file("src/samples/rust/rust_minimal.rs", "");
        // A Kbuild inside the kernel's own tree is not an external module's.
        layout.file("src/drivers/gpu/drm/Kbuild", "obj-m += x.o\n");
        layout.file("src/drivers/gpu/drm/x.rs", "");
        layout
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn file(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// A configured build tree of `src` at `rel`.
    fn objtree(&self, rel: &str) -> PathBuf {
        self.file(&format!("{rel}/.config"), "CONFIG_RUST=y\n");
        std::fs::create_dir_all(self.path(&format!("{rel}/include/generated"))).unwrap();
        std::os::unix::fs::symlink(self.path("src"), self.path(&format!("{rel}/source"))).unwrap();
        self.path(rel)
    }

    /// What [`locate`] says of `rel`, with paths relative to the layout.
    fn locate(&self, rel: &str, hints: &Hints) -> String {
        let short = |p: &Path| {
            p.strip_prefix(&self.root).map_or(p.display().to_string(), |r| r.display().to_string())
        };
        match locate(&self.path(rel), hints) {
            Ok(l) => format!(
                "srctree {}, objtree {}, exttree {}, buildfile {} ({})",
                short(&l.srctree),
                short(&l.objtree),
                l.exttree.as_deref().map_or("-".into(), short),
                short(&l.buildfile),
                l.how.replace(&self.root.display().to_string(), "")
            ),
            Err(e) => {
                format!("error: {}", e.to_string().replace(&self.root.display().to_string(), ""))
            }
        }
    }
}

#[test]
fn a_source_tree_without_a_known_build_says_how_to_make_one_known() {
    let layout = Layout::new();
    let hints = Hints { list_file: Some("/cfg/objtrees".into()), ..Hints::default() };
    expect![[r#"error: /src is not built in place and no build tree of it is known: build it (make -C /src O=DIR LLVM=1 ...; make -C DIR), then set KBUILD_OUTPUT=DIR for the editor or add DIR to /cfg/objtrees"#]]
    .assert_eq(&layout.locate("src/rust/kernel/lib.rs", &hints));
}

#[test]
fn a_source_file_finds_its_o_build_by_kbuild_output_or_the_list() {
    let layout = Layout::new();
    let obj = layout.objtree("obj");
    let by_env = Hints { kbuild_output: Some(obj.clone()), ..Hints::default() };
    expect![[r#"srctree src, objtree obj, exttree -, buildfile obj/.config (KBUILD_OUTPUT)"#]]
        .assert_eq(&layout.locate("src/samples/rust/rust_minimal.rs", &by_env));
    let listed = Hints {
        known_objtrees: vec![layout.path("elsewhere"), obj],
        list_file: Some("/cfg/objtrees".into()),
        ..Hints::default()
    };
    expect![[
        r#"srctree src, objtree obj, exttree -, buildfile obj/.config (listed in /cfg/objtrees)"#
    ]]
    .assert_eq(&layout.locate("src/drivers/gpu/drm/x.rs", &listed));

    let second = layout.objtree("obj-llvm");
    let both = Hints { known_objtrees: vec![layout.path("obj"), second], ..Hints::default() };
    expect![[r#"error: /src has 2 known build trees (/obj, /obj-llvm): set KBUILD_OUTPUT to the one the editor is for"#]]
    .assert_eq(&layout.locate("src/rust/kernel/lib.rs", &both));
}

#[test]
fn a_file_of_a_build_tree_or_an_in_place_build_needs_no_hint() {
    let layout = Layout::new();
    layout.objtree("obj");
    layout.file("obj/rust/bindings/bindings_generated.rs", "");
    expect![[r#"srctree src, objtree obj, exttree -, buildfile obj/.config (the build tree /obj holds the file)"#]]
        .assert_eq(&layout.locate("obj/rust/bindings/bindings_generated.rs", &Hints::default()));
    layout.file("src/.config", "CONFIG_RUST=y\n");
    std::fs::create_dir_all(layout.path("src/include/generated")).unwrap();
    expect![[r#"srctree src, objtree src, exttree -, buildfile src/.config (the build tree /src holds the file)"#]]
        .assert_eq(&layout.locate("src/rust/kernel/lib.rs", &Hints::default()));
}

#[test]
fn an_external_module_finds_its_kernel_in_what_kbuild_gave_rustc() {
    let layout = Layout::new();
    let obj = layout.objtree("obj");
    layout.file("mod/Kbuild", "obj-m := m.o\n");
    layout.file("mod/m.rs", "");
    expect![[r#"error: the external module in /mod is not built, so its kernel is unknown: build it with make -C OBJTREE M=/mod"#]]
    .assert_eq(&layout.locate("mod/m.rs", &Hints::default()));

    layout.file(
        "mod/.m.o.cmd",
        &format!(
            "savedcmd_m.o := OBJTREE={} RUST_MODFILE=./m rustc --crate-name m --crate-type=lib m.rs\n",
            obj.display()
        ),
    );
    expect![[r#"srctree src, objtree obj, exttree mod, buildfile mod/Kbuild (an external module built against the OBJTREE kbuild gave rustc)"#]]
    .assert_eq(&layout.locate("mod/m.rs", &Hints::default()));
}

#[test]
fn an_external_module_of_an_older_kbuild_needs_a_named_build_tree() {
    let layout = Layout::new();
    let obj = layout.objtree("obj");
    layout.file("mod/Makefile", "obj-m := m.o\n\nall:\n\t$(MAKE) -C $(KDIR) M=$(CURDIR)\n");
    layout.file("mod/m.rs", "");
    layout.file(
        "mod/.m.o.cmd",
        "savedcmd_/mod/m.o := rustc --crate-name m --crate-type=lib /mod/m.rs\n",
    );
    let hints = Hints { list_file: Some("/cfg/objtrees".into()), ..Hints::default() };
    expect![[r#"error: the external module in /mod does not say which build tree it was built against (kbuild before Linux 6.13 does not record it): set KBUILD_OUTPUT=OBJTREE for the editor, or list the build tree alone in /cfg/objtrees"#]]
    .assert_eq(&layout.locate("mod/m.rs", &hints));
    let named = Hints { kbuild_output: Some(obj), ..Hints::default() };
    expect![[r#"srctree src, objtree obj, exttree mod, buildfile mod/Makefile (an external module built against the only build tree known)"#]]
        .assert_eq(&layout.locate("mod/m.rs", &named));
}

#[test]
fn a_file_of_no_kernel_is_an_error() {
    let layout = Layout::new();
    layout.file("notes/x.rs", "");
    expect![[r#"error: /notes/x.rs is in no kernel source tree, build tree or external module (no Makefile and Kbuild beside rust/kernel, no .config beside include/generated, no Kbuild or Makefile with obj-m above it)"#]]
    .assert_eq(&layout.locate("notes/x.rs", &Hints::default()));
}
