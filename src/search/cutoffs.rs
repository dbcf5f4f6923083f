//! Cutoffs tried before a node's move loop beyond reverse futility and the
//! null move, each off unless its margin says otherwise: razoring (a node
//! far below alpha is settled by quiescence), ProbCut (a capture that beats
//! beta by a margin with a reduced search cuts the node), and the
//! `improving` flag with its fallback when the evaluation two plies back is
//! unknown.

use arrayvec::ArrayVec;

use crate::rules::moves::{Move, MoveList};
use crate::search::picker::{history_bonus, ScoredMoves, BAD_CAPTURE_LIMIT};
use crate::search::state::NodeInfo;
use crate::search::tt::Bound;

use super::{from_tt, to_tt, Search, INFINITE, MATE_BOUND};

impl Search<'_> {
    /// Whether the static evaluation rose since our previous move. When it
    /// is unknown two plies back (in check there), `improving_fallback`
    /// compares with four plies back rather than call every such node
    /// improving.
    #[inline]
    pub(super) fn improving(&self, ply: usize, in_check: bool, static_eval: i32) -> bool {
        if in_check || ply < 2 {
            return false;
        }
        let two_back = self.frame(ply - 2).static_eval;
        if two_back != -INFINITE || self.params.improving_fallback == 0 {
            return static_eval > two_back;
        }
        ply >= 4 && {
            let four_back = self.frame(ply - 4).static_eval;
            four_back != -INFINITE && static_eval > four_back
        }
    }

    /// Razoring: near the leaves, a static evaluation far below alpha is
    /// trusted when quiescence confirms it (non-PV nodes out of check, as
    /// `prune_node` asks). `Some(score)` ends the node.
    pub(super) fn razor(&mut self, n: &NodeInfo) -> Option<i32> {
        let p = &self.params;
        let alpha = n.beta - 1;
        if p.razor_margin == 0
            || n.depth > p.razor_max_depth
            || alpha.abs() >= MATE_BOUND
            || n.static_eval + p.razor_margin * n.depth >= alpha
        {
            return None;
        }
        let score = self.qsearch(alpha, n.beta, n.ply, 0);
        if self.stopped {
            return Some(0);
        }
        (score < alpha && score.abs() < MATE_BOUND).then_some(score)
    }

    /// ProbCut: a capture whose exchange and quiescence already beat beta
    /// by `probcut_margin`, and which holds that with a search four plies
    /// shallower, would almost surely fail high at full depth too.
    /// `Some(score)` ends the node. Kept out of line: its move list would
    /// otherwise sit in every node's stack frame.
    #[inline(never)]
    pub(super) fn probcut(&mut self, n: &NodeInfo) -> Option<i32> {
        let p = &self.params;
        if p.probcut_margin == 0 || n.depth < p.probcut_min_depth || n.beta.abs() >= MATE_BOUND - p.probcut_margin {
            return None;
        }
        let probcut_beta = n.beta + p.probcut_margin;
        // The table already holds a search nearly as deep that stays below it.
        if let Some(hit) = n.tt_hit {
            let score = from_tt(hit.score, n.ply);
            if hit.bound != Bound::None && hit.depth >= n.depth - 3 && score < probcut_beta {
                return None;
            }
        }
        let threshold = probcut_beta - n.static_eval;
        let reduced = n.depth - 4;
        let mut moves = ScoredMoves { list: MoveList::new(), scores: ArrayVec::new() };
        self.pos.generate_tactical(&mut moves.list);
        self.score_tactical(&mut moves, n.tt_move);
        let mut i = 0;
        while i < moves.list.len() {
            let m = self.pick(&mut moves, i);
            let order = moves.scores[i];
            i += 1;
            // Only captures that lose material are left: none gains the threshold.
            if order < BAD_CAPTURE_LIMIT && threshold >= 0 {
                break;
            }
            if !self.see_ge(m, threshold) || !self.pos.is_legal(m, false) {
                continue;
            }
            let us = self.pos.side_to_move();
            self.make(n.ply, m, self.mover(m));
            let same_side = self.pos.side_to_move() == us;
            self.frame_mut(n.ply).last_quiet = None;
            self.frame_mut(n.ply + 1).double_extensions = self.frame(n.ply).double_extensions;
            let mut score = if same_side {
                self.qsearch(probcut_beta - 1, probcut_beta, n.ply + 1, 0)
            } else {
                -self.qsearch(-probcut_beta, -probcut_beta + 1, n.ply + 1, 0)
            };
            if score >= probcut_beta && reduced > 0 {
                score = self.child(reduced, n.ply + 1, probcut_beta - 1, probcut_beta, same_side, !n.cut_node);
            }
            self.pos.unmake(m);
            if self.stopped {
                return Some(0);
            }
            if score >= probcut_beta {
                self.tt.store(n.hash, Some(m), to_tt(score, n.ply), n.raw_eval, n.depth - 3, Bound::Lower, n.tt_pv);
                return Some(if score.abs() < MATE_BOUND { score - (probcut_beta - n.beta) } else { score });
            }
        }
        None
    }

    /// A table cutoff at a non-PV node: with `tt_cut_history` the table's
    /// quiet move is rewarded as its fail high would have been (the cutoff
    /// skips the move loop that teaches the histories), and with 2 the
    /// opponent's early quiet move that allowed it loses continuation history.
    pub(super) fn reward_tt_cutoff(&mut self, ply: usize, depth: i32, tt_move: Option<Move>) {
        // A stale or colliding entry's move is checked before it indexes a table.
        let Some(m) = tt_move.filter(|&m| self.pos.is_pseudo_legal(m) && !self.is_tactical(m)) else {
            return;
        };
        let mover = self.mover(m);
        self.reward_quiet(ply, (m, mover), &[], depth);
        if self.params.tt_cut_history >= 2 && ply > 0 {
            self.punish_early_move(ply, depth);
        }
    }

    /// The opponent's quiet move among the first two of its node (at
    /// `ply - 1`) allowed a fail high here: it loses continuation history.
    pub(super) fn punish_early_move(&mut self, ply: usize, depth: i32) {
        let previous = self.frame(ply - 1);
        if let (Some((prev_mover, prev)), true) = (previous.last_quiet, previous.early) {
            let malus = -history_bonus(&self.params, depth + 1);
            for key in self.continuation_keys(ply - 1) {
                self.histories.update_continuation(key, prev_mover, prev.to(), malus);
            }
        }
    }
}
