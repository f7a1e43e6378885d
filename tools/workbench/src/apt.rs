//! Kernel source packages from a Debian suite the machine does not use (for example
//! `linux-source-7.3` from trixie-backports on a bookworm machine), fetched with apt from the
//! Debian mirror the machine already uses, with a private apt state: the machine's own apt
//! configuration, lists and package cache are never touched.
//!
//! [`mirror_uri`] finds the mirror in the text of the machine's apt sources (pure);
//! [`fetch_source`] downloads and unpacks the package into a folder of the cache.

use std::path::{Path, PathBuf};
use std::time::Duration;

use subprocess::Command;

use crate::{STAMP, WorkbenchError, make_in_place};

/// The keyring that signs Debian's suites, bookworm's `debian-archive-keyring` (it holds the
/// trixie keys too): a fetched suite is verified as the machine's own are.
const KEYRING: &str = "/usr/share/keyrings/debian-archive-keyring.gpg";

/// Where apt keeps its sources on a Debian machine.
const SOURCES: [&str; 2] = ["/etc/apt/sources.list", "/etc/apt/sources.list.d"];

/// The first Debian mirror in apt sources: a `deb` entry, one-line (`sources.list`) or deb822
/// (`*.sources`), whose URI is the root of a Debian archive (its path ends in `/debian`). Security
/// and other archives (`/debian-security`, third parties) are passed over. `sources` is each
/// file's text; disabled deb822 stanzas (`Enabled: no`) and comments are skipped.
pub fn mirror_uri(sources: &[String]) -> Option<String> {
    let is_debian = |uri: &str| uri.trim_end_matches('/').ends_with("/debian");
    for text in sources {
        // One-line format: `deb [options] URI suite components...`.
        for line in text.lines() {
            let line = line.split('#').next().unwrap_or("").trim();
            let mut words = line.split_whitespace();
            if words.next() != Some("deb") {
                continue;
            }
            let mut uri = words.next();
            if uri.is_some_and(|w| w.starts_with('[')) {
                // Options run to the word that ends with `]`.
                let mut word = uri;
                while let Some(w) = word {
                    if w.ends_with(']') {
                        break;
                    }
                    word = words.next();
                }
                uri = words.next();
            }
            if let Some(uri) = uri.filter(|u| is_debian(u)) {
                return Some(uri.trim_end_matches('/').to_owned());
            }
        }
        // deb822: stanzas separated by blank lines, `Field: value` lines.
        for stanza in text.split("\n\n") {
            let field = |name: &str| {
                stanza.lines().find_map(|l| {
                    let (key, value) = l.split_once(':')?;
                    key.trim().eq_ignore_ascii_case(name).then(|| value.trim().to_owned())
                })
            };
            let enabled = field("Enabled").is_none_or(|v| !v.eq_ignore_ascii_case("no"));
            let debs = field("Types").is_some_and(|t| t.split_whitespace().any(|t| t == "deb"));
            if !(enabled && debs) {
                continue;
            }
            if let Some(uri) = field("URIs").and_then(|u| {
                u.split_whitespace()
                    .find(|u| is_debian(u))
                    .map(|u| u.trim_end_matches('/').to_owned())
            }) {
                return Some(uri);
            }
        }
    }
    None
}

/// The text of the machine's apt sources, in the order apt reads them.
fn machine_sources() -> Vec<String> {
    let mut files: Vec<PathBuf> = vec![PathBuf::from(SOURCES[0])];
    if let Ok(dir) = std::fs::read_dir(SOURCES[1]) {
        let mut parts: Vec<PathBuf> = dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "list" || e == "sources"))
            .collect();
        parts.sort();
        files.extend(parts);
    }
    files.iter().filter_map(|f| std::fs::read_to_string(f).ok()).collect()
}

/// The source tarball in the unpacked `package`, `root`: `usr/src/PACKAGE.tar.xz`, as Debian's
/// `linux-source-*` packages lay it out.
fn tarball_of(root: &Path, package: &str) -> PathBuf {
    root.join("usr/src").join(format!("{package}.tar.xz"))
}

/// Makes sure `package` from `suite` is unpacked in `dir` and returns its tarball. Already there:
/// nothing is fetched (`make clean-cache`, or removing `dir/PACKAGE`, fetches it anew). Otherwise
/// the private apt state in `dir/apt` is updated from the machine's Debian mirror (signatures
/// checked with Debian's archive keyring), the `.deb` downloaded and unpacked whole or not at all
/// (as the srctree is).
pub fn fetch_source(dir: &Path, package: &str, suite: &str) -> Result<PathBuf, WorkbenchError> {
    let unpacked = dir.join(package);
    let tarball = tarball_of(&unpacked, package);
    if tarball.is_file() {
        return Ok(tarball);
    }
    let fallback = format!("install {package} and pass KERNEL_TARBALL=/usr/src/{package}.tar.xz");
    let wanted = format!("usr/src/{package}.tar.xz");
    let fetch = Fetch { package, suite, arch: None, fallback: &fallback, holds: &wanted };
    fetch_deb(dir, &unpacked, &fetch)?;
    Ok(tarball)
}

/// Makes sure Debian's `busybox-static` of another architecture (Debian's `arch`, `arm64`), from
/// the machine's own suite, is unpacked as `root` (`bin/busybox` in it), for guests of that
/// architecture; fetched as [`fetch_source`] fetches a kernel, into `root`'s parent.
pub fn fetch_busybox(root: &Path, arch: &str) -> Result<PathBuf, WorkbenchError> {
    let busybox = root.join("bin/busybox");
    if busybox.is_file() {
        return Ok(busybox);
    }
    let suite = machine_suite().ok_or_else(|| {
        WorkbenchError::Config(format!(
            "cannot tell the machine's Debian suite (no VERSION_CODENAME in {OS_RELEASE}): an {arch} guest runs Debian's busybox-static of {arch}, fetched from the machine's own suite"
        ))
    })?;
    let dir = root.parent().unwrap_or(root);
    let fallback = format!(
        "or unpack busybox-static_*_{arch}.deb yourself (`dpkg-deb -x`) into {}",
        root.display()
    );
    let fetch = Fetch {
        package: "busybox-static",
        suite: &suite,
        arch: Some(arch),
        fallback: &fallback,
        holds: "bin/busybox",
    };
    fetch_deb(dir, root, &fetch)?;
    Ok(busybox)
}

/// Where the machine says which Debian release it is.
const OS_RELEASE: &str = "/etc/os-release";

/// The machine's Debian suite (`bookworm`), from `/etc/os-release`.
fn machine_suite() -> Option<String> {
    let text = std::fs::read_to_string(OS_RELEASE).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix("VERSION_CODENAME="))
        .map(|v| v.trim_matches('"').to_owned())
        .filter(|v| !v.is_empty())
}

/// One package to fetch with a private apt state.
struct Fetch<'a> {
    /// The package.
    package: &'a str,
    /// The Debian suite it comes from.
    suite: &'a str,
    /// Debian's architecture, for a package of another than the machine's.
    arch: Option<&'a str>,
    /// What else the user can do when there is no mirror.
    fallback: &'a str,
    /// A path the unpacked package must hold.
    holds: &'a str,
}

/// Downloads `fetch`'s package with a private apt state in `dir` (one per suite and
/// architecture) and unpacks it as `unpacked`, whole or not at all.
fn fetch_deb(dir: &Path, unpacked: &Path, fetch: &Fetch) -> Result<(), WorkbenchError> {
    let Fetch { package, suite, arch, fallback, holds } = *fetch;
    let io = |path: &Path, source| WorkbenchError::Io { path: path.to_owned(), source };
    let uri = mirror_uri(&machine_sources()).ok_or_else(|| {
        WorkbenchError::Config(format!(
            "no Debian mirror in the machine's apt sources ({} and {}/*): {package} comes from Debian's {suite} suite, fetched from the mirror apt already uses; add a `deb <mirror>/debian ...` entry, or {fallback}",
            SOURCES[0], SOURCES[1]
        ))
    })?;
    // The kernels' state keeps its first name; another suite or architecture has its own.
    let state = match arch {
        None => dir.join("apt"),
        Some(arch) => dir.join(format!("apt-{suite}-{arch}")),
    };
    for sub in ["lists/partial", "cache/archives/partial", "debs"] {
        std::fs::create_dir_all(state.join(sub)).map_err(|e| io(&state, e))?;
    }
    let list = state.join("sources.list");
    std::fs::write(&list, format!("deb [signed-by={KEYRING}] {uri} {suite} main\n"))
        .map_err(|e| io(&list, e))?;
    // Every option that points apt at the machine's state points it at ours instead.
    let private = [
        format!("Dir::Etc::sourcelist={}", list.display()),
        "Dir::Etc::sourceparts=/nonexistent".to_owned(),
        format!("Dir::State::Lists={}", state.join("lists").display()),
        format!("Dir::Cache={}", state.join("cache").display()),
        "APT::Sandbox::User=root".to_owned(),
    ];
    let private: Vec<String> = match arch {
        None => private.into(),
        Some(arch) => private
            .into_iter()
            .chain([format!("APT::Architecture={arch}"), format!("APT::Architectures={arch}")])
            .collect(),
    };
    let apt = |verb: &str, cwd: &Path| {
        let mut cmd = Command::new("apt-get", cwd);
        for option in &private {
            cmd = cmd.arg("-o").arg(option);
        }
        cmd.args(["-q", verb]).timeout(Duration::from_secs(30 * 60))
    };
    let what = match arch {
        None => package.to_owned(),
        Some(arch) => format!("{package} ({arch})"),
    };
    let step = progress::start(&format!("fetching {what} from Debian's {suite} ({uri})"));
    let result = (|| {
        apt("update", &state).run_checked()?;
        let debs = state.join("debs");
        apt("download", &debs).arg(package).run_checked()?;
        let deb = std::fs::read_dir(&debs)
            .map_err(|e| io(&debs, e))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(&format!("{package}_")))
            })
            .ok_or_else(|| {
                WorkbenchError::Config(format!(
                    "`apt-get download {package}` left no {package}_*.deb in {}",
                    debs.display()
                ))
            })?;
        // The folder records the .deb it came from, and marks it as the workbench's.
        make_in_place(unpacked, STAMP, |tmp| {
            Command::new("dpkg-deb", dir)
                .arg("-x")
                .arg(&deb)
                .arg(tmp)
                .timeout(Duration::from_secs(10 * 60))
                .run_checked()?;
            if !tmp.join(holds).is_file() {
                return Err(WorkbenchError::Config(format!(
                    "{} holds no {holds}: is it {package}?",
                    deb.display()
                )));
            }
            let name = deb.file_name().unwrap_or_default().to_string_lossy();
            std::fs::write(tmp.join(STAMP), format!("{name}\n")).map_err(|e| io(tmp, e))
        })?;
        std::fs::remove_file(&deb).map_err(|e| io(&deb, e))?;
        Ok(())
    })();
    if result.is_ok() {
        step.done(&progress::file_size(&unpacked.join(holds)));
    } else {
        step.failed();
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uri(texts: &[&str]) -> Option<String> {
        mirror_uri(&texts.iter().map(|t| t.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn deb822_as_debian_12_ships_it() {
        let debian = "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\n\
                      Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n\
                      Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\n\
                      Components: main\n";
        assert_eq!(uri(&[debian]).as_deref(), Some("http://mirror.example/debian"));
        // Security first, a disabled stanza, deb-src only: all passed over.
        let others = "Types: deb\nURIs: http://security.example/debian-security/\nSuites: x\n\n\
                      Enabled: no\nTypes: deb\nURIs: http://off.example/debian\n\n\
                      Types: deb-src\nURIs: http://src.example/debian\n\n\
                      types: deb deb-src\nuris: https://mirror.example/pub/debian/\nsuites: bookworm\n";
        assert_eq!(uri(&[others]).as_deref(), Some("https://mirror.example/pub/debian"));
    }

    #[test]
    fn one_line_format_with_options_and_comments() {
        let list = "# deb http://commented.example/debian bookworm main\n\
                    deb https://thirdparty.example/apt cloud-sdk main\n\
                    deb-src http://src.example/debian bookworm main\n\
                    deb [arch=amd64 signed-by=/k.gpg] http://ftp.example.org/debian/ bookworm main\n";
        assert_eq!(uri(&[list]).as_deref(), Some("http://ftp.example.org/debian"));
        assert_eq!(
            uri(&["deb [ trusted=yes ] file:/srv/debian bookworm main"]).as_deref(),
            Some("file:/srv/debian")
        );
    }

    #[test]
    fn no_debian_mirror_is_none() {
        assert_eq!(uri(&[]), None);
        assert_eq!(uri(&["Types: deb\nURIs: https://thirdparty.example/node_20.x\n"]), None);
        assert_eq!(uri(&["deb [broken"]), None);
        // The first file with a mirror wins, as apt reads them in that order.
        assert_eq!(
            uri(&["", "deb http://a.example/debian x main", "deb http://b.example/debian x main"])
                .as_deref(),
            Some("http://a.example/debian")
        );
    }
}
