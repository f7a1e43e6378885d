//! Tests of the doctest results: KTAP from the console, and placing each test on its item.

use expect_test::expect;

use super::*;

fn test(name: &str, file: &str, line: u32) -> Doctest {
    Doctest { name: name.into(), file: file.into(), line, outcome: Outcome::Pass, ktap: vec![] }
}

#[test]
fn src_links_of_a_page() {
    let html = r#"<h1>Type <span>KVec</span></h1><span class="sub-heading"><a class="src" href="../../../src/kernel/alloc/kvec.rs.html#120">Source</a></span>
<section id="method.push"><a class="src rightside" href="../../../src/kernel/alloc/kvec.rs.html#300-310">Source</a></section>
<a class="src rightside" href="https://doc.rust-lang.org/1.95.0/src/core/any.rs.html#141">Source</a>"#;
    let links = src_links("kernel/alloc/kvec/type.KVec.html", html, "kernel");
    expect![[r#"
        [
            SrcLink {
                page: "kernel/alloc/kvec/type.KVec.html",
                offset: 132,
                file: "alloc/kvec.rs",
                first: 120,
            },
            SrcLink {
                page: "kernel/alloc/kvec/type.KVec.html",
                offset: 255,
                file: "alloc/kvec.rs",
                first: 300,
            },
        ]
    "#]]
    .assert_debug_eq(&links);
}

#[test]
fn each_example_goes_to_the_item_after_it_or_to_its_module() {
    let link = |page: &str, file: &str, first| SrcLink {
        page: page.into(),
        offset: 0,
        file: file.into(),
        first,
    };
    let links = vec![
        link("kernel/alloc/kvec/index.html", "alloc/kvec.rs", 1),
        link("kernel/alloc/kvec/type.KVec.html", "alloc/kvec.rs", 120),
        link("kernel/alloc/kvec/struct.Vec.html", "alloc/kvec.rs", 140),
        link("kernel/alloc/kvec/struct.Vec.html", "alloc/kvec.rs", 300),
    ];
    let tests = vec![
        test("rust_doctest_kernel_alloc_kvec_rs_0", "rust/kernel/alloc/kvec.rs", 5),
        test("rust_doctest_kernel_alloc_kvec_rs_1", "rust/kernel/alloc/kvec.rs", 113),
        test("rust_doctest_kernel_alloc_kvec_rs_2", "rust/kernel/alloc/kvec.rs", 290),
        test("rust_doctest_kernel_sync_rs_0", "rust/kernel/sync.rs", 10),
    ];
    let inner = |t: &Doctest| t.line == 5;
    let placed = place(&tests, &links, "rust/kernel/", &inner);
    let shown: Vec<String> = placed
        .iter()
        .map(|((page, _), tests)| {
            format!("{page}: {:?}", tests.iter().map(|t| &t.name).collect::<Vec<_>>())
        })
        .collect();
    expect![[r#"
        [
            "kernel/alloc/kvec/index.html: [\"rust_doctest_kernel_alloc_kvec_rs_0\"]",
            "kernel/alloc/kvec/struct.Vec.html: [\"rust_doctest_kernel_alloc_kvec_rs_2\"]",
            "kernel/alloc/kvec/type.KVec.html: [\"rust_doctest_kernel_alloc_kvec_rs_1\"]",
        ]
    "#]]
    .assert_debug_eq(&shown);
}

#[test]
fn badges_say_what_happened() {
    let pass = test("rust_doctest_kernel_a_rs_0", "rust/kernel/a.rs", 1);
    let fail = Doctest {
        outcome: Outcome::Fail,
        ..test("rust_doctest_kernel_a_rs_1", "rust/kernel/a.rs", 9)
    };
    expect![[r#" <a class="doctest-result pass" style="color:#080;font-size:0.8em;font-weight:normal;margin:0 0.5em" href="../doctests.html#rust_doctest_kernel_a_rs_0" title="KUnit: rust_doctest_kernel_a_rs_0">✓ example passed in the kernel</a>"#]]
        .assert_eq(&badge(&[&pass], 1));
    expect![[r#" <a class="doctest-result fail" style="color:#c00;font-size:0.8em;font-weight:normal;margin:0 0.5em" href="doctests.html#rust_doctest_kernel_a_rs_0" title="KUnit: rust_doctest_kernel_a_rs_0, rust_doctest_kernel_a_rs_1">✗ 1 of 2 examples failed in the kernel</a>"#]]
        .assert_eq(&badge(&[&pass, &fail], 0));
}
