//! Helpers the rules share: tokens and trivia, the comments before a statement, test and
//! compile-time contexts, panicking calls, `macro_rules!` matchers, public functions, and
//! documentation.

use ra_ap_syntax::ast::{self, AstNode, AstToken, HasAttrs, HasVisibility};
use ra_ap_syntax::{SyntaxKind, SyntaxNode, SyntaxToken, T};

use crate::rule::DocLine;

pub(crate) fn is_trivia(t: &SyntaxToken) -> bool {
    matches!(t.kind(), SyntaxKind::WHITESPACE | SyntaxKind::COMMENT)
}

pub(crate) fn next_code(tokens: &[SyntaxToken], i: usize) -> Option<&SyntaxToken> {
    tokens[i + 1..].iter().find(|t| !is_trivia(t))
}

pub(crate) fn prev_code(tokens: &[SyntaxToken], i: usize) -> Option<(usize, &SyntaxToken)> {
    tokens[..i].iter().enumerate().rev().find(|(_, t)| !is_trivia(t))
}

pub(crate) fn in_token_tree(t: &SyntaxToken) -> bool {
    t.parent_ancestors().any(|n| n.kind() == SyntaxKind::TOKEN_TREE)
}

/// The comments that count as preceding `tokens[i]`: those before its statement (the
/// nearest ancestor that sits directly in a block, a module, a match or a struct literal) and
/// those inside the statement before it. In a macro's token tree, where there are no
/// statements, every comment back to the previous `;`, `{` or `}`.
pub(crate) fn statement_comments(tokens: &[SyntaxToken], i: usize) -> Vec<&SyntaxToken> {
    let t = &tokens[i];
    let mut found = Vec::new();
    if in_token_tree(t) {
        for t in tokens[..i].iter().rev() {
            match t.kind() {
                SyntaxKind::COMMENT => found.push(t),
                T![;] | T!['{'] | T!['}'] => break,
                _ => {}
            }
        }
        return found;
    }
    let anchor = t.parent_ancestors().find(|n| {
        n.parent().is_some_and(|p| {
            matches!(
                p.kind(),
                SyntaxKind::STMT_LIST
                    | SyntaxKind::SOURCE_FILE
                    | SyntaxKind::ITEM_LIST
                    | SyntaxKind::ASSOC_ITEM_LIST
                    | SyntaxKind::MATCH_ARM_LIST
                    | SyntaxKind::RECORD_EXPR_FIELD_LIST
            )
        })
    });
    let Some(anchor) = anchor else { return found };
    let start = anchor.text_range().start();
    // Back from the unsafe token to the anchor's start, then on over the trivia before it.
    let mut j = i;
    while j > 0 {
        j -= 1;
        let p = &tokens[j];
        let inside = p.text_range().start() >= start;
        if p.kind() == SyntaxKind::COMMENT {
            found.push(p);
        } else if !inside && !matches!(p.kind(), SyntaxKind::WHITESPACE | T![..]) {
            // `..` is part of a struct update's base (`..unsafe { zeroed() }`).
            break;
        }
    }
    found
}

pub(crate) fn is_safety_comment(t: &SyntaxToken) -> bool {
    ast::Comment::cast(t.clone()).is_some_and(|c| !c.is_doc())
        && t.text().lines().any(|l| {
            let l = l.trim_start().trim_start_matches('/').trim_start_matches('*').trim_start();
            l.starts_with("SAFETY:")
        })
}

pub(crate) fn has_attr_named(node: &SyntaxNode, pred: &dyn Fn(&ast::Attr) -> bool) -> bool {
    ast::AnyHasAttrs::cast(node.clone()).is_some_and(|n| n.attrs().any(|a| pred(&a)))
}

fn is_test_attr(a: &ast::Attr) -> bool {
    let (name, tt) = attr_parts(a);
    match name.as_str() {
        "test" | "kunit_tests" | "macros::kunit_tests" => true,
        "cfg" => {
            tt.split(|c: char| !c.is_alphanumeric() && c != '_').any(|w| w == "test")
                && !tt.contains("not(test")
        }
        _ => false,
    }
}

/// An attribute's path and the rest (`cfg`, `(test)`), from its text.
pub(crate) fn attr_parts(a: &ast::Attr) -> (String, String) {
    let text = a.syntax().text().to_string();
    let inner = text.trim_start_matches('#').trim_start_matches('!').trim();
    let inner = inner.strip_prefix('[').unwrap_or(inner);
    let inner = inner.strip_suffix(']').unwrap_or(inner).trim();
    let end = inner.find(['(', '=', ' ']).unwrap_or(inner.len());
    (inner[..end].to_owned(), inner[end..].to_owned())
}

/// Whether `node` (a token's parent) is inside test code: an item with `#[test]`,
/// `#[cfg(test)]` or `#[kunit_tests(...)]`.
pub(crate) fn in_test(node: &SyntaxNode) -> bool {
    node.ancestors().any(|n| has_attr_named(&n, &is_test_attr))
}

/// Whether a token is evaluated at compile time: in a `const` or `static` item, a `const fn`,
/// a `const` block or a const generic argument; inside a macro's token tree, in a statement
/// that starts with `const` or `static`, or in a block that such a statement holds.
pub(crate) fn in_const(tokens: &[SyntaxToken], i: usize) -> bool {
    let t = &tokens[i];
    if let Some(decided) = t.parent().and_then(|p| const_by_ancestors(&p)) {
        return decided;
    }
    in_token_tree(t) && token_tree_statement_is_const(tokens, i)
}

/// Whether `node` is evaluated at compile time, as the nearest enclosing item or block that
/// decides it says: `Some(true)` in a `const` or `static` item, a `const fn`, a `const` block
/// or a const generic argument, `Some(false)` in any other function, `None` when none encloses
/// it (a macro's token tree at the top level).
pub(crate) fn const_by_ancestors(node: &SyntaxNode) -> Option<bool> {
    for n in node.ancestors() {
        match n.kind() {
            SyntaxKind::CONST | SyntaxKind::STATIC | SyntaxKind::CONST_ARG => return Some(true),
            SyntaxKind::CONST_PARAM => return Some(true),
            SyntaxKind::FN => {
                return Some(ast::Fn::cast(n).is_some_and(|f| f.const_token().is_some()));
            }
            SyntaxKind::BLOCK_EXPR
                if ast::BlockExpr::cast(n.clone()).is_some_and(|b| b.const_token().is_some()) =>
            {
                return Some(true);
            }
            _ => {}
        }
    }
    None
}

fn token_tree_statement_is_const(tokens: &[SyntaxToken], i: usize) -> bool {
    let mut depth = 0usize;
    // Past a `;` of the block the token is in: its statement did not start with `const`, and
    // only the statement holding that block still counts (`const X: T = { let a = 1; f() };`).
    let mut to_enclosing_block = false;
    let mut j = i;
    while j > 0 {
        j -= 1;
        let t = &tokens[j];
        if is_trivia(t) {
            continue;
        }
        match t.kind() {
            T![')'] | T![']'] | T!['}'] => depth += 1,
            T!['('] | T!['['] | T!['{'] => {
                if depth > 0 {
                    depth -= 1;
                } else if t.kind() == T!['{'] {
                    // An enclosing block ends the statement, unless it is an expression's
                    // braces (`match x {`, `Foo {`, `= {`).
                    let before = prev_code(tokens, j).map(|(_, p)| p.kind());
                    if matches!(before, None | Some(T![=>] | T![;] | T!['{'] | T![,])) {
                        return false;
                    }
                    to_enclosing_block = false;
                }
            }
            T![;] if depth == 0 => to_enclosing_block = true,
            // The function the token is in: a `const fn` or not.
            T![fn] if depth == 0 && !to_enclosing_block => {
                let mut k = j;
                while let Some((p, prev)) = prev_code(tokens, k) {
                    match prev.kind() {
                        T![const] => return true,
                        T![unsafe] | T![extern] | T![async] | SyntaxKind::STRING => k = p,
                        _ => return false,
                    }
                }
                return false;
            }
            // `*const T` is a pointer type, not a constant.
            T![const] | T![static]
                if depth == 0
                    && !to_enclosing_block
                    && prev_code(tokens, j).is_none_or(|(_, p)| p.kind() != T![*]) =>
            {
                return true;
            }
            _ => {}
        }
    }
    false
}

/// The name of a `panic!`-like macro or `unwrap`/`expect` call at `tokens[i]`, if it is one.
pub(crate) fn panicking(tokens: &[SyntaxToken], i: usize, asserts: bool) -> Option<&'static str> {
    let t = &tokens[i];
    if t.kind() != SyntaxKind::IDENT {
        return None;
    }
    let next = next_code(tokens, i).map(|n| n.kind());
    let prev = prev_code(tokens, i).map(|(_, p)| p.kind());
    match t.text() {
        "unwrap" if prev == Some(T![.]) && next == Some(T!['(']) => {
            let j = tokens[i + 1..].iter().position(|n| !is_trivia(n))? + i + 1;
            (next_code(tokens, j).map(|n| n.kind()) == Some(T![')'])).then_some("unwrap()")
        }
        "expect" if prev == Some(T![.]) && next == Some(T!['(']) => Some("expect()"),
        "panic" if next == Some(T![!]) && is_placeholder_panic(tokens, i) => None,
        name if next == Some(T![!]) && prev != Some(T![!]) => {
            // `macro_rules! panic` defines, it does not call.
            let m = match name {
                "panic" => "panic!",
                "todo" => "todo!",
                "unimplemented" => "unimplemented!",
                "assert" if asserts => "assert!",
                "assert_eq" if asserts => "assert_eq!",
                "assert_ne" if asserts => "assert_ne!",
                "unreachable" if asserts => "unreachable!",
                _ => return None,
            };
            Some(m)
        }
        _ => None,
    }
}

/// `panic!()` without a message in a `macro_rules!` body: a value of type `!` that fills a
/// place for type checking (pin-init's never-run closures), not a panic that runs.
fn is_placeholder_panic(tokens: &[SyntaxToken], i: usize) -> bool {
    let in_macro_rules = tokens[i].parent_ancestors().any(|n| n.kind() == SyntaxKind::MACRO_RULES);
    let rest: Vec<SyntaxKind> =
        tokens[i + 1..].iter().filter(|t| !is_trivia(t)).take(3).map(|t| t.kind()).collect();
    in_macro_rules && rest == [T![!], T!['('], T![')']]
}

/// Whether a token is in the matcher (left-hand side) of a `macro_rules!` arm: a pattern of
/// tokens, not code (`(unsafe { $d:ident }) => { ... }` matches the tokens `unsafe { ... }`).
pub(crate) fn in_macro_rules_matcher(t: &SyntaxToken) -> bool {
    // The arm's matcher is a token tree directly in the `macro_rules!` body, followed by `=>`.
    let Some(arm) =
        t.parent_ancestors().take_while(|n| n.kind() == SyntaxKind::TOKEN_TREE).find(|n| {
            n.parent().is_some_and(|p| {
                p.kind() == SyntaxKind::TOKEN_TREE
                    && p.parent().is_some_and(|m| m.kind() == SyntaxKind::MACRO_RULES)
            })
        })
    else {
        return false;
    };
    let mut next = arm.next_sibling_or_token();
    while let Some(e) = &next {
        match e.as_token() {
            Some(tok) if is_trivia(tok) => next = e.next_sibling_or_token(),
            Some(tok) => return tok.kind() == T![=>] || tok.kind() == T![=],
            None => return false,
        }
    }
    false
}

/// The doc text of an item: `///` comments and `#[doc = "..."]` attributes.
pub(crate) fn item_docs(node: &SyntaxNode) -> String {
    let mut text = String::new();
    for e in node.children_with_tokens() {
        if let Some(c) = e.as_token().and_then(|t| ast::Comment::cast(t.clone()))
            && c.is_outer()
        {
            text.push_str(c.doc_comment().map_or("", |(s, _)| s));
            text.push('\n');
        }
    }
    if let Some(n) = ast::AnyHasAttrs::cast(node.clone()) {
        for a in n.attrs() {
            let (name, rest) = attr_parts(&a);
            if name == "doc"
                && let Some(value) = rest.trim().strip_prefix('=')
            {
                text.push_str(value.trim().trim_matches('"'));
                text.push('\n');
            }
        }
    }
    text
}

pub(crate) fn has_section(docs: &str, name: &str) -> bool {
    docs.lines().any(|l| l.trim() == format!("# {name}"))
}

/// Whether a function is public API, whose documentation the guidelines ask for: `pub` and
/// not an item of a trait impl (documented by its trait), or an item of a `pub` trait.
pub(crate) fn is_public_fn(f: &ast::Fn) -> bool {
    let node = f.syntax();
    match in_pub_trait(node) {
        Some(trait_public) => trait_public,
        None => f.visibility().is_some() && !is_trait_impl_item(node),
    }
}

fn is_trait_impl_item(node: &SyntaxNode) -> bool {
    node.parent()
        .and_then(|p| p.parent())
        .and_then(ast::Impl::cast)
        .is_some_and(|i| i.trait_().is_some())
}

fn in_pub_trait(node: &SyntaxNode) -> Option<bool> {
    let t = node.parent().and_then(|p| p.parent()).and_then(ast::Trait::cast)?;
    Some(t.visibility().is_some())
}

/// The lines of a doc block that are not code fences (```` ``` ````), each with whether it is
/// inside a fenced block (a doctest, or text in another language).
pub(crate) fn fenced<'l, 't>(
    lines: &'l [DocLine<'t>],
) -> impl Iterator<Item = (bool, &'l str, &'t SyntaxToken)> + 'l {
    let mut in_code = false;
    lines.iter().filter_map(move |(line, token)| {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            return None;
        }
        Some((in_code, line.as_str(), *token))
    })
}
