//! Alpha-beta search without I/O.
//!
//! Iterative deepening with aspiration windows around a principal-variation
//! search; quiescence on captures and promotions (drops are left out so the
//! capture sequence always ends: every capture takes a man off the board);
//! ordering by TT move, MVV-LVA, killers and history; null-move pruning
//! (never in check, in a setup phase, or without non-pawn material);
//! late-move reductions; check extension; mate-distance scores; draws by
//! repetition and by the variant's move rule; MultiPV.
//!
//! Nothing here allocates per node: move lists live on the stack (hence the
//! large worker stack, see `engine.rs`), tables are allocated once per search.
//! The search polls [`SearchControl`] every [`POLL_INTERVAL`] nodes, so a
//! `stop` is obeyed within a millisecond or so.
//!
//! Several searches may share one table and one [`SearchControl`] (Lazy SMP):
//! the main one decides time and reports; helpers ([`Search::as_helper`])
//! only fill the table and end when the owner sets `helpers_stop`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use arrayvec::ArrayVec;

mod helpers;
mod history;
mod params;
pub mod skill;
pub mod smp;
mod time;
pub mod tt;

pub use history::Histories;
pub use params::{SearchParams, DEFAULT_PARAMS};

use crate::board::position::{Position, NO_SQUARE};
use crate::board::see::see_ge;
use crate::eval::nnue::AccumulatorStack;
use crate::eval::Evaluator;
use crate::rules::geometry::Square;
use crate::rules::moves::{Move, MoveKind, MoveList, MAX_MOVES};
use crate::rules::piece::{Cell, PieceKind};
use crate::search::tt::{Bound, TranspositionTable, TtHit};
use history::PieceTo;
use time::{soft_scale_percent, time_budget};

/// Deepest ply the search reaches (including quiescence).
pub const MAX_PLY: usize = 128;
/// Score of a mate at the root; mate in `n` plies is `MATE - n`.
pub const MATE: i32 = 32_000;
/// Scores beyond this are mate scores.
pub const MATE_BOUND: i32 = MATE - 2 * MAX_PLY as i32;
const INFINITE: i32 = 32_500;
const DRAW: i32 = 0;
/// Nodes between two looks at the clock and the stop flag.
pub const POLL_INTERVAL: u64 = 1024; // a power of two
/// Ordering base of captures that probably lose material: after the quiet
/// moves (history scores stay within +-16384), skipped in quiescence.
const BAD_CAPTURE: i32 = -(1 << 20);
/// Scores below this mark a bad capture (victim and attacker terms included).
const BAD_CAPTURE_LIMIT: i32 = BAD_CAPTURE / 2;

/// How long and how deep to search. All times in milliseconds.
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Maximum depth in plies.
    pub depth: Option<u32>,
    /// Maximum nodes.
    pub nodes: Option<u64>,
    /// Exact time for this move.
    pub movetime: Option<u64>,
    /// White's remaining time.
    pub wtime: Option<u64>,
    /// Black's remaining time.
    pub btime: Option<u64>,
    /// White's increment.
    pub winc: Option<u64>,
    /// Black's increment.
    pub binc: Option<u64>,
    /// Moves until the next time control.
    pub movestogo: Option<u32>,
    /// Search for a mate in this many moves.
    pub mate: Option<u32>,
    /// Search until stopped.
    pub infinite: bool,
    /// Ponder: no time limit until [`SearchControl::pondering`] is cleared.
    pub ponder: bool,
    /// Restrict the root to these moves (empty = all).
    pub search_moves: Vec<Move>,
    /// Number of principal variations to report.
    pub multipv: usize,
    /// Time kept back per move for communication delays.
    pub move_overhead: u64,
    /// A node budget that weakens the search (`Skill Level`): it stops the
    /// search like `nodes`, but only after depth 1, so every root move has
    /// a score to choose by.
    pub skill_nodes: Option<u64>,
}

impl Limits {
    /// True when the search has no limit of its own and runs until stopped.
    pub fn until_stopped(&self) -> bool {
        self.infinite
            || (self.depth.is_none()
                && self.nodes.is_none()
                && self.movetime.is_none()
                && self.wtime.is_none()
                && self.btime.is_none()
                && self.mate.is_none())
    }
}

/// Flags and counts shared between the search threads and their owner. Use
/// a fresh one per search: `nodes` adds up every search that used it.
#[derive(Debug, Default)]
pub struct SearchControl {
    /// Set to end the search as soon as possible.
    pub stop: AtomicBool,
    /// Set while pondering; clearing it (ponderhit) starts the clock.
    pub pondering: AtomicBool,
    /// Set by the owner once the main search is over: helper threads end.
    pub helpers_stop: AtomicBool,
    /// Nodes of all threads; each adds its own every [`POLL_INTERVAL`] nodes.
    pub nodes: AtomicU64,
}

/// A score as protocols report it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Score {
    /// Centipawns from the side to move's point of view.
    Cp(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

impl Score {
    /// Converts an internal score.
    pub fn from_internal(score: i32) -> Score {
        if score > MATE_BOUND {
            Score::Mate((MATE - score + 1) / 2)
        } else if score < -MATE_BOUND {
            Score::Mate(-(MATE + score) / 2)
        } else {
            Score::Cp(score)
        }
    }
}

/// One principal variation after a finished iteration.
#[derive(Clone, Debug)]
pub struct PvInfo {
    /// Iteration depth.
    pub depth: u32,
    /// Deepest ply reached.
    pub seldepth: u32,
    /// 1-based index of this line.
    pub multipv: usize,
    /// Score of the line.
    pub score: Score,
    /// The internal score (centipawns, or mate-distance encoded).
    pub raw_score: i32,
    /// Nodes searched so far (by all threads).
    pub nodes: u64,
    /// Milliseconds since the search started.
    pub time_ms: u64,
    /// Nodes per second.
    pub nps: u64,
    /// Permille of the hash table used.
    pub hashfull: u32,
    /// The moves of the line.
    pub pv: Vec<Move>,
}

/// What the search reports while it runs.
#[derive(Clone, Debug)]
pub enum SearchEvent {
    /// A finished line of an iteration.
    Pv(PvInfo),
    /// The root move being searched (sent only in long searches).
    CurrMove {
        /// Iteration depth.
        depth: u32,
        /// The move.
        mv: Move,
        /// 1-based number of the move at the root.
        number: usize,
    },
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// Best move (None only when there is no legal move).
    pub best: Option<Move>,
    /// Expected reply.
    pub ponder: Option<Move>,
    /// Score of the best move.
    pub score: Score,
    /// Deepest finished iteration.
    pub depth: u32,
    /// Nodes searched (by all threads that shared the [`SearchControl`]).
    pub nodes: u64,
    /// Milliseconds used.
    pub time_ms: u64,
}

#[derive(Clone, Debug)]
struct RootMove {
    mv: Move,
    score: i32,
    previous: i32,
    seldepth: u32,
    /// Nodes spent under this move (time management).
    nodes: u64,
    pv: Vec<Move>,
}

impl RootMove {
    /// The latest trustworthy score: this iteration's, else the previous one's
    /// (a search stopped before any move finished knows nothing better: 0).
    fn display_score(&self) -> i32 {
        if self.score != -INFINITE {
            self.score
        } else if self.previous != -INFINITE {
            self.previous
        } else {
            0
        }
    }
}

/// Puts the lines of one iteration in order, best first. Each line is
/// searched in its own window after the lines above it, with the table they
/// filled, so a later line can score above an earlier one; the lines are
/// therefore sorted once all are searched. Every finished line's score is
/// exact: its aspiration loop ends only with the score inside the window, and
/// a line cut short by a stop (its score a bound) is not among the finished
/// ones, so bounds are never compared with exact scores (at depth 1, which is
/// always reported, a line the stop left unsearched has no score yet and
/// sorts last). The sort is stable: lines of equal score keep the order they
/// were searched in.
fn sort_lines(lines: &mut [RootMove]) {
    lines.sort_by_key(|r| std::cmp::Reverse(r.score));
}

#[inline]
fn to_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score + ply as i32
    } else if score < -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// Whether a stored score with this bound settles the window (alpha, beta).
#[inline]
fn bound_cuts(bound: Bound, score: i32, alpha: i32, beta: i32) -> bool {
    match bound {
        Bound::Exact => true,
        Bound::Lower => score >= beta,
        Bound::Upper => score <= alpha,
        Bound::None => false,
    }
}

/// How much a cutoff at `depth` moves the history entries of the moves involved.
#[inline]
fn history_bonus(depth: i32) -> i32 {
    (depth * depth * 16 + 32 * depth).min(1600)
}

#[inline]
fn from_tt(score: i32, ply: usize) -> i32 {
    if score > MATE_BOUND {
        score - ply as i32
    } else if score < -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The node count at which an iteration of `depth` stops: `go nodes`, and
/// from depth 2 on the skill budget too.
fn node_cap_at(limits: &Limits, depth: i32) -> u64 {
    let gui = limits.nodes.unwrap_or(u64::MAX);
    match limits.skill_nodes {
        Some(skill) if depth > 1 => gui.min(skill),
        _ => gui,
    }
}

/// What the search keeps per ply.
#[derive(Clone, Copy)]
struct Frame {
    /// Static evaluation (-INFINITE in check).
    static_eval: i32,
    killers: [Option<Move>; 2],
    /// The move left out by a singular-extension search of this node.
    excluded: Option<Move>,
    /// The man and destination of the move made from this ply (None: null move).
    moved: Option<PieceTo>,
    /// Destination of that move (NO_SQUARE: none).
    moved_to: Square,
    /// Double extensions on the path from the root to this ply.
    double_extensions: u8,
}

const EMPTY_FRAME: Frame = Frame {
    static_eval: -INFINITE,
    killers: [None; 2],
    excluded: None,
    moved: None,
    moved_to: NO_SQUARE,
    double_extensions: 0,
};

/// Frames before the root, so `ply - 2` needs no bounds test.
const FRAME_OFFSET: usize = 2;

/// The best score of a node so far, its move, and the window's raised lower bound.
struct NodeBest {
    score: i32,
    mv: Option<Move>,
    alpha: i32,
    original_alpha: i32,
}

impl NodeBest {
    /// How the node's score bounds its true value, for the table.
    fn bound(&self, beta: i32) -> Bound {
        if self.score >= beta {
            Bound::Lower
        } else if self.alpha > self.original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }
}

/// What the move loop of a node reads of the node, fixed before its first move.
#[derive(Clone, Copy)]
struct NodeInfo {
    /// Remaining depth (after internal iterative reduction).
    depth: i32,
    ply: usize,
    beta: i32,
    pv_node: bool,
    /// Expected to fail high.
    cut_node: bool,
    in_check: bool,
    in_setup: bool,
    /// The static evaluation rose since our previous move.
    improving: bool,
    static_eval: i32,
    /// The move a singular-extension search of this node leaves out.
    excluded: Option<Move>,
    tt_hit: Option<TtHit>,
    tt_move: Option<Move>,
    hash: u64,
}

impl NodeInfo {
    /// A better guess than the static evaluation: the table's bound on the
    /// score, where it is tighter.
    #[inline]
    fn refined_eval(&self) -> i32 {
        let mut eval = self.static_eval;
        if let Some(hit) = self.tt_hit {
            let score = from_tt(hit.score, self.ply);
            let tighter = if score > eval { Bound::Lower } else { Bound::Upper };
            if !self.in_check && score.abs() < MATE_BOUND && (hit.bound == tighter || hit.bound == Bound::Exact) {
                eval = score;
            }
        }
        eval
    }

    /// Whether moves may be pruned here: not at the root, a PV node, in check
    /// or in setup, and only once a move has a score above being mated.
    #[inline]
    fn may_prune(&self, node: &NodeBest) -> bool {
        self.ply > 0 && !self.pv_node && !self.in_check && !self.in_setup && node.score > -MATE_BOUND
    }
}

/// What pruning, extension and reduction read of one move of the loop.
struct MoveInfo {
    m: Move,
    mover: Cell,
    /// The kind it captures.
    victim: Option<PieceKind>,
    /// Neither a capture nor a promotion.
    quiet: bool,
    /// History score (quiet moves; 0 for the others).
    history: i32,
    is_killer: bool,
    /// The reduction table's entry for this depth and move number.
    base_reduction: i32,
}

/// What the pruning of a quiet move decided.
enum Prune {
    Keep,
    Skip,
    /// Skip this and every later quiet move (late-move pruning).
    SkipQuiets,
}

/// The moves a node searched before its best, to punish in the histories.
struct Tried {
    quiets: ArrayVec<(Move, Cell), 64>,
    captures: ArrayVec<(Move, Cell, PieceKind), 32>,
}

impl Tried {
    /// Notes a searched move that did not fail high (promotions are neither list's).
    #[inline]
    fn push(&mut self, mv: &MoveInfo) {
        if mv.quiet {
            let _ = self.quiets.try_push((mv.m, mv.mover));
        } else if let Some(v) = mv.victim {
            let _ = self.captures.try_push((mv.m, mv.mover, v));
        }
    }
}

/// Where iterative deepening stands.
struct Deepening {
    /// Deepest finished iteration.
    completed: i32,
    /// Deepest iteration started.
    reached: i32,
    /// The best move of the last iteration...
    last_best: Move,
    /// ...and for how many iterations in a row it stayed best.
    stable_iterations: u32,
    /// The head of the last first line reported.
    reported: Option<Move>,
}

/// One search of one position.
pub struct Search<'a> {
    pos: &'a mut Position,
    tt: &'a TranspositionTable,
    eval: &'a Evaluator,
    control: &'a SearchControl,
    limits: &'a Limits,
    /// Nodes of this thread.
    nodes: u64,
    /// Nodes of this thread already added to `control.nodes`.
    nodes_shared: u64,
    /// Nodes of the other threads, as of the last poll.
    other_nodes: u64,
    /// Lazy SMP helper number (None: the main search, which decides time and reports).
    helper: Option<usize>,
    seldepth: usize,
    stopped: bool,
    start: Instant,
    ponder_released: bool,
    soft: Option<Duration>,
    hard: Option<Duration>,
    stack: Box<[Frame; MAX_PLY + FRAME_OFFSET + 2]>,
    histories: Histories,
    pv: Box<[[Option<Move>; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    lmr: Box<[[u8; 64]; 64]>,
    /// Pruning and reduction margins.
    params: SearchParams,
    root_depth: i32,
    /// Null-move verification: no null move before this ply.
    null_min_ply: usize,
    /// Nodes (of all threads) at which this iteration stops.
    node_cap: u64,
    /// The network's accumulators, one per ply, when the evaluator has a network.
    nnue: Option<AccumulatorStack>,
}

/// Moves of a node, with their ordering scores.
struct ScoredMoves {
    list: MoveList,
    scores: ArrayVec<i32, MAX_MOVES>,
}

impl<'a> Search<'a> {
    /// Prepares a search of `pos` (which is restored when the search ends).
    pub fn new(
        pos: &'a mut Position,
        tt: &'a TranspositionTable,
        eval: &'a Evaluator,
        control: &'a SearchControl,
        limits: &'a Limits,
    ) -> Search<'a> {
        let histories = Histories::new(pos.variant().shape, pos.variant().kind_count());
        Search::with_histories(pos, tt, eval, control, limits, histories)
    }

    /// Like [`Search::new`], continuing from the history tables of earlier
    /// searches of the same game ([`Search::into_histories`] gives them back).
    pub fn with_histories(
        pos: &'a mut Position,
        tt: &'a TranspositionTable,
        eval: &'a Evaluator,
        control: &'a SearchControl,
        limits: &'a Limits,
        mut histories: Histories,
    ) -> Search<'a> {
        let params = DEFAULT_PARAMS;
        let lmr = params.lmr_table();
        let (soft, hard) = time_budget(limits, pos.side_to_move());
        // Make/unmake push onto the position's history; reserve it now so
        // that no node allocates.
        pos.reserve_history(MAX_PLY + 8);
        let (shape, kinds) = (pos.variant().shape, pos.variant().kind_count());
        if !histories.fits(shape, kinds) {
            histories = Histories::new(shape, kinds);
        }
        let nnue = eval.network().map(|net| {
            let mut stack = AccumulatorStack::new(net, MAX_PLY + 2);
            stack.reset(net, eval.features(), pos);
            stack
        });
        Search {
            pos,
            tt,
            eval,
            control,
            limits,
            nodes: 0,
            nodes_shared: 0,
            other_nodes: 0,
            helper: None,
            seldepth: 0,
            stopped: false,
            start: Instant::now(),
            ponder_released: false,
            soft,
            hard,
            stack: Box::new([EMPTY_FRAME; MAX_PLY + FRAME_OFFSET + 2]),
            histories,
            pv: Box::new([[None; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            lmr,
            params,
            root_depth: 0,
            null_min_ply: 0,
            node_cap: node_cap_at(limits, 1),
            nnue,
        }
    }

    /// Makes this search helper number `number` (from 1) of a Lazy SMP search:
    /// it reports no lines, ignores the clock, leaves out some iterations
    /// (so threads spread over depths) and ends on `helpers_stop`.
    pub fn as_helper(mut self, number: usize) -> Search<'a> {
        self.helper = Some(number.max(1));
        self
    }

    /// This search with other pruning and reduction margins (tuning).
    pub fn with_params(mut self, params: SearchParams) -> Search<'a> {
        self.lmr = params.lmr_table();
        self.params = params;
        self
    }

    /// The pruning and reduction margins in use.
    pub fn params(&self) -> &SearchParams {
        &self.params
    }

    /// The history tables, to carry into the next search of the game.
    pub fn into_histories(self) -> Histories {
        self.histories
    }

    fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Adds this thread's new nodes to the shared count and reads the others'.
    fn share_nodes(&mut self) {
        let new = self.nodes - self.nodes_shared;
        self.nodes_shared = self.nodes;
        let total = self.control.nodes.fetch_add(new, Ordering::Relaxed) + new;
        self.other_nodes = total.saturating_sub(self.nodes);
    }

    /// Nodes of all threads (the others' as of the last poll).
    fn total_nodes(&self) -> u64 {
        self.nodes + self.other_nodes
    }

    /// True when the node budget of this iteration, counted over all threads, is spent.
    #[inline]
    fn node_limit_reached(&self) -> bool {
        self.total_nodes() >= self.node_cap
    }

    /// Looks at the stop flags, the clock and the node counts.
    fn poll(&mut self) {
        self.share_nodes();
        let helpers_stop = self.helper.is_some() && self.control.helpers_stop.load(Ordering::Relaxed);
        if helpers_stop || self.control.stop.load(Ordering::Relaxed) {
            self.stopped = true;
            return;
        }
        if self.limits.ponder && !self.ponder_released {
            if self.control.pondering.load(Ordering::Relaxed) {
                return;
            }
            // ponderhit: the opponent played the expected move; our clock runs from now.
            self.ponder_released = true;
            self.start = Instant::now();
        }
        if let Some(hard) = self.hard {
            if self.time_is_limited() && self.elapsed() >= hard {
                self.stopped = true;
            }
        }
    }

    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        if self.nodes & (POLL_INTERVAL - 1) == 0 {
            self.poll();
        }
        if self.node_limit_reached() {
            self.stopped = true;
        }
    }

    /// True when this search watches the clock (helpers never do).
    fn time_is_limited(&self) -> bool {
        self.helper.is_none() && !self.limits.infinite && (!self.limits.ponder || self.ponder_released)
    }

    #[inline]
    fn frame(&self, ply: usize) -> &Frame {
        &self.stack[ply + FRAME_OFFSET]
    }

    #[inline]
    fn frame_mut(&mut self, ply: usize) -> &mut Frame {
        &mut self.stack[ply + FRAME_OFFSET]
    }

    /// The man a move lifts (or drops) in the current position.
    #[inline]
    fn mover(&self, m: Move) -> Cell {
        if m.kind() == MoveKind::Drop {
            Cell::piece(self.pos.side_to_move(), m.piece())
        } else {
            self.pos.cell(m.from())
        }
    }

    #[inline]
    fn is_capture(&self, m: Move) -> bool {
        self.pos.victim_square(m).is_some()
    }

    /// A capture or a promotion: what quiescence searches.
    #[inline]
    fn is_tactical(&self, m: Move) -> bool {
        self.is_capture(m) || m.kind() == MoveKind::Promotion
    }

    /// The continuation keys of the moves one and two plies before `ply`.
    #[inline]
    fn continuation_keys(&self, ply: usize) -> [Option<PieceTo>; 2] {
        let base = ply + FRAME_OFFSET;
        [self.stack[base - 1].moved, self.stack[base - 2].moved]
    }

    /// Ordering score of a quiet move from the history tables.
    #[inline]
    fn quiet_score(&self, m: Move, mover: Cell, keys: [Option<PieceTo>; 2]) -> i32 {
        self.histories.quiet(self.pos.side_to_move(), m)
            + self.histories.continuation(keys[0], mover, m.to())
            + self.histories.continuation(keys[1], mover, m.to())
    }

    /// Static exchange: does `m` gain at least `threshold`?
    #[inline]
    fn see_ge(&mut self, m: Move, threshold: i32) -> bool {
        let eval = self.eval;
        see_ge(self.pos, m, threshold, |k| eval.value(k))
    }

    fn score_move(&mut self, m: Move, tt_move: Option<Move>, ply: usize) -> i32 {
        if Some(m) == tt_move {
            return 1 << 30;
        }
        let mover = self.mover(m);
        let mut score = 0;
        if let Some(v) = self.pos.victim_square(m) {
            let victim = self.pos.cell(v).kind();
            let victim_value = self.eval.value(victim);
            let attacker_value = self.eval.value(mover.kind());
            // Captures that lose material by static exchange go after the quiet moves.
            let base = if self.see_ge(m, 0) { 1 << 27 } else { BAD_CAPTURE };
            score = base + victim_value * 16 - attacker_value / 16;
            score += self.histories.capture(mover, m.to(), victim) / 8;
        }
        if m.kind() == MoveKind::Promotion {
            score += (1 << 27) + self.eval.value(m.piece());
        }
        if score != 0 {
            return score;
        }
        let frame = self.frame(ply);
        if frame.killers[0] == Some(m) {
            return 1 << 26;
        }
        if frame.killers[1] == Some(m) {
            return (1 << 26) - 1;
        }
        let keys = self.continuation_keys(ply);
        if self.histories.counter(keys[0]) == Some(m) {
            return 1 << 25;
        }
        self.quiet_score(m, mover, keys)
    }

    /// Rewards the quiet move that caused a cutoff and punishes the quiet
    /// moves tried before it.
    fn reward_quiet(&mut self, ply: usize, best: (Move, Cell), tried: &[(Move, Cell)], depth: i32) {
        let bonus = history_bonus(depth);
        let side = self.pos.side_to_move();
        let keys = self.continuation_keys(ply);
        let frame = self.frame_mut(ply);
        if frame.killers[0] != Some(best.0) {
            frame.killers[1] = frame.killers[0];
            frame.killers[0] = Some(best.0);
        }
        self.histories.set_counter(keys[0], best.0);
        for (i, &(m, mover)) in std::iter::once(&best).chain(tried).enumerate() {
            let b = if i == 0 { bonus } else { -bonus };
            self.histories.update_quiet(side, m, b);
            for key in keys {
                self.histories.update_continuation(key, mover, m.to(), b);
            }
        }
    }

    /// Rewards the capture that caused a cutoff and punishes the captures
    /// tried before it.
    fn reward_captures(
        &mut self,
        best: Option<(Move, Cell, PieceKind)>,
        tried: &[(Move, Cell, PieceKind)],
        depth: i32,
    ) {
        let bonus = history_bonus(depth);
        for &(m, mover, victim) in best.iter().chain(tried) {
            let b = if best.is_some_and(|b| b.0 == m) { bonus } else { -bonus };
            self.histories.update_capture(mover, m.to(), victim, b);
        }
    }

    fn is_draw(&self) -> bool {
        self.pos.is_rule_draw()
    }

    /// Moves of a node: pseudo-legal (legality is tested lazily, when a move
    /// is tried), except in check in a succession variant, where the special
    /// king-joker swaps come only from the legal generator.
    fn generate(&mut self, list: &mut MoveList, in_check: bool) -> bool {
        if in_check && self.pos.variant().succession.is_some() {
            self.pos.generate_legal(list);
            true
        } else {
            list.clear();
            self.pos.generate_pseudo(list);
            self.pos.in_setup()
        }
    }

    /// Removes the quiet moves at and after `from`, keeping the order of the rest.
    fn drop_quiet_moves(&self, moves: &mut ScoredMoves, from: usize) {
        let mut kept = from;
        for j in from..moves.list.len() {
            let m = moves.list[j];
            if self.is_tactical(m) {
                moves.list[kept] = m;
                moves.scores[kept] = moves.scores[j];
                kept += 1;
            }
        }
        moves.list.truncate(kept);
        moves.scores.truncate(kept);
    }

    /// Picks the best-scored move at or after `i` and swaps it to `i`.
    #[inline]
    fn pick(moves: &mut ScoredMoves, i: usize) -> Move {
        let mut best = i;
        for j in i + 1..moves.list.len() {
            if moves.scores[j] > moves.scores[best] {
                best = j;
            }
        }
        moves.list.swap(i, best);
        moves.scores.swap(i, best);
        moves.list[i]
    }

    /// Records a new best move at `ply`: its line is the move and the child's line.
    fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][ply] = Some(m);
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        for j in ply + 1..child_len {
            self.pv[ply][j] = self.pv[ply + 1][j];
        }
        self.pv_len[ply] = child_len;
    }

    /// Takes a searched move's score into the node: a new best, a raised alpha
    /// (with the principal variation), and true when it fails high.
    #[inline]
    fn record(&mut self, ply: usize, m: Move, score: i32, node: &mut NodeBest, beta: i32) -> bool {
        if score > node.score {
            node.score = score;
            if score > node.alpha {
                node.alpha = score;
                node.mv = Some(m);
                self.update_pv(ply, m);
                return score >= beta;
            }
        }
        false
    }

    /// Makes a move and records it in the stack for the children's continuation keys.
    #[inline]
    fn make(&mut self, ply: usize, m: Move, mover: Cell) {
        let key = self.histories.piece_to(mover, m.to());
        let frame = self.frame_mut(ply);
        frame.moved = Some(key);
        frame.moved_to = m.to();
        self.pos.make(m);
        if let Some(stack) = &mut self.nnue {
            stack.push(ply + 1, self.pos.last_changes());
        }
    }

    /// The static evaluation of the position at `ply`, for the side to move:
    /// the network's from the accumulators kept move by move, else the
    /// evaluator's.
    #[inline]
    fn evaluate(&mut self, ply: usize) -> i32 {
        match (&mut self.nnue, self.eval.network()) {
            (Some(stack), Some(net)) => {
                if let Some(score) = self.eval.unarmed_guide(self.pos) {
                    return score;
                }
                let score = stack.evaluate(net, self.eval.features(), ply, self.pos.side_to_move());
                // Unit tests check every incremental evaluation against a fresh one.
                #[cfg(test)]
                assert_eq!(score, crate::eval::nnue::evaluate_fresh(net, self.pos), "ply {ply}: {}", self.pos.to_fen());
                score + self.eval.network_base(self.pos)
            }
            _ => self.eval.evaluate(self.pos),
        }
    }

    /// Quiescence: captures and promotions (evasions near the horizon) until
    /// the position is quiet, standing pat on the static evaluation.
    fn qsearch(&mut self, mut alpha: i32, beta: i32, ply: usize, qdepth: u32) -> i32 {
        self.pv_len[ply] = ply;
        self.count_node();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if self.is_draw() {
            return DRAW;
        }
        let in_setup = self.pos.in_setup();
        let in_check = !in_setup && self.pos.in_check();
        if ply >= MAX_PLY - 1 || qdepth >= self.params.qs_max_depth {
            return self.evaluate(ply);
        }
        let hash = self.pos.hash();
        let pv_node = beta - alpha > 1;
        let tt_hit = self.tt.probe(hash);
        if let Some(hit) = tt_hit {
            let score = from_tt(hit.score, ply);
            if !pv_node && bound_cuts(hit.bound, score, alpha, beta) {
                return score;
            }
        }
        // Evasions are searched only near the horizon: in drop variants a
        // check can be answered by a drop, and drop, capture, drop... would
        // never end.
        let evasions = in_check && qdepth < self.params.qs_evasion_depth;
        let mut best = -INFINITE;
        // A stored evaluation of a position in check is meaningless (-INFINITE).
        let raw_eval = match tt_hit {
            _ if evasions => -INFINITE,
            Some(hit) if !in_check && hit.eval != -INFINITE => hit.eval,
            _ => self.evaluate(ply),
        };
        let stand_pat = raw_eval;
        if !evasions {
            if stand_pat >= beta || in_setup {
                if tt_hit.is_none() && !in_setup {
                    self.tt.store(hash, None, to_tt(stand_pat, ply), raw_eval, 0, Bound::Lower);
                }
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
        }
        let mut node = NodeBest { score: best, mv: None, alpha, original_alpha: alpha };
        let mut moves = ScoredMoves { list: MoveList::new(), scores: ArrayVec::new() };
        let all_legal = self.qs_moves(&mut moves, in_check, evasions, tt_hit.and_then(|h| h.mv), ply);
        // The square of the last move: recaptures there escape the capture limit below.
        let last_to = self.stack[ply + FRAME_OFFSET - 1].moved_to;
        let mut legal = 0;
        for i in 0..moves.list.len() {
            let m = Self::pick(&mut moves, i);
            if moves.scores[i] == i32::MIN {
                // Only quiet moves are left.
                break;
            }
            if !evasions
                && m.kind() != MoveKind::Promotion
                && (moves.scores[i] < BAD_CAPTURE_LIMIT
                    || self.qs_delta_prunes(m, stand_pat, node.alpha)
                    || self.qs_limit_skips(legal, qdepth, m.to() == last_to))
            {
                continue;
            }
            if !all_legal && !self.pos.is_legal(m, in_check) {
                continue;
            }
            legal += 1;
            let us = self.pos.side_to_move();
            let mover = self.mover(m);
            self.make(ply, m, mover);
            let score = if self.pos.side_to_move() == us {
                self.qsearch(node.alpha, beta, ply + 1, qdepth + 1)
            } else {
                -self.qsearch(-beta, -node.alpha, ply + 1, qdepth + 1)
            };
            self.pos.unmake(m);
            if self.stopped {
                return 0;
            }
            if self.record(ply, m, score, &mut node, beta) {
                break;
            }
        }
        if evasions && legal == 0 {
            // Every move was tried: no legal move in check is mate.
            return -MATE + ply as i32;
        }
        let bound = node.bound(beta);
        self.tt.store(hash, node.mv, to_tt(node.score, ply), if in_check { -INFINITE } else { raw_eval }, 0, bound);
        node.score
    }

    /// The moves of a quiescence node with their ordering scores; quiet
    /// moves (unless evading) score `i32::MIN`, so the loop stops at the
    /// first. True when the list holds legal moves only.
    #[inline]
    fn qs_moves(
        &mut self,
        moves: &mut ScoredMoves,
        in_check: bool,
        evasions: bool,
        tt_move: Option<Move>,
        ply: usize,
    ) -> bool {
        let all_legal = if in_check {
            self.generate(&mut moves.list, in_check)
        } else {
            // Out of check only captures and promotions are searched.
            moves.list.clear();
            self.pos.generate_tactical(&mut moves.list);
            false
        };
        for i in 0..moves.list.len() {
            let m = moves.list[i];
            let s = if evasions || self.is_tactical(m) { self.score_move(m, tt_move, ply) } else { i32::MIN };
            moves.scores.push(s);
        }
        all_legal
    }

    /// Delta pruning: even winning this man cannot lift the evaluation to alpha.
    #[inline]
    fn qs_delta_prunes(&self, m: Move, stand_pat: i32, alpha: i32) -> bool {
        let victim = self.pos.victim_square(m).unwrap_or(m.to());
        stand_pat + self.eval.value(self.pos.cell(victim).kind()) + self.params.qs_delta_margin <= alpha
    }

    /// A few captures per node, then only recaptures, and deep in the
    /// sequence a single recapture: bounds the tree where dozens of men
    /// attack each other.
    #[inline]
    fn qs_limit_skips(&self, legal: u32, qdepth: u32, recapture: bool) -> bool {
        let p = &self.params;
        (legal >= p.qs_move_limit && !recapture) || (qdepth >= p.qs_recapture_depth && (!recapture || legal > 0))
    }

    /// Searches the position after a move with the window (alpha, beta) seen
    /// from the mover's side. Usually the opponent moves next and the score
    /// flips; but a setup phase can give one side two plies in a row
    /// (Relocation: White chooses last and then moves first).
    #[inline]
    fn child(&mut self, depth: i32, ply: usize, alpha: i32, beta: i32, same_side: bool, cut_node: bool) -> i32 {
        if same_side {
            self.negamax(depth, ply, alpha, beta, cut_node)
        } else {
            -self.negamax(depth, ply, -beta, -alpha, cut_node)
        }
    }

    /// Static evaluation of a node, from the table when it has one.
    fn static_eval(&mut self, in_check: bool, ply: usize, tt_hit: Option<TtHit>) -> i32 {
        if in_check {
            -INFINITE
        } else if self.frame(ply).excluded.is_some() {
            self.frame(ply).static_eval
        } else {
            match tt_hit {
                Some(h) if h.eval != -INFINITE => h.eval,
                _ => self.evaluate(ply),
            }
        }
    }

    /// Null-move pruning: if passing still fails high with a reduced search,
    /// a real move will too. Returns the cutoff score.
    fn try_null_move(&mut self, depth: i32, ply: usize, beta: i32, eval: i32, cut_node: bool) -> Option<i32> {
        if ply < self.null_min_ply
            || self.frame(ply - 1).moved.is_none()
            || !self.eval.has_non_pawn_material(self.pos, self.pos.side_to_move())
        {
            return None;
        }
        let p = &self.params;
        let r =
            p.nmp_reduction + depth / p.nmp_depth_divisor + ((eval - beta) / p.nmp_eval_divisor).min(p.nmp_eval_max);
        let frame = self.frame_mut(ply);
        frame.moved = None;
        frame.moved_to = NO_SQUARE;
        self.pos.make_null();
        if let Some(stack) = &mut self.nnue {
            stack.push(ply + 1, &[]);
        }
        let score = -self.negamax(depth - r, ply + 1, -beta, -beta + 1, !cut_node);
        self.pos.unmake_null();
        if self.stopped || score < beta {
            return None;
        }
        let score = if score > MATE_BOUND { beta } else { score };
        if depth < self.params.nmp_verify_depth {
            return Some(score);
        }
        // Deep: verify with a reduced search that may not pass again near here
        // (zugzwang positions fail the verification).
        self.null_min_ply = ply + (3 * (depth - r) / 4) as usize;
        let verified = self.negamax(depth - r, ply, beta - 1, beta, false);
        self.null_min_ply = 0;
        (verified >= beta).then_some(score)
    }

    /// Singular extension of the TT move: how much deeper to search it (or
    /// Err(score) when even without it the node fails high: multi-cut).
    fn singular_extension(
        &mut self,
        depth: i32,
        ply: usize,
        beta: i32,
        m: Move,
        tt: TtHit,
        cut_node: bool,
    ) -> Result<i32, i32> {
        let tt_score = from_tt(tt.score, ply);
        let singular_beta = tt_score - self.params.singular_beta_per_depth * depth;
        let singular_depth = (depth - 1) / 2;
        self.frame_mut(ply).excluded = Some(m);
        let score = self.negamax(singular_depth, ply, singular_beta - 1, singular_beta, cut_node);
        self.frame_mut(ply).excluded = None;
        if self.stopped {
            return Ok(0);
        }
        if score < singular_beta {
            let doubles = self.frame(ply).double_extensions;
            if score < singular_beta - self.params.double_extension_margin
                && doubles < self.params.max_double_extensions
            {
                self.frame_mut(ply + 1).double_extensions = doubles + 1;
                return Ok(2);
            }
            self.frame_mut(ply + 1).double_extensions = doubles;
            return Ok(1);
        }
        if singular_beta >= beta {
            return Err(singular_beta);
        }
        if tt_score >= beta || cut_node {
            return Ok(-1);
        }
        Ok(0)
    }

    /// Principal-variation search of one node: the cutoffs that need no
    /// move (draw, mate distance, table, reverse futility, null move), then
    /// the move loop.
    fn negamax(&mut self, depth: i32, ply: usize, mut alpha: i32, mut beta: i32, cut_node: bool) -> i32 {
        self.pv_len[ply] = ply;
        let pv_node = beta - alpha > 1;
        if depth <= 0 {
            return self.qsearch(alpha, beta, ply, 0);
        }
        let in_setup = self.pos.in_setup();
        let in_check = !in_setup && self.pos.in_check();
        if ply > 0 {
            if self.is_draw() {
                return DRAW;
            }
            // Mate-distance pruning: no line from here beats a shorter mate already found.
            alpha = alpha.max(-MATE + ply as i32);
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        if ply >= MAX_PLY - 1 {
            return self.evaluate(ply);
        }
        self.count_node();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let excluded = self.frame(ply).excluded;
        let hash = self.pos.hash();
        let tt_hit = if excluded.is_none() { self.tt.probe(hash) } else { None };
        if let Some(hit) = tt_hit {
            let score = from_tt(hit.score, ply);
            if !pv_node && hit.depth >= depth && bound_cuts(hit.bound, score, alpha, beta) {
                return score;
            }
        }
        let static_eval = self.static_eval(in_check, ply, tt_hit);
        self.frame_mut(ply).static_eval = static_eval;
        self.frame_mut(ply + 2).killers = [None; 2];
        // Improving: our evaluation rose since our previous move; prune less when it did.
        let improving = !in_check && ply >= 2 && static_eval > self.frame(ply - 2).static_eval;
        let tt_move = tt_hit.and_then(|h| h.mv);
        let mut n = NodeInfo {
            depth,
            ply,
            beta,
            pv_node,
            cut_node,
            in_check,
            in_setup,
            improving,
            static_eval,
            excluded,
            tt_hit,
            tt_move,
            hash,
        };
        if let Some(score) = self.prune_node(&n) {
            return score;
        }
        // Internal iterative reduction: without a table move the ordering is
        // poor, and the next visit will have one.
        if tt_move.is_none() && depth >= self.params.iir_min_depth && (pv_node || cut_node) && excluded.is_none() {
            n.depth -= 1;
        }
        self.search_moves(&n, alpha)
    }

    /// Cutoffs before any move is searched, at non-PV nodes out of check:
    /// reverse futility, then null move. `Some(score)` ends the node.
    fn prune_node(&mut self, n: &NodeInfo) -> Option<i32> {
        if n.pv_node || n.in_check || n.in_setup || n.ply == 0 || n.excluded.is_some() {
            return None;
        }
        let (p, depth, beta) = (&self.params, n.depth, n.beta);
        let eval = n.refined_eval();
        // Reverse futility: far above beta near the leaves, trust the evaluation.
        if depth <= p.rfp_max_depth
            && eval - p.rfp_margin * (depth - i32::from(n.improving)) >= beta
            && eval.abs() < MATE_BOUND
        {
            return Some(eval);
        }
        if depth >= p.nmp_min_depth
            && eval >= beta
            && n.static_eval >= beta - p.nmp_eval_per_depth * depth + p.nmp_eval_base
        {
            if let Some(score) = self.try_null_move(depth, n.ply, beta, eval, n.cut_node) {
                return Some(score);
            }
            if self.stopped {
                return Some(0);
            }
        }
        None
    }

    /// The move loop: each move in order is pruned, or extended or reduced
    /// and searched; a fail high ends the loop.
    fn search_moves(&mut self, n: &NodeInfo, alpha: i32) -> i32 {
        let mut moves = ScoredMoves { list: MoveList::new(), scores: ArrayVec::new() };
        let all_legal = self.generate(&mut moves.list, n.in_check);
        for i in 0..moves.list.len() {
            let s = self.score_move(moves.list[i], n.tt_move, n.ply);
            moves.scores.push(s);
        }
        let keys = self.continuation_keys(n.ply);
        let mut tried = Tried { quiets: ArrayVec::new(), captures: ArrayVec::new() };
        let mut node = NodeBest { score: -INFINITE, mv: None, alpha, original_alpha: alpha };
        let mut legal = 0;
        let mut skip_quiets = false;
        let mut i = 0;
        while i < moves.list.len() {
            let m = Self::pick(&mut moves, i);
            i += 1;
            if Some(m) == n.excluded {
                continue;
            }
            let victim = self.pos.victim_square(m).map(|v| self.pos.cell(v).kind());
            let quiet = victim.is_none() && m.kind() != MoveKind::Promotion;
            if quiet && skip_quiets && !n.in_check {
                continue;
            }
            if !all_legal && !self.pos.is_legal(m, n.in_check) {
                continue;
            }
            legal += 1;
            let mover = self.mover(m);
            let mv = MoveInfo {
                m,
                mover,
                victim,
                quiet,
                history: if quiet { self.quiet_score(m, mover, keys) } else { 0 },
                is_killer: self.frame(n.ply).killers.contains(&Some(m)),
                base_reduction: self.lmr[n.depth.min(63) as usize][legal.min(63)] as i32,
            };
            match self.prune_quiet(n, &mv, legal, &node) {
                Prune::Keep => {}
                Prune::Skip => continue,
                Prune::SkipQuiets => {
                    skip_quiets = true;
                    if !n.in_check {
                        // Only captures and promotions are left to try: drop
                        // the quiet moves now rather than pick past each.
                        self.drop_quiet_moves(&mut moves, i);
                    }
                    continue;
                }
            }
            if self.prune_by_exchange(n, &mv, &node) {
                continue;
            }
            let extension = match self.tt_move_extension(n, m) {
                Ok(e) => e,
                Err(score) => return score,
            };
            let score = self.search_move(n, &mv, legal, extension, node.alpha);
            if self.stopped {
                return 0;
            }
            if self.record(n.ply, m, score, &mut node, n.beta) {
                break;
            }
            tried.push(&mv);
        }
        self.finish_node(n, &node, legal, &tried)
    }

    /// Late-move, futility and history pruning of a quiet move that is not a
    /// killer: near the leaves, quiet moves ordered last rarely matter.
    #[inline]
    fn prune_quiet(&self, n: &NodeInfo, mv: &MoveInfo, legal: usize, node: &NodeBest) -> Prune {
        if !(n.may_prune(node) && mv.quiet && !mv.is_killer) {
            return Prune::Keep;
        }
        let (p, depth) = (&self.params, n.depth);
        // Late-move pruning: after this many quiet moves, the rest go too.
        if legal as i32 > (p.lmp_base + depth * depth) / (2 - i32::from(n.improving)) {
            return Prune::SkipQuiets;
        }
        let lmr_depth = (depth - 1 - mv.base_reduction).max(0);
        // Futility: a quiet move cannot lift a hopeless evaluation to alpha.
        if lmr_depth <= p.futility_max_depth
            && n.static_eval + p.futility_base + p.futility_per_depth * lmr_depth <= node.alpha
        {
            return Prune::Skip;
        }
        // History pruning: moves that have failed everywhere before.
        if lmr_depth <= p.history_max_depth && mv.history < -p.history_margin * depth {
            return Prune::Skip;
        }
        Prune::Keep
    }

    /// Exchange pruning near the leaves: captures and quiet moves (not the
    /// table move) that lose too much material by static exchange.
    #[inline]
    fn prune_by_exchange(&mut self, n: &NodeInfo, mv: &MoveInfo, node: &NodeBest) -> bool {
        let (p, depth) = (&self.params, n.depth);
        if !n.may_prune(node) || depth > p.see_max_depth || Some(mv.m) == n.tt_move {
            return false;
        }
        let threshold = if mv.quiet { -p.see_quiet_margin * depth * depth } else { -p.see_capture_margin * depth };
        !self.see_ge(mv.m, threshold)
    }

    /// The extension of the table move by a singular search (0 for every
    /// other move). `Err(score)` ends the node: a multi-cut, or 0 when the
    /// search was stopped.
    #[inline]
    fn tt_move_extension(&mut self, n: &NodeInfo, m: Move) -> Result<i32, i32> {
        let (Some(hit), true) = (n.tt_hit, Some(m) == n.tt_move) else {
            return Ok(0);
        };
        let p = &self.params;
        if n.ply > 0
            && n.depth >= p.singular_min_depth
            && hit.depth >= n.depth - p.singular_tt_depth_margin
            && matches!(hit.bound, Bound::Lower | Bound::Exact)
            && from_tt(hit.score, n.ply).abs() < MATE_BOUND
            && !n.in_setup
        {
            let extension = self.singular_extension(n.depth, n.ply, n.beta, m, hit, n.cut_node)?;
            if self.stopped {
                return Err(0);
            }
            return Ok(extension);
        }
        Ok(0)
    }

    /// Makes a move, searches it and unmakes it: the first move with the
    /// full window, the others with a null window (late quiet ones reduced),
    /// searched again when they beat alpha. Checks are extended.
    fn search_move(&mut self, n: &NodeInfo, mv: &MoveInfo, legal: usize, mut extension: i32, alpha: i32) -> i32 {
        let (ply, m, beta) = (n.ply, mv.m, n.beta);
        let us = self.pos.side_to_move();
        self.make(ply, m, mv.mover);
        let same_side = self.pos.side_to_move() == us;
        let gives_check = !self.pos.in_setup() && self.pos.in_check();
        if extension == 0 && gives_check && (ply as i32) < 2 * self.root_depth {
            extension = 1;
        }
        if extension < 2 {
            self.frame_mut(ply + 1).double_extensions = self.frame(ply).double_extensions;
        }
        let new_depth = n.depth - 1 + extension;
        let mut score;
        if legal == 1 {
            score = self.child(new_depth, ply + 1, alpha, beta, same_side, !n.pv_node && !n.cut_node);
        } else {
            let reduction = self.reduction(n, mv, legal, gives_check, new_depth);
            score = self.child(new_depth - reduction, ply + 1, alpha, alpha + 1, same_side, true);
            if score > alpha && reduction > 0 {
                score = self.child(new_depth, ply + 1, alpha, alpha + 1, same_side, !n.cut_node);
            }
            if score > alpha && score < beta {
                score = self.child(new_depth, ply + 1, alpha, beta, same_side, false);
            }
        }
        self.pos.unmake(m);
        score
    }

    /// Late-move reduction of a late quiet move: the table's, one more when
    /// not improving or at an expected cut node, less at PV nodes, for
    /// killers, checks and a good history.
    #[inline]
    fn reduction(&self, n: &NodeInfo, mv: &MoveInfo, legal: usize, gives_check: bool, new_depth: i32) -> i32 {
        let p = &self.params;
        if !(n.depth >= p.lmr_min_depth && legal > p.lmr_min_moves && mv.quiet) {
            return 0;
        }
        let mut reduction = mv.base_reduction;
        reduction += i32::from(!n.improving) + i32::from(n.cut_node);
        reduction -= i32::from(n.pv_node) + i32::from(mv.is_killer) + i32::from(gives_check);
        reduction -= mv.history / p.lmr_history_divisor;
        reduction.clamp(0, new_depth - 1)
    }

    /// After the move loop: mate or stalemate when no move was legal, the
    /// histories taught by a fail high, and the table entry.
    fn finish_node(&mut self, n: &NodeInfo, node: &NodeBest, legal: usize, tried: &Tried) -> i32 {
        if legal == 0 {
            if n.excluded.is_some() {
                return node.original_alpha;
            }
            return if n.in_check { -MATE + n.ply as i32 } else { DRAW };
        }
        if let (true, Some(m)) = (node.score >= n.beta, node.mv) {
            self.reward_cutoff(n, m, tried);
        }
        if n.excluded.is_none() {
            let bound = node.bound(n.beta);
            self.tt.store(n.hash, node.mv, to_tt(node.score, n.ply), n.static_eval, n.depth, bound);
        }
        node.score
    }

    /// Rewards the move that failed high in the histories and punishes the
    /// moves of its kind (quiet or capture) tried before it.
    fn reward_cutoff(&mut self, n: &NodeInfo, m: Move, tried: &Tried) {
        let mover = self.mover(m);
        match self.pos.victim_square(m).map(|v| self.pos.cell(v).kind()) {
            Some(victim) => self.reward_captures(Some((m, mover, victim)), &tried.captures, n.depth),
            None if m.kind() != MoveKind::Promotion => {
                self.reward_quiet(n.ply, (m, mover), &tried.quiets, n.depth);
                self.reward_captures(None, &tried.captures, n.depth);
            }
            None => {}
        }
    }

    /// Searches the root moves `root[first..]` with the window (alpha, beta).
    fn search_root(
        &mut self,
        root: &mut [RootMove],
        first: usize,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        on_event: &mut dyn FnMut(SearchEvent),
    ) -> i32 {
        let mut best = -INFINITE;
        let report_currmove = self.elapsed() > Duration::from_secs(3);
        for (i, rm) in root.iter_mut().enumerate().skip(first) {
            let m = rm.mv;
            if report_currmove {
                on_event(SearchEvent::CurrMove { depth: depth as u32, mv: m, number: i + 1 });
            }
            self.seldepth = 0;
            let nodes_before = self.nodes;
            let us = self.pos.side_to_move();
            let mover = self.mover(m);
            self.frame_mut(1).double_extensions = 0;
            self.make(0, m, mover);
            let same_side = self.pos.side_to_move() == us;
            let gives_check = !self.pos.in_setup() && self.pos.in_check();
            let new_depth = depth - 1 + i32::from(gives_check);
            let mut score;
            if i == first {
                score = self.child(new_depth, 1, alpha, beta, same_side, false);
            } else {
                score = self.child(new_depth, 1, alpha, alpha + 1, same_side, true);
                if score > alpha && score < beta {
                    score = self.child(new_depth, 1, alpha, beta, same_side, false);
                }
            }
            self.pos.unmake(m);
            rm.nodes += self.nodes - nodes_before;
            if self.stopped {
                break;
            }
            if i == first || score > alpha {
                rm.score = score;
                rm.seldepth = self.seldepth as u32;
                rm.pv.clear();
                rm.pv.push(m);
                let len = self.pv_len[1].max(1);
                rm.pv.extend(self.pv[1][1..len].iter().map_while(|&x| x));
            } else {
                rm.score = -INFINITE;
            }
            if score > best {
                best = score;
            }
            if score > alpha {
                alpha = score;
                if score >= beta {
                    break;
                }
            }
        }
        best
    }

    fn pv_info(&self, root: &RootMove, multipv: usize, depth: i32) -> PvInfo {
        let time_ms = self.elapsed().as_millis() as u64;
        let score = root.display_score();
        PvInfo {
            depth: depth as u32,
            seldepth: root.seldepth.max(depth as u32),
            multipv,
            score: Score::from_internal(score),
            raw_score: score,
            nodes: self.total_nodes(),
            time_ms,
            nps: self.total_nodes() * 1000 / time_ms.max(1),
            hashfull: self.tt.hashfull(),
            pv: root.pv.clone(),
        }
    }

    /// Runs iterative deepening until a limit is reached or the search is
    /// stopped. Reports each finished line through `on_event`.
    pub fn run(&mut self, on_event: &mut dyn FnMut(SearchEvent)) -> SearchResult {
        if self.helper.is_none() {
            self.tt.new_search();
        }
        let mut root = self.root_moves();
        if root.is_empty() {
            return self.no_move_result();
        }
        let max_depth = self.limits.depth.map_or(MAX_PLY as i32 - 8, |d| (d as i32).clamp(1, MAX_PLY as i32 - 8));
        let multipv = self.limits.multipv.clamp(1, root.len());
        let mut progress =
            Deepening { completed: 0, reached: 1, last_best: root[0].mv, stable_iterations: 0, reported: None };
        for depth in 1..=max_depth {
            if self.helper.is_some_and(|h| helpers::skips_depth(h, depth)) {
                continue;
            }
            self.root_depth = depth;
            self.node_cap = node_cap_at(self.limits, depth);
            progress.reached = depth;
            for r in root.iter_mut() {
                r.previous = r.score;
            }
            self.iteration(&mut root, depth, multipv, &mut progress, on_event);
            if self.stopped {
                if depth == 1 {
                    progress.completed = 1;
                }
                break;
            }
            progress.completed = depth;
            if self.last_iteration(&root, depth, &mut progress) {
                break;
            }
        }
        self.share_nodes();
        self.result(&root, &progress, on_event)
    }

    /// The legal root moves (those of `searchmoves` when given), ordered by
    /// the static ordering; from then on each iteration orders them by score.
    fn root_moves(&mut self) -> Vec<RootMove> {
        let mut list = MoveList::new();
        self.pos.generate_legal(&mut list);
        let mut root: Vec<RootMove> = list
            .iter()
            .filter(|m| self.limits.search_moves.is_empty() || self.limits.search_moves.contains(m))
            .map(|&mv| RootMove { mv, score: -INFINITE, previous: -INFINITE, seldepth: 0, nodes: 0, pv: vec![mv] })
            .collect();
        if root.is_empty() {
            return root;
        }
        let tt_move = self.tt.probe(self.pos.hash()).and_then(|h| h.mv);
        root.sort_by_cached_key(|r| std::cmp::Reverse(self.score_move(r.mv, tt_move, 0)));
        root
    }

    /// The outcome when there is no move to search: mated, or stalemated.
    fn no_move_result(&self) -> SearchResult {
        let in_check = !self.pos.in_setup() && self.pos.in_check();
        let score = if in_check { Score::Mate(0) } else { Score::Cp(0) };
        SearchResult { best: None, ponder: None, score, depth: 0, nodes: 0, time_ms: 0 }
    }

    /// One iteration: each of the `multipv` lines in turn, searched; then
    /// the lines finished at this depth, sorted best first, and (by the main
    /// search) reported as one block, multipv 1 first.
    fn iteration(
        &mut self,
        root: &mut [RootMove],
        depth: i32,
        multipv: usize,
        progress: &mut Deepening,
        on_event: &mut dyn FnMut(SearchEvent),
    ) {
        let mut finished = 0;
        for pv_index in 0..multipv {
            self.aspiration_search(root, pv_index, depth, on_event);
            if self.stopped && depth > 1 {
                break;
            }
            finished = pv_index + 1;
        }
        sort_lines(&mut root[..finished]);
        if self.helper.is_none() && finished > 0 {
            progress.reported = Some(root[0].mv);
            for (i, line) in root[..finished].iter().enumerate() {
                let info = self.pv_info(line, i + 1, depth);
                on_event(SearchEvent::Pv(info));
            }
        }
    }

    /// Searches line `pv_index` in a window around its previous score,
    /// widened on each failure until the score falls inside.
    fn aspiration_search(
        &mut self,
        root: &mut [RootMove],
        pv_index: usize,
        depth: i32,
        on_event: &mut dyn FnMut(SearchEvent),
    ) {
        let previous = root[pv_index].previous;
        let mut delta = self.params.aspiration_delta;
        let (mut alpha, mut beta) = if depth >= self.params.aspiration_min_depth && previous.abs() < MATE_BOUND {
            ((previous - delta).max(-INFINITE), (previous + delta).min(INFINITE))
        } else {
            (-INFINITE, INFINITE)
        };
        loop {
            let score = self.search_root(root, pv_index, depth, alpha, beta, on_event);
            // Stable: moves that failed low keep their previous order.
            root[pv_index..].sort_by_key(|r| std::cmp::Reverse(r.score));
            if self.stopped {
                break;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITE);
            } else if score >= beta {
                beta = (score + delta).min(INFINITE);
            } else {
                break;
            }
            delta += delta;
            if delta > self.params.aspiration_max_delta {
                alpha = -INFINITE;
                beta = INFINITE;
            }
        }
    }

    /// True when no iteration follows the finished one: the mate asked for
    /// is found, the clock says so, or the next one's node budget is spent.
    fn last_iteration(&self, root: &[RootMove], depth: i32, progress: &mut Deepening) -> bool {
        if let Some(n) = self.limits.mate {
            if root[0].score > MATE - 2 * n.min(MAX_PLY as u32) as i32 {
                return true;
            }
        }
        if root[0].mv == progress.last_best {
            progress.stable_iterations += 1;
        } else {
            progress.stable_iterations = 0;
            progress.last_best = root[0].mv;
        }
        if self.time_is_limited() && self.out_of_time(root, depth, progress.stable_iterations) {
            return true;
        }
        self.total_nodes() >= node_cap_at(self.limits, depth + 1)
    }

    /// True when the clock leaves no room for another iteration, or there is
    /// only one move to play.
    fn out_of_time(&self, root: &[RootMove], depth: i32, stable_iterations: u32) -> bool {
        if let Some(soft) = self.soft {
            // The next iteration would take longer than what is left
            // of the soft limit, scaled by how settled the best move is.
            let permille = root[0].nodes * 1000 / self.nodes.max(1);
            let scale = if depth >= 6 { soft_scale_percent(stable_iterations, permille) } else { 100 };
            let budget = soft.as_millis() * scale as u128 / 100;
            if self.elapsed().as_millis() >= budget * 6 / 10 {
                return true;
            }
        }
        root.len() == 1 && (self.soft.is_some() || self.limits.nodes.is_some()) && depth >= 4
    }

    /// The outcome of the search. A stop inside an iteration can leave a new
    /// best move that no line showed yet: GUIs show the last line as the
    /// move played, so it is reported first.
    fn result(
        &mut self,
        root: &[RootMove],
        progress: &Deepening,
        on_event: &mut dyn FnMut(SearchEvent),
    ) -> SearchResult {
        if self.helper.is_none() && progress.reported != Some(root[0].mv) {
            on_event(SearchEvent::Pv(self.pv_info(&root[0], 1, progress.reached)));
        }
        let best = &root[0];
        let ponder = self.ponder_move(best);
        let score = best.display_score();
        SearchResult {
            best: Some(best.mv),
            ponder,
            score: Score::from_internal(score),
            depth: progress.completed as u32,
            nodes: self.total_nodes(),
            time_ms: self.elapsed().as_millis() as u64,
        }
    }

    /// The expected reply: the line's second move, else (a line one move
    /// long) the table's move after the best one, when legal.
    fn ponder_move(&mut self, best: &RootMove) -> Option<Move> {
        best.pv.get(1).copied().or_else(|| {
            let mv = best.mv;
            self.pos.make(mv);
            let reply = self.tt.probe(self.pos.hash()).and_then(|h| h.mv);
            let mut replies = MoveList::new();
            self.pos.generate_legal(&mut replies);
            self.pos.unmake(mv);
            reply.filter(|r| replies.contains(r))
        })
    }

    /// Nodes this thread searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::EvalMode;
    use std::sync::Arc;

    fn search(variant: &str, fen: &str, limits: Limits) -> (SearchResult, Position) {
        let reg = crate::eval::catalogue::Catalogue::builtin();
        let v = reg.get(variant).expect("variant ships");
        let mut pos = Position::from_fen(Arc::clone(&v), fen).expect("valid FEN");
        let eval = reg.evaluator(&v, EvalMode::Full);
        let tt = TranspositionTable::new(4);
        let control = SearchControl::default();
        let result = Search::new(&mut pos, &tt, &eval, &control, &limits).run(&mut |_| {});
        (result, pos)
    }

    /// A search with a network in every variant: `Search::evaluate` checks
    /// each incremental evaluation against a fresh one under test, so this
    /// walks make, unmake, null moves, drops, swaps and succession through
    /// thousands of nodes each.
    #[test]
    fn searches_with_a_network_in_every_variant_keep_the_accumulators_exact() {
        let reg = crate::eval::catalogue::Catalogue::builtin();
        for name in reg.registry().names() {
            let v = reg.get(&name).expect("listed");
            let net =
                crate::eval::nnue::FloatNetwork::random(&v, 16, crate::eval::nnue::Activation::SquaredClippedRelu, 21);
            let eval = reg.evaluator(&v, EvalMode::Linear).with_network(Arc::new(net.quantize()));
            let mut pos = Position::startpos(Arc::clone(&v)).expect("start");
            let mut rng = crate::rules::zobrist::SplitMix64(name.len() as u64);
            crate::game::openings::play_random_plies(&mut pos, 6, &mut rng);
            let fen = pos.to_fen();
            let tt = TranspositionTable::new(4);
            let control = SearchControl::default();
            let limits = Limits { nodes: Some(4000), ..Limits::default() };
            let result = Search::new(&mut pos, &tt, &eval, &control, &limits).run(&mut |_| {});
            assert!(result.best.is_some(), "{name}: no move from {fen}");
            assert!(result.nodes >= 4000, "{name}: only {} nodes", result.nodes);
            assert_eq!(pos.to_fen(), fen, "{name}: the search restores the position");
        }
    }

    #[test]
    fn finds_mate_in_one() {
        let limits = Limits { depth: Some(3), ..Limits::default() };
        let (r, pos) = search("chess", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", limits);
        assert_eq!(r.best.map(|m| pos.move_to_uci(m, false)), Some("a1a8".to_string()));
        assert_eq!(r.score, Score::Mate(1));
    }

    #[test]
    fn takes_a_hanging_queen() {
        let limits = Limits { depth: Some(4), ..Limits::default() };
        let (r, pos) = search("chess", "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", limits);
        assert_eq!(r.best.map(|m| pos.move_to_uci(m, false)), Some("d2d5".to_string()));
    }

    #[test]
    fn no_legal_move_gives_no_best_move() {
        let (r, _) = search("chess", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", Limits { depth: Some(2), ..Limits::default() });
        assert!(r.best.is_none());
    }

    #[test]
    fn search_restores_the_position() {
        let fen = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1";
        let (r, pos) = search("capablanca", fen, Limits { depth: Some(4), ..Limits::default() });
        assert!(r.best.is_some());
        assert_eq!(pos.to_fen(), fen);
        assert_eq!(pos.hash(), pos.compute_hash());
    }

    #[test]
    fn a_side_moving_twice_keeps_its_point_of_view() {
        // Relocation: White makes the last setup choice and then moves first,
        // so after White's choice White is to move again. At depth 1 the root
        // score must be the best evaluation White can reach, not the worst.
        let fen = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1 S";
        let reg = crate::eval::catalogue::Catalogue::builtin();
        let v = reg.get("relocation").expect("relocation ships");
        let eval = reg.evaluator(&v, EvalMode::Full);
        let mut pos = Position::from_fen(Arc::clone(&v), fen).expect("valid FEN");
        let mut list = MoveList::new();
        pos.generate_legal(&mut list);
        let best = list
            .iter()
            .map(|&m| {
                pos.make(m);
                let score = eval.evaluate(&pos);
                pos.unmake(m);
                score
            })
            .max();
        let (r, _) = search("relocation", fen, Limits { depth: Some(1), ..Limits::default() });
        assert_eq!(Some(r.score), best.map(Score::Cp));
    }

    #[test]
    fn depth_one_ends_where_every_man_attacks_another() {
        // Dozens of mutual queen captures: quiescence must stay bounded.
        let fen = "kqqqqqqq/qqqqqqqq/qqqqqqqq/qqqqqqqq/QQQQQQQQ/QQQQQQQQ/QQQQQQQQ/QQQQQQQK w - - 0 1";
        let (r, _) = search("chess", fen, Limits { depth: Some(1), ..Limits::default() });
        assert!(r.best.is_some());
        assert_eq!(r.depth, 1);
        assert!(r.nodes < 1_000_000, "{} nodes", r.nodes);
    }

    /// The lines a MultiPV search reports, in blocks of one depth each, and its result.
    fn multipv_blocks(variant: &str, fen: &str, depth: u32, lines: usize) -> (Vec<Vec<PvInfo>>, SearchResult) {
        let reg = crate::eval::catalogue::Catalogue::builtin();
        let v = reg.get(variant).expect("variant ships");
        let mut pos = Position::from_fen(Arc::clone(&v), fen).expect("valid FEN");
        let eval = reg.evaluator(&v, EvalMode::Full);
        let tt = TranspositionTable::new(4);
        let control = SearchControl::default();
        let limits = Limits { depth: Some(depth), multipv: lines, ..Limits::default() };
        let mut blocks: Vec<Vec<PvInfo>> = Vec::new();
        let result = Search::new(&mut pos, &tt, &eval, &control, &limits).run(&mut |event| {
            if let SearchEvent::Pv(info) = event {
                match blocks.last_mut() {
                    Some(block) if block[0].depth == info.depth => block.push(info),
                    _ => blocks.push(vec![info]),
                }
            }
        });
        (blocks, result)
    }

    #[test]
    fn multipv_lines_come_best_first_in_every_iteration() {
        // Found by experiment: from the start position, searched line by
        // line, a later line outscores an earlier one at several depths, and
        // the lines change places from one iteration to the next.
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let (blocks, result) = multipv_blocks("chess", fen, 7, 3);
        assert_eq!(blocks.len(), 7, "one block per depth");
        for block in &blocks {
            let numbers: Vec<usize> = block.iter().map(|l| l.multipv).collect();
            assert_eq!(numbers, [1, 2, 3], "depth {}", block[0].depth);
            let scores: Vec<i32> = block.iter().map(|l| l.raw_score).collect();
            assert!(scores.windows(2).all(|w| w[0] >= w[1]), "depth {}: {scores:?}", block[0].depth);
        }
        let last = blocks.last().expect("a block");
        assert_eq!(result.best, last[0].pv.first().copied(), "bestmove is line 1's move");
        assert_eq!(result.score, last[0].score);
        // The fixture is one where the order changes: some two moves shown
        // at consecutive depths swap places.
        let swapped = blocks.windows(2).any(|w| {
            let heads = |block: &[PvInfo]| block.iter().map(|l| l.pv[0]).collect::<Vec<Move>>();
            let (before, after) = (heads(&w[0]), heads(&w[1]));
            let common = |a: &[Move], b: &[Move]| a.iter().copied().filter(|m| b.contains(m)).collect::<Vec<Move>>();
            common(&before, &after) != common(&after, &before)
        });
        assert!(swapped, "the fixture no longer reorders its lines");
    }

    #[test]
    fn sorting_lines_is_stable_for_equal_scores() {
        let line = |from: u8, score: i32| RootMove {
            mv: Move::new(Square(from), Square(from + 1), MoveKind::Normal, PieceKind(0)),
            score,
            previous: -INFINITE,
            seldepth: 0,
            nodes: 0,
            pv: Vec::new(),
        };
        let mut lines = vec![line(40, 5), line(50, 20), line(60, 5), line(70, 20)];
        sort_lines(&mut lines);
        let order: Vec<(u8, i32)> = lines.iter().map(|l| (l.mv.from().0, l.score)).collect();
        assert_eq!(order, [(50, 20), (70, 20), (40, 5), (60, 5)]);
    }

    #[test]
    fn dead_positions_score_as_draws() {
        // K+B v K: every position below the root is dead, whatever the bishop is worth.
        let depth = Limits { depth: Some(5), ..Limits::default() };
        let (r, _) = search("chess", "4k3/8/8/8/8/8/8/B3K3 w - - 0 1", depth.clone());
        assert_eq!(r.score, Score::Cp(0));
        // Taking the last pawn with the knight leaves K+N v K: a draw, not a knight up.
        let (r, pos) = search("chess", "4k3/8/8/8/8/2N5/p7/4K3 w - - 0 1", depth.clone());
        assert_eq!(r.best.map(|m| pos.move_to_uci(m, false)).as_deref(), Some("c3a2"));
        assert_eq!(r.score, Score::Cp(0));
        // The archbishop mates alone: K+A v K plays on, and is won.
        let (r, _) = search("capablanca", "4k5/10/10/10/10/10/10/A3K5 w - - 0 1", depth);
        assert!(
            matches!(r.score, Score::Cp(cp) if cp > 500) || matches!(r.score, Score::Mate(n) if n > 0),
            "{:?}",
            r.score
        );
    }

    #[test]
    fn node_limit_is_respected() {
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let (r, _) = search("chess", fen, Limits { nodes: Some(5000), ..Limits::default() });
        assert!(r.nodes < 5000 + 2000, "{}", r.nodes);
        assert!(r.best.is_some());
    }
}
