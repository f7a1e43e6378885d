//! layout-check: do the Rust types that bindgen made of the kernel's C types (the `bindings`
//! and `uapi` crates) have the layout C gives them?
//!
//! Both sides come from the DWARF of the built kernel ([`dwarf`]): what the C compiler laid out,
//! and what rustc laid out, each as a [`model::Type`]. [`compare`] (pure) compares size,
//! alignment, and every member's offset and size, and says for each type that differs where it
//! starts and why. [`bindgen`] is the second, independent check: the kernel's own bindgen
//! command rerun with its layout tests, compiled. [`result`]: the suite's typed result of both.

pub mod bindgen;
pub mod compare;
pub mod dwarf;
pub mod html;
pub mod model;
pub mod result;
pub mod text;

pub use compare::{Definitions, Report, compare};
