//! `infallible-alloc`: allocations in kernel code take GFP flags and can fail: no
//! `Box::new(x)`, `vec![]` or `v.push(x)` without flags.
//!
//! Test data: `fixture.rs` beside this file, which `tests/rules.rs` lints as
//! `rust/kernel/infallible_alloc.rs` against `tests/golden/rust/kernel/infallible_alloc.txt`.

use ra_ap_syntax::ast::{self, AstNode, HasArgList};
use ra_ap_syntax::{SyntaxKind, SyntaxNode};

use super::util::const_by_ancestors;
use crate::rule::{Check, Cx, Level, Rule};

/// The rule's catalogue entry, with its checks.
pub(crate) static RULE: Rule = Rule {
    id: "infallible-alloc",
    summary: "allocations take GFP flags and can fail (`KBox::new(x, GFP_KERNEL)?`)",
    rationale: "Kernel allocations can fail and need flags saying how to allocate; the \
                kernel's `KBox`, `KVec` and `Arc` take `Flags` and return `Result` \
                (rust/kernel/alloc.rs; Documentation/rust/general-information.rst). \
                `Box::new(x)`, `vec![]` and `v.push(x)` without flags are the infallible \
                userspace spellings.",
    good: "let b = KBox::new(42, GFP_KERNEL)?;\nlet mut v = KVec::new();\nv.push(1, GFP_KERNEL)?;\n",
    bad: "let b = Box::new(42);\nlet mut v = Vec::new();\nv.push(1);\n",
    default_level: Level::Error,
    clippy: &[],
    check: Check { node: Some(check_node), ..Check::NONE },
};

const BOX_LIKE: &[&str] = &["Box", "KBox", "VBox", "KVBox", "Arc", "UniqueArc", "Rc"];
const VEC_LIKE: &[&str] = &["Vec", "KVec", "VVec", "KVVec", "String"];

fn check_node(cx: &mut Cx<'_>, node: &SyntaxNode) {
    if !cx.kernel_code()
        || !matches!(
            node.kind(),
            SyntaxKind::CALL_EXPR | SyntaxKind::METHOD_CALL_EXPR | SyntaxKind::MACRO_CALL
        )
    {
        return;
    }
    // Compile-time code cannot allocate: a `push` there is a const builder's (nova-core's
    // `ModInfoBuilder::push` in a `const fn`).
    if const_by_ancestors(node) == Some(true) {
        return;
    }
    if let Some(c) = ast::CallExpr::cast(node.clone()) {
        alloc_call(cx, &c);
    } else if let Some(m) = ast::MethodCallExpr::cast(node.clone()) {
        alloc_method(cx, &m);
    } else if let Some(m) = ast::MacroCall::cast(node.clone()) {
        alloc_macro(cx, &m);
    }
}

fn alloc_call(cx: &mut Cx<'_>, c: &ast::CallExpr) {
    let Some(ast::Expr::PathExpr(p)) = c.expr() else { return };
    let Some(path) = p.path() else { return };
    let segs: Vec<String> = path
        .segments()
        .map(|s| s.name_ref().map(|n| n.text().to_string()).unwrap_or_default())
        .collect();
    let args = c.arg_list().map_or(0, |a| a.args().count());
    let [.., ty, func] = segs.as_slice() else { return };
    let infallible = (BOX_LIKE.contains(&ty.as_str())
        && matches!(func.as_str(), "new" | "pin" | "new_uninit")
        && args == usize::from(func != "new_uninit"))
        || (VEC_LIKE.contains(&ty.as_str()) && func == "with_capacity" && args == 1);
    if infallible {
        let r = c.syntax().text_range();
        cx.push(
            &RULE,
            r.start().into(),
            r.end().into(),
            format!("`{ty}::{func}` without allocation flags"),
            Some("pass flags and handle the error: `KBox::new(x, GFP_KERNEL)?`"),
        );
    }
}

fn alloc_method(cx: &mut Cx<'_>, m: &ast::MethodCallExpr) {
    let Some(name) = m.name_ref() else { return };
    let args = m.arg_list().map_or(0, |a| a.args().count());
    let infallible = match name.text().to_string().as_str() {
        "push" | "extend_from_slice" | "reserve" => args == 1,
        "to_vec" => args == 0,
        _ => false,
    };
    if infallible {
        let r = name.syntax().text_range();
        cx.push(
            &RULE,
            r.start().into(),
            r.end().into(),
            format!("`.{}()` without allocation flags", name.text()),
            Some("the kernel's `KVec` methods take flags and return `Result`: `v.push(x, GFP_KERNEL)?`"),
        );
    }
}

fn alloc_macro(cx: &mut Cx<'_>, m: &ast::MacroCall) {
    if let Some(name) = m.path().and_then(|p| p.segment()).map(|s| s.to_string())
        && (name == "vec" || name == "format")
    {
        let r = m.syntax().text_range();
        cx.push(
            &RULE,
            r.start().into(),
            r.end().into(),
            format!("`{name}!` allocates infallibly"),
            Some(if name == "vec" {
                "build a `KVec` with `KVec::with_capacity(n, GFP_KERNEL)?` and `push(x, GFP_KERNEL)?`"
            } else {
                "use `CString::try_from_fmt(fmt!(...))?`"
            }),
        );
    }
}
