//! Writes SAN: which man carries which letter, and how much of its square
//! of departure tells it from a rival.

use crate::board::position::Position;
use crate::rules::moves::{Move, MoveKind, MoveList};
use crate::rules::piece::PieceKind;
use crate::rules::variant::Variant;

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
pub(super) fn is_capture(pos: &Position, m: Move) -> bool {
    m.kind() == MoveKind::EnPassant || pos.cell(m.to()).is_piece()
}

/// True for the kinds of move written as a man's move on the board (not
/// castling, drops, swaps or passes).
pub(super) fn is_board_move(m: Move) -> bool {
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
