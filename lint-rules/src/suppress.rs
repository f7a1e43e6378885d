//! Suppressions: `// lint-allow(rule, ...): reason` for one line and
//! `// lint-allow-item(rule, ...): reason` for the item that follows. A reason is required;
//! suppressions that suppress nothing are reported.
//!
//! A per-line suppression at the end of a line of code covers that line; on a line of its own
//! it covers the next line of code. The rules may be ours or clippy's (`clippy::unwrap_used`).
//!
//! This module reads the comments (pure, below the rules: `bad-suppression` and
//! `unused-suppression` judge what it reads); `lint::lint_file` applies
//! them.

use ra_ap_syntax::ast::{self, AstNode, AstToken};
use ra_ap_syntax::{SyntaxKind, SyntaxNode, SyntaxToken};

use crate::lines::{LineIndex, Span};

/// Which form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `lint-allow`: one line.
    Line,
    /// `lint-allow-item`: an item.
    Item,
}

/// One suppression comment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Suppression {
    /// Its form.
    pub form: Form,
    /// The rules it names.
    pub rules: Vec<String>,
    /// The reason after the colon, if given.
    pub reason: Option<String>,
    /// Where the comment is.
    pub span: Span,
    /// The lines it covers (1-based, inclusive).
    pub lines: (usize, usize),
}

/// The suppressions in a parsed file.
pub fn parse(root: &SyntaxNode, tokens: &[SyntaxToken], index: &LineIndex<'_>) -> Vec<Suppression> {
    let mut found = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if t.kind() != SyntaxKind::COMMENT {
            continue;
        }
        let Some(c) = ast::Comment::cast(t.clone()) else { continue };
        if c.is_doc() {
            continue;
        }
        let body = t.text().trim_start_matches('/').trim();
        let (form, rest) = if let Some(rest) = body.strip_prefix("lint-allow-item(") {
            (Form::Item, rest)
        } else if let Some(rest) = body.strip_prefix("lint-allow(") {
            (Form::Line, rest)
        } else {
            continue;
        };
        let Some((names, after)) = rest.split_once(')') else { continue };
        let rules: Vec<String> =
            names.split(',').map(|s| s.trim().to_owned()).filter(|s| !s.is_empty()).collect();
        let reason = after
            .trim_start()
            .strip_prefix(':')
            .map(|r| r.trim().to_owned())
            .filter(|r| !r.is_empty());
        let r = t.text_range();
        let span = index.span(r.start().into(), r.end().into());
        let lines = match form {
            Form::Line => {
                let trailing = tokens[..i]
                    .iter()
                    .rev()
                    .take_while(|p| {
                        !(p.kind() == SyntaxKind::WHITESPACE && p.text().contains('\n'))
                    })
                    .any(|p| p.kind() != SyntaxKind::WHITESPACE);
                if trailing {
                    (span.line, span.line)
                } else {
                    let next = tokens[i + 1..].iter().find(|n| {
                        !matches!(n.kind(), SyntaxKind::WHITESPACE | SyntaxKind::COMMENT)
                    });
                    let line = next
                        .map_or(span.line + 1, |n| index.line_col(n.text_range().start().into()).0);
                    (line, line)
                }
            }
            Form::Item => item_lines(root, usize::from(r.end()), index)
                .unwrap_or((span.line + 1, span.line + 1)),
        };
        found.push(Suppression { form, rules, reason, span, lines });
    }
    found
}

/// The lines of the first item that starts (ignoring comments and attributes before it)
/// after `offset`.
fn item_lines(root: &SyntaxNode, offset: usize, index: &LineIndex<'_>) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for node in root.descendants() {
        if ast::Item::cast(node.clone()).is_none() && node.kind() != SyntaxKind::RECORD_FIELD {
            continue;
        }
        let first_code = node
            .descendants_with_tokens()
            .filter_map(|e| e.into_token())
            .find(|t| !matches!(t.kind(), SyntaxKind::WHITESPACE | SyntaxKind::COMMENT))?;
        let start = usize::from(first_code.text_range().start());
        if start < offset {
            continue;
        }
        let end = usize::from(node.text_range().end());
        if best.is_none_or(|(s, e)| start < s || (start == s && end > e)) {
            best = Some((start, end));
        }
    }
    let (start, end) = best?;
    Some((index.line_col(start).0, index.line_col(end.saturating_sub(1)).0))
}
