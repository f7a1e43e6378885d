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
        link("kernel/alloc/kvec/index.html", "alloc/kvec.rs", 3),
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

/// The console of a doctest boot of the demo kernel (`kunit.enable=1`), as captured.
const CONSOLE: &str = include_str!("fixtures/console.log");

#[test]
fn ktap_of_the_demo_kernel() {
    let results = parse_ktap(CONSOLE);
    expect!["114 passed, 0 failed, 0 skipped"].assert_eq(&results.summary_line());
    expect![[r#"Some("rust_doctests_kernel: pass:114 fail:0 skip:0 total:114")"#]]
        .assert_eq(&format!("{:?}", results.summary));
    expect![[r##"
        Doctest {
            name: "rust_doctest_kernel_alloc_kbox_rs_0",
            file: "rust/kernel/alloc/kbox.rs",
            line: 147,
            outcome: Pass,
            ktap: [
                "# module: doctests_kernel_generated_kunit",
                "1..114",
                "# rust_doctest_kernel_alloc_kbox_rs_0.location: rust/kernel/alloc/kbox.rs:147",
                "ok 1 rust_doctest_kernel_alloc_kbox_rs_0",
            ],
        }
    "##]]
    .assert_debug_eq(&results.tests[0]);
    assert!(results.tests.iter().all(|t| !t.file.is_empty() && t.line > 0));
}

#[test]
fn a_failed_assertion_and_a_skip_with_printk_timestamps() {
    let console = "[    1.000000]     KTAP version 1\n\
        [    1.000001]     # Subtest: rust_doctests_kernel\n\
        [    1.000002]     1..2\n\
        [    1.000003]     # rust_doctest_kernel_sync_rs_0.location: rust/kernel/sync.rs:10\n\
        [    1.000004]     # rust_doctest_kernel_sync_rs_0: ASSERTION FAILED at rust/kernel/sync.rs:14\n\
        [    1.000005]     Expected a == 2 to be true, but is false\n\
        [    1.000006]     not ok 1 rust_doctest_kernel_sync_rs_0\n\
        [    1.000007]     # rust_doctest_kernel_sync_rs_1.location: rust/kernel/sync.rs:30\n\
        [    1.000008]     ok 2 rust_doctest_kernel_sync_rs_1 # SKIP not on this config\n\
        [    1.000009] # rust_doctests_kernel: pass:0 fail:1 skip:1 total:2\n";
    let results = parse_ktap(console);
    expect!["0 passed, 1 failed, 1 skipped"].assert_eq(&results.summary_line());
    expect![[r#"
        [
            "Expected a == 2 to be true, but is false",
            "not ok 1 rust_doctest_kernel_sync_rs_0",
        ]
    "#]]
    .assert_debug_eq(&&results.tests[0].ktap[3..]);
    assert_eq!(results.tests[1].outcome, Outcome::Skip);
}

#[test]
fn a_console_without_the_suite_has_no_results() {
    assert_eq!(
        parse_ktap("Linux version 6.12.118\nRun /init as init process\n"),
        Results::default()
    );
}
