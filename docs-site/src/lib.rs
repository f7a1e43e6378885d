//! docs-site: the kernel's Rust documentation as one site. Every crate kbuild built is
//! documented by rustdoc with the flags of its build ([`plan`]), in parallel and only when its
//! inputs changed ([`build`]); the site gets a landing page, the kernel's logo, search across
//! crates, a source view for `srctree/` links and the results of the kernel's doctests run in
//! the booted kernel ([`site`], [`doctests`]), and a link checker proves that no link leads
//! nowhere ([`linkcheck`]). [`result`]: a build as the suite's typed result.

pub mod build;
pub mod cdefs;
pub mod doctests;
pub mod generate;
pub mod html;
pub mod linkcheck;
pub mod mend;
pub mod plan;
pub mod result;
pub mod serve;
pub mod site;
pub mod versions;

pub use report::write_atomically;
