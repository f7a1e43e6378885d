//! What the installed rust-analyzer understands of `rust-project.json`, from its version.

/// Optional `rust-project.json` fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Features {
    /// `cfg_groups` (rust-analyzer of 2024-08-12 and later): the kernel's ~1000 cfgs once
    /// instead of once per crate.
    pub cfg_groups: bool,
    /// `crate_attrs` (2025-12-22 and later): `-Zcrate-attr=no_std`, so that modules cannot
    /// silently use `std`.
    pub crate_attrs: bool,
    /// `sysroot_project` (2025-03-03 and later): the sysroot crates listed in the file, so that
    /// rust-analyzer loads `core`, `alloc`, `std` and `proc_macro`, and none of `std`'s own
    /// dependencies.
    pub sysroot_project: bool,
}

impl Features {
    /// Everything, for a current rust-analyzer.
    pub const ALL: Features =
        Features { cfg_groups: true, crate_attrs: true, sysroot_project: true };
}

/// The build date in `rust-analyzer --version` output, such as
/// `rust-analyzer 1.95.0 (5980761 2026-04-14)`, as `(year, month, day)`.
pub fn build_date(version: &str) -> Option<(u32, u32, u32)> {
    version.split(|c: char| c.is_whitespace() || c == '(' || c == ')').find_map(|word| {
        let mut parts = word.split('-');
        let (y, m, d) = (parts.next()?, parts.next()?, parts.next()?);
        if parts.next().is_some() || y.len() != 4 {
            return None;
        }
        Some((y.parse().ok()?, m.parse().ok()?, d.parse().ok()?))
    })
}

/// The features of the rust-analyzer whose `--version` printed `version`; all of them when
/// the date cannot be read (a development build).
pub fn features(version: &str) -> Features {
    match build_date(version) {
        Some(date) => Features {
            cfg_groups: date >= (2024, 8, 12),
            crate_attrs: date >= (2025, 12, 22),
            sysroot_project: date >= (2025, 3, 3),
        },
        None => Features::ALL,
    }
}

/// The error lines of `rust-analyzer diagnostics` output (its progress lines end in `\r`).
pub fn error_lines(diagnostics_stdout: &str) -> Vec<&str> {
    diagnostics_stdout.split(['\n', '\r']).filter(|l| l.contains("Error ")).collect()
}

/// A bug of rust-analyzer itself that shows as an error in correct kernel code, with the
/// smallest crate that shows it: such an error is not the generated file's.
pub struct KnownBug {
    /// The upstream issue.
    pub issue: &'static str,
    /// A crate root (edition 2024) that rustc compiles and a rust-analyzer with the bug reports
    /// an error in; the tests check both, so that an entry goes once rust-analyzer is fixed.
    pub reproduction: &'static str,
    /// Whether an error line of `rust-analyzer diagnostics` is this bug.
    pub matches: fn(&str) -> bool,
}

/// The known bugs, newest last.
pub const KNOWN_BUGS: &[KnownBug] = &[KnownBug {
    // 7.3's `#[export]` (rust/macros/export.rs) checks a function against bindgen's declaration
    // with `if true { bindings::f } else { f }`: rust-analyzer 1.95 loses the `extern "C"` of
    // the foreign item and reports E0308 in rust/kernel/print.rs. Fixed upstream in April 2026.
    issue: "https://github.com/rust-lang/rust-analyzer/issues/22174",
    reproduction: "mod bindings {\n    unsafe extern \"C\" {\n        pub fn f(x: *mut u8) -> *mut u8;\n    }\n}\n\
                   #[unsafe(no_mangle)]\n\
                   pub unsafe extern \"C\" fn f(x: *mut u8) -> *mut u8 { x }\n\
                   const _: () = { if true { bindings::f } else { f }; };\n",
    matches: |line| {
        line.contains("E0308")
            && line.split_once(": expected fn ").is_some_and(|(_, rest)| {
                rest.split_once(", found unsafe extern \"C\" fn ")
                    .is_some_and(|(expected, found)| found.starts_with(expected))
            })
    },
}];

/// The known rust-analyzer bug an error line is, if any.
pub fn known_bug(error_line: &str) -> Option<&'static KnownBug> {
    KNOWN_BUGS.iter().find(|bug| (bug.matches)(error_line))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_by_release_date() {
        assert_eq!(features("rust-analyzer 1.95.0 (5980761 2026-04-14)"), Features::ALL);
        assert_eq!(
            features("rust-analyzer 1.85.0 (4d91de4 2025-02-17)"),
            Features { cfg_groups: true, crate_attrs: false, sysroot_project: false }
        );
        assert_eq!(
            features("rust-analyzer 1.87.0 (17067e9 2025-05-09)"),
            Features { cfg_groups: true, crate_attrs: false, sysroot_project: true }
        );
        assert_eq!(
            features("rust-analyzer 1.78.0 (9b00956 2024-04-29)"),
            Features { cfg_groups: false, crate_attrs: false, sysroot_project: false }
        );
        assert_eq!(features("rust-analyzer 0.0.0 (dev)"), Features::ALL);
        assert_eq!(
            build_date("rust-analyzer 0.3.2593-standalone (2025-09-01)"),
            Some((2025, 9, 1))
        );
    }
}
