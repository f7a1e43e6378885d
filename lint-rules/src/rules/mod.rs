//! The rules, run on rust-analyzer's lossless syntax tree (comments included). Pure: text in,
//! findings and suppressions out.
//!
//! Each rule is a folder here, `<rule>/mod.rs`: its catalogue entry (`RULE`: id, summary,
//! rationale, examples, default level, clippy counterparts, and the `Check` that says which
//! of its functions to call), those functions, and its fixture (`fixture.rs`, which
//! `tests/rules.rs` lints against `tests/golden/`) where it has one of its own; the module's
//! documentation says where its test data is. `util` holds what several rules share: tokens
//! and trivia, the comments before a statement, test and compile-time contexts, panicking
//! calls, public functions, documentation. Adding a rule is adding its folder, its `mod` line
//! here, its line in [`RULES`] and its fixture's line in `tests/rules.rs` (whose tests ask for
//! each).
//!
//! [`lint_source`] parses a file and walks it once, calling each rule's checks on the whole
//! file, at every token, at every doc block and at every node. Code inside macro invocations
//! and `macro_rules!` bodies is only a token tree to the parser; the rules that matter there
//! (`// SAFETY:`, panics, `bindings`, `core::ffi`) work on tokens so that they see it too.

use std::ops::Range;

use ra_ap_syntax::ast::{self, AstNode, AstToken};
use ra_ap_syntax::{Edition, SourceFile, SyntaxKind, SyntaxNode, SyntaxToken};

use crate::catalogue::{Level, RULES};
use crate::finding::{Finding, LineIndex, Origin};
use crate::suppress::{self, Suppression};

mod util;

pub(crate) mod bad_suppression;
pub(crate) mod core_ffi_types;
pub(crate) mod doc_first_sentence;
pub(crate) mod expect_over_allow;
pub(crate) mod infallible_alloc;
pub(crate) mod invariant_comment;
pub(crate) mod leaf_bindings;
pub(crate) mod module_docs;
pub(crate) mod no_float;
pub(crate) mod no_panic;
pub(crate) mod panics_section;
pub(crate) mod safety_comment;
pub(crate) mod safety_section;
pub(crate) mod safety_todo;
pub(crate) mod spdx;
pub(crate) mod srctree_links;
pub(crate) mod unused_suppression;
pub(crate) mod vertical_imports;

use util::{attr_parts, has_attr_named};

pub use no_panic::exempt as no_panic_exempt;

/// What kind of code a file is, which decides the rules that apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// Kernel code in a core crate (`rust/kernel/`, `rust/ffi.rs`, ...).
    Kernel,
    /// A leaf module: a driver, a sample or an out-of-tree module.
    Leaf,
    /// Code that does not run in the kernel: proc macros, which run in the compiler
    /// (`rust/macros/`, pin-init's `rust/pin-init/internal/`), build tools (`scripts/`), and
    /// pin-init's userspace examples (`rust/pin-init/examples/`, programs on `std` and
    /// pthreads). Only the documentation and comment rules apply.
    Host,
}

/// The kind of a file from its path relative to the source tree (or of an out-of-tree module,
/// which is a leaf).
pub fn file_kind(rel_path: &str) -> FileKind {
    let p = rel_path.trim_start_matches("./");
    const HOST: &[&str] = &[
        "rust/macros/",
        "rust/pin-init/internal/",
        "rust/pin-init/examples/",
        "scripts/",
        "tools/",
    ];
    if HOST.iter().any(|h| p.starts_with(h)) {
        FileKind::Host
    } else if p.starts_with("rust/") {
        FileKind::Kernel
    } else {
        FileKind::Leaf
    }
}

/// What to check a file as.
#[derive(Clone, Debug)]
pub struct FileContext {
    /// The name used in findings.
    pub name: String,
    /// Its kind.
    pub kind: FileKind,
    /// Whether it is the kernel's `ffi` crate, which defines the C types from `core::ffi`.
    pub is_ffi_crate: bool,
}

impl FileContext {
    /// The context of a file known by its path relative to the source tree.
    pub fn for_path(rel_path: &str) -> FileContext {
        let p = rel_path.trim_start_matches("./");
        FileContext { name: p.to_owned(), kind: file_kind(p), is_ffi_crate: p == "rust/ffi.rs" }
    }
}

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

/// Lints one file.
pub fn lint_source(file: &FileContext, text: &str) -> FileReport {
    let parse = SourceFile::parse(text, Edition::Edition2021);
    let index = LineIndex::new(text);
    let errors = parse.errors();
    if !errors.is_empty() {
        let findings = errors
            .iter()
            .take(5)
            .map(|e| {
                let r = e.range();
                finding(
                    file,
                    &index,
                    "parse-error",
                    Level::Error,
                    usize::from(r.start())..usize::from(r.end()),
                    format!("the file does not parse: {e}; its other rules were not checked"),
                    None,
                )
            })
            .collect();
        return FileReport { findings, suppressions: Vec::new(), parse_failed: true };
    }
    let root = parse.tree().syntax().clone();
    let tokens: Vec<SyntaxToken> =
        root.descendants_with_tokens().filter_map(|e| e.into_token()).collect();
    let mut cx =
        Cx { file, text, root: &root, tokens: &tokens, index: &index, findings: Vec::new() };
    walk(&mut cx);
    let mut findings = cx.findings;
    // The kernel's own `#[allow(clippy::x)]`/`#[expect(clippy::x)]` covers our counterpart of x.
    findings.retain(|f| {
        let Some(lints) = crate::catalogue::rule(&f.rule).map(|r| r.clippy) else { return true };
        let offset = ra_ap_syntax::TextSize::from(f.span.start.min(text.len()) as u32);
        let token = root.token_at_offset(offset).right_biased();
        let node = token.and_then(|t| t.parent());
        !lints.iter().any(|lint| node.as_ref().is_some_and(|n| clippy_lint_allowed(n, lint)))
    });
    findings.sort_by(|a, b| (a.span.start, &a.rule).cmp(&(b.span.start, &b.rule)));
    findings.dedup_by(|a, b| a.span.start == b.span.start && a.rule == b.rule);
    let suppressions = suppress::parse(&root, &tokens, &index);
    FileReport { findings, suppressions, parse_failed: false }
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
    /// A rule that the walk does not call (the suppression rules, which `suppress` checks).
    pub(crate) const NONE: Check = Check { file: None, token: None, doc: None, node: None };
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

/// One file being linted, for the rules' checks: what it is, its text, tree and tokens, and the
/// findings so far.
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
    findings: Vec<Finding>,
}

impl Cx<'_> {
    /// Reports `rule` (an id of the catalogue) at the byte range `start..end`, at its default
    /// level.
    pub(crate) fn push(
        &mut self,
        rule: &str,
        start: usize,
        end: usize,
        message: String,
        help: Option<&str>,
    ) {
        let level = crate::catalogue::rule(rule).map_or(Level::Error, |r| r.default_level);
        let f = finding(self.file, self.index, rule, level, start..end, message, help);
        self.findings.push(f);
    }

    /// Reports `rule` at a token.
    pub(crate) fn push_token(
        &mut self,
        rule: &str,
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
}

/// A finding of ours in `file` at the byte range `at`.
fn finding(
    file: &FileContext,
    index: &LineIndex<'_>,
    rule: &str,
    level: Level,
    at: Range<usize>,
    message: String,
    help: Option<&str>,
) -> Finding {
    Finding {
        file: file.name.clone(),
        span: index.span(at.start, at.end),
        rule: rule.to_owned(),
        level,
        message,
        help: help.map(str::to_owned),
        origin: Origin::LintRules,
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

/// A line of a doc block, without its `///` or `//!` (and one space after it), and the comment
/// it is in.
pub(crate) type DocLine<'t> = (String, &'t SyntaxToken);

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_kinds_come_from_the_path() {
        assert_eq!(file_kind("rust/kernel/sync/arc.rs"), FileKind::Kernel);
        assert_eq!(file_kind("rust/macros/module.rs"), FileKind::Host);
        assert_eq!(file_kind("drivers/net/phy/qt2025.rs"), FileKind::Leaf);
        assert_eq!(file_kind("samples/rust/rust_minimal.rs"), FileKind::Leaf);
        assert_eq!(file_kind("./scripts/generate_rust_target.rs"), FileKind::Host);
        // pin-init (7.3): the library is kernel code, its proc macros and its userspace
        // examples are not (no-panic and infallible-alloc reported `unwrap()` and `vec![]` in
        // a proc macro and in programs on `std`).
        assert_eq!(file_kind("rust/pin-init/src/lib.rs"), FileKind::Kernel);
        assert_eq!(file_kind("rust/pin-init/internal/src/init.rs"), FileKind::Host);
        assert_eq!(file_kind("rust/pin-init/examples/mutex.rs"), FileKind::Host);
    }
}
