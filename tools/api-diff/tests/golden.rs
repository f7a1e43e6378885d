//! Two versions of a small crate, documented by the real rustdoc as JSON and compared, against
//! golden reports. Update with `UPDATE_EXPECT=1 cargo test -p api-diff --test golden`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use expect_test::expect_file;
use subprocess::Command;
use subprocess::testing::{report, run};

/// Version 1 of the crate.
const V1: &str = r#"#![no_std]
//! Version 1.

pub mod init {
    /// Moves to `pinned` in version 2, and gains a provided method.
    pub trait PinInit<T> {
        fn init(self, slot: *mut T);
    }
}

pub mod prelude {
    pub use crate::init::PinInit;
    pub use core::pin::Pin;
}

/// Removed in version 2.
pub struct Gone;

/// Becomes unsafe.
pub fn read(p: *const u8) -> u8 {
    let _ = p;
    0
}

/// Its parameter becomes `Pin<&mut u32>`.
pub fn set(x: &u32) {
    let _ = x;
}

/// Gains the bound `T: Send`.
pub fn send<T>(x: T) -> T {
    x
}

/// Becomes const.
pub fn zero() -> u32 {
    0
}

/// Returns `usize` instead.
pub fn count() -> u32 {
    0
}

/// Gains the variant `Exec`.
#[derive(Clone, Copy)]
pub enum Mode {
    Read,
    Write,
}

/// Gains the field `cap`, the method `len` and an impl of `Default`.
pub struct Buffer {
    pub data: [u8; 16],
}

impl Buffer {
    pub fn new() -> Self {
        Buffer { data: [0; 16] }
    }
}

mod private {
    /// Defined in a private module: its page is where it is re-exported, `demo::Hidden`.
    pub struct Hidden;
}

pub use private::*;
"#;

/// Version 2 of the crate.
const V2: &str = r#"#![no_std]
//! Version 2.

pub mod pinned {
    pub trait PinInit<T> {
        fn init(self, slot: *mut T);

        fn init_zeroed(self)
        where
            Self: Sized,
        {
        }
    }
}

pub mod init {
    pub use crate::pinned::PinInit;
}

pub mod prelude {
    pub use crate::pinned::PinInit;
    pub use core::pin::Pin;
    /// Another crate's item, inlined here by rustdoc.
    pub use core::ptr::NonNull;
}

pub unsafe fn read(p: *const u8) -> u8 {
    let _ = p;
    0
}

pub fn set(x: core::pin::Pin<&mut u32>) {
    let _ = x;
}

pub fn send<T: Send>(x: T) -> T {
    x
}

pub const fn zero() -> u32 {
    0
}

pub fn count() -> usize {
    0
}

#[derive(Clone, Copy)]
pub enum Mode {
    Read,
    Write,
    Exec,
}

pub struct Buffer {
    pub data: [u8; 16],
    pub cap: usize,
}

impl Buffer {
    pub fn new() -> Self {
        Buffer { data: [0; 16], cap: 16 }
    }

    pub fn len(&self) -> usize {
        self.cap
    }
}

/// A trait impl added: a reason of `Buffer`, not an entry for `default`.
impl Default for Buffer {
    fn default() -> Self {
        Buffer::new()
    }
}

mod private {
    pub struct Hidden;

    impl Hidden {
        /// Added.
        pub fn get(&self) -> u32 {
            0
        }
    }
}

pub use private::*;

/// Added.
pub fn version() -> u32 {
    2
}

/// Added.
#[macro_export]
macro_rules! buffer {
    () => {
        $crate::Buffer::new()
    };
}
"#;

/// Writes `source` as `dir/lib.rs` and documents it with the real rustdoc, as JSON the way the
/// kernel's build runs it and as HTML into `dir/html`; returns the JSON's path.
fn rustdoc(dir: &Path, source: &str) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("lib.rs"), source).unwrap();
    let json = ["-Z", "unstable-options", "--output-format", "json", "-o", "json"];
    for format in [&json[..], &["-o", "html"]] {
        let cmd = Command::new("rustdoc", dir)
            .env("RUSTC_BOOTSTRAP", "1")
            .args(["--edition", "2021", "--crate-name", "demo", "lib.rs"])
            .args(format)
            .timeout(Duration::from_secs(120));
        let out = run(&cmd);
        assert!(out.status.success(), "{}", report(&cmd, &out));
    }
    dir.join("json/demo.json")
}

/// Checks that `url` is a page of the HTML docs at `root`, with the anchor it names.
fn assert_resolves(root: &Path, url: &str) {
    let (page, anchor) = url.split_once('#').map_or((url, None), |(p, a)| (p, Some(a)));
    let html = std::fs::read_to_string(root.join(page))
        .unwrap_or_else(|e| panic!("{url}: no page {}: {e}", root.join(page).display()));
    if let Some(anchor) = anchor {
        assert!(html.contains(&format!("id=\"{anchor}\"")), "{url}: no anchor on the page");
    }
}

#[test]
fn two_versions_of_a_crate() {
    let tmp = tempfile::tempdir().unwrap();
    let (v1, v2) = (tmp.path().join("v1"), tmp.path().join("v2"));
    let diff = api_diff::diff_files(&rustdoc(&v1, V1), &rustdoc(&v2, V2)).unwrap();
    expect_file!["golden/demo.txt"].assert_eq(&api_diff::render_text(&diff, "v1", "v2"));
    let html = api_diff::render_html(
        &diff,
        &api_diff::Version { label: "v1", doc_root: "../v1/" },
        &api_diff::Version { label: "v2", doc_root: "../v2/" },
        api_diff::Sides::Versions,
    );
    expect_file!["golden/demo.html"].assert_eq(&html);
    // The same diff read as one kernel on two architectures.
    let arches = api_diff::render_html(
        &diff,
        &api_diff::Version { label: "x86_64", doc_root: "../x86_64/" },
        &api_diff::Version { label: "arm64", doc_root: "../arm64/" },
        api_diff::Sides::Architectures,
    );
    expect_file!["golden/arches.html"].assert_eq(&arches);

    // Every link leads to rustdoc's page and anchor for the item, in its version.
    let mut checked = 0;
    for entry in &diff.entries {
        let urls =
            [(&v1, entry.old.as_ref().map(|p| &p.url)), (&v2, entry.new.as_ref().map(|p| &p.url))];
        let reasons = entry
            .reasons
            .iter()
            .flat_map(|r| [(&v1, r.old_url.as_ref()), (&v2, r.new_url.as_ref())]);
        for (dir, url) in urls.into_iter().chain(reasons) {
            if let Some(url) = url {
                assert_resolves(&dir.join("html"), url);
                checked += 1;
            }
        }
    }
    assert!(checked > diff.entries.len(), "{checked} links checked");
}
