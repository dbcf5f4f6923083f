//! The JSON API the page uses (and scripts may): one function per endpoint
//! over the shared [`Session`], with bodies checked field by field. A refusal
//! is a 400 with a one-line message and leaves the game as it was. Knows
//! nothing of sockets: [`handle`] takes the method, path and body text.

use std::ops::RangeInclusive;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::hub::Hub;
use super::session::{refuse, ApiError, Session, MAX_ANALYSIS_LINES};
use crate::engine::analysis::{analyse_game, InProcess, Searcher};
use crate::eval::catalogue::Catalogue;
use crate::game::analysis::{analysis_json, Thresholds};
use crate::game::tc::TimeControl;
use crate::rules::piece::Color;
use crate::search::Limits;

/// Longest engine move search a request may ask for, in milliseconds.
pub const MAX_MOVETIME_MS: u64 = 600_000;
/// Deepest engine move search a request may ask for.
pub const MAX_DEPTH: u64 = 64;
/// How long a move search without a time limit may run before it is stopped.
const UNTIMED_WAIT: Duration = Duration::from_secs(600);
/// How long the engine thinks over a draw offer, in milliseconds.
const DRAW_THINK_MS: u64 = 300;
/// The engine accepts a draw when its own score is at most this (centipawns).
pub const DRAW_ACCEPT_CP: i32 = 0;
/// "Analyse game": milliseconds per position when the request names no limit.
const GAME_ANALYSIS_DEFAULT_MS: u64 = 200;

/// The server's shared state: the game and the event streams.
pub struct App {
    session: Mutex<Session>,
    /// Where searches and changes are announced.
    pub hub: Arc<Hub>,
    /// True while a game analysis runs (one at a time).
    analysing_game: AtomicBool,
}

impl App {
    /// An app over `catalogue`; None when no variant has a valid start position.
    pub fn new(catalogue: Catalogue) -> Option<App> {
        let hub = Arc::new(Hub::default());
        let session = Session::new(catalogue, Arc::clone(&hub))?;
        Some(App { session: Mutex::new(session), hub, analysing_game: AtomicBool::new(false) })
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
        ("POST", "/api/view") => view(app, body),
        ("POST", "/api/resign") => resign(app, body),
        ("POST", "/api/draw") => draw(app, body),
        ("POST", "/api/flag") => fields(body, &[]).map(|_| app.session().state_json()),
        ("POST", "/api/review") => analyse_game_request(app, body),
        (_, "/api/variants" | "/api/state" | "/api/pgn" | "/api/new" | "/api/move" | "/api/undo" | "/api/go")
        | (_, "/api/analyse" | "/api/stop" | "/api/events" | "/api/view" | "/api/resign" | "/api/draw")
        | (_, "/api/flag" | "/api/review") => {
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
    let f = fields(body, &["variant", "fen", "white", "black", "clock"])?;
    let variant = text(&f, "variant")?.ok_or_else(|| ApiError("missing field \"variant\"".into()))?;
    let names = [text(&f, "white")?, text(&f, "black")?];
    let clock = match text(&f, "clock")?.map(str::trim).filter(|t| !t.is_empty()) {
        None => None,
        Some(t) => Some(t.parse::<TimeControl>().map_err(|e| ApiError(format!("field \"clock\": {e}")))?),
    };
    let mut session = app.session();
    session.new_game(variant, text(&f, "fen")?, names, clock)?;
    Ok(session.state_json())
}

fn play(app: &App, body: &str) -> Result<Value, ApiError> {
    let f = fields(body, &["move", "truncate"])?;
    let mv = text(&f, "move")?.ok_or_else(|| ApiError("missing field \"move\"".into()))?;
    let truncate = flag(&f, "truncate")?;
    let mut session = app.session();
    session.play(mv, truncate)?;
    Ok(session.state_json())
}

fn view(app: &App, body: &str) -> Result<Value, ApiError> {
    let f = fields(body, &["ply"])?;
    let ply = number(&f, "ply", 0..=100_000)?.ok_or_else(|| ApiError("missing field \"ply\"".into()))?;
    let mut session = app.session();
    session.view(ply as usize)?;
    Ok(session.state_json())
}

fn side(f: &Map<String, Value>, key: &str) -> Result<Color, ApiError> {
    match text(f, key)? {
        Some("white") => Ok(Color::White),
        Some("black") => Ok(Color::Black),
        Some(_) => refuse(format!("field {key:?} must be \"white\" or \"black\"")),
        None => refuse(format!("missing field {key:?}")),
    }
}

fn resign(app: &App, body: &str) -> Result<Value, ApiError> {
    let f = fields(body, &["side"])?;
    let side = side(&f, "side")?;
    let mut session = app.session();
    session.resign(side)?;
    Ok(session.state_json())
}

/// A draw offer by `by`: agreed at once between people; with `"engine":
/// true` the engine (the other side) thinks briefly and accepts when its
/// own score is at most [`DRAW_ACCEPT_CP`].
fn draw(app: &App, body: &str) -> Result<Value, ApiError> {
    let f = fields(body, &["by", "engine"])?;
    let by = side(&f, "by")?;
    if !flag(&f, "engine")? {
        let mut session = app.session();
        session.agree_draw()?;
        return Ok(json!({ "accepted": true, "state": session.state_json() }));
    }
    let (catalogue, pos, version) = app.session().position_for_draw()?;
    let limits = Limits { movetime: Some(DRAW_THINK_MS), ..Limits::default() };
    let mut engine = InProcess::new(catalogue, &[], limits)?;
    engine.new_game(pos.variant())?;
    let probe = engine.search(&pos, &pos.to_fen(), &[])?;
    let mover_cp = match (probe.mate, probe.cp) {
        (Some(m), _) => {
            if m > 0 {
                30_000
            } else {
                -30_000
            }
        }
        (None, cp) => cp.unwrap_or(0),
    };
    let engine_cp = if pos.side_to_move() == by { -mover_cp } else { mover_cp };
    let accepted = engine_cp <= DRAW_ACCEPT_CP;
    let mut session = app.session();
    if session.version() != version {
        return refuse("the game changed while the engine thought about the offer");
    }
    if accepted {
        session.agree_draw()?;
    }
    Ok(json!({ "accepted": accepted, "engine_cp": engine_cp, "state": session.state_json() }))
}

/// "Analyse game": every position of the game searched to the limit (200 ms
/// each when none is given) and every move analysed, as `menagerie analyse
/// --pgn` does; progress goes to the event streams as `review` events.
fn analyse_game_request(app: &App, body: &str) -> Result<Value, ApiError> {
    let f = fields(body, &["movetime", "depth", "nodes"])?;
    let movetime = number(&f, "movetime", 1..=MAX_MOVETIME_MS)?;
    let depth = number(&f, "depth", 1..=MAX_DEPTH)?.map(|d| d as u32);
    let nodes = number(&f, "nodes", 1..=u64::MAX >> 1)?;
    let movetime = if movetime.is_none() && depth.is_none() && nodes.is_none() {
        Some(GAME_ANALYSIS_DEFAULT_MS)
    } else {
        movetime
    };
    let limits = Limits { movetime, depth, nodes, ..Limits::default() };
    let (catalogue, game, version) = app.session().game_for_analysis()?;
    if app.analysing_game.swap(true, Ordering::SeqCst) {
        return refuse("a game analysis is already running");
    }
    let hub = Arc::clone(&app.hub);
    let analysis = InProcess::new(catalogue, &[], limits).and_then(|mut engine| {
        analyse_game(&mut engine, &game, &Thresholds::LICHESS, &mut |done, total| {
            hub.broadcast("review", &json!({ "version": version, "done": done, "total": total }));
        })
    });
    app.analysing_game.store(false, Ordering::SeqCst);
    app.session().review_finished();
    let mut value = analysis_json(&analysis.map_err(ApiError)?);
    value["version"] = json!(version);
    value["plies"] = json!(game.moves.len());
    value["uci"] = json!(game.uci_moves());
    Ok(value)
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
/// With `"clock": true` the search is timed by the game's running clock.
fn go(app: &App, body: &str) -> Result<Value, ApiError> {
    let f = fields(body, &["movetime", "depth", "nodes", "play", "clock", "truncate"])?;
    let movetime = number(&f, "movetime", 1..=MAX_MOVETIME_MS)?;
    let depth = number(&f, "depth", 1..=MAX_DEPTH)?;
    let nodes = number(&f, "nodes", 1..=u64::MAX >> 1)?;
    let play = flag(&f, "play")?;
    let truncate = flag(&f, "truncate")?;
    let (limits, wait) = if flag(&f, "clock")? {
        let Some(limits) = app.session().clock_limits() else {
            return refuse("no clock is running");
        };
        let left = limits.wtime.max(limits.btime).unwrap_or(0);
        (limits, Duration::from_millis(left) + Duration::from_secs(10))
    } else {
        let movetime = match (movetime, depth, nodes) {
            (None, None, None) => Some(1000),
            (t, _, _) => t,
        };
        let wait = movetime.map_or(UNTIMED_WAIT, |t| Duration::from_millis(t) + Duration::from_secs(10));
        (Limits { movetime, depth: depth.map(|d| d as u32), nodes, ..Limits::default() }, wait)
    };
    let (tx, rx) = mpsc::channel();
    let version = app.session().start_move_search(limits, tx, play, truncate)?;
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

fn flag(f: &Map<String, Value>, key: &str) -> Result<bool, ApiError> {
    match f.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => refuse(format!("field {key:?} must be true or false")),
    }
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
