//! `doc-first-sentence`: the first paragraph of an item's documentation is a single sentence.
//!
//! Test data: `fixture.rs` beside this file, which `tests/rules.rs` lints as
//! `rust/kernel/doc_first_sentence.rs` against
//! `tests/golden/rust/kernel/doc_first_sentence.txt`.

use crate::rule::{Check, Cx, DocLine, Level, Rule};

/// The rule's catalogue entry, with its checks.
pub(crate) static RULE: Rule = Rule {
    id: "doc-first-sentence",
    summary: "the first paragraph of an item's documentation is a single sentence",
    rationale: "\"The first paragraph must be a single sentence briefly describing what the \
                documented item does. Further explanations must go in extra paragraphs.\" \
                (Documentation/rust/coding-guidelines.rst, \"Code documentation\").",
    good: "/// Returns the length.\n///\n/// The length is in bytes.\npub fn len() -> usize { 0 }\n",
    bad: "/// Returns the length. The length is in bytes.\npub fn len() -> usize { 0 }\n",
    default_level: Level::Warning,
    clippy: &[],
    check: Check { doc: Some(check_doc), ..Check::NONE },
};

const ABBREVIATIONS: &[&str] = &["e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "Mr.", "Dr."];

fn check_doc(cx: &mut Cx<'_>, lines: &[DocLine<'_>]) {
    let mut para = Vec::new();
    for (line, token) in lines {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') || l.starts_with("```") {
            break;
        }
        para.push((l, *token));
    }
    let Some(&(_, first_token)) = para.first() else { return };
    let text: String = para.iter().map(|(l, _)| *l).collect::<Vec<_>>().join(" ");
    let plain = strip_code_and_links(&text);
    let sentences = sentence_ends(&plain);
    if sentences > 1 {
        let r = first_token.text_range();
        let end = para.last().map_or(r.end(), |(_, t)| t.text_range().end());
        cx.push(
            &RULE,
            r.start().into(),
            end.into(),
            format!("the first paragraph of the documentation has {sentences} sentences"),
            Some("make the first paragraph one sentence saying what the item does; move the rest to a new paragraph"),
        );
    }
}

/// Text with code spans and link destinations replaced by a placeholder word.
fn strip_code_and_links(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '`' => {
                for d in chars.by_ref() {
                    if d == '`' {
                        break;
                    }
                }
                out.push_str("code");
            }
            ']' if chars.peek() == Some(&'(') => {
                out.push(']');
                for d in chars.by_ref() {
                    if d == ')' {
                        break;
                    }
                }
            }
            _ => out.push(c),
        }
    }
    out
}

/// The number of sentences: ends are `.`, `!` or `?` followed by a space and a capital letter
/// (or the end of the text), not after a known abbreviation.
fn sentence_ends(text: &str) -> usize {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut count = 0;
    for (k, w) in words.iter().enumerate() {
        let ends = w.ends_with(['.', '!', '?']) && !w.ends_with("..");
        if !ends || ABBREVIATIONS.iter().any(|a| w.ends_with(a)) {
            continue;
        }
        // A one-letter word (an initial, an enumeration) does not end a sentence.
        if w.trim_end_matches(['.', '!', '?']).chars().count() <= 1 {
            continue;
        }
        match words.get(k + 1) {
            None => count += 1,
            Some(next) if next.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit()) => {
                count += 1
            }
            Some(_) => {}
        }
    }
    // A paragraph without a final period is still one sentence.
    if !text.trim_end().ends_with(['.', '!', '?']) && !text.trim().is_empty() {
        count += 1;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_are_counted_past_abbreviations_and_code() {
        let count = |s: &str| sentence_ends(&strip_code_and_links(s));
        assert_eq!(count("Returns the length."), 1);
        assert_eq!(count("Returns the length. It is in bytes."), 2);
        assert_eq!(count("Returns e.g. the length of `a. B` in bytes."), 1);
        assert_eq!(count("A wrapper for [`Foo`](srctree/a.h. B)"), 1);
        assert_eq!(count("Version 1. Of something"), 1);
    }
}
