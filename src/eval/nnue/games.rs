//! Training data as whole games: a game is its start and, for every ply,
//! the move played and the search's score, so a position costs about 4
//! bytes instead of a record's 70. Which plies become training positions
//! (quiet ones, within score and ply bounds) is decided when the data is
//! read ([`Filter`]), not when it is made.
//!
//! A move is stored as its index in the legal moves of its position, in the
//! order the generator gives them: the generator is deterministic, and an
//! index names any legal move the variant has (setup moves, drops,
//! successions) without a move syntax of its own.
//!
//! A game, little-endian:
//!
//! | bytes | what |
//! |---|---|
//! | 1 | `0xA7`, a game's tag |
//! | 4 | the game's number in its run (`u32`) |
//! | 1 | result for White (0 loss, 1 draw, 2 win) |
//! | 2 | `F`, the length of the start FEN (0: the variant's start position) |
//! | `F` | the start FEN |
//! | 2 | `N`, plies |
//! | 4 `N` | each ply: `u16`, bits 0-13 the move's index, bits 14-15 what the score is (0 none: a random opening move, 1 centipawns, 2 mate in plies); then the score (`i16`), centipawns from White's view, or the search's mate distance |

use std::sync::Arc;

use crate::board::position::Position;
use crate::rules::moves::{Move, MoveList};
use crate::rules::piece::Color;
use crate::rules::variant::Variant;

/// The first byte of every game.
pub const GAME_TAG: u8 = 0xA7;
/// Bytes of a game before its FEN: tag, number, result, FEN length.
pub const GAME_FIXED: usize = 8;
/// Bytes of a ply.
pub const PLY_BYTES: usize = 4;
/// Mask of a ply's move index.
const INDEX_MASK: u16 = 0x3FFF;

/// What the search said of a ply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlyScore {
    /// A random opening move: no search, no score.
    Random,
    /// The search's best move with this score, centipawns from White's view.
    Cp(i16),
    /// The search's best move, a mate score (the search's distance, mover's view).
    Mate(i16),
}

impl PlyScore {
    /// A mate in `n` moves (mover's view), bounded to what a ply stores.
    pub fn mate(n: i32) -> PlyScore {
        PlyScore::Mate(n.clamp(-i32::from(i16::MAX), i32::from(i16::MAX)) as i16)
    }
}

/// One ply: the move's index among the legal moves, and its score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ply {
    /// Index of the move in the position's legal moves.
    pub index: u16,
    /// What the search said.
    pub score: PlyScore,
}

impl Ply {
    /// The ply's 4 bytes.
    fn encode(&self, out: &mut Vec<u8>) {
        let (kind, score) = match self.score {
            PlyScore::Random => (0u16, 0i16),
            PlyScore::Cp(cp) => (1, cp),
            PlyScore::Mate(n) => (2, n),
        };
        out.extend_from_slice(&(self.index | kind << 14).to_le_bytes());
        out.extend_from_slice(&score.to_le_bytes());
    }

    /// The ply of 4 bytes; None for a score kind that does not exist.
    pub fn decode(bytes: [u8; PLY_BYTES]) -> Option<Ply> {
        let word = u16::from_le_bytes([bytes[0], bytes[1]]);
        let score = i16::from_le_bytes([bytes[2], bytes[3]]);
        let score = match word >> 14 {
            0 => PlyScore::Random,
            1 => PlyScore::Cp(score),
            2 => PlyScore::Mate(score),
            _ => return None,
        };
        Some(Ply { index: word & INDEX_MASK, score })
    }
}

/// One game of self-play, as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// The game's number in its run (which seeds it).
    pub number: u32,
    /// Result for White: 0 loss, 1 draw, 2 win.
    pub result: u8,
    /// The start FEN; None for the variant's start position.
    pub start: Option<String>,
    /// Every ply played.
    pub plies: Vec<Ply>,
}

/// Why a game cannot be replayed: the ply (None: the start) and what is wrong.
pub type ReplayError = (Option<usize>, String);

impl Game {
    /// A game with no ply yet, from `start` (None: the variant's start position).
    pub fn new(number: u32, start: Option<String>) -> Game {
        Game { number, result: 1, start, plies: Vec::new() }
    }

    /// Records `m`, played in `pos`, with `score`; false (nothing recorded)
    /// when `m` is not a legal move there, or the game is as long as a game can be stored.
    pub fn push(&mut self, pos: &mut Position, m: Move, score: PlyScore) -> bool {
        if self.plies.len() >= usize::from(u16::MAX) {
            return false;
        }
        let mut list = MoveList::new();
        pos.generate_legal(&mut list);
        match list.iter().position(|&legal| legal == m) {
            Some(index) => {
                self.plies.push(Ply { index: index as u16, score });
                true
            }
            None => false,
        }
    }

    /// Sets the result from White's points (0, 0.5 or 1; the nearest of them).
    pub fn set_result(&mut self, white_points: f32) {
        self.result = result_code(white_points);
    }

    /// White's points: 0, 0.5 or 1.
    pub fn white_points(&self) -> f32 {
        f32::from(self.result) / 2.0
    }

    /// Appends the game's bytes.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.push(GAME_TAG);
        out.extend_from_slice(&self.number.to_le_bytes());
        out.push(self.result);
        let fen = self.start.as_deref().unwrap_or("");
        out.extend_from_slice(&(fen.len() as u16).to_le_bytes());
        out.extend_from_slice(fen.as_bytes());
        out.extend_from_slice(&(self.plies.len() as u16).to_le_bytes());
        for ply in &self.plies {
            ply.encode(out);
        }
    }

    /// The position the game starts from.
    pub fn start_position(&self, variant: &Arc<Variant>) -> Result<Position, String> {
        match &self.start {
            None => Position::startpos(Arc::clone(variant)),
            Some(fen) => Position::from_fen(Arc::clone(variant), fen),
        }
        .map_err(|e| format!("bad start position: {e}"))
    }

    /// Plays the game through: `each` sees every ply's position (before its
    /// move), the ply's number, the ply and its move.
    pub fn replay(
        &self,
        variant: &Arc<Variant>,
        mut each: impl FnMut(&Position, usize, &Ply, Move),
    ) -> Result<(), ReplayError> {
        let mut pos = self.start_position(variant).map_err(|e| (None, e))?;
        let mut list = MoveList::new();
        for (number, ply) in self.plies.iter().enumerate() {
            pos.generate_legal(&mut list);
            let Some(&m) = list.get(usize::from(ply.index)) else {
                return Err((Some(number), format!("move index {} of {} legal moves", ply.index, list.len())));
            };
            each(&pos, number, ply, m);
            pos.make(m);
        }
        Ok(())
    }
}

/// The result's code (0 loss, 1 draw, 2 win for White), from the nearest of 0, 0.5 and 1.
pub(crate) fn result_code(result: f32) -> u8 {
    if result > 0.75 {
        2
    } else if result < 0.25 {
        0
    } else {
        1
    }
}

/// Which plies of a game become training positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Filter {
    /// Only quiet positions: the side to move not in check and the best move
    /// not a capture (what self-play always kept).
    pub quiet: bool,
    /// Plies before this one are left out.
    pub min_ply: usize,
    /// Scores beyond this many centipawns (either side) are left out.
    pub max_score: i32,
}

impl Default for Filter {
    /// What self-play kept when it kept positions: quiet ones, any ply, any score.
    fn default() -> Filter {
        Filter { quiet: true, min_ply: 0, max_score: i32::MAX }
    }
}

impl Filter {
    /// The centipawn score (White's view) of ply `number` played as `m` in
    /// `pos`, when that ply is a training position.
    pub fn keep(&self, pos: &Position, number: usize, ply: &Ply, m: Move) -> Option<i32> {
        let PlyScore::Cp(cp) = ply.score else { return None };
        let quiet = !self.quiet || (!pos.in_check() && pos.victim_square(m).is_none());
        (quiet && !pos.in_setup() && number >= self.min_ply && i32::from(cp).abs() <= self.max_score)
            .then_some(i32::from(cp))
    }
}

/// The score `cp` of the side to move, from White's view.
pub fn white_view(pos: &Position, cp: i32) -> i16 {
    let cp = if pos.side_to_move() == Color::White { cp } else { -cp };
    cp.clamp(-32_000, 32_000) as i16
}
