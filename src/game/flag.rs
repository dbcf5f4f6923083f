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

/// True when `side`'s men could never mate, read from the variant's data
/// rather than from chess alone: `side` holds no man in hand, and its men on
/// the board are only royal men (kings), or would make a dead position by
/// one of the variant's `dead` rules against a lone royal man (in chess: a
/// bare king, or a king with one bishop or one knight). The other side's men
/// are not looked at, so a mate that would need their help (a knight against
/// pawns) does not save the flagged side: that is still a loss.
pub fn cannot_mate(pos: &Position, side: Color) -> bool {
    let variant = pos.variant();
    let kinds = variant.kind_count();
    if variant.hands && (0..kinds).any(|k| pos.hand_count(side, PieceKind(k as u8)) > 0) {
        return false;
    }
    let royal = variant.royal.map(PieceKind::index);
    let mut men = [0u8; MAX_KINDS];
    let mut square_colours = 0u8;
    for &sq in pos.squares() {
        let cell = pos.cell(sq);
        if cell.is_piece() && cell.color() == side {
            let count = &mut men[cell.kind().index()];
            *count = count.saturating_add(1);
            if Some(cell.kind().index()) != royal {
                square_colours |= 1 << ((sq.file() + sq.rank()) & 1);
            }
        }
    }
    if men.iter().enumerate().all(|(k, &n)| n == 0 || Some(k) == royal) {
        return true;
    }
    let mut lone = [0u8; MAX_KINDS];
    if let Some(k) = royal {
        lone[k] = 1;
    }
    let one_colour = square_colours != 3;
    variant.end.dead.iter().any(|rule| rule.fits(&men, &lone) && (one_colour || !rule.same_colour))
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
            // Chess: a bare king, or a king and one minor, cannot mate.
            ("chess", "4k3/8/8/8/8/8/PPPP4/RNBQK3 w - - 0 1", Outcome::Draw),
            ("chess", "4kn2/8/8/8/8/8/8/R3K3 w - - 0 1", Outcome::Draw),
            ("chess", "4kb2/8/8/8/8/8/8/R3K3 w - - 0 1", Outcome::Draw),
            // A pawn, a rook, two knights: mate is possible, the flag loses.
            ("chess", "4k3/4p3/8/8/8/8/8/R3K3 w - - 0 1", Outcome::BlackWins),
            ("chess", "r3k3/8/8/8/8/8/8/4K3 w - - 0 1", Outcome::BlackWins),
            ("chess", "3nkn2/8/8/8/8/8/8/4K3 w - - 0 1", Outcome::BlackWins),
            // Even where only White's men could help Black mate.
            ("chess", "4kn2/8/8/8/8/8/PPP5/4K3 w - - 0 1", Outcome::Draw),
            // Clash 1: bishops all on one colour cannot mate (its same-colour rule).
            ("clash1", "3bkb4/10/10/10/10/10/10/10/10/4K5 w - - 0 1", Outcome::Draw),
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
