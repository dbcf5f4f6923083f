//! What the search takes and gives: its limits, the flags it shares with
//! its owner, and the lines, events and result it reports.

use std::sync::atomic::{AtomicBool, AtomicU64};

#[cfg(doc)]
use super::POLL_INTERVAL;
use super::{SearchParams, MATE, MATE_BOUND};
use crate::rules::moves::Move;

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
    /// The pruning, reduction and extension margins (the engine's own unless
    /// set with the unlisted `search.NAME` options, for tuning).
    pub params: SearchParams,
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
