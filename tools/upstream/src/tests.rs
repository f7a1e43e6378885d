//! Tests of the series model and the pure checks, on the 7.3 series and real consoles.

use expect_test::expect;

use super::*;

fn version_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../demo-kernel/upstream/7.3")
}

#[test]
fn the_7_3_series_load_in_order() {
    let topics = load(&version_dir()).unwrap();
    let text: String = topics
        .iter()
        .map(|t| {
            let names: Vec<String> = t
                .patches
                .iter()
                .map(|p| p.file_name().unwrap().to_string_lossy()[..4].to_owned())
                .collect();
            format!("{}: {} ({} reproducers)\n", t.name, names.join(" "), t.reproducers.len())
        })
        .collect();
    expect![[r#"
        kallsyms: 0001 0002 0003 (3 reproducers)
        rust-layout: 0001 (1 reproducers)
        rust-module-params: 0001 0002 0003 0004 0005 0006 (1 reproducers)
    "#]]
    .assert_eq(&text);
}

#[test]
fn recipients_read_folded_to_and_cc() {
    let mail = "From: A <a@x>\nSubject: [PATCH 0/1] x\nTo: Luis <mcgrof@kernel.org>,\n    \
                Petr <petr@suse.com>\nCc: \"Björn\" <b@p.com>,\n\tlinux-kernel@vger.kernel.org\n\n\
                To: not-a-header@x\n";
    let got: Vec<String> = recipients(mail).into_iter().collect();
    assert_eq!(
        got,
        [
            "\"Björn\" <b@p.com>",
            "Luis <mcgrof@kernel.org>",
            "Petr <petr@suse.com>",
            "linux-kernel@vger.kernel.org"
        ]
    );
}

#[test]
fn a_recipient_get_maintainer_names_and_the_cover_letter_lacks_is_missing() {
    let output = "Luis <mcgrof@kernel.org> (maintainer:MODULE SUPPORT)\n\
                  linux-modules@vger.kernel.org (open list:MODULE SUPPORT)\n";
    let wanted = maintainers(output);
    assert_eq!(wanted, ["Luis <mcgrof@kernel.org>", "linux-modules@vger.kernel.org"]);
    let cover = "Subject: x\nTo: Luis <mcgrof@kernel.org>\n\nbody\n";
    assert_eq!(missing_recipients(cover, &wanted), ["linux-modules@vger.kernel.org"]);
}

#[test]
fn the_cover_letters_address_what_get_maintainer_said_when_they_were_made() {
    // The check runs get_maintainer.pl again on the tree; here, that each cover letter has a
    // To: and the lists every topic of ours touches.
    for topic in load(&version_dir()).unwrap() {
        let cover = std::fs::read_to_string(&topic.cover_letter).unwrap();
        let r = recipients(&cover);
        assert!(r.contains("linux-kernel@vger.kernel.org"), "{}: {r:?}", topic.name);
        assert!(!cover.contains("*** SUBJECT HERE ***"), "{}", topic.name);
        assert!(!cover.contains("*** BLURB HERE ***"), "{}", topic.name);
    }
}

#[test]
fn rust_warnings_with_their_place() {
    let log = "  CLIPPY  rust/kernel.o\nwarning: unsafe block missing a safety comment\n  \
               --> rust/kernel/task.rs:71:9\n   |\nwarning: 1 warning emitted\n  LD  vmlinux\n";
    assert_eq!(
        rust_warnings(log),
        ["rust/kernel/task.rs:71:9: unsafe block missing a safety comment"]
    );
}

#[test]
fn judging_the_longest_symbol_case_before_and_after() {
    let before = kunit::parse_suite(
        include_str!("../../kunit/src/tests/builtin-before.log"),
        "longest-symbol",
    );
    let after = kunit::parse_suite(
        include_str!("../../kunit/src/tests/builtin-after.log"),
        "longest-symbol",
    );
    let fail = Expect {
        outcome: kunit::Outcome::Fail,
        says: Some("printed as ".to_owned()),
        console: Vec::new(),
    };
    let pass = Expect { outcome: kunit::Outcome::Pass, says: None, console: Vec::new() };
    let case = Some("test_too_long_symbol_sprint");
    let text = format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n",
        judge(&before, case, "", &fail),
        judge(&after, case, "", &pass),
        judge(&after, case, "", &fail).map_err(|e| e[..60].to_owned()),
        judge(&after, Some("no_such_case"), "", &pass),
    );
    expect![[r#"
        Ok("Fail: printed as sha256_ni_finup2x+0x958/0x961")
        Ok("Pass")
        Err("test_too_long_symbol_sprint ended Pass, not Fail: ok 3 test_")
        Err("no_such_case reported no result (the suite ran without it)")
    "#]]
    .assert_eq(&text);
}

#[test]
fn judging_a_whole_suite_and_the_console() {
    let log = include_str!("../../kunit/src/tests/builtin-after.log");
    let after = kunit::parse_suite(log, "longest-symbol");
    let before = kunit::parse_suite(
        include_str!("../../kunit/src/tests/builtin-before.log"),
        "longest-symbol",
    );
    let expect = |console: &[&str]| Expect {
        outcome: kunit::Outcome::Pass,
        says: None,
        console: console.iter().map(|l| (*l).to_owned()).collect(),
    };
    let (first, last) = ("# Subtest: longest-symbol", "ok 4 longest-symbol");
    let text = format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n",
        judge(&after, None, log, &expect(&[])),
        judge(&after, None, log, &expect(&[first, last])),
        judge(&after, None, log, &expect(&[last, first])),
        judge(&before, None, "", &expect(&[])).map_err(|e| e[..50].to_owned()),
        judge(&kunit::Suite::default(), None, "", &expect(&[])).map_err(|e| e[..40].to_owned()),
    );
    expect![[r##"
        Ok("all 3 cases Pass")
        Ok("all 3 cases Pass")
        Err("all 3 cases Pass, but the console never showed [\"# Subtest: longest-symbol\"]")
        Err("not every case of 3 cases ended Pass: test_too_lon")
        Err("the suite did not run whole: 0 results, ")
    "##]]
    .assert_eq(&text);
}

/// A patch written out gets its sender as `From:` and as its last trailer, a cover letter only
/// as `From:`; a message with no trailer gets a blank line before its sign-off.
#[test]
fn a_mail_written_out_by_its_sender() {
    let sender = "Ada Sender <ada@example.org>";
    let patch = "From 0123 Mon Sep 17 00:00:00 2001\nDate: Thu, 3 Dec 2026 17:55:20 +0000\n\
                 Subject: [PATCH 1/1] x: y\n\nWhy.\n\nFixes: 0123456789ab (\"x\")\nCc: a@b.c\n---\n \
                 f | 1 +\n";
    assert_eq!(
        write_out(patch, sender),
        "From 0123 Mon Sep 17 00:00:00 2001\nFrom: Ada Sender <ada@example.org>\n\
         Date: Thu, 3 Dec 2026 17:55:20 +0000\nSubject: [PATCH 1/1] x: y\n\nWhy.\n\n\
         Fixes: 0123456789ab (\"x\")\nCc: a@b.c\nSigned-off-by: Ada Sender <ada@example.org>\n\
         ---\n f | 1 +\n"
    );
    let bare = "Subject: [PATCH] x\n\nWhy, with no trailer.\n---\n f | 1 +\n";
    assert_eq!(
        write_out(bare, sender),
        "From: Ada Sender <ada@example.org>\nSubject: [PATCH] x\n\nWhy, with no trailer.\n\n\
         Signed-off-by: Ada Sender <ada@example.org>\n---\n f | 1 +\n"
    );
    let cover = "Date: x\nSubject: [PATCH 0/2] x\n\nThe series.\n\n  a: b\n\n f | 2 +-\n";
    assert_eq!(write_out(cover, sender), format!("From: {sender}\n{cover}"));
}

/// A series is mailed by a person git knows: no setting, a malformed one, or an address mail
/// cannot reach (a reserved domain, as the repository's own commits use, or noreply) is refused
/// with what to set; a test sender must be at a reserved domain, so its series cannot be mailed.
#[test]
fn who_may_write_a_series_out() {
    let cases: [(Option<&str>, Option<&str>); 8] = [
        (Some("Ada Lovelace"), Some("ada@kernel.org")),
        (None, Some("ada@kernel.org")),
        (Some("Ada Lovelace"), Some("  ")),
        (Some("Ada <Lovelace>"), Some("ada@kernel.org")),
        (Some("Ada Lovelace"), Some("ada@localhost")),
        (Some("Seed maintainers"), Some("maintainers@users.noreply.a-seed.example")),
        (Some("Ada Lovelace"), Some("ada@example.org")),
        (Some("Ada Lovelace"), Some("12345+ada@users.noreply.github.com")),
    ];
    let mut text = String::new();
    for (name, email) in cases {
        let got = mail_sender(name, email).map(|s| s.to_string()).map_err(|e| e.to_string());
        text.push_str(&format!("{got:?}\n"));
    }
    for ident in ["Check Sender <check@upstream-check.example>", "Ada <ada@kernel.org>", "Ada"] {
        let got = test_sender(ident).map(|s| s.to_string()).map_err(|e| e.to_string());
        text.push_str(&format!("{got:?}\n"));
    }
    expect![[r#"
        Ok("Ada Lovelace <ada@kernel.org>")
        Err("git's user.name is not set: a series is written out by its sender, who signs it; set yours with `git config --global user.name ...`")
        Err("git's user.email is not set: a series is written out by its sender, who signs it; set yours with `git config --global user.email ...`")
        Err("\"Ada <Lovelace> <ada@kernel.org>\" is not a sender (Name <local@domain>)")
        Err("\"Ada Lovelace <ada@localhost>\" is not a sender (Name <local@domain>)")
        Err("maintainers@users.noreply.a-seed.example: mail to users.noreply.a-seed.example cannot be delivered (a reserved domain, RFC 2606 and RFC 6761); no mailable patch names an invented sender: set `git config user.name` and `user.email` to your own")
        Err("ada@example.org: mail to example.org cannot be delivered (a reserved domain, RFC 2606 and RFC 6761); no mailable patch names an invented sender: set `git config user.name` and `user.email` to your own")
        Err("12345+ada@users.noreply.github.com: mail to users.noreply.github.com cannot be delivered (a noreply address); no mailable patch names an invented sender: set `git config user.name` and `user.email` to your own")
        Ok("Check Sender <check@upstream-check.example>")
        Err("ada@kernel.org: a test sender's address must be at a reserved domain (`.example`, `.test`, `.invalid`, RFC 2606) so that what it writes cannot be mailed")
        Err("\"Ada\" is not a sender (Name <local@domain>)")
    "#]].assert_eq(&text);
}

/// upstream-check takes the written-out series only when each mail is the kept one with its
/// sender added, so a patch edited after `make upstream-series` is not checked in its old form.
#[test]
fn a_written_out_mail_is_the_kept_one_and_its_sender() {
    let kept = "Date: x\nSubject: [PATCH 1/1] x: y\n\nWhy.\n---\n f | 1 +\n";
    let sender = "Check Sender <check@upstream-check.example>";
    let written = write_out(kept, sender);
    assert_eq!(written_out_by(kept, &written), Ok(sender.to_owned()));
    assert_eq!(written_out_by(kept, kept), Err(WrittenOutError::NoSender));
    let edited = kept.replace("Why.", "Why, better.");
    assert_eq!(written_out_by(&edited, &written), Err(WrittenOutError::Stale(sender.to_owned())));
}
