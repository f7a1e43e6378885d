//! Patches: the lines a unified diff adds or changes, so that only those are linted.

use std::collections::{BTreeMap, BTreeSet};

/// For each file the diff touches (its new path, without the `b/` prefix), the 1-based line
/// numbers in the new file that the diff adds.
pub fn touched_lines(diff: &str) -> BTreeMap<String, BTreeSet<usize>> {
    let mut out: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    let mut file: Option<String> = None;
    let mut line = 0usize;
    for l in diff.lines() {
        if let Some(path) = l.strip_prefix("+++ ") {
            let path = path.split('\t').next().unwrap_or(path).trim();
            file =
                (path != "/dev/null").then(|| path.strip_prefix("b/").unwrap_or(path).to_owned());
            if let Some(f) = &file {
                out.entry(f.clone()).or_default();
            }
        } else if let Some(hunk) = l.strip_prefix("@@ ") {
            // @@ -a,b +c,d @@
            line = hunk
                .split_whitespace()
                .find_map(|w| w.strip_prefix('+'))
                .and_then(|w| w.split(',').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
        } else if l.starts_with("--- ") || l.starts_with("diff ") || l.starts_with("index ") {
            continue;
        } else if let Some(f) = &file {
            if l.starts_with('+') {
                out.entry(f.clone()).or_default().insert(line);
                line += 1;
            } else if l.starts_with(' ') || l.is_empty() {
                line += 1;
            }
            // `-` lines are not in the new file; `\ No newline` is not a line.
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_lines_are_counted_in_the_new_file() {
        let diff = "\
diff --git a/rust/kernel/a.rs b/rust/kernel/a.rs
index 1..2 100644
--- a/rust/kernel/a.rs
+++ b/rust/kernel/a.rs
@@ -10,4 +10,5 @@ fn f() {
 context
-old
+new one
+new two
 context
@@ -40 +41 @@
-x
+y
--- a/gone.rs
+++ /dev/null
@@ -1 +0,0 @@
-gone
";
        let t = touched_lines(diff);
        assert_eq!(t.len(), 1);
        assert_eq!(t["rust/kernel/a.rs"].iter().copied().collect::<Vec<_>>(), [11, 12, 41]);
    }
}
