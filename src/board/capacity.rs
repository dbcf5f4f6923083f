//! The move-list capacity check: an upper bound on the moves of any position
//! reachable from a variant's start, from its pieces' rules and the men of
//! its start position. The loader rejects a variant whose bound exceeds
//! [`crate::rules::moves::MAX_MOVES`], so move generation never runs out of room.

use crate::board::position::Position;
use crate::rules::piece::{ByColor, Color, PieceKind};
use crate::rules::variant::Variant;

/// The most moves any position reachable from `start` can have.
///
/// Men never change colour (a captured man goes to its owner's hand) and
/// never multiply, so each man of the start position (board and hand) adds
/// at most the moves, from the best square of an empty board, of the best
/// kind it can become by promotion or conversion. Drops add one move per
/// kind that can be held and square; castling two; en passant one per
/// capturing leap of the en-passant kinds. A setup phase has only setup
/// moves, and king succession is offered alone.
pub fn move_bound(start: &Position) -> usize {
    Color::ALL.iter().map(|&color| side_bound(start, color)).max().unwrap_or(0)
}

fn side_bound(start: &Position, color: Color) -> usize {
    let variant = &**start.variant();
    let kinds = variant.kind_count();
    let mut men = vec![0usize; kinds];
    for &sq in start.squares() {
        let cell = start.cell(sq);
        if cell.is_color(color) {
            men[cell.kind().index()] += 1;
        }
    }
    for (k, count) in men.iter_mut().enumerate() {
        *count += usize::from(start.hand_count(color, PieceKind(k as u8)));
    }
    let most = &variant.most_moves.get_or_init(|| {
        ByColor(Color::ALL.map(|c| (0..kinds).map(|k| most_moves(variant, c, PieceKind(k as u8))).collect()))
    })[color];
    let mut board_moves = 0;
    let mut may_become = 0u32;
    for (k, &count) in men.iter().enumerate().filter(|(_, &count)| count > 0) {
        let reach = kinds_reachable(variant, color, PieceKind(k as u8));
        let best = (0..kinds).filter(|j| reach >> j & 1 != 0).map(|j| most[j]).max().unwrap_or(0);
        board_moves += count * best;
        may_become |= reach;
    }
    let squares = usize::from(variant.shape.files) * usize::from(variant.shape.ranks);
    let drops = if variant.hands { may_become.count_ones() as usize * squares } else { 0 };
    let castling = if variant.castling.is_some() { 2 } else { 0 };
    let en_passant: usize = (0..kinds)
        .filter(|&k| variant.is_en_passant_kind(PieceKind(k as u8)))
        .map(|k| variant.pieces[k].rules.iter().filter(|r| r.mode.captures() && r.is_leap()).count())
        .sum();
    let files = usize::from(variant.shape.files);
    let setup = if variant.setup.is_some() { 1 + files * files.saturating_sub(1) } else { 0 };
    let succession = men.iter().sum();
    (board_moves + drops + castling + en_passant).max(setup).max(succession)
}

/// The kinds (a bit set, `kind` included) a man of `kind` can become: by
/// promotion, and in drop variants by conversion when captured.
fn kinds_reachable(variant: &Variant, color: Color, kind: PieceKind) -> u32 {
    let mut reach = 1u32 << kind.0;
    loop {
        let mut next = reach;
        for k in (0..variant.kind_count()).filter(|k| reach >> k & 1 != 0) {
            for p in &variant.promotions[color][k] {
                next |= 1 << p.0;
            }
            if variant.hands {
                next |= 1 << variant.capture_to_hand[k].0;
            }
        }
        if next == reach {
            return reach;
        }
        reach = next;
    }
}

/// The most moves one man of `kind` can have, over every square of the empty
/// board: each rule's targets (a capture-only line ends at its first man, so
/// gives one), a move onto the promotion rank counting once per choice.
fn most_moves(variant: &Variant, color: Color, kind: PieceKind) -> usize {
    let choices = variant.promotions[color][kind.index()].len();
    let promotion_rank = i32::from(variant.promotion_rank[color]);
    let weight = |rank: i32| if choices > 0 && rank == promotion_rank { choices } else { 1 };
    let (files, ranks) = (i32::from(variant.shape.files), i32::from(variant.shape.ranks));
    let mut most = 0;
    for file in 0..files {
        for rank in 0..ranks {
            let moves: usize = variant.pieces[kind.index()]
                .rules
                .iter()
                .map(|rule| {
                    let weights = rule
                        .unblocked_targets(
                            color.forward(),
                            (file, rank),
                            (i32::from(variant.shape.files), i32::from(variant.shape.ranks)),
                        )
                        .into_iter()
                        .map(|(_, r)| weight(r));
                    if rule.mode.quiet() {
                        weights.sum()
                    } else {
                        weights.max().unwrap_or(0)
                    }
                })
                .sum();
            most = most.max(moves);
        }
    }
    most
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::registry::Registry;

    /// Chess: each pawn may become a queen (27 moves from d4), plus the
    /// pieces at their best (queen 27, rooks 14, bishops 13, knights 8, king
    /// 8), castling 2 and the pawn's two capturing leaps for en passant.
    #[test]
    fn chess_counts_each_man_at_its_best() {
        let chess = Registry::builtin().get("chess").expect("chess ships");
        let start = Position::startpos(chess).expect("start position");
        assert_eq!(move_bound(&start), 8 * 27 + 27 + 2 * 14 + 2 * 13 + 2 * 8 + 8 + 2 + 2);
    }
}
