//! The record of a game: its moves (UCI and SAN text with comments), what
//! the engines reported, the result and why the game ended. The arbiter
//! writes it, PGN reads and writes it, the board shows it.

use std::fmt;

use super::san::move_to_san;
use super::tc::TimeControl;
use crate::board::outcome::Outcome;
use crate::board::position::Position;
use crate::rules::moves::Move;
use crate::rules::piece::Color;

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

impl Termination {
    /// Reads a PGN `Termination` tag back (cutechess-cli writes the same
    /// words); a missing or unknown tag means an ordinary end.
    pub fn from_tag(tag: Option<&str>) -> Termination {
        match tag.map(str::trim) {
            Some("time forfeit") => Termination::TimeForfeit,
            Some("illegal move") => Termination::IllegalMove,
            Some("abandoned") => Termination::Abandoned,
            Some("adjudication") => Termination::Adjudication,
            Some("unterminated") => Termination::Unterminated,
            _ => Termination::Normal,
        }
    }
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

/// What an engine reported about its choice.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchInfo {
    /// Score in centipawns from the engine's point of view.
    pub score_cp: Option<i32>,
    /// Mate in this many moves (negative: being mated).
    pub mate: Option<i32>,
    /// Depth reached.
    pub depth: Option<u32>,
}

impl fmt::Display for SearchInfo {
    /// `+0.35/12` as cutechess writes engine evaluations into PGN comments.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.mate, self.score_cp) {
            (Some(m), _) if m >= 0 => write!(f, "+M{m}")?,
            (Some(m), _) => write!(f, "-M{}", -m)?,
            (None, Some(cp)) => write!(f, "{:+.2}", cp as f64 / 100.0)?,
            (None, None) => {}
        }
        if let Some(d) = self.depth {
            write!(f, "/{d}")?;
        }
        Ok(())
    }
}

/// Plays `m` and returns it as the record writes it. Players get every move
/// in the canonical form (castling as king to its square), whatever the
/// opening file or the player wrote.
pub fn make_recorded(pos: &mut Position, m: Move, comment: String) -> PlayedMove {
    let san = move_to_san(pos, m);
    let uci = pos.move_to_uci(m, false);
    let (white, number) = (pos.side_to_move() == Color::White, u32::from(pos.state().fullmove));
    pos.make(m);
    PlayedMove { uci, san, comment: Some(comment), white, number }
}
