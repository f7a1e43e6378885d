//! The suite's output: HTML escaping, the page style the tools' reports share (kallsyms-check's
//! and layout-check's), so that they look alike and are written once, and writing an output
//! file atomically. [`results`]: every tool's result as data; [`kcidb`]: the same as KernelCI's
//! KCIDB data.

pub mod kcidb;
pub mod results;

/// Escapes text for HTML, in element content and in quoted attributes.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The start of a report page titled `title`, up to its `<h1>`: a table style, `.ok` and
/// `.fail` verdicts, `td.name` for long symbol names.
pub fn page_start(title: &str) -> String {
    let title = escape(title);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\n\
         <style>body{{font-family:sans-serif;margin:2em;max-width:72em}}table{{border-collapse:collapse}}\
         td,th{{border:1px solid #ccc;padding:2px 6px;font-size:90%}}td.name{{font-family:monospace;word-break:break-all}}\
         .ok{{color:#070}}.fail{{color:#b00;font-weight:bold}}</style></head><body>\n<h1>{title}</h1>\n"
    )
}

/// The end of a report page.
pub const PAGE_END: &str = "</body></html>\n";

/// Writes `contents` to `path` through a temporary file in the same directory and a rename, so
/// that a reader never sees half a file; the temporary file is removed when anything fails.
pub fn write_atomically(path: &std::path::Path, contents: impl AsRef<[u8]>) -> std::io::Result<()> {
    use std::io::Write;
    let dir =
        path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
    let name = path.file_name().map_or("file".into(), |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(contents.as_ref())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape("<a href=\"x\">Tom & Jerry's</a>"),
            "&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;"
        );
        assert_eq!(escape("plain é"), "plain é");
    }

    #[test]
    fn a_page_starts_with_its_escaped_title() {
        let page = page_start("a < b");
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.contains("<title>a &lt; b</title>") && page.ends_with("<h1>a &lt; b</h1>\n"));
    }

    #[test]
    fn a_file_is_replaced_whole_and_a_failure_leaves_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.json");
        write_atomically(&path, "old").unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        // A directory where the file should go: the rename fails, and the temporary goes.
        let blocked = dir.path().join("blocked");
        std::fs::create_dir_all(blocked.join("inside")).unwrap();
        assert!(write_atomically(&blocked, "x").is_err());
        let left: Vec<_> =
            std::fs::read_dir(dir.path()).unwrap().flatten().map(|e| e.file_name()).collect();
        assert_eq!(left.len(), 2, "only out.json and blocked/: {left:?}");
    }
}
