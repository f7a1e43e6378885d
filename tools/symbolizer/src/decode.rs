//! Decoding frames and whole logs.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use oops::{Frame, frame_on_line, strip_prefixes};
use report::results;

use crate::image::{Image, Location};

/// `KSYM_NAME_LEN` (`include/linux/kallsyms.h`, 512 since 6.1): kallsyms holds and prints
/// names of at most `KSYM_NAME_LEN - 1` characters.
pub const KSYM_NAME_LEN: usize = 512;

/// A decoded frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// The symbol demangled without its hash (`{:#}`).
    pub name: String,
    /// The printed name was cut at `KSYM_NAME_LEN - 1` characters and the whole one was found
    /// in the symbol table.
    pub completed: bool,
    /// Where the address is, innermost (inlined) first; empty without debug information.
    pub locations: Vec<Location>,
    /// For a return address printed at offset 0 of a function (arm64 prints return addresses
    /// with `%pS`, so a call that was its function's last instruction, as a call that does not
    /// return is, names the function after it): the symbol of the function the call is in, and
    /// its size, which is the offset `%pB` would have printed; `name` is then that function's.
    pub past_the_end_of: Option<(String, u64)>,
}

/// The `.ko` files under `dir` (searched recursively), by module name (`-` as `_`), sorted.
pub fn find_modules(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "ko") {
                let name = path.file_stem().unwrap_or_default().to_string_lossy().replace('-', "_");
                out.push((name, path));
            }
        }
    }
    out.sort();
    out
}

/// Decodes frames against `vmlinux` and the modules under a directory.
pub struct Symbolizer {
    vmlinux: Image,
    /// Prefix removed from file names (`decode_stacktrace.sh`'s `base_path`).
    base_path: Option<PathBuf>,
    /// Module name (`-` as `_`) to its `.ko`, found once under the modules directory.
    module_files: HashMap<String, PathBuf>,
    /// Modules opened so far (`None`: could not be opened).
    modules: HashMap<String, Option<Image>>,
    /// Problems met on the way, reported once each.
    pub warnings: Vec<String>,
}

impl Symbolizer {
    /// A symbolizer for `vmlinux`, with module `.ko` files looked up under `modules_dir`.
    pub fn new(vmlinux: Image, base_path: Option<&Path>, modules_dir: Option<&Path>) -> Symbolizer {
        let mut module_files = HashMap::new();
        for (name, path) in modules_dir.map(find_modules).unwrap_or_default() {
            module_files.entry(name).or_insert(path);
        }
        let mut warnings = Vec::new();
        if !vmlinux.has_dwarf() {
            warnings.push(format!(
                "{} has no DWARF (stripped, or built without CONFIG_DEBUG_INFO): names only, no file:line",
                vmlinux.path().display()
            ));
        }
        Symbolizer {
            vmlinux,
            base_path: base_path.map(Path::to_owned),
            module_files,
            modules: HashMap::new(),
            warnings,
        }
    }

    fn image(&mut self, module: Option<&str>) -> Option<&Image> {
        let Some(module) = module else { return Some(&self.vmlinux) };
        let key = module.replace('-', "_");
        if !self.modules.contains_key(&key) {
            let image = match self.module_files.get(&key) {
                Some(path) => match Image::open(path) {
                    Ok(image) => Some(image),
                    Err(e) => {
                        self.warnings.push(e.to_string());
                        None
                    }
                },
                None => {
                    self.warnings.push(format!(
                        "no {key}.ko in the modules directory: frames of module {module} keep their kernel names"
                    ));
                    None
                }
            };
            self.modules.insert(key.clone(), image);
        }
        self.modules[&key].as_ref()
    }

    /// Decodes `frame`; `return_address` is true for call-trace frames, whose address is the
    /// instruction after the call (the kernel's `%pB`), so the line looked up is the call's.
    pub fn decode(&mut self, frame: &Frame, return_address: bool) -> Option<Decoded> {
        let printed = frame.symbol.as_deref()?;
        let image = self.image(frame.module.as_deref());
        let mut symbol = printed.to_owned();
        let mut completed = false;
        let mut start = image.and_then(|image| image.symbol(printed)).map(|(start, _)| start);
        if start.is_none()
            && printed.len() == KSYM_NAME_LEN - 1
            && let Some((whole, address, _)) = image.and_then(|image| image.complete(printed))
        {
            (symbol, start, completed) = (whole.to_owned(), Some(address), true);
        }
        let mut name = format!("{:#}", rustc_demangle::demangle(&symbol));
        let mut past_the_end_of = None;
        let locations = match (image, start) {
            (Some(image), Some(start)) => {
                let back = u64::from(return_address);
                // A log can print any offset; one past the end of the address space is nowhere.
                match start.checked_add(frame.offset).and_then(|a| a.checked_sub(back)) {
                    Some(address) => {
                        if return_address
                            && frame.offset == 0
                            && let Some((before, _, size)) = image.function_at(address)
                        {
                            name = format!("{:#}", rustc_demangle::demangle(before));
                            past_the_end_of = Some((before.to_owned(), size));
                        }
                        image.locate(address)
                    }
                    None => Vec::new(),
                }
            }
            _ => Vec::new(),
        };
        Some(Decoded { name, completed, locations, past_the_end_of })
    }

    fn file(&self, file: &str) -> String {
        match &self.base_path {
            Some(base) => file
                .strip_prefix(&*base.to_string_lossy())
                .map_or(file, |f| f.trim_start_matches('/'))
                .to_owned(),
            None => file.to_owned(),
        }
    }

    fn show(&self, location: &Location) -> String {
        match (&location.file, location.line) {
            (Some(file), Some(line)) => format!("{}:{line}", self.file(file)),
            (Some(file), None) => self.file(file),
            _ => "??".to_owned(),
        }
    }
}

/// Rewrites `log`: every frame (where it happened, a link register, a call-trace frame; see
/// [`frame_on_line`]) gets its demangled name and location, inlined frames on lines of their
/// own; other lines are left as they were.
pub fn decode_log(log: &str, symbolizer: &mut Symbolizer) -> String {
    decode(log, symbolizer).text
}

/// [`decode_log`], with the frames it decoded: the suite's typed result.
pub fn decode(log: &str, symbolizer: &mut Symbolizer) -> results::Decoded {
    let mut frames = Vec::new();
    let mut out = String::with_capacity(log.len() * 2);
    // Where the last report happened (`pc :`, `epc :`): arm64 before 6.14 and riscv start
    // their call trace with that same frame, unmarked, and it is no return address.
    let mut happened: Option<Frame> = None;
    for line in log.lines() {
        // `strip_prefixes` drops trailing `\r`s too: what is before `text` is measured without
        // them, or it would reach into the frame (and inside a multi-byte character).
        let body = line.trim_end_matches('\r');
        let text = strip_prefixes(body);
        let Some(on_line) = frame_on_line(text) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        let frame = &on_line.frame;
        let mut return_address = on_line.return_address;
        let is_register = !on_line.label.is_empty() && !on_line.label.starts_with("[<");
        if is_register && !return_address {
            happened = Some(frame.clone());
        } else if !is_register
            && happened.take().is_some_and(|h| h.symbol == frame.symbol && h.offset == frame.offset)
        {
            return_address = false;
        }
        let Some(decoded) = symbolizer.decode(frame, return_address) else {
            out.push_str(line);
            out.push('\n');
            continue;
        };
        // `text` and its trimmed form are suffixes of `body`: these cut at character boundaries.
        let lead = &body[..body.len() - text.trim_start().len()];
        let marker = if frame.reliable || is_register { "" } else { "? " };
        let module = frame.module.as_deref().map(|m| format!(" [{m}]")).unwrap_or_default();
        let source = frame.source.as_deref().map(|s| format!(" ({s})")).unwrap_or_default();
        let (offset, size) = match &decoded.past_the_end_of {
            Some((_, size)) => (*size, *size),
            None => (frame.offset, frame.size),
        };
        let _ = write!(
            out,
            "{lead}{}{marker}{}+{offset:#x}/{size:#x}{module}{source}",
            on_line.label, decoded.name
        );
        // The outermost location is in the function kallsyms named; inner ones were inlined into it.
        let location = decoded.locations.last().map(|outer| symbolizer.show(outer));
        if let Some(location) = &location {
            let _ = write!(out, " {location}");
        }
        // A location is a `file:line`: a file alone, or none, is none.
        let location =
            location.filter(|_| decoded.locations.last().is_some_and(|l| l.line.is_some()));
        frames.push(results::DecodedFrame { symbol: decoded.name.clone(), location });
        if decoded.past_the_end_of.is_some() {
            let printed = frame.symbol.as_deref().unwrap_or_default();
            let _ = write!(
                out,
                " (printed as {:#}+0x0: the return address just past its end)",
                rustc_demangle::demangle(printed)
            );
        }
        if decoded.completed {
            let _ = write!(
                out,
                " (name cut by kallsyms at {} characters, completed from the symbol table)",
                KSYM_NAME_LEN - 1
            );
        }
        out.push('\n');
        let inlined = decoded.locations.len().saturating_sub(1);
        for location in decoded.locations[..inlined].iter().rev() {
            let function = location.function.as_deref().unwrap_or("??");
            let _ = writeln!(out, "{lead}  (inlined) {function} {}", symbolizer.show(location));
        }
    }
    results::Decoded { text: out, frames }
}
