//! Alpha-beta search without I/O.
//!
//! What the search does, and where each job lives:
//!
//! - **The root** (`root.rs`): iterative deepening; each line searched in an
//!   aspiration window around its previous score, widened on each failure;
//!   MultiPV (every line in its own window, the lines sorted once all are
//!   searched); `searchmoves`; when to stop: the clock, `go nodes` and the
//!   skill budget, a mate found; the expected reply (ponder move).
//! - **One node** (`node.rs`): principal-variation search (negamax) with
//!   mate-distance pruning, table cutoffs at non-PV nodes, an `improving`
//!   flag, and the cutoffs before any move: reverse futility and null-move
//!   pruning (never in check, in a setup phase, twice in a row or without
//!   non-pawn material; verified by a reduced search when deep); internal
//!   iterative reduction without a table move. In the move loop: late-move,
//!   futility and history pruning of quiet moves, exchange (SEE) pruning,
//!   singular extension of the table move (double extensions, a negative
//!   extension, multi-cut), check extension, late-move reductions with
//!   re-searches; mate, stalemate and draws by the variant's rules
//!   (repetition, the move rule, dead positions).
//! - **More cutoffs before the moves** (`cutoffs.rs`): razoring, ProbCut
//!   and the `improving` flag's fallback, each off unless its margin in
//!   `params.rs` switches it on.
//! - **Quiescence** (`quiescence.rs`): captures and promotions until the
//!   position is quiet (drops are left out, so the sequence always ends:
//!   every capture takes a man off the board), evasions near the horizon,
//!   stand pat, the table, delta pruning, losing captures skipped, and a
//!   bound on the captures per node where dozens of men attack each other;
//!   staged like the main search (the table move before any generation).
//! - **Move ordering** (`picker.rs`): table move, captures that do not lose
//!   by static exchange (MVV-LVA and capture history), promotions, two
//!   killers, the counter move, quiet and continuation histories
//!   (`history.rs`), then losing captures; the histories rewarded and
//!   punished after each cutoff.
//! - **Evaluation correction** (`correction.rs`): per side to move and
//!   pawn structure (and per placement of the other men), what the search
//!   found the static evaluation to be off by; added to the evaluation that
//!   prunes, at the weights `correction_weight` and `piece_correction_weight`
//!   (100 % each; 0 turns a table off). It pays in deep searches: +30 Elo at
//!   60 000 nodes a move, nothing measurable at 15 000.
//! - **Per-ply and per-node state** (`state.rs`): the frames of the stack
//!   (static evaluation, killers, excluded move, the move made), what the
//!   move loop reads of a node and of each move, making a move with the
//!   network's accumulators, the static evaluation, the principal
//!   variation. Here, in this file: the [`Search`] itself, node counting
//!   and polling, and the table's mate-distance conversions.
//! - **The transposition table** ([`tt`]), shared without a lock;
//!   **time management** (`time.rs`): soft and hard limits, the soft one
//!   scaled by how settled the best move is; **margins** (`params.rs`);
//!   **weakened play** ([`skill`]).
//! - **Lazy SMP** ([`smp`]): several searches share one table and one
//!   [`SearchControl`]; the main one decides time and reports, helpers
//!   ([`Search::as_helper`]) only fill the table, leave out some iterations
//!   (`skipping.rs`) and end when the owner sets `helpers_stop`.
//!
//! The public types the search takes and gives are in `types.rs` (and
//! re-exported here).
//!
//! Nothing here allocates per node: move lists live on the stack (hence the
//! large stack every search thread gets, see [`smp::SEARCH_STACK_BYTES`]),
//! tables are allocated once per search. The search polls [`SearchControl`]
//! every [`POLL_INTERVAL`] nodes, so a `stop` is obeyed within a millisecond
//! or so.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

mod correction;
mod cutoffs;
mod history;
mod node;
mod params;
mod picker;
mod quiescence;
mod root;
pub mod skill;
mod skipping;
pub mod smp;
mod state;
mod threats;
mod time;
pub mod tt;
mod types;

pub use history::Histories;
pub use params::{SearchParams, DEFAULT_PARAMS};
pub use types::{Limits, PvInfo, Score, SearchControl, SearchEvent, SearchResult};

use crate::board::position::Position;
use crate::eval::nnue::AccumulatorStack;
use crate::eval::Evaluator;
use crate::rules::moves::Move;
use crate::search::tt::{Bound, TranspositionTable};
use root::node_cap_at;
use state::{Frame, EMPTY_FRAME, FRAME_OFFSET};
use time::time_budget;

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

/// A score for the table: mate distances counted from this node, not the root.
#[inline]
/// Plies played in the game so far, from the move number (a position set
/// up from a FEN counts its earlier moves too).
fn game_ply(pos: &Position) -> u32 {
    let black = u32::from(pos.side_to_move() == crate::rules::piece::Color::Black);
    2 * u32::from(pos.state().fullmove.saturating_sub(1)) + black
}

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

/// A score from the table: mate distances counted from the root again.
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
        let params = limits.params;
        let lmr = params.lmr_table();
        let (soft, hard) = time_budget(limits, pos.side_to_move(), game_ply(pos));
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

    /// Nodes this thread searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }
}

#[cfg(test)]
mod tests;
