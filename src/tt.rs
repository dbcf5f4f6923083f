//! The transposition table: a fixed array of 4-entry buckets whose total size
//! never exceeds the `Hash` option (uses moves).
//!
//! An entry keeps the low 32 bits of the Zobrist key; the bucket is chosen by
//! the high bits (multiply-shift, so any bucket count works and the table can
//! fill its budget exactly). Replacement is depth-preferred with ageing: a new
//! result overwrites the entry of the same position, else the entry whose
//! `depth - 4 * age` is lowest, so results of old searches drain away.

use crate::moves::Move;

/// What the stored score says about the true score.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Bound {
    /// No information (empty entry).
    None = 0,
    /// The true score is at most the stored one (fail low).
    Upper = 1,
    /// The true score is at least the stored one (fail high).
    Lower = 2,
    /// The stored score is exact (a PV node).
    Exact = 3,
}

impl Bound {
    fn from_bits(bits: u8) -> Bound {
        match bits & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            3 => Bound::Exact,
            _ => Bound::None,
        }
    }
}

/// A local copy of one entry, as returned by [`TranspositionTable::probe`].
#[derive(Clone, Copy, Debug)]
pub struct TtHit {
    /// Best or refuting move, if any.
    pub mv: Option<Move>,
    /// Score (mate scores relative to the stored node; see the search).
    pub score: i32,
    /// Static evaluation of the position.
    pub eval: i32,
    /// Remaining depth the score was searched to.
    pub depth: i32,
    /// Bound type.
    pub bound: Bound,
}

/// One slot: 16 bytes.
#[derive(Clone, Copy, Default)]
struct Entry {
    key: u32,
    mv: u32,
    score: i16,
    eval: i16,
    depth: u8,
    /// Bound in bits 0-1, generation in bits 2-7.
    flags: u8,
}

const BUCKET_SIZE: usize = 4;

#[derive(Clone, Copy, Default)]
struct Bucket([Entry; BUCKET_SIZE]);

/// The table. Sized in MiB; the bucket array is the only allocation.
#[derive(Default)]
pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    generation: u8,
}

impl TranspositionTable {
    /// A table of at most `mib` MiB (at least one bucket).
    pub fn new(mib: usize) -> TranspositionTable {
        TranspositionTable::try_new(mib).unwrap_or_else(|| TranspositionTable::try_new(1).unwrap_or_default())
    }

    /// A table of at most `mib` MiB, or None when the memory cannot be had.
    pub fn try_new(mib: usize) -> Option<TranspositionTable> {
        let bytes = mib.saturating_mul(1 << 20);
        let count = (bytes / std::mem::size_of::<Bucket>()).max(1);
        let mut buckets = Vec::new();
        buckets.try_reserve_exact(count).ok()?;
        buckets.resize(count, Bucket::default());
        Some(TranspositionTable { buckets, generation: 0 })
    }

    /// Memory used by the entries, in bytes.
    pub fn size_bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Empties the table.
    pub fn clear(&mut self) {
        self.buckets.iter_mut().for_each(|b| *b = Bucket::default());
        self.generation = 0;
    }

    /// Starts a new search: older entries become preferred victims.
    pub fn new_search(&mut self) {
        self.generation = (self.generation + 1) & 63;
    }

    #[inline]
    fn bucket_index(&self, hash: u64) -> usize {
        ((hash as u128 * self.buckets.len() as u128) >> 64) as usize
    }

    /// Looks a position up.
    #[inline]
    pub fn probe(&self, hash: u64) -> Option<TtHit> {
        let key = hash as u32;
        let bucket = self.buckets.get(self.bucket_index(hash))?;
        bucket.0.iter().find(|e| e.key == key && e.flags & 3 != 0).map(|e| TtHit {
            mv: Move::from_bits(e.mv),
            score: e.score as i32,
            eval: e.eval as i32,
            depth: e.depth as i32,
            bound: Bound::from_bits(e.flags),
        })
    }

    /// Stores a search result. A missing move keeps the move already stored
    /// for the same position.
    #[inline]
    pub fn store(&mut self, hash: u64, mv: Option<Move>, score: i32, eval: i32, depth: i32, bound: Bound) {
        let key = hash as u32;
        let generation = self.generation;
        let index = self.bucket_index(hash);
        let Some(bucket) = self.buckets.get_mut(index) else {
            return;
        };
        let age = |e: &Entry| (generation.wrapping_sub(e.flags >> 2) & 63) as i32;
        let mut victim = 0;
        let mut worst = i32::MAX;
        for (i, e) in bucket.0.iter().enumerate() {
            if e.key == key || e.flags & 3 == 0 {
                victim = i;
                break;
            }
            let worth = e.depth as i32 - 4 * age(e);
            if worth < worst {
                worst = worth;
                victim = i;
            }
        }
        let e = &mut bucket.0[victim];
        let same = e.key == key && e.flags & 3 != 0;
        // Keep a deeper exact result of this very search unless the new one is exact.
        if same && bound != Bound::Exact && e.depth as i32 > depth + 2 && age(e) == 0 {
            return;
        }
        let mv_bits = match mv {
            Some(m) => m.bits(),
            None if same => e.mv,
            None => 0,
        };
        *e = Entry {
            key,
            mv: mv_bits,
            score: score.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            eval: eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            depth: depth.clamp(0, 255) as u8,
            flags: bound as u8 | generation << 2,
        };
    }

    /// Permille of sampled entries used by the current search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let sample = self.buckets.len().min(250);
        let mut used = 0;
        for b in &self.buckets[..sample] {
            used += b.0.iter().filter(|e| e.flags & 3 != 0 && e.flags >> 2 == self.generation).count();
        }
        (used * 1000 / (sample * BUCKET_SIZE).max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Square;

    #[test]
    fn size_never_exceeds_budget() {
        for mib in [1, 3, 16, 64] {
            let tt = TranspositionTable::new(mib);
            assert!(tt.size_bytes() <= mib << 20);
            assert!(tt.size_bytes() > (mib << 20) - 64);
        }
        assert_eq!(std::mem::size_of::<Bucket>(), 64);
    }

    #[test]
    fn store_then_probe() {
        let mut tt = TranspositionTable::new(1);
        let m = Move::normal(Square(0x33), Square(0x53));
        tt.store(0xDEAD_BEEF_1234_5678, Some(m), 42, 7, 5, Bound::Exact);
        let hit = tt.probe(0xDEAD_BEEF_1234_5678).expect("stored");
        assert_eq!((hit.mv, hit.score, hit.eval, hit.depth, hit.bound), (Some(m), 42, 7, 5, Bound::Exact));
        assert!(tt.probe(0x1111_2222_3333_4444).is_none());
        assert!(tt.hashfull() <= 1000);
        tt.clear();
        assert!(tt.probe(0xDEAD_BEEF_1234_5678).is_none());
    }
}
