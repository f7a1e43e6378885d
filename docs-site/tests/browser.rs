//! The site in a real browser: headless Chromium (Debian's `chromium`), driven over the
//! DevTools protocol. Opens the landing page served by `docs-site serve`, searches for `KVec`,
//! follows the first result, then its `Source` link into the source view, and a `srctree/`
//! link into the view of the C tree; no page may log a console error or throw. A screenshot of
//! each step is kept under the target directory as an artefact.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use subprocess::Command;
use subprocess::testing::Interactive;

/// Reads a child's stdout to its end, by a thread, so that the child never blocks on a full pipe.
fn drain(reader: impl Read + Send + 'static) {
    std::thread::spawn(move || std::io::copy(&mut BufReader::new(reader), &mut std::io::sink()));
}

/// One page of Chromium over the DevTools protocol.
struct Page {
    socket: tungstenite::WebSocket<TcpStream>,
    next_id: u64,
    /// Console errors and exceptions seen so far.
    errors: Vec<String>,
}

impl Page {
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({"id": id, "method": method, "params": params}).to_string();
        self.socket.send(tungstenite::Message::Text(message.into())).unwrap();
        loop {
            let message = self.socket.read().unwrap();
            let tungstenite::Message::Text(text) = message else { continue };
            let value: Value = serde_json::from_str(&text).unwrap();
            if value["id"].as_u64() == Some(id) {
                assert!(value.get("error").is_none(), "{method} failed: {value}");
                return value["result"].clone();
            }
            self.note_event(&value);
        }
    }

    fn note_event(&mut self, event: &Value) {
        let params = &event["params"];
        match event["method"].as_str() {
            Some("Runtime.exceptionThrown") => {
                self.errors.push(format!("exception: {}", params["exceptionDetails"]))
            }
            Some("Runtime.consoleAPICalled") if params["type"] == "error" => {
                self.errors.push(format!("console.error: {}", params["args"]))
            }
            Some("Log.entryAdded") if params["entry"]["level"] == "error" => {
                self.errors.push(format!("log: {}", params["entry"]))
            }
            _ => {}
        }
    }

    fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(result.get("exceptionDetails").is_none(), "{expression}: {result}");
        result["result"]["value"].clone()
    }

    /// Evaluates `expression` until it gives something other than null/false/"", or fails.
    fn wait_for(&mut self, expression: &str, what: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let value = self.eval(expression);
            if !(value.is_null() || value == json!(false) || value == json!("")) {
                return value;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn goto(&mut self, url: &str) {
        self.call("Page.navigate", json!({"url": url}));
        self.wait_loaded(url);
    }

    fn wait_loaded(&mut self, url: &str) {
        let base = url.split('#').next().unwrap();
        self.wait_for(
            &format!(
                "document.readyState === 'complete' && location.href.split('#')[0] === {}",
                json!(base)
            ),
            &format!("{url} to load"),
        );
    }

    fn screenshot(&mut self, path: &Path) {
        let result = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let data = result["data"].as_str().unwrap();
        std::fs::write(path, base64_decode(data)).unwrap();
        eprintln!("screenshot: {}", path.display());
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c}"),
    };
    let bytes: Vec<u8> = text.bytes().filter(|&c| c != b'=' && !c.is_ascii_whitespace()).collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let v: Vec<u32> = chunk.iter().map(|&c| u32::from(value(c))).collect();
        let n = v.iter().fold(0, |acc, x| acc << 6 | x) << (6 * (4 - v.len()));
        let take = v.len() - 1;
        out.extend(&n.to_be_bytes()[1..1 + take]);
    }
    out
}

fn http_get(port: u16, path: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut response = Vec::new();
    let _ = stream.read_to_end(&mut response);
    let response = String::from_utf8_lossy(&response);
    response.split_once("\r\n\r\n").map(|(_, body)| body.to_owned()).unwrap_or_default()
}

/// Starts `docs-site serve` on a free port (killed at the end of the test, or after ten
/// minutes); returns it and the landing page's URL.
fn serve(dir: &Path) -> (Interactive, String) {
    let cmd = Command::new(env!("CARGO_BIN_EXE_docs-site"), dir)
        .args(["serve", dir.to_str().unwrap(), "--port", "0"])
        .timeout(Duration::from_secs(600));
    let mut child = Interactive::start(&cmd);
    let mut stdout = BufReader::new(child.take_stdout());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    drain(stdout);
    (child, line.trim().to_owned())
}

/// Starts headless Chromium with a fresh profile and a DevTools port (killed at the end of the
/// test, or after ten minutes); returns the browser's DevTools port, which Chromium writes to
/// `DevToolsActivePort` in the profile.
fn chromium(profile: &Path) -> (Interactive, u16) {
    let cmd = Command::new("chromium", profile)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--window-size=1280,900",
            "--remote-debugging-port=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("about:blank")
        .timeout(Duration::from_secs(600));
    let mut child = Interactive::start(&cmd);
    drain(child.take_stdout());
    let active = profile.join("DevToolsActivePort");
    let deadline = Instant::now() + Duration::from_secs(30);
    let port = loop {
        let first = std::fs::read_to_string(&active).unwrap_or_default();
        if let Some(port) = first.lines().next().and_then(|p| p.trim().parse::<u16>().ok()) {
            break port;
        }
        assert!(
            Instant::now() < deadline,
            "chromium wrote no {} within 30 s (`make setup` installs Debian's chromium)",
            active.display()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    (child, port)
}

fn open_page(port: u16) -> Page {
    let deadline = Instant::now() + Duration::from_secs(20);
    let ws = loop {
        let list: Value = serde_json::from_str(&http_get(port, "/json/list")).unwrap_or(json!([]));
        let page = list.as_array().and_then(|l| l.iter().find(|t| t["type"] == "page")).cloned();
        if let Some(page) = page {
            break page["webSocketDebuggerUrl"].as_str().unwrap().to_owned();
        }
        assert!(Instant::now() < deadline, "chromium has no page target");
        std::thread::sleep(Duration::from_millis(200));
    };
    let stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let (socket, _) = tungstenite::client(ws.as_str(), stream).unwrap();
    let mut page = Page { socket, next_id: 0, errors: Vec::new() };
    page.call("Runtime.enable", json!({}));
    page.call("Log.enable", json!({}));
    page.call("Page.enable", json!({}));
    page
}

fn artefacts() -> PathBuf {
    let dir = common::site_root().join("browser");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn search_kvec_follow_the_result_and_its_source_links() {
    let site = common::demo_site();
    assert!(site.build.status.success(), "the site build failed (see its output above)");
    let (_server, index) = serve(&site.dir);
    let profile = tempfile::tempdir().unwrap();
    let (_browser, port) = chromium(profile.path());
    let mut page = open_page(port);
    let shots = artefacts();

    page.goto(&index);
    let version = common::tree().version;
    assert_eq!(
        page.eval("document.title"),
        json!(format!("Rust in Linux {version}: documentation"))
    );
    page.screenshot(&shots.join("1-landing.png"));

    // Search from the landing page's form: rustdoc's search over every crate.
    page.eval(
        "document.querySelector('form.search input').value = 'KVec'; \
         document.querySelector('form.search').submit(); true",
    );
    page.wait_for("location.search.includes('search=KVec')", "the search page");
    let first = page.wait_for(
        "(() => { const a = document.querySelector('#search .search-results a'); return a && a.href; })()",
        "search results",
    );
    let first = first.as_str().unwrap().to_owned();
    page.screenshot(&shots.join("2-search.png"));
    assert!(first.ends_with("type.KVec.html"), "first result: {first}");

    page.goto(&first);
    let title = page.eval("document.title");
    assert!(title.as_str().unwrap().starts_with("KVec in kernel::alloc"), "title: {title}");
    // The example of KVec ran in the booted kernel, and says so.
    let badge = page.eval(
        "(() => { const b = document.querySelector('a.doctest-result'); return b && b.textContent; })()",
    );
    assert_eq!(badge, json!("✓ example passed in the kernel"));
    page.screenshot(&shots.join("3-kvec.png"));

    // Its `Source` link: the source view of kvec.rs at the alias.
    let source = page.eval("document.querySelector('a.src').href");
    page.goto(source.as_str().unwrap());
    page.wait_for("location.pathname.endsWith('/src/kernel/alloc/kvec.rs.html')", "kvec.rs");
    let line = page.eval("document.getElementById(location.hash.slice(1).split('-')[0]) !== null");
    assert_eq!(line, json!(true), "the source view has the linked line");
    page.screenshot(&shots.join("4-kvec-source.png"));

    // A `srctree/` link (a C header) from the docs: the source view of the C tree.
    page.goto(&index.replace("index.html", "kernel/rbtree/index.html"));
    let header = page.eval(
        "(() => { const a = [...document.querySelectorAll('a')].find(a => a.href.includes('/srctree/')); return a && a.href; })()",
    );
    let header = header.as_str().expect("kernel::rbtree links its C header").to_owned();
    page.goto(&header);
    assert!(header.ends_with("/srctree/include/linux/rbtree.h.html"), "{header}");
    let text = page.eval("document.querySelector('pre.source').textContent");
    assert!(text.as_str().unwrap().contains("struct rb_node"), "rbtree.h shown");
    page.screenshot(&shots.join("5-srctree-rbtree.png"));

    assert!(page.errors.is_empty(), "console errors: {:#?}", page.errors);
}
