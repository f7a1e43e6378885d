//! The walk: [`lint_source`] parses a file and walks it once, calling the checks of every rule
//! of [`RULES`] on the whole file, at every token, at every doc block and at every node. Pure:
//! text in, findings and suppressions out. Code inside macro invocations and `macro_rules!`
//! bodies is only a token tree to the parser; the rules that matter there (`// SAFETY:`,
//! panics, `bindings`, `core::ffi`) work on tokens so that they see it too.
//!
//! It sits above the list of rules, which sits above the rules.

use ra_ap_syntax::ast::{self, AstNode, AstToken};
use ra_ap_syntax::{Edition, SourceFile, SyntaxError, SyntaxKind, SyntaxNode, SyntaxToken};

use crate::file_kind::FileContext;
use crate::finding::{Finding, Origin};
use crate::lines::LineIndex;
use crate::rule::{Cx, DocLine, Hit, Level};
use crate::rules::RULES;
use crate::rules::util::{attr_parts, has_attr_named};
use crate::suppress::{self, Suppression};

/// What linting one file gives: findings at their rules' default levels (disabled rules
/// included, with level `Allow`; the caller filters) and the suppressions it contains.
#[derive(Debug, Default)]
pub struct FileReport {
    /// Findings, in file order.
    pub findings: Vec<Finding>,
    /// The file's `// lint-allow` comments.
    pub suppressions: Vec<Suppression>,
    /// Whether the file did not parse (its parse errors are the findings).
    pub parse_failed: bool,
}

/// Lints one file: parses it and walks it once (or reports why it does not parse).
pub fn lint_source(file: &FileContext, text: &str) -> FileReport {
    let parse = SourceFile::parse(text, Edition::Edition2021);
    let index = LineIndex::new(text);
    let errors = parse.errors();
    if !errors.is_empty() {
        let findings = parse_errors(file, &index, &errors);
        return FileReport { findings, suppressions: Vec::new(), parse_failed: true };
    }
    let root = parse.tree().syntax().clone();
    let tokens: Vec<SyntaxToken> =
        root.descendants_with_tokens().filter_map(|e| e.into_token()).collect();
    let mut cx = Cx::new(file, text, &root, &tokens, &index);
    walk(&mut cx);
    let mut findings: Vec<Finding> =
        cx.into_hits().into_iter().map(|hit| finding(file, &index, hit)).collect();
    findings.retain(|f| !allowed_by_clippy_attribute(&root, text, f));
    findings.sort_by(|a, b| (a.span.start, a.rule()).cmp(&(b.span.start, b.rule())));
    findings.dedup_by(|a, b| a.span.start == b.span.start && a.origin == b.origin);
    let suppressions = suppress::parse(&root, &tokens, &index);
    FileReport { findings, suppressions, parse_failed: false }
}

/// A file's first five parse errors, as findings of the parser ([`Origin::Parser`]).
fn parse_errors(file: &FileContext, index: &LineIndex<'_>, errors: &[SyntaxError]) -> Vec<Finding> {
    errors
        .iter()
        .take(5)
        .map(|e| {
            let r = e.range();
            Finding {
                file: file.name.clone(),
                span: index.span(r.start().into(), r.end().into()),
                level: Level::Error,
                message: format!("the file does not parse: {e}; its other rules were not checked"),
                help: None,
                origin: Origin::Parser,
            }
        })
        .collect()
}

/// The finding of a check's hit in `file`, at its rule's default level.
fn finding(file: &FileContext, index: &LineIndex<'_>, hit: Hit) -> Finding {
    Finding {
        file: file.name.clone(),
        span: index.span(hit.at.start, hit.at.end),
        level: hit.rule.default_level,
        message: hit.message,
        help: hit.help,
        origin: Origin::Rule(hit.rule),
    }
}

/// Whether the kernel's own `#[allow(clippy::x)]`/`#[expect(clippy::x)]` around our finding `f`
/// covers it: x is its rule's clippy counterpart.
fn allowed_by_clippy_attribute(root: &SyntaxNode, text: &str, f: &Finding) -> bool {
    let Some(rule) = f.ours() else { return false };
    let offset = ra_ap_syntax::TextSize::from(f.span.start.min(text.len()) as u32);
    let node = root.token_at_offset(offset).right_biased().and_then(|t| t.parent());
    rule.clippy.iter().any(|lint| node.as_ref().is_some_and(|n| clippy_lint_allowed(n, lint)))
}

/// Calls every rule's checks: on the file, on every token, on every doc block, on every node.
fn walk(cx: &mut Cx<'_>) {
    let (root, tokens) = (cx.root, cx.tokens);
    for check in RULES.iter().filter_map(|r| r.check.file) {
        check(cx);
    }
    let on_token: Vec<_> = RULES.iter().filter_map(|r| r.check.token).collect();
    for i in 0..tokens.len() {
        for check in &on_token {
            check(cx, i);
        }
    }
    let on_doc: Vec<_> = RULES.iter().filter_map(|r| r.check.doc).collect();
    for block in doc_blocks(tokens) {
        let lines = block.lines();
        for check in &on_doc {
            check(cx, &lines);
        }
    }
    let on_node: Vec<_> = RULES.iter().filter_map(|r| r.check.node).collect();
    for node in root.descendants() {
        for check in &on_node {
            check(cx, &node);
        }
    }
}

/// Whether the item around `node` says (with `#[allow]` or `#[expect]`) that it breaks the
/// clippy lint `lint`: the kernel's own reviewed exception, which our counterpart respects.
fn clippy_lint_allowed(node: &SyntaxNode, lint: &str) -> bool {
    node.ancestors().any(|n| {
        has_attr_named(&n, &|a| {
            let (name, rest) = attr_parts(a);
            matches!(name.as_str(), "allow" | "expect")
                && rest.split([',', '(', ')']).any(|w| w.trim() == lint)
        })
    })
}

/// A run of doc comments of one item (or module), with their text stripped of the prefix.
struct DocBlock<'t> {
    tokens: Vec<&'t SyntaxToken>,
}

impl<'t> DocBlock<'t> {
    fn lines(&self) -> Vec<DocLine<'t>> {
        let mut lines = Vec::new();
        for t in &self.tokens {
            let c = ast::Comment::cast((*t).clone()).expect("doc comments only");
            let (text, _) = c.doc_comment().unwrap_or(("", 0.into()));
            if text.trim().is_empty() {
                lines.push((String::new(), *t));
            }
            for l in text.lines() {
                lines.push((l.strip_prefix(' ').unwrap_or(l).to_owned(), *t));
            }
        }
        lines
    }
}

/// The doc blocks of a file: runs of outer (`///`) or inner (`//!`) doc comments with only
/// whitespace between them.
fn doc_blocks(tokens: &[SyntaxToken]) -> Vec<DocBlock<'_>> {
    let mut blocks: Vec<DocBlock<'_>> = Vec::new();
    let mut current: Option<(bool, DocBlock<'_>)> = None;
    for t in tokens {
        let doc = ast::Comment::cast(t.clone()).filter(|c| c.is_doc());
        match (doc, &mut current) {
            (Some(c), Some((inner, block))) if c.is_inner() == *inner => block.tokens.push(t),
            (Some(c), _) => {
                if let Some((_, b)) = current.take() {
                    blocks.push(b);
                }
                current = Some((c.is_inner(), DocBlock { tokens: vec![t] }));
            }
            (None, Some(_)) if t.kind() == SyntaxKind::WHITESPACE => {}
            (None, _) => {
                if let Some((_, b)) = current.take() {
                    blocks.push(b);
                }
            }
        }
    }
    if let Some((_, b)) = current.take() {
        blocks.push(b);
    }
    blocks
}
