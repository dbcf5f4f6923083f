//! SAN-like move text with the variant's letters (`Nf3`, `exd5`, `a9a10`
//! squares, `e8=Q`, `O-O`, `P@e4`, `+`/`#`): its writer and its reader. Only
//! the variant's own pawn is written without a letter; every other man
//! carries its letter, also one that promotes or steps like a pawn (Clash
//! 5's special pawn `Sg8`, Clockwork's nc pawn `Se4`). Setup swaps, passes
//! and king successions keep their UCI text.

mod read;
mod write;

pub use read::{parse_san, SanError};
pub use write::{line_to_san, move_to_san, pawn_kind};

use crate::board::position::Position;
use crate::rules::piece::Color;

/// A line given as SAN, with its move numbers, from `pos`
/// (`14... Nxd5 15. Qxd5`); it stops at a move the rules reject.
pub fn numbered_line(pos: &Position, line: &[String]) -> String {
    let mut p = pos.clone();
    let mut parts = Vec::new();
    for (i, san) in line.iter().enumerate() {
        let n = p.state().fullmove;
        if p.side_to_move() == Color::White {
            parts.push(format!("{n}."));
        } else if i == 0 {
            parts.push(format!("{n}..."));
        }
        parts.push(san.clone());
        match parse_san(&mut p, san) {
            Ok(m) => p.make(m),
            Err(_) => break,
        }
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::registry::Registry;

    fn play(pos: &mut Position, uci: &str) -> String {
        let m = pos.parse_move(uci).unwrap();
        let san = move_to_san(pos, m);
        assert_eq!(parse_san(pos, &san), Ok(m), "{san}");
        pos.make(m);
        san
    }

    #[test]
    fn chess_san() {
        let reg = Registry::builtin();
        let mut pos = Position::startpos(reg.get("chess").unwrap()).unwrap();
        let moves = "e2e4 d7d5 e4d5 g8f6 f1b5 c7c6 d5c6 d8d2 b1d2 b8d7 c6b7 a8b8 b7c8q b8c8 g1f3 e7e6 e1g1";
        let got: Vec<String> = moves.split(' ').map(|u| play(&mut pos, u)).collect();
        assert_eq!(got.join(" "), "e4 d5 exd5 Nf6 Bb5+ c6 dxc6 Qxd2+ Nxd2 Nbd7 cxb7 Rb8 bxc8=Q+ Rxc8 Ngf3 e6 O-O");
    }

    #[test]
    fn mate_and_capablanca() {
        let reg = Registry::builtin();
        let mut pos = Position::startpos(reg.get("chess").unwrap()).unwrap();
        let got: Vec<String> = ["f2f3", "e7e5", "g2g4", "d8h4"].iter().map(|u| play(&mut pos, u)).collect();
        assert_eq!(got.last().unwrap(), "Qh4#");
        let mut pos = Position::startpos(reg.get("capablanca").unwrap()).unwrap();
        assert_eq!(play(&mut pos, "c1d3"), "Ad3");
        assert_eq!(play(&mut pos, "h8g6"), "Cg6");
    }

    #[test]
    fn lines_as_san_with_numbers() {
        let reg = Registry::builtin();
        let mut pos = Position::startpos(reg.get("chess").unwrap()).unwrap();
        let m = pos.parse_move("e2e4").unwrap();
        pos.make(m);
        let line: Vec<String> = ["e7e5", "g1f3", "b8c6", "zz", "f1b5"].iter().map(|t| t.to_string()).collect();
        let sans = line_to_san(&pos, &line);
        assert_eq!(sans, ["e5", "Nf3", "Nc6"]);
        assert_eq!(numbered_line(&pos, &sans), "1... e5 2. Nf3 Nc6");
    }
}
