//! `menagerie gui`'s JSON API over real HTTP: every endpoint, every refusal
//! (400 with one line, the game kept), the variants' special moves, viewing
//! earlier moves and playing from them, clocks and flag falls, resignation
//! and draw offers, "Analyse game", several clients at once, server-sent
//! events, and 10^4 fuzzed requests.

mod gui_support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Once;
use std::thread;
use std::time::{Duration, Instant};

use gui_support::{ok, refused, request, request_bytes, request_with, start_server};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::Value;

static PANICS: AtomicUsize = AtomicUsize::new(0);
static HOOK: Once = Once::new();

/// Counts panics on the server's threads (its workers, event streams and
/// the engine's search), not those of failing test threads.
fn count_panics() {
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let name = thread::current().name().unwrap_or("").to_string();
            if name.starts_with("gui") || name.starts_with("search") {
                PANICS.fetch_add(1, Ordering::SeqCst);
            }
            default(info);
        }));
    });
}

fn state(addr: SocketAddr) -> Value {
    ok(addr, "GET", "/api/state", "")
}

/// What must not change after a refusal.
fn game(addr: SocketAddr) -> (String, Value) {
    let s = state(addr);
    (s["fen"].as_str().expect("fen").to_string(), s["moves"].clone())
}

fn legal(s: &Value) -> Vec<&Value> {
    s["legal"].as_array().expect("legal moves").iter().collect()
}

fn hand(s: &Value, color: &str) -> Vec<(String, u64)> {
    s["hands"][color]
        .as_array()
        .expect("hand")
        .iter()
        .map(|h| (h["piece"].as_str().expect("letter").to_string(), h["count"].as_u64().expect("count")))
        .collect()
}

#[test]
fn every_endpoint_answers() {
    count_panics();
    let server = start_server();
    let addr = server.addr();

    let variants = ok(addr, "GET", "/api/variants", "");
    let names: Vec<&str> = variants.as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap()).collect();
    for name in ["chess", "capablanca", "clockwork", "relocation", "clash5"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    let clash5 = variants.as_array().unwrap().iter().find(|v| v["name"] == "clash5").unwrap();
    assert_eq!((clash5["files"].as_u64(), clash5["ranks"].as_u64()), (Some(10), Some(10)));
    assert_eq!(clash5["succession"], "J");

    let s = ok(addr, "POST", "/api/new", r#"{"variant":"chess","white":"Ann","black":"menagerie"}"#);
    assert_eq!(s["fen"], "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_eq!(legal(&s).len(), 20);
    assert_eq!(s["side"], "white");
    assert_eq!(s["board"][0][4], "k");
    assert_eq!(s["board"][7][4], "K");

    // UCI text and SAN both play.
    let s = ok(addr, "POST", "/api/move", r#"{"move":"e2e4"}"#);
    assert_eq!(s["last"], "e2e4");
    let s = ok(addr, "POST", "/api/move", r#"{"move":"e5"}"#);
    assert_eq!(s["moves"][1]["san"], "e5");
    assert_eq!(s["moves"][1]["uci"], "e7e5");
    assert_eq!(s["version"].as_u64(), Some(3));

    let s = ok(addr, "POST", "/api/undo", "");
    assert_eq!(s["moves"].as_array().unwrap().len(), 1);
    let s = ok(addr, "POST", "/api/undo", r#"{"plies":1}"#);
    assert_eq!(s["moves"].as_array().unwrap().len(), 0);

    // The engine's move: answered, and played on request.
    let reply = ok(addr, "POST", "/api/go", r#"{"depth":3}"#);
    let best = reply["best"].as_str().expect("a best move").to_string();
    assert_eq!(reply["pv"][0], best.as_str());
    assert!(reply["score"]["cp"].is_i64());
    assert_eq!(reply["state"]["moves"].as_array().unwrap().len(), 0, "not played unless asked");
    let reply = ok(addr, "POST", "/api/go", r#"{"nodes":3000,"play":true}"#);
    assert_eq!(reply["state"]["moves"][0]["uci"], reply["best"]);
    let reply = ok(addr, "POST", "/api/go", r#"{"movetime":50,"play":true}"#);
    assert_eq!(reply["state"]["moves"].as_array().unwrap().len(), 2);

    // PGN out and back in.
    let pgn = ok(addr, "GET", "/api/pgn", "")["pgn"].as_str().unwrap().to_string();
    assert!(pgn.contains("[White \"Ann\"]") && pgn.contains("[Black \"menagerie\"]"), "{pgn}");
    let before = game(addr);
    ok(addr, "POST", "/api/new", r#"{"variant":"capablanca"}"#);
    let s = ok(addr, "POST", "/api/pgn", &serde_json::json!({ "pgn": pgn }).to_string());
    assert_eq!((s["fen"].as_str().unwrap().to_string(), s["moves"].clone()), before);
    assert_eq!(s["names"]["white"], "Ann");

    // Analysis, seen through the event stream; stop ends it.
    let mut events = open_events(addr);
    let s = ok(addr, "POST", "/api/analyse", r#"{"multipv":3}"#);
    assert_eq!(s["analysing"].as_u64(), Some(3));
    let lines = read_events(&mut events, Duration::from_secs(20), |name, data| {
        name == "info" && data["multipv"].as_u64() == Some(3) && data["depth"].as_u64() >= Some(2)
    });
    let info = lines.last().expect("a third line at depth 2");
    assert!(info["san"].as_array().is_some_and(|l| !l.is_empty()));
    assert!(info["nodes"].as_u64() > Some(0));
    let s = ok(addr, "POST", "/api/stop", "");
    assert!(s["analysing"].is_null());

    // A new game from a FEN (Clockwork with hands).
    let fen = "rnbqkbnr/pppp1ppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Sccoo] w KQkq - 0 3";
    let s = ok(addr, "POST", "/api/new", &format!(r#"{{"variant":"clockwork","fen":"{fen}"}}"#));
    assert_eq!(s["fen"], fen);
    assert_eq!(hand(&s, "white"), [("S".to_string(), 1)]);
    assert_eq!(hand(&s, "black"), [("C".to_string(), 2), ("O".to_string(), 2)]);
    assert_eq!(PANICS.load(Ordering::SeqCst), 0);
}

#[test]
fn refusals_are_one_line_and_keep_the_game() {
    count_panics();
    let server = start_server();
    let addr = server.addr();
    ok(addr, "POST", "/api/new", r#"{"variant":"clockwork"}"#);
    ok(addr, "POST", "/api/move", r#"{"move":"e2e4"}"#);
    let kept = game(addr);
    let long_game = serde_json::json!({ "pgn": "Nf3 Nf6 Ng1 Ng8 ".repeat(501) }).to_string();
    let cases: &[(&str, &str, &str, &str)] = &[
        ("POST", "/api/new", "{bad", "bad JSON"),
        ("POST", "/api/new", "[1,2]", "JSON object"),
        ("POST", "/api/new", r#"{"variant":"chess","colour":"red"}"#, "unknown field"),
        ("POST", "/api/new", "{}", "missing field"),
        ("POST", "/api/new", r#"{"variant":7}"#, "must be a string"),
        ("POST", "/api/new", r#"{"variant":"shogi"}"#, "unknown variant"),
        ("POST", "/api/new", r#"{"variant":"chess","fen":"8/8/8 w"}"#, "bad FEN: FEN has 3 ranks, the chess"),
        ("POST", "/api/new", r#"{"variant":"chess","fen":"k7 w"}"#, "bad FEN: FEN has 1 rank, the chess board has 8"),
        (
            "POST",
            "/api/new",
            r#"{"variant":"chess","fen":"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 junk junk junk"}"#,
            "",
        ),
        ("POST", "/api/move", "{}", "missing field"),
        ("POST", "/api/move", r#"{"move":"e2e4"}"#, "illegal move"),
        ("POST", "/api/move", r#"{"move":"Q@e4"}"#, "illegal move"),
        ("POST", "/api/move", r#"{"move":"z9z9"}"#, "not a move: \"z9z9\""),
        ("POST", "/api/move", r#"{"move":null}"#, "missing field"),
        ("POST", "/api/undo", r#"{"plies":5}"#, "cannot take back"),
        ("POST", "/api/undo", r#"{"plies":0}"#, "whole number"),
        ("POST", "/api/undo", r#"{"plies":-1}"#, "whole number"),
        ("POST", "/api/go", r#"{"movetime":0}"#, "whole number"),
        ("POST", "/api/go", r#"{"depth":1000}"#, "whole number"),
        ("POST", "/api/go", r#"{"nodes":"many"}"#, "whole number"),
        ("POST", "/api/go", r#"{"depth":2,"play":"yes"}"#, "true or false"),
        ("POST", "/api/analyse", r#"{"multipv":6}"#, "whole number"),
        ("POST", "/api/analyse", r#"{"multipv":0}"#, "whole number"),
        ("POST", "/api/stop", r#"{"now":true}"#, "unknown field"),
        ("POST", "/api/pgn", "{}", "missing field"),
        ("POST", "/api/pgn", r#"{"pgn":""}"#, "no game"),
        ("POST", "/api/pgn", r#"{"pgn":"[Variant \"shogi\"]\n\n1. e4 *"}"#, "unknown variant"),
        ("POST", "/api/pgn", r#"{"pgn":"1. e4 e5 2. Ke3 *"}"#, "move 2. Ke3 is illegal"),
        ("POST", "/api/pgn", r#"{"pgn":"1. Nf3 d5 2. d3 Nf6 3. Nd2 *"}"#, "move 3. Nd2 is ambiguous: N"),
        ("POST", "/api/pgn", r#"{"pgn":"[FEN \"xx\"]\n\n1. e4 *"}"#, "bad FEN: "),
        ("POST", "/api/pgn", &long_game, "over 2000 moves"),
    ];
    for &(method, path, body, expected) in cases {
        let message = refused(addr, method, path, body, 400);
        let shown: String = body.chars().take(120).collect();
        assert!(message.contains(expected), "{path} {shown}: {message}");
        assert_eq!(game(addr), kept, "{path} {shown} kept the game");
    }
    assert!(refused(addr, "GET", "/api/nothing", "", 404).contains("no such endpoint"));
    assert!(refused(addr, "GET", "/nothing.html", "", 404).contains("no such page"));
    assert!(refused(addr, "DELETE", "/api/state", "", 405).contains("not allowed"));
    assert!(refused(addr, "GET", "/api/move", "", 405).contains("not allowed"));
    assert!(refused(addr, "POST", "/api/events", "", 405).contains("not allowed"));
    let (status, text) = request_bytes(addr, "POST", "/api/move", &[0xff, 0xfe, b'{']);
    assert_eq!(status, 400, "{text}");
    let (status, text) = request(addr, "POST", "/api/pgn", &"x".repeat(1 << 21));
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("over"));
    assert_eq!(game(addr), kept);

    // A move that fits two is refused with both, in one line.
    let two_knights = "rnbqkb1r/ppp1pppp/5n2/3p4/8/3P1N2/PPP1PPPP/RNBQKB1R w KQkq - 1 3";
    ok(addr, "POST", "/api/new", &format!(r#"{{"variant":"chess","fen":"{two_knights}"}}"#));
    let message = refused(addr, "POST", "/api/move", r#"{"move":"Nd2"}"#, 400);
    assert!(message.starts_with(r#"ambiguous move "Nd2": N"#), "{message}");
    assert!(message.contains("Nbd2") && message.contains("Nfd2"), "{message}");
    ok(addr, "POST", "/api/move", r#"{"move":"Nbd2"}"#);

    // A finished game refuses moves and engine searches.
    let mate = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR[] w KQkq - 1 3";
    let s = ok(addr, "POST", "/api/new", &format!(r#"{{"variant":"clockwork","fen":"{mate}"}}"#));
    assert_eq!(s["result"]["result"], "0-1");
    assert_eq!(s["check"], "e1");
    let over = game(addr);
    assert!(refused(addr, "POST", "/api/move", r#"{"move":"a2a3"}"#, 400).contains("the game is over"));
    assert!(refused(addr, "POST", "/api/go", r#"{"depth":1}"#, 400).contains("the game is over"));
    assert_eq!(game(addr), over);
    assert_eq!(PANICS.load(Ordering::SeqCst), 0);
}

/// A 403 with a one-line JSON error; returns the error.
fn forbidden(reply: (u16, String, String), what: &str) -> String {
    let (status, _, body) = reply;
    assert_eq!(status, 403, "{what}: {body}");
    let value: Value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{what}: {e}: {body}"));
    let message = value["error"].as_str().expect("an error message").to_string();
    assert!(message.starts_with("refused: ") && !message.contains('\n'), "{what}: {message:?}");
    message
}

#[test]
fn foreign_pages_and_names_are_refused_and_the_game_kept() {
    count_panics();
    let server = start_server();
    let addr = server.addr();
    let port = addr.port();
    ok(addr, "POST", "/api/new", r#"{"variant":"chess"}"#);
    ok(addr, "POST", "/api/move", r#"{"move":"e2e4"}"#);
    let kept = game(addr);
    let host = format!("Host: {addr}");
    let json = "Content-Type: application/json".to_string();
    let new_game = r#"{"variant":"capablanca"}"#;
    let cases: Vec<(&str, &str, Vec<String>, &str, &str)> = vec![
        // What a foreign page's form or fetch sends without asking first.
        ("POST", "/api/new", vec![host.clone(), "Content-Type: text/plain".into()], new_game, "Content-Type"),
        (
            "POST",
            "/api/new",
            vec![host.clone(), "Content-Type: text/plain".into(), "Origin: http://evil.example".into()],
            new_game,
            "evil.example",
        ),
        ("POST", "/api/new", vec![host.clone()], new_game, "Content-Type"),
        ("POST", "/api/new", vec![host.clone(), json.clone(), "Origin: http://evil.example".into()], new_game, "evil"),
        (
            "POST",
            "/api/move",
            vec![host.clone(), json.clone(), format!("Origin: http://evil.example:{port}")],
            r#"{"move":"e7e5"}"#,
            "own page",
        ),
        (
            "POST",
            "/api/go",
            vec![host.clone(), json.clone(), "Origin: null".into()],
            r#"{"depth":2,"play":true}"#,
            "null",
        ),
        ("POST", "/api/undo", vec![host.clone(), json.clone(), format!("Origin: https://{addr}")], "", "own page"),
        // DNS rebinding: a foreign name that points here.
        ("POST", "/api/new", vec![format!("Host: evil.example:{port}"), json.clone()], new_game, "evil.example"),
        ("GET", "/api/state", vec![format!("Host: evil.example:{port}")], "", "not this board's address"),
        ("GET", "/", vec!["Host: evil.example".into()], "", "not this board's address"),
        ("POST", "/api/analyse", vec![format!("Host: 127.0.0.1:{}", port ^ 1), json.clone()], "", "address"),
        ("GET", "/api/events", vec![format!("Host: evil.example:{port}")], "", "address"),
        ("GET", "/api/events", vec![host.clone(), "Origin: http://evil.example".into()], "", "own page"),
        ("POST", "/api/new", vec![json.clone()], new_game, "no Host"),
    ];
    for (method, path, headers, body, expected) in &cases {
        let what = format!("{method} {path} {headers:?}");
        let message = forbidden(request_with(addr, method, path, headers, body), &what);
        assert!(message.contains(expected), "{what}: {message}");
        let s = state(addr);
        assert!(s["thinking"] == false && s["analysing"].is_null(), "{what}: the engine does not think");
        assert_eq!(game(addr), kept, "{what} kept the game");
    }
    // The board's own page (by any of its loopback names) is served and obeyed.
    for own in [format!("http://{addr}"), format!("http://localhost:{port}")] {
        let headers = vec![host.clone(), json.clone(), format!("Origin: {own}")];
        let (status, _, body) = request_with(addr, "POST", "/api/undo", &headers, "");
        assert_eq!(status, 200, "{own}: {body}");
        ok(addr, "POST", "/api/move", r#"{"move":"e4"}"#);
    }
    let (status, head, body) = request_with(addr, "GET", "/", &[format!("Host: localhost:{port}")], "");
    assert_eq!(status, 200, "{body}");
    assert!(body.contains("app.js") && head.contains("X-Frame-Options: DENY"), "{head}");
    let (status, _, body) = request_with(addr, "GET", "/api/state", &[format!("Host: [::1]:{port}")], "");
    assert_eq!(status, 200, "{body}");
    let headers = vec![host.clone(), "Content-Type: application/json; charset=utf-8".into()];
    let (status, _, body) = request_with(addr, "POST", "/api/new", &headers, new_game);
    assert_eq!(status, 200, "{body}");
    assert_eq!(state(addr)["variant"], "capablanca");
    assert_eq!(PANICS.load(Ordering::SeqCst), 0);
}

/// `menagerie gui` with `args` on a free port, and the address line it printed.
struct GuiProcess {
    child: Child,
    line: String,
    stderr: Option<thread::JoinHandle<String>>,
}

impl GuiProcess {
    fn start(args: &[&str]) -> GuiProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_menagerie"))
            .arg("gui")
            .args(["--port", "0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start menagerie gui");
        let mut err = child.stderr.take().expect("stderr");
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = err.read_to_string(&mut text);
            text
        });
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("the address line");
        GuiProcess { child, line, stderr: Some(stderr) }
    }

    /// The address the line names, and its token.
    fn address(&self) -> (SocketAddr, Option<String>) {
        let url = self.line.split_whitespace().nth(2).unwrap_or_else(|| panic!("no address in {:?}", self.line));
        let rest = url.strip_prefix("http://").expect("an http address");
        let (authority, path) = rest.split_once('/').expect("a path");
        let token = path.strip_prefix("?token=").map(str::to_string);
        (authority.parse().unwrap_or_else(|e| panic!("{authority}: {e}")), token)
    }

    /// Stops the server; returns what it wrote on stderr.
    fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.stderr.take().map(|h| h.join().unwrap_or_default()).unwrap_or_default()
    }
}

impl Drop for GuiProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_board_other_machines_can_reach_wants_its_token() {
    let gui = GuiProcess::start(&["--host", "0.0.0.0"]);
    let (addr, token) = gui.address();
    let token = token.unwrap_or_else(|| panic!("a token in {:?}", gui.line));
    assert!(addr.ip().is_loopback() && token.len() >= 32, "{}", gui.line);
    let host = format!("Host: {addr}");
    let json = "Content-Type: application/json".to_string();
    let with_token = format!("X-Menagerie-Token: {token}");
    let read = || {
        let (status, _, body) = request_with(addr, "GET", "/api/state", &[host.clone(), with_token.clone()], "");
        assert_eq!(status, 200, "{body}");
        let s: Value = serde_json::from_str(&body).expect("JSON");
        (s["variant"].clone(), s["fen"].clone(), s["moves"].clone())
    };
    let before = read();
    let new_game = r#"{"variant":"capablanca"}"#;
    let refusals: Vec<(&str, &str, Vec<String>, &str)> = vec![
        ("GET", "/api/state", vec![host.clone()], "needs its token"),
        ("GET", "/", vec![host.clone()], "needs its token"),
        ("GET", "/api/events", vec![host.clone()], "needs its token"),
        ("POST", "/api/new", vec![host.clone(), json.clone()], "needs its token"),
        ("POST", "/api/new", vec![host.clone(), json.clone(), "X-Menagerie-Token: 0123456789abcdef".into()], "token"),
        ("POST", "/api/new", vec![host.clone(), json.clone(), format!("Cookie: menagerie-token-1={token}")], "token"),
        ("POST", "/api/new", vec![host.clone(), "Content-Type: text/plain".into(), with_token.clone()], "Content-Type"),
        (
            "POST",
            "/api/new",
            vec![format!("Host: evil.example:{}", addr.port()), json.clone(), with_token.clone()],
            "Host",
        ),
    ];
    for (method, path, headers, expected) in &refusals {
        let what = format!("{method} {path} {headers:?}");
        let message = forbidden(request_with(addr, method, path, headers, new_game), &what);
        assert!(message.contains(expected), "{what}: {message}");
        assert_eq!(read(), before, "{what} kept the game");
    }
    // The printed address sets the cookie the page's own requests carry.
    let (status, head, body) = request_with(addr, "GET", &format!("/?token={token}"), std::slice::from_ref(&host), "");
    assert_eq!(status, 200, "{body}");
    let cookie = head
        .lines()
        .find_map(|l| l.strip_prefix("Set-Cookie: "))
        .and_then(|c| c.split(';').next())
        .unwrap_or_else(|| panic!("a cookie in {head}"))
        .to_string();
    assert_eq!(cookie, format!("menagerie-token-{}={token}", addr.port()));
    let page = vec![host.clone(), json.clone(), format!("Cookie: {cookie}"), format!("Origin: http://{addr}")];
    let (status, _, body) = request_with(addr, "POST", "/api/new", &page, new_game);
    assert_eq!(status, 200, "{body}");
    assert_eq!(read().0, "capablanca");
    // Scripts send the header; any of this machine's IP addresses is its name.
    let script = vec![format!("Host: 10.1.2.3:{}", addr.port()), json.clone(), with_token.clone()];
    let (status, _, body) = request_with(addr, "POST", "/api/move", &script, r#"{"move":"e4"}"#);
    assert_eq!(status, 200, "{body}");
    let warning = gui.stop();
    assert!(
        warning.starts_with(&format!("warning: listening on 0.0.0.0:{}", addr.port())) && warning.contains("token"),
        "{warning}"
    );
}

#[test]
fn serving_without_the_token_is_a_choice_with_a_warning() {
    let gui = GuiProcess::start(&["--host", "0.0.0.0", "--no-token"]);
    let (addr, token) = gui.address();
    assert_eq!(token, None, "{}", gui.line);
    let headers = vec![format!("Host: {addr}"), "Content-Type: application/json".to_string()];
    let (status, _, body) = request_with(addr, "POST", "/api/new", &headers, r#"{"variant":"clash1"}"#);
    assert_eq!(status, 200, "{body}");
    let warning = gui.stop();
    assert!(warning.contains("without a token (--no-token)"), "{warning}");

    // On this machine only (the default), neither a token nor a warning.
    let gui = GuiProcess::start(&[]);
    let (addr, token) = gui.address();
    assert_eq!((addr.ip().to_string(), token), ("127.0.0.1".to_string(), None), "{}", gui.line);
    let (status, _, body) = request_with(addr, "GET", "/api/state", &[format!("Host: {addr}")], "");
    assert_eq!(status, 200, "{body}");
    assert_eq!(gui.stop(), "");
}

/// `menagerie gui --open GAME.pgn` starts with the file's game on the board
/// (its variant from the Variant tag); a missing or bad file is one error
/// line and a failing exit. No desktop browser is started: PATH is empty.
#[test]
fn open_puts_a_pgn_game_on_the_board() {
    let dir = std::env::temp_dir().join(format!("menagerie-gui-open-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let good = dir.join("clockwork.pgn");
    std::fs::write(&good, "[Variant \"clockwork\"]\n[White \"Ann\"]\n\n1. e4 d5 2. exd5 S@d6 *\n").expect("write");
    let bad = dir.join("bad.pgn");
    std::fs::write(&bad, "[Variant \"clockwork\"]\n\n1. e4 Ke7 2. Qh5 Kxe9 *\n").expect("write");
    let gui = |file: &std::path::Path| {
        Command::new(env!("CARGO_BIN_EXE_menagerie"))
            .args(["gui", "--port", "0", "--open"])
            .arg(file)
            .env("PATH", "")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start menagerie gui")
    };
    let mut child = gui(&good);
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout")).read_line(&mut line).expect("the address line");
    let url = line.split_whitespace().nth(2).unwrap_or_else(|| panic!("no address in {line:?}"));
    let addr: SocketAddr = url.trim_start_matches("http://").trim_end_matches('/').parse().expect("an address");
    let s = state(addr);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(s["variant"], "clockwork");
    let moves: Vec<&str> = s["moves"].as_array().into_iter().flatten().filter_map(|m| m["san"].as_str()).collect();
    assert_eq!(moves, ["e4", "d5", "exd5", "S@d6"]);
    assert_eq!(s["names"]["white"], "Ann");
    for file in [bad, dir.join("missing.pgn")] {
        let out = gui(&file).wait_with_output().expect("menagerie gui ends");
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(!out.status.success(), "{} was accepted", file.display());
        assert!(err.starts_with("error: ") && err.trim_end().lines().count() == 1, "{err}");
        assert!(err.contains(&file.display().to_string()), "{err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn drops_swaps_and_succession() {
    count_panics();
    let server = start_server();
    let addr = server.addr();

    // Clockwork: a captured man returns to its owner as a non-capturing twin.
    ok(addr, "POST", "/api/new", r#"{"variant":"clockwork"}"#);
    for mv in ["e2e4", "d7d5", "e4d5"] {
        ok(addr, "POST", "/api/move", &format!(r#"{{"move":"{mv}"}}"#));
    }
    let s = state(addr);
    assert_eq!(hand(&s, "black"), [("S".to_string(), 1)]);
    let drops: Vec<&Value> = legal(&s).into_iter().filter(|m| m["kind"] == "drop").collect();
    assert!(drops.iter().all(|m| m["piece"] == "S" && m["from"].is_null()));
    assert!(drops.iter().any(|m| m["to"] == "d6"));
    let s = ok(addr, "POST", "/api/move", r#"{"move":"S@d6"}"#);
    assert!(hand(&s, "black").is_empty());
    assert_eq!(s["board"][2][3], "s");
    assert_eq!(s["moves"][3]["san"], "S@d6");

    // Relocation: the swap phase is a set of board moves and a pass.
    let s = ok(addr, "POST", "/api/new", r#"{"variant":"relocation"}"#);
    assert!(s["setup"].as_bool().unwrap());
    assert_eq!(s["side"], "black");
    let moves = legal(&s);
    assert!(moves.iter().any(|m| m["kind"] == "pass" && m["from"].is_null()));
    let swap =
        moves.iter().find(|m| m["kind"] == "swap" && m["from"] == "f8" && m["to"] == "e8").expect("king-queen swap");
    let s = ok(addr, "POST", "/api/move", &format!(r#"{{"move":"{}"}}"#, swap["uci"].as_str().unwrap()));
    assert_eq!((s["board"][0][4].as_str(), s["board"][0][5].as_str()), (Some("k"), Some("q")));
    let s = ok(addr, "POST", "/api/move", r#"{"move":"0000"}"#);
    assert_eq!(s["side"], "white");

    // Clash 5: a mated king with a safe joker may take the joker's place.
    let fen = "k9/1Q8/2K7/10/10/10/10/10/10/9j b - - 0 1";
    let s = ok(addr, "POST", "/api/new", &format!(r#"{{"variant":"clash5","fen":"{fen}"}}"#));
    assert_eq!(s["check"], "a10");
    assert!(s["result"].is_null());
    let moves = legal(&s);
    assert_eq!(moves.len(), 1);
    assert_eq!(
        (moves[0]["kind"].as_str(), moves[0]["from"].as_str(), moves[0]["to"].as_str()),
        (Some("swap"), Some("a10"), Some("j1"))
    );
    let s = ok(addr, "POST", "/api/move", r#"{"move":"a10j1"}"#);
    assert_eq!(s["board"][9][9], "k");
    assert_eq!(s["board"][0][0], "j");

    // Promotion offers each choice of the army.
    let fen = "4k3/P7/8/8/8/8/8/4K3[] w - - 0 1";
    let s = ok(addr, "POST", "/api/new", &format!(r#"{{"variant":"clockwork","fen":"{fen}"}}"#));
    let mut choices: Vec<&str> =
        legal(&s).iter().filter(|m| m["from"] == "a7").map(|m| m["piece"].as_str().unwrap_or("-")).collect();
    choices.sort_unstable();
    assert_eq!(choices, ["B", "N", "Q", "R"]);
    assert_eq!(PANICS.load(Ordering::SeqCst), 0);
}

#[test]
fn viewing_earlier_moves_and_playing_from_them() {
    count_panics();
    let server = start_server();
    let addr = server.addr();
    ok(addr, "POST", "/api/new", r#"{"variant":"chess"}"#);
    for mv in ["e2e4", "e7e5", "g1f3"] {
        ok(addr, "POST", "/api/move", &format!(r#"{{"move":"{mv}"}}"#));
    }
    let s = ok(addr, "POST", "/api/view", r#"{"ply":1}"#);
    assert_eq!((s["ply"].as_u64(), s["moves"].as_array().map(Vec::len)), (Some(1), Some(3)));
    assert_eq!(s["fen"], "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    assert_eq!((s["last"].as_str(), s["side"].as_str()), (Some("e2e4"), Some("black")));
    assert!(s["result"].is_null() && s["game_result"].is_null());
    let message = refused(addr, "POST", "/api/move", r#"{"move":"c7c5"}"#, 400);
    assert!(message.contains("you are viewing move 1 of 3: playing here drops the 2 later moves"), "{message}");
    assert_eq!(state(addr)["moves"].as_array().map(Vec::len), Some(3));
    // The game's own move steps forward and keeps the rest.
    let s = ok(addr, "POST", "/api/move", r#"{"move":"e5"}"#);
    assert_eq!((s["ply"].as_u64(), s["moves"].as_array().map(Vec::len)), (Some(2), Some(3)));
    assert!(refused(addr, "POST", "/api/view", r#"{"ply":5}"#, 400).contains("no move 5: the game has 3 moves"));
    assert!(refused(addr, "POST", "/api/view", "{}", 400).contains("missing field"));
    // The engine's move from an earlier position needs the same consent.
    assert!(refused(addr, "POST", "/api/go", r#"{"depth":2,"play":true}"#, 400).contains("drops the 1 later moves"));
    let reply = ok(addr, "POST", "/api/go", r#"{"depth":2,"play":true,"truncate":true}"#);
    assert_eq!(reply["state"]["moves"].as_array().map(Vec::len), Some(3));
    assert_eq!(reply["state"]["ply"].as_u64(), Some(3));
    // Another move with consent drops the rest; take back works from the viewed move.
    ok(addr, "POST", "/api/view", r#"{"ply":1}"#);
    let s = ok(addr, "POST", "/api/move", r#"{"move":"c7c5","truncate":true}"#);
    assert_eq!(
        s["moves"].as_array().map(|m| m.iter().map(|m| m["san"].clone()).collect::<Vec<_>>()),
        Some(vec!["e4".into(), "c5".into()])
    );
    ok(addr, "POST", "/api/view", r#"{"ply":1}"#);
    let s = ok(addr, "POST", "/api/undo", r#"{"plies":1}"#);
    assert_eq!((s["ply"].as_u64(), s["moves"].as_array().map(Vec::len)), (Some(0), Some(0)));
    // The analysis follows the viewed move.
    for mv in ["e2e4", "e7e5"] {
        ok(addr, "POST", "/api/move", &format!(r#"{{"move":"{mv}"}}"#));
    }
    let mut events = open_events(addr);
    ok(addr, "POST", "/api/analyse", r#"{"multipv":1}"#);
    let s = ok(addr, "POST", "/api/view", r#"{"ply":1}"#);
    let version = s["version"].as_u64();
    let infos = read_events(&mut events, Duration::from_secs(10), |name, data| {
        name == "info" && data["version"].as_u64() == version
    });
    let first = infos.last().and_then(|i| i["pv"][0].as_str()).unwrap_or("").to_string();
    assert!(legal(&s).iter().any(|m| m["uci"] == first.as_str()), "the line {first} starts from the viewed move");
    ok(addr, "POST", "/api/stop", "");
    assert_eq!(PANICS.load(Ordering::SeqCst), 0);
}

#[test]
fn clocks_resignation_and_draw_offers() {
    count_panics();
    let server = start_server();
    let addr = server.addr();
    assert!(refused(addr, "POST", "/api/new", r#"{"variant":"chess","clock":"abc"}"#, 400).contains("field \"clock\""));
    assert!(refused(addr, "POST", "/api/new", r#"{"variant":"chess","clock":"st=1"}"#, 400)
        .contains("needs a time control"));
    assert!(refused(addr, "POST", "/api/go", r#"{"clock":true,"play":true}"#, 400).contains("no clock is running"));
    // No clock runs before a side's first move (as on lichess); then the engine plays on its clock.
    let s = ok(addr, "POST", "/api/new", r#"{"variant":"chess","clock":"30+1"}"#);
    assert_eq!((s["clock"]["running"].as_str(), s["clock"]["control"].as_str()), (None, Some("30+1")));
    assert!(refused(addr, "POST", "/api/go", r#"{"clock":true,"play":true}"#, 400).contains("no clock is running"));
    ok(addr, "POST", "/api/move", r#"{"move":"e2e4"}"#);
    let s = ok(addr, "POST", "/api/move", r#"{"move":"e7e5"}"#);
    assert_eq!(s["clock"]["running"], "white");
    assert_eq!((s["clock"]["white_ms"].as_i64(), s["clock"]["black_ms"].as_i64()), (Some(30_000), Some(30_000)));
    let reply = ok(addr, "POST", "/api/go", r#"{"clock":true,"play":true}"#);
    let clock = &reply["state"]["clock"];
    assert_eq!(clock["running"], "black");
    assert!(clock["white_ms"].as_i64().is_some_and(|ms| ms > 20_000 && ms <= 31_000), "{clock}");
    // The PGN carries each move's time left as lichess writes it; the engine's move its evaluation too.
    let pgn = ok(addr, "GET", "/api/pgn", "")["pgn"].as_str().unwrap_or("").to_string();
    let flat = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("1. e4 {[%clk 0:00:30]} e5 {[%clk 0:00:30]} 2. "), "{pgn}");
    assert!(flat.contains("{[%eval ") && flat.contains("[%clk 0:00:"), "{pgn}");
    // Viewing an earlier position pauses the clocks; back at the last move Black's runs again.
    let s = ok(addr, "POST", "/api/view", r#"{"ply":1}"#);
    assert_eq!((s["clock"]["running"].as_str(), s["clock"]["paused"].as_bool()), (None, Some(true)));
    let paused_at = s["clock"]["black_ms"].as_i64();
    thread::sleep(Duration::from_millis(300));
    assert_eq!(ok(addr, "GET", "/api/state", "")["clock"]["black_ms"].as_i64(), paused_at, "no time passes in review");
    let s = ok(addr, "POST", "/api/view", r#"{"ply":3}"#);
    assert_eq!((s["clock"]["running"].as_str(), s["clock"]["paused"].as_bool()), (Some("black"), Some(false)));
    // A flag falls: the side loses, and nothing more is played.
    ok(addr, "POST", "/api/new", r#"{"variant":"chess","clock":"1+0"}"#);
    ok(addr, "POST", "/api/move", r#"{"move":"e2e4"}"#);
    ok(addr, "POST", "/api/move", r#"{"move":"e7e5"}"#);
    thread::sleep(Duration::from_millis(1200));
    let s = ok(addr, "POST", "/api/flag", "");
    assert_eq!(s["result"]["result"], "0-1");
    assert_eq!(s["result"]["reason"], "White's flag fell");
    assert!(s["clock"]["running"].is_null());
    assert!(refused(addr, "POST", "/api/move", r#"{"move":"g1f3"}"#, 400)
        .contains("the game is over: 0-1 (White's flag fell)"));
    let pgn = ok(addr, "GET", "/api/pgn", "")["pgn"].as_str().unwrap_or("").to_string();
    assert!(pgn.contains("[Termination \"time forfeit\"]") && pgn.contains("[TimeControl \"1\"]"), "{pgn}");
    assert!(pgn.contains("{White's flag fell} 0-1"), "{pgn}");
    // A bare king cannot mate: White's flag falls, and it is a draw.
    ok(addr, "POST", "/api/new", r#"{"variant":"chess","clock":"1+0","fen":"4k3/8/8/8/8/8/PPPP4/R3K3 w - - 0 1"}"#);
    ok(addr, "POST", "/api/move", r#"{"move":"a2a3"}"#);
    ok(addr, "POST", "/api/move", r#"{"move":"e8f8"}"#);
    thread::sleep(Duration::from_millis(1200));
    let s = ok(addr, "POST", "/api/flag", "");
    assert_eq!(
        (s["result"]["result"].as_str(), s["result"]["reason"].as_str()),
        (Some("1/2-1/2"), Some("White's flag fell, but Black cannot mate"))
    );
    // Resignation.
    ok(addr, "POST", "/api/new", r#"{"variant":"clash5"}"#);
    assert!(refused(addr, "POST", "/api/resign", r#"{"side":"red"}"#, 400).contains("\"white\" or \"black\""));
    let s = ok(addr, "POST", "/api/resign", r#"{"side":"black"}"#);
    assert_eq!((s["result"]["result"].as_str(), s["result"]["reason"].as_str()), (Some("1-0"), Some("Black resigns")));
    assert!(refused(addr, "POST", "/api/resign", r#"{"side":"white"}"#, 400).contains("the game is over"));
    // A draw agreed between people, and offered to the engine.
    ok(addr, "POST", "/api/new", r#"{"variant":"chess"}"#);
    let reply = ok(addr, "POST", "/api/draw", r#"{"by":"white"}"#);
    assert_eq!(
        (reply["accepted"].as_bool(), reply["state"]["result"]["reason"].as_str()),
        (Some(true), Some("Draw by agreement"))
    );
    let won = r#"{"variant":"chess","fen":"4k3/8/8/8/8/8/qq6/7K w - - 0 1"}"#;
    ok(addr, "POST", "/api/new", won);
    let reply = ok(addr, "POST", "/api/draw", r#"{"by":"white","engine":true}"#);
    assert_eq!(reply["accepted"], false, "a winning engine declines: {reply}");
    assert!(reply["engine_cp"].as_i64().is_some_and(|cp| cp > 500), "{reply}");
    assert!(reply["state"]["result"].is_null());
    // Bare kings are a dead position (the game is over already); an engine a
    // knight pair down, which no one can force mate with, accepts.
    ok(addr, "POST", "/api/new", r#"{"variant":"chess","fen":"3nkn2/8/8/8/8/8/8/4K3 w - - 0 1"}"#);
    let reply = ok(addr, "POST", "/api/draw", r#"{"by":"black","engine":true}"#);
    assert_eq!(reply["accepted"], true, "the engine two knights down: {reply}");
    assert_eq!(reply["state"]["result"]["result"], "1/2-1/2");
    assert_eq!(PANICS.load(Ordering::SeqCst), 0);
}

#[test]
fn analyse_game_marks_every_move() {
    count_panics();
    let server = start_server();
    let addr = server.addr();
    ok(addr, "POST", "/api/new", r#"{"variant":"chess"}"#);
    assert!(refused(addr, "POST", "/api/review", "{}", 400).contains("no moves to analyse"));
    assert!(refused(addr, "POST", "/api/review", r#"{"nodes":0}"#, 400).contains("whole number"));
    let pgn = "1. e4 e5 2. Nf3 Nc6 3. Bc4 Qg5 4. Nxg5 *";
    ok(addr, "POST", "/api/pgn", &serde_json::json!({ "pgn": pgn }).to_string());
    let mut events = open_events(addr);
    let review = ok(addr, "POST", "/api/review", r#"{"nodes":20000}"#);
    assert_eq!(review["plies"], 7);
    assert_eq!(review["uci"][5], "d8g5");
    let moves = review["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 7);
    assert_eq!((moves[5]["san"].as_str(), moves[5]["mark"].as_str()), (Some("Qg5"), Some("??")));
    assert!(moves[5]["white_chances"].as_f64().is_some_and(|c| c > 0.5), "{}", moves[5]);
    assert_eq!(review["summary"]["black"]["blunders"], 1);
    let progress = read_events(&mut events, Duration::from_secs(5), |name, data| name == "review" && data["done"] == 8);
    assert!(!progress.is_empty(), "progress events reach the page");
    // The variants carry their legends.
    let variants = ok(addr, "GET", "/api/variants", "");
    let clash5 = variants.as_array().into_iter().flatten().find(|v| v["name"] == "clash5").expect("clash5");
    let joker = clash5["legend"].as_array().into_iter().flatten().find(|p| p["letter"] == "J").expect("the joker");
    assert_eq!(joker["moves"], "Steps one square in any direction.");
    assert!(joker["notes"][0].as_str().is_some_and(|n| n.starts_with("Succession")), "{joker}");
    assert_eq!(PANICS.load(Ordering::SeqCst), 0);
}

#[test]
fn several_clients_at_once() {
    count_panics();
    let server = start_server();
    let addr = server.addr();
    ok(addr, "POST", "/api/new", r#"{"variant":"capablanca"}"#);
    let mut events = open_events(addr);
    let workers: Vec<_> = (0..4u64)
        .map(|seed| {
            thread::spawn(move || {
                let mut rng = StdRng::seed_from_u64(seed);
                for _ in 0..40 {
                    let s = state(addr);
                    let moves = legal(&s);
                    if rng.gen_bool(0.3) || moves.is_empty() {
                        let _ = request(addr, "POST", "/api/undo", "");
                    } else {
                        let m = moves[rng.gen_range(0..moves.len())]["uci"].as_str().unwrap().to_string();
                        // Another client may have moved first: 200 or 400, never anything else.
                        let (status, _) = request(addr, "POST", "/api/move", &format!(r#"{{"move":"{m}"}}"#));
                        assert!(status == 200 || status == 400);
                    }
                }
            })
        })
        .collect();
    for w in workers {
        w.join().expect("client thread");
    }
    // The game still replays from its moves, and the pages heard of it.
    let s = state(addr);
    let pgn = ok(addr, "GET", "/api/pgn", "")["pgn"].as_str().unwrap().to_string();
    let back = ok(addr, "POST", "/api/pgn", &serde_json::json!({ "pgn": pgn }).to_string());
    assert_eq!(back["fen"], s["fen"]);
    let seen = read_events(&mut events, Duration::from_secs(5), |name, _| name == "state");
    assert!(!seen.is_empty());
    assert_eq!(PANICS.load(Ordering::SeqCst), 0);
}

#[test]
fn fuzzed_requests_never_panic() {
    count_panics();
    let server = start_server();
    let addr = server.addr();
    let mut rng = StdRng::seed_from_u64(16);
    let variants = ["chess", "capablanca", "caparandom", "clockwork", "relocation", "clash1", "clash5", "xiangqi", ""];
    let paths = [
        "/api/variants",
        "/api/new",
        "/api/state",
        "/api/move",
        "/api/undo",
        "/api/go",
        "/api/analyse",
        "/api/stop",
        "/api/pgn",
        "/api/view",
        "/api/resign",
        "/api/draw",
        "/api/flag",
        "/api/review",
        "/api/nope",
        "/",
        "/app.js",
    ];
    let mut statuses = [0usize; 6];
    let started = Instant::now();
    let mut legal_moves: Vec<String> = Vec::new();
    for i in 0..10_000 {
        let path = paths[rng.gen_range(0..paths.len())];
        let method = if rng.gen_bool(0.9) {
            if path == "/api/state" || path == "/" {
                "GET"
            } else {
                "POST"
            }
        } else {
            "PUT"
        };
        let body = match path {
            "/api/new" => match rng.gen_range(0..4) {
                0 => format!(r#"{{"variant":"{}"}}"#, variants[rng.gen_range(0..variants.len())]),
                1 => format!(
                    r#"{{"variant":"clockwork","fen":"{}"}}"#,
                    garble(&mut rng, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Pp] w KQkq - 0 1")
                ),
                2 => random_json(&mut rng, 3),
                _ => garble(&mut rng, r#"{"variant":"clash5"}"#),
            },
            "/api/move" => match (rng.gen_range(0..3), legal_moves.is_empty()) {
                (0 | 1, false) => format!(r#"{{"move":"{}"}}"#, legal_moves[rng.gen_range(0..legal_moves.len())]),
                (0, _) => format!(r#"{{"move":"{}"}}"#, garble(&mut rng, "e2e4")),
                _ => random_json(&mut rng, 2),
            },
            "/api/go" => match rng.gen_range(0..3) {
                0 => format!(r#"{{"nodes":{},"play":{}}}"#, rng.gen_range(1..400), rng.gen_bool(0.5)),
                1 => format!(r#"{{"depth":{}}}"#, rng.gen_range(0..3)),
                _ => garble(&mut rng, r#"{"movetime":5}"#),
            },
            "/api/analyse" => format!(r#"{{"multipv":{}}}"#, rng.gen_range(0..7)),
            "/api/view" => format!(r#"{{"ply":{}}}"#, rng.gen_range(-1..6)),
            "/api/resign" if rng.gen_bool(0.2) => r#"{"side":"white"}"#.to_string(),
            "/api/draw" if rng.gen_bool(0.2) => r#"{"by":"black"}"#.to_string(),
            // Small analyses only: a node budget per position.
            "/api/review" => match rng.gen_range(0..2) {
                0 => format!(r#"{{"nodes":{}}}"#, rng.gen_range(1..200)),
                _ => garble(&mut rng, r#"{"nodes":50}"#).replace("{}", "{\"nodes\":1}"),
            },
            "/api/undo" => format!(r#"{{"plies":{}}}"#, rng.gen_range(-1..4)),
            "/api/pgn" if rng.gen_bool(0.5) => {
                format!(r#"{{"pgn":"{}"}}"#, garble(&mut rng, "[Variant \"clockwork\"]\n\n1. e4 d5 2. exd5 S@d6 *"))
            }
            _ => random_json(&mut rng, 2),
        };
        let (status, text) = request(addr, method, path, &body);
        statuses[(status / 100) as usize % 6] += 1;
        assert!(status < 500, "request {i}: {method} {path} {body} -> {status} {text}");
        if path == "/api/state" || (status == 200 && text.contains("\"legal\"")) {
            if let Ok(v) = serde_json::from_str::<Value>(&text) {
                let s = if v.get("state").is_some() { &v["state"] } else { &v };
                legal_moves = s["legal"]
                    .as_array()
                    .map(|l| l.iter().filter_map(|m| m["uci"].as_str().map(String::from)).collect())
                    .unwrap_or_default();
            }
        }
    }
    ok(addr, "POST", "/api/stop", "");
    let s = state(addr);
    assert!(s["fen"].is_string(), "the server still answers");
    println!(
        "10^4 fuzzed requests in {:.1} s: {} ok, {} refused (4xx), {} panics",
        started.elapsed().as_secs_f64(),
        statuses[2],
        statuses[4],
        PANICS.load(Ordering::SeqCst)
    );
    assert!(statuses[2] > 1000 && statuses[4] > 1000, "both answers exercised: {statuses:?}");
    assert_eq!(PANICS.load(Ordering::SeqCst), 0);

    // Raw garbage instead of HTTP: the server drops it and goes on.
    for _ in 0..50 {
        let junk: Vec<u8> = (0..rng.gen_range(0..200)).map(|_| rng.gen()).collect();
        if let Ok(mut stream) = TcpStream::connect(addr) {
            let _ = stream.write_all(&junk);
        }
    }
    assert!(state(addr)["fen"].is_string());
    assert_eq!(PANICS.load(Ordering::SeqCst), 0);
}

/// `text` with a few characters replaced, deleted or doubled.
fn garble(rng: &mut StdRng, text: &str) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for _ in 0..rng.gen_range(0..4) {
        if chars.is_empty() {
            break;
        }
        let i = rng.gen_range(0..chars.len());
        match rng.gen_range(0..3) {
            0 => chars[i] = char::from(rng.gen_range(b' '..=b'~')),
            1 => {
                chars.remove(i);
            }
            _ => chars.insert(i, chars[i]),
        }
    }
    chars.into_iter().collect::<String>().replace('\\', "/")
}

/// A random JSON value (usually an object) as text.
fn random_json(rng: &mut StdRng, depth: u32) -> String {
    let keys = ["variant", "fen", "move", "plies", "movetime", "depth", "nodes", "multipv", "play", "pgn", "x"];
    match rng.gen_range(0..if depth == 0 { 5 } else { 8 }) {
        0 => "null".to_string(),
        1 => rng.gen_bool(0.5).to_string(),
        2 => rng.gen_range(-5i64..100_000).to_string(),
        3 => format!("{:?}", ["e2e4", "", "clash5", "P@e4", "0000", "\u{e9}"][rng.gen_range(0..6)]),
        4 => format!("{}", rng.gen::<f64>() * 1e3),
        5 => {
            format!("[{}]", (0..rng.gen_range(0..3)).map(|_| random_json(rng, depth - 1)).collect::<Vec<_>>().join(","))
        }
        _ => format!(
            "{{{}}}",
            (0..rng.gen_range(0..3))
                .map(|_| format!("{:?}:{}", keys[rng.gen_range(0..keys.len())], random_json(rng, depth - 1)))
                .collect::<Vec<_>>()
                .join(",")
        ),
    }
}

/// An open `/api/events` stream, past its headers.
fn open_events(addr: SocketAddr) -> BufReader<TcpStream> {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_millis(200))).expect("timeout");
    write!(stream, "GET /api/events HTTP/1.1\r\nHost: {addr}\r\n\r\n").expect("send");
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        line.clear();
        if reader.read_line(&mut line).is_ok() && line == "\r\n" {
            return reader;
        }
    }
    panic!("no event stream");
}

/// Reads events until `wanted(name, data)` holds or `timeout` passes;
/// returns the data of the wanted events seen.
fn read_events(
    reader: &mut BufReader<TcpStream>,
    timeout: Duration,
    wanted: impl Fn(&str, &Value) -> bool,
) -> Vec<Value> {
    let deadline = Instant::now() + timeout;
    let mut name = String::new();
    let mut seen = Vec::new();
    let mut line = String::new();
    while Instant::now() < deadline {
        line.clear();
        match reader.read_line(&mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(_) => continue,
        }
        if let Some(n) = line.strip_prefix("event: ") {
            name = n.trim().to_string();
        } else if let Some(d) = line.strip_prefix("data: ") {
            let data: Value = serde_json::from_str(d.trim()).expect("event data is JSON");
            if wanted(&name, &data) {
                seen.push(data);
                return seen;
            }
        }
    }
    seen
}

#[test]
fn a_dead_position_ends_the_game_drawn() {
    count_panics();
    let server = start_server();
    let addr = server.addr();
    // The king must take the queen: K v K, a dead position.
    ok(addr, "POST", "/api/new", r#"{"variant":"chess","fen":"7k/8/8/8/8/8/1q6/K7 w - - 0 1"}"#);
    let s = ok(addr, "POST", "/api/move", r#"{"move":"Kxb2"}"#);
    assert_eq!(s["result"]["result"], "1/2-1/2", "{s}");
    assert_eq!(s["result"]["reason"], "Draw by dead position", "{s}");
    assert!(refused(addr, "POST", "/api/move", r#"{"move":"b2b3"}"#, 400).contains("the game is over"));
    let pgn = ok(addr, "GET", "/api/pgn", "")["pgn"].as_str().unwrap().to_string();
    assert!(pgn.contains("[Result \"1/2-1/2\"]") && pgn.contains("{Draw by dead position}"), "{pgn}");
    // In Clash a fil mates with help: K+F v K plays on.
    let s = ok(addr, "POST", "/api/new", r#"{"variant":"clash1","fen":"4k5/10/10/10/10/10/10/F9/10/4K5 w - - 0 1"}"#);
    assert!(s["result"].is_null(), "{s}");
    assert_eq!(PANICS.load(Ordering::SeqCst), 0);
}
