//! Our kernel fixes and extensions as mainline series (`demo-kernel/upstream/VERSION/`), and
//! what a maintainer checks before taking them.
//!
//! A version's folder holds `series` (the topics in the order they apply), `check.config` (the
//! configuration every patch is built with) and one folder per topic: `git format-patch
//! --cover-letter` files and `check.json`, the topic's reproducers ([`Reproducer`]): a KUnit
//! case, how it ends before the topic's fixes and after them. This crate reads them and judges
//! what the check saw (pure); the `upstream-check` binary runs git, the kernel's scripts, the
//! builds and the boots.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One topic: a series with its cover letter and its reproducers.
#[derive(Clone, Debug)]
pub struct Topic {
    /// The folder's name (`kallsyms`).
    pub name: String,
    /// `0000-cover-letter.patch`.
    pub cover_letter: PathBuf,
    /// The patches, in order.
    pub patches: Vec<PathBuf>,
    /// What shows the fixes work.
    pub reproducers: Vec<Reproducer>,
}

impl Topic {
    /// Its mails in the order they are sent: the cover letter, then the patches.
    pub fn mails(&self) -> impl Iterator<Item = &PathBuf> {
        std::iter::once(&self.cover_letter).chain(&self.patches)
    }
}

/// A KUnit case that fails before a topic's fixes and passes after them, or a new feature's KUnit
/// suite and what its use prints, which pass after the topic.
#[derive(Clone, Debug, Deserialize)]
pub struct Reproducer {
    /// What it shows.
    pub name: String,
    /// The build tree it needs: `check` (the check's own configuration) or another name for a
    /// tree with `config` on top.
    pub variant: String,
    /// Options on top of `check.config` (`CONFIG_LONGEST_SYM_KUNIT_TEST=m`).
    pub config: Vec<String>,
    /// The topic's patches that add the test, applied alone for the run before the fixes.
    pub test_patches: Vec<String>,
    /// Modules to copy into the guest's `/lib/modules`, relative to the objtree, in order...
    pub modules: Vec<String>,
    /// ...and the shell commands the guest runs: `insmod` of each module when there are none.
    #[serde(default)]
    pub steps: Vec<String>,
    /// The KUnit suite.
    pub suite: String,
    /// The case in it; every case of the suite when there is none.
    #[serde(default)]
    pub case: Option<String>,
    /// How the case ends before the fixes; nothing runs before a topic that adds a feature.
    #[serde(default)]
    pub before: Option<Expect>,
    /// How it ends after them.
    pub after: Expect,
}

/// How a case should end.
#[derive(Clone, Debug, Deserialize)]
pub struct Expect {
    /// Its outcome.
    pub outcome: kunit::Outcome,
    /// Text its lines must contain (a diagnostic, or the oops it caused).
    #[serde(default)]
    pub says: Option<String>,
    /// Text the console must show, each in a line of its own, in this order (what the steps
    /// print).
    #[serde(default)]
    pub console: Vec<String>,
}

/// A bad `demo-kernel/upstream/VERSION` folder.
#[derive(Debug, thiserror::Error)]
pub enum SeriesError {
    /// A file cannot be read.
    #[error("{}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A topic has no cover letter or no patch.
    #[error("{}: {what} (make the folder with `git format-patch --cover-letter`)", dir.display())]
    Incomplete {
        /// The topic's folder.
        dir: PathBuf,
        /// What is missing.
        what: &'static str,
    },
    /// `check.json` does not parse.
    #[error("{}: {source}", path.display())]
    Check {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// A reproducer names a patch the topic does not have.
    #[error("{}: reproducer \"{reproducer}\" names {patch}, which is not a patch of {topic}", path.display())]
    UnknownPatch {
        /// `check.json`.
        path: PathBuf,
        /// The reproducer.
        reproducer: String,
        /// The patch named.
        patch: String,
        /// The topic.
        topic: String,
    },
}

fn read(path: &Path) -> Result<String, SeriesError> {
    std::fs::read_to_string(path)
        .map_err(|source| SeriesError::Read { path: path.to_owned(), source })
}

/// Reads the topics of `dir` (`demo-kernel/upstream/7.3`) in `series` order.
pub fn load(dir: &Path) -> Result<Vec<Topic>, SeriesError> {
    let series = read(&dir.join("series"))?;
    workbench::inputs::parse_series(&series)
        .into_iter()
        .map(|(_, name)| load_topic(&dir.join(&name), &name))
        .collect()
}

fn load_topic(dir: &Path, name: &str) -> Result<Topic, SeriesError> {
    let entries = std::fs::read_dir(dir)
        .map_err(|source| SeriesError::Read { path: dir.to_owned(), source })?;
    let mut patches: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "patch"))
        .collect();
    patches.sort();
    let cover_letter = dir.join("0000-cover-letter.patch");
    let Some(first) = patches.first() else {
        return Err(SeriesError::Incomplete { dir: dir.to_owned(), what: "no patch" });
    };
    if *first != cover_letter {
        return Err(SeriesError::Incomplete { dir: dir.to_owned(), what: "no cover letter" });
    }
    patches.remove(0);
    if patches.is_empty() {
        return Err(SeriesError::Incomplete { dir: dir.to_owned(), what: "no patch" });
    }
    let check = dir.join("check.json");
    let reproducers: Vec<Reproducer> = if check.is_file() {
        serde_json::from_str(&read(&check)?)
            .map_err(|source| SeriesError::Check { path: check.clone(), source })?
    } else {
        Vec::new()
    };
    for r in &reproducers {
        for p in &r.test_patches {
            if !patches.iter().any(|q| q.file_name().is_some_and(|f| f == p.as_str())) {
                return Err(SeriesError::UnknownPatch {
                    path: check.clone(),
                    reproducer: r.name.clone(),
                    patch: p.clone(),
                    topic: name.to_owned(),
                });
            }
        }
    }
    Ok(Topic { name: name.to_owned(), cover_letter, patches, reproducers })
}

/// A patch or cover letter as the repository keeps it has no sender: no `From:` and no
/// `Signed-off-by:`, for no invented person may author or sign a mail; the sender's identity
/// goes in when the series is written out. Returns `mail` written out by `sender` (`Name
/// <email>`): a `From:` header before `Date:` (else before `Subject:`), and for a patch (a mail
/// with a `---` line after its message; a cover letter has none) a `Signed-off-by:` as its last
/// trailer.
pub fn write_out(mail: &str, sender: &str) -> String {
    let mut lines: Vec<String> = mail.lines().map(str::to_owned).collect();
    let header_end = lines.iter().position(String::is_empty).unwrap_or(lines.len());
    let from_at = (lines[..header_end].iter().position(|l| l.starts_with("Date: ")))
        .or_else(|| lines[..header_end].iter().position(|l| l.starts_with("Subject: ")))
        .unwrap_or(0);
    if let Some(separator) = lines.iter().skip(header_end).position(|l| l == "---") {
        let at = header_end + separator;
        let trailer = |l: &str| {
            l.split_once(": ").is_some_and(|(key, _)| {
                !key.is_empty() && key.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            })
        };
        let before = lines[..at].last().map(String::as_str).unwrap_or_default();
        let mut sign = vec![format!("Signed-off-by: {sender}")];
        if !before.is_empty() && !trailer(before) {
            sign.insert(0, String::new());
        }
        lines.splice(at..at, sign);
    }
    lines.insert(from_at, format!("From: {sender}"));
    let mut out = lines.join("\n");
    if mail.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// Who a series is written out by for mailing: a person, who certifies the Developer's
/// Certificate of Origin with the `Signed-off-by:` and answers the review at this address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sender {
    /// `user.name`.
    pub name: String,
    /// `user.email`.
    pub email: String,
}

impl std::fmt::Display for Sender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} <{}>", self.name, self.email)
    }
}

/// Why an identity cannot write a series out.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SenderError {
    /// git has no such setting.
    #[error(
        "git's {key} is not set: a series is written out by its sender, who signs it; \
         set yours with `git config --global {key} ...`"
    )]
    Unset {
        /// `user.name` or `user.email`.
        key: &'static str,
    },
    /// The address is not `local@domain`, or the name is not a plain one line.
    #[error("\"{0}\" is not a sender (Name <local@domain>)")]
    Malformed(String),
    /// Mail to the address cannot be delivered, so it names nobody who can answer for the patch.
    #[error(
        "{email}: mail to {domain} cannot be delivered ({why}); no mailable patch names an \
         invented sender: set `git config user.name` and `user.email` to your own"
    )]
    Undeliverable {
        /// The address.
        email: String,
        /// Its domain.
        domain: String,
        /// The rule it breaks.
        why: &'static str,
    },
    /// A test sender whose mail could be delivered: a series written for a check must not be
    /// mailable by mistake.
    #[error(
        "{0}: a test sender's address must be at a reserved domain (`.example`, `.test`, \
         `.invalid`, RFC 2606) so that what it writes cannot be mailed"
    )]
    DeliverableTestSender(String),
}

/// The sender of a series to be mailed, from git's `user.name` and `user.email`: refused when
/// one is not set, or when mail to the address cannot be delivered (a reserved domain, a
/// `noreply` address), as such an identity is invented.
pub fn mail_sender(name: Option<&str>, email: Option<&str>) -> Result<Sender, SenderError> {
    let name = name.map(str::trim).filter(|n| !n.is_empty());
    let email = email.map(str::trim).filter(|e| !e.is_empty());
    let name = name.ok_or(SenderError::Unset { key: "user.name" })?;
    let email = email.ok_or(SenderError::Unset { key: "user.email" })?;
    let sender = parse_parts(name, email)?;
    let domain = sender.domain();
    let why = if reserved_domain(&domain) {
        "a reserved domain, RFC 2606 and RFC 6761"
    } else if noreply(&sender.email) {
        "a noreply address"
    } else {
        return Ok(sender);
    };
    Err(SenderError::Undeliverable { email: sender.email, domain, why })
}

/// A sender for a series written only to be checked (`Name <local@x.example>`): its address
/// must be at a reserved domain, so that nothing it writes can be mailed.
pub fn test_sender(ident: &str) -> Result<Sender, SenderError> {
    let malformed = || SenderError::Malformed(ident.to_owned());
    let (name, rest) = ident.split_once('<').ok_or_else(malformed)?;
    let email = rest.trim_end().strip_suffix('>').ok_or_else(malformed)?;
    let sender = parse_parts(name.trim(), email.trim())?;
    if !reserved_domain(&sender.domain()) {
        return Err(SenderError::DeliverableTestSender(sender.email));
    }
    Ok(sender)
}

impl Sender {
    /// The address's domain, lower-cased.
    fn domain(&self) -> String {
        self.email.rsplit_once('@').map_or("", |(_, d)| d).to_ascii_lowercase()
    }
}

fn parse_parts(name: &str, email: &str) -> Result<Sender, SenderError> {
    let malformed = || SenderError::Malformed(format!("{name} <{email}>"));
    let bad_name = name.is_empty() || name.contains(['<', '>', '\n', '\r']);
    let (local, domain) = email.split_once('@').ok_or_else(malformed)?;
    let bad_email = local.is_empty()
        || !domain.contains('.')
        || domain.starts_with('.')
        || domain.ends_with('.')
        || domain.contains('@')
        || email.contains(|c: char| c.is_whitespace() || "<>,".contains(c));
    if bad_name || bad_email {
        return Err(malformed());
    }
    Ok(Sender { name: name.to_owned(), email: email.to_owned() })
}

/// Whether `domain` (lower-case) is reserved, so that no mail to it is ever delivered: RFC
/// 2606's `.example`, `.test`, `.invalid`, `.localhost` and `example.{com,net,org}`, RFC 6761's
/// `.local`.
fn reserved_domain(domain: &str) -> bool {
    let tld = domain.rsplit('.').next().unwrap_or_default();
    ["example", "test", "invalid", "localhost", "local"].contains(&tld)
        || ["example.com", "example.net", "example.org"]
            .iter()
            .any(|r| domain == *r || domain.ends_with(&format!(".{r}")))
}

/// Whether `email` is a no-reply address: its local part, or a label of its domain, is
/// `noreply` or `no-reply`.
fn noreply(email: &str) -> bool {
    let email = email.to_ascii_lowercase();
    let is = |l: &str| l == "noreply" || l == "no-reply";
    let (local, domain) = email.rsplit_once('@').unwrap_or(("", &email));
    is(local) || domain.split('.').any(is)
}

/// How a written-out mail differs from what the repository keeps.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum WrittenOutError {
    /// It has no `From:` header.
    #[error("it has no From: header (write the series out with `make upstream-series`)")]
    NoSender,
    /// It is not the kept mail written out by its `From:`.
    #[error(
        "it is not the kept patch written out by {0} (write it out again with `make upstream-series`)"
    )]
    Stale(String),
}

/// The sender of `written`, a mail written out from `kept` by [`write_out`], or why it is not
/// one.
pub fn written_out_by(kept: &str, written: &str) -> Result<String, WrittenOutError> {
    let header = written.lines().take_while(|l| !l.is_empty());
    let sender = header
        .filter_map(|l| l.strip_prefix("From: "))
        .next()
        .ok_or(WrittenOutError::NoSender)?
        .to_owned();
    if write_out(kept, &sender) != written {
        return Err(WrittenOutError::Stale(sender));
    }
    Ok(sender)
}

/// The addresses in a mail's `To:` and `Cc:` headers (folded lines included), as written
/// (`Name <addr>` or `list@host`).
pub fn recipients(mail: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut current: Option<String> = None;
    let flush = |header: Option<String>, out: &mut BTreeSet<String>| {
        if let Some(h) = header {
            out.extend(h.split(',').map(str::trim).filter(|a| !a.is_empty()).map(str::to_owned));
        }
    };
    for line in mail.lines() {
        if line.is_empty() {
            break;
        }
        if line.starts_with([' ', '\t']) {
            if let Some(h) = &mut current {
                h.push(' ');
                h.push_str(line.trim());
            }
            continue;
        }
        flush(current.take(), &mut out);
        current =
            line.strip_prefix("To: ").or_else(|| line.strip_prefix("Cc: ")).map(str::to_owned);
    }
    flush(current, &mut out);
    out
}

/// The addresses `scripts/get_maintainer.pl` printed, one a line, without their role.
pub fn maintainers(output: &str) -> Vec<String> {
    output
        .lines()
        .map(|l| l.split(" (").next().unwrap_or(l).trim())
        .filter(|a| !a.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Those of `wanted` that the cover letter does not address.
pub fn missing_recipients(cover_letter: &str, wanted: &[String]) -> Vec<String> {
    let have = recipients(cover_letter);
    wanted.iter().filter(|w| !have.contains(*w)).cloned().collect()
}

/// Rust warnings in a kernel build log (rustc's and clippy's, with `CLIPPY=1`): each
/// `warning: ...` line with the `--> file:line` that follows it.
pub fn rust_warnings(log: &str) -> Vec<String> {
    let lines: Vec<&str> = log.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(message) = line.strip_prefix("warning: ") else { continue };
        // rustc's count lines: `warning: 2 warnings emitted`.
        if message.ends_with("warnings emitted") || message.ends_with("warning emitted") {
            continue;
        }
        let place = lines[i + 1..]
            .iter()
            .take(3)
            .find_map(|l| l.trim_start().strip_prefix("--> "))
            .unwrap_or("?");
        out.push(format!("{place}: {message}"));
    }
    out
}

/// Whether `suite`'s case `case`, or every case of it, ended as `expect` says and `console`
/// shows what it says, or how not.
pub fn judge(
    suite: &kunit::Suite,
    case: Option<&str>,
    console: &str,
    expect: &Expect,
) -> Result<String, String> {
    let cases = match case {
        Some(case) => judge_case(suite, case, expect)?,
        None => judge_suite(suite, expect)?,
    };
    let missing = missing_lines(console, &expect.console);
    if !missing.is_empty() {
        return Err(format!("{cases}, but the console never showed {missing:?}"));
    }
    Ok(cases)
}

/// Those of `wanted` that no line of `console` shows after the line that showed the one before.
pub fn missing_lines(console: &str, wanted: &[String]) -> Vec<String> {
    let mut lines = console.lines();
    wanted.iter().filter(|w| !lines.any(|l| l.contains(w.as_str()))).cloned().collect()
}

/// Whether every case of `suite` ended as `expect` says, the suite complete.
fn judge_suite(suite: &kunit::Suite, expect: &Expect) -> Result<String, String> {
    if let Some(why) = suite.incomplete() {
        return Err(format!("the suite did not run whole: {why}"));
    }
    let wrong: Vec<String> = suite
        .cases
        .iter()
        .filter(|c| c.outcome != expect.outcome)
        .map(|c| format!("{} ended {:?}", c.name, c.outcome))
        .collect();
    if suite.cases.is_empty() || !wrong.is_empty() {
        return Err(format!(
            "not every case of {} cases ended {:?}: {}",
            suite.cases.len(),
            expect.outcome,
            wrong.join("; ")
        ));
    }
    Ok(format!("all {} cases {:?}", suite.cases.len(), expect.outcome))
}

fn judge_case(suite: &kunit::Suite, case: &str, expect: &Expect) -> Result<String, String> {
    let Some(found) = suite.case(case) else {
        let why = suite.incomplete().unwrap_or_else(|| "the suite ran without it".to_owned());
        return Err(format!("{case} reported no result ({why})"));
    };
    if found.outcome != expect.outcome {
        return Err(format!(
            "{case} ended {:?}, not {:?}: {}",
            found.outcome,
            expect.outcome,
            found.ktap.join(" | ")
        ));
    }
    if let Some(says) = &expect.says {
        let Some(line) = found.ktap.iter().find(|l| l.contains(says.as_str())) else {
            return Err(format!(
                "{case} ended {:?}, but never said \"{says}\": {}",
                found.outcome,
                found.ktap.join(" | ")
            ));
        };
        return Ok(format!("{:?}: {}", found.outcome, line.trim()));
    }
    Ok(format!("{:?}", found.outcome))
}

#[cfg(test)]
mod tests;
