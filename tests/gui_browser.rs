//! The board page in a real browser: headless Chromium driven through
//! chromedriver's WebDriver API plays a Clockwork line with a capture and a
//! drop by clicking, and checks the board and hands the page shows. Where
//! Chromium or chromedriver is missing or the browser does not start, the
//! tests fail under `CI=true` and say SKIPPED (and pass) elsewhere.
//!
//! Another steps back through a game (the move list, the buttons, the
//! arrow keys) and checks the board at each move, plays from an earlier move
//! after the page asks, reads Clash 5's legend and the names shown on
//! hover, runs "Analyse game" and finds the graph with the planted blunder,
//! and plays the engine with clocks until a flag falls; drags men; premoves
//! against the engine; draws arrows and circles; finds the game again after
//! a reload and from its link in a fresh browser.
//!
//! An `#[ignore]`d test plays whole games against the engine by clicks in
//! Clockwork, Relocation and Clash 5 (`-- --ignored --nocapture`).
//!
//! With `MENAGERIE_SCREENSHOTS=DIR` it also takes the README's screenshots
//! (Clockwork with full hands and their names, Clash 5 under analysis, Clash
//! 5 with its legend, an analysed game's graph and accuracy, a Relocation
//! swap choice, Clockwork at 400 px wide, arrows drawn on the board) into DIR.

mod common;
mod gui_support;

use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use common::require_tool;
use gui_support::{ok, request, request_with, start_server};
use menagerie::eval::catalogue::Catalogue;
use menagerie::gui::access::TokenRule;
use menagerie::gui::api::App;
use menagerie::gui::server;
use serde_json::{json, Value};

/// The first of `names` found on PATH.
fn find_tool(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    names.iter().find_map(|name| std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| p.is_file()))
}

/// A chromedriver process and one browser session on it.
struct Browser {
    driver: Child,
    addr: SocketAddr,
    session: String,
}

impl Browser {
    /// A headless Chromium under a fresh chromedriver. chromedriver now and
    /// then resets the first session request (seen once in a clean CI run):
    /// a new chromedriver on a new port gets two more tries.
    fn start(chromium: &Path, chromedriver: &Path) -> Result<Browser, String> {
        let mut failure = String::new();
        for _ in 0..3 {
            match Browser::start_once(chromium, chromedriver) {
                Ok(browser) => return Ok(browser),
                Err(e) => failure = e,
            }
        }
        Err(failure)
    }

    fn start_once(chromium: &Path, chromedriver: &Path) -> Result<Browser, String> {
        let port = TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map_err(|e| e.to_string())?.port();
        let driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start chromedriver: {e}"))?;
        let addr: SocketAddr = ([127, 0, 0, 1], port).into();
        let mut browser = Browser { driver, addr, session: String::new() };
        let deadline = Instant::now() + Duration::from_secs(20);
        while std::net::TcpStream::connect(addr).is_err() {
            if Instant::now() > deadline {
                return Err("chromedriver does not answer".into());
            }
            thread::sleep(Duration::from_millis(100));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {"goog:chromeOptions": {
            "binary": chromium,
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--hide-scrollbars", "--window-size=1240,900", "--force-device-scale-factor=1"]
        }}}});
        let (status, body) = std::panic::catch_unwind(|| request(addr, "POST", "/session", &caps.to_string()))
            .map_err(|_| "chromedriver dropped the session request".to_string())?;
        let reply: Value = serde_json::from_str(&body).map_err(|e| format!("chromedriver: {e}: {body}"))?;
        browser.session = reply["value"]["sessionId"]
            .as_str()
            .ok_or_else(|| format!("no browser session ({status}): {}", reply["value"]["message"]))?
            .to_string();
        Ok(browser)
    }

    fn call(&self, method: &str, path: &str, body: &Value) -> Value {
        self.try_call(method, path, body).unwrap_or_else(|e| panic!("{method} {path}: {e}"))
    }

    fn try_call(&self, method: &str, path: &str, body: &Value) -> Result<Value, String> {
        let url = format!("/session/{}{path}", self.session);
        let text = if method == "GET" { String::new() } else { body.to_string() };
        let (status, reply) = request(self.addr, method, &url, &text);
        let value: Value = serde_json::from_str(&reply).map_err(|e| format!("{e}: {reply}"))?;
        if status != 200 {
            return Err(format!("{status} {}", value["value"]["message"]));
        }
        Ok(value["value"].clone())
    }

    fn open(&self, url: &str) {
        self.call("POST", "/url", &json!({ "url": url }));
    }

    /// Runs JavaScript in the page and returns its value.
    fn js(&self, script: &str) -> Value {
        self.call("POST", "/execute/sync", &json!({ "script": script, "args": [] }))
    }

    /// Waits until the script returns true (a script that throws, as on an
    /// element the page has not drawn yet, counts as false).
    fn wait_for(&self, script: &str, what: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        let body = json!({ "script": format!("try {{ {script} }} catch (e) {{ return false; }}"), "args": [] });
        while self.try_call("POST", "/execute/sync", &body) != Ok(Value::Bool(true)) {
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; error line: {}; page: {}",
                self.error_line(),
                self.js("return JSON.stringify({version: ui.state.version, fen: ui.state.fen, busy: ui.engineBusy})")
            );
            thread::sleep(Duration::from_millis(50));
        }
    }

    fn error_line(&self) -> Value {
        self.js("return document.getElementById('error').textContent")
    }

    /// A real mouse click on the element `css` selects.
    /// The page redraws the board on every change, so an element found a
    /// moment ago may be gone: find it again and retry.
    fn click(&self, css: &str) {
        let mut last_error = String::new();
        for _ in 0..10 {
            let found = self.call("POST", "/element", &json!({"using": "css selector", "value": css}));
            let id = found.as_object().and_then(|o| o.values().next()).and_then(Value::as_str).expect("element id");
            match self.try_call("POST", &format!("/element/{id}/click"), &json!({})) {
                Ok(_) => return,
                Err(e) => last_error = e,
            }
            thread::sleep(Duration::from_millis(50));
        }
        panic!("cannot click {css}: {last_error}");
    }

    /// Presses the mouse on `from`, moves it in steps to `to` and lets go there.
    fn drag(&self, from: &str, to: &str) {
        self.drag_with(from, to, 0);
    }

    /// [`Browser::drag`] with mouse button `button` (2: the right one).
    fn drag_with(&self, from: &str, to: &str, button: u8) {
        let center = |css: &str| {
            let v = self.js(&format!("const r = document.querySelector('{css}').getBoundingClientRect(); return [Math.round(r.left + r.width / 2), Math.round(r.top + r.height / 2)]"));
            (v[0].as_i64().unwrap_or(0), v[1].as_i64().unwrap_or(0))
        };
        let ((fx, fy), (tx, ty)) = (center(from), center(to));
        let step = |x: i64, y: i64, ms: u64| json!({"type": "pointerMove", "origin": "viewport", "x": x, "y": y, "duration": ms});
        let actions = json!([step(fx, fy, 0), {"type": "pointerDown", "button": button}, step(fx + 8, fy - 8, 50),
            step((fx + tx) / 2, (fy + ty) / 2, 100), step(tx, ty, 100), {"type": "pointerUp", "button": button}]);
        let body = json!({"actions": [{"type": "pointer", "id": "drag", "parameters": {"pointerType": "mouse"}, "actions": actions}]});
        self.call("POST", "/actions", &body);
    }

    fn square(&self, name: &str) -> String {
        let v = self.js(&format!("return document.querySelector('[data-square=\"{name}\"]').dataset.piece"));
        v.as_str().unwrap_or("?").to_string()
    }

    /// The counts in one side's hand as shown: "S1 C2".
    fn hand(&self, color: &str) -> String {
        let v = self.js(&format!(
            "return [...document.querySelectorAll('[data-hand=\"{color}\"]')].map(h => h.dataset.piece + h.querySelector('.count').textContent).join(' ')"
        ));
        v.as_str().unwrap_or("?").to_string()
    }

    /// Clicks `from` then `to`, and waits for the page to show `moves` moves.
    fn click_move(&self, from: &str, to: &str, moves: usize) {
        if let Some(letter) = from.strip_prefix("hand:") {
            let (color, piece) = letter.split_once(':').expect("hand:color:piece");
            self.click(&format!("[data-hand=\"{color}\"][data-piece=\"{piece}\"]"));
        } else {
            self.click(&format!("[data-square=\"{from}\"]"));
        }
        self.wait_for(
            &format!("return document.querySelector('[data-square=\"{to}\"]').classList.contains('target')"),
            &format!("{to} highlighted as a target of {from}"),
        );
        self.click(&format!("[data-square=\"{to}\"]"));
        self.wait_for(&format!("return document.querySelectorAll('#moves span').length >= {moves} && document.querySelectorAll('#moves span')[{}].textContent !== ''", moves - 1), &format!("move {moves} listed"));
    }

    fn screenshot(&self, path: &Path) {
        let data = self.call("GET", "/screenshot", &Value::Null);
        let png = base64_decode(data.as_str().expect("base64 PNG"));
        assert!(png.starts_with(b"\x89PNG"), "a PNG");
        std::fs::write(path, png).expect("write the screenshot");
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = request(self.addr, "DELETE", &format!("/session/{}", self.session), "");
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    };
    let sextets: Vec<u8> = text.bytes().filter_map(value).collect();
    sextets
        .chunks(4)
        .flat_map(|c| {
            let n = c.iter().enumerate().fold(0u32, |n, (i, &s)| n | u32::from(s) << (18 - 6 * i));
            let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
            bytes.into_iter().take(c.len().saturating_sub(1))
        })
        .collect()
}

/// Chromium (`MENAGERIE_CHROMIUM`, else the first of `chromium`,
/// `chromium-browser`, `google-chrome` on PATH) under chromedriver; `None`
/// (the test skips) only outside CI: see [`require_tool`].
fn browser_or_skip() -> Option<Browser> {
    let chromium = match std::env::var_os("MENAGERIE_CHROMIUM").map(PathBuf::from) {
        Some(path) if path.is_file() => Ok(path),
        Some(path) => Err(format!("MENAGERIE_CHROMIUM={} is not a file", path.display())),
        None => find_tool(&["chromium", "chromium-browser", "google-chrome"])
            .ok_or_else(|| "not installed (Debian: apt-get install chromium chromium-driver)".to_string()),
    };
    let chromium = require_tool("Chromium", chromium)?;
    let driver = find_tool(&["chromedriver"])
        .ok_or_else(|| "not installed (Debian: apt-get install chromium-driver)".to_string());
    let driver = require_tool("chromedriver", driver)?;
    let started = Browser::start(&chromium, &driver).map_err(|e| format!("cannot start headless Chromium: {e}"));
    require_tool("Chromium", started)
}

#[test]
fn clockwork_capture_and_drop_by_clicking() {
    let Some(browser) = browser_or_skip() else { return };
    let server = board_of(&browser, "clockwork");
    let addr = server.addr();
    assert_eq!(browser.square("e1"), "K");
    assert_eq!(browser.square("d8"), "q");

    browser.click_move("e2", "e4", 1);
    browser.click_move("d7", "d5", 2);
    browser.click_move("e4", "d5", 3);
    // The captured black pawn went back to Black's hand as a non-capturing pawn.
    assert_eq!(browser.square("d5"), "P");
    assert_eq!(browser.square("e4"), "");
    assert_eq!(browser.hand("black"), "S1");
    assert_eq!(browser.hand("white"), "");

    browser.click_move("hand:black:S", "d6", 4);
    assert_eq!(browser.square("d6"), "s");
    assert_eq!(browser.hand("black"), "");
    let moves = browser.js("return document.getElementById('moves').textContent");
    assert_eq!(moves.as_str().map(|t| t.replace(char::is_whitespace, "")), Some("e4d5exd5S@d6".to_string()));
    let fen = ok(addr, "GET", "/api/state", "")["fen"].as_str().unwrap_or("").to_string();
    assert_eq!(fen, "rnbqkbnr/ppp1pppp/3s4/3P4/8/8/PPPP1PPP/RNBQKBNR[] w KQkq - 0 3");
    // A hand piece the side to move cannot drop is not selected.
    assert_eq!(browser.js("return document.querySelector('.held.sel') === null"), Value::Bool(true));

    // Promotion: the choice of the army, then the chosen man on the board.
    let fen = "4k3/P7/8/8/8/8/8/4K3[] w - - 0 1";
    ok(addr, "POST", "/api/new", &json!({"variant": "clockwork", "fen": fen}).to_string());
    browser.wait_for("return document.querySelector('[data-square=\"a7\"]').dataset.piece === 'P'", "the new position");
    browser.click("[data-square=\"a7\"]");
    browser
        .wait_for("return document.querySelector('[data-square=\"a8\"]').classList.contains('target')", "a8 a target");
    browser.click("[data-square=\"a8\"]");
    browser.wait_for("return document.querySelectorAll('#promotion button').length === 4", "four promotion choices");
    browser.click("#promotion button[data-uci=\"a7a8n\"]");
    browser.wait_for("return document.querySelector('[data-square=\"a8\"]').dataset.piece === 'N'", "the knight on a8");

    // Clash 5 succession: the mated king's only move is onto its joker.
    let fen = "k9/1Q8/2K7/10/10/10/10/10/10/9j b - - 0 1";
    ok(addr, "POST", "/api/new", &json!({"variant": "clash5", "fen": fen}).to_string());
    browser
        .wait_for("return document.querySelector('[data-square=\"a10\"]').classList.contains('check')", "check on a10");
    browser.click("[data-square=\"a10\"]");
    browser.wait_for(
        "return document.querySelector('[data-square=\"j1\"]').classList.contains('swap')",
        "the joker marked",
    );
    browser.click("[data-square=\"j1\"]");
    browser.wait_for("return document.querySelector('[data-square=\"j1\"]').dataset.piece === 'k'", "the king on j1");

    // Against the engine: the person's move is answered by the engine's.
    ok(addr, "POST", "/api/new", r#"{"variant":"capablanca"}"#);
    browser.wait_for("return document.querySelector('[data-square=\"j1\"]').dataset.piece === 'R'", "capablanca");
    browser.js("document.getElementById('movetime').value = '100'");
    browser.click("input[name=\"mode\"][value=\"white\"]");
    browser.click_move("e2", "e4", 1);
    browser.wait_for("return document.querySelectorAll('#moves span')[1].textContent !== ''", "the engine's reply");
    assert_eq!(ok(addr, "GET", "/api/state", "")["side"], "white");

    if let Some(dir) = std::env::var_os("MENAGERIE_SCREENSHOTS") {
        browser.click("input[name=\"mode\"][value=\"none\"]");
        screenshots(&browser, addr, Path::new(&dir));
    }
}

/// A board that wants a token (as on an address other machines reach): the
/// page opened at the printed address keeps working by clicks, and follows
/// a move a script made, through its event stream.
#[test]
fn the_page_works_with_its_token() {
    let Some(browser) = browser_or_skip() else { return };
    let token = "5e1f0a9b3c7d4e2f8a6b1c0d9e8f7a6b";
    let app = App::new(Catalogue::builtin()).expect("the shipped variants are playable");
    let server = server::start_with(std::sync::Arc::new(app), "127.0.0.1", 0, TokenRule::Fixed(token.to_string()))
        .expect("a free port");
    let addr = server.addr();
    let script = |path: &str, body: &str| {
        let headers = [
            format!("Host: {addr}"),
            "Content-Type: application/json".to_string(),
            format!("X-Menagerie-Token: {token}"),
        ];
        let (status, _, text) = request_with(addr, "POST", path, &headers, body);
        assert_eq!(status, 200, "{path} {body}: {text}");
    };
    script("/api/new", r#"{"variant":"chess"}"#);
    assert_eq!(request(addr, "GET", "/api/state", "").0, 403, "no token, no state");
    browser.open(&format!("http://{addr}/?token={token}"));
    browser.wait_for("return !!document.querySelector('[data-square=\"e2\"] svg')", "the board");
    let href = browser.js("return location.href");
    assert!(
        href.as_str().is_some_and(|h| h.starts_with(&format!("http://{addr}/?variant=chess")) && !h.contains("token")),
        "the token leaves the address bar, the game takes its place: {href}"
    );
    browser.click_move("e2", "e4", 1);
    script("/api/move", r#"{"move":"e5"}"#);
    browser
        .wait_for("return document.querySelector('[data-square=\"e5\"]').dataset.piece === 'p'", "the script's move");
    browser.click_move("g1", "f3", 3);
    assert_eq!(browser.error_line(), Value::String(String::new()));
    // A reload (the token now only in the cookie) still draws the game.
    browser.open(&format!("http://{addr}/"));
    browser.wait_for("return document.querySelectorAll('#moves span').length >= 3", "the game after a reload");
}

/// The board as a list of (square, piece) of its men, for comparing positions.
fn board_men(browser: &Browser) -> String {
    let v = browser.js(
        "return [...document.querySelectorAll('#board .sq')].filter(e => e.dataset.piece).map(e => e.dataset.square + e.dataset.piece).sort().join(' ')",
    );
    v.as_str().unwrap_or("?").to_string()
}

/// The board the page shows at each move of a game, stepped through by the
/// move list, the buttons and the arrow keys; playing from an earlier move
/// asks before it drops the rest; analysis follows the viewed move.
#[test]
fn stepping_through_a_game_and_playing_from_an_earlier_move() {
    let Some(browser) = browser_or_skip() else { return };
    let server = start_server();
    let addr = server.addr();
    let pgn = "[Variant \"clockwork\"]\n\n1. e4 d5 2. exd5 S@d6 3. Nf3 Nf6 *";
    ok(addr, "POST", "/api/pgn", &json!({ "pgn": pgn }).to_string());
    browser.open(&format!("http://{addr}/"));
    browser.wait_for("return document.querySelectorAll('#moves span[data-ply]').length === 6", "the move list");
    // What each position holds, from the server's own replay of the game.
    let mut boards = Vec::new();
    for ply in 0..=6 {
        ok(addr, "POST", "/api/view", &json!({ "ply": ply }).to_string());
        browser.wait_for(&format!("return ui.state.ply === {ply}"), &format!("move {ply} viewed"));
        boards.push(board_men(&browser));
    }
    assert_ne!(boards[0], boards[1]);
    // Back by clicking the moves of the list.
    for ply in [3, 1, 5] {
        browser.click(&format!("#moves span[data-ply=\"{ply}\"]"));
        browser.wait_for(&format!("return ui.state.ply === {ply}"), &format!("move {ply} clicked"));
        assert_eq!(board_men(&browser), boards[ply], "the board after move {ply}");
        assert_eq!(browser.js("return document.querySelector('#moves span.cur').dataset.ply"), json!(ply.to_string()));
    }
    // After 2...S@d6 the hands are empty again; after 2. exd5 Black holds the nc pawn.
    browser.click("#moves span[data-ply=\"3\"]");
    browser.wait_for("return ui.state.ply === 3", "move 3");
    assert_eq!(browser.hand("black"), "S1");
    let name = browser.js("return document.querySelector('[data-hand=\"black\"] .hname').textContent");
    assert_eq!(name, json!("nc pawn"));
    // The buttons and the keys.
    browser.click("#nav-start");
    browser.wait_for("return ui.state.ply === 0", "the start");
    assert_eq!(board_men(&browser), boards[0]);
    browser.click("#nav-next");
    browser.wait_for("return ui.state.ply === 1", "one forward");
    assert_eq!(browser.square("e4"), "P");
    browser.call(
        "POST",
        "/actions",
        &json!({"actions": [{"type": "key", "id": "k", "actions": [
        {"type": "keyDown", "value": "\u{E014}"}, {"type": "keyUp", "value": "\u{E014}"}]}]}),
    );
    browser.wait_for("return ui.state.ply === 2", "the right arrow");
    assert_eq!(board_men(&browser), boards[2]);
    browser.call(
        "POST",
        "/actions",
        &json!({"actions": [{"type": "key", "id": "k", "actions": [
        {"type": "keyDown", "value": "\u{E010}"}, {"type": "keyUp", "value": "\u{E010}"}]}]}),
    );
    browser.wait_for("return ui.state.ply === 6", "the End key");
    assert_eq!(board_men(&browser), boards[6]);

    // Analysis follows the viewed move: its line starts with a move of that position.
    browser.click("#moves span[data-ply=\"1\"]");
    browser.wait_for("return ui.state.ply === 1", "move 1");
    browser.click("#analyse");
    browser.wait_for(
        "const l = ui.lines.get(1); return !!l && ui.state.legal.some(m => m.san === l.san[0]) && ui.state.side === 'black'",
        "an analysis line from the viewed position",
    );
    browser.wait_for("return document.getElementById('eval-text').textContent !== '-'", "the evaluation bar's score");
    browser.click("#analyse");

    // Playing the game's own next move just steps forward.
    browser.click_move("d7", "d5", 6);
    browser.wait_for("return ui.state.ply === 2 && ui.state.moves.length === 6", "the game kept");
    // Another move asks first; Cancel keeps the game, agreeing drops the rest.
    browser.click("[data-square=\"g1\"]");
    browser.wait_for("return document.querySelector('[data-square=\"h3\"]').classList.contains('target')", "h3");
    browser.click("[data-square=\"h3\"]");
    browser.wait_for("return !document.getElementById('confirm').hidden", "the question");
    let question = browser.js("return document.getElementById('confirm-text').textContent");
    assert_eq!(question, json!("Playing Nh3 here drops the 4 later moves of the game."));
    browser.click("#confirm-no");
    browser.wait_for("return document.getElementById('confirm').hidden", "the question closed");
    assert_eq!(ok(addr, "GET", "/api/state", "")["moves"].as_array().map(Vec::len), Some(6));
    browser.click("[data-square=\"g1\"]");
    browser.wait_for("return document.querySelector('[data-square=\"h3\"]').classList.contains('target')", "h3");
    browser.click("[data-square=\"h3\"]");
    browser.wait_for("return !document.getElementById('confirm').hidden", "the question again");
    browser.click("#confirm-yes");
    browser.wait_for("return ui.state.moves.length === 3 && ui.state.ply === 3", "the new line");
    assert_eq!(browser.square("h3"), "N");
    let state = ok(addr, "GET", "/api/state", "");
    assert_eq!(state["moves"][2]["san"], "Nh3");
}

/// Clash 5's legend: a row per piece with its picture, name and moves in
/// words; every man on the board and in hand is named on hover.
#[test]
fn the_legend_and_the_names_on_hover() {
    let Some(browser) = browser_or_skip() else { return };
    let server = board_of(&browser, "clash5");
    let addr = server.addr();
    let variants = ok(addr, "GET", "/api/variants", "");
    let clash5 = variants.as_array().into_iter().flatten().find(|v| v["name"] == "clash5").expect("clash5").clone();
    let pieces = clash5["pieces"].as_array().map_or(0, Vec::len);
    assert_eq!(browser.js("return document.querySelectorAll('#legend tr').length"), json!(pieces));
    assert_eq!(browser.js("return document.querySelectorAll('#legend tr td.pic svg').length"), json!(pieces));
    let row = |letter: &str| {
        browser.js(&format!("return document.querySelector('#legend tr[data-piece=\"{letter}\"]').textContent"))
    };
    let joker = row("J");
    let joker = joker.as_str().unwrap_or("");
    assert!(joker.contains("joker") && joker.contains("Steps one square in any direction."), "{joker}");
    assert!(joker.contains("Succession: a king that would be checkmated"), "{joker}");
    let monk = row("O");
    assert!(monk.as_str().unwrap_or("").contains("captures by hopping over one man diagonally"), "{monk}");
    let title = |square: &str| {
        browser
            .js(&format!("return document.querySelector('[data-square=\"{square}\"]').title"))
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    assert_eq!(title("f10"), "black joker (J)");
    assert_eq!(title("d10"), "black maharaja (M)");
    assert_eq!(title("e9"), "black special pawn (S)");
    assert_eq!(title("d1"), "white chancellor (C)");
    assert_eq!(title("e5"), "");
    // Every man on the board is named.
    let unnamed = browser.js("return [...document.querySelectorAll('#board .sq')].filter(e => e.dataset.piece && !/^(white|black) .+ \\([A-Z]\\)$/.test(e.title)).length");
    assert_eq!(unnamed, json!(0));
    // Men in hand too.
    ok(
        addr,
        "POST",
        "/api/new",
        &json!({"variant": "clockwork", "fen": "4k3/8/8/8/8/8/8/4K3[Uo] w - - 0 1"}).to_string(),
    );
    browser.wait_for("return document.querySelectorAll('.held').length === 2", "the hands");
    let held = browser.js("return [...document.querySelectorAll('.held')].map(h => h.title).sort().join('; ')");
    assert_eq!(held, json!("black nc knight (O); white nc rook (U)"));
}

/// "Analyse game": the graph of the game's evaluation with its marked moves,
/// the marks in the move list, a click on the graph to jump.
#[test]
fn analyse_game_draws_the_graph() {
    let Some(browser) = browser_or_skip() else { return };
    let server = start_server();
    let addr = server.addr();
    let pgn = "1. e4 e5 2. Nf3 Nc6 3. Bc4 Qg5 4. Nxg5 *";
    ok(addr, "POST", "/api/pgn", &json!({ "pgn": pgn }).to_string());
    browser.open(&format!("http://{addr}/"));
    browser.wait_for("return document.querySelectorAll('#moves span[data-ply]').length === 7", "the game");
    assert_eq!(browser.js("return document.getElementById('graph-box').hidden"), json!(true));
    browser.js("document.getElementById('review-time').value = '300'");
    browser.click("#review");
    browser.wait_for("return !document.getElementById('graph-box').hidden", "the graph");
    assert_eq!(browser.js("return document.querySelectorAll('#graph path.eval-area').length"), json!(1));
    let blunders = browser
        .js("return [...document.querySelectorAll('#graph circle.m-blunder')].map(c => c.dataset.ply).join(' ')");
    assert_eq!(blunders, json!("6"), "the queen left en prise is the blunder");
    let listed = browser.js("return document.querySelector('#moves span[data-ply=\"6\"]').textContent");
    assert_eq!(listed, json!("Qg5??"));
    let summary = browser.js("return document.getElementById('review-summary').textContent");
    assert!(summary.as_str().is_some_and(|s| s.contains("average centipawn loss") && s.contains("1 ??")), "{summary}");
    // Each side's accuracy, as lichess computes it: the side that left its queen is the worse.
    let accuracy = |side: &str| {
        let text = summary.as_str().unwrap_or("");
        let figure = text.split(&format!("{side}: accuracy ")).nth(1).and_then(|t| t.split('%').next());
        figure.and_then(|f| f.parse::<u32>().ok()).unwrap_or_else(|| panic!("no accuracy of {side} in {text}"))
    };
    assert!(accuracy("Black") < accuracy("White") && accuracy("White") <= 100, "{summary}");
    // A click on the marked move jumps there; the bar shows the game analysis' score.
    browser.click("#graph circle.m-blunder");
    browser.wait_for("return ui.state.ply === 6", "the blunder viewed");
    assert_eq!(browser.square("g5"), "q");
    let bar = browser.js("return document.getElementById('eval-text').textContent");
    assert!(bar.as_str().is_some_and(|t| t.starts_with('+')), "White is winning after the blunder: {bar}");
    // A click elsewhere on the graph: near its start.
    let at = browser.js("const r = document.getElementById('graph').getBoundingClientRect(); return [Math.round(r.left + 3), Math.round(r.top + r.height / 2)]");
    let (x, y) = (at[0].as_i64().unwrap_or(0), at[1].as_i64().unwrap_or(0));
    browser.call(
        "POST",
        "/actions",
        &json!({"actions": [{"type": "pointer", "id": "m", "parameters": {"pointerType": "mouse"}, "actions": [
        {"type": "pointerMove", "origin": "viewport", "x": x, "y": y},
        {"type": "pointerDown", "button": 0}, {"type": "pointerUp", "button": 0}]}]}),
    );
    browser.wait_for("return ui.state.ply <= 1", "the start of the game");
}

/// A fresh server with a new game of `variant`, its board open in `browser`.
fn board_of(browser: &Browser, variant: &str) -> menagerie::gui::server::RunningServer {
    let server = start_server();
    let addr = server.addr();
    ok(addr, "POST", "/api/new", &json!({ "variant": variant }).to_string());
    browser.open(&format!("http://{addr}/"));
    browser.wait_for("return !!document.querySelector('#board .sq svg')", "the board");
    server
}

/// Drag and drop beside clicking: a man dragged to a legal square moves; one
/// dropped on a square it cannot reach goes back; a man in hand is dragged onto the board.
#[test]
fn a_man_is_dragged_and_dropped() {
    let Some(browser) = browser_or_skip() else { return };
    let server = board_of(&browser, "chess");
    let addr = server.addr();
    browser.drag("[data-square=\"e2\"]", "[data-square=\"e4\"]");
    browser.wait_for("return ui.state.moves.length === 1", "the dragged move");
    assert_eq!((browser.square("e4"), browser.square("e2")), ("P".to_string(), String::new()));
    assert_eq!(browser.js("return document.querySelectorAll('.drag-ghost').length"), json!(0));
    // A knight dropped where it cannot go stays home.
    browser.drag("[data-square=\"g8\"]", "[data-square=\"g5\"]");
    browser.wait_for("return document.querySelectorAll('.drag-ghost').length === 0", "the drop");
    thread::sleep(Duration::from_millis(300));
    assert_eq!((browser.square("g8"), browser.js("return ui.state.moves.length")), ("n".to_string(), json!(1)));
    // A man in hand dragged onto the board is dropped there.
    let fen = "4k3/8/8/8/8/8/8/4K3[U] w - - 0 1";
    ok(addr, "POST", "/api/new", &json!({"variant": "clockwork", "fen": fen}).to_string());
    browser.wait_for("return document.querySelectorAll('.held').length === 1", "the hand");
    browser.drag("[data-hand=\"white\"][data-piece=\"U\"]", "[data-square=\"d4\"]");
    browser.wait_for("return ui.state.moves.length === 1", "the drop");
    assert_eq!(browser.square("d4"), "U");
}

/// A game against the engine with clocks: the person's flag falls and
/// loses; resign and draw buttons end games too.
#[test]
fn clocks_to_a_flag_fall_and_the_end_buttons() {
    let Some(browser) = browser_or_skip() else { return };
    let server = start_server();
    let addr = server.addr();
    browser.open(&format!("http://{addr}/"));
    browser.wait_for("return !!document.querySelector('#board .sq svg')", "the board");
    browser.click("input[name=\"mode\"][value=\"white\"]");
    browser.type_into("#clock", "5+0");
    browser.click("#new");
    browser.wait_for("return !!ui.state.clock && ui.state.moves.length === 0", "the clocks");
    assert_eq!(browser.js("return document.getElementById('clock-bottom').hidden"), json!(false));
    // No clock runs before the first move.
    let bottom = "return document.getElementById('clock-bottom').textContent";
    assert_eq!(browser.js(bottom), json!("White 0:05.0"));
    thread::sleep(Duration::from_millis(700));
    assert_eq!(browser.js(bottom), json!("White 0:05.0"), "White's clock waits for the first move");
    assert!(ok(addr, "GET", "/api/state", "")["clock"]["running"].is_null());
    browser.click_move("e2", "e4", 1);
    browser.wait_for("return ui.state.moves.length === 2 && ui.state.side === 'white'", "the engine's answer");
    let state = ok(addr, "GET", "/api/state", "");
    assert_eq!(state["clock"]["running"], "white");
    assert_eq!(state["clock"]["black_ms"].as_i64(), Some(5000), "Black's first move is free: {}", state["clock"]);
    // The clock stops while the game is reviewed: an earlier position viewed.
    browser.click("#nav-prev");
    browser.wait_for("return ui.state.ply === 1 && ui.state.clock.paused && !ui.state.clock.running", "the review");
    let frozen = browser.js(bottom);
    thread::sleep(Duration::from_millis(700));
    assert_eq!(browser.js(bottom), frozen, "no time passes in review");
    browser.click("#nav-end");
    browser.wait_for("return ui.state.ply === 2 && ui.state.clock.running === 'white'", "White's clock again");
    // White does not move: the flag falls.
    browser.wait_for("return ui.state.result !== null", "the flag fall");
    let status = browser.js("return document.getElementById('status').textContent");
    assert_eq!(status, json!("0-1: White's flag fell"));
    assert_eq!(browser.js("return document.getElementById('clock-bottom').textContent"), json!("White 0:00.0"));
    let pgn = ok(addr, "GET", "/api/pgn", "")["pgn"].as_str().unwrap_or("").to_string();
    assert!(pgn.contains("[Termination \"time forfeit\"]") && pgn.contains("[TimeControl \"5\"]"), "{pgn}");
    let (status, body) = request(addr, "POST", "/api/move", r#"{"move":"d2d4"}"#);
    assert_eq!(status, 400);
    assert!(body.contains("the game is over: 0-1 (White's flag fell)"), "{body}");

    // Resign and offer a draw, both sides by hand.
    browser.click("input[name=\"mode\"][value=\"none\"]");
    browser.js("document.getElementById('clock').value = ''");
    browser.click("#new");
    browser.wait_for("return ui.state.moves.length === 0 && ui.state.result === null && !ui.state.clock", "a new game");
    browser.click("#resign");
    browser.wait_for("return ui.state.result !== null", "the resignation");
    assert_eq!(browser.js("return document.getElementById('status').textContent"), json!("0-1: White resigns"));
    browser.click("#new");
    browser.wait_for("return ui.state.result === null", "a new game");
    browser.click_move("e2", "e4", 1);
    browser.click("#draw");
    browser.wait_for("return ui.state.result !== null", "the agreed draw");
    assert_eq!(browser.js("return document.getElementById('status').textContent"), json!("1/2-1/2: Draw by agreement"));
}

/// Premoves against the engine: while it thinks, a move picked by clicks is
/// marked and played as soon as the engine has moved; one that is illegal
/// then is dropped without a word; a click on an empty square or a right
/// click cancels one (picked by dragging).
#[test]
fn premoves_against_the_engine() {
    let Some(browser) = browser_or_skip() else { return };
    let server = board_of(&browser, "chess");
    let addr = server.addr();
    // The engine thinks until told to move (*Engine move* while it thinks), so no step races its clock.
    browser.js("document.getElementById('movetime').value = '600000'");
    let move_now = || browser.click("#engine-move");
    browser.click("input[name=\"mode\"][value=\"white\"]");
    let thinking = |moves: usize| {
        browser.wait_for(&format!("return ui.engineBusy && ui.state.moves.length === {moves}"), "the engine thinking");
    };
    let answered = |moves: usize| {
        browser.wait_for(
            &format!("return !ui.engineBusy && ui.state.moves.length === {moves} && ui.state.side === 'white'"),
            &format!("{moves} moves, White to move"),
        );
    };
    let premoved = || {
        browser.js(
            "return [...document.querySelectorAll('#board .sq.premove')].map(e => e.dataset.square).sort().join(' ')",
        )
    };
    browser.click_move("e2", "e4", 1);
    thinking(1);
    browser.click("[data-square=\"d2\"]");
    browser.click("[data-square=\"d4\"]");
    assert_eq!(premoved(), json!("d2 d4"), "the premove is marked");
    move_now();
    browser.wait_for("return ui.state.moves.length === 3", "the premove played after the engine's move");
    assert_eq!(ok(addr, "GET", "/api/state", "")["moves"][2]["uci"], "d2d4");
    assert_eq!(premoved(), json!(""));

    // A knight cannot reach g5 from g1: dropped, no error, White to move.
    thinking(3);
    browser.click("[data-square=\"g1\"]");
    browser.click("[data-square=\"g5\"]");
    assert_eq!(premoved(), json!("g1 g5"));
    move_now();
    answered(4);
    thread::sleep(Duration::from_millis(300));
    assert_eq!((browser.js("return ui.state.moves.length"), premoved()), (json!(4), json!("")));
    assert_eq!(browser.error_line(), json!(""));

    // Dragged, then cancelled by a click on an empty square.
    browser.click_move("b1", "c3", 5);
    thinking(5);
    browser.drag("[data-square=\"f2\"]", "[data-square=\"f3\"]");
    assert_eq!(premoved(), json!("f2 f3"));
    thread::sleep(Duration::from_millis(350));
    browser.click("[data-square=\"e3\"]");
    assert_eq!(premoved(), json!(""), "an empty square cancels");
    move_now();
    answered(6);
    // Picked again and cancelled by a right click.
    browser.click_move("g1", "f3", 7);
    thinking(7);
    browser.click("[data-square=\"h2\"]");
    browser.click("[data-square=\"h3\"]");
    assert_eq!(premoved(), json!("h2 h3"));
    browser.drag_with("[data-square=\"a3\"]", "[data-square=\"a3\"]", 2);
    assert_eq!(premoved(), json!(""), "a right click cancels");
    move_now();
    answered(8);
    thread::sleep(Duration::from_millis(300));
    assert_eq!(browser.js("return ui.state.moves.length"), json!(8));
}

/// Drawings as on lichess: a right-button drag draws an arrow, a right click
/// a circle, the same again takes it away, a left click clears them; the
/// engine's best move is an arrow while it analyses.
#[test]
fn arrows_and_circles_on_the_board() {
    let Some(browser) = browser_or_skip() else { return };
    let server = board_of(&browser, "chess");
    let addr = server.addr();
    let shapes = || {
        browser.js("return [...document.querySelectorAll('#shapes g .user')].map(e => e.tagName + ':' + (e.dataset.square || e.dataset.from + '-' + e.dataset.to)).sort().join(' ')")
    };
    browser.drag_with("[data-square=\"e2\"]", "[data-square=\"e4\"]", 2);
    browser.wait_for("return document.querySelectorAll('#shapes line.arrow.user').length === 1", "the arrow");
    assert_eq!(shapes(), json!("line:e2-e4"));
    // The arrow runs from e2's centre towards e4's.
    let along = browser.js(
        "const l = document.querySelector('#shapes line.arrow'); const c = s => { const e = document.querySelector(`[data-square=\"${s}\"]`); return [e.offsetLeft + e.offsetWidth / 2, e.offsetTop + e.offsetHeight / 2]; }; \
         const [a, b] = [c('e2'), c('e4')]; return l.x1.baseVal.value === a[0] && l.y1.baseVal.value === a[1] && l.x2.baseVal.value === b[0] && l.y2.baseVal.value > b[1] && l.y2.baseVal.value < a[1]",
    );
    assert_eq!(along, json!(true));
    browser.drag_with("[data-square=\"d5\"]", "[data-square=\"d5\"]", 2);
    browser.drag_with("[data-square=\"g1\"]", "[data-square=\"f3\"]", 2);
    assert_eq!(shapes(), json!("circle:d5 line:e2-e4 line:g1-f3"));
    assert_eq!(ok(addr, "GET", "/api/state", "")["moves"].as_array().map(Vec::len), Some(0), "drawing moves nothing");
    browser.drag_with("[data-square=\"e2\"]", "[data-square=\"e4\"]", 2);
    assert_eq!(shapes(), json!("circle:d5 line:g1-f3"), "drawn again, taken away");
    if let Some(dir) = std::env::var_os("MENAGERIE_SCREENSHOTS") {
        browser.click("#analyse");
        browser.wait_for("return !!document.querySelector('#shapes g .best')", "the best move's arrow");
        thread::sleep(Duration::from_secs(2));
        std::fs::create_dir_all(&dir).expect("screenshot folder");
        browser.screenshot(&Path::new(&dir).join("gui-arrows.png"));
        browser.click("#analyse");
    }
    browser.click("[data-square=\"a6\"]");
    assert_eq!(shapes(), json!(""), "a left click clears them");
    // The engine's best move while it analyses.
    browser.click("#analyse");
    // Read in one go: each new line of the analysis redraws it.
    browser.wait_for(
        "const l = document.querySelector('#shapes line.arrow.best'); return !!l && ui.lines.get(1).pv[0].startsWith(l.dataset.from + l.dataset.to)",
        "the best move's arrow on the analysis' first move",
    );
    browser.click("#analyse");
    browser.wait_for("return !document.querySelector('#shapes g .best')", "the arrow gone with the analysis");
}

/// The game lives in the page's address: a reload finds the same game at the
/// same move (and the mute switch as it was), and the link opens it in a
/// fresh browser on a fresh board; `?fen=` opens a position. Moves and
/// captures sound as such.
#[test]
fn the_game_lives_in_the_address() {
    let Some(browser) = browser_or_skip() else { return };
    let _server = board_of(&browser, "clockwork");
    browser.click_move("e2", "e4", 1);
    browser.click_move("d7", "d5", 2);
    browser.click_move("e4", "d5", 3);
    assert_eq!(browser.js("return sounds.last"), json!("capture"), "a capture sounds as one");
    browser.click_move("hand:black:S", "d6", 4);
    assert_eq!(browser.js("return sounds.last"), json!("move"));
    // The mute switch is remembered over the reload below.
    browser.click("#mute");
    browser.click("#nav-prev");
    browser.wait_for("return ui.state.ply === 3", "move 3 viewed");
    let link = browser.js("return location.pathname + location.search");
    let link = link.as_str().unwrap_or("").to_string();
    assert_eq!(link, "/?variant=clockwork&moves=e2e4,d7d5,e4d5,S@d6&ply=3");
    let board = board_men(&browser);
    browser.call("POST", "/refresh", &json!({}));
    browser.wait_for("return ui.state && ui.state.moves.length === 4 && ui.state.ply === 3", "the game after a reload");
    assert_eq!(board_men(&browser), board);
    assert_eq!(browser.hand("black"), "S1");
    assert_eq!(browser.js("return document.getElementById('mute').checked && sounds.muted"), json!(true));

    // A fresh browser on a fresh board opens the same game from the link.
    drop(browser);
    let Some(fresh) = browser_or_skip() else { return };
    let other = start_server();
    let elsewhere = other.addr();
    fresh.open(&format!("http://{elsewhere}{link}"));
    fresh.wait_for("return ui.state && ui.state.moves.length === 4 && ui.state.ply === 3", "the linked game");
    assert_eq!(board_men(&fresh), board);
    let state = ok(elsewhere, "GET", "/api/state", "");
    let moves: Vec<&str> = state["moves"].as_array().into_iter().flatten().filter_map(|m| m["san"].as_str()).collect();
    assert_eq!((state["variant"].as_str(), moves), (Some("clockwork"), vec!["e4", "d5", "exd5", "S@d6"]));
    assert_eq!(fresh.error_line(), json!(""));

    // A position by its FEN alone, in the variant named.
    let fen = "4k3/8/8/8/8/8/8/4K3[U] w - - 0 1";
    let query = fen.replace(' ', "%20").replace('[', "%5B").replace(']', "%5D");
    fresh.open(&format!("http://{elsewhere}/?variant=clockwork&fen={query}"));
    fresh.wait_for(
        "return ui.state && ui.state.moves.length === 0 && document.querySelectorAll('.held').length === 1",
        "the FEN's position",
    );
    assert_eq!(ok(elsewhere, "GET", "/api/state", "")["fen"], fen);
    let link = fresh
        .js("const p = new URLSearchParams(location.search); return [p.get('variant'), p.get('fen'), p.has('moves')]");
    assert_eq!(link, json!(["clockwork", fen, false]));
}

/// The README's pictures.
fn screenshots(browser: &Browser, addr: SocketAddr, dir: &Path) {
    std::fs::create_dir_all(dir).expect("screenshot folder");
    // Clockwork: both hands full after a run of exchanges, the last move marked.
    let pgn = "[Variant \"clockwork\"]\n\n1. e4 e5 2. Nf3 Nc6 3. d4 exd4 4. Nxd4 Nxd4 5. Qxd4 Qf6 6. Qxf6 Nxf6 \
               7. Bc4 Bc5 8. Bxf7+ Kxf7 9. O-O Bxf2+ 10. Rxf2 *";
    ok(addr, "POST", "/api/pgn", &json!({ "pgn": pgn }).to_string());
    browser.open(&format!("http://{addr}/"));
    browser.wait_for("return document.querySelectorAll('.held').length >= 6", "full hands");
    browser.screenshot(&dir.join("gui-clockwork.png"));

    // Clash 5 on its 10x10 board, under analysis with three lines.
    ok(addr, "POST", "/api/new", r#"{"variant":"clash5"}"#);
    for _ in 0..4 {
        ok(addr, "POST", "/api/go", r#"{"depth":4,"play":true}"#);
    }
    browser.open(&format!("http://{addr}/"));
    browser.wait_for("return !!document.querySelector('[data-square=\"j10\"]')", "the 10x10 board");
    browser.js("document.getElementById('multipv').value = '3'");
    browser.click("#analyse");
    browser.wait_for("return document.querySelectorAll('#lines tbody tr').length === 3", "three analysis lines");
    thread::sleep(Duration::from_secs(3));
    browser.screenshot(&dir.join("gui-clash5.png"));
    ok(addr, "POST", "/api/stop", "");

    // Clash 5 with its legend, a few moves in (a taller window to show it whole).
    ok(addr, "POST", "/api/new", r#"{"variant":"clash5"}"#);
    for _ in 0..4 {
        ok(addr, "POST", "/api/go", r#"{"depth":3,"play":true}"#);
    }
    browser.call("POST", "/window/rect", &json!({"width": 1240, "height": 1500}));
    browser.open(&format!("http://{addr}/"));
    browser.wait_for("return document.querySelectorAll('#legend tr').length > 10", "the legend");
    browser.screenshot(&dir.join("gui-clash5-legend.png"));
    browser.call("POST", "/window/rect", &json!({"width": 1240, "height": 900}));

    // An analysed game: the graph with its marks, viewing the first blunder.
    let game = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/analysis/clash1-40.pgn"))
        .expect("the Clash 1 fixture");
    ok(addr, "POST", "/api/pgn", &json!({ "pgn": game }).to_string());
    browser.call("POST", "/window/rect", &json!({"width": 1240, "height": 1250}));
    browser.open(&format!("http://{addr}/"));
    browser.wait_for("return document.querySelectorAll('#moves span[data-ply]').length === 80", "the game");
    browser.js("document.getElementById('review-time').value = '100'");
    browser.click("#review");
    let deadline = Instant::now() + Duration::from_secs(120);
    while browser.js("return !document.getElementById('graph-box').hidden") != Value::Bool(true) {
        assert!(Instant::now() < deadline, "no analysis graph within 120 s: the review hangs");
        thread::sleep(Duration::from_millis(200));
    }
    if browser.js("return !!document.querySelector('#graph circle.m-blunder, #graph circle.m-mistake')")
        == Value::Bool(true)
    {
        browser.click("#graph circle.m-blunder, #graph circle.m-mistake");
    }
    thread::sleep(Duration::from_millis(500));
    browser.screenshot(&dir.join("gui-analysis.png"));
    browser.call("POST", "/window/rect", &json!({"width": 1240, "height": 900}));

    // Relocation: Black's king chosen, its swaps marked on the board.
    ok(addr, "POST", "/api/new", r#"{"variant":"relocation"}"#);
    browser.open(&format!("http://{addr}/"));
    browser.wait_for("return !document.getElementById('setup-bar').hidden", "the swap phase");
    browser.click("[data-square=\"f8\"]");
    browser.wait_for("return document.querySelectorAll('.sq.target').length > 0", "swap targets");
    browser.screenshot(&dir.join("gui-relocation.png"));

    // A phone's width: Clockwork with full hands at 400 px.
    ok(addr, "POST", "/api/pgn", &json!({ "pgn": pgn }).to_string());
    browser.call("POST", "/window/rect", &json!({"width": 400, "height": 900}));
    browser.open(&format!("http://{addr}/"));
    browser.wait_for("return document.querySelectorAll('.held').length >= 6", "full hands");
    browser.wait_for("return window.scrollY === 0", "the page's top");
    browser.screenshot(&dir.join("gui-narrow.png"));
    browser.call("POST", "/window/rect", &json!({"width": 1240, "height": 900}));
    println!("screenshots written to {}", dir.display());
}

/// One square the page marked as a target after a click.
struct Target {
    square: String,
    piece: String,
    swap: bool,
}

/// A move the person can make: what to click first (a square, or a man in
/// the hand) and the target to click then.
struct Choice {
    from: String,
    to: Target,
    king: bool,
}

/// What one whole game by clicking did.
#[derive(Default)]
struct Tally {
    plies: usize,
    ending: String,
    captures: usize,
    returned_to_hand: usize,
    drops: usize,
    swaps: usize,
    successions: usize,
    successions_offered: usize,
    promotions: usize,
    page_errors: Vec<String>,
}

/// The person's choices come from a fixed-seed generator, so a run repeats
/// its clicks (the engine's replies, timed, may still differ).
struct Picker(u64);

impl Picker {
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        &items[(self.0 >> 33) as usize % items.len()]
    }
}

/// The person plays White against the engine in this many plies at most.
const PLY_CAP: usize = 150;

impl Browser {
    /// Types `text` into the input `css` selects, as a keyboard would.
    fn type_into(&self, css: &str, text: &str) {
        let found = self.call("POST", "/element", &json!({"using": "css selector", "value": css}));
        let id = found.as_object().and_then(|o| o.values().next()).and_then(Value::as_str).expect("element id");
        self.call("POST", &format!("/element/{id}/clear"), &json!({}));
        self.call("POST", &format!("/element/{id}/value"), &json!({ "text": text }));
    }

    fn targets(&self) -> Vec<Target> {
        let v = self.js(
            "return [...document.querySelectorAll('#board .sq.target')].map(e => [e.dataset.square, e.dataset.piece, e.classList.contains('swap')])",
        );
        v.as_array()
            .into_iter()
            .flatten()
            .map(|t| Target {
                square: t[0].as_str().unwrap_or("").to_string(),
                piece: t[1].as_str().unwrap_or("").to_string(),
                swap: t[2].as_bool().unwrap_or(false),
            })
            .collect()
    }

    /// Clicks every white man on the board and in the hand and collects the
    /// targets the page marks for each.
    fn white_choices(&self) -> Vec<Choice> {
        let own = self.js(
            "return [...document.querySelectorAll('#board .sq')].filter(e => /^[A-Z]$/.test(e.dataset.piece)).map(e => e.dataset.square + ':' + e.dataset.piece)",
        );
        let hand = self.js("return [...document.querySelectorAll('[data-hand=\"white\"]')].map(e => e.dataset.piece)");
        let mut choices = Vec::new();
        for entry in own.as_array().into_iter().flatten().filter_map(Value::as_str) {
            let (square, piece) = entry.split_once(':').unwrap_or((entry, ""));
            self.click(&format!("#board [data-square=\"{square}\"]"));
            for to in self.targets() {
                choices.push(Choice { from: square.to_string(), to, king: piece == "K" });
            }
        }
        for piece in hand.as_array().into_iter().flatten().filter_map(Value::as_str) {
            self.click(&format!("[data-hand=\"white\"][data-piece=\"{piece}\"]"));
            for to in self.targets() {
                choices.push(Choice { from: format!("hand:{piece}"), to, king: false });
            }
        }
        self.deselect();
        choices
    }

    /// Clicks the selected man again, which the page takes as "no selection".
    fn deselect(&self) {
        if self.js("return document.querySelector('#board .sq.sel, .held.sel') !== null") == Value::Bool(true) {
            self.click("#board .sq.sel, .held.sel");
        }
    }

    fn page(&self, expr: &str) -> Value {
        self.js(&format!("return {expr}"))
    }

    /// Plays the person's move by clicks and waits for the engine's answer
    /// (or the end of the game; after Relocation's setup White moves again).
    fn play_white(&self, choice: &Choice, tally: &mut Tally) {
        let before = self.page("ui.state.moves.length").as_u64().unwrap_or(0);
        match choice.from.strip_prefix("hand:") {
            Some(piece) => self.click(&format!("[data-hand=\"white\"][data-piece=\"{piece}\"]")),
            None => self.click(&format!("#board [data-square=\"{}\"]", choice.from)),
        }
        let to = &choice.to.square;
        self.wait_for(
            &format!("return document.querySelector('[data-square=\"{to}\"]').classList.contains('target')"),
            &format!("{to} marked after clicking {}", choice.from),
        );
        self.click(&format!("#board [data-square=\"{to}\"]"));
        if self.js("return !document.getElementById('promotion').hidden") == Value::Bool(true) {
            self.click("#promotion button");
            tally.promotions += 1;
        }
        self.wait_for(
            &format!(
                "return ui.state.result !== null || (ui.state.moves.length > {before} && ui.state.side === 'white' && !ui.engineBusy)"
            ),
            "the engine's answer",
        );
    }
}

/// Plays White by clicks against the page's own engine mode until the game
/// ends or [`PLY_CAP`]; the API is read only to check what the page did.
fn play_out(browser: &Browser, addr: SocketAddr, picker: &mut Picker, tally: &mut Tally) {
    let api_state = || ok(addr, "GET", "/api/state", "");
    let hand_total = |state: &Value, color: &str| -> u64 {
        state["hands"][color].as_array().into_iter().flatten().filter_map(|h| h["count"].as_u64()).sum()
    };
    loop {
        browser.wait_for(
            "return ui.state.result !== null || (ui.state.side === 'white' && !ui.engineBusy)",
            "White's turn",
        );
        let state = api_state();
        tally.plies = state["moves"].as_array().map_or(0, Vec::len);
        if let Some(result) = state["result"].as_object() {
            tally.ending =
                format!("{} {}", result["result"].as_str().unwrap_or("?"), result["reason"].as_str().unwrap_or("?"));
            break;
        }
        if tally.plies >= PLY_CAP {
            tally.ending = format!("move cap ({PLY_CAP} plies) reached");
            break;
        }
        let choices = browser.white_choices();
        assert!(!choices.is_empty(), "the page marks no move for White in {}", state["fen"]);
        let enemy = |c: &&Choice| c.to.piece.chars().next().is_some_and(|p| p.is_ascii_lowercase());
        let captures: Vec<&Choice> = choices.iter().filter(|c| !c.to.swap && enemy(c)).collect();
        let drops: Vec<&Choice> = choices.iter().filter(|c| c.from.starts_with("hand:")).collect();
        let setup = state["setup"].as_bool().unwrap_or(false);
        let swaps: Vec<&Choice> = choices.iter().filter(|c| c.to.swap && (setup || c.to.piece == "J")).collect();
        let all: Vec<&Choice> = choices.iter().collect();
        let successions = choices.iter().filter(|c| c.king && c.to.piece == "J").count();
        tally.successions_offered += usize::from(successions > 0);
        // A swap (setup or succession) when offered, else a capture, else a
        // drop, else any marked move.
        let pool = [&swaps, &captures, &drops, &all].into_iter().find(|p| !p.is_empty()).expect("some move");
        let choice = *picker.pick(pool);
        let black_hand = hand_total(&state, "black");
        browser.play_white(choice, tally);
        let after = api_state();
        let moves = after["moves"].as_array().cloned().unwrap_or_default();
        let mine = moves.get(tally.plies).map(|m| m["uci"].as_str().unwrap_or("").to_string()).unwrap_or_default();
        assert!(
            mine.contains(choice.to.square.as_str()),
            "clicked {} then {}, played {mine}",
            choice.from,
            choice.to.square
        );
        if choice.from.starts_with("hand:") {
            assert!(mine.contains('@'), "a drop was played: {mine}");
            tally.drops += 1;
        } else if choice.to.swap && choice.to.piece == "J" {
            tally.successions += 1;
        } else if choice.to.swap && setup {
            tally.swaps += 1;
        } else if enemy(&choice) {
            tally.captures += 1;
            // Clockwork: the man taken goes back to Black's hand, which
            // the engine's answer may have emptied by one drop.
            let engine_dropped =
                moves.get(tally.plies + 1).is_some_and(|m| m["uci"].as_str().is_some_and(|u| u.contains('@')));
            if hand_total(&after, "black") + u64::from(engine_dropped) == black_hand + 1 {
                tally.returned_to_hand += 1;
            }
        }
        let error = browser.error_line();
        if error.as_str().is_some_and(|e| !e.is_empty()) {
            tally.page_errors.push(error.to_string());
        }
    }
    let thrown = browser.js("const e = window.__errors || []; window.__errors = []; return e");
    tally.page_errors.extend(thrown.as_array().into_iter().flatten().map(Value::to_string));
}

/// Starts a new game of `variant` by choosing it in the page's list (or
/// pressing *New game* when it is already chosen).
fn choose_variant(browser: &Browser, variant: &str) {
    let version = browser.page("ui.state.version").as_u64().unwrap_or(0);
    if browser.page("document.getElementById('variant').value").as_str() == Some(variant) {
        browser.click("#new");
    } else {
        browser.click("#variant");
        browser.click(&format!("#variant option[value=\"{variant}\"]"));
    }
    browser.wait_for(
        &format!("return ui.state.variant === '{variant}' && ui.state.version > {version}"),
        &format!("a new {variant} game"),
    );
}

fn report(variant: &str, tally: &Tally) {
    println!(
        "{variant}: {} plies, {}; by clicks: {} captures{}, {} drops, {} setup swaps, {} successions ({} offered), {} promotions; page errors: {}",
        tally.plies,
        tally.ending,
        tally.captures,
        if tally.drops + tally.returned_to_hand > 0 { format!(" ({} back in Black's hand)", tally.returned_to_hand) } else { String::new() },
        tally.drops,
        tally.swaps,
        tally.successions,
        tally.successions_offered,
        tally.promotions,
        if tally.page_errors.is_empty() { "none".to_string() } else { tally.page_errors.join("; ") }
    );
}

/// Issue #16's last check: a whole game against the engine in Clockwork,
/// Relocation and Clash 5 by clicks only (the person plays White, picking a
/// setup swap or succession when offered, else a capture, else a drop, else
/// any marked move). Slow (minutes), so run it on request:
/// `cargo test --release --test gui_browser -- --ignored --nocapture`
/// (`MENAGERIE_GUI_SEED` changes the person's choices).
#[test]
#[ignore]
fn whole_games_against_the_engine_by_clicking() {
    let Some(browser) = browser_or_skip() else { return };
    let server = start_server();
    let addr = server.addr();
    browser.open(&format!("http://{addr}/"));
    browser.wait_for("return !!document.querySelector('#board .sq svg')", "the board");
    browser.js("window.__errors = []; \
         window.addEventListener('error', e => window.__errors.push(String(e.message))); \
         window.addEventListener('unhandledrejection', e => window.__errors.push(String(e.reason)));");
    browser.click("input[name=\"mode\"][value=\"white\"]");
    browser.type_into("#movetime", "100");
    let seed = std::env::var("MENAGERIE_GUI_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut picker = Picker(seed);

    let mut failures = Vec::new();
    for variant in ["clockwork", "relocation", "clash5"] {
        choose_variant(&browser, variant);
        let mut tally = Tally::default();
        play_out(&browser, addr, &mut picker, &mut tally);
        report(variant, &tally);
        match variant {
            "clockwork" if tally.returned_to_hand == 0 || tally.drops == 0 => {
                failures.push("clockwork: no capture back in hand or no drop by clicks")
            }
            "relocation" if tally.swaps == 0 => failures.push("relocation: no setup swap by clicks"),
            _ => {}
        }
        if !tally.page_errors.is_empty() {
            failures.push("page errors (above)");
        }
        if variant == "clash5" && tally.successions == 0 {
            // Random play seldom leaves White mated with a safe joker: start
            // from such a position through the page's FEN box.
            let fen = "9J/10/10/10/10/10/10/2k7/1q8/K9 w - - 0 1";
            browser.type_into("#fen", fen);
            let version = browser.page("ui.state.version").as_u64().unwrap_or(0);
            browser.click("#set-fen");
            browser
                .wait_for(&format!("return ui.state.version > {version} && ui.state.check === 'a1'"), "the FEN's game");
            let mut tally = Tally::default();
            play_out(&browser, addr, &mut picker, &mut tally);
            let first = ok(addr, "GET", "/api/pgn", "")["pgn"].as_str().unwrap_or("").to_string();
            report("clash5 from a mated king with a joker", &tally);
            assert!(first.contains("a1j10"), "the succession is the game's first move: {first}");
            if tally.successions == 0 {
                failures.push("clash5: no succession by clicks");
            }
        }
    }
    assert!(failures.is_empty(), "{failures:?}");
}
