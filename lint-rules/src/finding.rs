//! Findings: what a rule (ours or clippy's) says about a place in a file, with positions. A
//! finding of ours points at its rule ([`Origin::Rule`]), not at an id to look up.

use crate::lines::Span;
use crate::rule::{Level, Rule};

/// The name parse errors are reported under (`error[parse-error]`, and `lint_rules::parse-error`
/// in rustc's JSON). It is not a rule: see [`Origin::Parser`].
pub const PARSE_ERROR: &str = "parse-error";

/// Who found it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// One of our rules.
    Rule(&'static Rule),
    /// rust-analyzer's parser: the file does not parse, so none of our rules was checked on it.
    /// Not a rule of the catalogue: there is nothing to explain or configure, and fixing the
    /// syntax is the only way out; it is reported, at error level, under the name
    /// [`PARSE_ERROR`], so that a broken file is never taken for a clean one.
    Parser,
    /// clippy or rustc, from `make CLIPPY=1`: the lint (`clippy::undocumented_unsafe_blocks`,
    /// or `rustc` for an error without a code).
    Clippy(String),
}

/// One finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The file, as the caller named it.
    pub file: String,
    /// Where.
    pub span: Span,
    /// Its level.
    pub level: Level,
    /// The message, one line.
    pub message: String,
    /// An optional help line (what to do).
    pub help: Option<String>,
    /// Who found it: which rule of ours, the parser, or which clippy lint.
    pub origin: Origin,
}

impl Finding {
    /// The name it is reported under: our rule's id (`safety-comment`), [`PARSE_ERROR`], or the
    /// clippy lint (`clippy::undocumented_unsafe_blocks`).
    pub fn rule(&self) -> &str {
        match &self.origin {
            Origin::Rule(rule) => rule.id,
            Origin::Parser => PARSE_ERROR,
            Origin::Clippy(lint) => lint,
        }
    }

    /// Our rule that found it, if one did.
    pub fn ours(&self) -> Option<&'static Rule> {
        match self.origin {
            Origin::Rule(rule) => Some(rule),
            Origin::Parser | Origin::Clippy(_) => None,
        }
    }
}
