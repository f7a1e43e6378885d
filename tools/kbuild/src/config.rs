//! `.config` files and config fragments: `CONFIG_FOO=y`, `# CONFIG_FOO is not set`.

use std::ops::Range;

/// The options of a `.config` or of a fragment, by name without the `CONFIG_` prefix.
///
/// Values are kept as written (`y`, `m`, `"string"`, `0x10`); "is not set" is `n`. The text
/// is kept whole, and each option as where its name and value are in it: a `.config` of
/// 1,700 options is read with a few allocations, not two per option.
#[derive(Clone, Default)]
pub struct Config {
    /// The text the options were read from; for an overlay, the texts one after the other.
    text: String,
    /// Each option's name and value in `text`, sorted by name, the last one written of each.
    options: Vec<(Range<usize>, Value)>,
}

#[derive(Clone, Debug)]
enum Value {
    In(Range<usize>),
    NotSet,
}

impl PartialEq for Config {
    fn eq(&self, other: &Config) -> bool {
        self.iter().eq(other.iter())
    }
}

impl Eq for Config {}

impl std::fmt::Debug for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// A line that is neither an option, a comment nor blank.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}: `{text}`")]
pub struct ConfigError {
    /// 1-based line number.
    pub line: usize,
    /// What is wrong with it.
    pub message: &'static str,
    /// The line itself.
    pub text: String,
}

/// An option that a fragment asked for and the resulting `.config` does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmet {
    /// Name without `CONFIG_`.
    pub name: String,
    /// What the fragment asked for.
    pub wanted: String,
    /// What the `.config` has (`n` when absent).
    pub got: String,
}

/// Letters, digits and `_`, at least one.
fn is_option_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

impl Config {
    /// Parses `.config` or fragment text.
    pub fn parse(text: &str) -> Result<Config, ConfigError> {
        // Where a slice of `text` starts in it.
        let at = |part: &str| part.as_ptr() as usize - text.as_ptr() as usize;
        let span = |part: &str| at(part)..at(part) + part.len();
        let mut options = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            let error = |message| ConfigError { line: i + 1, message, text: raw.to_owned() };
            if line.is_empty() {
                continue;
            }
            if let Some(comment) = line.strip_prefix('#') {
                if let Some(name) = comment
                    .trim()
                    .strip_prefix("CONFIG_")
                    .and_then(|rest| rest.strip_suffix(" is not set"))
                    && is_option_name(name)
                {
                    options.push((span(name), Value::NotSet));
                }
                continue;
            }
            let Some((name, value)) = line.split_once('=') else {
                return Err(error("expected `CONFIG_NAME=value`"));
            };
            let Some(name) = name.trim().strip_prefix("CONFIG_") else {
                return Err(error("option names start with `CONFIG_`"));
            };
            if !is_option_name(name) {
                return Err(error("option names are letters, digits and `_`"));
            }
            let value = value.trim();
            if value.is_empty() {
                return Err(error("missing value (use `# CONFIG_NAME is not set` to disable)"));
            }
            options.push((span(name), Value::In(span(value))));
        }
        Ok(Config::of(text.to_owned(), options))
    }

    /// `options` in `text`, in the order written, sorted by name with the last of each name
    /// kept.
    fn of(text: String, mut options: Vec<(Range<usize>, Value)>) -> Config {
        // By name, and of one name the last written (the furthest into the text) first; as
        // bytes, which compare as the names do, without checking where characters start.
        let name = |span: &Range<usize>| &text.as_bytes()[span.clone()];
        options.sort_unstable_by(|(a, _), (b, _)| name(a).cmp(name(b)).then(b.start.cmp(&a.start)));
        options.dedup_by(|(next, _), (kept, _)| name(next) == name(kept));
        Config { text, options }
    }

    fn value(&self, value: &Value) -> &str {
        match value {
            Value::In(span) => &self.text[span.clone()],
            Value::NotSet => "n",
        }
    }

    /// The value of `name` (with or without the `CONFIG_` prefix), if present.
    pub fn get(&self, name: &str) -> Option<&str> {
        let name = name.strip_prefix("CONFIG_").unwrap_or(name);
        let i = self.options.binary_search_by(|(n, _)| self.text[n.clone()].cmp(name)).ok()?;
        Some(self.value(&self.options[i].1))
    }

    /// Whether `name` is `y` or `m`.
    pub fn is_enabled(&self, name: &str) -> bool {
        matches!(self.get(name), Some("y" | "m"))
    }

    /// All options, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.options.iter().map(|(name, value)| (&self.text[name.clone()], self.value(value)))
    }

    /// This config with `later`'s options on top, as `merge_config.sh` merges fragments: an
    /// option set in both takes `later`'s value.
    pub fn overlaid(&self, later: &Config) -> Config {
        let shift = |span: &Range<usize>| span.start + self.text.len()..span.end + self.text.len();
        let later_options = later.options.iter().map(|(name, value)| {
            let value = match value {
                Value::In(span) => Value::In(shift(span)),
                Value::NotSet => Value::NotSet,
            };
            (shift(name), value)
        });
        let options = self.options.iter().cloned().chain(later_options).collect();
        Config::of(format!("{}{}", self.text, later.text), options)
    }

    /// The options of `fragment` that this config does not have as asked.
    pub fn unmet(&self, fragment: &Config) -> Vec<Unmet> {
        fragment
            .iter()
            .filter_map(|(name, wanted)| {
                let got = self.get(name).unwrap_or("n");
                (got != wanted).then(|| Unmet {
                    name: name.to_owned(),
                    wanted: wanted.to_owned(),
                    got: got.to_owned(),
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    fn check(text: &str, expect: Expect) {
        let actual = match Config::parse(text) {
            Ok(config) => config.iter().map(|(k, v)| format!("{k}={v}\n")).collect::<String>(),
            Err(e) => format!("error: {e}\n"),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn a_later_fragment_overrides_an_earlier_one() {
        let demo = Config::parse("CONFIG_SCHEDSTATS=n\nCONFIG_RUST=y\n").unwrap();
        let wide = Config::parse("CONFIG_SCHEDSTATS=y\nCONFIG_NET=y\n").unwrap();
        let merged = demo.overlaid(&wide);
        let text: String = merged.iter().map(|(k, v)| format!("{k}={v}\n")).collect();
        expect![[r#"
            NET=y
            RUST=y
            SCHEDSTATS=y
        "#]]
        .assert_eq(&text);
        // A later "is not set", and a name the later fragment writes twice.
        let off = Config::parse("# CONFIG_RUST is not set\nCONFIG_NET=m\nCONFIG_NET=y\n").unwrap();
        let merged = merged.overlaid(&off);
        assert_eq!(merged.get("CONFIG_RUST"), Some("n"));
        assert_eq!(merged.get("NET"), Some("y"));
        assert_eq!(merged.get("CONFIG_SCHEDSTATS"), Some("y"));
        assert_eq!(merged.get("MISSING"), None);
        // The same options read from other texts are the same config.
        let written = "CONFIG_NET=y\n# CONFIG_RUST is not set\nCONFIG_SCHEDSTATS=y\n";
        assert_eq!(merged, Config::parse(written).unwrap());
        assert_ne!(merged, demo);
    }

    #[test]
    fn options_comments_and_not_set() {
        check(
            "#\n# Automatically generated file; DO NOT EDIT.\n#\nCONFIG_RUST=y\n\
             CONFIG_SAMPLE_RUST_MINIMAL=m\n# CONFIG_WERROR is not set\n\
             CONFIG_LOCALVERSION=\"\"\nCONFIG_LOG_BUF_SHIFT=17\n",
            expect![[r#"
                LOCALVERSION=""
                LOG_BUF_SHIFT=17
                RUST=y
                SAMPLE_RUST_MINIMAL=m
                WERROR=n
            "#]],
        );
    }

    #[test]
    fn an_option_written_twice_takes_its_last_value() {
        check(
            "CONFIG_B=y\nCONFIG_A=y\n# CONFIG_B is not set\nCONFIG_A=m\nCONFIG_AB=1\n",
            expect![[r#"
                A=m
                AB=1
                B=n
            "#]],
        );
    }

    /// Found by `garbage_never_panics`: the comment form took an empty name.
    #[test]
    fn not_set_comment_without_a_name_is_a_plain_comment() {
        check("# CONFIG_ is not set\n# CONFIG_A B is not set\n", expect![[""]]);
    }

    #[test]
    fn bad_lines_are_named() {
        check(
            "CONFIG_RUST=y\nRUST=y\n",
            expect![[r#"
            error: line 2: option names start with `CONFIG_`: `RUST=y`
        "#]],
        );
        check(
            "CONFIG_RUST\n",
            expect![[r#"
            error: line 1: expected `CONFIG_NAME=value`: `CONFIG_RUST`
        "#]],
        );
        check(
            "CONFIG_RUST=\n",
            expect![[r#"
            error: line 1: missing value (use `# CONFIG_NAME is not set` to disable): `CONFIG_RUST=`
        "#]],
        );
        check(
            "CONFIG_RU ST=y\n",
            expect![[r#"
            error: line 1: option names are letters, digits and `_`: `CONFIG_RU ST=y`
        "#]],
        );
    }

    /// `.config` files can be anything a user points us at: no input may make the parser panic.
    #[test]
    fn garbage_never_panics() {
        let pieces = ["CONFIG_", "RUST", "=", "y", "#", " is not set", "\n", " ", "\"", "é", "=="];
        for text in crate::testing::garbage(0x9e37_79b9_7f4a_7c15, &pieces, 2000) {
            if let Ok(config) = Config::parse(&text) {
                assert!(config.iter().all(|(name, value)| !name.is_empty() && !value.is_empty()));
            }
        }
    }

    #[test]
    fn unmet_options_of_a_fragment() {
        let config =
            Config::parse("CONFIG_RUST=y\nCONFIG_MODULES=y\nCONFIG_SAMPLE_RUST_PRINT=y\n").unwrap();
        let fragment = Config::parse(
            "CONFIG_RUST=y\nCONFIG_SAMPLE_RUST_PRINT=m\nCONFIG_KALLSYMS_ALL=y\n# CONFIG_MODULES is not set\n",
        )
        .unwrap();
        let unmet: Vec<String> = config
            .unmet(&fragment)
            .iter()
            .map(|u| format!("{} wanted {} got {}", u.name, u.wanted, u.got))
            .collect();
        assert_eq!(
            unmet,
            [
                "KALLSYMS_ALL wanted y got n",
                "MODULES wanted n got y",
                "SAMPLE_RUST_PRINT wanted m got y"
            ]
        );
        assert!(config.is_enabled("CONFIG_RUST"));
        assert!(!config.is_enabled("KALLSYMS_ALL"));
    }
}
