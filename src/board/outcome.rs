//! How a game ends by the variant's rules: the one decision that the engine,
//! both protocols, `menagerie play` and the match runner ask for
//! ([`Position::game_end`]), and the cheap draw test of the search
//! ([`Position::is_rule_draw`]) built from the same definitions: the
//! variant's end rules.

use std::fmt;

use crate::board::position::Position;
use crate::rules::moves::MoveList;
use crate::rules::piece::{ByColor, Color, PieceKind, MAX_KINDS};

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
    /// The men left cannot mate (one of the variant's `dead` rules): a draw.
    DeadPosition,
}

impl GameEnd {
    /// The game's result.
    pub fn outcome(self) -> Outcome {
        match self {
            GameEnd::Checkmate { winner } => Outcome::win_for(winner),
            GameEnd::Stalemate | GameEnd::Repetition { .. } | GameEnd::MoveRule { .. } | GameEnd::DeadPosition => {
                Outcome::Draw
            }
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
            GameEnd::DeadPosition => f.write_str("Draw by dead position"),
        }
    }
}

impl Position {
    /// How the game stands decided by the variant's rules, or None while it
    /// goes on. A side without a legal move is mated when in check, else
    /// stalemated (every shipped variant draws stalemate). King succession
    /// needs no case of its own: the legal generator offers the king-joker
    /// swaps, so a side with a safe joker is not mated. A mate on the move
    /// that reaches the repetition count or the move rule still wins; a
    /// dead position (no mate possible) is drawn at once.
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
        if self.is_dead() {
            return Some(GameEnd::DeadPosition);
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

    /// The search's draw test, without move generation: the move rule and
    /// dead positions as in [`Position::game_end`], and any repetition when
    /// the variant draws by repetition (a side that repeated once can repeat
    /// until the count is reached, so the search scores the first repetition
    /// as that draw).
    #[inline]
    pub fn is_rule_draw(&self) -> bool {
        self.move_rule_reached() || self.is_dead() || self.has_occurred(2.min(self.variant().end.repetition))
    }

    /// True when the men left make the position dead by one of the
    /// variant's `dead` rules. Cheap where it matters: one comparison while a
    /// man of a kind no rule names is on the board (a pawn, a rook, a fil);
    /// only then are the men counted.
    #[inline]
    pub fn is_dead(&self) -> bool {
        self.state().live_men == 0 && self.fits_dead_rule()
    }

    /// The men on the board (none may be in hand: a man in hand is material
    /// that can be dropped anywhere) fit a dead rule's halves, and, for a
    /// `same-colour` rule, all but the royal ones stand on one square colour.
    fn fits_dead_rule(&self) -> bool {
        let variant = self.variant();
        if variant.end.dead.is_empty() || self.hands_hold_men() {
            return false;
        }
        let mut men = ByColor([[0u8; MAX_KINDS]; 2]);
        let mut square_colours = 0u8;
        for &sq in self.squares() {
            let cell = self.cell(sq);
            if cell.is_piece() {
                let count = &mut men[cell.color()][cell.kind().index()];
                *count = count.saturating_add(1);
                if Some(cell.kind()) != variant.royal {
                    square_colours |= 1 << ((sq.file() + sq.rank()) & 1);
                }
            }
        }
        let one_colour = square_colours != 3;
        let [white, black] = &men.0;
        variant.end.dead.iter().any(|rule| rule.fits(white, black) && (one_colour || !rule.same_colour))
    }

    /// True when some man is in a hand.
    fn hands_hold_men(&self) -> bool {
        let variant = self.variant();
        variant.hands
            && Color::ALL
                .into_iter()
                .any(|c| (0..variant.kind_count()).any(|k| self.hand_count(c, PieceKind(k as u8)) > 0))
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
    use crate::board::registry::Registry;
    use std::sync::Arc;

    fn position(fen: &str) -> Position {
        at("chess", fen)
    }

    fn at(variant: &str, fen: &str) -> Position {
        let variant = Registry::builtin().get(variant).expect("variant ships");
        Position::from_fen(Arc::clone(&variant), fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
    }

    /// Asserts that each position is dead (`dead` true) or plays on, by
    /// both the game-end rule and the search's draw test.
    fn assert_dead(variant: &str, cases: &[(&str, bool)]) {
        for &(fen, dead) in cases {
            let mut pos = at(variant, fen);
            let expected = dead.then_some(GameEnd::DeadPosition);
            assert_eq!(pos.game_end(), expected, "{variant} {fen}");
            assert_eq!(pos.is_rule_draw(), dead, "{variant} {fen}");
            assert_eq!(pos.is_dead(), dead, "{variant} {fen}");
        }
    }

    #[test]
    fn dead_positions_in_chess_and_capablanca() {
        assert_dead(
            "chess",
            &[
                ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", true),
                ("4k3/8/8/8/8/8/8/4KN2 w - - 0 1", true),
                ("4k3/8/8/8/8/8/8/4KB2 b - - 0 1", true),
                ("4kb2/8/8/8/8/8/8/4K3 w - - 0 1", true),
                ("4kn2/8/8/8/8/8/8/4K3 b - - 0 1", true),
                // Material that can still mate (or be mated into): play on.
                ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", false),
                ("4k3/8/8/8/8/8/8/4KR2 w - - 0 1", false),
                ("4k3/8/8/8/8/8/8/3NKB2 w - - 0 1", false),
                ("4k3/8/8/8/8/8/8/3NKN2 w - - 0 1", false),
                ("4kn2/8/8/8/8/8/8/4KB2 w - - 0 1", false),
                ("4kb2/8/8/8/8/8/8/4KB2 w - - 0 1", false),
            ],
        );
        let kings = "4k5/10/10/10/10/10/10/4K5 w - - 0 1";
        for variant in ["capablanca", "caparandom", "relocation"] {
            assert_dead(
                variant,
                &[
                    (kings, true),
                    ("4k5/10/10/10/10/10/10/4KN4 w - - 0 1", true),
                    ("4kb4/10/10/10/10/10/10/4K5 w - - 0 1", true),
                    // The archbishop and the chancellor mate alone.
                    ("4k5/10/10/10/10/10/10/4KA4 w - - 0 1", false),
                    ("4k5/10/10/10/10/10/10/4KC4 w - - 0 1", false),
                    ("4k5/10/10/10/10/10/10/4KQ4 w - - 0 1", false),
                ],
            );
        }
    }

    #[test]
    fn dead_positions_in_clash_of_civilizations() {
        // Square colours: a1 and c1 are dark (file + rank even), b1 and f5 light.
        for variant in ["clash1", "clash2", "clash3", "clash4", "clash5"] {
            assert_dead(
                variant,
                &[
                    ("4k5/10/10/10/10/10/10/10/10/4K5 w - - 0 1", true),
                    ("4k5/10/10/10/10/10/10/10/10/4KN4 w - - 0 1", true),
                    ("4k5/10/10/10/10/10/10/10/10/2B1K5 w - - 0 1", true),
                    // Bishops of both sides, all on dark squares (c1, g1, f4).
                    ("4k5/10/10/10/10/10/5b4/10/10/2B1K1B3 w - - 0 1", true),
                    ("4k5/10/10/10/10/10/5b4/10/10/2B1K5 b - - 0 1", true),
                    // A bishop on a light square among them: play on.
                    ("4k5/10/10/10/10/5b4/10/10/10/2B1K5 w - - 0 1", false),
                    ("4k5/10/10/10/10/10/10/10/10/1BB1K5 w - - 0 1", false),
                    ("4k5/10/10/10/10/10/10/10/10/2BNK5 w - - 0 1", false),
                    ("4k5/10/10/10/10/10/10/10/10/3NKN4 w - - 0 1", false),
                    ("4k5/10/10/10/10/10/10/10/10/4KA4 w - - 0 1", false),
                    ("4k5/10/10/10/10/10/4P5/10/10/4K5 w - - 0 1", false),
                ],
            );
        }
        // Every fairy piece is left to the move rule.
        for (variant, letter) in [("clash1", 'F'), ("clash1", 'H'), ("clash1", 'G'), ("clash1", 'U'), ("clash1", 'M')] {
            assert_dead(variant, &[(&format!("4k5/10/10/10/10/10/10/{letter}9/10/4K5 w - - 0 1"), false)]);
        }
        for letter in ['J', 'O', 'S', 'F'] {
            assert_dead("clash5", &[(&format!("4k5/10/10/10/10/10/10/{letter}9/10/4K5 w - - 0 1"), false)]);
        }
    }

    #[test]
    fn clockwork_has_no_dead_positions() {
        // Material never leaves a Clockwork game: captured men return to a hand.
        assert_dead(
            "clockwork",
            &[
                ("4k3/8/8/8/8/8/8/4K3[] w - - 0 1", false),
                ("4k3/8/8/8/8/8/8/4K3[Qq] w - - 0 1", false),
                ("4k3/8/8/8/8/8/8/4KN2[] w - - 0 1", false),
            ],
        );
    }

    #[test]
    fn a_man_in_hand_is_material() {
        // Clockwork with a `dead K v K` rule of its own: only empty hands make it dead.
        let text = "name t\ninherit clockwork\ndead K v K\n";
        let variant = Arc::new(Registry::builtin().parse_text("t.var", text).expect("loads"));
        let pos = |fen: &str| Position::from_fen(Arc::clone(&variant), fen).expect("valid FEN");
        assert!(pos("4k3/8/8/8/8/8/8/4K3[] w - - 0 1").game_end() == Some(GameEnd::DeadPosition));
        assert!(pos("4k3/8/8/8/8/8/8/4K3[s] w - - 0 1").game_end().is_none());
    }

    #[test]
    fn the_dead_test_follows_captures_promotions_and_takebacks() {
        // Bxb2 leaves K+B v K; a capture by the king leaves K v K; a pawn
        // promoting to a knight gives K+N v K, to a queen plays on.
        for (fen, text, dead) in [
            ("4k3/8/8/8/8/8/1q6/K7 w - - 0 1", "a1b2", true),
            ("4k3/8/8/8/8/8/1n6/KB6 w - - 0 1", "a1b2", true),
            ("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8n", true),
            ("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q", false),
            ("4k3/8/8/8/8/8/1n6/KB6 w - - 0 1", "b1c2", false),
        ] {
            let mut pos = position(fen);
            let m = pos.parse_move(text).expect("legal");
            assert!(!pos.is_dead(), "{fen}");
            pos.make(m);
            assert_eq!(pos.is_dead(), dead, "{fen} {text}");
            assert_eq!(pos.game_end() == Some(GameEnd::DeadPosition), dead, "{fen} {text}");
            pos.unmake(m);
            assert!(!pos.is_dead() && pos.game_end().is_none(), "{fen} {text} taken back");
        }
        let end = position("4k3/8/8/8/8/8/8/4K3 w - - 0 1").game_end();
        assert_eq!(end.map(GameEnd::outcome), Some(Outcome::Draw));
        assert_eq!(end.map(|e| e.to_string()).as_deref(), Some("Draw by dead position"));
    }

    #[test]
    fn mate_and_stalemate() {
        let mut mated = position("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1");
        assert_eq!(mated.game_end(), Some(GameEnd::Checkmate { winner: Color::White }));
        assert_eq!(mated.game_end().map(GameEnd::outcome), Some(Outcome::WhiteWins));
        assert_eq!(mated.game_end().map(|e| e.to_string()).as_deref(), Some("White mates"));
        let mut stalemated = position("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
        assert_eq!(stalemated.game_end(), Some(GameEnd::Stalemate));
        assert_eq!(position("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").game_end(), None);
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
