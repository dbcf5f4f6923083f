//! Alpha-beta search without I/O (uses position, movegen, eval, tt).
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

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use arrayvec::ArrayVec;

use crate::eval::Evaluator;
use crate::moves::{Move, MoveKind, MoveList, MAX_MOVES};
use crate::piece::Color;
use crate::position::Position;
use crate::tt::{Bound, TranspositionTable};

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
/// Index space of the history table: colour x origin x destination (drops use
/// their piece kind as origin; kinds < 32 are padding squares, never origins).
const HISTORY_SIZE: usize = 2 * 256 * 256;
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

/// Flags shared between the searching thread and its owner.
#[derive(Debug, Default)]
pub struct SearchControl {
    /// Set to end the search as soon as possible.
    pub stop: AtomicBool,
    /// Set while pondering; clearing it (ponderhit) starts the clock.
    pub pondering: AtomicBool,
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
    /// Nodes searched so far.
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
    /// Nodes searched.
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

/// Soft and hard time limits of one move.
fn time_budget(limits: &Limits, side: Color) -> (Option<Duration>, Option<Duration>) {
    let overhead = limits.move_overhead;
    if let Some(mt) = limits.movetime {
        // A fixed time per move is not a clock: keep back only a part of it,
        // so that short move times are still used.
        let t = Duration::from_millis(mt.saturating_sub(overhead.min(mt / 5)).max(1));
        return (Some(t), Some(t));
    }
    // A GUI that sends only the other side's clock still bounds the search.
    let (time, inc) = match side {
        Color::White => (limits.wtime.or(limits.btime), limits.winc.unwrap_or(0)),
        Color::Black => (limits.btime.or(limits.wtime), limits.binc.unwrap_or(0)),
    };
    let Some(time) = time else {
        return (None, None);
    };
    // Twice the overhead stays on the clock as a reserve: with increments the
    // clock drains to about the reserve and then hovers there (each move then
    // costs less than the increment brings), so a latency spike of a loaded
    // machine meets a cushion instead of an empty clock.
    let left = time.saturating_sub(overhead);
    let available = left.saturating_sub((2 * overhead).min(left / 2)).max(1);
    let moves_to_go = limits.movestogo.unwrap_or(30).clamp(1, 50) as u64;
    // Never plan to spend more than a third of it on one move (three
    // quarters for the last move before a new time control).
    let cap = if moves_to_go == 1 { available * 3 / 4 } else { available / 3 };
    let soft = (available / moves_to_go).saturating_add(inc / 4 * 3).min(cap).max(1);
    let hard = soft.saturating_mul(4).min(cap).max(1);
    (Some(Duration::from_millis(soft)), Some(Duration::from_millis(hard)))
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
    tt: &'a mut TranspositionTable,
    eval: &'a Evaluator,
    control: &'a SearchControl,
    limits: &'a Limits,
    nodes: u64,
    seldepth: usize,
    stopped: bool,
    start: Instant,
    ponder_released: bool,
    soft: Option<Duration>,
    hard: Option<Duration>,
    killers: Box<[[Option<Move>; 2]; MAX_PLY + 1]>,
    history: Box<[i32]>,
    pv: Box<[[Option<Move>; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    lmr: Box<[[u8; 64]; 64]>,
    root_depth: i32,
}

impl<'a> Search<'a> {
    /// Prepares a search of `pos` (which is restored when the search ends).
    pub fn new(
        pos: &'a mut Position,
        tt: &'a mut TranspositionTable,
        eval: &'a Evaluator,
        control: &'a SearchControl,
        limits: &'a Limits,
    ) -> Search<'a> {
        let mut lmr = Box::new([[0u8; 64]; 64]);
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as u8;
            }
        }
        let (soft, hard) = time_budget(limits, pos.side_to_move());
        // Make/unmake push onto the position's history; reserve it now so
        // that no node allocates.
        pos.history.reserve(MAX_PLY + 8);
        Search {
            pos,
            tt,
            eval,
            control,
            limits,
            nodes: 0,
            seldepth: 0,
            stopped: false,
            start: Instant::now(),
            ponder_released: false,
            soft,
            hard,
            killers: Box::new([[None; 2]; MAX_PLY + 1]),
            history: vec![0; HISTORY_SIZE].into_boxed_slice(),
            pv: Box::new([[None; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            lmr,
            root_depth: 0,
        }
    }

    fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Looks at the stop flag, the clock and the node budget.
    fn poll(&mut self) {
        if self.control.stop.load(Ordering::Relaxed) {
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
        if let Some(limit) = self.limits.nodes {
            if self.nodes >= limit {
                self.stopped = true;
            }
        }
    }

    fn time_is_limited(&self) -> bool {
        !self.limits.infinite && (!self.limits.ponder || self.ponder_released)
    }

    #[inline]
    fn is_capture(&self, m: Move) -> bool {
        match m.kind() {
            MoveKind::EnPassant => true,
            MoveKind::Normal | MoveKind::Promotion | MoveKind::DoublePush => self.pos.cell(m.to()).is_piece(),
            _ => false,
        }
    }

    #[inline]
    fn history_index(&self, m: Move) -> usize {
        let from = if m.kind() == MoveKind::Drop { m.piece().index() } else { m.from().index() };
        (self.pos.side_to_move().index() << 16) | (from << 8) | m.to().index()
    }

    fn score_move(&self, m: Move, tt_move: Option<Move>, ply: usize) -> i32 {
        if Some(m) == tt_move {
            return 1 << 30;
        }
        let victim = match m.kind() {
            MoveKind::EnPassant => Some(self.pos.state().ep_victim),
            MoveKind::Normal | MoveKind::Promotion | MoveKind::DoublePush if self.pos.cell(m.to()).is_piece() => {
                Some(m.to())
            }
            _ => None,
        };
        let mut score = 0;
        if let Some(v) = victim {
            let victim_value = self.eval.value(self.pos.cell(v).kind());
            let attacker_value = self.eval.value(self.pos.cell(m.from()).kind());
            // A cheap stand-in for static exchange: taking a defended man
            // with a more valuable one probably loses material.
            let base = if attacker_value > victim_value
                && m.kind() != MoveKind::Promotion
                && self.pos.attacked_by(m.to(), !self.pos.side_to_move())
            {
                BAD_CAPTURE
            } else {
                1 << 27
            };
            score = base + victim_value * 16 - attacker_value / 16;
        }
        if m.kind() == MoveKind::Promotion {
            score += (1 << 27) + self.eval.value(m.piece());
        }
        if score != 0 {
            return score;
        }
        let killers = &self.killers[ply];
        if killers[0] == Some(m) {
            return 1 << 26;
        }
        if killers[1] == Some(m) {
            return (1 << 26) - 1;
        }
        self.history[self.history_index(m)]
    }

    fn update_history(&mut self, m: Move, bonus: i32) {
        let i = self.history_index(m);
        let h = &mut self.history[i];
        // Gravity keeps entries within +-16384 and lets old knowledge fade.
        *h += bonus - *h * bonus.abs() / 16384;
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

    /// Picks the best-scored move at or after `i` and swaps it to `i`.
    #[inline]
    fn pick(list: &mut MoveList, scores: &mut ArrayVec<i32, MAX_MOVES>, i: usize) -> Move {
        let mut best = i;
        for j in i + 1..list.len() {
            if scores[j] > scores[best] {
                best = j;
            }
        }
        list.swap(i, best);
        scores.swap(i, best);
        list[i]
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][ply] = Some(m);
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        for j in ply + 1..child_len {
            self.pv[ply][j] = self.pv[ply + 1][j];
        }
        self.pv_len[ply] = child_len;
    }

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
        if ply >= MAX_PLY {
            return self.eval.evaluate(self.pos);
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
        let evasions = in_check && qdepth < 2;
        let mut best = -INFINITE;
        // A stored evaluation of a position in check is meaningless (-INFINITE).
        let stand_pat = match tt_hit {
            _ if evasions => -INFINITE,
            Some(hit) if !in_check => hit.eval,
            _ => self.eval.evaluate(self.pos),
        };
        if !evasions {
            if stand_pat >= beta || in_setup {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
        }
        let mut list = MoveList::new();
        let all_legal = self.generate(&mut list, in_check);
        let mut scores: ArrayVec<i32, MAX_MOVES> = ArrayVec::new();
        let tt_move = tt_hit.and_then(|h| h.mv);
        for &m in list.iter() {
            let tactical = self.is_capture(m) || m.kind() == MoveKind::Promotion;
            let s = if evasions || tactical { self.score_move(m, tt_move, ply) } else { i32::MIN };
            scores.push(s);
        }
        let mut legal = 0;
        for i in 0..list.len() {
            let m = Self::pick(&mut list, &mut scores, i);
            if scores[i] == i32::MIN {
                // Only quiet moves are left.
                break;
            }
            if !evasions && m.kind() != MoveKind::Promotion {
                if scores[i] < BAD_CAPTURE_LIMIT {
                    continue;
                }
                // Delta pruning: even winning this man cannot lift alpha.
                let victim = if m.kind() == MoveKind::EnPassant { self.pos.state().ep_victim } else { m.to() };
                if stand_pat + self.eval.value(self.pos.cell(victim).kind()) + 200 <= alpha {
                    continue;
                }
            }
            if !all_legal && !self.pos.is_legal(m, in_check) {
                continue;
            }
            legal += 1;
            let us = self.pos.side_to_move();
            self.pos.make(m);
            let score = if self.pos.side_to_move() == us {
                self.qsearch(alpha, beta, ply + 1, qdepth + 1)
            } else {
                -self.qsearch(-beta, -alpha, ply + 1, qdepth + 1)
            };
            self.pos.unmake(m);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        if evasions && legal == 0 {
            // Every move was tried: no legal move in check is mate.
            return -MATE + ply as i32;
        }
        best
    }

    /// Searches the position after a move with the window (alpha, beta) seen
    /// from the mover's side. Usually the opponent moves next and the score
    /// flips; but a setup phase can give one side two plies in a row
    /// (Relocation: White chooses last and then moves first).
    #[inline]
    fn child(&mut self, depth: i32, ply: usize, alpha: i32, beta: i32, same_side: bool) -> i32 {
        if same_side {
            self.negamax(depth, ply, alpha, beta, true)
        } else {
            -self.negamax(depth, ply, -beta, -alpha, true)
        }
    }

    #[allow(clippy::too_many_lines)]
    fn negamax(&mut self, depth: i32, ply: usize, mut alpha: i32, mut beta: i32, null_ok: bool) -> i32 {
        self.pv_len[ply] = ply;
        let pv_node = beta - alpha > 1;
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
            return self.eval.evaluate(self.pos);
        }
        if depth <= 0 {
            return self.qsearch(alpha, beta, ply, 0);
        }
        self.count_node();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        let hash = self.pos.hash();
        let tt_hit = self.tt.probe(hash);
        let tt_move = tt_hit.and_then(|h| h.mv);
        if let Some(hit) = tt_hit {
            let score = from_tt(hit.score, ply);
            if !pv_node && hit.depth >= depth && bound_cuts(hit.bound, score, alpha, beta) {
                return score;
            }
        }
        let static_eval =
            if in_check { -INFINITE } else { tt_hit.map_or_else(|| self.eval.evaluate(self.pos), |h| h.eval) };
        if !pv_node && !in_check && !in_setup && ply > 0 {
            // Reverse futility: far above beta near the leaves, trust the evaluation.
            if depth <= 6 && static_eval - 90 * depth >= beta && static_eval.abs() < MATE_BOUND {
                return static_eval;
            }
            // Null move: if passing still fails high, a real move will too.
            // Unsafe in zugzwang, so only with non-pawn material.
            if null_ok
                && depth >= 3
                && static_eval >= beta
                && self.eval.has_non_pawn_material(self.pos, self.pos.side_to_move())
            {
                let r = 3 + depth / 4;
                self.pos.make_null();
                let score = -self.negamax(depth - 1 - r, ply + 1, -beta, -beta + 1, false);
                self.pos.unmake_null();
                if self.stopped {
                    return 0;
                }
                if score >= beta {
                    return if score > MATE_BOUND { beta } else { score };
                }
            }
        }
        let mut list = MoveList::new();
        let all_legal = self.generate(&mut list, in_check);
        let mut scores: ArrayVec<i32, MAX_MOVES> = ArrayVec::new();
        for &m in list.iter() {
            scores.push(self.score_move(m, tt_move, ply));
        }
        let mut quiets_tried: ArrayVec<Move, 64> = ArrayVec::new();
        let original_alpha = alpha;
        let mut best = -INFINITE;
        let mut best_move = None;
        let mut legal = 0;
        for i in 0..list.len() {
            let m = Self::pick(&mut list, &mut scores, i);
            if !all_legal && !self.pos.is_legal(m, in_check) {
                continue;
            }
            legal += 1;
            let quiet = !self.is_capture(m) && m.kind() != MoveKind::Promotion;
            // Futility: near the leaves, a quiet move cannot lift a hopeless
            // static evaluation to alpha.
            if !pv_node
                && !in_check
                && quiet
                && depth <= 3
                && legal > 1
                && best > -MATE_BOUND
                && static_eval + 120 * depth <= alpha
                && !self.killers[ply].contains(&Some(m))
            {
                continue;
            }
            // Late-move pruning: near the leaves, quiet moves ordered last rarely matter.
            if !pv_node
                && !in_check
                && quiet
                && depth <= 3
                && legal as i32 > 6 + 4 * depth * depth
                && best > -MATE_BOUND
            {
                continue;
            }
            let us = self.pos.side_to_move();
            self.pos.make(m);
            let same_side = self.pos.side_to_move() == us;
            let gives_check = !self.pos.in_setup() && self.pos.in_check();
            let extension = i32::from(gives_check && (ply as i32) < 2 * self.root_depth);
            let new_depth = depth - 1 + extension;
            let mut score;
            if legal == 1 {
                score = self.child(new_depth, ply + 1, alpha, beta, same_side);
            } else {
                let mut reduction = 0;
                if depth >= 3 && legal > 3 && quiet && !in_check && !gives_check {
                    reduction = self.lmr[depth.min(63) as usize][legal.min(63)] as i32;
                    if pv_node {
                        reduction -= 1;
                    }
                    if self.killers[ply].contains(&Some(m)) {
                        reduction -= 1;
                    }
                    reduction = reduction.clamp(0, new_depth - 1);
                }
                score = self.child(new_depth - reduction, ply + 1, alpha, alpha + 1, same_side);
                if score > alpha && reduction > 0 {
                    score = self.child(new_depth, ply + 1, alpha, alpha + 1, same_side);
                }
                if score > alpha && score < beta {
                    score = self.child(new_depth, ply + 1, alpha, beta, same_side);
                }
            }
            self.pos.unmake(m);
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    best_move = Some(m);
                    self.update_pv(ply, m);
                    if score >= beta {
                        if quiet {
                            let k = &mut self.killers[ply];
                            if k[0] != Some(m) {
                                k[1] = k[0];
                                k[0] = Some(m);
                            }
                            let bonus = (depth * depth).min(1200);
                            self.update_history(m, bonus);
                            for &q in &quiets_tried {
                                self.update_history(q, -bonus);
                            }
                        }
                        break;
                    }
                }
            }
            if quiet {
                let _ = quiets_tried.try_push(m);
            }
        }
        if legal == 0 {
            return if in_check { -MATE + ply as i32 } else { DRAW };
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if alpha > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(hash, best_move, to_tt(best, ply), static_eval, depth, bound);
        best
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
            let us = self.pos.side_to_move();
            self.pos.make(m);
            let same_side = self.pos.side_to_move() == us;
            let gives_check = !self.pos.in_setup() && self.pos.in_check();
            let new_depth = depth - 1 + i32::from(gives_check);
            let mut score;
            if i == first {
                score = self.child(new_depth, 1, alpha, beta, same_side);
            } else {
                score = self.child(new_depth, 1, alpha, alpha + 1, same_side);
                if score > alpha && score < beta {
                    score = self.child(new_depth, 1, alpha, beta, same_side);
                }
            }
            self.pos.unmake(m);
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
            nodes: self.nodes,
            time_ms,
            nps: self.nodes * 1000 / time_ms.max(1),
            hashfull: self.tt.hashfull(),
            pv: root.pv.clone(),
        }
    }

    /// Runs iterative deepening until a limit is reached or the search is
    /// stopped. Reports each finished line through `on_event`.
    pub fn run(&mut self, on_event: &mut dyn FnMut(SearchEvent)) -> SearchResult {
        self.tt.new_search();
        let mut list = MoveList::new();
        self.pos.generate_legal(&mut list);
        let mut root: Vec<RootMove> = list
            .iter()
            .filter(|m| self.limits.search_moves.is_empty() || self.limits.search_moves.contains(m))
            .map(|&mv| RootMove { mv, score: -INFINITE, previous: -INFINITE, seldepth: 0, pv: vec![mv] })
            .collect();
        if root.is_empty() {
            let in_check = !self.pos.in_setup() && self.pos.in_check();
            let score = if in_check { Score::Mate(0) } else { Score::Cp(0) };
            return SearchResult { best: None, ponder: None, score, depth: 0, nodes: 0, time_ms: 0 };
        }
        // Order the root once by the static ordering; afterwards by score.
        let tt_move = self.tt.probe(self.pos.hash()).and_then(|h| h.mv);
        root.sort_by_key(|r| std::cmp::Reverse(self.score_move(r.mv, tt_move, 0)));
        let max_depth = self.limits.depth.map_or(MAX_PLY as i32 - 8, |d| (d as i32).clamp(1, MAX_PLY as i32 - 8));
        let multipv = self.limits.multipv.clamp(1, root.len());
        let mut completed = 0;
        for depth in 1..=max_depth {
            self.root_depth = depth;
            for r in root.iter_mut() {
                r.previous = r.score;
            }
            for pv_index in 0..multipv {
                let previous = root[pv_index].previous;
                let mut delta = 20;
                let (mut alpha, mut beta) = if depth >= 5 && previous.abs() < MATE_BOUND {
                    ((previous - delta).max(-INFINITE), (previous + delta).min(INFINITE))
                } else {
                    (-INFINITE, INFINITE)
                };
                loop {
                    let score = self.search_root(&mut root, pv_index, depth, alpha, beta, on_event);
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
                    if delta > 1000 {
                        alpha = -INFINITE;
                        beta = INFINITE;
                    }
                }
                if self.stopped && depth > 1 {
                    break;
                }
                let info = self.pv_info(&root[pv_index], pv_index + 1, depth);
                on_event(SearchEvent::Pv(info));
            }
            if self.stopped {
                if depth == 1 {
                    completed = 1;
                }
                break;
            }
            completed = depth;
            if let Some(n) = self.limits.mate {
                if root[0].score > MATE - 2 * n.min(MAX_PLY as u32) as i32 {
                    break;
                }
            }
            if self.time_is_limited() {
                if let Some(soft) = self.soft {
                    // The next iteration would take longer than what is left.
                    if self.elapsed().as_millis() >= soft.as_millis() * 6 / 10 {
                        break;
                    }
                }
                if root.len() == 1 && (self.soft.is_some() || self.limits.nodes.is_some()) && depth >= 4 {
                    break;
                }
            }
            if let Some(limit) = self.limits.nodes {
                if self.nodes >= limit {
                    break;
                }
            }
        }
        let best = &root[0];
        let ponder = best.pv.get(1).copied().or_else(|| {
            // Ask the table for the reply when the line is one move long.
            let mv = best.mv;
            self.pos.make(mv);
            let reply = self.tt.probe(self.pos.hash()).and_then(|h| h.mv);
            let mut replies = MoveList::new();
            self.pos.generate_legal(&mut replies);
            self.pos.unmake(mv);
            reply.filter(|r| replies.contains(r))
        });
        let score = best.display_score();
        SearchResult {
            best: Some(best.mv),
            ponder,
            score: Score::from_internal(score),
            depth: completed as u32,
            nodes: self.nodes,
            time_ms: self.elapsed().as_millis() as u64,
        }
    }

    /// Nodes searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::variant::Registry;
    use std::sync::Arc;

    fn search(variant: &str, fen: &str, limits: Limits) -> (SearchResult, Position) {
        let reg = Registry::builtin();
        let v = reg.get(variant).expect("variant ships");
        let mut pos = Position::from_fen(Arc::clone(&v), fen).expect("valid FEN");
        let eval = Evaluator::new(&v);
        let mut tt = TranspositionTable::new(4);
        let control = SearchControl::default();
        let result = Search::new(&mut pos, &mut tt, &eval, &control, &limits).run(&mut |_| {});
        (result, pos)
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
        let reg = Registry::builtin();
        let v = reg.get("relocation").expect("relocation ships");
        let eval = Evaluator::new(&v);
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
    fn node_limit_is_respected() {
        let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let (r, _) = search("chess", fen, Limits { nodes: Some(5000), ..Limits::default() });
        assert!(r.nodes < 5000 + 2000, "{}", r.nodes);
        assert!(r.best.is_some());
    }

    #[test]
    fn time_budget_is_safe_at_one_second() {
        let limits = Limits { wtime: Some(1000), winc: Some(10), move_overhead: 50, ..Limits::default() };
        let (soft, hard) = time_budget(&limits, Color::White);
        assert!(soft.unwrap_or_default() <= hard.unwrap_or_default());
        assert!(hard.unwrap_or_default() <= Duration::from_millis(250));
        let low = Limits { wtime: Some(40), winc: Some(10), move_overhead: 50, ..Limits::default() };
        let (_, hard) = time_budget(&low, Color::White);
        assert!(hard.unwrap_or_default() <= Duration::from_millis(10));
    }
}
