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
                last: 120,
            },
            SrcLink {
                page: "kernel/alloc/kvec/type.KVec.html",
                offset: 255,
                file: "alloc/kvec.rs",
                first: 300,
                last: 310,
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
        last: first + 5,
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
    assert_eq!((results.planned, results.incomplete()), (Some(114), None));
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
    expect!["0 passed, 1 failed (failed: rust_doctest_kernel_sync_rs_0), 1 skipped"]
        .assert_eq(&results.summary_line());
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

/// The console of a doctest boot of the 7.3 demo kernel, as captured: 351 doctests, of which
/// `rust_doctest_kernel_task_rs_1` oopses (`Task::pid` reads `task_struct` at an offset that
/// does not match the C layout, a kernel bug tracked apart).
const CONSOLE_7_3: &str = include_str!("fixtures/console-7.3.log");

#[test]
fn a_doctest_that_oopses_is_a_failure_named_as_a_crash() {
    let results = parse_ktap(CONSOLE_7_3);
    expect!["350 passed, 1 failed (crashed: rust_doctest_kernel_task_rs_1), 0 skipped"]
        .assert_eq(&results.summary_line());
    assert_eq!(results.planned, Some(351));
    assert_eq!(results.incomplete(), None);
    let crashed = results.tests.iter().find(|t| t.outcome == Outcome::Crash).unwrap();
    assert_eq!((crashed.file.as_str(), crashed.line), ("rust/kernel/task.rs", 71));
    // Its KTAP keeps the oops, shown on the results page.
    assert!(crashed.ktap.iter().any(|l| l.starts_with("BUG: unable to handle page fault")));
    expect![[r##"
        [
            "# rust_doctest_kernel_task_rs_1: try faulted",
            "# rust_doctest_kernel_task_rs_1: internal error occurred preventing test case from running: -4",
            "not ok 326 rust_doctest_kernel_task_rs_1",
        ]
    "##]]
    .assert_debug_eq(&&crashed.ktap[crashed.ktap.len() - 3..]);
    let page = results_page(&results, &BTreeMap::new(), &|_| None);
    assert!(
        page.contains("<li class=\"fail\"><a href=\"#rust_doctest_kernel_task_rs_1\"><code>rust_doctest_kernel_task_rs_1</code></a> (rust/kernel/task.rs:71) crashed the kernel"),
        "{page}"
    );
}

#[test]
fn a_boot_that_ends_early_is_not_complete() {
    // The 7.3 console cut at the oops, as if the kernel had panicked there (`panic_on_oops`).
    let cut = CONSOLE_7_3.lines().take_while(|l| !l.starts_with("BUG:")).collect::<Vec<_>>();
    let results = parse_ktap(&cut.join("\n"));
    expect!["325 passed, 0 failed, 0 skipped; INCOMPLETE: 325 of the 351 planned tests reported a result"]
        .assert_eq(&results.summary_line());
    let page = results_page(&results, &BTreeMap::new(), &|_| None);
    assert!(page.contains("The run is incomplete: 325 of the 351 planned tests"), "{page}");
}

#[test]
fn a_summary_that_disagrees_or_is_missing_makes_the_run_incomplete() {
    let console = |summary: &str| {
        format!(
            "    # Subtest: rust_doctests_kernel\n    1..1\n    ok 1 rust_doctest_kernel_a_rs_0\n{summary}"
        )
    };
    assert_eq!(
        parse_ktap(&console("# rust_doctests_kernel: pass:1 fail:0 skip:0 total:1\n")).incomplete(),
        None
    );
    expect!["the suite's summary (rust_doctests_kernel: pass:0 fail:1 skip:0 total:1) disagrees with the 1 results read"]
        .assert_eq(&parse_ktap(&console("# rust_doctests_kernel: pass:0 fail:1 skip:0 total:1\n")).incomplete().unwrap());
    expect!["all 1 tests reported, but the suite's summary line is missing"]
        .assert_eq(&parse_ktap(&console("")).incomplete().unwrap());
    expect!["1 results, but no KTAP plan (1..N) for the suite"].assert_eq(
        &parse_ktap("# Subtest: rust_doctests_kernel\nok 1 rust_doctest_kernel_a_rs_0\n")
            .incomplete()
            .unwrap(),
    );
}

#[test]
fn an_example_in_a_macro_call_goes_to_the_items_the_call_makes() {
    // 7.3's `rust/kernel/bits.rs`: `impl_genmask_fn!(u8, /// examples...)` at lines 179-205
    // makes `genmask_u8` and `genmask_checked_u8`, whose `Source` is the call; rustdoc says the
    // examples are at lines 186 and 187, and no item starts after them.
    let link = |page: &str, first, last| SrcLink {
        page: page.into(),
        offset: 0,
        file: "bits.rs".into(),
        first,
        last,
    };
    let links = vec![
        link("kernel/bits/index.html", 3, 205),
        link("kernel/bits/fn.genmask_u16.html", 151, 177),
        link("kernel/bits/fn.genmask_u8.html", 179, 205),
        link("kernel/bits/fn.genmask_checked_u8.html", 179, 205),
    ];
    let tests = vec![
        test("rust_doctest_kernel_bits_rs_6", "rust/kernel/bits.rs", 186),
        // Past the file's end (7.3's `sizes.rs:142`, of 134 lines): no item.
        test("rust_doctest_kernel_bits_rs_8", "rust/kernel/bits.rs", 242),
    ];
    let placed = place(&tests, &links, "rust/kernel/", &|_| false);
    let shown: Vec<String> = placed
        .iter()
        .map(|((page, _), tests)| {
            format!("{page}: {:?}", tests.iter().map(|t| &t.name).collect::<Vec<_>>())
        })
        .collect();
    expect![[r#"
        [
            "kernel/bits/fn.genmask_checked_u8.html: [\"rust_doctest_kernel_bits_rs_6\"]",
            "kernel/bits/fn.genmask_u8.html: [\"rust_doctest_kernel_bits_rs_6\"]",
        ]
    "#]]
    .assert_debug_eq(&shown);
}
