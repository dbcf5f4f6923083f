//! What the games of a data file are made of: how often each kind of man
//! moved and each kind of move was played. `menagerie check FILE.data`
//! prints it, so that a log can say how often a rare rule (Clash 5's king
//! succession and special pawn, Clockwork's drops, promotions) occurs in
//! the data a network learns from.

use std::sync::Arc;

use crate::eval::nnue::data::{DataError, Item, PositionReader};
use crate::eval::nnue::games::Filter;
use crate::rules::moves::{Move, MoveKind};
use crate::rules::piece::{PieceKind, MAX_KINDS};
use crate::rules::variant::Variant;

/// Moves counted over a file's games.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MoveCensus {
    /// Plies played, random opening plies included.
    pub plies: u64,
    /// Moves per kind of man moved (for a drop, the man dropped), by kind index.
    pub by_man: [u64; MAX_KINDS],
    /// Moves per [`MoveKind`], by its number.
    pub by_kind: [u64; 8],
}

/// The names of the move kinds, in [`MoveKind`]'s order.
const KIND_NAMES: [&str; 8] =
    ["normal", "double steps", "en passant", "castlings", "promotions", "drops", "swaps", "passes"];

impl MoveCensus {
    /// Counts the moves of every game in `bytes` (record blocks have no moves).
    pub fn of(bytes: &[u8], variant: &Arc<Variant>) -> Result<MoveCensus, DataError> {
        let mut census = MoveCensus::default();
        PositionReader::new(variant, Filter::default()).read(bytes, &mut |item| {
            if let Item::Game(game) = item {
                // The reader has replayed the game already: it cannot fail here.
                let _ = game.replay(variant, |pos, _, _, m| census.count(pos.cell(m.from()).kind(), m));
            }
        })?;
        Ok(census)
    }

    fn count(&mut self, mover: PieceKind, m: Move) {
        let man = if m.kind() == MoveKind::Drop { m.piece() } else { mover };
        self.plies += 1;
        if let Some(n) = self.by_man.get_mut(usize::from(man.0)) {
            *n += 1;
        }
        self.by_kind[m.kind() as usize] += 1;
    }

    /// One line: `moves by man: P 41.2 %, N 12.0 %, ...; castlings 120, ...`
    /// (kinds of men and of moves that never occur are left out).
    pub fn describe(&self, variant: &Variant) -> String {
        let share = |n: u64| 100.0 * n as f64 / self.plies.max(1) as f64;
        let men: Vec<String> = variant
            .pieces
            .iter()
            .enumerate()
            .filter(|&(k, _)| self.by_man[k] > 0)
            .map(|(k, p)| format!("{} {:.2} %", p.letter, share(self.by_man[k])))
            .collect();
        let kinds: Vec<String> = (1..KIND_NAMES.len())
            .filter(|&k| self.by_kind[k] > 0)
            .map(|k| format!("{} {} ({:.3} %)", KIND_NAMES[k], self.by_kind[k], share(self.by_kind[k])))
            .collect();
        format!(
            "{} plies; moves by man: {}; {}",
            self.plies,
            if men.is_empty() { "-".to_string() } else { men.join(", ") },
            if kinds.is_empty() { "only normal moves".to_string() } else { kinds.join(", ") }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::MoveCensus;
    use crate::board::position::Position;
    use crate::board::registry::Registry;
    use crate::eval::nnue::data::{header_text, DataHeader};
    use crate::eval::nnue::games::{Game, PlyScore};

    /// A game block of one game of `variant` from its start, with `moves`.
    fn block(variant: &str, moves: &[&str]) -> (Vec<u8>, std::sync::Arc<crate::rules::variant::Variant>) {
        let v = Registry::builtin().get(variant).expect("ships");
        let mut pos = Position::startpos(v.clone()).expect("start");
        let mut game = Game::new(0, None);
        for text in moves {
            let m = pos.parse_move(text).expect(text);
            assert!(game.push(&mut pos, m, PlyScore::Cp(0)), "{text}");
            pos.make(m);
        }
        let mut bytes = header_text(&DataHeader::games(&v, "menagerie datagen --variant x")).into_bytes();
        game.encode(&mut bytes);
        (bytes, v)
    }

    #[test]
    fn a_chess_game_is_counted_by_man_and_kind() {
        let (bytes, v) = block("chess", &["e2e4", "d7d5", "e4d5", "g8f6", "g1f3", "f6d5", "f1c4", "e7e6", "e1g1"]);
        let census = MoveCensus::of(&bytes, &v).expect("reads");
        assert_eq!(census.plies, 9);
        let man = |letter: char| census.by_man[v.kind_of_letter(letter).expect("kind").0 as usize];
        assert_eq!((man('P'), man('N'), man('B'), man('K')), (4, 3, 1, 1));
        // Two double steps (e2e4, d7d5), one castling, the rest normal.
        assert_eq!(census.by_kind[1..5], [2, 0, 1, 0]);
        let line = census.describe(&v);
        assert!(line.starts_with("9 plies; moves by man: P 44.44 %, N 33.33 %, B 11.11 %"), "{line}");
        assert!(line.contains("castlings 1 (11.111 %)") && !line.contains("drops"), "{line}");
    }

    #[test]
    fn a_clockwork_drop_counts_the_man_dropped() {
        // Black's queen takes a pawn: White's hand gains a non-capturing pawn (S), dropped on e3.
        let (bytes, v) = block("clockwork", &["e2e4", "d7d5", "e4d5", "d8d5", "S@e3"]);
        let census = MoveCensus::of(&bytes, &v).expect("reads");
        let man = |letter: char| census.by_man[v.kind_of_letter(letter).expect("kind").0 as usize];
        assert_eq!((census.plies, census.by_kind[5]), (5, 1));
        assert_eq!((man('P'), man('Q'), man('S')), (3, 1, 1));
        assert!(census.describe(&v).contains("drops 1 (20.000 %)"), "{}", census.describe(&v));
    }
}
