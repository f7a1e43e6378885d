//! `no-float`: no floating-point literals or types in kernel code.
//!
//! Test data: `fixture.rs` beside this file, which `tests/rules.rs` lints as
//! `rust/kernel/no_float.rs` against `tests/golden/rust/kernel/no_float.txt`.

use ra_ap_syntax::ast::{self, AstNode};
use ra_ap_syntax::{SyntaxKind, SyntaxToken};

use super::util::in_token_tree;
use crate::rule::{Check, Cx, Level, Rule};

/// The rule's catalogue entry, with its checks.
pub(crate) static RULE: Rule = Rule {
    id: "no-float",
    summary: "no floating point in kernel code",
    rationale: "Kernel code does not use floating point: the FPU state belongs to user space \
                and is only usable inside `kernel_fpu_begin()`/`kernel_fpu_end()` from C \
                (Documentation/core-api/floating-point.rst); the kernel's Rust target \
                disables the FPU.",
    good: "let percent = used * 100 / total;\n",
    bad: "let percent = used as f64 / total as f64 * 100.0;\n",
    default_level: Level::Error,
    clippy: &["clippy::float_arithmetic"],
    check: Check { token: Some(check_token), ..Check::NONE },
};

fn check_token(cx: &mut Cx<'_>, i: usize) {
    if !cx.kernel_code() {
        return;
    }
    let t = &cx.tokens[i];
    let s = t.text();
    let message = match t.kind() {
        SyntaxKind::FLOAT_NUMBER => format!("floating-point literal `{s}`"),
        // `1f32`; `0x1f32` is an integer.
        SyntaxKind::INT_NUMBER
            if !s.starts_with("0x") && (s.ends_with("f32") || s.ends_with("f64")) =>
        {
            format!("floating-point literal `{s}`")
        }
        SyntaxKind::IDENT
            if (s == "f32" || s == "f64") && !in_token_tree(t) && !impl_self_type(t) =>
        {
            format!("floating-point type `{s}`")
        }
        _ => return,
    };
    cx.push_token(&RULE, t, message, None);
}

/// Whether a token is in the self type of an `impl` (`unsafe impl Zeroable for f32 {}`):
/// implementing a trait for a float type does not use floating point.
fn impl_self_type(t: &SyntaxToken) -> bool {
    t.parent_ancestors()
        .find_map(ast::Impl::cast)
        .and_then(|i| i.self_ty())
        .is_some_and(|ty| ty.syntax().text_range().contains_range(t.text_range()))
}
