//! The game the browser shows: the in-process engine (the protocol-free
//! core), the moves played with their SAN, the position viewed (any move of
//! the game; the engine and the analysis stand there), the clocks, and the
//! endings the rules do not decide (resignation, agreed draw, flag fall).
//! Every change bumps a version and is announced on the event hub, so several
//! tabs stay in step. Knows nothing of HTTP; its answers are JSON values.

use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::Instant;

use serde_json::{json, Value};

use super::hub::Hub;
use crate::board::fen::FenError;
use crate::board::outcome::Outcome;
use crate::board::position::Position;
use crate::engine::{Engine, EngineError, EngineEvent};
use crate::eval::catalogue::Catalogue;
use crate::game::analysis::Eval;
use crate::game::flag::flag_outcome;
use crate::game::pgn::Replayed;
use crate::game::pgn::{read_pgn, replay, write_game, PgnContext};
use crate::game::record::{make_recorded, GameRecord, PlayedMove, Termination};
use crate::game::san::{move_to_san, parse_san};
use crate::game::tc::{GameClock, TimeControl};
use crate::rules::moves::{Move, MoveKind, MoveList};
use crate::rules::piece::{Color, PieceKind};
use crate::rules::variant::describe::{display_name, legend};
use crate::rules::variant::Variant;
use crate::search::{Limits, Score, SearchResult};

/// Most moves (plies) an imported game may have: each is checked against
/// every legal move's SAN while the game is locked.
pub const MAX_IMPORTED_MOVES: usize = 2000;

/// Most MultiPV lines the analysis shows.
pub const MAX_ANALYSIS_LINES: usize = 5;

/// Why a request was refused; the game is unchanged.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ApiError(pub String);

impl From<EngineError> for ApiError {
    fn from(e: EngineError) -> ApiError {
        ApiError(e.to_string())
    }
}

impl From<String> for ApiError {
    fn from(e: String) -> ApiError {
        ApiError(e)
    }
}

impl From<FenError> for ApiError {
    fn from(e: FenError) -> ApiError {
        ApiError(format!("bad FEN: {e}"))
    }
}

/// Shorthand for a refusal.
pub fn refuse<T>(message: impl Into<String>) -> Result<T, ApiError> {
    Err(ApiError(message.into()))
}

/// What a finished engine search answers.
#[derive(Clone, Debug)]
pub struct SearchAnswer {
    /// The search's totals and best move (None when there is no legal move).
    pub result: SearchResult,
    /// The last full line reported, when it starts with the best move.
    pub pv: Vec<Move>,
}

/// How a game ended that the rules did not end: a resignation, an agreed
/// draw, a flag fall.
#[derive(Clone, Debug)]
struct Ending {
    outcome: Outcome,
    reason: String,
    termination: Termination,
}

/// One game shown in the browser, shared by every tab.
pub struct Session {
    engine: Engine,
    /// The position the game started from.
    start_fen: String,
    /// The game's moves, the whole line.
    played: Vec<PlayedMove>,
    /// The same moves, to replay the line.
    line: Vec<Move>,
    /// How many of the moves the viewed position comes after (the engine stands there).
    cursor: usize,
    /// A resignation, agreed draw or flag fall.
    ending: Option<Ending>,
    /// The clocks, when the game is played to a time control.
    clock: Option<GameClock>,
    names: [String; 2],
    version: u64,
    /// MultiPV of the running analysis, if analysing.
    analysis: Option<usize>,
    /// True while a `go` request waits for the engine's move.
    thinking: bool,
    /// True while "Analyse game" runs: the clocks are paused.
    reviewing: bool,
    hub: Arc<Hub>,
}

impl Session {
    /// A session over `catalogue`, starting with its chess (or first playable) variant.
    pub fn new(catalogue: Catalogue, hub: Arc<Hub>) -> Option<Session> {
        let engine = Engine::with_catalogue(catalogue)?;
        Some(Session {
            start_fen: engine.position().to_fen(),
            engine,
            played: Vec::new(),
            line: Vec::new(),
            cursor: 0,
            ending: None,
            clock: None,
            names: ["?".to_string(), "?".to_string()],
            version: 0,
            analysis: None,
            thinking: false,
            reviewing: false,
            hub,
        })
    }

    /// Incremented by every change of the game.
    pub fn version(&self) -> u64 {
        self.version
    }

    /// The loaded variants with their boards and pieces.
    pub fn variants_json(&self) -> Value {
        Value::Array(self.engine.registry().variants().map(|v| variant_json(v)).collect())
    }

    /// Everything the page draws: the viewed position (board, hands, legal
    /// moves, its result), the move list, the clocks and the game's result.
    pub fn state_json(&mut self) -> Value {
        self.check_flag();
        let mut pos = self.engine.position().clone();
        let v = Arc::clone(pos.variant());
        let shape = v.shape;
        let board: Vec<Vec<String>> = (0..shape.ranks)
            .rev()
            .map(|rank| {
                (0..shape.files)
                    .map(|file| match shape.square(file, rank).map(|sq| pos.cell(sq)) {
                        Some(c) if c.is_piece() => v.cell_letter(c).to_string(),
                        _ => String::new(),
                    })
                    .collect()
            })
            .collect();
        let hands: Value = Color::ALL
            .iter()
            .map(|&color| {
                let held: Vec<Value> = (0..v.kind_count())
                    .map(|k| PieceKind(k as u8))
                    .filter(|&k| pos.hand_count(color, k) > 0)
                    .map(
                        |k| json!({"piece": v.pieces[k.index()].letter.to_string(), "count": pos.hand_count(color, k)}),
                    )
                    .collect();
                (color.name().to_lowercase(), Value::Array(held))
            })
            .collect::<serde_json::Map<_, _>>()
            .into();
        let mut list = MoveList::new();
        pos.generate_legal(&mut list);
        let legal: Vec<Value> = list.iter().map(|&m| move_json(&mut pos, m)).collect();
        let side = pos.side_to_move();
        let check = (!pos.in_setup() && pos.in_check()).then(|| pos.king_square(side)).flatten();
        let at_end = self.cursor == self.played.len();
        let ending = self.ending.as_ref().map(|e| json!({"result": e.outcome.pgn(), "reason": e.reason}));
        let result = match pos.game_end() {
            Some(end) => Some(json!({"result": end.outcome().pgn(), "reason": end.to_string()})),
            None if at_end => ending.clone(),
            None => None,
        };
        let game_result = if at_end { result.clone() } else { self.end_result() };
        let now = Instant::now();
        let clock = self.clock.as_ref().map(|c| {
            json!({
                "white_ms": c.left_ms(Color::White, now).max(0),
                "black_ms": c.left_ms(Color::Black, now).max(0),
                "running": c.running().map(|s| s.name().to_lowercase()),
                "paused": c.is_paused(),
                "control": c.control.to_string(),
            })
        });
        json!({
            "version": self.version,
            "variant": v.name,
            "fen": pos.to_fen(),
            "side": side.name().to_lowercase(),
            "setup": pos.in_setup(),
            "files": shape.files,
            "ranks": shape.ranks,
            "board": board,
            "hands": hands,
            "legal": legal,
            "check": check.map(|sq| sq.to_string()),
            "last": self.cursor.checked_sub(1).map(|i| self.played[i].uci.clone()),
            "ply": self.cursor,
            "start_fen": self.start_fen,
            "standard_start": Position::startpos(Arc::clone(&v)).is_ok_and(|p| p.to_fen() == self.start_fen),
            "moves": self.played.iter().map(|p| json!({"uci": p.uci, "san": p.san, "white": p.white, "number": p.number})).collect::<Vec<_>>(),
            "result": result,
            "game_result": game_result,
            "clock": clock,
            "analysing": self.analysis,
            "thinking": self.thinking,
            "names": {"white": self.names[0], "black": self.names[1]},
        })
    }

    /// A new game of `variant` from its start or from `fen`, to the clock
    /// `clock` if given (the side to move's starts at once). Checked before
    /// anything changes, so a refusal keeps the game.
    pub fn new_game(
        &mut self,
        variant: &str,
        fen: Option<&str>,
        names: [Option<&str>; 2],
        clock: Option<TimeControl>,
    ) -> Result<(), ApiError> {
        if clock.is_some_and(|c| c.clock.is_none()) {
            return refuse("the clock needs a time control such as 300+3 (seconds and increment)");
        }
        let Some(v) = self.engine.registry().get(variant) else {
            return refuse(format!("unknown variant {variant:?}"));
        };
        match fen {
            Some(f) => Position::from_fen(Arc::clone(&v), f).map(|_| ())?,
            None => Position::startpos(Arc::clone(&v)).map(|_| ())?,
        }
        self.engine.set_variant(variant)?;
        self.engine.new_game();
        self.engine.set_position(fen, &[])?;
        self.start_fen = self.engine.position().to_fen();
        self.played.clear();
        self.line.clear();
        self.cursor = 0;
        self.ending = None;
        let side = self.engine.position().side_to_move();
        self.clock = clock.and_then(|tc| GameClock::start(tc, side, Instant::now()));
        for (slot, name) in self.names.iter_mut().zip(names) {
            *slot = name.unwrap_or("?").to_string();
        }
        self.changed();
        Ok(())
    }

    /// Plays a move written in UCI form or SAN in the viewed position. When
    /// later moves follow it, the game's own next move just steps forward;
    /// another move drops the rest of the game, only with `truncate`.
    pub fn play(&mut self, text: &str, truncate: bool) -> Result<(), ApiError> {
        self.check_flag();
        self.refuse_if_over()?;
        let mut pos = self.engine.position().clone();
        let m = parse_san(&mut pos, text).map_err(|e| ApiError(e.to_string()))?;
        if self.line.get(self.cursor) == Some(&m) {
            return self.view(self.cursor + 1);
        }
        self.make_room(truncate)?;
        self.record(m, None)
    }

    /// Drops the moves after the viewed position (with `truncate`; a refusal
    /// without it). Taking moves back stops the clocks.
    fn make_room(&mut self, truncate: bool) -> Result<(), ApiError> {
        let later = self.played.len() - self.cursor;
        if later == 0 {
            return Ok(());
        }
        if !truncate {
            return refuse(format!(
                "you are viewing move {} of {}: playing here drops the {later} later moves (send \"truncate\": true)",
                self.cursor,
                self.played.len()
            ));
        }
        self.played.truncate(self.cursor);
        self.line.truncate(self.cursor);
        self.ending = None;
        self.stop_clock();
        Ok(())
    }

    /// Takes back `plies` moves from the viewed position and drops what
    /// followed it; the clocks stop.
    pub fn undo(&mut self, plies: usize) -> Result<(), ApiError> {
        if plies == 0 || plies > self.cursor {
            return refuse(format!("cannot take back {plies} moves: {} played", self.cursor));
        }
        let keep = self.cursor - plies;
        self.cursor = keep;
        self.set_engine_position()?;
        self.played.truncate(keep);
        self.line.truncate(keep);
        self.ending = None;
        self.stop_clock();
        self.changed();
        Ok(())
    }

    /// Views the position after `ply` moves of the game (0: the start); the
    /// analysis follows it. Refused while the engine thinks on a move.
    pub fn view(&mut self, ply: usize) -> Result<(), ApiError> {
        if ply > self.played.len() {
            return refuse(format!("no move {ply}: the game has {} moves", self.played.len()));
        }
        if self.thinking && ply != self.cursor {
            // Its search stands on the game's last position (and its clock may run).
            return refuse("the engine is thinking on a move");
        }
        if ply != self.cursor {
            self.cursor = ply;
            self.set_engine_position()?;
        }
        self.changed();
        Ok(())
    }

    /// Puts the engine on the viewed position.
    fn set_engine_position(&mut self) -> Result<(), ApiError> {
        let moves: Vec<&str> = self.played[..self.cursor].iter().map(|p| p.uci.as_str()).collect();
        self.engine.set_position(Some(&self.start_fen), &moves)?;
        Ok(())
    }

    /// `side` resigns: the game ends (the viewed position stays).
    pub fn resign(&mut self, side: Color) -> Result<(), ApiError> {
        self.refuse_if_game_over()?;
        let reason = format!("{} resigns", side_name(side));
        self.end(Outcome::win_for(!side), reason, Termination::Normal);
        Ok(())
    }

    /// The game ends in a draw both sides agreed.
    pub fn agree_draw(&mut self) -> Result<(), ApiError> {
        self.refuse_if_game_over()?;
        self.end(Outcome::Draw, "Draw by agreement".to_string(), Termination::Normal);
        Ok(())
    }

    /// Looks at the clocks: a fallen flag ends the game. True when it did.
    pub fn check_flag(&mut self) -> bool {
        let now = Instant::now();
        let Some(side) = self.clock.as_ref().and_then(|c| c.flagged(now)) else { return false };
        let outcome = flag_outcome(side, &self.end_position());
        let reason = match outcome {
            Outcome::Draw => format!("{}'s flag fell, but {} cannot mate", side_name(side), side_name(!side)),
            _ => format!("{}'s flag fell", side_name(side)),
        };
        self.end(outcome, reason, Termination::TimeForfeit);
        true
    }

    fn end(&mut self, outcome: Outcome, reason: String, termination: Termination) {
        self.stop_clock();
        self.ending = Some(Ending { outcome, reason, termination });
        self.changed();
    }

    fn stop_clock(&mut self) {
        if let Some(c) = &mut self.clock {
            c.stop(Instant::now());
        }
    }

    /// The search limits of the side to move's clock; None without a running clock.
    pub fn clock_limits(&self) -> Option<Limits> {
        let clock = self.clock.as_ref()?;
        clock.running()?;
        let now = Instant::now();
        let (w, winc, togo) = clock.budget(Color::White, now);
        let (b, binc, _) = clock.budget(Color::Black, now);
        Some(Limits {
            wtime: Some(w),
            btime: Some(b),
            winc: Some(winc),
            binc: Some(binc),
            movestogo: (togo > 0).then_some(togo),
            ..Limits::default()
        })
    }

    /// The game's result at its last move: an ending, or the rules'.
    fn end_result(&self) -> Option<Value> {
        if let Some(e) = &self.ending {
            return Some(json!({"result": e.outcome.pgn(), "reason": e.reason}));
        }
        let mut pos = self.end_position();
        pos.game_end().map(|end| json!({"result": end.outcome().pgn(), "reason": end.to_string()}))
    }

    /// The position after the game's last move.
    fn end_position(&self) -> Position {
        let mut pos = self.engine.position().clone();
        for &m in &self.line[self.cursor..] {
            pos.make(m);
        }
        pos
    }

    /// The whole game as the rules replay it, for "Analyse game", with the
    /// catalogue to analyse it and the version it belongs to. The clocks
    /// pause until [`Session::review_finished`].
    pub fn game_for_analysis(&mut self) -> Result<(Catalogue, Replayed, u64), ApiError> {
        if self.line.is_empty() {
            return refuse("no moves to analyse");
        }
        self.reviewing = true;
        self.sync_clock();
        let variant = Arc::clone(self.engine.variant());
        let start = Position::from_fen(Arc::clone(&variant), &self.start_fen)?;
        let replayed = Replayed { variant, start, moves: self.line.clone() };
        Ok((self.engine.catalogue().clone(), replayed, self.version))
    }

    /// "Analyse game" is over: the clocks may run again.
    pub fn review_finished(&mut self) {
        self.reviewing = false;
        self.sync_clock();
    }

    /// The clocks pause while the game is reviewed (an earlier position
    /// viewed, "Analyse game" running) and run again at its last move.
    fn sync_clock(&mut self) {
        let review = self.reviewing || self.cursor != self.played.len();
        let now = Instant::now();
        if let Some(c) = &mut self.clock {
            if review {
                c.pause(now);
            } else if c.is_paused() {
                c.resume(now);
            }
        }
    }

    /// What an engine needs to judge a draw offer: the catalogue and the
    /// game's last position, with the version it belongs to.
    pub fn position_for_draw(&mut self) -> Result<(Catalogue, Position, u64), ApiError> {
        self.check_flag();
        self.refuse_if_game_over()?;
        Ok((self.engine.catalogue().clone(), self.end_position(), self.version))
    }

    /// Starts the engine's search for a move; its answer comes through
    /// `answer`. Returns the version the search belongs to.
    /// With `play`, the search's move will be played: from an earlier
    /// position only with `truncate` (which drops the later moves now).
    pub fn start_move_search(
        &mut self,
        limits: Limits,
        answer: Sender<SearchAnswer>,
        play: bool,
        truncate: bool,
    ) -> Result<u64, ApiError> {
        self.check_flag();
        self.refuse_if_over()?;
        if self.thinking {
            return refuse("the engine is already thinking on a move");
        }
        if play {
            self.make_room(truncate)?;
        }
        self.analysis = None;
        self.engine.set_option("MultiPV", "1")?;
        self.start_search(limits, Some(answer))?;
        self.thinking = true;
        Ok(self.version)
    }

    /// Ends the wait for the engine's move begun at `version`: plays the
    /// best move when `play` is set and the game has not changed meanwhile.
    pub fn finish_move_search(&mut self, version: u64, answer: &SearchAnswer, play: bool) -> Result<Value, ApiError> {
        if self.version != version {
            return refuse("the game changed during the search");
        }
        self.thinking = false;
        let result = &answer.result;
        let Some(best) = result.best else {
            return refuse("the engine found no move");
        };
        let pos = self.engine.position().clone();
        let pv = if answer.pv.first() == Some(&best) { answer.pv.clone() } else { vec![best] };
        let (pv_uci, pv_san) = pv_texts(&pos, &pv);
        let reply = json!({
            "best": pv_uci.first(),
            "san": pv_san.first(),
            "score": score_json(result.score),
            "depth": result.depth,
            "nodes": result.nodes,
            "time": result.time_ms,
            "pv": pv_uci,
            "pv_san": pv_san,
        });
        if play {
            self.record(best, Some(comment(result.score, result.depth, pos.side_to_move())))?;
        }
        Ok(reply)
    }

    /// Forgets a move search whose answer never came (the wait timed out).
    pub fn abandon_move_search(&mut self, version: u64) {
        if self.version == version && self.thinking {
            self.thinking = false;
            self.engine.stop_and_wait();
        }
    }

    /// Starts (or restarts) analysis with `lines` principal variations.
    pub fn analyse(&mut self, lines: usize) -> Result<(), ApiError> {
        if !(1..=MAX_ANALYSIS_LINES).contains(&lines) {
            return refuse(format!("multipv must be 1 to {MAX_ANALYSIS_LINES}, not {lines}"));
        }
        if self.thinking {
            return refuse("the engine is thinking on a move");
        }
        self.engine.set_option("MultiPV", &lines.to_string())?;
        self.analysis = Some(lines);
        self.restart_analysis();
        self.hub.broadcast("state", &json!({"version": self.version}));
        Ok(())
    }

    /// Stops analysis, or makes the engine move now when it is thinking on a move.
    pub fn stop(&mut self) {
        if self.analysis.take().is_some() {
            self.engine.stop_and_wait();
            self.hub.broadcast("state", &json!({"version": self.version}));
        } else {
            self.engine.stop();
        }
    }

    /// The whole game as PGN (the match runner's writer).
    pub fn pgn(&mut self) -> String {
        let end = self.end_position().game_end();
        let (outcome, termination, reason) = match (&self.ending, end) {
            (Some(e), _) => (Some(e.outcome), e.termination, e.reason.clone()),
            (None, Some(end)) => (Some(end.outcome()), Termination::Normal, end.to_string()),
            (None, None) => (None, Termination::Unterminated, String::new()),
        };
        let tc = self.clock.as_ref().map_or_else(TimeControl::default, |c| c.control);
        let record = GameRecord {
            white: self.names[0].clone(),
            black: self.names[1].clone(),
            start_fen: self.start_fen.clone(),
            moves: self.played.clone(),
            outcome,
            termination,
            reason,
            tc: [tc; 2],
        };
        let variant = Arc::clone(self.engine.variant());
        write_game(&record, &PgnContext { event: "menagerie gui", round: 1, variant: &variant })
    }

    /// Replaces the game by the first game of a PGN text (its `Variant`,
    /// `FEN`, players and moves). Checked before anything changes.
    pub fn import_pgn(&mut self, text: &str) -> Result<(), ApiError> {
        let Some(game) = read_pgn(text).into_iter().next() else {
            return refuse("no game in the PGN text");
        };
        if game.moves.len() > MAX_IMPORTED_MOVES {
            return refuse(format!("the game has over {MAX_IMPORTED_MOVES} moves"));
        }
        let replayed = replay(self.engine.registry(), &game).map_err(ApiError)?;
        let name = replayed.variant.name.clone();
        let fen = game.tag("FEN");
        let moves = replayed.uci_moves();
        self.new_game(&name, fen, [game.tag("White"), game.tag("Black")], None)?;
        for uci in &moves {
            let mut pos = self.engine.position().clone();
            let m = pos.parse_move(uci).map_err(EngineError::from)?;
            self.record(m, None)?;
        }
        Ok(())
    }

    /// Refuses a move in the viewed position when the rules or an ending have ended the game there.
    fn refuse_if_over(&mut self) -> Result<(), ApiError> {
        match self.engine.game_end() {
            Some(end) => refuse(format!("the game is over: {} ({end})", end.outcome().pgn())),
            None if self.cursor == self.played.len() => self.refuse_if_game_over(),
            None => Ok(()),
        }
    }

    /// Refuses when the game (at its last move) is over.
    fn refuse_if_game_over(&self) -> Result<(), ApiError> {
        match self.end_result() {
            Some(r) => refuse(format!(
                "the game is over: {} ({})",
                r["result"].as_str().unwrap_or("?"),
                r["reason"].as_str().unwrap_or("?")
            )),
            None => Ok(()),
        }
    }

    /// Plays a legal move of the viewed position (the game's last) and
    /// records it; the mover's clock is charged, and its time left goes to
    /// the move's comment as lichess writes it (`[%clk 0:04:58]`). A move
    /// made after its side's flag fell is refused, and the game ends.
    fn record(&mut self, m: Move, comment: Option<String>) -> Result<(), ApiError> {
        let mut pos = self.engine.position().clone();
        let side = pos.side_to_move();
        let mut clk = None;
        if let Some(clock) = &mut self.clock {
            let now = Instant::now();
            if !clock.moved(side, now) {
                self.check_flag();
                return refuse(format!("{}'s flag fell before the move", side_name(side)));
            }
            clk = Some(clk_text(clock.left_ms(side, now)));
        }
        let mut played = make_recorded(&mut pos, m, String::new());
        played.comment = match (comment, clk) {
            (Some(c), Some(k)) => Some(format!("{c} {k}")),
            (c, k) => c.or(k),
        };
        self.engine.play_move(m);
        self.played.push(played);
        self.line.push(m);
        self.cursor = self.played.len();
        if self.engine.game_end().is_some() {
            self.stop_clock();
        }
        self.changed();
        Ok(())
    }

    /// After every change of the game: a new version, the pages told, the
    /// analysis moved to the new position.
    fn changed(&mut self) {
        self.sync_clock();
        self.version += 1;
        self.thinking = false;
        self.restart_analysis();
        self.hub.broadcast("state", &json!({"version": self.version}));
    }

    fn restart_analysis(&mut self) {
        if self.analysis.is_none() {
            return;
        }
        if self.engine.game_end().is_some() {
            self.engine.stop_and_wait();
            return;
        }
        let limits = Limits { infinite: true, ..Limits::default() };
        // A refused thread start leaves the analysis silent, not the game broken.
        if self.start_search(limits, None).is_err() {
            self.analysis = None;
        }
    }

    /// Runs the engine on the current position; every line goes to the hub,
    /// the final answer to `answer`.
    fn start_search(&mut self, limits: Limits, answer: Option<Sender<SearchAnswer>>) -> Result<(), ApiError> {
        let hub = Arc::clone(&self.hub);
        let root = self.engine.position().clone();
        let version = self.version;
        let mut last_pv: Vec<Move> = Vec::new();
        self.engine.go(limits, move |event| match event {
            EngineEvent::Info { info, .. } => {
                let (uci, san) = pv_texts(&root, &info.pv);
                let white = if root.side_to_move() == Color::White { 1 } else { -1 };
                hub.broadcast(
                    "info",
                    &json!({
                        "version": version,
                        "multipv": info.multipv,
                        "depth": info.depth,
                        "seldepth": info.seldepth,
                        "score": score_json(info.score),
                        "white_score": score_json(match info.score {
                            Score::Cp(cp) => Score::Cp(cp * white),
                            Score::Mate(n) => Score::Mate(n * white),
                        }),
                        "nodes": info.nodes,
                        "nps": info.nps,
                        "time": info.time_ms,
                        "pv": uci,
                        "san": san,
                    }),
                );
                if info.multipv == 1 {
                    last_pv = info.pv;
                }
            }
            EngineEvent::CurrMove { .. } => {}
            EngineEvent::BestMove { best_text, result, .. } => {
                hub.broadcast("bestmove", &json!({"version": version, "best": best_text}));
                if let Some(tx) = &answer {
                    let _ = tx.send(SearchAnswer { result, pv: std::mem::take(&mut last_pv) });
                }
            }
        })?;
        Ok(())
    }
}

/// Time left as lichess's PGN writes it: `[%clk 0:04:58]` (whole seconds).
fn clk_text(ms: i64) -> String {
    let secs = ms.max(0) / 1000;
    format!("[%clk {}:{:02}:{:02}]", secs / 3600, secs / 60 % 60, secs % 60)
}

/// `White` or `Black`, as a sentence starts.
fn side_name(side: Color) -> &'static str {
    match side {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// A variant as the page needs it: board, pieces, rules that show.
fn variant_json(v: &Variant) -> Value {
    json!({
        "name": v.name,
        "description": v.description,
        "files": v.shape.files,
        "ranks": v.shape.ranks,
        "start": v.start_fen,
        "hands": v.hands,
        "setup": v.setup.is_some(),
        "succession": v.succession.map(|k| v.pieces[k.index()].letter.to_string()),
        "pieces": v.pieces.iter().enumerate().map(|(k, p)| json!({
            "letter": p.letter.to_string(),
            "name": p.name,
            "title": display_name(&p.name),
            "betza": p.betza,
            "value": p.value,
            "royal": v.royal == Some(PieceKind(k as u8)),
        })).collect::<Vec<_>>(),
        "legend": legend(v).into_iter().map(|l| json!({
            "letter": l.letter.to_string(),
            "name": l.name,
            "moves": l.moves,
            "notes": l.notes,
        })).collect::<Vec<_>>(),
    })
}

/// A legal move as the page uses it: squares, kind, piece, SAN.
fn move_json(pos: &mut Position, m: Move) -> Value {
    let kind = match m.kind() {
        MoveKind::Normal | MoveKind::DoublePush | MoveKind::EnPassant => "normal",
        MoveKind::Castle => "castle",
        MoveKind::Promotion => "promotion",
        MoveKind::Drop => "drop",
        MoveKind::Swap => "swap",
        MoveKind::Pass => "pass",
    };
    let uci = pos.move_to_uci(m, false);
    let squares = uci_squares(&uci);
    let piece = matches!(m.kind(), MoveKind::Promotion | MoveKind::Drop)
        .then(|| pos.variant().pieces[m.piece().index()].letter.to_string());
    let (from, to) = match (m.kind(), squares.as_slice()) {
        (MoveKind::Pass, _) => (None, None),
        (_, [to]) => (None, Some(to.clone())),
        (_, [from, to]) => (Some(from.clone()), Some(to.clone())),
        _ => (None, None),
    };
    json!({"uci": uci, "san": move_to_san(pos, m), "kind": kind, "from": from, "to": to, "piece": piece})
}

/// The square names in UCI move text (`e2e4` -> e2, e4; `P@e4` -> e4).
fn uci_squares(uci: &str) -> Vec<String> {
    let mut squares = Vec::new();
    let bytes = uci.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_lowercase() && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
            let digits = bytes[i + 1..].iter().take_while(|b| b.is_ascii_digit()).count();
            squares.push(uci[i..i + 1 + digits].to_string());
            i += 1 + digits;
        } else {
            i += 1;
        }
    }
    squares
}

/// A line in UCI text and SAN, from `root`.
fn pv_texts(root: &Position, pv: &[Move]) -> (Vec<String>, Vec<String>) {
    let mut pos = root.clone();
    let mut uci = Vec::with_capacity(pv.len());
    let mut san = Vec::with_capacity(pv.len());
    for &m in pv {
        uci.push(pos.move_to_uci(m, false));
        san.push(move_to_san(&mut pos, m));
        pos.make(m);
    }
    (uci, san)
}

fn score_json(score: Score) -> Value {
    match score {
        Score::Cp(cp) => json!({"cp": cp}),
        Score::Mate(n) => json!({"mate": n}),
    }
}

/// The PGN comment of an engine move, as lichess reads it: `[%eval 0.35]
/// depth 12`, `[%eval #-3]` (White's view); `mover` is the engine's side.
fn comment(score: Score, depth: u32, mover: Color) -> String {
    let (cp, mate) = match score {
        Score::Cp(cp) => (Some(cp), None),
        Score::Mate(n) => (None, Some(n)),
    };
    let eval = Eval::from_side(cp, mate, mover).and_then(Eval::pgn_text).unwrap_or_default();
    format!("[%eval {eval}] depth {depth}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_of_move_text() {
        assert_eq!(uci_squares("e2e4"), ["e2", "e4"]);
        assert_eq!(uci_squares("a9a10q"), ["a9", "a10"]);
        assert_eq!(uci_squares("P@e4"), ["e4"]);
        assert!(uci_squares("0000").is_empty());
    }

    #[test]
    fn engine_moves_carry_lichess_evals_from_whites_view() {
        assert_eq!(comment(Score::Cp(35), 12, Color::Black), "[%eval -0.35] depth 12");
        assert_eq!(comment(Score::Mate(-3), 7, Color::Black), "[%eval #3] depth 7");
        assert_eq!(comment(Score::Mate(2), 5, Color::White), "[%eval #2] depth 5");
        assert_eq!(clk_text(298_700), "[%clk 0:04:58]");
        assert_eq!(clk_text(3_723_000), "[%clk 1:02:03]");
        assert_eq!(clk_text(-5), "[%clk 0:00:00]");
    }
}
