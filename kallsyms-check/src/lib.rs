//! kallsyms-check: are the Rust frames of a kernel backtrace the kernel's own symbols, whole?
//!
//! [`check_frames`] (pure) compares each Rust frame of the oops reports in a log with the
//! symbol table of the image it belongs to; [`length_histogram`] (pure) shows how close the
//! symbols of an image come to `KSYM_NAME_LEN`.

use serde::Serialize;

pub mod html;

/// `KSYM_NAME_LEN` in 6.12 (`include/linux/kallsyms.h`): names are at most 511 characters.
pub const KSYM_NAME_LEN: usize = 512;

/// Prefixes the build adds to function symbols, which count against `KSYM_NAME_LEN` too.
pub const PREFIXES: &[&str] = &["__pfx_", "__cfi_"];

/// What a frame's name turned out to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Exactly a symbol of the image.
    Whole,
    /// The first `KSYM_NAME_LEN - 1` characters of a longer symbol: the kernel cut it.
    Cut,
    /// Not a symbol of the image, nor the start of one: a wrong or corrupted name.
    Unknown,
}

/// One Rust frame, checked.
#[derive(Clone, Debug, Serialize)]
pub struct FrameCheck {
    /// The name as printed.
    pub printed: String,
    /// The module, or `None` for vmlinux.
    pub module: Option<String>,
    /// The verdict.
    pub verdict: Verdict,
    /// The symbol's length in the symbol table (the printed length when unknown).
    pub length: usize,
    /// The name demangles as a Rust symbol.
    pub demangles: bool,
    /// The printed offset lies within the symbol-table size (kallsyms prints `off/size`).
    pub offset_in_symbol: bool,
    /// The symbol-table size, when known.
    pub table_size: Option<u64>,
    /// The printed size.
    pub printed_size: u64,
}

impl FrameCheck {
    /// Whether this frame is as it should be: whole, demangling, its offset inside it. A name
    /// cut at `KSYM_NAME_LEN - 1` is expected (and documented) for longer symbols.
    pub fn ok(&self) -> bool {
        self.demangles
            && self.offset_in_symbol
            && match self.verdict {
                Verdict::Whole => true,
                Verdict::Cut => self.length >= KSYM_NAME_LEN,
                Verdict::Unknown => false,
            }
    }
}

/// A source of symbols: the names (and sizes) of one image's functions.
pub trait SymbolTable {
    /// The size of the symbol `name`, if it is one.
    fn size_of(&self, name: &str) -> Option<u64>;
    /// The one symbol that starts with `prefix`, with its size.
    fn starting_with(&self, prefix: &str) -> Option<(String, u64)>;
}

/// Checks the Rust frames (`_R` symbols) of `reports`; `table` gives the symbol table of
/// vmlinux (`None`) or of a module, when it can be had.
pub fn check_frames<'a>(
    reports: &[oops::Report],
    table: &mut dyn FnMut(Option<&str>) -> Option<&'a dyn SymbolTable>,
) -> Vec<FrameCheck> {
    let mut checks = Vec::new();
    for report in reports {
        for frame in report.rip.iter().chain(&report.frames) {
            let Some(printed) = frame.symbol.as_deref().filter(|s| s.starts_with("_R")) else {
                continue;
            };
            let table = table(frame.module.as_deref());
            let (verdict, whole, table_size) = match table {
                Some(t) => match t.size_of(printed) {
                    Some(size) => (Verdict::Whole, printed.to_owned(), Some(size)),
                    None => match t
                        .starting_with(printed)
                        .filter(|_| printed.len() == KSYM_NAME_LEN - 1)
                    {
                        Some((whole, size)) => (Verdict::Cut, whole, Some(size)),
                        None => (Verdict::Unknown, printed.to_owned(), None),
                    },
                },
                None => (Verdict::Unknown, printed.to_owned(), None),
            };
            checks.push(FrameCheck {
                printed: printed.to_owned(),
                module: frame.module.clone(),
                verdict,
                length: whole.len(),
                demangles: rustc_demangle::try_demangle(&whole).is_ok(),
                offset_in_symbol: table_size.is_some_and(|size| frame.offset <= size),
                table_size,
                printed_size: frame.size,
            });
        }
    }
    checks
}

/// One line of `/proc/kallsyms`: address, type, name, module.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KallsymsEntry {
    /// The address (zero when `kptr_restrict` hides it).
    pub address: u64,
    /// The type letter (`t`, `T`, `d`, ...).
    pub kind: char,
    /// The name as kallsyms holds it.
    pub name: String,
    /// The module, for a module symbol.
    pub module: Option<String>,
}

/// Parses `/proc/kallsyms` text (`ffffffffa0000000 t name\t[module]`), skipping other lines.
pub fn parse_proc_kallsyms(text: &str) -> Vec<KallsymsEntry> {
    text.lines()
        .filter_map(|line| {
            let mut words = line.split_whitespace();
            let address = u64::from_str_radix(words.next()?, 16).ok()?;
            let kind = words.next()?.chars().next()?;
            let name = words.next()?.to_owned();
            let module = words
                .next()
                .and_then(|m| m.strip_prefix('[')?.strip_suffix(']'))
                .map(str::to_owned);
            Some(KallsymsEntry { address, kind, name, module })
        })
        .collect()
}

/// What a module said before dying (`expecting to die in PATH at 0xADDR`) against
/// `/proc/kallsyms`: whether the symbol at that address demangles to that path. `None` when
/// the log has no such line with an address.
pub fn identity_matches(log: &str, kallsyms: &[KallsymsEntry]) -> Option<bool> {
    let line = log.lines().find_map(|l| l.split("expecting to die in ").nth(1))?;
    let (path, address) = line.trim().rsplit_once(" at 0x")?;
    let address = u64::from_str_radix(address.trim(), 16).ok()?;
    let symbol =
        kallsyms.iter().find(|e| e.address == address && e.kind.eq_ignore_ascii_case(&'t'))?;
    // `type_name` writes `f<u32>`, the demangler `f::<u32>`.
    let demangled = format!("{:#}", rustc_demangle::demangle(&symbol.name)).replace("::<", "<");
    Some(demangled == path)
}

/// How many of `lengths` fall in each bucket, as (upper bound, count); the last bucket holds
/// what `KSYM_NAME_LEN` cannot.
pub fn length_histogram(lengths: impl Iterator<Item = usize>) -> Vec<(String, usize)> {
    let bounds = [64, 128, 256, 384, 448, 480, 500, KSYM_NAME_LEN];
    let mut counts = vec![0; bounds.len() + 1];
    for len in lengths {
        let i = bounds.iter().position(|&b| len < b).unwrap_or(bounds.len());
        counts[i] += 1;
    }
    let mut out: Vec<(String, usize)> =
        bounds.iter().zip(&counts).map(|(b, c)| (format!("< {b}"), *c)).collect();
    out.push((format!(">= {KSYM_NAME_LEN}"), counts[bounds.len()]));
    out
}

/// The length a symbol takes in kallsyms with the longest prefix the build may add.
pub fn prefixed_length(name: &str) -> usize {
    name.len() + PREFIXES.iter().map(|p| p.len()).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    struct Table(HashMap<String, u64>);

    impl SymbolTable for Table {
        fn size_of(&self, name: &str) -> Option<u64> {
            self.0.get(name).copied()
        }
        fn starting_with(&self, prefix: &str) -> Option<(String, u64)> {
            let mut found = self.0.iter().filter(|(n, _)| n.starts_with(prefix));
            match (found.next(), found.next()) {
                (Some((n, s)), None) => Some((n.clone(), *s)),
                _ => None,
            }
        }
    }

    #[test]
    fn whole_cut_and_unknown_frames() {
        let long = format!("_RNvCs1_4demo{}{}", 600, "x".repeat(600));
        let table =
            Table(HashMap::from([("_RNvCs1_4demo4main".to_owned(), 0x20), (long.clone(), 0x30)]));
        let cut = &long[..KSYM_NAME_LEN - 1];
        let log = format!(
            "Oops: 0002 [#1]\nRIP: 0010:_RNvCs1_4demo4main+0x8/0x20 [demo]\nCall Trace:\n <TASK>\n \
             {cut}+0x9/0x30 [demo]\n _RNvCs1_4demo5other+0x1/0x2 [demo]\n vfs_read+0x1/0x2\n</TASK>\n"
        );
        let reports = oops::parse_log(&log);
        let checks = check_frames(&reports, &mut |_| Some(&table as &dyn SymbolTable));
        let verdicts: Vec<(Verdict, usize, bool)> =
            checks.iter().map(|c| (c.verdict, c.length, c.ok())).collect();
        assert_eq!(
            verdicts,
            [
                (Verdict::Whole, 18, true),
                (Verdict::Cut, long.len(), true),
                (Verdict::Unknown, 19, false)
            ]
        );
    }

    #[test]
    fn proc_kallsyms_and_the_identity_a_module_printed() {
        let kallsyms = parse_proc_kallsyms(
            "ffffffffa0000000 t _RINvCsaDYjbWdhytI_14rust_oops_null37die_by_writing_through_a_null_pointermEB2_\t[rust_oops_null]\n\
             ffffffff81000000 T _text\nnot a line\n",
        );
        assert_eq!(kallsyms.len(), 2);
        assert_eq!(kallsyms[0].module.as_deref(), Some("rust_oops_null"));
        assert_eq!(kallsyms[1].module, None);
        let said = "rust_oops_null: expecting to die in rust_oops_null::die_by_writing_through_a_null_pointer<u32> at 0xffffffffa0000000\n";
        assert_eq!(identity_matches(said, &kallsyms), Some(true));
        let wrong = said.replace("0xffffffffa0000000", "0xffffffff81000000");
        assert_eq!(identity_matches(&wrong, &kallsyms), Some(false));
        assert_eq!(identity_matches("no such line", &kallsyms), None);
    }

    #[test]
    fn histogram_buckets() {
        let h = length_histogram([10, 100, 510, 511, 512, 700].into_iter());
        assert_eq!(h.first(), Some(&("< 64".to_owned(), 1)));
        assert_eq!(h[h.len() - 2], ("< 512".to_owned(), 2));
        assert_eq!(h.last(), Some(&(">= 512".to_owned(), 2)));
        assert_eq!(prefixed_length("abc"), 9);
    }
}
