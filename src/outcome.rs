//! How a game ends by the variant's rules: the one decision that the engine,
//! both protocols, `menagerie play` and the match runner ask for
//! ([`Position::game_end`]), and the cheap draw test of the search
//! ([`Position::is_rule_draw`]) built from the same definitions: the
//! variant's end rules.

use std::fmt;

use crate::moves::MoveList;
use crate::piece::Color;
use crate::position::Position;

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// 1-0.
    WhiteWins,
    /// 0-1.
    BlackWins,
    /// 1/2-1/2.
    Draw,
}

impl Outcome {
    /// PGN result text.
    pub fn pgn(self) -> &'static str {
        match self {
            Outcome::WhiteWins => "1-0",
            Outcome::BlackWins => "0-1",
            Outcome::Draw => "1/2-1/2",
        }
    }
    /// A win for `color`.
    pub fn win_for(color: Color) -> Outcome {
        match color {
            Color::White => Outcome::WhiteWins,
            Color::Black => Outcome::BlackWins,
        }
    }
    /// Points White scored.
    pub fn white_points(self) -> f64 {
        match self {
            Outcome::WhiteWins => 1.0,
            Outcome::BlackWins => 0.0,
            Outcome::Draw => 0.5,
        }
    }
}

/// Why the rules ended a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameEnd {
    /// The side to move has no legal move and its royal man is attacked.
    Checkmate {
        /// The side that gave mate.
        winner: Color,
    },
    /// The side to move has no legal move and is not in check: a draw.
    Stalemate,
    /// The position has occurred `times` times (the variant's count).
    Repetition {
        /// The variant's repetition count.
        times: u32,
    },
    /// `moves` moves per side without a capture or reset move.
    MoveRule {
        /// The variant's move-rule length.
        moves: u32,
    },
}

impl GameEnd {
    /// The game's result.
    pub fn outcome(self) -> Outcome {
        match self {
            GameEnd::Checkmate { winner } => Outcome::win_for(winner),
            GameEnd::Stalemate | GameEnd::Repetition { .. } | GameEnd::MoveRule { .. } => Outcome::Draw,
        }
    }
}

impl fmt::Display for GameEnd {
    /// The reason as a game record states it (`White mates`, `Draw by stalemate`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameEnd::Checkmate { winner: Color::White } => f.write_str("White mates"),
            GameEnd::Checkmate { winner: Color::Black } => f.write_str("Black mates"),
            GameEnd::Stalemate => f.write_str("Draw by stalemate"),
            GameEnd::Repetition { times } => write!(f, "Draw by {times}-fold repetition"),
            GameEnd::MoveRule { moves } => write!(f, "Draw by {moves} moves rule"),
        }
    }
}

impl Position {
    /// How the game stands decided by the variant's rules, or None while it
    /// goes on. A side without a legal move is mated when in check, else
    /// stalemated (every shipped variant draws stalemate). King succession
    /// needs no case of its own: the legal generator offers the king-joker
    /// swaps, so a side with a safe joker is not mated. A mate on the move
    /// that reaches the repetition count or the move rule still wins.
    pub fn game_end(&mut self) -> Option<GameEnd> {
        let mut legal = MoveList::new();
        self.generate_legal(&mut legal);
        if legal.is_empty() {
            return Some(if !self.in_setup() && self.in_check() {
                GameEnd::Checkmate { winner: !self.side_to_move() }
            } else {
                GameEnd::Stalemate
            });
        }
        let end = &self.variant().end;
        if self.has_occurred(end.repetition) {
            return Some(GameEnd::Repetition { times: end.repetition });
        }
        if self.move_rule_reached() {
            return Some(GameEnd::MoveRule { moves: end.move_rule });
        }
        None
    }

    /// The search's draw test, without move generation: the move rule as in
    /// [`Position::game_end`], and any repetition when the variant draws by
    /// repetition (a side that repeated once can repeat until the count is
    /// reached, so the search scores the first repetition as that draw).
    #[inline]
    pub fn is_rule_draw(&self) -> bool {
        self.move_rule_reached() || self.has_occurred(2.min(self.variant().end.repetition))
    }

    /// True when the variant draws by repetition and the current position
    /// has now occurred `times` times (this one included).
    #[inline]
    fn has_occurred(&self, times: u32) -> bool {
        times > 0 && self.repetitions() + 1 >= times
    }

    /// True when the move-rule counter has run out.
    #[inline]
    fn move_rule_reached(&self) -> bool {
        let moves = self.variant().end.move_rule;
        moves > 0 && u32::from(self.state().halfmove) >= 2 * moves
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Registry;
    use std::sync::Arc;

    fn position(fen: &str) -> Position {
        let variant = Registry::builtin().get("chess").expect("chess ships");
        Position::from_fen(Arc::clone(&variant), fen).expect("valid FEN")
    }

    #[test]
    fn mate_and_stalemate() {
        let mut mated = position("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1");
        assert_eq!(mated.game_end(), Some(GameEnd::Checkmate { winner: Color::White }));
        assert_eq!(mated.game_end().map(GameEnd::outcome), Some(Outcome::WhiteWins));
        assert_eq!(mated.game_end().map(|e| e.to_string()).as_deref(), Some("White mates"));
        let mut stalemated = position("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
        assert_eq!(stalemated.game_end(), Some(GameEnd::Stalemate));
        assert_eq!(position("4k3/8/8/8/8/8/8/4K3 w - - 0 1").game_end(), None);
    }

    #[test]
    fn move_rule_and_repetition() {
        let mut pos = position("4k3/8/8/8/8/8/8/R3K3 w - - 100 80");
        assert_eq!(pos.game_end(), Some(GameEnd::MoveRule { moves: 50 }));
        assert!(pos.is_rule_draw());
        let mut pos = position("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
        for (i, text) in ["a1a2", "e8e7", "a2a1", "e7e8"].iter().cycle().take(8).enumerate() {
            let m = pos.parse_move(text).expect("legal");
            pos.make(m);
            // Back at the start after 4 plies (second occurrence) and 8 (third).
            assert_eq!(pos.is_rule_draw(), i >= 3, "ply {i}");
            assert_eq!(pos.game_end().is_some(), i == 7, "ply {i}");
        }
        assert_eq!(pos.game_end(), Some(GameEnd::Repetition { times: 3 }));
        assert_eq!(pos.game_end().map(|e| e.to_string()).as_deref(), Some("Draw by 3-fold repetition"));
    }
}
