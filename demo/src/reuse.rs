//! A result kept while its inputs are the same: the key is a hash of their contents
//! (`freshness`, the suite's one mechanism), so that a rebuilt file with the same bytes is
//! fresh and a changed one with the same size and time is not.

use std::path::{Path, PathBuf};

use freshness::Fingerprint;

/// The key of some inputs: a fingerprint of `extra` (a version, a setting) and each input's
/// path and contents (a missing input is keyed as missing).
pub fn key_of(inputs: &[PathBuf], extra: &str) -> String {
    let mut key = Fingerprint::new();
    key.add(extra);
    for path in inputs {
        key.add_file(path);
    }
    key.finish()
}

/// A result kept in a work folder (`NAME.key`, `NAME.result`), reused while the key of its
/// inputs is the same.
pub struct Reuse {
    key_file: PathBuf,
    result_file: PathBuf,
    key: String,
}

impl Reuse {
    /// The kept result `name` in `work_dir`, for inputs whose key is `key`.
    pub fn new(work_dir: &Path, name: &str, key: String) -> Reuse {
        Reuse {
            key_file: work_dir.join(format!("{name}.key")),
            result_file: work_dir.join(format!("{name}.result")),
            key,
        }
    }

    /// The kept result, if its inputs have not changed.
    pub fn get(&self) -> Option<String> {
        let key = std::fs::read_to_string(&self.key_file).ok()?;
        if key != self.key {
            return None;
        }
        std::fs::read_to_string(&self.result_file).ok()
    }

    /// Keeps `result` for these inputs (result first, then the key: an interrupted write leaves
    /// no key that matches).
    pub fn put(&self, result: &str) {
        let _ = std::fs::remove_file(&self.key_file);
        if report::write_atomically(&self.result_file, result).is_ok() {
            let _ = report::write_atomically(&self.key_file, &self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_is_reused_while_its_inputs_hold_the_same_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("vmlinux");
        std::fs::write(&input, "one").unwrap();
        let reuse =
            |extra| Reuse::new(dir.path(), "boot", key_of(std::slice::from_ref(&input), extra));
        assert_eq!(reuse("v1").get(), None);
        reuse("v1").put("booted");
        assert_eq!(reuse("v1").get().as_deref(), Some("booted"));
        assert_eq!(reuse("v2").get(), None, "another setting is another key");
        std::fs::write(&input, "two").unwrap();
        assert_eq!(reuse("v1").get(), None, "changed contents");
        std::fs::write(&input, "one").unwrap();
        assert_eq!(reuse("v1").get().as_deref(), Some("booted"), "the same bytes again");
        std::fs::remove_file(&input).unwrap();
        assert_eq!(reuse("v1").get(), None, "a missing input");
    }
}
