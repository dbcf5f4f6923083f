//! Threats for quiet-move ordering (`threat_order`): for every square, the
//! value of the cheapest enemy man attacking it. A quiet move that takes a
//! man out of such an attack goes earlier, one that walks into one goes
//! later (Stockfish's escape bonus and en-prise malus), for every fairy
//! piece alike: the attacks are walked by the variant's own rules.

use crate::board::position::Position;
use crate::rules::geometry::{Square, MAILBOX_SIZE};
use crate::rules::motion::for_each_attacked;
use crate::rules::moves::{Move, MoveKind};
use crate::rules::piece::{Color, PieceKind};

/// No attacker: above every man's value.
const UNATTACKED: i32 = i32::MAX;

/// The cheapest attacker of each square, for one side's men.
pub(super) struct ThreatMap {
    cheapest: [i32; MAILBOX_SIZE],
}

impl ThreatMap {
    /// The attacks of `by`'s men on `pos`, each man valued by `value`. The
    /// royal man (value 0) is left out: its attacks rarely hold a square.
    pub(super) fn of(pos: &Position, by: Color, value: impl Fn(PieceKind) -> i32) -> ThreatMap {
        let mut cheapest = [UNATTACKED; MAILBOX_SIZE];
        let board = pos.board();
        let motion = &pos.variant().motion;
        for &sq in pos.squares() {
            let c = board[sq.index()];
            if !c.is_color(by) {
                continue;
            }
            let v = value(c.kind());
            if v == 0 {
                continue;
            }
            // Initial-only rules (a pawn's double step) are left out, as the
            // evaluation's attack maps leave them out.
            for rule in motion.rules(by, c.kind()).iter().filter(|r| !r.initial_only) {
                for_each_attacked(board, sq, rule, |to| {
                    let least = &mut cheapest[to.index()];
                    *least = (*least).min(v);
                });
            }
        }
        ThreatMap { cheapest }
    }

    /// True when a man worth `value` on `sq` is attacked by a cheaper one.
    #[inline]
    pub(super) fn cheaper_attacker(&self, sq: Square, value: i32) -> bool {
        self.cheapest[sq.index()] < value
    }

    /// The ordering bonus (`bonus` or its negative, else 0) of a quiet move
    /// or drop of a man worth `value`: out of a cheaper man's attack to a
    /// square no cheaper one attacks, or into such an attack from safety.
    #[inline]
    pub(super) fn order_bonus(&self, m: Move, value: i32, bonus: i32) -> i32 {
        let drop = match m.kind() {
            MoveKind::Normal | MoveKind::DoublePush => false,
            MoveKind::Drop => true,
            // Castling, setup swaps and passes move no man to one square.
            _ => return 0,
        };
        if value == 0 {
            return 0;
        }
        let into = self.cheaper_attacker(m.to(), value);
        let from = !drop && self.cheaper_attacker(m.from(), value);
        match (from, into) {
            (true, false) => bonus,
            (false, true) => -bonus,
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::eval::catalogue::Catalogue;
    use crate::eval::EvalMode;

    /// The ordering bonus (at 1000) of each move in `moves` for the side to
    /// move in `fen`, from the threat map of the other side.
    fn bonuses(variant: &str, fen: &str, moves: &[&str]) -> Vec<i32> {
        let catalogue = Catalogue::builtin();
        let v = catalogue.get(variant).expect("variant ships");
        let eval = catalogue.evaluator(&v, EvalMode::Linear);
        let mut pos = Position::from_fen(Arc::clone(&v), fen).expect("valid FEN");
        let map = ThreatMap::of(&pos, !pos.side_to_move(), |k| eval.value(k));
        moves
            .iter()
            .map(|text| {
                let m = pos.parse_move(text).expect("legal move");
                let kind = if m.kind() == MoveKind::Drop { m.piece() } else { pos.cell(m.from()).kind() };
                map.order_bonus(m, eval.value(kind), 1000)
            })
            .collect()
    }

    #[test]
    fn escapes_gain_and_walks_into_a_cheaper_attack_lose() {
        // A black pawn on d5 attacks the knight on e4 and the square c4.
        let fen = "4k3/8/8/3p4/4N3/8/8/4KB2 w - - 0 1";
        // Knight out of the pawn's attack; bishop into it; bishop to a safe
        // square; a king move (the king has no value): 0.
        assert_eq!(bonuses("chess", fen, &["e4c3", "f1c4", "f1d3", "e1d2"]), [1000, -1000, 0, 0]);
        // The knight to c5: out of the pawn's attack, onto a square the
        // pawn does not attack (it takes forward, towards rank 1).
        assert_eq!(bonuses("chess", fen, &["e4c5"]), [1000]);
        // A rook attacked by a knight escapes, or stays attacked (c3); a
        // pawn walking into the knight's reach meets no cheaper man.
        let fen = "7k/8/8/3n4/8/4R3/5P2/4K3 w - - 0 1";
        assert_eq!(bonuses("chess", fen, &["e3h3", "e3c3", "f2f4"]), [1000, 0, 0]);
    }

    #[test]
    fn fairy_attacks_count_and_non_capturing_men_threaten_nothing() {
        // Capablanca: the black archbishop on c5 attacks e3 (as a bishop)
        // and d3 (as a knight); the white chancellor on e3 is worth more.
        let fen = "9k/10/10/2a7/10/4C5/10/4K5 w - - 0 1";
        assert_eq!(bonuses("capablanca", fen, &["e3h3", "e3e2", "e3d3"]), [1000, 1000, 0]);
        // From e2 the chancellor walks into the archbishop's knight leap
        // (e4) or its diagonal (e3, and d4, which the chancellor reaches by
        // its own knight leap), or to a safe square (c3).
        let fen = "9k/10/10/2a7/10/10/4C5/4K5 w - - 0 1";
        assert_eq!(bonuses("capablanca", fen, &["e2e4", "e2e3", "e2d4", "e2c3"]), [-1000, -1000, -1000, 0]);
        // Clockwork: a knight dropped where the pawn on d5 takes loses; a
        // non-capturing rook (u) on d8 attacks nothing, so d7 is safe.
        let fen = "3uk3/8/8/3p4/8/8/8/4K3[N] w - - 0 1";
        assert_eq!(bonuses("clockwork", fen, &["N@c4", "N@d7"]), [-1000, 0]);
    }
}
