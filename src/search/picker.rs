//! The move picker: generates a node's moves, scores them for ordering
//! (table move, good captures by MVV-LVA and capture history, promotions,
//! killers, counter move, quiet and continuation histories moved by the
//! threats a move escapes or walks into, losing captures last), picks them
//! best first, and teaches the histories after a cutoff.
//! Work is put off until the picker needs it: a capture's static exchange
//! until it is reached; the killers and the counter move are found among
//! the quiet moves once the captures that keep material and the promotions
//! have been tried, and the other quiet moves' histories are read only
//! after those.

use arrayvec::ArrayVec;

use crate::board::see::see_ge;
use crate::rules::moves::{Move, MoveKind, MoveList, MAX_MOVES};
use crate::rules::piece::{Cell, PieceKind};
use crate::search::history::{PieceTo, CONTINUATION_KEYS};
use crate::search::params::SearchParams;
use crate::search::state::{MoveInfo, FRAME_OFFSET};
use crate::search::threats::ThreatMap;

use super::Search;

/// Ordering base of captures that probably lose material: after the quiet
/// moves (history scores stay within +-16384), skipped in quiescence.
const BAD_CAPTURE: i32 = -(1 << 20);
/// Scores below this mark a bad capture (victim and attacker terms included).
pub(super) const BAD_CAPTURE_LIMIT: i32 = BAD_CAPTURE / 2;
/// Ordering base of captures (and of promotions) until static exchange
/// finds that they lose material.
const GOOD_CAPTURE: i32 = 1 << 27;
/// The first killer's score: moves scored above it go before the quiet moves.
pub(super) const KILLER: i32 = 1 << 26;
/// The counter move's score, after the killers'.
pub(super) const COUNTER: i32 = 1 << 25;
/// The score of a quiet move not scored yet, below every real score.
const UNSCORED: i32 = i32::MIN;
/// The table move's score, above every other.
const TT_MOVE: i32 = 1 << 30;
/// Captures scored at or above this (and below [`TT_MOVE`]) have not been
/// through static exchange yet: the victim, attacker and history terms and
/// a promotion's bonus move a score less than this far below
/// [`GOOD_CAPTURE`], and a capture found to lose ends far below it.
const UNCHECKED_FLOOR: i32 = GOOD_CAPTURE - (1 << 16);

/// How much a cutoff at `depth` moves the history entries of the moves
/// involved (the constants are margins, so they can be tuned).
#[inline]
pub(super) fn history_bonus(p: &SearchParams, depth: i32) -> i32 {
    (depth * depth * p.history_bonus_quadratic + p.history_bonus_linear * depth).min(p.history_bonus_max)
}

/// The ordering score of a quiet move that is one of the node's killers
/// or its counter move.
#[inline]
fn refutation_score(m: Move, killers: [Option<Move>; 2], counter: Option<Move>) -> Option<i32> {
    let m = Some(m);
    if m == killers[0] {
        Some(KILLER)
    } else if m == killers[1] {
        Some(KILLER - 1)
    } else if m == counter {
        Some(COUNTER)
    } else {
        None
    }
}

/// Moves of a node, with their ordering scores.
pub(super) struct ScoredMoves {
    pub(super) list: MoveList,
    pub(super) scores: ArrayVec<i32, MAX_MOVES>,
}

impl Search<'_> {
    /// Moves of a node: pseudo-legal (legality is tested lazily, when a move
    /// is tried), except in check in a succession variant, where the special
    /// king-joker swaps come only from the legal generator.
    pub(super) fn generate(&mut self, list: &mut MoveList, in_check: bool) -> bool {
        if in_check && self.pos.variant().succession.is_some() {
            self.pos.generate_legal(list);
            true
        } else {
            list.clear();
            self.pos.generate_pseudo(list);
            self.pos.in_setup()
        }
    }

    /// The continuation keys of the moves one and two plies before `ply`,
    /// and four with `continuation_ply4` (Stockfish's fourth table: the
    /// same side's move before last, in the table the two-ply key uses).
    #[inline]
    pub(super) fn continuation_keys(&self, ply: usize) -> [Option<PieceTo>; CONTINUATION_KEYS] {
        let base = ply + FRAME_OFFSET;
        let four = if self.params.continuation_ply4 != 0 { self.stack[base - 4].moved } else { None };
        [self.stack[base - 1].moved, self.stack[base - 2].moved, four]
    }

    /// Static exchange: does `m` gain at least `threshold`?
    #[inline]
    pub(super) fn see_ge(&mut self, m: Move, threshold: i32) -> bool {
        let eval = self.eval;
        see_ge(self.pos, m, threshold, |k| eval.value(k))
    }

    pub(super) fn score_move(&mut self, m: Move, tt_move: Option<Move>, ply: usize) -> i32 {
        if Some(m) == tt_move {
            return TT_MOVE;
        }
        match self.tactical_score(m) {
            0 => self.quiet_move_score(m, ply),
            score => score,
        }
    }

    /// Ordering score of a capture or promotion (0 for a quiet move).
    #[inline]
    fn tactical_score(&self, m: Move) -> i32 {
        let mut score = 0;
        if let Some(v) = self.pos.victim_square(m) {
            let mover = self.mover(m);
            let victim = self.pos.cell(v).kind();
            let victim_value = self.eval.value(victim);
            let attacker_value = self.eval.value(mover.kind());
            // Scored as a good capture: static exchange is computed only if
            // the picker reaches it (see `pick`).
            score = GOOD_CAPTURE + victim_value * 16 - attacker_value / 16;
            let history = self.histories.capture(mover, m.to(), victim);
            score += history.checked_div(self.params.capture_order_divisor).unwrap_or(0);
        }
        if m.kind() == MoveKind::Promotion {
            score += GOOD_CAPTURE + self.eval.value(m.piece());
        }
        score
    }

    /// Ordering score of a quiet move: killers, counter move, histories.
    #[inline]
    fn quiet_move_score(&self, m: Move, ply: usize) -> i32 {
        let keys = self.continuation_keys(ply);
        refutation_score(m, self.frame(ply).killers, self.histories.counter(keys[0])).unwrap_or_else(|| {
            let rows = self.histories.quiet_rows(self.pos.side_to_move(), keys);
            self.histories.quiet_total(&rows, m, self.mover(m))
        })
    }

    /// [`Search::score_move`] with the static exchange of a capture
    /// settled at once (for lists sorted up front, as at the root).
    pub(super) fn score_move_settled(&mut self, m: Move, tt_move: Option<Move>, ply: usize) -> i32 {
        let score = self.score_move(m, tt_move, ply);
        if self.exchange_pending(m, score) && !self.see_ge(m, 0) {
            return score - GOOD_CAPTURE + BAD_CAPTURE;
        }
        score
    }

    /// Whether `m`, scored `score`, is a capture whose static exchange has
    /// not been computed yet.
    #[inline]
    fn exchange_pending(&self, m: Move, score: i32) -> bool {
        (UNCHECKED_FLOOR..TT_MOVE).contains(&score) && self.pos.victim_square(m).is_some()
    }

    /// Puts the table move, already tried before the list was generated,
    /// where picking it first would have: at the front, the first move
    /// there swapped to its place. The index of the first move left to pick.
    pub(super) fn put_staged_first(moves: &mut ScoredMoves, staged: Option<Move>) -> usize {
        let Some(k) = staged.and_then(|m| moves.list.iter().position(|&x| x == m)) else {
            return 0;
        };
        moves.list.swap(0, k);
        moves.scores.swap(0, k);
        1
    }

    /// Scores the captures and promotions (and the table move) of a
    /// node's list; the quiet moves stay [`UNSCORED`], below every score,
    /// until [`Search::score_quiets`]: when a capture fails high, they are
    /// never scored.
    pub(super) fn score_tactical(&mut self, moves: &mut ScoredMoves, tt_move: Option<Move>) {
        for i in 0..moves.list.len() {
            let m = moves.list[i];
            let s = if Some(m) == tt_move {
                TT_MOVE
            } else {
                match self.tactical_score(m) {
                    0 => UNSCORED,
                    score => score,
                }
            };
            moves.scores.push(s);
        }
    }

    /// Scores the killers and the counter move among the unscored quiet
    /// moves at and after `from` (as [`Search::quiet_move_score`] would),
    /// leaving the others unscored: they go first, and when one fails high
    /// the rest are never scored. False when the list holds none of them.
    pub(super) fn score_refutations(&self, moves: &mut ScoredMoves, from: usize, ply: usize) -> bool {
        let killers = self.frame(ply).killers;
        let counter = self.histories.counter(self.continuation_keys(ply)[0]);
        if killers == [None; 2] && counter.is_none() {
            return false;
        }
        let mut found = false;
        for j in from..moves.list.len() {
            if moves.scores[j] != UNSCORED {
                continue;
            }
            if let Some(score) = refutation_score(moves.list[j], killers, counter) {
                moves.scores[j] = score;
                found = true;
            }
        }
        found
    }

    /// Scores the quiet moves at and after `from` that are still unscored
    /// (as [`Search::quiet_move_score`] would, with what the moves share
    /// read once; with `threat_order`, the histories are moved by the
    /// threats the moves escape or walk into).
    pub(super) fn score_quiets(&mut self, moves: &mut ScoredMoves, from: usize, ply: usize) {
        let killers = self.frame(ply).killers;
        let keys = self.continuation_keys(ply);
        let counter = self.histories.counter(keys[0]);
        let side = self.pos.side_to_move();
        let rows = self.histories.quiet_rows(side, keys);
        // Not in variants with hands: there a threatened man also comes
        // back to be dropped, and the ordering lost in Clockwork
        // (docs/search-log.md, twenty-fifth session).
        let bonus = if self.pos.variant().hands { 0 } else { self.params.threat_order };
        let eval = self.eval;
        let threats = (bonus != 0).then(|| ThreatMap::of(self.pos, !side, |k| eval.value(k)));
        for j in from..moves.list.len() {
            if moves.scores[j] != UNSCORED {
                continue;
            }
            let m = moves.list[j];
            moves.scores[j] = refutation_score(m, killers, counter).unwrap_or_else(|| {
                let mover = self.mover(m);
                let history = self.histories.quiet_total(&rows, m, mover);
                history + threats.as_ref().map_or(0, |t| t.order_bonus(m, eval.value(mover.kind()), bonus))
            });
        }
    }

    /// Rewards the quiet move that caused a cutoff and punishes the quiet
    /// moves tried before it.
    pub(super) fn reward_quiet(&mut self, ply: usize, best: (Move, Cell), tried: &[(Move, Cell)], depth: i32) {
        let bonus = history_bonus(&self.params, depth);
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

    /// After a reduced quiet move was searched again (`lmr_research_history`):
    /// the continuation histories learn whether it held above alpha.
    pub(super) fn learn_research(&mut self, ply: usize, mv: &MoveInfo, held: bool, depth: i32) {
        let bonus = history_bonus(&self.params, depth);
        let b = if held { bonus } else { -bonus };
        for key in self.continuation_keys(ply) {
            self.histories.update_continuation(key, mv.mover, mv.m.to(), b);
        }
    }

    /// Rewards the capture that caused a cutoff and punishes the captures
    /// tried before it.
    pub(super) fn reward_captures(
        &mut self,
        best: Option<(Move, Cell, PieceKind)>,
        tried: &[(Move, Cell, PieceKind)],
        depth: i32,
    ) {
        let bonus = history_bonus(&self.params, depth);
        for &(m, mover, victim) in best.iter().chain(tried) {
            let b = if best.is_some_and(|b| b.0 == m) { bonus } else { -bonus };
            self.histories.update_capture(mover, m.to(), victim, b);
        }
    }

    /// Removes the quiet moves at and after `from`, keeping the order of the rest.
    pub(super) fn drop_quiet_moves(&self, moves: &mut ScoredMoves, from: usize) {
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

    /// Picks the best-scored move at or after `i` and swaps it to `i`. A
    /// capture reached for the first time goes through static exchange
    /// now; if it loses material it drops after the quiet moves and the
    /// pick is made again (so the order is that of scoring every capture
    /// by exchange up front, without the exchanges never reached).
    #[inline]
    pub(super) fn pick(&mut self, moves: &mut ScoredMoves, i: usize) -> Move {
        loop {
            let mut best = i;
            for j in i + 1..moves.list.len() {
                if moves.scores[j] > moves.scores[best] {
                    best = j;
                }
            }
            let (m, score) = (moves.list[best], moves.scores[best]);
            if !self.exchange_pending(m, score) || self.see_ge(m, 0) {
                moves.list.swap(i, best);
                moves.scores.swap(i, best);
                return m;
            }
            // Captures that lose material by static exchange go after the quiet moves.
            moves.scores[best] = score - GOOD_CAPTURE + BAD_CAPTURE;
        }
    }
}
