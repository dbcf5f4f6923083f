//! Static-evaluation correction history: what the search learns, per side
//! to move and pawn structure (and, second table, per placement of the
//! other men), about how far the evaluation is off.
//!
//! At the end of a node whose score says more than the evaluation (a lower
//! bound above it, an upper bound below it, or an exact score), the entries
//! move towards the error, by "gravity" like the move histories, faster for
//! deeper nodes. A node's evaluation for pruning is then the network's plus
//! the entries, each scaled by its weight in percent ([`Correction::apply`]).
//! The tables learn against the evaluation corrected at full weight, so a
//! weight scales how much of what was learnt is used, not what is learnt.

use crate::rules::piece::Color;
use crate::search::tt::Bound;

/// Entries per side to move in each table (a power of two).
pub const CORRECTION_SIZE: usize = 16_384;
/// Largest magnitude of an entry.
pub const CORRECTION_LIMIT: i32 = 1024;
/// Entry units per centipawn: an entry corrects by at most
/// `CORRECTION_LIMIT / CORRECTION_GRAIN` = 64 centipawns at weight 100.
pub const CORRECTION_GRAIN: i32 = 16;
/// Largest step of one update, in entry units (before gravity).
const MAX_BONUS: i32 = CORRECTION_LIMIT / 4;

/// The keys of one position in the correction tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CorrectionKeys {
    /// The side to move.
    pub side: Color,
    /// The pawn structure ([`Position::pawn_key`](crate::board::position::Position::pawn_key)).
    pub pawns: u64,
    /// Everything but the pawns: the men of other kinds, hands and rights.
    pub pieces: u64,
}

/// The weights, in percent, that scale each table's correction (0: unused).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CorrectionWeights {
    /// The pawn-structure table's.
    pub pawns: i32,
    /// The table of the other men's.
    pub pieces: i32,
}

impl CorrectionWeights {
    /// True when neither table is used (nothing is read or learnt).
    #[inline]
    pub fn off(&self) -> bool {
        self.pawns == 0 && self.pieces == 0
    }
}

/// The correction tables of one search thread.
pub struct Correction {
    /// side x pawn key: entries in 1/[`CORRECTION_GRAIN`] centipawns.
    pawns: Box<[i16]>,
    /// side x key of the other men.
    pieces: Box<[i16]>,
}

#[inline]
fn index(side: Color, key: u64) -> usize {
    side.index() * CORRECTION_SIZE + (key as usize & (CORRECTION_SIZE - 1))
}

#[inline]
fn gravity(entry: &mut i16, bonus: i32) {
    let e = *entry as i32;
    *entry = (e + bonus - e * bonus.abs() / CORRECTION_LIMIT).clamp(-CORRECTION_LIMIT, CORRECTION_LIMIT) as i16;
}

impl Default for Correction {
    fn default() -> Correction {
        Correction::new()
    }
}

impl Correction {
    /// Empty tables.
    pub fn new() -> Correction {
        Correction {
            pawns: vec![0; 2 * CORRECTION_SIZE].into_boxed_slice(),
            pieces: vec![0; 2 * CORRECTION_SIZE].into_boxed_slice(),
        }
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        self.pawns.fill(0);
        self.pieces.fill(0);
    }

    /// Entries of each table, pawns then pieces, that are not 0 (what a
    /// search learnt).
    #[cfg(test)]
    pub(super) fn nonzero_entries(&self) -> (usize, usize) {
        let count = |t: &[i16]| t.iter().filter(|&&e| e != 0).count();
        (count(&self.pawns), count(&self.pieces))
    }

    /// The entries of the used tables (0 for an unused one).
    #[inline]
    fn entries(&self, keys: &CorrectionKeys, w: &CorrectionWeights) -> (i32, i32) {
        let pawns = if w.pawns != 0 { self.pawns[index(keys.side, keys.pawns)] as i32 } else { 0 };
        let pieces = if w.pieces != 0 { self.pieces[index(keys.side, keys.pieces)] as i32 } else { 0 };
        (pawns, pieces)
    }

    /// The evaluation `raw` corrected: plus each used table's entry scaled by
    /// its weight, kept `bound` away from mate scores (within +-`bound`).
    #[inline]
    pub fn apply(&self, raw: i32, keys: &CorrectionKeys, w: &CorrectionWeights, bound: i32) -> i32 {
        if w.off() {
            return raw;
        }
        let (pawns, pieces) = self.entries(keys, w);
        let correction = (pawns * w.pawns + pieces * w.pieces) / (100 * CORRECTION_GRAIN);
        (raw + correction).clamp(-bound, bound)
    }

    /// Learns from a node whose search scored `score` (with `bound`) where
    /// the evaluation said `raw`, at remaining `depth`: each used table's
    /// entry moves towards the error left after the correction at full
    /// weight. A bound on the wrong side of that estimate says nothing of
    /// the error (a fail high below it, a fail low above it) and teaches nothing.
    #[inline]
    pub fn update(
        &mut self,
        raw: i32,
        score: i32,
        bound: Bound,
        depth: i32,
        keys: &CorrectionKeys,
        w: &CorrectionWeights,
    ) {
        if w.off() {
            return;
        }
        let (pawns, pieces) = self.entries(keys, w);
        let learnt = raw + (pawns + pieces) / CORRECTION_GRAIN;
        let informs = match bound {
            Bound::Exact => true,
            Bound::Lower => score > learnt,
            Bound::Upper => score < learnt,
            Bound::None => false,
        };
        if !informs {
            return;
        }
        // A quarter of the error per node at depth 8, in entry units.
        let bonus = ((score - learnt) * CORRECTION_GRAIN * depth / 32).clamp(-MAX_BONUS, MAX_BONUS);
        if w.pawns != 0 {
            gravity(&mut self.pawns[index(keys.side, keys.pawns)], bonus);
        }
        if w.pieces != 0 {
            gravity(&mut self.pieces[index(keys.side, keys.pieces)], bonus);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: CorrectionKeys = CorrectionKeys { side: Color::White, pawns: 0x1234_5678_9abc_def0, pieces: 77 };
    const FULL: CorrectionWeights = CorrectionWeights { pawns: 100, pieces: 0 };
    const BOUND: i32 = 30_000;

    #[test]
    fn the_correction_moves_towards_the_observed_error_and_settles_there() {
        let mut c = Correction::new();
        assert_eq!(c.apply(50, &KEYS, &FULL, BOUND), 50);
        // The search keeps finding this structure 30 centipawns better than the network says.
        let mut last = 50;
        for _ in 0..6 {
            c.update(50, 80, Bound::Exact, 8, &KEYS, &FULL);
            let now = c.apply(50, &KEYS, &FULL, BOUND);
            assert!(now > last && now <= 80, "{last} -> {now}");
            last = now;
        }
        for _ in 0..200 {
            c.update(50, 80, Bound::Exact, 8, &KEYS, &FULL);
        }
        let settled = c.apply(50, &KEYS, &FULL, BOUND);
        assert!((75..=80).contains(&settled), "{settled}");
        // Black to move, or another structure, learnt nothing.
        assert_eq!(c.apply(50, &CorrectionKeys { side: Color::Black, ..KEYS }, &FULL, BOUND), 50);
        assert_eq!(c.apply(50, &CorrectionKeys { pawns: 5, ..KEYS }, &FULL, BOUND), 50);
        // Half the weight uses half of it; the other table was not taught.
        let half = c.apply(50, &KEYS, &CorrectionWeights { pawns: 50, pieces: 0 }, BOUND);
        assert!((62..=65).contains(&half), "{half}");
        let other = CorrectionWeights { pawns: 0, pieces: 100 };
        assert_eq!(c.apply(50, &KEYS, &other, BOUND), 50);
        // The error turns: the correction follows.
        for _ in 0..200 {
            c.update(50, 40, Bound::Exact, 8, &KEYS, &FULL);
        }
        let turned = c.apply(50, &KEYS, &FULL, BOUND);
        assert!((40..=45).contains(&turned), "{turned}");
        c.clear();
        assert_eq!(c.apply(50, &KEYS, &FULL, BOUND), 50);
    }

    #[test]
    fn only_bounds_beyond_the_estimate_teach() {
        let mut c = Correction::new();
        // A fail high below the evaluation, a fail low above it: no news.
        c.update(50, 20, Bound::Lower, 10, &KEYS, &FULL);
        c.update(50, 90, Bound::Upper, 10, &KEYS, &FULL);
        c.update(50, 90, Bound::None, 10, &KEYS, &FULL);
        assert_eq!(c.apply(50, &KEYS, &FULL, BOUND), 50);
        c.update(50, 90, Bound::Lower, 10, &KEYS, &FULL);
        let raised = c.apply(50, &KEYS, &FULL, BOUND);
        assert!(raised > 50, "{raised}");
        c.update(50, 20, Bound::Upper, 10, &KEYS, &FULL);
        assert!(c.apply(50, &KEYS, &FULL, BOUND) < raised);
    }

    #[test]
    fn entries_stay_bounded_and_the_result_stays_off_mate_scores() {
        let mut c = Correction::new();
        let both = CorrectionWeights { pawns: 100, pieces: 100 };
        for _ in 0..1000 {
            c.update(0, 20_000, Bound::Exact, 60, &KEYS, &both);
        }
        let (pawns, pieces) = c.entries(&KEYS, &both);
        assert!(pawns <= CORRECTION_LIMIT && pawns > CORRECTION_LIMIT * 9 / 10, "{pawns}");
        assert!(pieces <= CORRECTION_LIMIT && pieces > CORRECTION_LIMIT * 9 / 10, "{pieces}");
        let most = 2 * CORRECTION_LIMIT / CORRECTION_GRAIN;
        assert!(c.apply(0, &KEYS, &both, BOUND) <= most);
        assert_eq!(c.apply(BOUND - 10, &KEYS, &both, BOUND), BOUND);
        for _ in 0..1000 {
            c.update(0, -20_000, Bound::Exact, 60, &KEYS, &both);
        }
        assert!(c.apply(0, &KEYS, &both, BOUND) >= -most);
        assert_eq!(c.apply(-BOUND + 10, &KEYS, &both, BOUND), -BOUND);
    }

    #[test]
    fn weight_zero_reads_and_learns_nothing() {
        let mut c = Correction::new();
        let off = CorrectionWeights { pawns: 0, pieces: 0 };
        c.update(0, 500, Bound::Exact, 10, &KEYS, &off);
        assert_eq!(c.entries(&KEYS, &FULL), (0, 0));
        c.update(0, 500, Bound::Exact, 10, &KEYS, &FULL);
        assert!(c.apply(0, &KEYS, &FULL, BOUND) > 0);
        assert_eq!(c.apply(7, &KEYS, &off, BOUND), 7);
    }
}
