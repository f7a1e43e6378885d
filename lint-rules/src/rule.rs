//! What a rule is, and what its checks get: the types every rule's folder uses, below all of
//! them. A rule is a [`Rule`] value, a `static` beside its checks
//! (`src/rules/<rule>/mod.rs`'s `RULE`); its checks report through `Cx::push` with a
//! reference to it, and findings keep that reference: no rule is found by its id on the way.
//!
//! This module imports no rule, no catalogue and no walker: the rules import it, the list of
//! them (`rules::RULES`) sits above the rules, and the walk (`walk`) above the list.

use std::fmt;
use std::ops::Range;

use ra_ap_syntax::{SyntaxNode, SyntaxToken};

use crate::file_kind::{FileContext, FileKind};
use crate::lines::LineIndex;

/// How seriously a finding is taken: errors make `lint-rules check` exit 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Not checked unless enabled.
    Allow,
    /// Reported, does not fail the run.
    Warning,
    /// Reported, fails the run.
    Error,
}

impl Level {
    /// The word rustc uses for the level (`warning`, `error`; `allow` for disabled rules).
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }

    /// Parses `allow`, `warn`/`warning` or `error`/`deny`.
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "allow" | "off" => Some(Level::Allow),
            "warn" | "warning" => Some(Level::Warning),
            "error" | "deny" => Some(Level::Error),
            _ => None,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One rule of the catalogue. Each is a `static` in its folder, and the rest of the crate
/// holds `&'static Rule`s to it; two rules are the same when their ids are (a test keeps ids
/// unique).
pub struct Rule {
    /// The id used in findings and suppressions (`safety-comment`).
    pub id: &'static str,
    /// One line: what the rule asks for.
    pub summary: &'static str,
    /// Why, citing the guideline it comes from.
    pub rationale: &'static str,
    /// Code that follows the rule.
    pub good: &'static str,
    /// Code that breaks it.
    pub bad: &'static str,
    /// The level it has unless configured otherwise.
    pub default_level: Level,
    /// The clippy lints that cover the same ground on built crates (both run; the merged
    /// report keeps one finding per place).
    pub clippy: &'static [&'static str],
    /// Where the rule looks: its functions that the walk calls.
    pub(crate) check: Check,
}

impl PartialEq for Rule {
    fn eq(&self, other: &Rule) -> bool {
        self.id == other.id
    }
}

impl Eq for Rule {}

impl fmt::Debug for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Rule({})", self.id)
    }
}

/// Where a rule looks: the functions of it that the walk calls, on the whole file first, then
/// at every token, at every doc block and at every node. Findings are sorted by place and rule
/// afterwards, so the order of the rules does not matter; of a rule's own findings at one
/// place, the first it gave is kept.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Check {
    /// Once per file (a rule about the file as a whole, or one that walks it its own way).
    pub(crate) file: Option<fn(&mut Cx<'_>)>,
    /// At every token (`cx.tokens[i]`), in file order, comments included.
    pub(crate) token: Option<fn(&mut Cx<'_>, usize)>,
    /// At every run of doc comments of one item (or module), as its lines.
    pub(crate) doc: Option<fn(&mut Cx<'_>, &[DocLine<'_>])>,
    /// At every syntax node, in preorder.
    pub(crate) node: Option<fn(&mut Cx<'_>, &SyntaxNode)>,
}

impl Check {
    /// A rule that the walk does not call (the suppression rules, which are checked where
    /// suppressions are applied).
    pub(crate) const NONE: Check = Check { file: None, token: None, doc: None, node: None };
}

/// A line of a doc block, without its `///` or `//!` (and one space after it), and the comment
/// it is in.
pub(crate) type DocLine<'t> = (String, &'t SyntaxToken);

/// What a check reported: its rule, the byte range, the message and what to do. The walk makes
/// findings of them (with lines and columns, the file's name and the rule's level).
#[derive(Debug)]
pub(crate) struct Hit {
    /// The rule that reported it.
    pub(crate) rule: &'static Rule,
    /// Where, in bytes.
    pub(crate) at: Range<usize>,
    /// The message, one line.
    pub(crate) message: String,
    /// What to do, if the rule says.
    pub(crate) help: Option<String>,
}

/// One file being linted, for the rules' checks: what it is, its text, tree and tokens, and
/// what the checks reported so far.
pub(crate) struct Cx<'a> {
    /// The file's name and kind.
    pub(crate) file: &'a FileContext,
    /// Its text.
    pub(crate) text: &'a str,
    /// Its syntax tree.
    pub(crate) root: &'a SyntaxNode,
    /// Its tokens, in order.
    pub(crate) tokens: &'a [SyntaxToken],
    /// Its lines.
    pub(crate) index: &'a LineIndex<'a>,
    hits: Vec<Hit>,
}

impl<'a> Cx<'a> {
    /// A file to check, with nothing reported yet.
    pub(crate) fn new(
        file: &'a FileContext,
        text: &'a str,
        root: &'a SyntaxNode,
        tokens: &'a [SyntaxToken],
        index: &'a LineIndex<'a>,
    ) -> Cx<'a> {
        Cx { file, text, root, tokens, index, hits: Vec::new() }
    }

    /// Reports `rule` at the byte range `start..end`.
    pub(crate) fn push(
        &mut self,
        rule: &'static Rule,
        start: usize,
        end: usize,
        message: String,
        help: Option<&str>,
    ) {
        self.hits.push(Hit { rule, at: start..end, message, help: help.map(str::to_owned) });
    }

    /// Reports `rule` at a token.
    pub(crate) fn push_token(
        &mut self,
        rule: &'static Rule,
        token: &SyntaxToken,
        message: String,
        help: Option<&str>,
    ) {
        let r = token.text_range();
        self.push(rule, r.start().into(), r.end().into(), message, help);
    }

    /// Whether the file runs in the kernel (not host code), where the code rules apply.
    pub(crate) fn kernel_code(&self) -> bool {
        self.file.kind != FileKind::Host
    }

    /// What the checks reported, in the order they did.
    pub(crate) fn into_hits(self) -> Vec<Hit> {
        self.hits
    }
}
