//! HTTP over `tiny_http`: a few worker threads take requests and route them
//! to the page's files ([`assets`]), the JSON API ([`api::handle`]) or an
//! event stream (`/api/events`, server-sent events on a thread of its own).
//! Bodies are read up to a bound; nothing a client sends can panic a worker.

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use tiny_http::{Header, Request, Response, Server};

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
    stop: Arc<AtomicBool>,
    workers: Vec<JoinHandle<()>>,
}

impl RunningServer {
    /// The address it listens on (with the port chosen when asked for port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
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

/// Starts serving `app` on `host:port` (port 0: any free port).
pub fn start(app: Arc<App>, host: &str, port: u16) -> Result<RunningServer, String> {
    let server = Server::http((host, port)).map_err(|e| format!("cannot listen on {host}:{port}: {e}"))?;
    let addr = server.server_addr().to_ip().ok_or_else(|| "not an IP listener".to_string())?;
    let server = Arc::new(server);
    let stop = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::with_capacity(WORKERS);
    for i in 0..WORKERS {
        let (server, app, stop) = (Arc::clone(&server), Arc::clone(&app), Arc::clone(&stop));
        let worker = thread::Builder::new()
            .name(format!("gui-{i}"))
            .spawn(move || serve(&server, &app, &stop))
            .map_err(|e| format!("cannot start a server thread: {e}"))?;
        workers.push(worker);
    }
    Ok(RunningServer { addr, stop, workers })
}

fn serve(server: &Server, app: &Arc<App>, stop: &Arc<AtomicBool>) {
    while !stop.load(Ordering::SeqCst) {
        match server.recv_timeout(POLL) {
            Ok(Some(request)) => route(request, app, stop),
            Ok(None) => {}
            // A failed accept concerns one client; keep serving the others.
            Err(_) => thread::sleep(POLL),
        }
    }
}

fn route(mut request: Request, app: &Arc<App>, stop: &Arc<AtomicBool>) {
    let method = request.method().as_str().to_string();
    let url = request.url().to_string();
    let path = url.split(['?', '#']).next().unwrap_or("").to_string();
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
    send(request, reply);
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

fn send(request: Request, reply: Reply) {
    let mut response = Response::from_string(reply.body).with_status_code(reply.status);
    let content_type = format!("{}; charset=utf-8", reply.content_type);
    for h in [header("Content-Type", &content_type), header("Cache-Control", "no-store")].into_iter().flatten() {
        response.add_header(h);
    }
    // A client that hung up needs no answer.
    let _ = request.respond(response);
}

/// Server-sent events: the response is written by hand on the raw stream,
/// because each event must leave at once, unbuffered and unchunked.
fn open_stream(request: Request, app: &Arc<App>, stop: &Arc<AtomicBool>) {
    let Some(events) = app.hub.subscribe() else {
        return send(request, Reply::error(503, "too many event streams open"));
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
