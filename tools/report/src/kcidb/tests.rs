//! The KCIDB rendering of typed results: its ids and paths, and each tool's tests.

use expect_test::expect;

use super::*;
use crate::results::*;

fn checkout() -> Checkout {
    Checkout {
        tree_name: "linux-6.12".into(),
        version: "6.12.118".into(),
        patches: vec![
            ("0001-a.patch".into(), "a".repeat(64)),
            ("0002-b.patch".into(), "b".repeat(64)),
        ],
    }
}

fn build() -> Build {
    Build {
        architecture: "x86_64".into(),
        compiler: "gcc (Debian 12.2.0-14+deb12u1) 12.2.0; rustc 1.95.0".into(),
        config_name: "tinyconfig + demo-kernel/6.12/demo.config".into(),
        config_sha256: "c".repeat(64),
        duration: Some(2.5),
        ok: true,
        command: None,
        misc: None,
    }
}

#[test]
fn the_patchset_hash_is_kcidbs() {
    // printf 'aaa…\nbbb…\n' | sha256sum, as KCIDB's schema defines it.
    let text = format!("{}\n{}\n", "a".repeat(64), "b".repeat(64));
    assert_eq!(patchset_hash(&checkout().patches), freshness::sha256(text.as_bytes()));
}

#[test]
fn every_result_is_a_test_at_a_stable_path() {
    let scenario = |name: &str, verdict| Scenario {
        name: name.into(),
        what: String::new(),
        verdict,
        why: vec![],
        cmdline: String::new(),
        reports: 1,
        frames: vec![],
        proc_kallsyms_symbols: 0,
        missing_from_proc_kallsyms: vec![],
        identity_matches: None,
        log: None,
    };
    let docs = Docs {
        crates: vec![DocsCrate { name: "kernel".into(), status: DocsStatus::Built }],
        doctests: Some(Doctests {
            passed: 1,
            cases: vec![DoctestCase {
                name: "rust_doctest_kernel_alloc_kbox_rs_0".into(),
                outcome: "pass".into(),
                location: "rust/kernel/alloc/kbox.rs:42".into(),
            }],
            ..Doctests::default()
        }),
        links: Some(Links { pages: 10, checked: 100, ..Links::default() }),
        ..Docs::default()
    };
    let results = [
        ToolResult::KallsymsCheck(Kallsyms {
            scenarios: vec![
                scenario("rust_oops_long", ScenarioVerdict::Ok),
                scenario("rust_long_symbols null", ScenarioVerdict::NotRun),
            ],
            images: vec![ImageSymbols {
                image: "vmlinux".into(),
                rust_symbols: 3,
                longest: 600,
                over_reader_len: 1,
                at_ksym_name_len: vec![LongSymbol {
                    symbol: format!("_R{}", "x".repeat(598)),
                    fate: SymbolFate::LeftOut,
                }],
                ..ImageSymbols::default()
            }],
        }),
        ToolResult::DocsSite(docs),
        crate::results::tests::layout(),
    ];
    let document = render(&checkout(), &build(), &results);
    let tests = document["tests"].as_array().unwrap();
    let lines: Vec<String> = tests
        .iter()
        .map(|t| format!("{} {}", t["path"].as_str().unwrap(), t["status"].as_str().unwrap()))
        .collect();
    expect![[r#"
        rust.kallsyms.rust_oops_long PASS
        rust.kallsyms.rust_long_symbols_null SKIP
        rust.kallsyms.symbol_lengths FAIL
        rust.docs.build PASS
        rust.docs.links PASS
        rust.doctest.kernel PASS
        rust.doctest.kernel.rust_doctest_kernel_alloc_kbox_rs_0 PASS
        rust.layout FAIL
        rust.layout.task_struct FAIL"#]]
    .assert_eq(&lines.join("\n"));
    let build_id = document["builds"][0]["id"].as_str().unwrap();
    let checkout_id = document["checkouts"][0]["id"].as_str().unwrap();
    assert_eq!(document["builds"][0]["checkout_id"], checkout_id);
    assert!(checkout_id.starts_with("rust_kernel_tools:linux-6_12-6.12.118-"), "{checkout_id}");
    for t in tests {
        assert_eq!(t["build_id"], build_id);
        assert_eq!(t["id"], format!("{build_id}:{}", t["path"].as_str().unwrap()));
    }
    assert_eq!(document["version"], json!({ "major": 5, "minor": 3 }));
}

#[test]
fn cells_merge_into_one_document() {
    let one = render(&checkout(), &build(), &[ToolResult::DecodeStacktrace(Decoded::default())]);
    let mut llvm = build();
    llvm.config_sha256 = "d".repeat(64);
    let two = render(&checkout(), &llvm, &[ToolResult::DecodeStacktrace(Decoded::default())]);
    let merged = merge(&[one.clone(), two, one.clone()]).unwrap();
    let count = |kind: &str| merged[kind].as_array().unwrap().len();
    assert_eq!((count("checkouts"), count("builds"), count("tests")), (1, 2, 2));

    let mut changed = one.clone();
    changed["tests"][0]["status"] = json!("PASS");
    let err = merge(&[one.clone(), changed]).unwrap_err().to_string();
    assert!(err.starts_with("two different tests with the id rust_kernel_tools:"), "{err}");
    let mut old = one;
    old["version"]["major"] = json!(4);
    assert_eq!(
        merge(&[old]).unwrap_err().to_string(),
        "not KCIDB 5.3 data: {\"major\":4,\"minor\":3}"
    );
}
