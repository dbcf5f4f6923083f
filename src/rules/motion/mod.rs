//! How men move. One module says it once:
//! - the rule types: [`MoveRule`] as a variant file declares it (Betza,
//!   White's view) and [`CompiledRule`], the same rule in mailbox offsets for
//!   one colour; both share the one [`Motion`] enum;
//! - the forward walker ([`for_each_target`]): where a rule takes a man, for
//!   move generation and for the evaluation's reach and mobility;
//! - the reverse walker ([`AttackRule::for_each_attacker`]): which men attack
//!   a square and through which screen, for the attack test and for
//!   [`MotionTables::attackers`] (static exchange evaluation);
//! - [`MotionTables`]: the compiled rules of a variant and the tables of the
//!   legality shortcut, built once when the variant loads.
//!
//! Every `match` over motion kinds in the crate is in this file.

mod tables;
#[cfg(test)]
mod tests;

pub use tables::{Attacker, AttackerList, CheckCandidates, MotionTables, MAX_ATTACKERS};

use crate::rules::geometry::{offset, Square, MAILBOX_SIZE, MAX_BOARD_SIDE};
use crate::rules::piece::{Cell, Color};

/// Unlimited rider range (longer than any board).
pub const UNLIMITED: u8 = 16;

/// The mailbox: one cell per square, padding included.
pub type Board = [Cell; MAILBOX_SIZE];

/// A step in files and ranks (positive: towards the last file; forward for White).
pub type Vector = (i8, i8);

/// Whether a rule may move to an empty square, capture, or both.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Mode {
    /// Only to an empty square (`m`).
    Quiet,
    /// Only capturing (`c`).
    Capture,
    /// Either.
    Both,
}

impl Mode {
    /// True when the rule may end on an empty square.
    #[inline]
    pub fn quiet(self) -> bool {
        self != Mode::Capture
    }
    /// True when the rule may capture.
    #[inline]
    pub fn captures(self) -> bool {
        self != Mode::Quiet
    }
}

/// How a rule travels along its step. `S` is the type of a step: a
/// [`Vector`] in a declared [`MoveRule`], a mailbox offset (the default) in a
/// [`CompiledRule`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Motion<S = i16> {
    /// One jump of the step.
    Leap,
    /// One jump whose intermediate square (`via` from the origin) must be empty.
    Lame {
        /// Step from the origin to the square that must be empty.
        via: S,
    },
    /// Repeated steps over empty squares, stopping after `min..=max` steps.
    Ride {
        /// Fewest steps.
        min: u8,
        /// Most steps.
        max: u8,
    },
    /// Slide to a screen, jump it, then slide on (quiet) or take the first man beyond.
    Hop,
    /// One step of the rule's step onto an empty square, then ride outward
    /// along `second` for `min..=max` further steps.
    Bent {
        /// The direction of the second leg.
        second: S,
        /// Fewest steps of the second leg.
        min: u8,
        /// Most steps of the second leg.
        max: u8,
    },
}

impl<S: Copy> Motion<S> {
    /// The same motion with every step converted by `f`.
    pub fn map<T>(self, f: impl Fn(S) -> T) -> Motion<T> {
        match self {
            Motion::Leap => Motion::Leap,
            Motion::Lame { via } => Motion::Lame { via: f(via) },
            Motion::Ride { min, max } => Motion::Ride { min, max },
            Motion::Hop => Motion::Hop,
            Motion::Bent { second, min, max } => Motion::Bent { second: f(second), min, max },
        }
    }

    /// Leaps and straight rides: no screen to find and no corner to turn.
    /// The evaluation's mobility counts only these (the others are rare and
    /// costlier to walk).
    pub fn is_simple(&self) -> bool {
        matches!(self, Motion::Leap | Motion::Lame { .. } | Motion::Ride { .. })
    }

    /// Order in which the attack test tries rules: cheap tests first.
    fn cost(&self) -> u8 {
        match self {
            Motion::Leap => 0,
            Motion::Lame { .. } => 1,
            Motion::Ride { .. } => 2,
            Motion::Hop => 3,
            Motion::Bent { .. } => 4,
        }
    }
}

/// One direction of movement of a piece as declared, independent of colour (White's view).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct MoveRule {
    /// Files per step (positive = towards the h/j-file).
    pub dx: i8,
    /// Ranks per step (positive = forward for White).
    pub dy: i8,
    /// How the step is repeated.
    pub motion: Motion<Vector>,
    /// Quiet, capture or both.
    pub mode: Mode,
    /// Only from the piece's initial rank.
    pub initial_only: bool,
}

/// A move rule in mailbox offsets for one colour.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct CompiledRule {
    /// Mailbox offset of one step.
    pub step: i16,
    /// How the step is repeated.
    pub motion: Motion,
    /// Quiet, capture or both.
    pub mode: Mode,
    /// Only from the piece's initial ranks.
    pub initial_only: bool,
}

/// A (files, ranks) displacement, in the board's own orientation.
type Delta = (i32, i32);

impl MoveRule {
    /// True when no move of this rule ends on a rank behind its start (for
    /// its owner): a man with only such rules never goes back.
    pub fn never_backward(&self) -> bool {
        let back = match self.motion {
            Motion::Bent { second, .. } => self.dy < 0 || second.1 < 0,
            Motion::Leap | Motion::Lame { .. } | Motion::Ride { .. } | Motion::Hop => self.dy < 0,
        };
        !back
    }

    /// The squares (file, rank) this rule can reach from `from` on a board of
    /// `files x ranks`, ignoring what would block it (a hop counts every square
    /// from the second on): the loader's bound on a variant's move count.
    /// `forward` is +1 for White, -1 for Black. Runs at load time only.
    pub fn unblocked_targets(&self, forward: i32, from: (i32, i32), (files, ranks): (i32, i32)) -> Vec<(i32, i32)> {
        let on_board = |&(f, r): &(i32, i32)| (0..files).contains(&f) && (0..ranks).contains(&r);
        let step = (i32::from(self.dx), i32::from(self.dy) * forward);
        let first = (from.0 + step.0, from.1 + step.1);
        // Squares `min..=max` steps of `d` away from `origin`, up to the edge.
        let line = |origin: (i32, i32), d: (i32, i32), min: u8, max: u8| -> Vec<(i32, i32)> {
            (1..=i32::from(max))
                .map(|k| (k, (origin.0 + d.0 * k, origin.1 + d.1 * k)))
                .take_while(|(_, sq)| on_board(sq))
                .filter(|&(k, _)| k >= i32::from(min))
                .map(|(_, sq)| sq)
                .collect()
        };
        match self.motion {
            Motion::Leap | Motion::Lame { .. } => Some(first).filter(on_board).into_iter().collect(),
            Motion::Ride { min, max } => line(from, step, min, max),
            // The screen stands on the first square at the nearest.
            Motion::Hop => line(from, step, 2, UNLIMITED),
            Motion::Bent { second, min, max } if on_board(&first) => {
                line(first, (i32::from(second.0), i32::from(second.1) * forward), min, max)
            }
            Motion::Bent { .. } => Vec::new(),
        }
    }

    /// True for a plain leap (the only way to take en passant).
    pub fn is_leap(&self) -> bool {
        self.motion == Motion::Leap
    }

    /// The rule as `color` plays it: Black's forward is down the board.
    fn oriented(&self, color: Color) -> MoveRule {
        let flip = |(dx, dy): Vector| (dx, dy * color.forward() as i8);
        let (dx, dy) = flip((self.dx, self.dy));
        MoveRule { dx, dy, motion: self.motion.map(flip), ..*self }
    }

    /// The (already oriented) rule in mailbox offsets.
    fn compiled(&self) -> CompiledRule {
        let to_offset = |(dx, dy): Vector| offset(dx as i32, dy as i32);
        CompiledRule {
            step: to_offset((self.dx, self.dy)),
            motion: self.motion.map(to_offset),
            mode: self.mode,
            initial_only: self.initial_only,
        }
    }

    /// What the legality shortcut must know about this (oriented) rule's
    /// attacks: the squares, relative to the attacked square, whose emptiness
    /// they need; whether they hop; and the line out of the attacked square
    /// along which a man leaving can uncover them (`None` for leaps).
    fn attack_geometry(&self) -> AttackGeometry {
        let (dx, dy) = (self.dx as i32, self.dy as i32);
        let side = MAX_BOARD_SIDE as i32 - 1;
        let back = |(x, y): Delta, n: i32| (1..=n).map(|j| (-x * j, -y * j)).collect();
        let line = |(x, y): Delta| Some(offset(-x, -y));
        let plain = |path| AttackGeometry { path, hops: false, line_out: None, on_a_line: true };
        match self.motion {
            Motion::Leap => plain(Vec::new()),
            // The square passed lies off the line: the shortcut cannot see it.
            Motion::Lame { via } => {
                AttackGeometry { on_a_line: false, ..plain(vec![(via.0 as i32 - dx, via.1 as i32 - dy)]) }
            }
            Motion::Ride { max, .. } => {
                AttackGeometry { line_out: line((dx, dy)), ..plain(back((dx, dy), (max as i32).min(side))) }
            }
            Motion::Hop => AttackGeometry { hops: true, line_out: line((dx, dy)), ..plain(back((dx, dy), side)) },
            // Every square of a bent path lies on the target's line along the second leg.
            Motion::Bent { second, .. } => {
                let second = (second.0 as i32, second.1 as i32);
                AttackGeometry { line_out: line(second), ..plain(back(second, side)) }
            }
        }
    }
}

/// See [`MoveRule::attack_geometry`].
struct AttackGeometry {
    path: Vec<Delta>,
    hops: bool,
    line_out: Option<i16>,
    on_a_line: bool,
}

impl CompiledRule {
    /// True for a pawn's double step: an initial-only lame leap (it may
    /// create an en-passant square).
    #[inline]
    pub fn is_double_step(&self) -> bool {
        self.initial_only && matches!(self.motion, Motion::Lame { .. })
    }
}

/// Calls `visit` with every square to which `rule` takes a man standing on
/// `from`: empty squares if the rule moves quietly, men of `them` if it
/// captures. Padding is never visited. The one forward walker: move
/// generation, and the evaluation's reach and mobility, use it.
#[inline(always)]
pub fn for_each_target(board: &Board, from: Square, rule: &CompiledRule, them: Color, visit: impl FnMut(Square)) {
    let (quiet, captures) = (rule.mode.quiet(), rule.mode.captures());
    walk(board, from, rule, |t| (t.is_empty() && quiet) || (captures && t.is_color(them)), visit);
}

/// Calls `visit` with every square that `rule`, a capturing rule, attacks
/// from `from`: each square it could capture on were an enemy man standing
/// there, whoever stands there now (empty squares and own men included, so
/// that the evaluation sees defence as well as attack). Quiet-only rules
/// attack nothing.
#[inline(always)]
pub fn for_each_attacked(board: &Board, from: Square, rule: &CompiledRule, visit: impl FnMut(Square)) {
    if rule.mode.captures() {
        walk(board, from, rule, |t| t != Cell::OFFBOARD, visit);
    }
}

/// The squares `rule` reaches from `from` (along a line: up to and
/// including the first man), visiting those whose content `accept`s.
#[inline(always)]
fn walk(
    board: &Board,
    from: Square,
    rule: &CompiledRule,
    accept: impl Fn(Cell) -> bool,
    mut visit: impl FnMut(Square),
) {
    let step = rule.step;
    match rule.motion {
        Motion::Leap | Motion::Lame { .. } => {
            if let Motion::Lame { via } = rule.motion {
                if !board[from.offset(via).index()].is_empty() {
                    return;
                }
            }
            let to = from.offset(step);
            if accept(board[to.index()]) {
                visit(to);
            }
        }
        Motion::Ride { min, max } => slide(board, from, step, (min, max), &accept, &mut visit),
        Motion::Hop => {
            let mut screen = from.offset(step);
            while board[screen.index()].is_empty() {
                screen = screen.offset(step);
            }
            if board[screen.index()] != Cell::OFFBOARD {
                slide(board, screen, step, (1, u8::MAX), &accept, &mut visit);
            }
        }
        Motion::Bent { second, min, max } => {
            let corner = from.offset(step);
            if board[corner.index()].is_empty() {
                slide(board, corner, second, (min, max), &accept, &mut visit);
            }
        }
    }
}

/// Slides from `start` (exclusive) along `step` over empty squares up to
/// and including the first man (or the edge), visiting the squares
/// `min..=max` steps away whose content `accept`s.
#[inline(always)]
fn slide(
    board: &Board,
    start: Square,
    step: i16,
    (min, max): (u8, u8),
    accept: &impl Fn(Cell) -> bool,
    visit: &mut impl FnMut(Square),
) {
    let mut to = start;
    for k in 1..=max {
        to = to.offset(step);
        let t = board[to.index()];
        if k >= min && accept(t) {
            visit(to);
        }
        if !t.is_empty() {
            return;
        }
    }
}

/// A way in which men of one colour can attack a square, merged over every
/// kind sharing the geometry. `cells` is the set of cells (bit per
/// [`Cell`] value) that attack this way.
#[derive(Clone, Copy, Debug)]
pub struct AttackRule {
    /// The attacker's step (a leaper stands at target - step).
    pub step: i16,
    /// Geometry.
    pub motion: Motion,
    /// Attacking cells.
    pub cells: u128,
}

impl AttackRule {
    /// True for a plain leap (the only way to take en passant).
    #[inline]
    pub fn is_leap(&self) -> bool {
        self.motion == Motion::Leap
    }

    /// Walks back from `sq` to the men that attack it by this rule, calling
    /// `found(from, screen)` for each (`screen`: the hurdle of a hopper);
    /// stops, returning true, as soon as `found` does. The square `sq`
    /// itself is never read, so its occupant does not matter. The attack
    /// test and the attackers list both use it; [`AttackRule::for_each_landing`]
    /// walks the same paths for the squares a man could still arrive on.
    #[inline(always)]
    pub fn for_each_attacker(
        &self,
        board: &Board,
        sq: Square,
        mut found: impl FnMut(Square, Option<Square>) -> bool,
    ) -> bool {
        let step = self.step;
        let attacks = |c: Cell| self.cells >> c.0 & 1 != 0;
        match self.motion {
            Motion::Leap => {
                let from = sq.offset(-step);
                attacks(board[from.index()]) && found(from, None)
            }
            Motion::Lame { via } => {
                let from = sq.offset(-step);
                attacks(board[from.index()]) && board[from.offset(via).index()].is_empty() && found(from, None)
            }
            Motion::Ride { min, max } => {
                let mut s = sq;
                for k in 1..=max {
                    s = s.offset(-step);
                    let c = board[s.index()];
                    if !c.is_empty() {
                        return k >= min && attacks(c) && found(s, None);
                    }
                }
                false
            }
            Motion::Hop => {
                let mut screen = sq.offset(-step);
                while board[screen.index()].is_empty() {
                    screen = screen.offset(-step);
                }
                if board[screen.index()] == Cell::OFFBOARD {
                    return false;
                }
                let mut s = screen.offset(-step);
                while board[s.index()].is_empty() {
                    s = s.offset(-step);
                }
                attacks(board[s.index()]) && found(s, Some(screen))
            }
            Motion::Bent { second, min, max } => {
                // Path squares sq - second*j (j = 1..k) must be empty; the
                // rider stands one first-step behind the last of them.
                let mut s = sq;
                for k in 1..=max {
                    s = s.offset(-second);
                    if !board[s.index()].is_empty() {
                        return false;
                    }
                    let from = s.offset(-step);
                    if k >= min && attacks(board[from.index()]) && found(from, None) {
                        return true;
                    }
                }
                false
            }
        }
    }

    /// Calls `visit` with each square from which a man arriving now would
    /// attack `sq` by this rule, on `board` as it stands: the squares a
    /// quiet move must land on to give a direct check. A superset: a lame
    /// leap's intermediate square is not looked at, and a man that leaves a
    /// square of the path (found by [`MotionTables::check_candidates`]'
    /// leaving set) may open more.
    #[inline]
    pub fn for_each_landing(&self, board: &Board, sq: Square, mut visit: impl FnMut(Square)) {
        let step = self.step;
        let on_board = |s: Square| board[s.index()] != Cell::OFFBOARD;
        match self.motion {
            Motion::Leap | Motion::Lame { .. } => {
                let from = sq.offset(-step);
                if on_board(from) {
                    visit(from);
                }
            }
            Motion::Ride { min, max } => {
                let mut s = sq;
                for k in 1..=max {
                    s = s.offset(-step);
                    if !on_board(s) {
                        return;
                    }
                    if k >= min {
                        visit(s);
                    }
                    if !board[s.index()].is_empty() {
                        return;
                    }
                }
            }
            Motion::Hop => {
                // Past the first man (the screen), up to the next one.
                let mut s = sq.offset(-step);
                while board[s.index()].is_empty() {
                    s = s.offset(-step);
                }
                if !on_board(s) {
                    return;
                }
                s = s.offset(-step);
                while on_board(s) {
                    visit(s);
                    if !board[s.index()].is_empty() {
                        return;
                    }
                    s = s.offset(-step);
                }
            }
            Motion::Bent { second, min, max } => {
                let mut s = sq;
                for k in 1..=max {
                    s = s.offset(-second);
                    if !board[s.index()].is_empty() {
                        return;
                    }
                    let from = s.offset(-step);
                    if k >= min && on_board(from) {
                        visit(from);
                    }
                }
            }
        }
    }
}
