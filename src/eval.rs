//! Static evaluation for any variant, derived from the variant file alone
//! (uses position, variant, geometry, piece).
//!
//! Everything that depends only on the variant is precomputed once into
//! per-cell, per-square tables, so evaluating a position is one scan of the
//! board plus the hands:
//! - **material**: the `value` of each piece in the variant file; a piece of
//!   value 0 that is not royal gets a value derived from its average
//!   empty-board mobility (`30 * mobility + 150`, which puts a knight near 310
//!   and a rook near 570) so that a file without values still plays;
//! - **centralisation/mobility**: for each piece and square, the number of
//!   squares its compiled move rules reach on an empty board, relative to the
//!   piece's average (a knight in the corner reaches 2, in the centre 8);
//! - **pawns** (pieces that promote): advancement towards the promotion rank,
//!   growing in the endgame, and a penalty for doubled pawns;
//! - **hands**: a man in hand is worth slightly more than on the board,
//!   because it can be dropped anywhere;
//! - **king safety**: the king stays back in the middlegame, behind a shield of
//!   its own men, and enemy pieces close to it cost points; in the endgame it
//!   centralises.
//!
//! Middlegame and endgame scores are blended by the non-pawn material left.

use std::sync::Arc;

use crate::geometry::{Square, MAILBOX_SIZE};
use crate::motion::{for_each_target, Board, CompiledRule, Mode};
use crate::piece::{Cell, Color, PieceKind, MAX_KINDS};
use crate::position::Position;
use crate::variant::Variant;

/// Largest phase value (all non-pawn material on the board).
const PHASE_MAX: i32 = 256;
/// Bonus for the side to move.
const TEMPO: i32 = 12;
/// Penalty per extra pawn on a file.
const DOUBLED_PAWN: i32 = 15;
/// Bonus per own man in front of the king (middlegame).
const SHIELD: i32 = 10;
/// Penalty per enemy piece per step of closeness to the king (middlegame).
const TROPISM: i32 = 3;
/// Bonus per square a piece reaches on the actual board.
const MOBILITY: i32 = 3;

/// Precomputed evaluation tables of one variant.
#[derive(Clone, Debug)]
pub struct Evaluator {
    variant: Arc<Variant>,
    /// Material value per kind (0 for the royal piece).
    value: [i32; MAX_KINDS],
    /// Value of a man in hand per kind.
    hand_value: [i32; MAX_KINDS],
    /// Kinds that promote (pawns), as a bitmask.
    pawns: u32,
    /// Middlegame and endgame piece-square scores, indexed by `cell * 256 + square`,
    /// from White's point of view (material included).
    mg: Vec<i16>,
    eg: Vec<i16>,
    /// Subtracted from each piece's mobility score (half its average
    /// empty-board reach), so that mobility does not inflate material.
    mobility_bias: [i32; MAX_KINDS],
    /// Count material only (the `Evaluation material` baseline).
    material_only: bool,
    /// Minus White's material lead in the start position, added to the
    /// middlegame score (see [`Evaluator::new`]).
    army_balance: i32,
    /// Phase weight per kind (non-pawn, non-royal material).
    phase_weight: [i32; MAX_KINDS],
    /// Total phase weight of the start position (board and hands).
    phase_total: i32,
}

/// The board of `variant` with no men on it.
fn empty_board(variant: &Variant) -> Board {
    let mut board = [Cell::OFFBOARD; MAILBOX_SIZE];
    for sq in variant.shape.squares() {
        board[sq.index()] = Cell::EMPTY;
    }
    board
}

/// Squares a man of `kind` and `color` reaches from `from` on `empty`, an
/// empty board, by moving or capturing (each square counted once).
fn empty_board_reach(variant: &Variant, empty: &Board, color: Color, kind: PieceKind, from: Square) -> i32 {
    let mut seen = [false; MAILBOX_SIZE];
    let mut count = 0;
    for rule in variant.motion.rules(color, kind) {
        // On an empty board a capturing rule reaches the squares it could take on.
        let rule = CompiledRule { mode: Mode::Both, ..*rule };
        for_each_target(empty, from, &rule, !color, |to| {
            if !seen[to.index()] {
                seen[to.index()] = true;
                count += 1;
            }
        });
    }
    count
}

impl Evaluator {
    /// Builds the tables of `variant`.
    pub fn new(variant: &Arc<Variant>) -> Evaluator {
        let v = &**variant;
        let kinds = v.kind_count().min(MAX_KINDS);
        let shape = v.shape;
        let squares: Vec<Square> = shape.squares().collect();
        let empty = empty_board(v);
        let mut value = [0i32; MAX_KINDS];
        let mut hand_value = [0i32; MAX_KINDS];
        let mut pawns = 0u32;
        let mut phase_weight = [0i32; MAX_KINDS];
        let mut mobility_bias = [0i32; MAX_KINDS];
        let mut mg = vec![0i16; Cell::COUNT * MAILBOX_SIZE];
        let mut eg = vec![0i16; Cell::COUNT * MAILBOX_SIZE];
        for k in 0..kinds {
            let kind = PieceKind(k as u8);
            let royal = v.royal == Some(kind);
            if !v.promotions[Color::White][k].is_empty() {
                pawns |= 1 << k;
            }
            // Average empty-board reach (from White's side; it is symmetric).
            let total: i32 = squares.iter().map(|&sq| empty_board_reach(v, &empty, Color::White, kind, sq)).sum();
            let average = total / squares.len().max(1) as i32;
            let declared = v.pieces[k].value;
            value[k] = if royal {
                0
            } else if declared == 0 {
                30 * average + 150
            } else {
                declared
            };
            hand_value[k] = value[k] + value[k] / 10;
            mobility_bias[k] = MOBILITY * average / 2;
            if !royal && pawns >> k & 1 == 0 {
                phase_weight[k] = value[k].max(0);
            }
            let ranks = shape.ranks as i32;
            for color in Color::ALL {
                let cell = Cell::piece(color, kind);
                for &sq in &squares {
                    // Progress from the piece's own first rank, 0..ranks-1.
                    let progress = match color {
                        Color::White => sq.rank() as i32,
                        Color::Black => ranks - 1 - sq.rank() as i32,
                    };
                    let reach = empty_board_reach(v, &empty, color, kind, sq);
                    let central = ((reach - average) * 40 / average.max(1)).clamp(-30, 30);
                    let (m, e) = if royal {
                        (-12 * progress.min(3) - central / 2, central)
                    } else if pawns >> k & 1 != 0 {
                        // Scaled so that the rank before promotion is "6" on any board.
                        let p = progress * 6 / (ranks - 2).max(1);
                        let centre_file = (2 * sq.file() as i32 - (shape.files as i32 - 1)).abs();
                        let file_bonus = (3 - centre_file).max(0) * 3;
                        (2 * p * p + file_bonus, 4 * p * p)
                    } else {
                        (central, central / 2)
                    };
                    let index = cell.0 as usize * MAILBOX_SIZE + sq.index();
                    mg[index] = (value[k] + m).clamp(i16::MIN as i32, i16::MAX as i32) as i16;
                    eg[index] = (value[k] + e).clamp(i16::MIN as i32, i16::MAX as i32) as i16;
                }
            }
        }
        let start = Position::startpos(Arc::clone(variant)).ok();
        let mut phase_total = 0;
        if let Some(start) = &start {
            for &sq in start.squares() {
                let c = start.cell(sq);
                if c.is_piece() {
                    phase_total += phase_weight[c.kind().index()];
                }
            }
            for color in Color::ALL {
                for (k, &w) in phase_weight.iter().enumerate().take(kinds) {
                    phase_total += w * start.hand_count(color, PieceKind(k as u8)) as i32;
                }
            }
        }
        let mut evaluator = Evaluator {
            variant: Arc::clone(variant),
            value,
            hand_value,
            pawns,
            mg,
            eg,
            mobility_bias,
            phase_weight,
            phase_total: phase_total.max(1),
            material_only: false,
            army_balance: 0,
        };
        // Variants with two different armies (Clash) are designed to be level
        // at the start, so a material lead there says more about our values
        // for fairy pieces than about the game. The lead is taken back in the
        // middlegame score; it fades with the pieces as the game goes on.
        if let Some(start) = &start {
            let lead = evaluator.material(start);
            evaluator.army_balance = if start.side_to_move() == Color::White { -lead } else { lead };
        }
        evaluator
    }

    /// The same tables, scoring material only: men on the board and in hand at
    /// their variant-file values. A deliberately weak baseline to measure the
    /// full evaluation against (`setoption name Evaluation value material`).
    pub fn material_only(variant: &Arc<Variant>) -> Evaluator {
        Evaluator { material_only: true, ..Evaluator::new(variant) }
    }

    /// True for the material-only baseline.
    pub fn is_material_only(&self) -> bool {
        self.material_only
    }

    /// The variant these tables belong to.
    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// Material value of a kind in centipawns (0 for the royal piece).
    #[inline]
    pub fn value(&self, kind: PieceKind) -> i32 {
        self.value[kind.index()]
    }

    /// True for kinds that promote (pawns).
    #[inline]
    pub fn is_pawn(&self, kind: PieceKind) -> bool {
        self.pawns >> kind.0 & 1 != 0
    }

    /// True when `color` has a man other than pawns and the royal piece, on the
    /// board or in hand (null-move pruning is unsafe without one: zugzwang).
    pub fn has_non_pawn_material(&self, pos: &Position, color: Color) -> bool {
        let kinds = self.variant.kind_count();
        if (0..kinds).any(|k| self.phase_weight[k] > 0 && pos.hand_count(color, PieceKind(k as u8)) > 0) {
            return true;
        }
        pos.squares().iter().any(|&sq| {
            let c = pos.cell(sq);
            c.is_color(color) && self.phase_weight[c.kind().index()] > 0
        })
    }

    /// The score of `pos` in centipawns from the side to move's point of view.
    pub fn evaluate(&self, pos: &Position) -> i32 {
        if self.material_only {
            return self.material(pos);
        }
        let mut mg = 0i32;
        let mut eg = 0i32;
        let mut phase = 0i32;
        // Pawns per file and colour, for doubled pawns.
        let mut pawn_files = [[0u8; 16]; 2];
        let kings = [pos.king_square(Color::White), pos.king_square(Color::Black)];
        let mut tropism = [0i32; 2];
        for &sq in pos.squares() {
            let c = pos.cell(sq);
            if !c.is_piece() {
                continue;
            }
            let index = c.0 as usize * MAILBOX_SIZE + sq.index();
            let sign = if c.color() == Color::White { 1 } else { -1 };
            mg += sign * self.mg[index] as i32;
            eg += sign * self.eg[index] as i32;
            let kind = c.kind();
            let weight = self.phase_weight[kind.index()];
            phase += weight;
            if self.pawns >> kind.0 & 1 != 0 {
                pawn_files[c.color().index()][sq.file() as usize & 15] += 1;
            } else if weight > 0 {
                let mobility = MOBILITY * self.mobility(pos, sq, c) - self.mobility_bias[kind.index()];
                mg += sign * mobility;
                eg += sign * mobility;
                // Enemy pieces near a king threaten it.
                if let Some(k) = kings[(!c.color()).index()] {
                    let d = (sq.file() as i32 - k.file() as i32).abs().max((sq.rank() as i32 - k.rank() as i32).abs());
                    tropism[(!c.color()).index()] += (4 - d).max(0);
                }
            }
        }
        let kinds = self.variant.kind_count();
        for color in Color::ALL {
            let sign = if color == Color::White { 1 } else { -1 };
            for k in 0..kinds {
                let n = pos.hand_count(color, PieceKind(k as u8)) as i32;
                if n > 0 {
                    mg += sign * n * self.hand_value[k];
                    eg += sign * n * self.hand_value[k];
                    phase += n * self.phase_weight[k];
                }
            }
            let doubled: i32 = pawn_files[color.index()].iter().map(|&n| (n as i32 - 1).max(0)).sum();
            mg -= sign * doubled * DOUBLED_PAWN;
            eg -= sign * doubled * DOUBLED_PAWN;
            mg -= sign * tropism[color.index()] * TROPISM;
            if let Some(k) = kings[color.index()] {
                mg += sign * SHIELD * self.shield(pos, color, k);
            }
        }
        mg += self.army_balance;
        let phase = (phase * PHASE_MAX / self.phase_total).min(PHASE_MAX);
        let score = (mg * phase + eg * (PHASE_MAX - phase)) / PHASE_MAX;
        let score = if pos.side_to_move() == Color::White { score } else { -score };
        score + TEMPO
    }

    /// Material balance from the side to move's point of view.
    fn material(&self, pos: &Position) -> i32 {
        let mut score = 0;
        for &sq in pos.squares() {
            let c = pos.cell(sq);
            if c.is_piece() {
                let v = self.value[c.kind().index()];
                score += if c.color() == Color::White { v } else { -v };
            }
        }
        for (k, &v) in self.value.iter().enumerate().take(self.variant.kind_count()) {
            let kind = PieceKind(k as u8);
            score += v * (pos.hand_count(Color::White, kind) as i32 - pos.hand_count(Color::Black, kind) as i32);
        }
        if pos.side_to_move() == Color::White {
            score
        } else {
            -score
        }
    }

    /// Squares a man reaches on the actual board: empty ones and enemy men
    /// for its capturing rules (initial moves, hoppers and bent riders are
    /// left out: rare and costly).
    fn mobility(&self, pos: &Position, from: Square, cell: Cell) -> i32 {
        let color = cell.color();
        let mut count = 0;
        for rule in self.variant.motion.rules(color, cell.kind()) {
            if !rule.initial_only && rule.motion.is_simple() {
                for_each_target(pos.board(), from, rule, !color, |_| count += 1);
            }
        }
        count
    }

    /// Own men on the three squares in front of the king.
    fn shield(&self, pos: &Position, color: Color, king: Square) -> i32 {
        let forward = 16 * color.forward() as i16;
        let front = king.offset(forward);
        [front.offset(-1), front, front.offset(1)].iter().filter(|&&sq| pos.cell(sq).is_color(color)).count() as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::Registry;

    #[test]
    fn start_positions_are_balanced() {
        let reg = Registry::builtin();
        for name in reg.names() {
            let Some(v) = reg.get(&name) else { continue };
            let ev = Evaluator::new(&v);
            let Ok(pos) = Position::startpos(Arc::clone(&v)) else {
                continue;
            };
            let score = ev.evaluate(&pos);
            // The Clash armies differ, so their start is level only up to
            // mobility and placement; the material lead is balanced out.
            let limit = if name.starts_with("clash") { 250 } else { 60 };
            assert!(score.abs() < limit, "{name}: {score}");
        }
    }

    #[test]
    fn extra_queen_is_good() {
        let reg = Registry::builtin();
        let v = reg.get("chess").expect("chess ships");
        let ev = Evaluator::new(&v);
        let pos = Position::from_fen(Arc::clone(&v), "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
            .expect("valid FEN");
        assert!(ev.evaluate(&pos) > 700);
    }

    #[test]
    fn knights_prefer_the_centre() {
        let reg = Registry::builtin();
        let v = reg.get("chess").expect("chess ships");
        let ev = Evaluator::new(&v);
        let centre = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/3N4/8/8/4K3 w - - 0 1").expect("valid");
        let corner = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/8/N3K3 w - - 0 1").expect("valid");
        assert!(ev.evaluate(&centre) > ev.evaluate(&corner));
    }

    #[test]
    fn material_only_counts_men_and_hands_and_nothing_else() {
        let reg = Registry::builtin();
        let v = reg.get("clockwork").expect("clockwork ships");
        let ev = Evaluator::material_only(&v);
        assert!(ev.is_material_only());
        let n = ev.value(v.kind_of_letter('N').expect("knight"));
        // A centralised and a cornered knight score alike: no piece-square terms.
        let centre = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/3N4/8/8/4K3 w - - 0 1").expect("valid");
        let corner = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/8/N3K3 b - - 0 1").expect("valid");
        assert_eq!(ev.evaluate(&centre), n);
        assert_eq!(ev.evaluate(&corner), -n);
        // A knight in White's hand counts the same as one on the board.
        let hand = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1").expect("valid");
        assert_eq!(ev.evaluate(&hand), n);
    }

    #[test]
    fn army_balance_fades_with_the_pieces() {
        let reg = Registry::builtin();
        let v = reg.get("clash5").expect("clash5 ships");
        let (full, material) = (Evaluator::new(&v), Evaluator::material_only(&v));
        let start = Position::startpos(Arc::clone(&v)).expect("start");
        // White's army is worth over ten pawns more by the file's values...
        assert!(material.evaluate(&start) > 1000);
        // ...which the full evaluation takes back at the start...
        assert!(full.evaluate(&start).abs() < 250, "{}", full.evaluate(&start));
        // ...but not once the pieces are gone: a lone extra pawn is still an extra pawn.
        let ending = Position::from_fen(Arc::clone(&v), "4k5/10/10/10/10/10/4P5/10/10/5K4 w - - 0 1").expect("valid");
        assert!(full.evaluate(&ending) > 50, "{}", full.evaluate(&ending));
    }
}
