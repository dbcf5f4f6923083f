//! The root: iterative deepening, an aspiration window per line, MultiPV,
//! when to stop (clock, nodes, mate found), and the result with its
//! expected reply.

use std::time::Duration;

use crate::rules::moves::{Move, MoveList};
use crate::search::skipping::skips_depth;
use crate::search::time::soft_scale_percent;

use super::{Limits, PvInfo, Score, Search, SearchEvent, SearchResult, INFINITE, MATE, MATE_BOUND, MAX_PLY};

#[derive(Clone, Debug)]
pub(super) struct RootMove {
    pub(super) mv: Move,
    pub(super) score: i32,
    pub(super) previous: i32,
    pub(super) seldepth: u32,
    /// Nodes spent under this move (time management).
    pub(super) nodes: u64,
    pub(super) pv: Vec<Move>,
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
pub(super) fn sort_lines(lines: &mut [RootMove]) {
    lines.sort_by_key(|r| std::cmp::Reverse(r.score));
}

/// The node count at which an iteration of `depth` stops: `go nodes`, and
/// from depth 2 on the skill budget too.
pub(super) fn node_cap_at(limits: &Limits, depth: i32) -> u64 {
    let gui = limits.nodes.unwrap_or(u64::MAX);
    match limits.skill_nodes {
        Some(skill) if depth > 1 => gui.min(skill),
        _ => gui,
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

impl Search<'_> {
    /// Late-move reduction of the `number`th root move searched (from 1),
    /// with `root_lmr`: the table's, one ply less as at any PV node; none
    /// for captures, promotions, checks and evasions.
    fn root_reduction(&self, depth: i32, number: usize, tactical: bool) -> i32 {
        let p = &self.params;
        if p.root_lmr == 0 || tactical || depth < p.lmr_min_depth || number <= p.lmr_min_moves {
            return 0;
        }
        let base = self.lmr[depth.min(63) as usize][number.min(63)] as i32;
        (base - 1).clamp(0, (depth - 2).max(0))
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
        let root_in_check = !self.pos.in_setup() && self.pos.in_check();
        for (i, rm) in root.iter_mut().enumerate().skip(first) {
            let m = rm.mv;
            if report_currmove {
                on_event(SearchEvent::CurrMove { depth: depth as u32, mv: m, number: i + 1 });
            }
            self.seldepth = 0;
            let nodes_before = self.nodes;
            let us = self.pos.side_to_move();
            let mover = self.mover(m);
            let tactical = self.is_tactical(m);
            self.frame_mut(1).double_extensions = 0;
            self.frame_mut(0).last_quiet = (!tactical).then_some((mover, m));
            self.make(0, m, mover);
            let same_side = self.pos.side_to_move() == us;
            let gives_check = !self.pos.in_setup() && self.pos.in_check();
            let new_depth = depth - 1 + i32::from(gives_check);
            let mut score;
            if i == first {
                score = self.child(new_depth, 1, alpha, beta, same_side, false);
            } else {
                let reduction = self.root_reduction(depth, i - first + 1, tactical || gives_check || root_in_check);
                score = self.child(new_depth - reduction, 1, alpha, alpha + 1, same_side, true);
                if score > alpha && reduction > 0 {
                    score = self.child(new_depth, 1, alpha, alpha + 1, same_side, true);
                }
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
        self.frame_mut(0).static_eval = self.root_static_eval();
        let mut progress =
            Deepening { completed: 0, reached: 1, last_best: root[0].mv, stable_iterations: 0, reported: None };
        for depth in 1..=max_depth {
            if self.helper.is_some_and(|h| skips_depth(h, depth)) {
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
        root.sort_by_cached_key(|r| std::cmp::Reverse(self.score_move_settled(r.mv, tt_move, 0)));
        root
    }

    /// The root's static evaluation for the nodes two plies down to compare
    /// with (`root_eval`); none in check, in a setup, or with the switch off.
    fn root_static_eval(&mut self) -> i32 {
        if self.params.root_eval == 0 || self.pos.in_setup() || self.pos.in_check() {
            return -INFINITE;
        }
        let raw = self.evaluate(0);
        self.corrected_eval(raw)
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
            // No new iteration past `time_percent` of the soft limit,
            // scaled by how settled the best move is; one started before
            // runs on to its end or the hard limit.
            let permille = root[0].nodes * 1000 / self.nodes.max(1);
            let scale = if depth >= 6 { soft_scale_percent(stable_iterations, permille) } else { 100 };
            let budget = soft.as_millis() * scale as u128 / 100;
            let start_before = budget * self.params.time_percent.max(1) as u128 / 100;
            if self.elapsed().as_millis() >= start_before {
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
}
