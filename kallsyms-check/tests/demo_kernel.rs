//! `kallsyms-check run` on the demo kernel that `make test` built: every scenario boots in
//! QEMU, oopses once, and every Rust frame checks out (those over `KSYM_NAME_LEN` as cut),
//! in the out-of-tree modules and in the built-in `rust_long_symbols` sample.
//!
//! `make test` sets `KERNEL_OBJ` and `EXTMOD_DIR`; without them this test fails and says so.

use std::path::Path;
use std::time::Duration;

use ::report::results::{ScenarioVerdict, SymbolFate};
use kbuild::testing::env_path as var;
use object::{Object, ObjectSymbol};
use subprocess::Command;
use subprocess::testing::{report, run};

/// `kallsyms-check`, run from the manifest's directory, with time for every scenario's boot.
fn kallsyms_check() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kallsyms-check"), Path::new(env!("CARGO_MANIFEST_DIR")))
        .timeout(Duration::from_secs(900))
}

const SCENARIOS: [&str; 5] = [
    "rust_oops_null",
    "rust_oops_panic",
    "rust_oops_long",
    "rust_long_symbols null (rust_long_symbols.trigger=",
    "rust_long_symbols panic (rust_long_symbols.trigger=",
];

#[test]
fn every_scenario_checks_out_with_an_html_report_and_its_logs() {
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    let logs = dir.path().join("logs");
    let cmd = kallsyms_check()
        .arg("run")
        .arg("--objtree")
        .arg(var("KERNEL_OBJ"))
        .arg("--extmod-dir")
        .arg(var("EXTMOD_DIR"))
        .arg("--html")
        .arg(&html)
        .arg("--logs")
        .arg(&logs);
    let out = run(&cmd);
    assert!(out.status.success(), "{}", report(&cmd, &out));
    let stdout = &out.stdout;
    // Each scenario's console log is kept, with its oops.
    let mut kept: Vec<String> = std::fs::read_dir(&logs)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        [
            "rust_long_symbols-null.log",
            "rust_long_symbols-panic.log",
            "rust_oops_long.log",
            "rust_oops_null.log",
            "rust_oops_panic.log"
        ]
    );
    let null = std::fs::read_to_string(logs.join("rust_oops_null.log")).unwrap();
    assert_eq!(oops::parse_log(&null).len(), 1, "{null}");
    check_kept_log(&logs.join("rust_oops_null.log"), &null);
    for scenario in SCENARIOS {
        assert!(
            stdout.lines().any(|l| l.starts_with(scenario) && l.ends_with(": ok")),
            "{scenario}:\n{stdout}"
        );
    }
    // Every printed frame of the scenario's code is in the guest's /proc/kallsyms, and what
    // said where it would die (all but rust_oops_long) named the function kallsyms has there.
    assert_eq!(stdout.matches("every printed frame among them").count(), 5, "{stdout}");
    assert_eq!(
        stdout
            .matches("the function it said it would die in is the symbol at the address it printed")
            .count(),
        4,
        "{stdout}"
    );
    // (verdict, length) of each frame line of the built-in sample's code in vmlinux.
    let sample: Vec<(&str, usize)> = stdout
        .lines()
        .filter(|l| l.contains("17rust_long_symbols") && l.contains("[vmlinux]"))
        .filter_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            Some((words[1], words[2].parse().ok()?))
        })
        .collect();
    // In a module: the frame over KSYM_NAME_LEN is cut, the one just under it whole.
    assert!(stdout.lines().any(|l| l.contains(" cut ") && l.contains("a_generic_function")));
    assert!(stdout.lines().any(|l| l.contains(" whole ") && l.contains("a_plain_function")));
    // In vmlinux: 511 characters whole; 512 and more cut (patch 0006: scripts/kallsyms used to
    // drop them, and their code showed up as the end of the symbol before).
    for (verdict, chars) in [("whole", 511), ("cut", 512)] {
        assert!(sample.contains(&(verdict, chars)), "no {verdict} frame of {chars}:\n{stdout}");
    }
    assert!(sample.iter().any(|&(v, n)| v == "cut" && n > 512), "{stdout}");
    assert!(sample.iter().all(|&(v, n)| (v == "cut") == (n >= 512)), "{sample:?}");
    // Each Rust frame of the built-in sample maps to its source file, as DWARF's own function.
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("17rust_long_symbols") && l.contains(" chars "))
        .collect();
    assert!(lines.len() >= 2 * 6, "{stdout}");
    assert!(lines.iter().all(|l| !l.contains("no DWARF location")), "{lines:#?}");
    // The chain's own frames are calls in the sample (`die`'s RIP lies in inlined
    // `core::ptr::write_volatile`, whose file is core's).
    let chain = lines.iter().filter(|l| !l.contains("3die "));
    assert!(chain.clone().all(|l| l.contains("rust_long_symbols.rs:")), "{lines:#?}");
    assert!(!stdout.contains("DWARF names another function"), "{stdout}");

    let text = std::fs::read_to_string(&html).unwrap();
    assert!(text.starts_with("<!DOCTYPE html>") && text.ends_with("</body></html>\n"));
    // A histogram for vmlinux and one per module with Rust code (the scenarios' three, and the
    // tree's own), and the symbols over the limit.
    assert!(text.matches("<svg ").count() >= 4, "{text}");
    for module in ["rust_oops_long", "rust_oops_null", "rust_oops_panic"] {
        assert!(text.contains(module), "no histogram of {module}: {text}");
    }
    assert!(text.contains("<td>Cut</td>"), "{text}");
}

/// `check` on a log `run` kept: its Rust frames check out against the same vmlinux and
/// modules; the same log without its oops holds no backtrace, and `check` fails saying so.
fn check_kept_log(log: &Path, text: &str) {
    let check = |log: &Path| {
        kallsyms_check()
            .arg("check")
            .arg(var("KERNEL_OBJ").join("vmlinux"))
            .arg(var("EXTMOD_DIR").join("rust_oops"))
            .arg(log)
    };
    let cmd = check(log);
    let out = run(&cmd);
    assert!(out.status.success(), "{}", report(&cmd, &out));
    let summary = format!("{}: 1 crash report(s), ", log.display());
    assert!(out.stdout.contains(&summary), "{}", report(&cmd, &out));
    assert!(out.stdout.contains(" Rust frame(s) checked, 0 failed\n"), "{}", report(&cmd, &out));

    // Every line before the oops's first (x86-64's `BUG: ...`, arm64's `Unable to handle ...`).
    let reports = oops::parse_log(text);
    let first = reports.first().unwrap_or_else(|| panic!("no oops in {}", log.display())).lines.0;
    let before: String = text.lines().take(first - 1).map(|l| format!("{l}\n")).collect();
    let cut = log.with_file_name("before-the-oops.log");
    std::fs::write(&cut, before).unwrap();
    let cmd = check(&cut);
    let out = run(&cmd);
    assert_eq!(out.status.code(), Some(2), "{}", report(&cmd, &out));
    let said = format!(
        "kallsyms-check: error: {}: no backtrace found: the formats read are ",
        cut.display()
    );
    assert!(out.stderr.starts_with(&said), "{}", report(&cmd, &out));
}

/// A tree without the demo series' built-in sample (a user's own): the out-of-tree modules'
/// scenarios run and check out, and the sample's two are reported as not run, with the reason.
#[test]
fn a_tree_without_the_sample_runs_the_module_scenarios() {
    let dir = tempfile::tempdir().unwrap();
    let objtree = dir.path().join("objtree");
    let tree = kbuild::testing::demo_tree();
    let image = &tree.built.arch.image;
    std::fs::create_dir_all(objtree.join(image).parent().unwrap()).unwrap();
    for file in ["vmlinux", image, ".config"] {
        std::os::unix::fs::symlink(tree.objtree.path.join(file), objtree.join(file)).unwrap();
    }
    std::os::unix::fs::symlink(&tree.srctree.path, objtree.join("source")).unwrap();
    std::fs::write(objtree.join("modules.builtin.modinfo"), b"rust_minimal.license=GPL\0").unwrap();
    let cmd = kallsyms_check()
        .args(["run", "--objtree"])
        .arg(&objtree)
        .arg("--extmod-dir")
        .arg(var("EXTMOD_DIR"));
    let out = run(&cmd);
    assert!(out.status.success(), "{}", report(&cmd, &out));
    for scenario in &SCENARIOS[..3] {
        assert!(
            out.stdout.lines().any(|l| l.starts_with(scenario) && l.ends_with(": ok")),
            "{scenario}: {}",
            report(&cmd, &out)
        );
    }
    let not_run: Vec<&str> = out.stdout.lines().filter(|l| l.contains(": not run: ")).collect();
    assert_eq!(not_run.len(), 2, "{}", report(&cmd, &out));
    assert!(not_run.iter().all(|l| l.starts_with("rust_long_symbols ")), "{not_run:#?}");
    assert!(
        not_run.iter().all(|l| l.contains("lists no built-in rust_long_symbols sample")),
        "{not_run:#?}"
    );
}

/// `scan` reads the vmlinux's own kallsyms table: with the demo series (patch 0006), every symbol
/// of `KSYM_NAME_LEN` characters or more is held cut, the built-in sample's 512- and
/// 557-character ones among them; none is left out.
#[test]
fn scan_reads_what_this_vmlinux_holds() {
    let cmd =
        kallsyms_check().arg("scan").arg(var("KERNEL_OBJ").join("vmlinux")).arg(var("EXTMOD_DIR"));
    let out = run(&cmd);
    assert!(out.status.success(), "{}", report(&cmd, &out));
    let vmlinux: Vec<&str> = out
        .stdout
        .lines()
        .take_while(|l| !l.starts_with("rust_"))
        .filter(|l| l.contains(" characters: over KSYM_NAME_LEN:"))
        .collect();
    let cut = "over KSYM_NAME_LEN: this vmlinux's kallsyms holds it cut to 511 characters: ";
    assert!(vmlinux.iter().all(|l| l.contains(cut)), "{}", report(&cmd, &out));
    for sample in ["  512 characters: ", "  557 characters: "] {
        assert!(
            vmlinux.iter().any(|l| l.starts_with(sample) && l.contains("17rust_long_symbols")),
            "{sample}{}",
            report(&cmd, &out)
        );
    }
}

#[test]
fn json_for_machines() {
    let cmd = kallsyms_check()
        .args(["run", "--json", "--objtree"])
        .arg(var("KERNEL_OBJ"))
        .arg("--extmod-dir")
        .arg(var("EXTMOD_DIR"));
    let out = run(&cmd);
    assert!(out.status.success(), "{}", report(&cmd, &out));
    let (scenarios, images) = match ::report::results::from_json(&out.stdout) {
        Ok(::report::results::ToolResult::KallsymsCheck(k)) => (k.scenarios, k.images),
        other => panic!("not kallsyms-check's result ({other:?}): {}", out.stdout),
    };
    // The symbol lengths: vmlinux first, then every module with Rust code, the tree's samples
    // (modules.order) and the scenarios' modules alike.
    assert!(images[0].image.ends_with("vmlinux"), "{images:#?}");
    let has_rust = |ko: &Path| {
        let bytes = std::fs::read(ko).unwrap();
        let file = object::File::parse(&*bytes).unwrap();
        file.symbols().any(|s| s.name().is_ok_and(|n| n.starts_with("_R")))
    };
    let kos = kbuild::built_modules(&var("KERNEL_OBJ")).into_iter();
    let mut with_rust = 0;
    for ko in kos.chain([var("EXTMOD_DIR").join("rust_oops/rust_oops_null.ko")]) {
        let name = ko.file_stem().unwrap().to_str().unwrap().replace('-', "_");
        let listed = images.iter().any(|i| i.image == name && i.rust_symbols > 0);
        assert_eq!(listed, has_rust(&ko), "{name}: {images:#?}");
        with_rust += usize::from(listed);
    }
    assert!(with_rust >= 2, "{images:#?}");
    // The built-in sample's 512- and 557-character symbols, held cut by the demo series.
    let at_limit: Vec<_> =
        images[0].at_ksym_name_len.iter().filter(|s| s.symbol.len() >= 512).collect();
    for length in [512, 557] {
        let sample = at_limit
            .iter()
            .find(|s| s.symbol.len() == length && s.symbol.contains("17rust_long_symbols"));
        assert_eq!(sample.map(|s| &s.fate), Some(&SymbolFate::HeldCut), "{length}: {at_limit:#?}");
    }
    assert_eq!(scenarios.len(), SCENARIOS.len());
    for s in &scenarios {
        assert_eq!((s.verdict, s.reports), (ScenarioVerdict::Ok, 1), "{s:?}");
        assert!(s.missing_from_proc_kallsyms.is_empty() && !s.frames.is_empty(), "{s:?}");
    }
    assert_eq!(scenarios[0].identity_matches, Some(true));
}
