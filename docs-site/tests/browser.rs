//! The site in a real browser: headless Chromium (Debian's `chromium`), driven over the
//! DevTools protocol. Opens the landing page served by `docs-site serve`, searches for `KVec`,
//! follows the first result, then its `Source` link into the source view, and a `srctree/`
//! link into the view of the C tree; no page may log a console error or throw. A screenshot of
//! each step is kept under the target directory as an artefact.

mod common;

use serde_json::json;

use common::chromium::{artefacts, chromium, open_page, serve};
use subprocess::testing::Interactive;

/// The demo site served over HTTP and a headless Chromium, both stopped when this drops.
struct Session {
    _server: Interactive,
    _browser: Interactive,
    _profile: tempfile::TempDir,
    /// The landing page's URL.
    index: String,
    /// Chromium's DevTools port.
    port: u16,
}

impl Session {
    fn start() -> Session {
        let site = common::demo_site();
        assert!(site.build.status.success(), "the site build failed (see its output above)");
        let (server, index) = serve(&site.dir);
        let profile = tempfile::tempdir().unwrap();
        let (browser, port) = chromium(profile.path());
        Session { _server: server, _browser: browser, _profile: profile, index, port }
    }
}

#[test]
fn search_kvec_follow_the_result_and_its_source_links() {
    let session = Session::start();
    let (index, shots, mut page) = (session.index.clone(), artefacts(), open_page(session.port));

    page.goto(&index);
    let version = common::tree().version;
    assert_eq!(
        page.eval("document.title"),
        json!(format!("Rust in Linux {version}: documentation"))
    );
    page.screenshot(&shots.join("1-landing.png"));

    // Search from the landing page's form: rustdoc's search over every crate.
    page.eval(
        "document.querySelector('form.search input').value = 'KVec'; \
         document.querySelector('form.search').submit(); true",
    );
    page.wait_for("location.search.includes('search=KVec')", "the search page");
    let first = page.wait_for(
        "(() => { const a = document.querySelector('#search .search-results a'); return a && a.href; })()",
        "search results",
    );
    let first = first.as_str().unwrap().to_owned();
    page.screenshot(&shots.join("2-search.png"));
    assert!(first.ends_with("type.KVec.html"), "first result: {first}");

    page.goto(&first);
    let title = page.eval("document.title");
    assert!(title.as_str().unwrap().starts_with("KVec in kernel::alloc"), "title: {title}");
    // The example of KVec ran in the booted kernel, and says so.
    let badge = page.eval(
        "(() => { const b = document.querySelector('a.doctest-result'); return b && b.textContent; })()",
    );
    assert_eq!(badge, json!("✓ example passed in the kernel"));
    page.screenshot(&shots.join("3-kvec.png"));

    // Its `Source` link: the source view of kvec.rs at the alias.
    let source = page.eval("document.querySelector('a.src').href");
    page.goto(source.as_str().unwrap());
    page.wait_for("location.pathname.endsWith('/src/kernel/alloc/kvec.rs.html')", "kvec.rs");
    let line = page.eval("document.getElementById(location.hash.slice(1).split('-')[0]) !== null");
    assert_eq!(line, json!(true), "the source view has the linked line");
    page.screenshot(&shots.join("4-kvec-source.png"));

    // A `srctree/` link (a C header) from the docs: the source view of the C tree.
    page.goto(&index.replace("index.html", "kernel/rbtree/index.html"));
    let header = page.eval(
        "(() => { const a = [...document.querySelectorAll('a')].find(a => a.href.includes('/srctree/')); return a && a.href; })()",
    );
    let header = header.as_str().expect("kernel::rbtree links its C header").to_owned();
    page.goto(&header);
    assert!(header.ends_with("/srctree/include/linux/rbtree.h.html"), "{header}");
    let text = page.eval("document.querySelector('pre.source').textContent");
    assert!(text.as_str().unwrap().contains("struct rb_node"), "rbtree.h shown");
    page.screenshot(&shots.join("5-srctree-rbtree.png"));

    assert!(page.errors.is_empty(), "console errors: {:#?}", page.errors);
}

/// The C side of the bindings in a real browser: `bindings::task_struct`'s page links to
/// `include/linux/sched.h` in the source view, at the line where C defines the struct, and
/// shows layout-check's verdict; the source view links the header's page of Rust users, which
/// lists `kernel::task::Task`; and `Task`'s documentation links its mention of `struct
/// task_struct` back to the binding.
#[test]
fn bindings_link_to_their_c_definitions_and_back() {
    let session = Session::start();
    let (index, shots, mut page) = (session.index.clone(), artefacts(), open_page(session.port));

    page.goto(&index.replace("index.html", "bindings/struct.task_struct.html"));
    let verdict = page.eval("document.querySelector('.c-definition').textContent");
    let verdict = verdict.as_str().expect("task_struct's page has its C side").to_owned();
    assert!(verdict.contains("include/linux/sched.h:"), "{verdict}");
    assert!(verdict.contains("layout: "), "{verdict}");
    page.screenshot(&shots.join("6-task_struct-c-side.png"));
    let decl = page.eval("document.querySelector('a.c-decl').href");
    page.goto(decl.as_str().unwrap());
    page.wait_for("location.pathname.endsWith('/srctree/include/linux/sched.h.html')", "sched.h");
    let line = page.eval("document.getElementById(location.hash.slice(1)).textContent");
    assert!(
        line.as_str().unwrap().contains("struct task_struct {"),
        "the linked line is the definition: {line}"
    );
    page.screenshot(&shots.join("7-sched-h.png"));

    let users = page.eval("document.querySelector('a.rust-users').href");
    page.goto(users.as_str().expect("sched.h's view links the Rust code that uses it"));
    let listed = page.eval(
        "[...document.querySelectorAll('ul.rust-users a')].map(a => a.textContent).join(' ')",
    );
    assert!(listed.as_str().unwrap().split(' ').any(|i| i == "kernel::task::Task"), "{listed}");
    page.screenshot(&shots.join("8-sched-h-rust-users.png"));
    let task = page.eval(
        "[...document.querySelectorAll('ul.rust-users a')].find(a => a.textContent == 'kernel::task::Task').href",
    );
    page.goto(task.as_str().unwrap());
    let back = page.eval(
        "(() => { const a = document.querySelector('a.c-mention'); return a && a.getAttribute('href'); })()",
    );
    assert_eq!(back, json!("../../bindings/struct.task_struct.html"));

    assert!(page.errors.is_empty(), "console errors: {:#?}", page.errors);
}
