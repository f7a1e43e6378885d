//! The version switcher of a combined site: each version's `versions.js` (the script every
//! page loads from its version's root, see [`crate::html::add_versions_tag`]) and the lists of
//! each version's pages it looks the same page up in. Pure: takes paths, gives text.
//!
//! The pages of a version are grouped by their first folder (a crate, `srctree`; `src/CRATE`
//! for source pages; the root's own pages in `_root`), each group a file
//! `versions/VERSION/GROUP.js` that sets `DOCS_PAGES["VERSION/GROUP"]` to a tree of nested
//! objects, one a folder, a page being `1`. Script files rather than JSON, so that the switcher
//! works from `file:` URLs as well as over HTTP (a `fetch` of a local file is refused), and a
//! page loads only the list of its own group in the other version.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// The group of a page path (relative to its version's root): `kernel`, `src/kernel`, or ``
/// for the root's own pages.
pub fn group(page: &str) -> String {
    let parts: Vec<&str> = page.split('/').collect();
    match parts.as_slice() {
        [_] => String::new(),
        ["src", krate, _, ..] => format!("src/{krate}"),
        [first, ..] => (*first).to_owned(),
        [] => String::new(),
    }
}

/// The file name of a group's list: `kernel.js`, `src.kernel.js`, `_root.js`.
pub fn group_file(group: &str) -> String {
    if group.is_empty() { "_root.js".to_owned() } else { format!("{}.js", group.replace('/', ".")) }
}

/// The pages of one version (paths relative to its root), by group, each group as the script
/// that defines its tree.
pub fn page_lists(label: &str, pages: &[String]) -> BTreeMap<String, String> {
    let mut trees: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    for page in pages {
        let group = group(page);
        let rest = if group.is_empty() { page.as_str() } else { &page[group.len() + 1..] };
        let mut node = trees.entry(group).or_default();
        let parts: Vec<&str> = rest.split('/').collect();
        let (file, dirs) = parts.split_last().expect("split gives one part at least");
        for dir in dirs {
            let next = node.entry((*dir).to_owned()).or_insert_with(|| Value::Object(Map::new()));
            if !next.is_object() {
                *next = Value::Object(Map::new());
            }
            node = next.as_object_mut().expect("made an object above");
        }
        node.entry((*file).to_owned()).or_insert(Value::from(1));
    }
    trees
        .into_iter()
        .map(|(group, tree)| {
            let key = serde_json::to_string(&format!("{label}/{group}")).expect("a string");
            let text = format!(
                "(window.DOCS_PAGES = window.DOCS_PAGES || {{}})[{key}] = {};\n",
                Value::Object(tree)
            );
            (group, text)
        })
        .collect()
}

/// What a version's switcher knows.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Config {
    /// This version's label.
    pub current: String,
    /// Every version, oldest first.
    pub versions: Vec<String>,
    /// The groups of each version's pages (which lists exist).
    pub groups: BTreeMap<String, Vec<String>>,
    /// Pages of this version that are elsewhere in another: version → (page here → page there),
    /// from the moves the API diff found.
    pub moved: BTreeMap<String, BTreeMap<String, String>>,
}

/// The switcher's code; `DOCS_VERSIONS` is its [`Config`].
const SCRIPT: &str = r#"
(function () {
  'use strict';
  var config = DOCS_VERSIONS;
  var script = document.currentScript;
  if (!script || !script.src) return;
  var root = script.src.replace(/[^\/]*$/, '');
  var top = root.replace(/[^\/]*\/$/, '');
  var here = location.href.split('#')[0].split('?')[0];
  if (here.indexOf(root) !== 0) return;
  var page = decodeURIComponent(here.slice(root.length));
  if (page === '' || page.slice(-1) === '/') page += 'index.html';
  var pages = window.DOCS_PAGES = window.DOCS_PAGES || {};

  function groupOf(p) {
    var parts = p.split('/');
    if (parts.length === 1) return '';
    if (parts[0] === 'src' && parts.length > 2) return 'src/' + parts[1];
    return parts[0];
  }
  function load(version, group, done) {
    var key = version + '/' + group;
    if (key in pages) return done(pages[key]);
    if ((config.groups[version] || []).indexOf(group) < 0) return done(null);
    var s = document.createElement('script');
    s.src = top + 'versions/' + version + '/' +
      (group === '' ? '_root' : group.replace('/', '.')) + '.js';
    s.onload = function () { done(pages[key] || null); };
    s.onerror = function () { done(null); };
    document.head.appendChild(s);
  }
  function has(tree, group, p) {
    if (!tree) return false;
    var rest = group === '' ? p : p.slice(group.length + 1);
    var node = tree;
    var parts = rest.split('/');
    for (var i = 0; i < parts.length; i++) {
      if (node === null || typeof node !== 'object' || !(parts[i] in node)) return false;
      node = node[parts[i]];
    }
    return node === 1;
  }
  function closest(tree, group, p) {
    var dirs = p.split('/').slice(0, -1);
    while (dirs.length > 0) {
      var index = dirs.join('/') + '/index.html';
      if (groupOf(index) === group && has(tree, group, index)) return index;
      dirs.pop();
    }
    return 'index.html';
  }

  var box = document.createElement('div');
  box.id = 'docs-versions';
  box.setAttribute('style', 'position:fixed;right:12px;bottom:12px;z-index:1000;' +
    'background:#fff;color:#222;border:1px solid #999;border-radius:6px;padding:6px 10px;' +
    'font:13px sans-serif;box-shadow:0 1px 4px rgba(0,0,0,.3);max-width:28em');
  var label = document.createElement('span');
  label.textContent = 'Linux ';
  box.appendChild(label);
  config.versions.forEach(function (version) {
    var item = document.createElement(version === config.current ? 'strong' : 'a');
    item.className = version === config.current ? 'current-version' : 'version-link';
    item.dataset.version = version;
    item.textContent = version;
    if (version !== config.current) {
      item.href = top + version + '/index.html';
    }
    box.appendChild(item);
    box.appendChild(document.createTextNode(' '));
  });
  var changes = document.createElement('a');
  changes.href = top + 'changes/index.html';
  changes.textContent = 'API changes';
  changes.className = 'changes-link';
  box.appendChild(document.createTextNode('· '));
  box.appendChild(changes);
  var note = document.createElement('div');
  note.className = 'version-note';
  box.appendChild(note);

  config.versions.forEach(function (version) {
    if (version === config.current) return;
    var link = box.querySelector('a.version-link[data-version="' + version + '"]');
    var target = (config.moved[version] || {})[page] || page;
    var group = groupOf(target);
    load(version, group, function (tree) {
      if (has(tree, group, target)) {
        link.href = top + version + '/' + target + (target === page ? location.hash : '');
        link.title = 'This page in Linux ' + version;
        link.dataset.state = target === page ? 'same' : 'moved';
        return;
      }
      var near = closest(tree, group, target);
      link.href = top + version + '/' + near;
      link.dataset.state = 'missing';
      link.title = 'Not in Linux ' + version + ': its closest page there';
      var line = document.createElement('div');
      line.className = 'version-missing';
      line.dataset.version = version;
      line.textContent = 'This page does not exist in Linux ' + version + '; ';
      var closestLink = document.createElement('a');
      closestLink.href = link.href;
      closestLink.textContent = 'its closest page there';
      line.appendChild(closestLink);
      note.appendChild(line);
    });
  });

  function show() { document.body.appendChild(box); }
  if (document.body) show(); else document.addEventListener('DOMContentLoaded', show);
})();
"#;

/// The `versions.js` of one version in the combined site.
pub fn script(config: &Config) -> String {
    format!(
        "// The version switcher of a combined site, written by `docs-site versions`.\n\
         var DOCS_VERSIONS = {};\n{SCRIPT}",
        serde_json::to_string(config).expect("the config serializes")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_grouped_by_crate_and_source_crate() {
        assert_eq!(group("index.html"), "");
        assert_eq!(group("kernel/sync/struct.Arc.html"), "kernel");
        assert_eq!(group("src/kernel/sync.rs.html"), "src/kernel");
        assert_eq!(group("srctree/include/linux/err.h.html"), "srctree");
        assert_eq!(group_file("src/kernel"), "src.kernel.js");
        let lists = page_lists(
            "7.3",
            &[
                "index.html".to_owned(),
                "kernel/index.html".to_owned(),
                "kernel/sync/struct.Arc.html".to_owned(),
                "kernel/sync/index.html".to_owned(),
            ],
        );
        expect_test::expect![[r#"
            {
                "": "(window.DOCS_PAGES = window.DOCS_PAGES || {})[\"7.3/\"] = {\"index.html\":1};\n",
                "kernel": "(window.DOCS_PAGES = window.DOCS_PAGES || {})[\"7.3/kernel\"] = {\"index.html\":1,\"sync\":{\"index.html\":1,\"struct.Arc.html\":1}};\n",
            }
        "#]]
        .assert_debug_eq(&lists);
    }
}
