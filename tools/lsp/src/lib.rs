//! A language-server client for the suite's editor tests: the real rust-analyzer started through
//! `subprocess::testing::Interactive` (a deadline, its process group killed at the end), spoken
//! to over stdio with LSP's `Content-Length` framing. Requests from the server are answered
//! (`workspace/configuration` with the settings given at the start); notifications that arrive
//! while waiting for something else are kept for later waits.
//!
//! The helpers panic with what they waited for: they are for tests.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ChildStdin;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use subprocess::Command;
use subprocess::testing::Interactive;

/// The toolchain's sysroot (`rustc --print sysroot`), whose `bin/rust-analyzer` the editor
/// tests run.
///
/// # Panics
///
/// When rustc cannot say.
pub fn toolchain_sysroot() -> PathBuf {
    let cmd = Command::new("rustc", Path::new("/"))
        .args(["--print", "sysroot"])
        .timeout(Duration::from_secs(60));
    let out = subprocess::testing::run(&cmd);
    assert!(out.status.success(), "{}", subprocess::testing::report(&cmd, &out));
    PathBuf::from(out.stdout.trim())
}

/// The toolchain's rust-analyzer in `root`, with the check on save and `check` as its settings
/// (`{"overrideCommand": [...]}`, `{"workspace": false}`), killed after twenty minutes.
pub fn rust_analyzer_checking_on_save(root: &Path, check: Value) -> Server {
    Server::start(
        &toolchain_sysroot().join("bin/rust-analyzer"),
        root,
        json!({
            "textDocument": { "publishDiagnostics": {} },
            "window": { "workDoneProgress": true },
            "experimental": { "serverStatusNotification": true }
        }),
        json!({ "checkOnSave": true, "check": check }),
        Duration::from_secs(20 * 60),
    )
}

/// A file's URI.
pub fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

/// The zero-based LSP position of the first `needle` in `text`, plus `offset` characters.
///
/// # Panics
///
/// When `needle` is not in `text`.
pub fn position(text: &str, needle: &str, offset: usize) -> Value {
    let at = text.find(needle).unwrap_or_else(|| panic!("{needle:?} not in the file"));
    let line = text[..at].matches('\n').count();
    let column = at - text[..at].rfind('\n').map_or(0, |i| i + 1) + offset;
    json!({ "line": line, "character": column })
}

/// A running language server.
pub struct Server {
    /// Its process group is killed when this drops, or at its deadline.
    child: Interactive,
    stdin: ChildStdin,
    messages: Receiver<Value>,
    next_id: u64,
    /// Notifications seen while waiting for something else.
    notifications: Vec<Value>,
    /// What `workspace/configuration` is answered with.
    settings: Value,
}

impl Server {
    /// Starts `program` in `root` (killed after `deadline`) and initializes it with
    /// `capabilities` and `settings` as its initialization options.
    ///
    /// # Panics
    ///
    /// When it cannot start or does not answer `initialize` within two minutes.
    pub fn start(
        program: &Path,
        root: &Path,
        capabilities: Value,
        settings: Value,
        deadline: Duration,
    ) -> Server {
        Server::start_with_env(program, root, &[], capabilities, settings, deadline)
    }

    /// [`Server::start`] with `env` added to the server's environment (which the commands it
    /// runs inherit).
    ///
    /// # Panics
    ///
    /// As [`Server::start`].
    pub fn start_with_env(
        program: &Path,
        root: &Path,
        env: &[(&str, &Path)],
        capabilities: Value,
        settings: Value,
        deadline: Duration,
    ) -> Server {
        let command = env
            .iter()
            .fold(Command::new(program, root), |command, (key, value)| command.env(key, value))
            .timeout(deadline);
        let mut child = Interactive::start(&command);
        let stdin = child.take_stdin();
        let stdout = child.take_stdout();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut length = 0usize;
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) == 0 {
                        return;
                    }
                    let header = header.trim();
                    if header.is_empty() {
                        break;
                    }
                    if let Some(n) = header.strip_prefix("Content-Length: ") {
                        length = n.parse().unwrap_or(0);
                    }
                }
                let mut body = vec![0; length];
                if reader.read_exact(&mut body).is_err() {
                    return;
                }
                let Ok(message) = serde_json::from_slice(&body) else { return };
                if tx.send(message).is_err() {
                    return;
                }
            }
        });
        let mut server = Server {
            child,
            stdin,
            messages: rx,
            next_id: 0,
            notifications: Vec::new(),
            settings: settings.clone(),
        };
        server.request(
            "initialize",
            json!({
                "processId": std::process::id(),
                "rootUri": uri(root),
                "capabilities": capabilities,
                "initializationOptions": settings
            }),
        );
        server.notify("initialized", json!({}));
        server
    }

    /// Sends a message as it is.
    ///
    /// # Panics
    ///
    /// When the server's stdin is closed.
    pub fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len())
            .and_then(|()| self.stdin.flush())
            .unwrap_or_else(|e| panic!("writing to the language server: {e}"));
    }

    /// Sends a notification.
    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Waits for a message matching `want` (a notification kept from before included),
    /// answering the server's own requests meanwhile.
    ///
    /// # Panics
    ///
    /// When none comes within `timeout`, or the server ends.
    pub fn wait_for(
        &mut self,
        what: &str,
        timeout: Duration,
        want: &dyn Fn(&Value) -> bool,
    ) -> Value {
        let deadline = Instant::now() + timeout;
        if let Some(i) = self.notifications.iter().position(want) {
            return self.notifications.remove(i);
        }
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(message) => {
                    if want(&message) {
                        return message;
                    }
                    if message.get("id").is_some() && message.get("method").is_some() {
                        // A request from the server (configuration, progress tokens): answer it.
                        let result = if message["method"] == "workspace/configuration" {
                            json!([self.settings])
                        } else {
                            Value::Null
                        };
                        self.send(
                            json!({ "jsonrpc": "2.0", "id": message["id"], "result": result }),
                        );
                    } else if message.get("method").is_some() {
                        self.notifications.push(message);
                    }
                }
                Err(RecvTimeoutError::Timeout) => panic!("no {what} within {timeout:?}"),
                Err(RecvTimeoutError::Disconnected) if self.child.timed_out() => {
                    panic!(
                        "the language server was killed at its deadline while waiting for {what}"
                    )
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("the language server exited while waiting for {what}")
                }
            }
        }
    }

    /// Forgets the notifications kept so far, so that a later wait sees only new ones.
    pub fn forget_notifications(&mut self) {
        self.notifications.clear();
    }

    /// Sends a request and returns its result.
    ///
    /// # Panics
    ///
    /// When no response comes within two minutes, or it is an error.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let response = self.wait_for(method, Duration::from_secs(120), &|m| {
            m["id"] == id && m.get("method").is_none()
        });
        assert!(response.get("error").is_none(), "{method} failed: {response}");
        response["result"].clone()
    }

    /// The file that the definition of what is at `at` in `path` lies in.
    ///
    /// # Panics
    ///
    /// When there is none.
    pub fn definition(&mut self, path: &Path, at: Value) -> String {
        let result = self.request(
            "textDocument/definition",
            json!({ "textDocument": { "uri": uri(path) }, "position": at }),
        );
        let first = if result.is_array() { result[0].clone() } else { result };
        let target = first.get("targetUri").or(first.get("uri")).cloned().unwrap_or(Value::Null);
        target
            .as_str()
            .unwrap_or_else(|| panic!("no definition at {at} in {}: {first}", path.display()))
            .trim_start_matches("file://")
            .to_owned()
    }

    /// The text of a hover at `at` in `path` (empty when there is none).
    pub fn hover(&mut self, path: &Path, at: Value) -> String {
        let hover = self.request(
            "textDocument/hover",
            json!({ "textDocument": { "uri": uri(path) }, "position": at }),
        );
        hover["contents"]["value"].as_str().unwrap_or_default().to_owned()
    }

    /// Waits until rust-analyzer says it is quiescent (done loading and indexing).
    pub fn wait_until_quiescent(&mut self) {
        self.wait_for("a quiescent server", Duration::from_secs(300), &|m| {
            m["method"] == "experimental/serverStatus" && m["params"]["quiescent"] == true
        });
    }

    /// Opens `path` in the editor and returns its text.
    ///
    /// # Panics
    ///
    /// When the file cannot be read.
    pub fn open(&mut self, path: &Path) -> String {
        let text =
            std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri(path), "languageId": "rust", "version": 1, "text": text } }),
        );
        text
    }

    /// Writes `text` to `path` and tells the server it was edited and saved.
    ///
    /// # Panics
    ///
    /// When the file cannot be written.
    pub fn save(&mut self, path: &Path, text: &str, version: i64) {
        std::fs::write(path, text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri(path), "version": version }, "contentChanges": [{ "text": text }] }),
        );
        self.notify("textDocument/didSave", json!({ "textDocument": { "uri": uri(path) } }));
    }
}
