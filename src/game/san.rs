//! SAN-like move text with the variant's letters (`Nf3`, `exd5`, `a9a10`
//! squares, `e8=Q`, `O-O`, `P@e4`, `+`/`#`), and its reader. Only the
//! variant's own pawn is written without a letter; every other man carries
//! its letter, also one that promotes or steps like a pawn (Clash 5's
//! special pawn `Sg8`, Clockwork's nc pawn). Setup swaps, passes and king
//! successions keep their UCI text.

use crate::board::position::Position;
use crate::rules::moves::{Move, MoveKind, MoveList};
use crate::rules::piece::{Color, PieceKind};
use crate::rules::variant::Variant;

pub use super::san_read::{parse_san, SanError};

/// The kind written without a letter: the man named "pawn", else the one
/// lettered `P` (None when the variant has neither).
pub fn pawn_kind(v: &Variant) -> Option<PieceKind> {
    let named = v.pieces.iter().position(|p| p.name.eq_ignore_ascii_case("pawn"));
    named.or_else(|| v.pieces.iter().position(|p| p.letter == 'P')).map(|i| PieceKind(i as u8))
}

/// The moving man's letter, None for the variant's pawn (or an empty square).
fn letter(pos: &Position, m: Move) -> Option<char> {
    let cell = pos.cell(m.from());
    if !cell.is_piece() || Some(cell.kind()) == pawn_kind(pos.variant()) {
        return None;
    }
    Some(pos.variant().pieces[cell.kind().index()].letter)
}

/// True when `m` takes a man (en passant included).
pub(crate) fn is_capture(pos: &Position, m: Move) -> bool {
    m.kind() == MoveKind::EnPassant || pos.cell(m.to()).is_piece()
}

/// True for the kinds of move written as a man's move on the board (not
/// castling, drops, swaps or passes).
pub(crate) fn is_board_move(m: Move) -> bool {
    !matches!(m.kind(), MoveKind::Swap | MoveKind::Pass | MoveKind::Drop | MoveKind::Castle)
}

fn file_char(m: Move) -> char {
    (b'a' + m.from().file()) as char
}

/// SAN of a legal move `m` in `pos` (which is left unchanged).
pub fn move_to_san(pos: &mut Position, m: Move) -> String {
    let mut text = match m.kind() {
        MoveKind::Swap | MoveKind::Pass => return pos.move_to_uci(m, false),
        MoveKind::Castle => {
            if m.to().file() > m.from().file() {
                "O-O".to_string()
            } else {
                "O-O-O".to_string()
            }
        }
        MoveKind::Drop => format!("{}@{}", pos.variant().pieces[m.piece().index()].letter, m.to()),
        _ => board_san(pos, m),
    };
    pos.make(m);
    if pos.in_check() {
        let mut list = MoveList::new();
        pos.generate_legal(&mut list);
        text.push(if list.is_empty() { '#' } else { '+' });
    }
    pos.unmake(m);
    text
}

fn board_san(pos: &mut Position, m: Move) -> String {
    let capture = is_capture(pos, m);
    let own_letter = letter(pos, m);
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    // Other moves of the same kind of man that would be written the same
    // without disambiguation.
    let rivals: Vec<Move> = list
        .iter()
        .copied()
        .filter(|&o| {
            o != m
                && o.to() == m.to()
                && o.from() != m.from()
                && is_board_move(o)
                && (o.kind() == MoveKind::Promotion) == (m.kind() == MoveKind::Promotion)
                && (m.kind() != MoveKind::Promotion || o.piece() == m.piece())
                && pos.cell(o.from()) == pos.cell(m.from())
        })
        .collect();
    let mut s: String = own_letter.map(String::from).unwrap_or_default();
    let same_file = rivals.iter().any(|o| o.from().file() == m.from().file());
    let same_rank = rivals.iter().any(|o| o.from().rank() == m.from().rank());
    if own_letter.is_none() && capture {
        s.push(file_char(m));
        if same_file {
            s.push_str(&(m.from().rank() + 1).to_string());
        }
    } else if !rivals.is_empty() {
        if !same_file {
            s.push(file_char(m));
        } else if !same_rank {
            s.push_str(&(m.from().rank() + 1).to_string());
        } else {
            s.push_str(&m.from().to_string());
        }
    }
    if capture {
        s.push('x');
    }
    s.push_str(&m.to().to_string());
    if m.kind() == MoveKind::Promotion {
        s.push('=');
        s.push(pos.variant().pieces[m.piece().index()].letter);
    }
    s
}

/// A line of UCI moves from `pos` as SAN, stopping at the first move the
/// rules reject (an engine's PV may run past the game's end or be garbled).
pub fn line_to_san(pos: &Position, line: &[String]) -> Vec<String> {
    let mut p = pos.clone();
    let mut out = Vec::new();
    for text in line {
        let Ok(m) = p.parse_move(text) else { break };
        out.push(move_to_san(&mut p, m));
        p.make(m);
    }
    out
}

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
