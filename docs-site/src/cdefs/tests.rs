//! Tests of the C side: the pure parts, on texts written here.

use expect_test::{Expect, expect};

use super::*;

#[test]
fn names_a_header_declares() {
    let header = "#ifndef _X_H\n#define _X_H\n# define  PF_EXITING 0x4\n#define\tMAX(a, b) ((a) > (b))\n#defined nothing\n#undef X\n\
enum {\n\tABI_DEFHANDLER_COFF=1,\t/* coff */\n\tABI_TRACE,\n\tLAST\n};\n\
struct wait_queue_entry {\n\tint flags;\n};\nstruct task_struct;\ntypedef union bpf_attr {\n} bpf_attr_t;\n";
    expect![[r#"[("_X_H", 2), ("PF_EXITING", 3), ("MAX", 4), ("ABI_DEFHANDLER_COFF", 8), ("ABI_TRACE", 9), ("LAST", 10), ("struct wait_queue_entry", 12), ("union bpf_attr", 16)]"#]]
        .assert_eq(&format!("{:?}", defines(header)));
}

fn check_kernel_doc(text: &str, line: u64, expect: Expect) {
    expect.assert_eq(&format!("{:?}", kernel_doc_before(text, line)));
}

#[test]
fn the_kernel_doc_comment_right_above_a_declaration() {
    let header = "\
/* not kernel-doc */
int a;

/**
 * struct wait_queue_entry - an entry of a wait queue
 * @flags: what to do
 *
 * Longer text.
 */
struct wait_queue_entry {
};
/** one line */
int b(void);
/* plain */
int c(void);
";
    check_kernel_doc(
        header,
        10,
        expect![[
            r#"Some("struct wait_queue_entry - an entry of a wait queue\n@flags: what to do\n\nLonger text.")"#
        ]],
    );
    check_kernel_doc(header, 13, expect![[r#"Some("one line")"#]]);
    check_kernel_doc(header, 15, expect![[r#"None"#]]);
    check_kernel_doc(header, 2, expect![[r#"None"#]]);
    check_kernel_doc(header, 1, expect![[r#"None"#]]);
}

#[test]
fn item_pages_by_kind() {
    assert_eq!(page_item("struct.task_struct.html"), Some(("struct", "task_struct")));
    assert_eq!(page_item("constant.PF_EXITING.html"), Some(("constant", "PF_EXITING")));
    assert_eq!(page_item("index.html"), None);
    assert_eq!(page_item("all.html"), None);
}

#[test]
fn the_c_side_goes_after_the_heading() {
    let page = "<main><div class=\"main-heading\"><div class=\"rustdoc-breadcrumbs\"><a href=\"index.html\">bindings</a></div><h1>Struct <span class=\"struct\">task_struct</span></h1><rustdoc-toolbar></rustdoc-toolbar><span class=\"sub-heading\"><a class=\"src\" href=\"../src/x.html\">Source</a></span></div><pre class=\"rust item-decl\">...</pre></main>";
    let item = CItem {
        file: "include/linux/sched.h".into(),
        line: 817,
        kernel_doc: Some("a <task>".into()),
        layout: Some("matches what the C compiler built (9856 bytes, aligned 64)".into()),
    };
    let new = annotate_page(page, &item, 1).unwrap();
    expect![[r#"<main><div class="main-heading"><div class="rustdoc-breadcrumbs"><a href="index.html">bindings</a></div><h1>Struct <span class="struct">task_struct</span></h1><rustdoc-toolbar></rustdoc-toolbar><span class="sub-heading"><a class="src" href="../src/x.html">Source</a></span></div><div class="c-definition"><p>C: <a class="c-decl" href="../srctree/include/linux/sched.h.html#L817"><code>include/linux/sched.h:817</code></a> · layout: matches what the C compiler built (9856 bytes, aligned 64)</p><pre class="kernel-doc">a &lt;task></pre></div><pre class="rust item-decl">...</pre></main>"#]]
    .assert_eq(&new);
    assert_eq!(annotate_page(&new, &item, 1), None, "a page is annotated once");
    assert_eq!(annotate_page("<p>no heading</p>", &item, 1), None);
}

fn check_wrappers(text: &str, expect: Expect) {
    let found: Vec<String> = wrappers(text)
        .iter()
        .map(|w| {
            format!("{} {}{} -> {}", w.kind, if w.public { "pub " } else { "" }, w.item, w.binding)
        })
        .collect();
    expect.assert_eq(&found.join("\n"));
}

#[test]
fn items_that_name_bindings() {
    check_wrappers(
        r#"
//! Tasks: see `bindings::not_this` in a comment.
use crate::bindings;

/// Wraps the kernel's [`struct task_struct`].
#[repr(transparent)]
pub struct Task(pub(crate) Opaque<bindings::task_struct>);

impl Task {
    /// The pid.
    pub fn pid(&self) -> Pid {
        // SAFETY: ...
        unsafe { *ptr::addr_of!((*self.as_ptr()).pid) }
    }

    pub(crate) unsafe fn from_raw<'a>(ptr: *const bindings::task_struct) -> &'a Self {
        let s = "bindings::in_a_string";
        let c = '{';
        unsafe { &*ptr.cast() }
    }

    pub const fn wake_up(&self) -> impl Fn() {
        unsafe { bindings::wake_up_process(self.as_ptr()) };
    }
}

unsafe impl Send for Task {}

const MAX: u32 = bindings::MAX_ERRNO;

pub trait Lock {
    fn lock(&self) { bindings::mutex_lock(p) }
}

pub type Pid = bindings::pid_t;
"#,
        expect![[r#"
            fn Lock::lock -> mutex_lock
            const MAX -> MAX_ERRNO
            type pub Pid -> pid_t
            struct pub Task -> task_struct
            fn Task::from_raw -> task_struct
            fn pub Task::wake_up -> wake_up_process"#]],
    );
}

#[test]
fn the_header_page_and_the_index() {
    let uses = [RustUse {
        path: "kernel::task::Task".into(),
        page: Some("kernel/task/struct.Task.html".into()),
        bindings: ["task_struct".to_owned()].into(),
    }];
    let page = header_page("include/linux/sched.h", &uses);
    assert!(page.contains("<a href=\"../../../kernel/task/struct.Task.html\"><code>kernel::task::Task</code></a>: <code>task_struct</code>"), "{page}");
    assert!(page.contains("href=\"../../../srctree/include/linux/sched.h.html\""), "{page}");
    let index = index_page(&[("include/linux/sched.h".to_owned(), 1)].into());
    assert!(
        index.contains(
            "<a href=\"include/linux/sched.h.html\"><code>include/linux/sched.h</code></a>: 1"
        ),
        "{index}"
    );
}

#[test]
fn a_cmd_files_dependencies() {
    let cmd = "savedcmd_rust/bindings/bindings_generated.rs := bindgen ...\n\nsource_x := y\n\ndeps_rust/bindings/bindings_generated.rs := \\\n  /src/include/linux/sched.h \\\n  include/generated/autoconf.h \\\n  $(wildcard include/config/X) \\\n\nrust/bindings/bindings_generated.rs: $(deps_x)\n";
    assert_eq!(dependencies(cmd), ["/src/include/linux/sched.h", "include/generated/autoconf.h"]);
}

#[test]
fn paths_are_normalised_inside_their_root() {
    assert_eq!(
        normalize("kernel/locking/../sched/./core.c").as_deref(),
        Some("kernel/sched/core.c")
    );
    assert_eq!(normalize("include/linux/sched.h").as_deref(), Some("include/linux/sched.h"));
    assert_eq!(normalize("../outside.h"), None);
    assert_eq!(normalize("/abs/x.h"), None);
}

#[test]
fn mentions_of_c_structs_link_to_their_bindings() {
    let page = "<p>Wraps the kernel's <code>struct task_struct</code>, not <code>struct Task</code> nor <code>struct nothing</code>; \
                <a href=\"x.html\"><code>struct task_struct</code></a> is a link already; <code>union bpf_attr</code>.</p>";
    let has = |kind: &str, name: &str| {
        matches!((kind, name), ("struct", "task_struct") | ("union", "bpf_attr"))
    };
    expect![[r#"<p>Wraps the kernel's <a class="c-mention" href="../../bindings/struct.task_struct.html"><code>struct task_struct</code></a>, not <code>struct Task</code> nor <code>struct nothing</code>; <a href="x.html"><code>struct task_struct</code></a> is a link already; <a class="c-mention" href="../../bindings/union.bpf_attr.html"><code>union bpf_attr</code></a>.</p>"#]]
    .assert_eq(&link_c_mentions(page, 2, &has).unwrap());
    assert_eq!(link_c_mentions("<p><code>struct nothing</code></p>", 1, &has), None);
}

/// The binding pages are written with their C side into the site being assembled, read from
/// the crate's own documentation, which stays as it is; the crate's other pages are then linked
/// in around them, and the header's page lists the binding once every crate is there.
#[test]
fn binding_pages_are_written_once_into_the_site_and_the_rest_linked_around_them() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    let (srctree, docs, site) =
        (dir.path().join("srctree"), dir.path().join("out"), dir.path().join("site"));
    std::fs::create_dir_all(srctree.join("include/linux")).unwrap();
    std::fs::write(
        srctree.join("include/linux/sched.h"),
        "/**\n * struct task_struct - a task\n */\nstruct task_struct {\n};\n",
    )
    .unwrap();
    std::fs::create_dir_all(docs.join("bindings")).unwrap();
    let page = |name: &str| {
        format!("<main><div class=\"main-heading\"><h1>Struct {name}</h1></div><pre>x</pre></main>")
    };
    let located = docs.join("bindings/struct.task_struct.html");
    let unlocated = docs.join("bindings/struct.nowhere.html");
    std::fs::write(&located, page("task_struct")).unwrap();
    std::fs::write(&unlocated, page("nowhere")).unwrap();
    let c = CSide {
        decls: BTreeMap::new(),
        records: BTreeMap::from([(
            "task_struct".to_owned(),
            ("include/linux/sched.h:4".to_owned(), "the same".to_owned()),
        )]),
        defines: BTreeMap::new(),
    };

    let mut targets = BTreeSet::new();
    let annotated =
        annotate(&site, &[("bindings", docs.clone())], &srctree, &c, &mut targets).unwrap();
    assert_eq!((annotated.applied.pages, annotated.applied.located), (2, 1));
    assert!(!site.join("bindings/struct.nowhere.html").exists(), "only annotated pages written");
    assert_eq!(crate::site::link_tree(&docs, &site).unwrap(), 1, "the other page linked");

    let in_site = |p: &Path| std::fs::metadata(site.join(p.strip_prefix(&docs).unwrap())).unwrap();
    assert_ne!(in_site(&located).ino(), std::fs::metadata(&located).unwrap().ino());
    assert_eq!(in_site(&unlocated).ino(), std::fs::metadata(&unlocated).unwrap().ino());
    let written = std::fs::read_to_string(site.join("bindings/struct.task_struct.html")).unwrap();
    assert!(written.contains("include/linux/sched.h:4") && written.contains("a task"), "{written}");
    assert_eq!(std::fs::read_to_string(&located).unwrap(), page("task_struct"), "work page kept");

    let applied = link_to_c(&site, annotated, &[], &mut targets).unwrap();
    assert_eq!((applied.located, applied.with_kernel_doc, applied.headers), (1, 1, 0));
    assert!(site.join(FOLDER).join("index.html").is_file());
    assert_eq!(targets, BTreeSet::from(["include/linux/sched.h".to_owned()]));
}
