//! The 7.3 `task_struct` bug, reproduced small and for real: a header with an empty struct
//! aligned to a cache line inside another, its C compiled by gcc with `-g`, the header through
//! bindgen with `--no-layout-tests` (as the kernel runs it), the Rust compiled by rustc with
//! `-g` in a crate named `bindings`; then `layout-check` on the two objects.
//!
//! Found by docs-site's doctest boot on 7.3 (`rust_doctest_kernel_task_rs_1` page-faulted in
//! `Task::pid`). Needs gcc, rustc and bindgen (`make setup` installs bindgen in the cache's
//! tools prefix, which `make test` puts in `PATH`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use expect_test::expect;
use subprocess::Command;
use subprocess::testing::{report, run};

const HEADER: &str = r#"/* sched_statistics as 7.3 has it with CONFIG_SCHEDSTATS=n, in a reduced task_struct. */
struct sched_statistics {
} __attribute__((__aligned__(64)));

struct task_struct {
	void *sched_class;
	struct sched_statistics stats;
	int pid;
	unsigned int in_execve:1;
	unsigned int in_iowait:1;
	union {
		int nr;
		long total;
	};
	struct task_struct *group_leader;
	char comm[16];
	int tail[];
};
"#;

const C_SOURCE: &str = r#"#include "task.h"

struct task_struct *current_task;

int task_pid(struct task_struct *t)
{
	return t->pid + t->in_iowait + t->nr + t->tail[0];
}
"#;

const RUST_SOURCE: &str = r#"//! The bindings crate of the reproduction.
#![allow(non_camel_case_types, non_upper_case_globals, dead_code)]
include!("bindings_generated.rs");

#[no_mangle]
pub extern "C" fn rust_task_pid(t: &task_struct) -> i32 {
    t.pid
}
"#;

/// bindgen: `PATH`'s, or the one `make setup` put in the cache's tools prefix.
fn bindgen() -> PathBuf {
    let cache = std::env::var_os("RUST_KERNEL_TOOLS_CACHE").map(PathBuf::from).or_else(|| {
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/rust-kernel-tools"))
    });
    let in_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|dir| dir.join("bindgen"));
    in_path
        .chain(cache.map(|c| c.join("tools/bin/bindgen")))
        .find(|p| p.is_file())
        .expect("bindgen is not installed: run `make setup` (or these tests with `make test`)")
}

fn ok(cmd: &Command) -> String {
    let out = run(cmd);
    assert!(out.status.success(), "{}", report(cmd, &out));
    out.stdout
}

/// Builds the reproduction of `header` in `dir` (bindgen with `extra` options) and returns the
/// two objects.
fn build(dir: &Path, header: &str, extra: &[&str]) -> [PathBuf; 2] {
    std::fs::write(dir.join("task.h"), header).unwrap();
    std::fs::write(dir.join("task.c"), C_SOURCE).unwrap();
    std::fs::write(dir.join("lib.rs"), RUST_SOURCE).unwrap();
    let timeout = Duration::from_secs(120);
    ok(&Command::new("gcc", dir).args(["-g", "-O0", "-c", "task.c", "-o", "c.o"]).timeout(timeout));
    ok(&Command::new(bindgen(), dir)
        .args(["task.h", "--no-layout-tests", "-o", "bindings_generated.rs"])
        .args(extra)
        .timeout(timeout));
    ok(&Command::new("rustc", dir)
        .args(["--edition", "2021", "--crate-name", "bindings", "--crate-type", "lib"])
        .args(["--emit", "obj=rust.o", "-g", "-C", "opt-level=0", "lib.rs"])
        .timeout(timeout));
    [dir.join("c.o"), dir.join("rust.o")]
}

fn layout_check(dir: &Path) -> Command {
    Command::new(env!("CARGO_BIN_EXE_layout-check"), dir).timeout(Duration::from_secs(600))
}

#[test]
fn the_empty_aligned_struct_is_found_and_named_as_the_cause() {
    let dir = tempfile::tempdir().unwrap();
    let objects = build(dir.path(), HEADER, &[]);
    let cmd = layout_check(dir.path()).arg("check").args(&objects);
    let out = run(&cmd);
    assert_eq!(out.status.code(), Some(1), "{}", report(&cmd, &out));
    expect![[r#"
        type                        C size/align  Rust size/align  first moved (C → Rust)  cause
        bindings::sched_statistics          0/64              0/1  -                       sched_statistics: C aligned 64, Rust aligned 1 (an empty C struct with an aligned attribute: bindgen emits it without one) [root cause]
        bindings::task_struct             128/64            64/64  stats 64 → 8 (+9 more)  stats: C aligned 64, Rust aligned 1 (sched_statistics) → see sched_statistics

        2 Rust types of bindings and uapi in DWARF; 2 with a C definition compared: 0 match, 2 differ (1 root cause); 0 without a C definition (no C code uses them); 0 bindgen placeholders for types it saw only declared
        members: 8 compared by offset and size, 1 by offset only (flexible arrays, union fields); renamed by bindgen: 1 anonymous members paired with __bindgen_anon_N by position, 0 C bitfields found in a Rust bitfield unit; 0 only in C, 0 only in Rust
        0 opaque types (size and alignment only); 0 names with several C definitions: 0 matched one, 0 ambiguous, 0 compared with the one in a header
    "#]]
    .assert_eq(&out.stdout);

    let cmd = layout_check(dir.path()).args(["check", "--json"]).args(&objects);
    let out = run(&cmd);
    let layout = layout_result(&out.stdout);
    let task = &layout.mismatches[1];
    assert_eq!(task.name, "task_struct");
    assert_eq!(task.first_moved.as_deref(), Some("stats"));
    assert_eq!(task.caused_by.as_deref(), Some("sched_statistics"));
    assert_eq!((task.c.0, task.rust.0), (128, 64));

    // Both sides as read from DWARF: the bitfields, the anonymous union, the flexible array.
    let cmd = layout_check(dir.path()).args(["show", "task_struct"]).args(&objects);
    let shown = ok(&cmd).replace(&format!("{}/", dir.path().display()), "$DIR/");
    expect![[r#"
        C: struct task_struct: size 128, align 64, $DIR/task.h:5
              0     8  sched_class: *
             64     0  stats: struct sched_statistics align 64
             64     4  pid: int
             68 1 bits  in_execve: unsigned int
           68:1 1 bits  in_iowait: unsigned int
             72     8  (anonymous union): (anonymous union)
               72     4  nr: int
               72     8  total: long int
             80     8  group_leader: *
             88    16  comm: [char; 16]
            104     -  tail: [int]

        Rust (bindings): struct task_struct: size 64, align 64
              0     8  sched_class: * align 8
              8     0  stats: struct sched_statistics align 1
              8     4  pid: i32 align 4
             12     1  _bitfield_1: __BindgenBitfieldUnit<[u8; 1]> align 1
             16     8  __bindgen_anon_1: union task_struct__bindgen_ty_1 align 8
               16     4  nr: i32 align 4
               16     8  total: i64 align 8
             24     8  group_leader: * align 8
             32    16  comm: [i8; 16] align 1
             48     -  tail: __IncompleteArrayField align 4

    "#]]
    .assert_eq(&shown);
}

/// 6.12's case: `stats` after members that end at a multiple of 64 (512 there), where Rust
/// puts it too. Only `sched_statistics` differs; `task_struct.stats` is latent.
#[test]
fn at_a_multiple_of_64_by_chance_it_is_latent() {
    let dir = tempfile::tempdir().unwrap();
    let header = HEADER.replace("\tvoid *sched_class;\n", "\tvoid *sched_class[8];\n");
    let objects = build(dir.path(), &header, &[]);
    let cmd = layout_check(dir.path()).arg("check").args(&objects);
    let out = run(&cmd);
    assert_eq!(out.status.code(), Some(1), "{}", report(&cmd, &out));
    let lines: Vec<&str> = out.stdout.lines().take(4).collect();
    expect![[r#"
        type                        C size/align  Rust size/align  first moved (C → Rust)  cause
        bindings::sched_statistics          0/64              0/1  -                       sched_statistics: C aligned 64, Rust aligned 1 (an empty C struct with an aligned attribute: bindgen emits it without one) [root cause]

        latent: bindings::task_struct.stats (struct sched_statistics): C aligned 64, Rust aligned 1, at 64 on both sides by chance
    "#]]
    .assert_eq(&(lines.join("\n") + "\n"));
}

/// The kernel's fix (`--opaque-type sched_statistics`, patch 0005 of the 7.3 demo series):
/// bindgen emits an opaque blob aligned 64, and every layout matches.
#[test]
fn with_the_fix_every_layout_matches() {
    let dir = tempfile::tempdir().unwrap();
    let objects = build(dir.path(), HEADER, &["--opaque-type", "sched_statistics"]);
    let cmd = layout_check(dir.path()).arg("check").args(&objects);
    let out = run(&cmd);
    assert!(out.status.success(), "{}", report(&cmd, &out));
    assert!(out.stdout.starts_with("2 Rust types"), "{}", out.stdout);
    assert!(out.stdout.contains("2 match, 0 differ"), "{}", out.stdout);
    assert!(out.stdout.contains("1 opaque types"), "{}", out.stdout);
}

/// The second check: a saved bindgen command (as kbuild writes it in an objtree) rerun with
/// layout tests and compiled; rustc's errors name the same two types.
#[test]
fn bindgen_layout_tests_catch_it_too() {
    let dir = tempfile::tempdir().unwrap();
    let objects = build(dir.path(), HEADER, &[]);
    let objtree = dir.path().join("objtree");
    for (krate, target) in [("bindings", "bindings_generated.rs"), ("uapi", "uapi_generated.rs")] {
        let folder = objtree.join("rust").join(krate);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join(format!(".{target}.cmd")),
            format!(
                "savedcmd_rust/{krate}/{target} := {} {}/task.h --no-layout-tests -o rust/{krate}/{target} -- -Wp,-MMD,rust/{krate}/.{target}.d -DMODULE\n",
                bindgen().display(),
                dir.path().display()
            ),
        )
        .unwrap();
    }
    let cmd = layout_check(dir.path())
        .args(["check", "--json", "--bindgen"])
        .arg(&objtree)
        .args(&objects);
    let out = run(&cmd);
    assert_eq!(out.status.code(), Some(1), "{}", report(&cmd, &out));
    let layout = layout_result(&out.stdout);
    let tests = layout.bindgen_layout_tests.expect("--bindgen reruns bindgen's layout tests");
    for crate_tests in tests {
        assert_eq!(
            crate_tests.failed,
            ["Alignment of sched_statistics", "Size of task_struct"],
            "{}",
            out.stdout
        );
    }
    // Nothing was written beside the saved commands: no dependency file, no output.
    let written: Vec<_> = std::fs::read_dir(objtree.join("rust/bindings")).unwrap().collect();
    assert_eq!(written.len(), 1, "{written:?}");
}

/// layout-check's result in `--json` output.
fn layout_result(stdout: &str) -> report::results::Layout {
    match report::results::from_json(stdout) {
        Ok(report::results::ToolResult::LayoutCheck(layout)) => layout,
        other => panic!("not layout-check's result ({other:?}): {stdout}"),
    }
}
