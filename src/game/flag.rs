//! Who wins when a flag falls: the side whose time ran out loses, unless
//! its opponent could not possibly mate, which draws.

use crate::board::outcome::Outcome;
use crate::board::position::Position;
use crate::rules::piece::{Color, PieceKind, MAX_KINDS};

/// The result when `flagged`'s flag falls in `pos`: a loss, or a draw when
/// the opponent cannot mate ([`cannot_mate`]).
pub fn flag_outcome(flagged: Color, pos: &Position) -> Outcome {
    if cannot_mate(pos, !flagged) {
        Outcome::Draw
    } else {
        Outcome::win_for(!flagged)
    }
}

/// True when `side` could never mate, by the rules of the variant's data
/// (FIDE's 6.9: the flag loses unless no series of legal moves mates):
/// `side` holds no man in hand and has only royal men (kings) on the board,
/// or the men of both sides make a dead position by one of the variant's
/// `dead` rules (in chess: king and one minor against a bare king). Where
/// the other side's men could help (a knight against a rook, which can
/// block its own king in), mate is possible and the flag still loses.
pub fn cannot_mate(pos: &Position, side: Color) -> bool {
    let variant = pos.variant();
    let kinds = variant.kind_count();
    let holds = |color: Color| variant.hands && (0..kinds).any(|k| pos.hand_count(color, PieceKind(k as u8)) > 0);
    if holds(side) {
        return false;
    }
    let royal = variant.royal.map(PieceKind::index);
    let mut men = [[0u8; MAX_KINDS]; 2];
    let mut square_colours = 0u8;
    for &sq in pos.squares() {
        let cell = pos.cell(sq);
        if cell.is_piece() {
            let count = &mut men[cell.color().index()][cell.kind().index()];
            *count = count.saturating_add(1);
            if Some(cell.kind().index()) != royal {
                square_colours |= 1 << ((sq.file() + sq.rank()) & 1);
            }
        }
    }
    let only_royal = |counts: &[u8; MAX_KINDS]| counts.iter().enumerate().all(|(k, &n)| n == 0 || Some(k) == royal);
    if only_royal(&men[side.index()]) {
        return true;
    }
    let one_colour = square_colours != 3;
    !holds(!side)
        && variant.end.dead.iter().any(|rule| {
            rule.fits(&men[Color::White.index()], &men[Color::Black.index()]) && (one_colour || !rule.same_colour)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::registry::Registry;
    use std::sync::Arc;

    /// The result when White's flag falls in `fen` of `variant`.
    fn white_flags(variant: &str, fen: &str) -> Outcome {
        let variant = Registry::builtin().get(variant).expect("variant ships");
        let pos = Position::from_fen(Arc::clone(&variant), fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        flag_outcome(Color::White, &pos)
    }

    #[test]
    fn a_flag_fall_loses_unless_the_opponent_cannot_mate() {
        let cases = [
            // Chess: a bare king cannot mate; nor a king and one minor against a bare king.
            ("chess", "4k3/8/8/8/8/8/PPPP4/RNBQK3 w - - 0 1", Outcome::Draw),
            ("chess", "4kn2/8/8/8/8/8/8/4K3 w - - 0 1", Outcome::Draw),
            ("chess", "4kb2/8/8/8/8/8/8/4K3 w - - 0 1", Outcome::Draw),
            // Against a rook a knight or a bishop can mate (the rook blocks its own
            // king: Kh1 Rg1, Nf2#), so the flag loses, as FIDE's 6.9 rules.
            ("chess", "4kn2/8/8/8/8/8/8/R3K3 w - - 0 1", Outcome::BlackWins),
            ("chess", "4kb2/8/8/8/8/8/8/R3K3 w - - 0 1", Outcome::BlackWins),
            // A pawn, a rook, two knights: mate is possible, the flag loses.
            ("chess", "4k3/4p3/8/8/8/8/8/R3K3 w - - 0 1", Outcome::BlackWins),
            ("chess", "r3k3/8/8/8/8/8/8/4K3 w - - 0 1", Outcome::BlackWins),
            ("chess", "3nkn2/8/8/8/8/8/8/4K3 w - - 0 1", Outcome::BlackWins),
            // Even where only White's men could help Black mate.
            ("chess", "4kn2/8/8/8/8/8/PPP5/4K3 w - - 0 1", Outcome::BlackWins),
            // Clash 1: bishops all on one colour cannot mate (its same-colour rule).
            ("clash1", "3bkb4/10/10/10/10/10/10/10/10/4K5 w - - 0 1", Outcome::Draw),
            ("clash1", "3bkb4/10/10/10/10/10/10/10/10/4K1B3 w - - 0 1", Outcome::Draw),
            ("clash1", "3bkb4/10/10/10/10/10/10/10/10/3BK5 w - - 0 1", Outcome::BlackWins),
            ("clash1", "3bbk4/10/10/10/10/10/10/10/10/4K5 w - - 0 1", Outcome::BlackWins),
            // Clockwork has no dead rules: a bare king draws, a man in hand can still mate.
            ("clockwork", "4k3/8/8/8/8/8/8/R3K3[] w - - 0 1", Outcome::Draw),
            ("clockwork", "4k3/8/8/8/8/8/8/R3K3[o] w - - 0 1", Outcome::BlackWins),
            ("clockwork", "4kn2/8/8/8/8/8/8/R3K3[] w - - 0 1", Outcome::BlackWins),
        ];
        for (variant, fen, expected) in cases {
            assert_eq!(white_flags(variant, fen), expected, "{variant} {fen}");
        }
    }
}
