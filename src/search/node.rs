//! One node of the principal-variation search (negamax) and its
//! selectivity: the cutoffs before any move (table, reverse futility, null
//! move with verification), internal iterative reduction, and per move
//! late-move, futility, history and exchange pruning, singular and check
//! extensions, and late-move reductions.

use arrayvec::ArrayVec;

use crate::board::position::NO_SQUARE;
use crate::rules::moves::{Move, MoveKind, MoveList};
use crate::search::picker::{history_bonus, ScoredMoves, COUNTER, KILLER};
use crate::search::state::{MoveInfo, MoveLoop, NodeBest, NodeInfo, Prune, QuietStage, Step, Tried};
use crate::search::tt::{Bound, TtHit};

use super::{bound_cuts, from_tt, to_tt, Search, DRAW, INFINITE, MATE, MATE_BOUND, MAX_PLY};

impl Search<'_> {
    /// Searches the position after a move with the window (alpha, beta) seen
    /// from the mover's side. Usually the opponent moves next and the score
    /// flips; but a setup phase can give one side two plies in a row
    /// (Relocation: White chooses last and then moves first).
    #[inline]
    pub(super) fn child(
        &mut self,
        depth: i32,
        ply: usize,
        alpha: i32,
        beta: i32,
        same_side: bool,
        cut_node: bool,
    ) -> i32 {
        if same_side {
            self.negamax(depth, ply, alpha, beta, cut_node)
        } else {
            -self.negamax(depth, ply, -beta, -alpha, cut_node)
        }
    }

    /// Static evaluation of a node, from the table when it has one, before
    /// correction.
    fn raw_eval(&mut self, in_check: bool, ply: usize, tt_hit: Option<TtHit>) -> i32 {
        if in_check {
            -INFINITE
        } else if self.frame(ply).excluded.is_some() {
            self.frame(ply).raw_eval
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
        frame.last_quiet = None;
        self.pos.make_null();
        self.tt.prefetch(self.pos.hash());
        if let Some(stack) = &mut self.nnue {
            // A null move moves no king: the mirrors stay as they were.
            stack.push(ply + 1, &[], self.eval.features().views(self.pos));
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
    fn singular_extension(&mut self, n: &NodeInfo, m: Move, tt: TtHit) -> Result<i32, i32> {
        let (depth, ply, beta, cut_node) = (n.depth, n.ply, n.beta, n.cut_node);
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
                && !(n.pv_node && self.params.double_extension_non_pv != 0)
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
        let in_check = self.in_check_at(ply, in_setup);
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
        // Counted as Stockfish counts it, at the principal variation's nodes
        // only (from 1): the depth the best lines reached, not quiescence's.
        if pv_node {
            self.seldepth = self.seldepth.max(ply + 1);
        }
        let excluded = self.frame(ply).excluded;
        let hash = self.pos.hash();
        let tt_hit = if excluded.is_none() { self.tt.probe(hash) } else { None };
        if let Some(hit) = tt_hit {
            let score = from_tt(hit.score, ply);
            if !pv_node && hit.depth >= depth && bound_cuts(hit.bound, score, alpha, beta) {
                if score >= beta && self.params.tt_cut_history != 0 {
                    self.reward_tt_cutoff(ply, depth, hit.mv);
                }
                return score;
            }
        }
        let raw_eval = self.raw_eval(in_check, ply, tt_hit);
        let static_eval = self.corrected_eval(raw_eval);
        let frame = self.frame_mut(ply);
        frame.raw_eval = raw_eval;
        frame.static_eval = static_eval;
        frame.move_count = 0;
        frame.singular_quiet = false;
        self.frame_mut(ply + 2).killers = [None; 2];
        self.frame_mut(ply + 2).cutoffs = 0;
        // Improving: our evaluation rose since our previous move; prune less when it did.
        let improving = self.improving(ply, in_check, static_eval);
        let tt_move = tt_hit.and_then(|h| h.mv);
        let tt_pv = if excluded.is_some() { self.frame(ply).tt_pv } else { pv_node || tt_hit.is_some_and(|h| h.pv) };
        self.frame_mut(ply).tt_pv = tt_pv;
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
            raw_eval,
            excluded,
            tt_hit,
            tt_pv,
            tt_move,
            // Read only by `lmr_tt_capture`: off, the node spends nothing on it.
            tt_tactical: self.params.lmr_tt_capture != 0 && tt_move.is_some_and(|m| self.is_tactical(m)),
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
        if let Some(score) = self.razor(n) {
            return Some(score);
        }
        let (p, depth, beta) = (&self.params, n.depth, n.beta);
        let eval = n.refined_eval();
        // Reverse futility: far above beta near the leaves, trust the evaluation.
        if depth <= p.rfp_max_depth
            && eval - p.rfp_margin * (depth - i32::from(n.improving)) >= beta
            && eval.abs() < MATE_BOUND
        {
            // Blended, the score leans less on an evaluation far above beta.
            return Some(if p.rfp_blend != 0 { (eval + beta) / 2 } else { eval });
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
        self.probcut(n)
    }

    /// The move loop: each move in order is pruned, or extended or reduced
    /// and searched; a fail high ends the loop. The table move goes first,
    /// before anything is generated: when it fails high, nothing is.
    fn search_moves(&mut self, n: &NodeInfo, alpha: i32) -> i32 {
        let mut lp = MoveLoop {
            tried: Tried { quiets: ArrayVec::new(), captures: ArrayVec::new() },
            node: NodeBest { score: -INFINITE, mv: None, alpha, original_alpha: alpha },
            legal: 0,
            skip_quiets: false,
            all_legal: n.in_setup,
            rows: self.histories.quiet_rows(self.pos.side_to_move(), self.continuation_keys(n.ply)),
        };
        // In check in a succession variant the table move may be a king
        // succession, which only the legal generator knows.
        let succession = n.in_check && self.pos.variant().succession.is_some();
        let staged = n.tt_move.filter(|&m| !succession && self.pos.is_pseudo_legal(m));
        if let Some(m) = staged {
            match self.try_move(n, m, &mut lp) {
                Step::Cutoff => return self.finish_node(n, &lp.node, lp.legal, &lp.tried),
                Step::End(score) => return score,
                Step::Next | Step::DropQuiets => {}
            }
        }
        let mut moves = ScoredMoves { list: MoveList::new(), scores: ArrayVec::new() };
        lp.all_legal = self.generate(&mut moves.list, n.in_check);
        self.score_tactical(&mut moves, n.tt_move);
        let mut quiets = QuietStage::Pending;
        let mut i = Self::put_staged_first(&mut moves, staged);
        if staged.is_some() && lp.skip_quiets && !n.in_check {
            self.drop_quiet_moves(&mut moves, i);
        }
        while i < moves.list.len() {
            let m = self.pick(&mut moves, i);
            match quiets {
                // Past the captures that keep material and the promotions:
                // now the killers and the counter move are scored, and the
                // pick made again; without any, the other quiet moves too.
                QuietStage::Pending if moves.scores[i] <= KILLER => {
                    quiets = if self.score_refutations(&mut moves, i, n.ply) {
                        QuietStage::Refutations
                    } else {
                        self.score_quiets(&mut moves, i, n.ply);
                        QuietStage::Scored
                    };
                    continue;
                }
                // Past the killers and the counter move: the other quiet
                // moves are scored, after the histories learnt from those.
                QuietStage::Refutations if moves.scores[i] < COUNTER => {
                    quiets = QuietStage::Scored;
                    self.score_quiets(&mut moves, i, n.ply);
                    continue;
                }
                _ => {}
            }
            i += 1;
            match self.try_move(n, m, &mut lp) {
                Step::Next => {}
                // Only captures and promotions are left to try: drop the
                // quiet moves now rather than pick past each.
                Step::DropQuiets if !n.in_check => self.drop_quiet_moves(&mut moves, i),
                Step::DropQuiets => {}
                Step::Cutoff => break,
                Step::End(score) => return score,
            }
        }
        self.finish_node(n, &lp.node, lp.legal, &lp.tried)
    }

    /// One move of the loop: skipped when excluded, illegal or pruned, else
    /// extended, searched and recorded.
    fn try_move(&mut self, n: &NodeInfo, m: Move, lp: &mut MoveLoop) -> Step {
        if Some(m) == n.excluded {
            return Step::Next;
        }
        let victim = self.pos.victim_square(m).map(|v| self.pos.cell(v).kind());
        let quiet = victim.is_none() && m.kind() != MoveKind::Promotion;
        if quiet && lp.skip_quiets && !n.in_check {
            return Step::Next;
        }
        if !lp.all_legal && !self.pos.is_legal(m, n.in_check) {
            return Step::Next;
        }
        lp.legal += 1;
        let legal = lp.legal;
        let mover = self.mover(m);
        let mv = MoveInfo {
            m,
            mover,
            victim,
            quiet,
            history: match victim {
                _ if quiet => self.histories.quiet_total(&lp.rows, m, mover),
                Some(v) if self.params.lmr_captures != 0 => self.histories.capture(mover, m.to(), v),
                _ => 0,
            },
            is_killer: self.frame(n.ply).killers.contains(&Some(m)),
            base_reduction: self.lmr[n.depth.min(63) as usize][legal.min(63)] as i32,
        };
        match self.prune_quiet(n, &mv, legal, &lp.node) {
            Prune::Keep => {}
            // A quiet check escapes the margins, as in Fairy-Stockfish.
            Prune::Skip if self.params.keep_quiet_checks != 0 && self.pos.gives_check(m) => {}
            Prune::Skip => return Step::Next,
            Prune::SkipQuiets => {
                lp.skip_quiets = true;
                return Step::DropQuiets;
            }
        }
        if self.prune_capture(n, &mv, &lp.node) || self.prune_by_exchange(n, &mv, &lp.node) {
            return Step::Next;
        }
        let extension = match self.tt_move_extension(n, m) {
            Ok(e) => e,
            Err(score) => return Step::End(score),
        };
        let frame = self.frame_mut(n.ply);
        frame.last_quiet = mv.quiet.then_some((mover, m));
        frame.early = legal <= 2;
        // Set here, after any singular search of this ply has counted its own.
        frame.move_count = legal;
        if extension > 0 && Some(m) == n.tt_move {
            frame.singular_quiet = mv.quiet;
        }
        let score = self.search_move(n, &mv, legal, extension, &lp.node);
        if self.stopped {
            return Step::End(0);
        }
        if self.record(n.ply, m, score, &mut lp.node, n.beta) {
            let frame = self.frame_mut(n.ply);
            frame.cutoffs = frame.cutoffs.saturating_add(1);
            return Step::Cutoff;
        }
        lp.tried.push(&mv);
        Step::Next
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
        let lmr_depth = mv.lmr_depth(depth);
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
        // Continuation-history pruning: bad after both of the last two moves.
        if lmr_depth < p.cont_history_prune {
            let [one, two, _] = self.continuation_keys(n.ply);
            let to = mv.m.to();
            if self.histories.continuation(one, mv.mover, to) < 0 && self.histories.continuation(two, mv.mover, to) < 0
            {
                return Prune::Skip;
            }
        }
        Prune::Keep
    }

    /// Pruning of a capture near the leaves: with `capture_history_prune`,
    /// one at reduced depth 0 that has failed before (negative capture
    /// history); with `capture_futility_margin`, one whose victim, with the
    /// margin and the capture's history, leaves the static evaluation below
    /// alpha.
    #[inline]
    fn prune_capture(&self, n: &NodeInfo, mv: &MoveInfo, node: &NodeBest) -> bool {
        let p = &self.params;
        let Some(victim) = mv.victim else {
            return false;
        };
        if (p.capture_futility_margin == 0 && p.capture_history_prune == 0) || !n.may_prune(node) {
            return false;
        }
        let lmr_depth = mv.lmr_depth(n.depth);
        if lmr_depth >= 7 {
            return false;
        }
        let history = self.histories.capture(mv.mover, mv.m.to(), victim);
        if p.capture_history_prune != 0 && lmr_depth == 0 && history < 0 {
            return true;
        }
        p.capture_futility_margin != 0
            && n.static_eval + p.capture_futility_margin * (1 + lmr_depth) + self.eval.value(victim) + history / 7
                <= node.alpha
    }

    /// Exchange pruning near the leaves: captures and quiet moves (not the
    /// table move) that lose too much material by static exchange.
    #[inline]
    fn prune_by_exchange(&mut self, n: &NodeInfo, mv: &MoveInfo, node: &NodeBest) -> bool {
        let (p, depth) = (&self.params, n.depth);
        if !n.may_prune(node) || Some(mv.m) == n.tt_move {
            return false;
        }
        let threshold = if mv.quiet && p.see_quiet_lmr != 0 {
            let lmr_depth = mv.lmr_depth(depth).min(18);
            -(p.see_quiet_margin - lmr_depth) * lmr_depth * lmr_depth
        } else if depth > p.see_max_depth {
            return false;
        } else if mv.quiet {
            -p.see_quiet_margin * depth * depth
        } else {
            -p.see_capture_margin * depth
        };
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
            let extension = self.singular_extension(n, m, hit)?;
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
    fn search_move(&mut self, n: &NodeInfo, mv: &MoveInfo, legal: usize, mut extension: i32, node: &NodeBest) -> i32 {
        let (ply, m, beta, alpha) = (n.ply, mv.m, n.beta, node.alpha);
        let us = self.pos.side_to_move();
        let p = &self.params;
        let may_extend_check =
            extension == 0 && (ply as i32) < 2 * self.root_depth && n.depth >= p.check_extension_min_depth;
        // Only asked for when the margins say so (the check is not known before the move).
        let safe = may_extend_check && (p.check_extension_safe_only == 0 || self.see_ge(m, 0));
        // A late capture or promotion that keeps material is reduced less;
        // its exchange is known only before the move is made.
        let keeps_material = !mv.quiet && self.lmr_may_reduce(n, mv, legal) && self.see_ge(m, 0);
        self.make(ply, m, mv.mover);
        let same_side = self.pos.side_to_move() == us;
        let gives_check = !self.pos.in_setup() && self.pos.in_check();
        // The child reads this instead of testing again; cleared before the
        // move is taken back, so no other position at that ply sees it.
        self.frame_mut(ply + 1).check = Some(gives_check);
        if safe && gives_check {
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
            let reduction = self.reduction(n, mv, legal, gives_check, keeps_material, new_depth);
            let reduced = new_depth - reduction;
            score = self.child(reduced, ply + 1, alpha, alpha + 1, same_side, true);
            if score > alpha && reduction > 0 {
                let p = &self.params;
                let deeper = p.lmr_deeper_margin != 0 && score > alpha + p.lmr_deeper_margin + 2 * new_depth;
                let shallower = p.lmr_shallower != 0 && score < node.score + new_depth;
                let depth = new_depth + i32::from(deeper) - i32::from(shallower);
                if depth > reduced {
                    score = self.child(depth, ply + 1, alpha, alpha + 1, same_side, !n.cut_node);
                }
                if self.params.lmr_research_history != 0 && mv.quiet {
                    self.learn_research(ply, mv, score > alpha, new_depth);
                }
            }
            if score > alpha && score < beta {
                score = self.child(new_depth, ply + 1, alpha, beta, same_side, false);
            }
        }
        self.frame_mut(ply + 1).check = None;
        self.pos.unmake(m);
        score
    }

    /// Whether late-move reductions apply to this move: late enough, deep
    /// enough, and quiet unless `lmr_captures` reduces captures and promotions too.
    #[inline]
    fn lmr_may_reduce(&self, n: &NodeInfo, mv: &MoveInfo, legal: usize) -> bool {
        let p = &self.params;
        n.depth >= p.lmr_min_depth && legal > p.lmr_min_moves && (mv.quiet || p.lmr_captures != 0)
    }

    /// Late-move reduction of a late move: the table's, one more when not
    /// improving or at an expected cut node, less at PV nodes, for killers,
    /// checks and a good history. A capture or promotion (with
    /// `lmr_captures`) is reduced one ply less than a quiet move, and less
    /// again when it keeps material or its capture history is good.
    #[inline]
    fn reduction(
        &self,
        n: &NodeInfo,
        mv: &MoveInfo,
        legal: usize,
        gives_check: bool,
        keeps_material: bool,
        new_depth: i32,
    ) -> i32 {
        let p = &self.params;
        if !self.lmr_may_reduce(n, mv, legal) {
            return 0;
        }
        let mut reduction =
            mv.base_reduction + p.lmr_cut_node * i32::from(n.cut_node) + p.lmr_non_pv * i32::from(!n.pv_node);
        reduction += p.lmr_cutoff_count * i32::from(self.frame(n.ply + 1).cutoffs > 3);
        reduction -= i32::from(n.pv_node) + i32::from(gives_check) + p.tt_pv_reduction * i32::from(n.tt_pv);
        reduction -= p.lmr_singular_quiet * i32::from(self.frame(n.ply).singular_quiet);
        if p.lmr_parent_moves != 0 && n.ply > 0 && self.frame(n.ply - 1).move_count > p.lmr_parent_moves as usize {
            reduction -= 1;
        }
        if mv.quiet {
            reduction += i32::from(!n.improving) + p.lmr_tt_capture * i32::from(n.tt_tactical);
            reduction -= i32::from(mv.is_killer) + mv.history / p.lmr_history_divisor;
        } else {
            reduction -= 1 + i32::from(keeps_material) + mv.history / p.lmr_capture_history_divisor;
        }
        // A very good early move may go one ply deeper than the others.
        if p.lmr_extend != 0 && reduction < -1 && legal <= 5 {
            return -1;
        }
        reduction.clamp(0, new_depth - 1)
    }

    /// After the move loop: mate or stalemate when no move was legal, the
    /// histories taught by a fail high, the table entry, and the evaluation
    /// correction taught by a quiet result (no capture or promotion best,
    /// which the evaluation could not have seen).
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
            if bound == Bound::Upper {
                self.reward_prior_move(n);
            }
            // A fail low below a node that was on a principal variation
            // stays marked as one (Stockfish's ttPv propagation).
            let pv = n.tt_pv || (bound == Bound::Upper && n.ply > 0 && n.depth > 3 && self.frame(n.ply - 1).tt_pv);
            self.tt.store(n.hash, node.mv, to_tt(node.score, n.ply), n.raw_eval, n.depth, bound, pv);
            if !n.in_check && !n.in_setup && !node.mv.is_some_and(|m| self.is_tactical(m)) {
                self.learn_correction(n.raw_eval, node.score, bound, n.depth);
            }
        }
        node.score
    }

    /// Rewards the move that failed high in the histories and punishes the
    /// moves of its kind (quiet or capture) tried before it; with
    /// `early_move_malus`, the opponent's early quiet move that allowed it
    /// loses continuation history.
    fn reward_cutoff(&mut self, n: &NodeInfo, m: Move, tried: &Tried) {
        if self.params.early_move_malus != 0 && n.ply > 0 {
            self.punish_early_move(n.ply, n.depth);
        }
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

    /// A fail low (`fail_low_bonus`): the opponent's quiet move that led
    /// here refuted everything this side had, so it gains history.
    fn reward_prior_move(&mut self, n: &NodeInfo) {
        let level = self.params.fail_low_bonus;
        if level == 0 || n.ply == 0 || n.in_setup || !(n.depth >= 3 || n.pv_node) {
            return;
        }
        let Some((mover, m)) = self.frame(n.ply - 1).last_quiet else {
            return;
        };
        let bonus = history_bonus(&self.params, n.depth);
        for key in self.continuation_keys(n.ply - 1) {
            self.histories.update_continuation(key, mover, m.to(), bonus);
        }
        if level >= 2 {
            self.histories.update_quiet(mover.color(), m, bonus / 2);
        }
    }
}
