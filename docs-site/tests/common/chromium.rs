//! Headless Chromium (Debian's `chromium`) driven over the DevTools protocol, and
//! `docs-site serve`, for the browser tests: a page's console errors and exceptions are
//! collected, screenshots kept under the target directory.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use subprocess::Command;
use subprocess::testing::Interactive;

/// Reads a child's stdout to its end, by a thread, so that the child never blocks on a full pipe.
pub fn drain(reader: impl Read + Send + 'static) {
    std::thread::spawn(move || std::io::copy(&mut BufReader::new(reader), &mut std::io::sink()));
}

/// One page of Chromium over the DevTools protocol.
pub struct Page {
    pub socket: tungstenite::WebSocket<TcpStream>,
    pub next_id: u64,
    /// Console errors and exceptions seen so far.
    pub errors: Vec<String>,
}

impl Page {
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        let value = self.try_call(method, params);
        value.unwrap_or_else(|error| panic!("{method} failed: {error}"))
    }

    /// [`Page::call`], with the browser's error for the test to judge.
    fn try_call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next_id += 1;
        let id = self.next_id;
        let message = json!({"id": id, "method": method, "params": params}).to_string();
        self.socket.send(tungstenite::Message::Text(message.into())).unwrap();
        loop {
            let message = self.socket.read().unwrap();
            let tungstenite::Message::Text(text) = message else { continue };
            let value: Value = serde_json::from_str(&text).unwrap();
            if value["id"].as_u64() == Some(id) {
                return match value.get("error") {
                    Some(_) => Err(value),
                    None => Ok(value["result"].clone()),
                };
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

    pub fn eval(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        assert!(result.get("exceptionDetails").is_none(), "{expression}: {result}");
        result["result"]["value"].clone()
    }

    /// Evaluates `expression` until it gives something other than null/false/"", or fails.
    pub fn wait_for(&mut self, expression: &str, what: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(90);
        loop {
            let params =
                json!({"expression": expression, "returnByValue": true, "awaitPromise": true});
            let value = match self.try_call("Runtime.evaluate", params) {
                // A navigation (a click on a link) ended the page the expression ran in: the
                // next page is not there yet.
                Err(error)
                    if error.to_string().contains("Inspected target navigated or closed") =>
                {
                    Value::Null
                }
                Err(error) => panic!("Runtime.evaluate failed: {error}"),
                Ok(result) => {
                    assert!(result.get("exceptionDetails").is_none(), "{expression}: {result}");
                    result["result"]["value"].clone()
                }
            };
            if !(value.is_null() || value == json!(false) || value == json!("")) {
                return value;
            }
            assert!(Instant::now() < deadline, "timed out waiting for {what}");
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    pub fn goto(&mut self, url: &str) {
        self.call("Page.navigate", json!({"url": url}));
        self.wait_loaded(url);
    }

    pub fn wait_loaded(&mut self, url: &str) {
        let base = url.split('#').next().unwrap();
        self.wait_for(
            &format!(
                "document.readyState === 'complete' && location.href.split('#')[0] === {}",
                json!(base)
            ),
            &format!("{url} to load"),
        );
    }

    pub fn screenshot(&mut self, path: &Path) {
        let result = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let data = result["data"].as_str().unwrap();
        std::fs::write(path, base64_decode(data)).unwrap();
        eprintln!("screenshot: {}", path.display());
    }
}

pub fn base64_decode(text: &str) -> Vec<u8> {
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

pub fn http_get(port: u16, path: &str) -> String {
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
pub fn serve(dir: &Path) -> (Interactive, String) {
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

/// How long Chromium may take to start and to open its first page: only a bound for one that
/// never does (the tests wait for the event), wide enough for `make stress`'s busy cores.
const CHROMIUM_START: Duration = Duration::from_secs(120);

/// Starts headless Chromium with a fresh profile and a DevTools port (killed at the end of the
/// test, or after ten minutes); returns the browser's DevTools port, which Chromium writes to
/// `DevToolsActivePort` in the profile.
pub fn chromium(profile: &Path) -> (Interactive, u16) {
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
    // Waits for the event, not a time: the bound is only for a Chromium that never starts,
    // and leaves room for a cold start on a machine whose every core is busy.
    let deadline = Instant::now() + CHROMIUM_START;
    let port = loop {
        let first = std::fs::read_to_string(&active).unwrap_or_default();
        if let Some(port) = first.lines().next().and_then(|p| p.trim().parse::<u16>().ok()) {
            break port;
        }
        assert!(
            Instant::now() < deadline,
            "chromium wrote no {} within {} s (`make setup` installs Debian's chromium)",
            active.display(),
            CHROMIUM_START.as_secs()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    (child, port)
}

pub fn open_page(port: u16) -> Page {
    let deadline = Instant::now() + CHROMIUM_START;
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

pub fn artefacts() -> PathBuf {
    let dir = super::site_root().join("browser");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
