//! One frame of a backtrace as the kernel prints it with `%pB`/`%pS`:
//! `[?] symbol+0xoff/0xsize [module buildid]`, or a bare address; on arm64 since 6.14 followed
//! by where the unwinder found it (`(P)`, `(L)`, `(CF)`, ...).

use serde::Serialize;

/// A frame.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Frame {
    /// Printed without `?`: the unwinder found it through frame pointers, not by scanning.
    pub reliable: bool,
    /// The symbol, as printed (mangled, possibly cut short by the kernel).
    pub symbol: Option<String>,
    /// The offset into the symbol.
    pub offset: u64,
    /// The symbol's size as kallsyms knows it.
    pub size: u64,
    /// The module, for a frame in a loadable module.
    pub module: Option<String>,
    /// The module's build id, when the kernel prints it.
    pub build_id: Option<String>,
    /// The address, for a frame printed without a symbol.
    pub address: Option<u64>,
    /// arm64's note of where the unwinder found the frame (`arch/arm64/kernel/stacktrace.c`,
    /// since 6.14): `P` the faulting pc of an exception's registers, `L` their link register,
    /// `C` the caller, `T` a blocked task, `U` unknown, each possibly followed by `F` (through
    /// the function graph tracer) and `K` (a kretprobe).
    pub source: Option<String>,
}

impl Frame {
    /// Whether the printed offset is a return address (the instruction after a call) rather
    /// than the instruction itself: true for call-trace frames but arm64's `(P)`, the pc of an
    /// exception's registers.
    pub fn is_return_address(&self) -> bool {
        self.source.as_deref().is_none_or(|s| !s.starts_with('P'))
    }
}

/// Splits arm64's unwind annotation (` (P)`, ` (L)`, ` (CF)`, ...) off the end of a frame.
fn split_source(text: &str) -> (&str, Option<&str>) {
    let Some((frame, note)) = text.rsplit_once(" (") else { return (text, None) };
    let Some(note) = note.strip_suffix(')') else { return (text, None) };
    let mut rest = note;
    for flag in ["C", "T", "P", "L", "U"] {
        if let Some(r) = rest.strip_prefix(flag) {
            rest = r;
            break;
        }
    }
    rest = rest.strip_prefix('F').unwrap_or(rest);
    rest = rest.strip_prefix('K').unwrap_or(rest);
    if note.is_empty() || !rest.is_empty() {
        return (text, None);
    }
    (frame.trim_end(), Some(note))
}

/// Removes what is in front of the kernel's own text: a `<N>` level, a `[  12.345678]`
/// timestamp and `kernel: ` from syslog-style `dmesg` output.
pub fn strip_prefixes(line: &str) -> &str {
    let mut line = line.trim_end_matches('\r');
    if let Some(rest) = line.strip_prefix('<')
        && let Some((level, rest)) = rest.split_once('>')
        && level.bytes().all(|b| b.is_ascii_digit())
    {
        line = rest;
    }
    if let Some(rest) = line.strip_prefix('[')
        && let Some((stamp, rest)) = rest.split_once(']')
        && stamp.trim().bytes().all(|b| b.is_ascii_digit() || b == b'.')
    {
        line = rest.strip_prefix(' ').unwrap_or(rest);
    }
    line.strip_prefix("kernel: ").unwrap_or(line)
}

/// A log line that carries a frame, as `decode-stacktrace` rewrites it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameLine<'a> {
    /// What stands before the frame, after the line's indentation: a register's name
    /// (x86-64's `RIP: 0010:`, arm64's `pc : ` and `lr : `, riscv64's `epc : ` and `ra : `) or
    /// `print_ip_sym()`'s `[<address>] `; empty for a call-trace frame.
    pub label: &'a str,
    /// The frame.
    pub frame: Frame,
    /// Whether the printed offset is a return address (the instruction after a call): the
    /// link registers' and call traces' (but arm64's `(P)`), not where it happened.
    pub return_address: bool,
}

/// The frame on a line of a log (without its printk prefixes, see [`strip_prefixes`]): a
/// register line that names where it happened or the link register, or a call-trace frame
/// (indented, or after `[<address>] `).
pub fn frame_on_line(text: &str) -> Option<FrameLine<'_>> {
    let trimmed = text.trim_start();
    const REGISTERS: [(&str, bool); 5] = [
        ("RIP: 0010:", false),
        ("pc : ", false),
        ("lr : ", true),
        ("epc : ", false),
        ("ra : ", true),
    ];
    for (label, return_address) in REGISTERS {
        if let Some(rest) = trimmed.strip_prefix(label) {
            let frame = parse_frame(rest)?;
            return Some(FrameLine { label: &trimmed[..label.len()], frame, return_address });
        }
    }
    if let Some((address, rest)) = trimmed.strip_prefix("[<").and_then(|r| r.split_once(">] "))
        && address.bytes().all(|b| b.is_ascii_hexdigit())
    {
        let frame = parse_frame(rest)?;
        let label = &trimmed[..trimmed.len() - rest.len()];
        return Some(FrameLine { label, return_address: frame.is_return_address(), frame });
    }
    if !text.starts_with(' ') {
        return None;
    }
    let frame = parse_frame(trimmed)?;
    Some(FrameLine { label: "", return_address: frame.is_return_address(), frame })
}

fn hex(s: &str) -> Option<u64> {
    u64::from_str_radix(s.strip_prefix("0x")?, 16).ok()
}

/// Parses a frame (a `Call Trace:` line without its leading space, or what follows `RIP: 0010:`).
pub fn parse_frame(text: &str) -> Option<Frame> {
    let text = text.trim();
    let (reliable, text) = match text.strip_prefix("? ") {
        Some(rest) => (false, rest.trim_start()),
        None => (true, text),
    };
    let (text, source) = split_source(text);
    let (location, module_part) = match text.split_once(' ') {
        Some((location, rest)) => (location, Some(rest.trim())),
        None => (text, None),
    };
    let mut frame = Frame {
        reliable,
        symbol: None,
        offset: 0,
        size: 0,
        module: None,
        build_id: None,
        address: None,
        source: source.map(str::to_owned),
    };
    if let Some(address) = hex(location) {
        frame.address = Some(address);
    } else {
        let (symbol, rest) = location.rsplit_once('+')?;
        let (offset, size) = rest.split_once('/')?;
        if symbol.is_empty() || !symbol.bytes().all(|b| b.is_ascii_graphic()) {
            return None;
        }
        frame.symbol = Some(symbol.to_owned());
        frame.offset = hex(offset)?;
        frame.size = hex(size)?;
    }
    if let Some(module_part) = module_part {
        let inner = module_part.strip_prefix('[')?.strip_suffix(']')?;
        let mut words = inner.split_whitespace();
        frame.module = Some(words.next()?.to_owned());
        frame.build_id = words.next().map(str::to_owned);
        if words.next().is_some() {
            return None;
        }
    }
    Some(frame)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_as_the_kernel_prints_them() {
        let f = parse_frame("_RNvXCs2yeAwcRBkKw_15rust_oops_panicNtB2_13RustOopsPanicNtCs1EKtwoKEMO2_6kernel6Module4init+0x69/0x69 [rust_oops_panic]").unwrap();
        assert!(f.reliable);
        assert_eq!((f.offset, f.size, f.module.as_deref()), (0x69, 0x69, Some("rust_oops_panic")));
        let f = parse_frame("? init_module_from_file+0x86/0x92").unwrap();
        assert!(!f.reliable && f.module.is_none());
        assert_eq!(f.symbol.as_deref(), Some("init_module_from_file"));
        let f = parse_frame("? 0xffffffffa0000000").unwrap();
        assert_eq!((f.address, f.symbol), (Some(0xffffffffa0000000), None));
        let f = parse_frame("foo.cold+0x5/0x20 [mod 0123456789abcdef]").unwrap();
        assert_eq!(
            (f.symbol.as_deref(), f.build_id.as_deref()),
            (Some("foo.cold"), Some("0123456789abcdef"))
        );
    }

    #[test]
    fn arm64_frames_with_where_the_unwinder_found_them() {
        let f = parse_frame("_RNvCs1_4demo4main+0x10/0x38 [demo] (P)").unwrap();
        assert_eq!(f.module.as_deref(), Some("demo"));
        assert_eq!((f.source.as_deref(), f.is_return_address()), (Some("P"), false));
        let f = parse_frame("do_one_initcall+0x60/0x1d8 (L)").unwrap();
        assert_eq!(
            (f.symbol.as_deref(), f.source.as_deref()),
            (Some("do_one_initcall"), Some("L"))
        );
        assert!(f.is_return_address());
        let f = parse_frame("el0t_64_sync+0x198/0x19c (CFK)").unwrap();
        assert_eq!(f.source.as_deref(), Some("CFK"));
        assert!(parse_frame("kernel_init+0x20/0x1d8").unwrap().is_return_address());
        // Not an annotation: left in place, so the line is not a frame.
        assert_eq!(parse_frame("foo+0x1/0x2 (X)"), None);
        assert_eq!(parse_frame("foo+0x1/0x2 ()"), None);
    }

    #[test]
    fn lines_that_carry_frames() {
        let line = |text| frame_on_line(text).map(|l| (l.label, l.return_address));
        assert_eq!(line("RIP: 0010:foo+0x8/0x11 [m]"), Some(("RIP: 0010:", false)));
        assert_eq!(line("pc : foo+0x8/0x14 [m]"), Some(("pc : ", false)));
        assert_eq!(line("lr : bar+0x10/0x1c"), Some(("lr : ", true)));
        assert_eq!(line("epc : foo+0x8/0x12 [m]"), Some(("epc : ", false)));
        assert_eq!(line(" ra : bar+0xe/0x18 [m]"), Some(("ra : ", true)));
        assert_eq!(
            line("[<ffffffff01ad2008>] foo+0x8/0x12 [m]"),
            Some(("[<ffffffff01ad2008>] ", true))
        );
        assert_eq!(line(" foo+0x8/0x14 [m] (P)"), Some(("", false)));
        assert_eq!(line(" ? bar+0x1/0x2"), Some(("", true)));
        // Not frames: unindented text, raw register values, user space.
        for text in
            ["foo+0x1/0x2", "pc : ffff800080012345", "RIP: 0033:0x47fbe9", "[<zz>] foo+0x1/0x2"]
        {
            assert_eq!(line(text), None, "{text:?}");
        }
    }

    #[test]
    fn not_frames() {
        for text in [
            "",
            "<TASK>",
            "RIP: 0033:0x47fbe9",
            "foo+0x5",
            "foo+0xzz/0x10",
            "foo+0x1/0x2 [mod",
            "a b c",
        ] {
            assert_eq!(parse_frame(text), None, "{text:?}");
        }
    }

    #[test]
    fn prefixes_of_console_and_dmesg_lines() {
        assert_eq!(strip_prefixes("[    1.234567] Call Trace:"), "Call Trace:");
        assert_eq!(
            strip_prefixes("<4>[    1.234567] kernel: Oops: 0002 [#1]\r"),
            "Oops: 0002 [#1]"
        );
        assert_eq!(strip_prefixes("[not a stamp] x"), "[not a stamp] x");
    }
}
