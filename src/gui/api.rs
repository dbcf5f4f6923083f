//! The JSON API the page uses (and scripts may): one function per endpoint
//! over the shared [`Session`], with bodies checked field by field. A refusal
//! is a 400 with a one-line message and leaves the game as it was. Knows
//! nothing of sockets: [`handle`] takes the method, path and body text.

use std::ops::RangeInclusive;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::hub::Hub;
use super::session::{refuse, ApiError, Session, MAX_ANALYSIS_LINES};
use crate::catalogue::Catalogue;
use crate::search::Limits;

/// Longest engine move search a request may ask for, in milliseconds.
pub const MAX_MOVETIME_MS: u64 = 600_000;
/// Deepest engine move search a request may ask for.
pub const MAX_DEPTH: u64 = 64;
/// How long a move search without a time limit may run before it is stopped.
const UNTIMED_WAIT: Duration = Duration::from_secs(600);

/// The server's shared state: the game and the event streams.
pub struct App {
    session: Mutex<Session>,
    /// Where searches and changes are announced.
    pub hub: Arc<Hub>,
}

impl App {
    /// An app over `catalogue`; None when no variant has a valid start position.
    pub fn new(catalogue: Catalogue) -> Option<App> {
        let hub = Arc::new(Hub::default());
        let session = Session::new(catalogue, Arc::clone(&hub))?;
        Some(App { session: Mutex::new(session), hub })
    }

    fn session(&self) -> MutexGuard<'_, Session> {
        // A handler never panics on input; if one did, the game it left is
        // still a consistent game (every change is made after its checks).
        self.session.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// An HTTP answer: status, content type and body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// HTTP status code.
    pub status: u16,
    /// `Content-Type`.
    pub content_type: &'static str,
    /// Body text.
    pub body: String,
}

impl Reply {
    /// A 200 with a JSON body.
    pub fn json(value: &Value) -> Reply {
        Reply { status: 200, content_type: "application/json", body: value.to_string() }
    }
    /// An error with a one-line JSON message.
    pub fn error(status: u16, message: &str) -> Reply {
        let line = message.replace(['\n', '\r'], " ");
        Reply { status, content_type: "application/json", body: json!({ "error": line }).to_string() }
    }
}

/// Answers one API request (`path` without the query string).
pub fn handle(app: &App, method: &str, path: &str, body: &str) -> Reply {
    let answer = match (method, path) {
        ("GET", "/api/variants") => Ok(app.session().variants_json()),
        ("GET", "/api/state") => Ok(app.session().state_json()),
        ("GET", "/api/pgn") => Ok(json!({ "pgn": app.session().pgn() })),
        ("POST", "/api/new") => new_game(app, body),
        ("POST", "/api/move") => play(app, body),
        ("POST", "/api/undo") => undo(app, body),
        ("POST", "/api/go") => go(app, body),
        ("POST", "/api/analyse") => analyse(app, body),
        ("POST", "/api/stop") => fields(body, &[]).map(|_| {
            app.session().stop();
            app.session().state_json()
        }),
        ("POST", "/api/pgn") => import_pgn(app, body),
        (_, "/api/variants" | "/api/state" | "/api/pgn" | "/api/new" | "/api/move" | "/api/undo" | "/api/go")
        | (_, "/api/analyse" | "/api/stop" | "/api/events") => {
            return Reply::error(405, &format!("{method} is not allowed on {path}"));
        }
        _ => return Reply::error(404, &format!("no such endpoint {path}")),
    };
    match answer {
        Ok(value) => Reply::json(&value),
        Err(e) => Reply::error(400, &e.0),
    }
}

fn new_game(app: &App, body: &str) -> Result<Value, ApiError> {
    let f = fields(body, &["variant", "fen", "white", "black"])?;
    let variant = text(&f, "variant")?.ok_or_else(|| ApiError("missing field \"variant\"".into()))?;
    let names = [text(&f, "white")?, text(&f, "black")?];
    let mut session = app.session();
    session.new_game(variant, text(&f, "fen")?, names)?;
    Ok(session.state_json())
}

fn play(app: &App, body: &str) -> Result<Value, ApiError> {
    let f = fields(body, &["move"])?;
    let mv = text(&f, "move")?.ok_or_else(|| ApiError("missing field \"move\"".into()))?;
    let mut session = app.session();
    session.play(mv)?;
    Ok(session.state_json())
}

fn undo(app: &App, body: &str) -> Result<Value, ApiError> {
    let f = fields(body, &["plies"])?;
    let plies = number(&f, "plies", 1..=10_000)?.unwrap_or(1);
    let mut session = app.session();
    session.undo(plies as usize)?;
    Ok(session.state_json())
}

/// The engine's move: searches with the given limits (1 s when none), waits
/// without holding the game, then answers (and plays, with `"play": true`).
fn go(app: &App, body: &str) -> Result<Value, ApiError> {
    let f = fields(body, &["movetime", "depth", "nodes", "play"])?;
    let movetime = number(&f, "movetime", 1..=MAX_MOVETIME_MS)?;
    let depth = number(&f, "depth", 1..=MAX_DEPTH)?;
    let nodes = number(&f, "nodes", 1..=u64::MAX >> 1)?;
    let play = match f.get("play") {
        None => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return refuse("field \"play\" must be true or false"),
    };
    let movetime = match (movetime, depth, nodes) {
        (None, None, None) => Some(1000),
        (t, _, _) => t,
    };
    let limits = Limits { movetime, depth: depth.map(|d| d as u32), nodes, ..Limits::default() };
    let wait = movetime.map_or(UNTIMED_WAIT, |t| Duration::from_millis(t) + Duration::from_secs(10));
    let (tx, rx) = mpsc::channel();
    let version = app.session().start_move_search(limits, tx)?;
    let answer = match rx.recv_timeout(wait) {
        Ok(a) => a,
        Err(_) => {
            app.session().abandon_move_search(version);
            return refuse("the search did not finish in time");
        }
    };
    let mut session = app.session();
    let mut reply = session.finish_move_search(version, &answer, play)?;
    reply["state"] = session.state_json();
    Ok(reply)
}

fn analyse(app: &App, body: &str) -> Result<Value, ApiError> {
    let f = fields(body, &["multipv"])?;
    let lines = number(&f, "multipv", 1..=MAX_ANALYSIS_LINES as u64)?.unwrap_or(1);
    let mut session = app.session();
    session.analyse(lines as usize)?;
    Ok(session.state_json())
}

fn import_pgn(app: &App, body: &str) -> Result<Value, ApiError> {
    let f = fields(body, &["pgn"])?;
    let pgn = text(&f, "pgn")?.ok_or_else(|| ApiError("missing field \"pgn\"".into()))?;
    let mut session = app.session();
    session.import_pgn(pgn)?;
    Ok(session.state_json())
}

/// The body's fields: a JSON object (an empty body is `{}`) with only `allowed` keys.
fn fields(body: &str, allowed: &[&str]) -> Result<Map<String, Value>, ApiError> {
    if body.trim().is_empty() {
        return Ok(Map::new());
    }
    let value: Value = serde_json::from_str(body).map_err(|e| ApiError(format!("bad JSON: {e}")))?;
    let Value::Object(map) = value else {
        return refuse("the body must be a JSON object");
    };
    if let Some(key) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return refuse(format!("unknown field {key:?}"));
    }
    Ok(map)
}

fn text<'a>(f: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, ApiError> {
    match f.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => refuse(format!("field {key:?} must be a string")),
    }
}

fn number(f: &Map<String, Value>, key: &str, range: RangeInclusive<u64>) -> Result<Option<u64>, ApiError> {
    match f.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64().filter(|n| range.contains(n)) {
            Some(n) => Ok(Some(n)),
            None => refuse(format!("field {key:?} must be a whole number from {} to {}", range.start(), range.end())),
        },
    }
}
