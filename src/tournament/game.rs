//! One refereed game between two engines. The rules core is the arbiter:
//! every move is checked, and the game ends by the variant's rules
//! (checkmate, stalemate, repetition, move rule), by time forfeit, illegal
//! move, resignation, disconnection, or adjudication after a move limit.
//! Uses the engine adapters, time controls, SAN and the rules core.

use std::fmt;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::adjudicate::{Adjudicator, DrawRule, ResignRule, Verdict};
use super::player::{MoveRequest, Player, PlayerError, Reply, SearchInfo};
use super::san::move_to_san;
use super::tc::{Clock, TimeControl};
use crate::outcome::Outcome;
use crate::piece::Color;
use crate::position::Position;
use crate::variant::Variant;

/// Why a game ended, in the terms of the PGN `Termination` tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Termination {
    /// By the rules (mate, stalemate, repetition, move rule) or resignation.
    Normal,
    /// A flag fell (or the engine never answered).
    TimeForfeit,
    /// The engine sent a move the rules core rejects.
    IllegalMove,
    /// The engine crashed, exited or broke the protocol.
    Abandoned,
    /// The runner ended a game that exceeded the move limit.
    Adjudication,
    /// Stopped before a result (Ctrl-C, SPRT decision).
    Unterminated,
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Termination::Normal => "normal",
            Termination::TimeForfeit => "time forfeit",
            Termination::IllegalMove => "illegal move",
            Termination::Abandoned => "abandoned",
            Termination::Adjudication => "adjudication",
            Termination::Unterminated => "unterminated",
        })
    }
}

/// One move of a game record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayedMove {
    /// UCI text (as sent to engines).
    pub uci: String,
    /// SAN-like text (as written to PGN).
    pub san: String,
    /// PGN comment (`book`, or `+0.35/12 0.41s`).
    pub comment: Option<String>,
    /// True when White made the move.
    pub white: bool,
    /// The full-move number it was made at.
    pub number: u32,
}

/// A finished (or stopped) game.
#[derive(Clone, Debug)]
pub struct GameRecord {
    /// White's display name.
    pub white: String,
    /// Black's display name.
    pub black: String,
    /// Start position (before the opening moves).
    pub start_fen: String,
    /// All moves, opening included.
    pub moves: Vec<PlayedMove>,
    /// The result; None when unterminated.
    pub outcome: Option<Outcome>,
    /// Why the game ended.
    pub termination: Termination,
    /// Human text (`White mates`, `Black makes an illegal move: e2e5`).
    pub reason: String,
    /// White's and Black's limits.
    pub tc: [TimeControl; 2],
}

/// Everything about a game besides the engines.
#[derive(Clone, Debug)]
pub struct GameSetup {
    /// The variant.
    pub variant: Arc<Variant>,
    /// Start FEN.
    pub start_fen: String,
    /// Opening moves in UCI text, played before the engines take over.
    pub opening: Vec<String>,
    /// Limits for White and Black.
    pub tc: [TimeControl; 2],
    /// Extra time before a flag counts (and before untimed moves time out).
    pub margin: Duration,
    /// How long an engine may think on one move without a clock or movetime.
    pub move_timeout: Duration,
    /// Adjudicate a draw after this many moves per side (0 = never).
    pub max_moves: u32,
    /// Score-based draw adjudication.
    pub draw_rule: Option<DrawRule>,
    /// Score-based loss adjudication.
    pub resign_rule: Option<ResignRule>,
}

/// Which engines misbehaved and should be restarted before another game.
pub type Faults = [bool; 2];

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// Plays a game; `engines[0]` is White. Never panics on engine output.
pub fn play_game(
    setup: &GameSetup,
    names: [&str; 2],
    engines: [&mut Player; 2],
    stop: &AtomicBool,
) -> (GameRecord, Faults) {
    let mut record = GameRecord {
        white: names[0].to_string(),
        black: names[1].to_string(),
        start_fen: setup.start_fen.clone(),
        moves: Vec::new(),
        outcome: None,
        termination: Termination::Unterminated,
        reason: String::new(),
        tc: setup.tc,
    };
    let mut faults = [false; 2];
    let mut pos = match Position::from_fen(Arc::clone(&setup.variant), &setup.start_fen) {
        Ok(p) => p,
        Err(e) => {
            record.reason = format!("bad start position: {e}");
            return (record, faults);
        }
    };
    for text in &setup.opening {
        let Ok(m) = pos.parse_move(text) else {
            record.reason = format!("illegal opening move {text}");
            return (record, faults);
        };
        let san = move_to_san(&mut pos, m);
        // Engines get every move in the canonical form, whatever the opening file wrote.
        let uci = pos.move_to_uci(m, false);
        let (white, number) = (pos.side_to_move() == Color::White, u32::from(pos.state().fullmove));
        pos.make(m);
        record.moves.push(PlayedMove { uci, san, comment: Some("book".to_string()), white, number });
    }
    let mut engines = engines;
    let finish = |record: &mut GameRecord, outcome: Option<Outcome>, termination: Termination, reason: String| {
        record.outcome = outcome;
        record.termination = termination;
        record.reason = reason;
    };
    // The side `loser` loses the game for `termination`.
    let lose = |record: &mut GameRecord, loser: Color, termination: Termination, reason: String| {
        finish(record, Some(Outcome::win_for(!loser)), termination, reason);
    };
    for (i, engine) in engines.iter_mut().enumerate() {
        if let Err(e) = engine.new_game(&setup.variant, &setup.start_fen, &setup.tc[i], stop) {
            faults[i] = true;
            let color = if i == 0 { Color::White } else { Color::Black };
            let (term, outcome) = match e {
                PlayerError::Stopped => (Termination::Unterminated, None),
                PlayerError::Timeout => (Termination::TimeForfeit, Some(Outcome::win_for(!color))),
                _ => (Termination::Abandoned, Some(Outcome::win_for(!color))),
            };
            finish(&mut record, outcome, term, format!("{} could not start the game: {e}", side_name(color)));
            return (record, faults);
        }
    }
    let mut clocks = [Clock::new(&setup.tc[0]), Clock::new(&setup.tc[1])];
    let mut adjudicator = Adjudicator::new(setup.draw_rule, setup.resign_rule);
    let mut verdict: Option<Verdict> = None;
    let mut uci_moves: Vec<String> = record.moves.iter().map(|m| m.uci.clone()).collect();
    let start_ply = pos.ply_count();
    loop {
        let us = pos.side_to_move();
        if let Some(end) = pos.game_end() {
            finish(&mut record, Some(end.outcome()), Termination::Normal, end.to_string());
            break;
        }
        match verdict {
            Some(Verdict::Draw) => {
                finish(&mut record, Some(Outcome::Draw), Termination::Adjudication, "Draw by adjudication".to_string());
                break;
            }
            Some(Verdict::Loses(side)) => {
                let loser = if side == 0 { Color::White } else { Color::Black };
                let reason = format!("{} wins by adjudication", side_name(!loser));
                lose(&mut record, loser, Termination::Adjudication, reason);
                break;
            }
            None => {}
        }
        if setup.max_moves > 0 && (pos.ply_count() - start_ply) as u32 >= 2 * setup.max_moves {
            finish(
                &mut record,
                Some(Outcome::Draw),
                Termination::Adjudication,
                format!("Draw by adjudication after {} moves", setup.max_moves),
            );
            break;
        }
        let idx = us.index();
        let clock = &clocks[idx];
        let budget = if clock.is_timed() {
            Duration::from_millis(clock.left_ms.max(0) as u64)
        } else if let Some(t) = setup.tc[idx].movetime {
            t
        } else {
            setup.move_timeout
        };
        let started = Instant::now();
        let request = MoveRequest {
            start_fen: &setup.start_fen,
            moves: &uci_moves,
            white: us == Color::White,
            clocks: [&clocks[0], &clocks[1]],
            tc: &setup.tc[idx],
            deadline: started + budget + setup.margin,
        };
        let reply = engines[idx].play(&request, stop);
        let used = started.elapsed();
        let name = side_name(us);
        match reply {
            Ok(Reply::Move(text, info)) => {
                if !clocks[idx].charge(used, setup.margin)
                    || (setup.tc[idx].movetime.is_some() && !clocks[idx].is_timed() && used > budget + setup.margin)
                {
                    lose(&mut record, us, Termination::TimeForfeit, format!("{name} loses on time"));
                    break;
                }
                let m = match pos.parse_move(&text) {
                    Ok(m) => m,
                    Err(_) => {
                        faults[idx] = true;
                        lose(
                            &mut record,
                            us,
                            Termination::IllegalMove,
                            format!("{name} makes an illegal move: {text}"),
                        );
                        break;
                    }
                };
                let san = move_to_san(&mut pos, m);
                // Engines get the move in our canonical form (castling as king to its square).
                let canonical = pos.move_to_uci(m, false);
                let number = u32::from(pos.state().fullmove);
                pos.make(m);
                verdict = adjudicator.record(idx, number, &info);
                uci_moves.push(canonical.clone());
                record.moves.push(PlayedMove {
                    uci: canonical,
                    san,
                    comment: Some(comment(&info, used)),
                    white: us == Color::White,
                    number,
                });
            }
            Ok(Reply::Resign) => {
                lose(&mut record, us, Termination::Normal, format!("{name} resigns"));
                break;
            }
            Err(PlayerError::Stopped) => {
                finish(&mut record, None, Termination::Unterminated, "Stopped".to_string());
                break;
            }
            Err(PlayerError::Timeout) => {
                faults[idx] = true;
                lose(&mut record, us, Termination::TimeForfeit, format!("{name} loses on time"));
                break;
            }
            Err(e) => {
                faults[idx] = true;
                let reason = match &e {
                    PlayerError::Disconnected(why) => format!("{name} disconnects ({why})"),
                    other => format!("{name}: {other}"),
                };
                lose(&mut record, us, Termination::Abandoned, reason);
                break;
            }
        }
    }
    let result = record.outcome.map_or("*", Outcome::pgn);
    for (i, engine) in engines.iter_mut().enumerate() {
        if !faults[i] {
            engine.game_over(result, &record.reason);
        }
    }
    (record, faults)
}

fn comment(info: &SearchInfo, used: Duration) -> String {
    let eval = info.to_string();
    let secs = format!("{:.3}s", used.as_secs_f64());
    if eval.is_empty() {
        secs
    } else {
        format!("{eval} {secs}")
    }
}
