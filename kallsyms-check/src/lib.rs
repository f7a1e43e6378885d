//! kallsyms-check: are the Rust frames of a kernel backtrace the kernel's own symbols, whole?
//!
//! [`check_frames`] (pure) compares each Rust frame of the oops reports in a log with the
//! symbol table of the image it belongs to, and [`check_log`] says what a whole log held: its
//! reports, frames, Rust frames checked and lines not read, or why nothing in it could be
//! checked ([`NothingChecked`]); [`length_histogram`] (pure) shows how close the symbols of an
//! image come to `KSYM_NAME_LEN`.

use std::collections::BTreeMap;

use serde::Serialize;

pub mod html;
pub mod images;
pub mod lengths;
pub mod scenarios;
pub mod table;

pub use symbolizer::KSYM_NAME_LEN;

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
    /// A symbol of the image, but the address lies in another function: the worst outcome, as
    /// the backtrace points at the wrong code (`scripts/kallsyms` drops symbols of
    /// `KSYM_NAME_LEN` characters or more from vmlinux, and their code is then reported as
    /// part of the symbol before them).
    WrongFunction,
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
    /// For [`Verdict::WrongFunction`]: the function the address lies in, by the symbol table.
    pub actual: Option<String>,
    /// The source location of the address (of the call, for a return address), innermost
    /// inlined frame first: `file:line`, when DWARF has it.
    pub source: Option<String>,
    /// Whether DWARF's function at the address (the outermost one, where the code was inlined
    /// into) is the symbol; `None` when DWARF does not cover it.
    pub dwarf_agrees: Option<bool>,
}

impl FrameCheck {
    /// Whether this frame is as it should be: whole, demangling, its offset inside it. A name
    /// cut at `KSYM_NAME_LEN - 1` is expected (and documented) for longer symbols.
    pub fn ok(&self) -> bool {
        self.demangles
            && self.offset_in_symbol
            && self.dwarf_agrees != Some(false)
            && match self.verdict {
                Verdict::Whole => true,
                Verdict::Cut => self.length >= KSYM_NAME_LEN,
                Verdict::Unknown | Verdict::WrongFunction => false,
            }
    }
}

/// What DWARF says of an address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// The outermost function, demangled without hash (`{:#}`).
    pub function: Option<String>,
    /// The innermost `file:line`.
    pub location: Option<String>,
}

/// A source of symbols: the names (and sizes) of one image's functions.
pub trait SymbolTable {
    /// The size of the symbol `name`, if it is one.
    fn size_of(&self, name: &str) -> Option<u64>;
    /// The one symbol that starts with `prefix`, with its size.
    fn starting_with(&self, prefix: &str) -> Option<(String, u64)>;
    /// The address of the symbol `name`.
    fn address_of(&self, name: &str) -> Option<u64>;
    /// The function symbol whose code holds `address`.
    fn function_at(&self, address: u64) -> Option<String>;
    /// What DWARF says of `address`, if the image has DWARF.
    fn source_at(&self, address: u64) -> Option<Source>;
}

/// A symbol table without DWARF: function symbols by name, with address and size, as `nm -S`
/// lists them (for a captured log when the image is not at hand, and for tests).
#[derive(Clone, Debug, Default)]
pub struct NmTable {
    symbols: BTreeMap<String, (u64, u64)>,
}

impl NmTable {
    /// A table of `(name, address, size)`.
    pub fn from_symbols<'a>(symbols: impl IntoIterator<Item = (&'a str, u64, u64)>) -> NmTable {
        let symbols = symbols.into_iter().map(|(n, a, s)| (n.to_owned(), (a, s))).collect();
        NmTable { symbols }
    }

    /// Parses `nm -S` output (`address size type name`), keeping text symbols (`t`, `T`, `w`,
    /// `W`) and skipping any other line.
    pub fn parse(text: &str) -> NmTable {
        let hex = |s: &str| u64::from_str_radix(s, 16).ok();
        let symbols = text.lines().filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let [address, size, kind, name] = words[..] else { return None };
            matches!(kind, "t" | "T" | "w" | "W").then_some(())?;
            Some((name, hex(address)?, hex(size)?))
        });
        NmTable::from_symbols(symbols)
    }
}

impl SymbolTable for NmTable {
    fn size_of(&self, name: &str) -> Option<u64> {
        self.symbols.get(name).map(|s| s.1)
    }

    fn starting_with(&self, prefix: &str) -> Option<(String, u64)> {
        let mut found =
            self.symbols.range(prefix.to_owned()..).take_while(|(n, _)| n.starts_with(prefix));
        match (found.next(), found.next()) {
            (Some((n, s)), None) => Some((n.clone(), s.1)),
            _ => None,
        }
    }

    fn address_of(&self, name: &str) -> Option<u64> {
        self.symbols.get(name).map(|s| s.0)
    }

    fn function_at(&self, address: u64) -> Option<String> {
        let mut holding =
            self.symbols.iter().filter(|(_, (a, s))| (*a..a.saturating_add(*s)).contains(&address));
        holding.next().map(|(n, _)| n.clone())
    }

    fn source_at(&self, _: u64) -> Option<Source> {
        None
    }
}

/// Checks the Rust frames (`_R` symbols) of `reports`; `table` gives the symbol table of
/// vmlinux (`None`) or of a module, when it can be had.
pub fn check_frames<'a>(
    reports: &[oops::Report],
    table: &mut dyn FnMut(Option<&str>) -> Option<&'a dyn SymbolTable>,
) -> Vec<FrameCheck> {
    let mut checks = Vec::new();
    for report in reports {
        // A call-trace address is the return address: the call is the byte before, and may be
        // the last instruction of the function. RIP is the faulting instruction itself.
        let rip = report.rip.iter().map(|frame| (frame, 0));
        let trace = (report.frames.iter().enumerate())
            .map(|(i, frame)| (frame, u64::from(report.is_return_address(i))));
        for (frame, back) in rip.chain(trace) {
            let Some(printed) = frame.symbol.as_deref().filter(|s| s.starts_with("_R")) else {
                continue;
            };
            let table = table(frame.module.as_deref());
            let (mut verdict, whole, table_size) = match table {
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
            // A return address at offset 0 is the end of the function before: its call was
            // that function's last instruction (a call that does not return, as a Rust panic's),
            // and a backtrace that looks the address up without stepping back into the call
            // (`%pS` for `%pB`) names the function after it.
            let offset_in_symbol = table_size.is_some_and(|size| {
                frame.offset.checked_sub(back).is_some_and(|offset| offset < size.max(1))
            });
            let address = table
                .filter(|_| verdict != Verdict::Unknown)
                .and_then(|t| t.address_of(&whole))
                .and_then(|start| start.checked_add(frame.offset)?.checked_sub(back));
            let mut actual = None;
            if verdict != Verdict::Unknown && !offset_in_symbol {
                verdict = Verdict::WrongFunction;
                actual = table.zip(address).and_then(|(t, a)| t.function_at(a));
            }
            let source = table.zip(address).and_then(|(t, a)| t.source_at(a));
            let demangled = format!("{:#}", rustc_demangle::demangle(&whole));
            checks.push(FrameCheck {
                printed: printed.to_owned(),
                module: frame.module.clone(),
                verdict,
                length: whole.len(),
                demangles: rustc_demangle::try_demangle(&whole).is_ok(),
                offset_in_symbol,
                table_size,
                printed_size: frame.size,
                actual,
                dwarf_agrees: source
                    .as_ref()
                    .and_then(|s| s.function.as_ref())
                    .map(|f| *f == demangled),
                source: source.and_then(|s| s.location),
            });
        }
    }
    checks
}

/// What a log held, and its Rust frames checked.
#[derive(Clone, Debug, Serialize)]
pub struct LogCheck {
    /// The crash reports read.
    pub reports: usize,
    /// Their frames: where each happened (`RIP`, `pc`) and those of the call traces.
    pub frames: usize,
    /// The Rust frames among them, checked.
    pub checks: Vec<FrameCheck>,
    /// Lines where frames were expected that were not read as frames (another architecture's
    /// format, a line cut short, printk output in the middle of a trace).
    pub unread: Vec<String>,
}

impl LogCheck {
    /// Whether every Rust frame checks out; a log with none checked nothing, which is never ok.
    pub fn ok(&self) -> bool {
        !self.checks.is_empty() && self.checks.iter().all(FrameCheck::ok)
    }
}

/// Why a log had nothing to check: a check of nothing fails rather than passes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NothingChecked {
    /// No crash report at all.
    #[error(
        "no backtrace found: the formats read are {}; is this log from another architecture?",
        oops::FORMATS
    )]
    NoBacktrace,
    /// Reports, but no frame read in them.
    #[error(
        "{reports} crash report(s) but no frame read in them{}; the formats read are {}",
        unread_lines(.unread),
        oops::FORMATS
    )]
    NoFrame {
        /// How many reports.
        reports: usize,
        /// Their lines where frames were expected, not read as frames.
        unread: Vec<String>,
    },
    /// Frames, none of them Rust's.
    #[error(
        "{reports} crash report(s) with {frames} frame(s), none of them a Rust function (a v0-mangled `_R` symbol): nothing to check"
    )]
    NoRustFrame {
        /// How many reports.
        reports: usize,
        /// How many frames.
        frames: usize,
    },
}

/// `: N line(s) where frames were expected were not read ..., the first: LINE`, or nothing.
fn unread_lines(unread: &[String]) -> String {
    match unread.first() {
        None => String::new(),
        Some(first) => format!(
            ": {} line(s) where frames were expected were not read as frames, the first: `{}`",
            unread.len(),
            head(first.trim(), 120)
        ),
    }
}

/// Checks the Rust frames of `reports` (see [`check_frames`]) and says what the log held, or
/// why it held nothing to check.
pub fn check_log<'a>(
    reports: &[oops::Report],
    table: &mut dyn FnMut(Option<&str>) -> Option<&'a dyn SymbolTable>,
) -> Result<LogCheck, NothingChecked> {
    if reports.is_empty() {
        return Err(NothingChecked::NoBacktrace);
    }
    let frames = reports.iter().map(|r| usize::from(r.rip.is_some()) + r.frames.len()).sum();
    let unread: Vec<String> = reports.iter().flat_map(|r| r.noise.iter().cloned()).collect();
    if frames == 0 {
        return Err(NothingChecked::NoFrame { reports: reports.len(), unread });
    }
    let checks = check_frames(reports, table);
    if checks.is_empty() {
        return Err(NothingChecked::NoRustFrame { reports: reports.len(), frames });
    }
    Ok(LogCheck { reports: reports.len(), frames, checks, unread })
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

/// The first `chars` characters of `text` (all of it when shorter), for a name shown cut short:
/// symbol names are untrusted text, and a demangled or C name may hold any character.
pub fn head(text: &str, chars: usize) -> &str {
    text.char_indices().nth(chars).map_or(text, |(at, _)| &text[..at])
}

/// How the built-in `rust_long_symbols` sample's call chain is to end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// A NULL-pointer write: an oops.
    NullWrite,
    /// A Rust panic: `BUG()`.
    Panic,
}

/// The kernel command-line parameter that makes the built-in `rust_long_symbols` sample end its
/// chain as `ending` says, in the form the tree's sample takes: the sample of 6.12's series takes
/// a string (`trigger=null`, `=panic`), the one of 7.3's an integer, as mainline's module
/// parameters are integers and bools only (`trigger=1`, `=2`). `builtin_modinfo` is the
/// objtree's `modules.builtin.modinfo` (NUL-separated `module.key=value` entries), whose
/// `rust_long_symbols.parmtype=trigger:TYPE` tells which.
pub fn trigger_argument(builtin_modinfo: &[u8], ending: Ending) -> Option<String> {
    let ty = builtin_modinfo
        .split(|&b| b == 0)
        .find_map(|entry| entry.strip_prefix(b"rust_long_symbols.parmtype=trigger:".as_slice()))?;
    let value = match (ty, ending) {
        (b"charp", Ending::NullWrite) => "null",
        (b"charp", Ending::Panic) => "panic",
        (b"bool", _) => return None,
        (_, Ending::NullWrite) => "1",
        (_, Ending::Panic) => "2",
    };
    Some(format!("rust_long_symbols.trigger={value}"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn head_cuts_between_characters() {
        use super::head;
        assert_eq!(head("abc", 2), "ab");
        assert_eq!(head("abc", 5), "abc");
        assert_eq!(head("名前::関数", 3), "名前:");
        assert_eq!(head("", 0), "");
    }

    #[test]
    fn trigger_in_the_form_the_sample_takes() {
        use super::{Ending, trigger_argument};
        let v612 = b"rust_minimal.license=GPL\0rust_long_symbols.parmtype=trigger:charp\0\
                     rust_long_symbols.parm=trigger:How the call chain ends\0";
        let v73 = b"rust_long_symbols.parmtype=trigger:u32\0rust_long_symbols.license=GPL\0";
        let arg = |modinfo: &[u8], ending| trigger_argument(modinfo, ending);
        assert_eq!(arg(v612, Ending::NullWrite).unwrap(), "rust_long_symbols.trigger=null");
        assert_eq!(arg(v612, Ending::Panic).unwrap(), "rust_long_symbols.trigger=panic");
        assert_eq!(arg(v73, Ending::NullWrite).unwrap(), "rust_long_symbols.trigger=1");
        assert_eq!(arg(v73, Ending::Panic).unwrap(), "rust_long_symbols.trigger=2");
        // Not built in, or no trigger parameter of a known form.
        assert_eq!(arg(b"rust_minimal.license=GPL\0", Ending::Panic), None);
        assert_eq!(arg(b"", Ending::Panic), None);
        assert_eq!(arg(b"rust_long_symbols.parmtype=trigger:bool", Ending::Panic), None);
    }

    use super::*;

    fn verdicts(table: &NmTable, log: &str) -> Vec<(Verdict, usize, bool, Option<String>)> {
        let reports = oops::parse_log(log);
        let checks = check_frames(&reports, &mut |_| Some(table as &dyn SymbolTable));
        checks.iter().map(|c| (c.verdict, c.length, c.ok(), c.actual.clone())).collect()
    }

    #[test]
    fn whole_cut_and_unknown_frames() {
        let long = format!("_RNvCs1_4demo{}{}", 600, "x".repeat(600));
        let table =
            NmTable::from_symbols([("_RNvCs1_4demo4main", 0x1000, 0x20), (&long, 0x2000, 0x30)]);
        let cut = &long[..KSYM_NAME_LEN - 1];
        let log = format!(
            "Oops: 0002 [#1]\nRIP: 0010:_RNvCs1_4demo4main+0x8/0x20 [demo]\nCall Trace:\n <TASK>\n \
             {cut}+0x30/0x30 [demo]\n _RNvCs1_4demo5other+0x1/0x2 [demo]\n vfs_read+0x1/0x2\n</TASK>\n"
        );
        assert_eq!(
            verdicts(&table, &log),
            [
                (Verdict::Whole, 18, true, None),
                (Verdict::Cut, long.len(), true, None),
                (Verdict::Unknown, 19, false, None)
            ]
        );
    }

    /// What vmlinux backtraces looked like before patch 0006: `scripts/kallsyms` dropped the
    /// symbol of 512 characters, so its code was reported as the end of the one before it (the
    /// layout of the `rust_long_symbols` sample, and kallsyms' size reaching the next symbol).
    #[test]
    fn a_frame_in_a_dropped_symbol_is_the_wrong_function() {
        let at_511 = format!("_RNvC17rust_long_symbols484{}", "a".repeat(484));
        let at_512 = format!("_RNvC17rust_long_symbols485{}", "b".repeat(485));
        let table = NmTable::from_symbols([(&at_511[..], 0x1000, 0x30), (&at_512, 0x1030, 0x30)]);
        let log = format!(
            "Oops: 0002 [#1]\nRIP: 0010:{at_511}+0x8/0x30\nCall Trace:\n <TASK>\n {at_511}+0x48/0x60\n \
             {at_511}+0x30/0x60\n</TASK>\n"
        );
        assert_eq!(
            verdicts(&table, &log),
            [
                (Verdict::Whole, 511, true, None),
                (Verdict::WrongFunction, 511, false, Some(at_512)),
                // A return address just past the end is the call at its end: still its own.
                (Verdict::Whole, 511, true, None),
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
