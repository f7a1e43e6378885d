//! One frame of a backtrace as the kernel prints it with `%pB`/`%pS`:
//! `[?] symbol+0xoff/0xsize [module buildid]`, or a bare address.

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
