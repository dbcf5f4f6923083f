//! Quiescence search: captures and promotions (and evasions near the
//! horizon; with `qs_checks`, quiet checks at its first ply) until the
//! position is quiet, standing pat on the static
//! evaluation, with delta pruning and a bound on the captures per node.
//! Staged like the main search: the table move is tried before anything is
//! generated, and once only captures that lose material are left (they are
//! skipped) the node ends without picking past them.

use arrayvec::ArrayVec;

use crate::rules::geometry::Square;
use crate::rules::moves::{Move, MoveKind, MoveList};
use crate::search::picker::{ScoredMoves, BAD_CAPTURE_LIMIT};
use crate::search::state::{NodeBest, FRAME_OFFSET};
use crate::search::tt::Bound;

use super::{bound_cuts, from_tt, to_tt, Search, DRAW, INFINITE, MATE, MAX_PLY};

/// What a quiescence node's move loop reads, and the legal moves it met.
struct QsLoop {
    ply: usize,
    qdepth: u32,
    beta: i32,
    stand_pat: i32,
    in_check: bool,
    /// In check near the horizon: every move is searched, none pruned.
    evasions: bool,
    /// Every move of the list is known legal (a succession variant in check).
    all_legal: bool,
    /// The square of the last move: recaptures there escape the capture limit.
    last_to: Square,
    legal: u32,
}

/// What trying one move of a quiescence node did.
enum QsStep {
    Next,
    Cutoff,
    Stopped,
}

impl Search<'_> {
    /// Quiescence: captures and promotions (evasions near the horizon) until
    /// the position is quiet, standing pat on the static evaluation.
    pub(super) fn qsearch(&mut self, mut alpha: i32, beta: i32, ply: usize, qdepth: u32) -> i32 {
        self.pv_len[ply] = ply;
        self.count_node();
        if self.stopped {
            return 0;
        }
        if self.is_draw() {
            return DRAW;
        }
        let in_setup = self.pos.in_setup();
        let in_check = self.in_check_at(ply, in_setup);
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
        let stand_pat = self.corrected_eval(raw_eval);
        if !evasions {
            if stand_pat >= beta || in_setup {
                if tt_hit.is_none() && !in_setup {
                    self.tt.store(hash, None, to_tt(stand_pat, ply), raw_eval, 0, Bound::Lower, false);
                }
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
        }
        let mut node = NodeBest { score: best, mv: None, alpha, original_alpha: alpha };
        let mut lp = QsLoop {
            ply,
            qdepth,
            beta,
            stand_pat,
            in_check,
            evasions,
            all_legal: false,
            last_to: self.stack[ply + FRAME_OFFSET - 1].moved_to,
            legal: 0,
        };
        if self.qs_moves(&mut lp, &mut node, tt_hit.and_then(|h| h.mv)) {
            return 0;
        }
        if evasions && lp.legal == 0 {
            // Every move was tried: no legal move in check is mate.
            return -MATE + ply as i32;
        }
        let bound = node.bound(beta);
        let eval = if in_check { -INFINITE } else { raw_eval };
        let pv = tt_hit.is_some_and(|h| h.pv);
        self.tt.store(hash, node.mv, to_tt(node.score, ply), eval, 0, bound, pv);
        node.score
    }

    /// The move loop of a quiescence node: the table move (when it is one
    /// of the moves the node searches) before anything is generated, then
    /// the rest best first. True when the search was stopped.
    fn qs_moves(&mut self, lp: &mut QsLoop, node: &mut NodeBest, tt_move: Option<Move>) -> bool {
        // In check in a succession variant the moves come from the legal
        // generator, which alone knows the king's successions.
        let succession = lp.in_check && self.pos.variant().succession.is_some();
        let staged =
            tt_move.filter(|&m| !succession && (lp.evasions || self.is_tactical(m)) && self.pos.is_pseudo_legal(m));
        if let Some(m) = staged {
            match self.qs_try_move(m, lp, node, true) {
                QsStep::Next => {}
                QsStep::Cutoff => return false,
                QsStep::Stopped => return true,
            }
        }
        let mut moves = ScoredMoves { list: MoveList::new(), scores: ArrayVec::new() };
        lp.all_legal = self.qs_generate(&mut moves, lp.in_check, lp.evasions, tt_move, lp.ply);
        let mut i = Self::put_staged_first(&mut moves, staged);
        while i < moves.list.len() {
            let m = self.pick(&mut moves, i);
            let score = moves.scores[i];
            i += 1;
            if score == i32::MIN {
                // Only quiet moves are left.
                break;
            }
            if score < BAD_CAPTURE_LIMIT && !lp.evasions {
                // Only captures that lose material are left: all skipped.
                break;
            }
            match self.qs_try_move(m, lp, node, true) {
                QsStep::Next => {}
                QsStep::Cutoff => return false,
                QsStep::Stopped => return true,
            }
        }
        if lp.qdepth == 0 && !lp.in_check && self.params.qs_checks != 0 {
            return self.qs_quiet_checks(lp, node);
        }
        false
    }

    /// The first quiescence ply's last stage (`qs_checks`, as in
    /// Fairy-Stockfish): the quiet moves that give check and lose no
    /// material by static exchange, exempt from delta pruning and the
    /// capture limit. Generated only once the captures have not failed
    /// high. True when the search was stopped.
    fn qs_quiet_checks(&mut self, lp: &mut QsLoop, node: &mut NodeBest) -> bool {
        let Some(candidates) = self.pos.check_candidates() else {
            return false;
        };
        let mut list = MoveList::new();
        self.pos.generate_pseudo(&mut list);
        for &m in list.iter() {
            if self.is_tactical(m) || !self.pos.gives_check_among(m, &candidates) || !self.see_ge(m, 0) {
                continue;
            }
            match self.qs_try_move(m, lp, node, false) {
                QsStep::Next => {}
                QsStep::Cutoff => return false,
                QsStep::Stopped => return true,
            }
        }
        false
    }

    /// One move of a quiescence node: pruned (when `prunable`), illegal, or
    /// searched and recorded.
    fn qs_try_move(&mut self, m: Move, lp: &mut QsLoop, node: &mut NodeBest, prunable: bool) -> QsStep {
        if prunable
            && !lp.evasions
            && m.kind() != MoveKind::Promotion
            && (self.qs_delta_prunes(m, lp.stand_pat, node.alpha)
                || self.qs_limit_skips(lp.legal, lp.qdepth, m.to() == lp.last_to))
        {
            return QsStep::Next;
        }
        if !lp.all_legal && !self.pos.is_legal(m, lp.in_check) {
            return QsStep::Next;
        }
        lp.legal += 1;
        let (ply, beta) = (lp.ply, lp.beta);
        let us = self.pos.side_to_move();
        let mover = self.mover(m);
        self.make(ply, m, mover);
        let score = if self.pos.side_to_move() == us {
            self.qsearch(node.alpha, beta, ply + 1, lp.qdepth + 1)
        } else {
            -self.qsearch(-beta, -node.alpha, ply + 1, lp.qdepth + 1)
        };
        self.pos.unmake(m);
        if self.stopped {
            return QsStep::Stopped;
        }
        if self.record(ply, m, score, node, beta) {
            return QsStep::Cutoff;
        }
        QsStep::Next
    }

    /// The moves of a quiescence node with their ordering scores; quiet
    /// moves (unless evading) score `i32::MIN`, so the loop stops at the
    /// first. True when the list holds legal moves only.
    #[inline]
    fn qs_generate(
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
}
