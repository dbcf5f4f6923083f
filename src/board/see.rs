//! Static exchange evaluation for any piece set.
//!
//! The exchange on a move's destination is played out on the board itself:
//! each side recaptures with its least valuable attacker, and the attackers
//! are found again after every capture, so a rider behind the last capturer
//! joins in, a hopper whose screen left loses its attack and one that gains a
//! screen gains it. Non-capturing men never appear as attackers. Pins are
//! ignored; a royal man recaptures only when nothing defends the square.
//! The board is restored before the function returns.

use arrayvec::ArrayVec;

use crate::board::position::Position;
use crate::rules::geometry::Square;
use crate::rules::motion::AttackerList;
use crate::rules::moves::{Move, MoveKind};
use crate::rules::piece::{Cell, PieceKind};

/// Value that makes a royal man the last to recapture.
const ROYAL_VALUE: i32 = 100_000;

/// True when the exchange started by `m` gains at least `threshold` for the
/// side to move (values in the units of `value`; a capture of nothing is 0).
pub fn see_ge(pos: &mut Position, m: Move, threshold: i32, value: impl Fn(PieceKind) -> i32) -> bool {
    let royal = pos.variant().royal;
    let worth = |kind: PieceKind| if Some(kind) == royal { ROYAL_VALUE } else { value(kind) };
    let us = pos.side_to_move();
    let to = m.to();
    let (mover, victim_square) = match m.kind() {
        MoveKind::Castle | MoveKind::Swap | MoveKind::Pass => return threshold <= 0,
        MoveKind::Drop => (Cell::piece(us, m.piece()), to),
        MoveKind::EnPassant => (pos.cell(m.from()), pos.state().ep_victim),
        _ => (pos.cell(m.from()), to),
    };
    let victim = pos.cell(victim_square);
    let mut gain = if victim.is_piece() { worth(victim.kind()) } else { 0 };
    let mut at_risk = worth(mover.kind());
    let mut standing = mover;
    if m.kind() == MoveKind::Promotion {
        gain += value(m.piece()) - value(mover.kind());
        at_risk = value(m.piece());
        standing = Cell::piece(us, m.piece());
    }
    let mut swap = gain - threshold;
    if swap < 0 {
        return false;
    }
    swap = at_risk - swap;
    if swap <= 0 {
        return true;
    }
    let mut edits: ArrayVec<(Square, Cell), 128> = ArrayVec::new();
    let mut edit = |pos: &mut Position, sq: Square, cell: Cell| {
        // Each square is edited at most a few times (origin, victim, target,
        // and each attacker leaving once), so the record cannot overflow.
        let _ = edits.try_push((sq, pos.cell(sq)));
        pos.set_cell_raw(sq, cell);
    };
    if m.kind() != MoveKind::Drop {
        edit(pos, m.from(), Cell::EMPTY);
    }
    if victim_square != to {
        edit(pos, victim_square, Cell::EMPTY);
    }
    edit(pos, to, standing);
    let mut side = us;
    let mut attackers = AttackerList::new();
    let mut result = true;
    loop {
        side = !side;
        pos.attackers(to, side, &mut attackers);
        let Some((from, kind)) =
            attackers.iter().map(|a| (a.from, pos.cell(a.from).kind())).min_by_key(|&(_, kind)| worth(kind))
        else {
            break;
        };
        result = !result;
        if Some(kind) == royal {
            // The royal man may take only if the square is not defended.
            pos.attackers(to, !side, &mut attackers);
            if !attackers.is_empty() {
                result = !result;
            }
            break;
        }
        swap = worth(kind) - swap;
        if swap < i32::from(result) {
            break;
        }
        let cell = pos.cell(from);
        edit(pos, from, Cell::EMPTY);
        edit(pos, to, cell);
    }
    for &(sq, cell) in edits.iter().rev() {
        pos.set_cell_raw(sq, cell);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::registry::Registry;
    use std::sync::Arc;

    /// SEE of a move given in UCI text, with the variant's own piece values
    /// replaced by simple ones: pawn 100, then by letter.
    fn see(variant: &str, fen: &str, uci: &str, threshold: i32) -> bool {
        let reg = Registry::builtin();
        let v = reg.get(variant).expect("variant ships");
        let mut pos = Position::from_fen(Arc::clone(&v), fen).expect("valid FEN");
        let before = pos.clone();
        let m = pos.parse_move(uci).expect("legal move");
        let letters: Vec<char> = v.pieces.iter().map(|p| p.letter.to_ascii_uppercase()).collect();
        let value = |k: PieceKind| match letters[k.index()] {
            'P' | 'S' => 100,
            'N' | 'B' | 'G' | 'U' | 'O' | 'J' => 300,
            'H' | 'F' => 450,
            'R' => 500,
            'L' | 'A' | 'M' => 700,
            'C' => 800,
            'Q' => 900,
            _ => 0,
        };
        let result = see_ge(&mut pos, m, threshold, value);
        assert_eq!(pos.to_fen(), before.to_fen(), "the board is restored");
        result
    }

    /// The exchange's value: the largest threshold (in steps of 50) that holds.
    fn exchange(variant: &str, fen: &str, uci: &str) -> i32 {
        (-20..=20).rev().map(|k| k * 50).find(|&t| see(variant, fen, uci, t)).unwrap_or(-1050)
    }

    #[test]
    fn orthodox_exchanges() {
        // RxP, pawn recaptures: 100 - 500.
        assert_eq!(exchange("chess", "4k3/2p5/3p4/8/8/8/3R4/4K3 w - - 0 1", "d2d6"), -400);
        // NxP defended by nothing: +100.
        assert_eq!(exchange("chess", "4k3/8/3p4/8/4N3/8/8/4K3 w - - 0 1", "e4d6"), 100);
        // Rook battery: RxP, RxR, RxR = 100 - 500 + 500 (the rook behind joins
        // once the front rook has left the file).
        assert_eq!(exchange("chess", "3rk3/8/3p4/8/8/8/3R4/3RK3 w - - 0 1", "d2d6"), 100);
        // Without the battery the same capture loses the exchange.
        assert_eq!(exchange("chess", "3rk3/8/3p4/8/8/8/3R4/4K3 w - - 0 1", "d2d6"), -400);
        // A quiet move onto a square a pawn attacks loses the man.
        assert_eq!(exchange("chess", "4k3/8/2p5/8/8/8/8/3RK3 w - - 0 1", "d1d5"), -500);
    }

    #[test]
    fn a_royal_man_takes_only_undefended_men() {
        // QxP next to the enemy king: the king recaptures, nothing defends.
        assert_eq!(exchange("chess", "4k3/4p3/8/8/8/8/8/4QK2 w - - 0 1", "e1e7"), -800);
        // With the queen behind the rook, the king cannot recapture: +100.
        assert_eq!(exchange("chess", "4k3/4p3/8/8/8/8/4R3/4QK2 w - - 0 1", "e2e7"), 100);
    }

    #[test]
    fn cannon_screens() {
        // Clash 1: the black cannon on e10 guards e5 over the pawn on e8, so
        // rook takes knight loses the exchange: 300 - 500.
        let fen = "4h4k/10/4p5/10/10/4n5/10/10/10/4R4K w - - 0 1";
        assert_eq!(exchange("clash1", fen, "e1e5"), -200);
        // Without the screen the cannon defends nothing.
        let fen = "4h4k/10/10/10/10/4n5/10/10/10/4R4K w - - 0 1";
        assert_eq!(exchange("clash1", fen, "e1e5"), 300);
        // A capturer leaving the line gives a cannon its attack: white cannon
        // e2, own pawn e3 as screen, own rook e4 in the way. RxN on e5 leaves
        // e4 and the cannon hops e3 to e5: 300 - 500 + 500.
        let fen = "4r4k/10/10/10/10/4n5/4R5/4P5/4H5/9K w - - 0 1";
        assert_eq!(exchange("clash1", fen, "e4e5"), 300);
        let fen = "4r4k/10/10/10/10/4n5/4R5/4P5/10/9K w - - 0 1";
        assert_eq!(exchange("clash1", fen, "e4e5"), -200);
    }

    #[test]
    fn a_leo_whose_screen_recaptures_loses_its_attack() {
        // Black leo (mQcpQ) e10 behind its own rook e8 (the screen). RxN on
        // e5, the rook recaptures (cheaper than the leo) and leaves e8: the
        // leo has no screen any more, so the second white rook wins: +300.
        let fen = "4l2k2/10/4r5/10/10/R3n4R/10/10/10/9K w - - 0 1";
        assert_eq!(exchange("clash2", fen, "a5e5"), 300);
        // With the king on e9 as well the leo keeps a screen after the rook
        // leaves (e9), and recaptures: N - R + R - R = -200.
        let fen = "4l5/4k5/4r5/10/10/R3n4R/10/10/10/9K w - - 0 1";
        assert_eq!(exchange("clash2", fen, "a5e5"), -200);
    }

    #[test]
    fn monk_and_giraffe_recapture() {
        // Clash 3: a black monk (mBcpB) on b10 guards e7 over the king on c9.
        let fen = "1o8/2k7/10/4n5/10/10/10/10/10/4R4K w - - 0 1";
        assert_eq!(exchange("clash3", fen, "e1e7"), -200);
        // Clash 1: a black giraffe (a diagonal step, then three or more
        // squares straight on) on d10 reaches e5 through e9..e6.
        let fen = "3g5k/10/10/10/10/R3n5/10/10/10/9K w - - 0 1";
        assert_eq!(exchange("clash1", fen, "a5e5"), -200);
        // A man on e7 blocks the giraffe's path.
        let fen = "3g5k/10/10/4p5/10/R3n5/10/10/10/9K w - - 0 1";
        assert_eq!(exchange("clash1", fen, "a5e5"), 300);
    }

    #[test]
    fn clockwork_non_capturing_men_defend_nothing() {
        // A black non-capturing rook (u) on d8 "guards" d6: NxP wins the pawn.
        assert_eq!(exchange("clockwork", "3uk3/8/3p4/8/4N3/8/8/4K3 w - - 0 1", "e4d6"), 100);
        // A real rook does defend it.
        assert_eq!(exchange("clockwork", "3rk3/8/3p4/8/4N3/8/8/4K3 w - - 0 1", "e4d6"), -200);
    }
}
