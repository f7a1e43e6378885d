//! `docs-site serve`: the site over HTTP on loopback, for browsing (rustdoc's search needs
//! pages served from one origin in some browsers).

use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Component, Path, PathBuf};

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The folder is not a site.
    #[error("{} has no index.html: build the site first (`make docs`)", .0.display())]
    NoSite(PathBuf),
    /// The port is taken or not allowed.
    #[error(
        "cannot listen on 127.0.0.1:{port}: {message} (choose another with --port, or 0 for any free port)"
    )]
    Bind {
        /// The port.
        port: u16,
        /// What the system said.
        message: String,
    },
}

/// A server bound to loopback; [`Server::run`] answers requests until the process ends.
pub struct Server {
    server: tiny_http::Server,
    root: PathBuf,
}

impl Server {
    /// Binds `127.0.0.1:port` (0: any free port) for the site in `root`.
    pub fn bind(root: &Path, port: u16) -> Result<Server, ServeError> {
        if !root.join("index.html").is_file() {
            return Err(ServeError::NoSite(root.to_owned()));
        }
        let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
        let server = tiny_http::Server::http(addr)
            .map_err(|e| ServeError::Bind { port, message: e.to_string() })?;
        Ok(Server { server, root: root.to_owned() })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.server.server_addr().to_ip().expect("an IP listener")
    }

    /// Answers requests, four at a time, forever.
    pub fn run(&self) {
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| self.answer());
            }
        });
    }

    fn answer(&self) {
        for request in self.server.incoming_requests() {
            let response = respond(&self.root, request.url());
            let _ = match response {
                Some((bytes, mime)) => {
                    let header = tiny_http::Header::from_bytes("Content-Type", mime)
                        .expect("a valid header");
                    request.respond(tiny_http::Response::from_data(bytes).with_header(header))
                }
                None => request
                    .respond(tiny_http::Response::from_string("not found").with_status_code(404)),
            };
        }
    }
}

/// The file for a request path, and its type; `None` for a path outside `root` or missing.
fn respond(root: &Path, url: &str) -> Option<(Vec<u8>, &'static str)> {
    let path = url.split(['?', '#']).next().unwrap_or("/");
    let rel = Path::new(path.trim_start_matches('/'));
    if rel.components().any(|c| !matches!(c, Component::Normal(_))) {
        return None;
    }
    let mut file = root.join(rel);
    if file.is_dir() {
        file = file.join("index.html");
    }
    let bytes = std::fs::read(&file).ok()?;
    Some((bytes, mime(&file)))
}

/// The content type for a file name.
pub fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "woff2" => "font/woff2",
        "json" => "application/json",
        "txt" | "md" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    }
}
