//! `core-ffi-types`: kernel code takes the C types the kernel maps differently (`c_char`,
//! `c_long`, ...) from its own `ffi` crate, not from `core::ffi`.
//!
//! Test data: `fixture.rs` beside this file, which `tests/rules.rs` lints as
//! `rust/kernel/core_ffi_types.rs` against `tests/golden/rust/kernel/core_ffi_types.txt`.

use ra_ap_syntax::{SyntaxKind, SyntaxToken, T};

use super::util::{is_trivia, next_code, prev_code};
use crate::rule::{Check, Cx, Level, Rule};

/// The rule's catalogue entry, with its checks.
pub(crate) static RULE: Rule = Rule {
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
    check: Check { token: Some(check_token), ..Check::NONE },
};

const MAPPED_C_TYPES: &[&str] = &[
    "c_char",
    "c_schar",
    "c_uchar",
    "c_short",
    "c_ushort",
    "c_int",
    "c_uint",
    "c_long",
    "c_ulong",
    "c_longlong",
    "c_ulonglong",
];

fn check_token(cx: &mut Cx<'_>, i: usize) {
    let tokens = cx.tokens;
    let t = &tokens[i];
    if t.kind() != SyntaxKind::IDENT
        || !cx.kernel_code()
        || cx.file.is_ffi_crate
        || t.text() != "ffi"
    {
        return;
    }
    let prev = prev_code(tokens, i);
    let from_core = prev.is_some_and(|(j, p)| {
        p.kind() == T![::] && prev_code(tokens, j).is_some_and(|(_, k)| k.text() == "core")
    });
    if from_core && next_code(tokens, i).map(|n| n.kind()) == Some(T![::]) {
        // `core::ffi::c_int` or `core::ffi::{c_int, c_void}`.
        let rest: Vec<&SyntaxToken> =
            tokens[i + 1..].iter().filter(|t| !is_trivia(t)).take(64).collect();
        let names: Vec<&str> = match rest.get(1).map(|t| t.kind()) {
            Some(T!['{']) => {
                rest[2..].iter().take_while(|t| t.kind() != T!['}']).map(|t| t.text()).collect()
            }
            _ => rest.get(1).map(|t| t.text()).into_iter().collect(),
        };
        let mapped: Vec<&str> = names.into_iter().filter(|n| MAPPED_C_TYPES.contains(n)).collect();
        if !mapped.is_empty() {
            cx.push_token(
                &RULE,
                t,
                format!(
                    "C type{} `{}` taken from `core::ffi`, not the kernel's `ffi` crate",
                    if mapped.len() > 1 { "s" } else { "" },
                    mapped.join("`, `")
                ),
                Some("use `kernel::ffi` (or `crate::ffi` in the kernel crate): the kernel maps some C types differently"),
            );
        }
    }
}
