//! The rule catalogue: every rule's id, summary, rationale (the guideline it comes from),
//! a good and a bad example, and its default level.

use std::fmt;

use crate::rules::{
    self, Check, doc_first_sentence, expect_over_allow, infallible_alloc, invariant_comment,
    leaf_bindings, module_docs, no_float, no_panic, panics_section, safety_comment, safety_section,
    safety_todo, spdx, srctree_links, vertical_imports,
};

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

/// One rule of the catalogue.
#[derive(Debug)]
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
    /// Where the rule looks: its functions that [`rules::lint_source`](crate::rules::lint_source)
    /// calls as it walks a file.
    pub(crate) check: Check,
}

const GUIDELINES: &str = "Documentation/rust/coding-guidelines.rst";

/// Every rule, in the order of the generated documentation.
pub static RULES: &[Rule] = &[
    spdx::RULE,
    module_docs::RULE,
    safety_comment::RULE,
    safety_todo::RULE,
    safety_section::RULE,
    invariant_comment::RULE,
    srctree_links::RULE,
    doc_first_sentence::RULE,
    vertical_imports::RULE,
    no_panic::RULE,
    panics_section::RULE,
    infallible_alloc::RULE,
    no_float::RULE,
    leaf_bindings::RULE,
    expect_over_allow::RULE,
    Rule {
        id: "core-ffi-types",
        summary: "C types come from the kernel's `ffi` crate, not `core::ffi`",
        rationale: "\"The kernel does not use `core::ffi`, so it can customise the mapping that \
                    deviates from the platform default\" (rust/ffi.rs): `c_char` is `u8` and \
                    `c_long` is `isize` in the kernel. clippy's `disallowed-types` cannot \
                    express this, because it sees through the type aliases.",
        good: "use kernel::ffi::c_int;\n",
        bad: "use core::ffi::c_int;\n",
        default_level: Level::Error,
        clippy: &[],
        check: Check { token: Some(rules::core_ffi_types_token), ..Check::NONE },
    },
    Rule {
        id: "bad-suppression",
        summary: "a suppression names known rules and gives a reason",
        rationale: "A suppression is a reviewed exception: `// lint-allow(rule): reason` must say \
                    why, like the guidelines ask of `#[allow]` and `// SAFETY:`.",
        good: "// lint-allow(no-panic): the table is built at init and never empty.\nlet x = t.first().unwrap();\n",
        bad: "// lint-allow(no-panic)\nlet x = t.first().unwrap();\n",
        default_level: Level::Error,
        clippy: &[],
        check: Check::NONE,
    },
    Rule {
        id: "unused-suppression",
        summary: "a suppression that suppresses nothing is removed",
        rationale: "Like `#[expect]` over `#[allow]` (Documentation/rust/coding-guidelines.rst, \
                    \"Lints\"): stale exceptions hide future findings.",
        good: "let x = 1;\n",
        bad: "// lint-allow(no-panic): was needed once.\nlet x = 1;\n",
        default_level: Level::Warning,
        clippy: &[],
        check: Check::NONE,
    },
];

/// The rule with this id.
pub fn rule(id: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.id == id)
}

/// The catalogue as Markdown (`lint-rules/RULES.md` is this, kept in sync by a test).
pub fn markdown() -> String {
    let mut out = String::from(
        "# lint-rules: the rule catalogue\n\n\
         Generated by `lint-rules rules --markdown` from `lint-rules/src/catalogue.rs`; a test \
         keeps it in sync.\n\
         The guidelines cited are those of the kernel tree, `",
    );
    out.push_str(GUIDELINES);
    out.push_str("` first.\n\n| rule | default | summary | clippy counterpart |\n| --- | --- | --- | --- |\n");
    for r in RULES {
        out.push_str(&format!(
            "| [`{}`](#{}) | {} | {} | {} |\n",
            r.id,
            r.id,
            r.default_level,
            r.summary.replace('|', "\\|"),
            if r.clippy.is_empty() {
                "—".to_owned()
            } else {
                r.clippy.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(", ")
            },
        ));
    }
    for r in RULES {
        out.push_str(&format!(
            "\n## {}\n\n{} (default: {}).\n\n{}\n\nGood:\n\n```rust\n{}```\n\nBad:\n\n```rust\n{}```\n",
            r.id, r.summary, r.default_level, r.rationale, r.good, r.bad
        ));
    }
    out
}
