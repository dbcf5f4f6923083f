//! The motion tables of one variant: its rules compiled per colour, the
//! attack rules of each colour, and the tables of the legality shortcut
//! (which attacks a man leaving or arriving on a square can change).

use arrayvec::ArrayVec;

use super::{AttackRule, Board, CompiledRule, Delta, MoveRule};
use crate::rules::geometry::{Square, SquareSet, MAX_BOARD_SIDE};
use crate::rules::piece::{ByColor, Cell, Color, PieceKind};

/// Most attackers one square can have: every other square of the largest board.
pub const MAX_ATTACKERS: usize = MAX_BOARD_SIDE as usize * MAX_BOARD_SIDE as usize;

/// A man that can capture on a square.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Attacker {
    /// Where the man stands.
    pub from: Square,
    /// For a hopper, the hurdle it jumps (moving it away ends the attack).
    pub screen: Option<Square>,
}

/// The attackers of a square (see [`MotionTables::attackers`]); never allocates.
pub type AttackerList = ArrayVec<Attacker, MAX_ATTACKERS>;

/// Where a quiet move or drop of one side could give check (see
/// [`MotionTables::check_candidates`]): a move that lands on none of its
/// man's direct squares, leaves none of the `leaving` squares and arrives
/// on none of the `arriving` ones cannot check.
#[derive(Clone, Debug)]
pub struct CheckCandidates {
    /// Per attack rule: the cells it moves (bit = cell) and the squares
    /// from which such a man would attack the king.
    direct: ArrayVec<(u128, SquareSet), 64>,
    /// Every rule's squares together: most moves land outside them all.
    any_direct: SquareSet,
    /// Men whose leaving could uncover an attack on the king.
    leaving: SquareSet,
    /// Empty squares where an arriving man would become a hopper's screen.
    arriving: SquareSet,
    /// False when the sets cannot tell (an attack off the lines, or more
    /// rules than the list holds): every move may check.
    exact: bool,
}

impl CheckCandidates {
    /// Whether `mover`, leaving `from` (None for a drop) for the empty
    /// square `to`, might give check; false only when it cannot.
    #[inline]
    pub fn may_check(&self, mover: Cell, from: Option<Square>, to: Square) -> bool {
        !self.exact
            || from.is_some_and(|f| self.leaving.contains(f))
            || self.arriving.contains(to)
            || (self.any_direct.contains(to)
                && self.direct.iter().any(|(cells, squares)| cells >> mover.0 & 1 != 0 && squares.contains(to)))
    }
}

/// Side of the table of displacements from an attacked square.
const ALIGN_SIDE: i32 = 2 * MAX_BOARD_SIDE as i32 - 1;
const ALIGN_CELLS: usize = (ALIGN_SIDE * ALIGN_SIDE) as usize;

#[inline]
fn align_index(dx: i32, dy: i32) -> usize {
    ((dy + MAX_BOARD_SIDE as i32 - 1) * ALIGN_SIDE + dx + MAX_BOARD_SIDE as i32 - 1) as usize
}

/// A variant's rules in mailbox form, and what the attack test and the
/// legality shortcut derive from them. Built once when the variant loads.
#[derive(Debug)]
pub struct MotionTables {
    /// Per colour, per kind: compiled rules.
    rules: ByColor<Vec<Vec<CompiledRule>>>,
    /// Per attacking colour: how its men attack a square, cheapest test first.
    attacks: ByColor<Vec<AttackRule>>,
    /// Per attacking colour, per (dx, dy) from the attacked square: the attack
    /// rules (bit i = `attacks[colour][i]`) whose path needs that square empty.
    lines: ByColor<Vec<u128>>,
    /// The same for hopping rules only: a man arriving there may become a screen.
    hop_lines: ByColor<Vec<u128>>,
    /// True when any piece hops (a man arriving can create a check).
    has_hoppers: bool,
    /// Per attacking colour: the lines (mailbox step walking away from the
    /// attacked square, and whether a hopper uses it) along which a man
    /// leaving a square can uncover an attack.
    lines_out: ByColor<Vec<(i16, bool)>>,
    /// False when some attack (a lame leap) is not along a line; the legality
    /// filter then skips its per-node shortcut.
    lines_exact: bool,
}

impl MotionTables {
    /// Compiles the declared rules of each kind (White's view, in kind order).
    pub fn new<'a>(kinds: impl Iterator<Item = &'a [MoveRule]> + Clone) -> MotionTables {
        let mut tables = MotionTables {
            rules: ByColor([Vec::new(), Vec::new()]),
            attacks: ByColor([Vec::new(), Vec::new()]),
            lines: ByColor([vec![0; ALIGN_CELLS], vec![0; ALIGN_CELLS]]),
            hop_lines: ByColor([vec![0; ALIGN_CELLS], vec![0; ALIGN_CELLS]]),
            has_hoppers: false,
            lines_out: ByColor([Vec::new(), Vec::new()]),
            lines_exact: true,
        };
        for color in Color::ALL {
            // Attack rules with the squares (relative to the attacked square)
            // whose emptiness they need, and whether they hop.
            let mut building: Vec<(AttackRule, Vec<Delta>, bool)> = Vec::new();
            for (k, declared) in kinds.clone().enumerate() {
                let cell = Cell::piece(color, PieceKind(k as u8));
                let mut compiled = Vec::with_capacity(declared.len());
                for r in declared.iter().map(|r| r.oriented(color)) {
                    let rule = r.compiled();
                    compiled.push(rule);
                    if !r.mode.captures() || r.initial_only {
                        continue;
                    }
                    if let Some(a) = building.iter_mut().find(|a| a.0.step == rule.step && a.0.motion == rule.motion) {
                        a.0.cells |= 1u128 << cell.0;
                        continue;
                    }
                    let geometry = r.attack_geometry();
                    tables.has_hoppers |= geometry.hops;
                    tables.lines_exact &= geometry.on_a_line;
                    if let Some(step) = geometry.line_out {
                        match tables.lines_out[color].iter_mut().find(|l| l.0 == step) {
                            Some(l) => l.1 |= geometry.hops,
                            None => tables.lines_out[color].push((step, geometry.hops)),
                        }
                    }
                    let attack = AttackRule { step: rule.step, motion: rule.motion, cells: 1u128 << cell.0 };
                    building.push((attack, geometry.path, geometry.hops));
                }
                tables.rules[color].push(compiled);
            }
            building.sort_by_key(|a| a.0.motion.cost());
            for (i, (_, path, hop)) in building.iter().enumerate() {
                // Past 128 rules a bit stands for "some rule": the test then checks them all.
                let bit = if i < 128 { 1u128 << i } else { u128::MAX };
                for &(x, y) in path {
                    if x.abs() < MAX_BOARD_SIDE as i32 && y.abs() < MAX_BOARD_SIDE as i32 {
                        tables.lines[color][align_index(x, y)] |= bit;
                        if *hop {
                            tables.hop_lines[color][align_index(x, y)] |= bit;
                        }
                    }
                }
            }
            tables.attacks[color] = building.into_iter().map(|b| b.0).collect();
        }
        tables
    }

    /// The compiled rules of a man of `kind` and `color`.
    #[inline]
    pub fn rules(&self, color: Color, kind: PieceKind) -> &[CompiledRule] {
        &self.rules[color][kind.index()]
    }

    /// False when some attack (a lame leap) is not along a line, so that the
    /// legality shortcut cannot see every way a move might expose the king.
    #[inline]
    pub fn lines_exact(&self) -> bool {
        self.lines_exact
    }

    /// Attack rules of `by` that a man leaving (dx, dy) from the target could unblock.
    #[inline]
    pub fn rules_through(&self, by: Color, dx: i32, dy: i32) -> u128 {
        self.lines[by][align_index(dx, dy)]
    }

    /// Hopping rules of `by` for which a man arriving at (dx, dy) could become a screen.
    #[inline]
    pub fn hop_rules_through(&self, by: Color, dx: i32, dy: i32) -> u128 {
        if self.has_hoppers {
            self.hop_lines[by][align_index(dx, dy)]
        } else {
            0
        }
    }

    /// Is `sq` attacked by a man of `by` on `board`?
    #[inline]
    pub fn attacked(&self, board: &Board, sq: Square, by: Color) -> bool {
        self.attacks[by].iter().any(|rule| rule.for_each_attacker(board, sq, |_, _| true))
    }

    /// Is `sq` attacked through one of the rules in `mask` (bit i =
    /// rule i of `by`; a full mask means all of them)?
    #[inline]
    pub fn attacked_through(&self, board: &Board, sq: Square, by: Color, mask: u128) -> bool {
        if mask == u128::MAX {
            return self.attacked(board, sq, by);
        }
        let rules = &self.attacks[by];
        let mut m = mask;
        while m != 0 {
            let i = m.trailing_zeros() as usize;
            m &= m - 1;
            if rules.get(i).is_some_and(|rule| rule.for_each_attacker(board, sq, |_, _| true)) {
                return true;
            }
        }
        false
    }

    /// Replaces `out` with every man of `by` that could capture a man on
    /// `sq` now, each once (direct attacks before hops): capturing rules
    /// only, hoppers with their screen. Whatever stands on `sq` is ignored.
    pub fn attackers(&self, board: &Board, sq: Square, by: Color, out: &mut AttackerList) {
        out.clear();
        for rule in &self.attacks[by] {
            rule.for_each_attacker(board, sq, |from, screen| {
                if !out.iter().any(|a| a.from == from) {
                    // Attackers are distinct board squares other than `sq`: they fit.
                    let pushed = out.try_push(Attacker { from, screen });
                    debug_assert!(pushed.is_ok(), "more attackers than squares");
                }
                false
            });
        }
    }

    /// Calls `found` with each square from which a man of `by` attacks `sq`
    /// by a plain leap (the captures en passant is made with).
    #[inline]
    pub fn for_each_leaper(&self, board: &Board, sq: Square, by: Color, mut found: impl FnMut(Square)) {
        for rule in self.attacks[by].iter().filter(|r| r.is_leap()) {
            rule.for_each_attacker(board, sq, |from, _| {
                found(from);
                false
            });
        }
    }

    /// The squares where a quiet move of `by` could give check to the king
    /// on `king`, on `board` as it stands: each attack rule's landing
    /// squares, and the exposure sets for discovered checks and new screens.
    pub fn check_candidates(&self, board: &Board, king: Square, by: Color) -> CheckCandidates {
        let (leaving, arriving) = self.exposure(board, king, by);
        let mut candidates = CheckCandidates {
            direct: ArrayVec::new(),
            any_direct: SquareSet::default(),
            leaving,
            arriving,
            exact: self.lines_exact,
        };
        for rule in &self.attacks[by] {
            let mut squares = SquareSet::default();
            rule.for_each_landing(board, king, |s| squares.insert(s));
            candidates.any_direct.union_with(&squares);
            if candidates.direct.try_push((rule.cells, squares)).is_err() {
                candidates.exact = false;
                break;
            }
        }
        candidates
    }

    /// Around `king` of colour `!by` on `board`: the squares whose man, by
    /// leaving, could uncover an attack of `by` (the first man on each of
    /// `by`'s lines out of the king, and the second on hopper lines), and
    /// the empty squares where an arriving man would become a hopper's screen
    /// (between the king and the first man).
    pub fn exposure(&self, board: &Board, king: Square, by: Color) -> (SquareSet, SquareSet) {
        let mut leaving = SquareSet::default();
        let mut arriving = SquareSet::default();
        for &(step, hop) in &self.lines_out[by] {
            let mut s = king.offset(step);
            while board[s.index()].is_empty() {
                if hop {
                    arriving.insert(s);
                }
                s = s.offset(step);
            }
            if board[s.index()] == Cell::OFFBOARD {
                continue;
            }
            leaving.insert(s);
            if hop {
                s = s.offset(step);
                while board[s.index()].is_empty() {
                    s = s.offset(step);
                }
                if board[s.index()] != Cell::OFFBOARD {
                    leaving.insert(s);
                }
            }
        }
        (leaving, arriving)
    }
}
