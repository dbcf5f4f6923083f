//! Move text in UCI form (`e2e4`, `a9a10q`, `P@e4`, `0000`), parsed in two
//! steps: syntax ([`MoveText`]) and legality ([`Position::parse_move`]).

use std::fmt;

use crate::board::position::{Position, NO_SQUARE};
use crate::rules::geometry::{BoardShape, Square};
use crate::rules::moves::{Move, MoveKind, MoveList};
use crate::rules::piece::Cell;

/// A move as written, before it is checked against a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveText {
    /// `from to [promotion letter]`.
    Board {
        /// Origin.
        from: Square,
        /// Destination.
        to: Square,
        /// Lower-case promotion letter, if any.
        promotion: Option<char>,
    },
    /// `X@sq`.
    Drop {
        /// Upper-case piece letter.
        piece: char,
        /// Destination.
        to: Square,
    },
    /// `0000` (or XBoard's `@@@@`): a setup pass.
    Null,
}

/// Why move text could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MoveError {
    /// Not move syntax for this board.
    #[error("bad move syntax {0:?}")]
    Syntax(String),
    /// Well-formed, but not a legal move here.
    #[error("illegal move {0:?}")]
    Illegal(String),
}

impl MoveText {
    /// Reads move syntax for a board of `shape`.
    ///
    /// ```
    /// use menagerie::rules::geometry::BoardShape;
    /// use menagerie::board::notation::MoveText;
    /// let b = BoardShape { files: 10, ranks: 10 };
    /// assert!(MoveText::parse("a9a10q", b).is_ok());
    /// assert!(MoveText::parse("P@e4", b).is_ok());
    /// assert!(MoveText::parse("k11a1", b).is_err());
    /// ```
    pub fn parse(text: &str, shape: BoardShape) -> Result<MoveText, MoveError> {
        let err = || MoveError::Syntax(text.to_string());
        if text == "0000" || text == "@@@@" {
            return Ok(MoveText::Null);
        }
        if !text.is_ascii() {
            return Err(err());
        }
        if let Some((piece, sq)) = text.split_once('@') {
            let mut chars = piece.chars();
            let (Some(p), None) = (chars.next(), chars.next()) else { return Err(err()) };
            if !p.is_ascii_alphabetic() {
                return Err(err());
            }
            let to = shape.parse_square(sq).ok_or_else(err)?;
            return Ok(MoveText::Drop { piece: p.to_ascii_uppercase(), to });
        }
        let (from, used) = shape.parse_square_prefix(text).ok_or_else(err)?;
        let rest = &text[used..];
        // The destination may be followed by one promotion letter.
        let (to, used2) = shape.parse_square_prefix(rest).ok_or_else(err)?;
        let tail = &rest[used2..];
        let promotion = match tail.len() {
            0 => None,
            1 => {
                let c = tail.chars().next().ok_or_else(err)?;
                if !c.is_ascii_alphabetic() {
                    return Err(err());
                }
                Some(c.to_ascii_lowercase())
            }
            _ => return Err(err()),
        };
        Ok(MoveText::Board { from, to, promotion })
    }
}

impl fmt::Display for MoveText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveText::Board { from, to, promotion } => {
                write!(f, "{from}{to}")?;
                if let Some(p) = promotion {
                    write!(f, "{p}")?;
                }
                Ok(())
            }
            MoveText::Drop { piece, to } => write!(f, "{piece}@{to}"),
            MoveText::Null => f.write_str("0000"),
        }
    }
}

/// XBoard numbers the ranks of a 10-rank board from 0 (`a0`..`j9`), UCI from 1.
fn xboard_shifts_ranks(shape: BoardShape) -> bool {
    shape.ranks == 10
}

/// Adds `delta` to the rank number of every square in `text`; None if a rank
/// would become negative or is not a number.
fn shift_ranks(text: &str, delta: i32) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 2);
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        out.push(c as char);
        i += 1;
        if c.is_ascii_lowercase() && i < bytes.len() && bytes[i].is_ascii_digit() {
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let rank: i32 = text.get(start..i)?.parse().ok()?;
            let shifted = rank + delta;
            if shifted < 0 {
                return None;
            }
            out.push_str(&shifted.to_string());
        }
    }
    Some(out)
}

/// The move text XBoard uses for a UCI move on a board of `shape`.
///
/// ```
/// use menagerie::rules::geometry::BoardShape;
/// use menagerie::board::notation::{uci_to_xboard, xboard_to_uci};
/// let b = BoardShape { files: 10, ranks: 10 };
/// assert_eq!(uci_to_xboard(b, "a9a10q"), "a8a9q");
/// assert_eq!(xboard_to_uci(b, "a8a9q"), "a9a10q");
/// ```
pub fn uci_to_xboard(shape: BoardShape, uci: &str) -> String {
    if xboard_shifts_ranks(shape) && uci.is_ascii() {
        shift_ranks(uci, -1).unwrap_or_else(|| uci.to_string())
    } else {
        uci.to_string()
    }
}

/// The UCI text of a move written by XBoard on a board of `shape` (also
/// drops XBoard's optional `=` before a promotion letter).
pub fn xboard_to_uci(shape: BoardShape, text: &str) -> String {
    let text = text.replace('=', "");
    if xboard_shifts_ranks(shape) && text != "@@@@" && text.is_ascii() {
        shift_ranks(&text, 1).unwrap_or(text)
    } else {
        text
    }
}

impl Position {
    /// UCI text of a move. `chess960` writes castling as king-takes-rook
    /// (the variant may require that form anyway).
    pub fn move_to_uci(&self, m: Move, chess960: bool) -> String {
        let v = &*self.variant;
        match m.kind() {
            MoveKind::Drop => format!("{}@{}", v.pieces[m.piece().index()].letter, m.to()),
            MoveKind::Promotion => {
                format!("{}{}{}", m.from(), m.to(), v.pieces[m.piece().index()].letter.to_ascii_lowercase())
            }
            MoveKind::Castle => {
                let king_takes_rook = chess960 || v.castling.as_ref().is_some_and(|c| c.king_takes_rook);
                match self.castle_targets(m.from(), m.to()) {
                    Some((king_to, _)) if !king_takes_rook && king_to != m.from() => format!("{}{}", m.from(), king_to),
                    _ => format!("{}{}", m.from(), m.to()),
                }
            }
            _ => format!("{}{}", m.from(), m.to()),
        }
    }

    /// Finds the legal move written as `text`. Castling is accepted in both
    /// forms (king to its destination, king takes rook); a K-Q swap in either
    /// direction; `0000` only as a setup pass.
    pub fn parse_move(&mut self, text: &str) -> Result<Move, MoveError> {
        let parsed = MoveText::parse(text, self.variant.shape)?;
        let mut list = MoveList::new();
        self.generate_legal(&mut list);
        let illegal = || MoveError::Illegal(text.to_string());
        // The king-destination form of castling is a fallback: where a plain
        // king move has the same text (a king one step from its castling
        // square), the text means the plain move.
        let matches = |m: Move, king_destination: bool| match (parsed, m.kind()) {
            (MoveText::Null, MoveKind::Pass) => true,
            (MoveText::Null, _) => false,
            (MoveText::Drop { piece, to }, MoveKind::Drop) => {
                to == m.to() && self.variant.pieces[m.piece().index()].letter == piece
            }
            (MoveText::Drop { .. }, _) | (MoveText::Board { .. }, MoveKind::Drop) => false,
            (MoveText::Board { from, to, promotion }, kind) => {
                let promo_ok = match kind {
                    MoveKind::Promotion => {
                        promotion == Some(self.variant.pieces[m.piece().index()].letter.to_ascii_lowercase())
                    }
                    _ => promotion.is_none(),
                };
                if !promo_ok {
                    return false;
                }
                match kind {
                    MoveKind::Castle if king_destination => {
                        let king_to = self.castle_targets(m.from(), m.to()).map(|t| t.0);
                        from == m.from() && Some(to) == king_to && to != from
                    }
                    MoveKind::Castle => from == m.from() && to == m.to(),
                    MoveKind::Swap => {
                        (from == m.from() && to == m.to())
                            || (from == m.to() && to == m.from() && self.in_setup() && self.both_movers(m))
                    }
                    _ => from == m.from() && to == m.to(),
                }
            }
        };
        let found = list.iter().copied().find(|&m| matches(m, false));
        found.or_else(|| list.iter().copied().find(|&m| matches(m, true))).ok_or_else(illegal)
    }

    fn both_movers(&self, m: Move) -> bool {
        let Some(rule) = self.variant.setup.as_ref() else { return false };
        let is_mover = |c: Cell| c.is_piece() && rule.movers >> c.kind().0 & 1 != 0;
        is_mover(self.cell(m.from())) && is_mover(self.cell(m.to())) && m.from() != NO_SQUARE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_king_step_is_not_read_as_castling() {
        // Chess960-style castling with the king on b8: the king's castling
        // square c8 is also a plain king step. "b8c8" is the step; castling
        // is written king-takes-rook ("b8a8"). The match referee once read
        // the step as castling and the engine's next move looked illegal.
        // (The position of that soak game, Relocation, Black to move.)
        let registry = crate::board::registry::Registry::builtin();
        let v = registry.get("relocation").expect("relocation ships");
        let fen = "rk2q2cr1/p1p1bb1p1p/3pn1p3/1p2pn4/2N2p1P1P/2PP2PNP1/P1P1PP4/1RAK1BBC1R b Kq - 1 17 -";
        let mut pos = Position::from_fen(v, fen).expect("valid FEN");
        assert_eq!(pos.parse_move("b8c8").map(|m| m.kind()), Ok(MoveKind::Normal));
        assert_eq!(pos.parse_move("b8a8").map(|m| m.kind()), Ok(MoveKind::Castle));
        // Where no plain move has the text, the king-destination form castles.
        let capablanca = registry.get("capablanca").expect("capablanca ships");
        let fen = "r4k3r/pppppppppp/10/10/10/10/PPPPPPPPPP/R4K3R w KQkq - 0 1";
        let mut pos = Position::from_fen(capablanca, fen).expect("valid FEN");
        assert_eq!(pos.parse_move("f1c1").map(|m| m.kind()), Ok(MoveKind::Castle));
        assert_eq!(pos.parse_move("f1i1").map(|m| m.kind()), Ok(MoveKind::Castle));
        assert_eq!(pos.parse_move("f1g1").map(|m| m.kind()), Ok(MoveKind::Normal));
    }

    #[test]
    fn xboard_ranks_shift_both_ways_on_ten_rank_boards() {
        let ten = BoardShape { files: 10, ranks: 10 };
        assert_eq!(uci_to_xboard(ten, "a10a9"), "a9a8");
        assert_eq!(xboard_to_uci(ten, "a0j9"), "a1j10");
        assert_eq!(uci_to_xboard(ten, "P@e4"), "P@e3");
        assert_eq!(uci_to_xboard(ten, "e9e10q"), "e8e9q");
        assert_eq!(xboard_to_uci(ten, "e8e9=q"), "e9e10q");
        assert_eq!(shift_ranks("a0", -1), None);
        let eight = BoardShape { files: 10, ranks: 8 };
        assert_eq!(uci_to_xboard(eight, "a7a8q"), "a7a8q");
        assert_eq!(xboard_to_uci(eight, "@@@@"), "@@@@");
    }
}
