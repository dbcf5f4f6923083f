//! Openings: start positions read from an EPD/FEN file (one a line; EPD
//! operations and `#` comments ignored), and random legal plies from a
//! seeded generator, for the match runner and self-play.

use std::sync::Arc;

use crate::board::position::Position;
use crate::rules::moves::MoveList;
use crate::rules::variant::Variant;

/// A start FEN and moves to play from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// Start position.
    pub fen: String,
    /// Opening moves in UCI text.
    pub moves: Vec<String>,
}

/// Why an opening file could not be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OpeningError {
    /// A line that is no FEN of the variant.
    #[error("line {line}: not a {variant} position: {text:?}")]
    BadLine {
        /// 1-based line number.
        line: usize,
        /// The variant.
        variant: String,
        /// The line.
        text: String,
    },
    /// No position in the file.
    #[error("no positions in the opening file")]
    Empty,
}

pub use crate::rules::zobrist::SplitMix64;

/// Reads one FEN or EPD line: the longest prefix of at most 7 fields that parses.
pub fn parse_line(variant: &Arc<Variant>, line: &str) -> Option<String> {
    let text = line.split(';').next().unwrap_or("");
    let text = text.strip_prefix("fen ").unwrap_or(text);
    let fields: Vec<&str> = text.split_whitespace().collect();
    (1..=fields.len().min(7)).rev().find_map(|n| {
        let candidate = fields[..n].join(" ");
        Position::from_fen(Arc::clone(variant), &candidate).ok().map(|p| p.to_fen())
    })
}

/// Reads an EPD/FEN file's positions.
pub fn read_openings(variant: &Arc<Variant>, text: &str) -> Result<Vec<Opening>, OpeningError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        match parse_line(variant, trimmed) {
            Some(fen) => out.push(Opening { fen, moves: Vec::new() }),
            None => {
                return Err(OpeningError::BadLine {
                    line: i + 1,
                    variant: variant.name.clone(),
                    text: trimmed.to_string(),
                })
            }
        }
    }
    if out.is_empty() {
        return Err(OpeningError::Empty);
    }
    Ok(out)
}

/// Appends up to `plies` random legal moves to `opening`, stopping before a
/// position without legal moves.
pub fn add_random_plies(variant: &Arc<Variant>, opening: &mut Opening, plies: u32, rng: &mut SplitMix64) {
    let Ok(mut pos) = Position::from_fen(Arc::clone(variant), &opening.fen) else {
        return;
    };
    for text in &opening.moves {
        match pos.parse_move(text) {
            Ok(m) => pos.make(m),
            Err(_) => return,
        }
    }
    let played = play_random_plies(&mut pos, plies as usize, rng);
    opening.moves.extend(played);
}

/// Plays up to `plies` random legal moves (setup choices included) on `pos`,
/// stopping before a position without legal moves; returns them in UCI text.
pub fn play_random_plies(pos: &mut Position, plies: usize, rng: &mut SplitMix64) -> Vec<String> {
    let (mut list, mut next) = (MoveList::new(), MoveList::new());
    let mut played = Vec::new();
    for _ in 0..plies {
        pos.generate_legal(&mut list);
        if list.is_empty() {
            break;
        }
        let m = list[rng.below(list.len())];
        let text = pos.move_to_uci(m, false);
        pos.make(m);
        // Do not walk into a position that has already ended.
        pos.generate_legal(&mut next);
        if next.is_empty() {
            pos.unmake(m);
            break;
        }
        played.push(text);
    }
    played
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::registry::Registry;

    #[test]
    fn epd_and_random() {
        let reg = Registry::builtin();
        let v = reg.get("chess").unwrap();
        let text = "# comment\nrnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; id \"x\";\n\n\
                    8/8/8/8/8/8/8/K6k w - - 0 1\n";
        let ops = read_openings(&v, text).unwrap();
        assert_eq!(ops.len(), 2);
        assert!(ops[0].fen.starts_with("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -"));
        assert!(read_openings(&v, "garbage\n").is_err());
        assert!(read_openings(&v, "").is_err());
        let mut a = Opening { fen: v.start_fen.clone(), moves: vec![] };
        let mut b = a.clone();
        add_random_plies(&v, &mut a, 8, &mut SplitMix64(7));
        add_random_plies(&v, &mut b, 8, &mut SplitMix64(7));
        assert_eq!(a, b);
        assert_eq!(a.moves.len(), 8);
    }
}
