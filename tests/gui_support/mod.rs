//! Shared by the GUI tests: the server started in this process on a free
//! port, and a tiny HTTP/1.1 client over a `TcpStream` (one request per
//! connection; enough for the API and for chromedriver's WebDriver API).
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::Duration;

use menagerie::eval::catalogue::Catalogue;
use menagerie::gui::api::App;
use menagerie::gui::server::{self, RunningServer};

/// The shipped variants served on 127.0.0.1 at a free port.
pub fn start_server() -> RunningServer {
    let app = App::new(Catalogue::builtin()).expect("the shipped variants are playable");
    server::start(Arc::new(app), "127.0.0.1", 0).expect("a free port")
}

/// Sends one request with exactly the header lines given (`Host` and
/// `Content-Type` included, or left out) and returns the status, the header
/// block and the body.
pub fn request_with(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[String],
    body: &str,
) -> (u16, String, String) {
    let reply = exchange(addr, method, path, headers, body.as_bytes());
    let text = String::from_utf8_lossy(&reply);
    let head = text.split_once("\r\n\r\n").map_or("", |(h, _)| h).to_string();
    let (status, body) = parse_reply(&reply);
    (status, head, body)
}

/// Sends one request and returns the status and body.
pub fn request(addr: SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
    request_bytes(addr, method, path, body.as_bytes())
}

/// [`request`] with a body of any bytes.
pub fn request_bytes(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> (u16, String) {
    let headers = [format!("Host: {addr}"), "Content-Type: application/json".to_string()];
    parse_reply(&exchange(addr, method, path, &headers, body))
}

/// Sends the request line, `headers`, the length and `body`, and reads the
/// whole answer: some servers keep the connection open whatever the request asked.
fn exchange(addr: SocketAddr, method: &str, path: &str, headers: &[String], body: &[u8]) -> Vec<u8> {
    let mut stream = TcpStream::connect(addr).expect("the server accepts");
    stream.set_read_timeout(Some(Duration::from_secs(120))).expect("timeout");
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    for h in headers {
        head.push_str(&format!("{h}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\nConnection: close\r\n\r\n", body.len()));
    stream.write_all(head.as_bytes()).expect("send");
    stream.write_all(body).expect("send");
    let mut reply = Vec::new();
    let mut buf = [0u8; 16384];
    while !is_complete(&reply) {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => reply.extend_from_slice(&buf[..n]),
            Err(e) => panic!("no answer to {method} {path}: {e}"),
        }
    }
    reply
}

/// True when `reply` holds a whole answer (by its Content-Length, or a
/// chunked body's last chunk).
fn is_complete(reply: &[u8]) -> bool {
    let Some(end) = reply.windows(4).position(|w| w == b"\r\n\r\n") else { return false };
    let head = String::from_utf8_lossy(&reply[..end]).to_ascii_lowercase();
    let body = &reply[end + 4..];
    if let Some(length) = head.lines().find_map(|l| l.strip_prefix("content-length:")) {
        return length.trim().parse::<usize>().is_ok_and(|n| body.len() >= n);
    }
    head.contains("transfer-encoding: chunked") && body.ends_with(b"0\r\n\r\n")
}

/// Status and body of an HTTP/1.1 answer (plain or chunked).
pub fn parse_reply(reply: &[u8]) -> (u16, String) {
    let text = String::from_utf8_lossy(reply);
    let (head, body) = text.split_once("\r\n\r\n").expect("a header block");
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).expect("a status code");
    let chunked = head.to_ascii_lowercase().contains("transfer-encoding: chunked");
    let body = if chunked { dechunk(body) } else { body.to_string() };
    (status, body)
}

fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let n = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        body = rest[n..].trim_start_matches("\r\n");
    }
    out
}

/// A JSON request that must succeed; returns the parsed answer.
pub fn ok(addr: SocketAddr, method: &str, path: &str, body: &str) -> serde_json::Value {
    let (status, text) = request(addr, method, path, body);
    assert_eq!(status, 200, "{method} {path} {body}: {text}");
    serde_json::from_str(&text).expect("JSON")
}

/// A request that must be refused with `status` and a one-line message;
/// returns the message.
pub fn refused(addr: SocketAddr, method: &str, path: &str, body: &str, status: u16) -> String {
    let (got, text) = request(addr, method, path, body);
    assert_eq!(got, status, "{method} {path} {body}: {text}");
    let value: serde_json::Value = serde_json::from_str(&text).expect("JSON error");
    let message = value["error"].as_str().expect("an error message").to_string();
    assert!(!message.is_empty() && !message.contains('\n'), "one line: {message:?}");
    message
}
