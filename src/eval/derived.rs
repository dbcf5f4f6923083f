//! What the evaluation derives from the variant file alone: facts per kind
//! (value, empty-board reach, pawns, armament, phase weight) and the
//! default weights.

use crate::board::position::Position;
use crate::eval::{Layout, Weight};
use crate::rules::geometry::{Square, MAILBOX_SIZE};
use crate::rules::motion::{for_each_target, Board, CompiledRule, Mode};
use crate::rules::piece::{Cell, Color, PieceKind, MAX_KINDS};
use crate::rules::variant::Variant;

/// What the evaluation knows of each kind, from the variant alone.
#[derive(Clone, Debug)]
pub(super) struct KindFacts {
    /// Material value from the variant file (or derived), 0 for the royal kind.
    pub(super) value: [i32; MAX_KINDS],
    /// Average empty-board reach.
    pub(super) average_reach: [i32; MAX_KINDS],
    /// Kinds that promote (pawns), as a bitmask.
    pub(super) pawns: u32,
    /// Kinds that can capture, or promote to one that can.
    pub(super) armed: u32,
    /// The royal kind, if any.
    pub(super) royal: Option<PieceKind>,
    /// Phase weight per kind (non-pawn, non-royal material).
    pub(super) phase_weight: [i32; MAX_KINDS],
    /// Total phase weight of the start position (board and hands), at least 1.
    pub(super) phase_total: i32,
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

/// `numerator / denominator`, rounded to the nearest whole number.
fn ratio(numerator: i32, denominator: i32) -> i32 {
    let d = denominator.max(1);
    (2 * numerator + d) / (2 * d)
}

impl KindFacts {
    pub(super) fn new(v: &Variant, start: Option<&Position>, reach: &mut [u8]) -> KindFacts {
        let kinds = v.kind_count().min(MAX_KINDS);
        let squares: Vec<Square> = v.shape.squares().collect();
        let empty = empty_board(v);
        let mut facts = KindFacts {
            value: [0; MAX_KINDS],
            average_reach: [0; MAX_KINDS],
            pawns: 0,
            armed: 0,
            royal: v.royal,
            phase_weight: [0; MAX_KINDS],
            phase_total: 0,
        };
        for k in 0..kinds {
            let kind = PieceKind(k as u8);
            if !v.promotions[Color::White][k].is_empty() {
                facts.pawns |= 1 << k;
            }
            if v.motion.rules(Color::White, kind).iter().any(|r| r.mode.captures()) {
                facts.armed |= 1 << k;
            }
            for color in Color::ALL {
                let cell = Cell::piece(color, kind);
                for &sq in &squares {
                    let n = empty_board_reach(v, &empty, color, kind, sq);
                    reach[cell.0 as usize * MAILBOX_SIZE + sq.index()] = n.clamp(0, 255) as u8;
                }
            }
            let white = Cell::piece(Color::White, kind).0 as usize * MAILBOX_SIZE;
            let total: i32 = squares.iter().map(|sq| reach[white + sq.index()] as i32).sum();
            let average = total / squares.len().max(1) as i32;
            facts.average_reach[k] = average;
            let declared = v.pieces[k].value;
            let royal = v.royal == Some(kind);
            facts.value[k] = if royal {
                0
            } else if declared == 0 {
                30 * average + 150
            } else {
                declared
            };
            if !royal && facts.pawns >> k & 1 == 0 {
                facts.phase_weight[k] = facts.value[k].max(0);
            }
        }
        // A pawn that promotes to an armed kind is armed (repeat for chains).
        for _ in 0..kinds {
            for k in 0..kinds {
                if v.promotions[Color::White][k].iter().any(|p| facts.armed >> p.0 & 1 != 0) {
                    facts.armed |= 1 << k;
                }
            }
        }
        if let Some(start) = start {
            for &sq in start.squares() {
                let c = start.cell(sq);
                if c.is_piece() {
                    facts.phase_total += facts.phase_weight[c.kind().index()];
                }
            }
            for color in Color::ALL {
                for k in 0..kinds {
                    let n = start.hand_count(color, PieceKind(k as u8)) as i32;
                    facts.phase_total += facts.phase_weight[k] * n;
                }
            }
        }
        facts.phase_total = facts.phase_total.max(1);
        facts
    }

    #[inline(always)]
    pub(super) fn is_pawn(&self, kind: PieceKind) -> bool {
        self.pawns >> kind.0 & 1 != 0
    }

    #[inline(always)]
    pub(super) fn is_armed(&self, kind: PieceKind) -> bool {
        self.armed >> kind.0 & 1 != 0 && self.royal != Some(kind)
    }
}

/// The default weights, derived from the variant's data.
pub(super) fn derived_weights(v: &Variant, l: &Layout, facts: &KindFacts) -> Vec<Weight> {
    let mut w = vec![Weight::default(); l.len()];
    let ranks = v.shape.ranks as i32;
    for k in 0..v.kind_count().min(MAX_KINDS) {
        let kind = PieceKind(k as u8);
        let value = facts.value[k];
        let average = facts.average_reach[k].max(1);
        w[l.material + k] = Weight::flat(value);
        w[l.hand + k] = Weight::flat(value + value / 10);
        if facts.royal == Some(kind) {
            w[l.centre + k] = Weight { mg: -ratio(20, average), eg: ratio(40, average) };
            continue;
        }
        w[l.threat + k] = Weight::flat(value / 8);
        w[l.king_attack + k] = Weight { mg: (value / 100).max(1), eg: 0 };
        if !facts.is_pawn(kind) {
            w[l.centre + k] = Weight { mg: ratio(40, average), eg: ratio(20, average) };
            w[l.mobility + k] = Weight::flat(3);
        }
    }
    for r in 0..ranks {
        // Scaled so that the rank before promotion is "6" on any board.
        let p = r * 6 / (ranks - 2).max(1);
        w[l.pawn_rank + r as usize] = Weight { mg: 2 * p * p, eg: 4 * p * p };
        w[l.passed + r as usize] = Weight { mg: p * p, eg: 3 * p * p };
    }
    w[l.hanging] = Weight::flat(20);
    w[l.doubled] = Weight::flat(-15);
    w[l.isolated] = Weight::flat(-10);
    w[l.shield] = Weight { mg: 10, eg: 0 };
    w[l.tropism] = Weight { mg: -3, eg: 0 };
    w[l.king_forward] = Weight { mg: -12, eg: 0 };
    w[l.pawn_centre] = Weight { mg: 3, eg: 0 };
    w[l.tempo] = Weight::flat(12);
    w[l.mopup_edge] = Weight::flat(20);
    w[l.mopup_close] = Weight::flat(10);
    w
}
