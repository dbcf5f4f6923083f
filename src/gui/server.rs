//! HTTP over `tiny_http`: a few worker threads take requests and route them
//! to the page's files ([`assets`]), the JSON API ([`api::handle`]) or an
//! event stream (`/api/events`, server-sent events on a thread of its own).
//! Every request is first checked by [`Access`] (its `Host`, `Origin`,
//! token and body type) and refused with a 403 when it fails. Bodies are
//! read up to a bound; nothing a client sends can panic a worker.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use tiny_http::{Header, Request, Response, Server};

use super::access::{Access, Granted, RequestHead, TokenRule, TOKEN_HEADER};
use super::api::{self, App, Reply};
use super::assets;

/// Largest request body read, in bytes (a long PGN fits).
pub const MAX_BODY_BYTES: u64 = 1 << 20;
/// Threads answering requests (event streams have threads of their own).
const WORKERS: usize = 4;
/// How often idle workers and streams look at the stop flag.
const POLL: Duration = Duration::from_millis(100);
/// A comment line sent to idle event streams, to notice closed pages.
const KEEPALIVE: Duration = Duration::from_secs(10);

/// A running server; dropping it stops it.
pub struct RunningServer {
    addr: SocketAddr,
    access: Arc<Access>,
    stop: Arc<AtomicBool>,
    workers: Vec<JoinHandle<()>>,
}

impl RunningServer {
    /// The address it listens on (with the port chosen when asked for port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The token requests need, if any.
    pub fn token(&self) -> Option<&str> {
        self.access.token()
    }

    /// Waits until the server stops (it only does when dropped elsewhere; for `gui`).
    pub fn join(mut self) {
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// Starts serving `app` on `host:port` (port 0: any free port), with a
/// token only where the address is not a loopback one.
pub fn start(app: Arc<App>, host: &str, port: u16) -> Result<RunningServer, String> {
    start_with(app, host, port, TokenRule::Auto)
}

/// [`start`] with the token rule given.
pub fn start_with(app: Arc<App>, host: &str, port: u16, rule: TokenRule) -> Result<RunningServer, String> {
    let server = Server::http((host, port)).map_err(|e| format!("cannot listen on {host}:{port}: {e}"))?;
    let addr = server.server_addr().to_ip().ok_or_else(|| "not an IP listener".to_string())?;
    let access = Arc::new(Access::new(host, addr, rule));
    let server = Arc::new(server);
    let stop = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::with_capacity(WORKERS);
    for i in 0..WORKERS {
        let (server, app, stop, access) =
            (Arc::clone(&server), Arc::clone(&app), Arc::clone(&stop), Arc::clone(&access));
        let worker = thread::Builder::new()
            .name(format!("gui-{i}"))
            .spawn(move || serve(&server, &app, &access, &stop))
            .map_err(|e| format!("cannot start a server thread: {e}"))?;
        workers.push(worker);
    }
    Ok(RunningServer { addr, access, stop, workers })
}

fn serve(server: &Server, app: &Arc<App>, access: &Access, stop: &Arc<AtomicBool>) {
    while !stop.load(Ordering::SeqCst) {
        match server.recv_timeout(POLL) {
            Ok(Some(request)) => route(request, app, access, stop),
            Ok(None) => {}
            // A failed accept concerns one client; keep serving the others.
            Err(_) => thread::sleep(POLL),
        }
    }
}

/// The value of the request's header `name` (the first, when repeated).
fn header_value<'a>(request: &'a Request, name: &'static str) -> Option<&'a str> {
    request.headers().iter().find(|h| h.field.equiv(name)).map(|h| h.value.as_str())
}

fn route(mut request: Request, app: &Arc<App>, access: &Access, stop: &Arc<AtomicBool>) {
    let method = request.method().as_str().to_string();
    let url = request.url().to_string();
    let path = url.split(['?', '#']).next().unwrap_or("").to_string();
    let head = RequestHead {
        method: &method,
        url: &url,
        host: header_value(&request, "Host"),
        origin: header_value(&request, "Origin"),
        content_type: header_value(&request, "Content-Type"),
        token: header_value(&request, TOKEN_HEADER),
        cookie: header_value(&request, "Cookie"),
    };
    let granted = match access.check(&head) {
        Ok(granted) => granted,
        Err(message) => return send(request, Reply::error(403, &message), &Granted::default()),
    };
    if method == "GET" && path == "/api/events" {
        return open_stream(request, app, stop);
    }
    let reply = if path.starts_with("/api/") {
        match read_body(&mut request) {
            Ok(body) => api::handle(app, &method, &path, &body),
            Err(message) => Reply::error(400, &message),
        }
    } else if let Some((content_type, text)) = assets::lookup(&path).filter(|_| method == "GET") {
        Reply { status: 200, content_type, body: text.to_string() }
    } else {
        Reply::error(404, &format!("no such page {path}"))
    };
    send(request, reply, &granted);
}

fn read_body(request: &mut Request) -> Result<String, String> {
    let mut bytes = Vec::new();
    let reader = request.as_reader();
    reader.take(MAX_BODY_BYTES + 1).read_to_end(&mut bytes).map_err(|e| format!("cannot read the body: {e}"))?;
    if bytes.len() as u64 > MAX_BODY_BYTES {
        return Err(format!("the body is over {MAX_BODY_BYTES} bytes"));
    }
    String::from_utf8(bytes).map_err(|_| "the body is not UTF-8 text".to_string())
}

fn header(name: &str, value: &str) -> Option<Header> {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).ok()
}

fn send(request: Request, reply: Reply, granted: &Granted) {
    let mut response = Response::from_string(reply.body).with_status_code(reply.status);
    let content_type = format!("{}; charset=utf-8", reply.content_type);
    let headers = [
        header("Content-Type", &content_type),
        header("Cache-Control", "no-store"),
        // No other page may frame the board (and have its buttons clicked).
        header("X-Frame-Options", "DENY"),
        header("Content-Security-Policy", "frame-ancestors 'none'"),
        header("X-Content-Type-Options", "nosniff"),
        granted.set_cookie.as_deref().and_then(|c| header("Set-Cookie", c)),
    ];
    for h in headers.into_iter().flatten() {
        response.add_header(h);
    }
    // A client that hung up needs no answer.
    let _ = request.respond(response);
}

/// Server-sent events: the response is written by hand on the raw stream,
/// because each event must leave at once, unbuffered and unchunked.
fn open_stream(request: Request, app: &Arc<App>, stop: &Arc<AtomicBool>) {
    let Some(events) = app.hub.subscribe() else {
        return send(request, Reply::error(503, "too many event streams open"), &Granted::default());
    };
    let stop = Arc::clone(stop);
    let spawned = thread::Builder::new().name("gui-events".to_string()).spawn(move || {
        let mut out = request.into_writer();
        let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n: menagerie\n\n";
        if out.write_all(head.as_bytes()).and_then(|()| out.flush()).is_err() {
            return;
        }
        let mut idle = Duration::ZERO;
        while !stop.load(Ordering::SeqCst) {
            let text = match events.recv_timeout(POLL) {
                Ok(text) => text,
                Err(RecvTimeoutError::Timeout) if idle + POLL < KEEPALIVE => {
                    idle += POLL;
                    continue;
                }
                Err(RecvTimeoutError::Timeout) => ": keepalive\n\n".to_string(),
                Err(RecvTimeoutError::Disconnected) => break,
            };
            idle = Duration::ZERO;
            if out.write_all(text.as_bytes()).and_then(|()| out.flush()).is_err() {
                break;
            }
        }
    });
    // Without a thread the receiver is dropped and the hub forgets the stream.
    drop(spawned);
}
