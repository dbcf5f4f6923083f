//! The transposition table: a fixed array of 4-entry buckets whose total size
//! never exceeds the `Hash` option.
//!
//! An entry keeps the low 32 bits of the Zobrist key; the bucket is chosen by
//! the high bits (multiply-shift, so any bucket count works and the table can
//! fill its budget exactly). Replacement is depth-preferred with ageing: a new
//! result overwrites the entry of the same position, else the entry whose
//! `depth - 4 * age` is lowest, so results of old searches drain away.
//!
//! Search threads share one table without a lock (Lazy SMP). Each entry is two
//! relaxed atomic words, so two threads writing one entry at once can leave
//! one word of each: a torn entry. The first word is the key half XORed with a
//! scramble of the second, so a torn entry fails the key check and reads as a
//! miss. (Plain XOR would only guard the key bits: two writes of the same
//! position that differ in score could tear into a wrong depth or bound.)

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};

use crate::rules::moves::Move;

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
    /// The position was on a principal variation when stored (Stockfish's `ttPv`).
    pub pv: bool,
}

/// A local copy of one slot's contents.
#[derive(Clone, Copy, Default)]
struct Entry {
    key: u32,
    mv: u32,
    score: i16,
    eval: i16,
    depth: u8,
    /// Bound in bits 0-1, generation in bits 2-7.
    flags: u8,
    /// On a principal variation.
    pv: bool,
}

/// Bit of the key half that holds the entry's `pv` flag.
const PV_BIT: u64 = 1 << 48;

/// Bits of the key half that every whole entry leaves zero: 15 more bits of check.
const UNUSED_KEY_BITS: u64 = 0x7FFF << 49;

/// A bijective mix of the data word: any change to it changes about half the
/// bits of the key check, whichever field it touches.
#[inline]
fn scramble(data: u64) -> u64 {
    let x = (data ^ (data >> 32)).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    x ^ (x >> 32)
}

impl Entry {
    /// True when the slot holds a result (not empty).
    #[inline]
    fn is_used(&self) -> bool {
        self.flags & 3 != 0
    }

    /// The two words: (key half ^ scramble(data), data).
    #[inline]
    fn pack(&self) -> (u64, u64) {
        let data = self.mv as u64 | (self.score as u16 as u64) << 32 | (self.eval as u16 as u64) << 48;
        let key_half =
            self.key as u64 | (self.depth as u64) << 32 | (self.flags as u64) << 40 | if self.pv { PV_BIT } else { 0 };
        (key_half ^ scramble(data), data)
    }

    /// The entry two words hold; None when they visibly come from different
    /// writes (any other mix shows as a wrong key, but for a 2^-32 chance).
    #[inline]
    fn unpack(check: u64, data: u64) -> Option<Entry> {
        let key_half = check ^ scramble(data);
        if key_half & UNUSED_KEY_BITS != 0 {
            return None;
        }
        Some(Entry {
            key: key_half as u32,
            mv: data as u32,
            score: (data >> 32) as u16 as i16,
            eval: (data >> 48) as u16 as i16,
            depth: (key_half >> 32) as u8,
            flags: (key_half >> 40) as u8,
            pv: key_half & PV_BIT != 0,
        })
    }
}

/// One entry as two words written and read without a lock: 16 bytes.
#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

impl Slot {
    /// The entry, or an empty one when the slot is torn.
    #[inline]
    fn load(&self) -> Entry {
        let check = self.check.load(Ordering::Relaxed);
        let data = self.data.load(Ordering::Relaxed);
        Entry::unpack(check, data).unwrap_or_default()
    }

    #[inline]
    fn save(&self, entry: &Entry) {
        let (check, data) = entry.pack();
        self.check.store(check, Ordering::Relaxed);
        self.data.store(data, Ordering::Relaxed);
    }

    fn clear(&mut self) {
        *self.check.get_mut() = 0;
        *self.data.get_mut() = 0;
    }
}

const BUCKET_SIZE: usize = 4;

/// A hint to fetch the cache line at `line`; it reads nothing and cannot
/// fault, whatever the address.
#[inline(always)]
#[allow(unsafe_code)]
fn prefetch_line(line: *const i8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `prefetch` only hints the cache; it never dereferences, and
    // SSE (which it needs) is part of every x86-64 processor.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(line);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = line;
}

/// One cache line of slots.
#[derive(Default)]
#[repr(align(64))]
struct Bucket([Slot; BUCKET_SIZE]);

/// The table. Sized in MiB; the bucket array is the only allocation. Probes
/// and stores take `&self` so search threads can share it.
#[derive(Default)]
pub struct TranspositionTable {
    buckets: Vec<Bucket>,
    /// Generation of the current search, 0..64.
    generation: AtomicU8,
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
        buckets.resize_with(count, Bucket::default);
        Some(TranspositionTable { buckets, generation: AtomicU8::new(0) })
    }

    /// Memory used by the entries, in bytes.
    pub fn size_bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    /// Empties the table.
    pub fn clear(&mut self) {
        self.buckets.iter_mut().flat_map(|b| b.0.iter_mut()).for_each(Slot::clear);
        *self.generation.get_mut() = 0;
    }

    /// Starts a new search: older entries become preferred victims. Called
    /// by one thread (the main search) per search.
    pub fn new_search(&self) {
        let next = (self.generation.load(Ordering::Relaxed) + 1) & 63;
        self.generation.store(next, Ordering::Relaxed);
    }

    #[inline]
    fn bucket_index(&self, hash: u64) -> usize {
        ((hash as u128 * self.buckets.len() as u128) >> 64) as usize
    }

    /// Asks the processor to bring the bucket of `hash` into the cache, so
    /// that a probe soon after does not wait on memory: issued as soon as a
    /// move is made, it overlaps the miss with the rest of the move's work.
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        if let Some(bucket) = self.buckets.get(self.bucket_index(hash)) {
            prefetch_line(std::ptr::from_ref(bucket).cast::<i8>());
        }
    }

    /// Looks a position up. A slot being written by another thread reads as a miss.
    #[inline]
    pub fn probe(&self, hash: u64) -> Option<TtHit> {
        let key = hash as u32;
        let bucket = self.buckets.get(self.bucket_index(hash))?;
        bucket.0.iter().map(Slot::load).find(|e| e.key == key && e.is_used()).map(|e| TtHit {
            mv: Move::from_bits(e.mv),
            score: e.score as i32,
            eval: e.eval as i32,
            depth: e.depth as i32,
            bound: Bound::from_bits(e.flags),
            pv: e.pv,
        })
    }

    /// Stores a search result; `pv` when the position is or was on a
    /// principal variation. A missing move keeps the move already stored
    /// for the same position. Concurrent stores may lose one of the results,
    /// never mix them.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn store(&self, hash: u64, mv: Option<Move>, score: i32, eval: i32, depth: i32, bound: Bound, pv: bool) {
        let key = hash as u32;
        let generation = self.generation.load(Ordering::Relaxed);
        let Some(bucket) = self.buckets.get(self.bucket_index(hash)) else {
            return;
        };
        let entries: [Entry; BUCKET_SIZE] = std::array::from_fn(|i| bucket.0[i].load());
        let age = |e: &Entry| (generation.wrapping_sub(e.flags >> 2) & 63) as i32;
        let mut victim = 0;
        let mut worst = i32::MAX;
        for (i, e) in entries.iter().enumerate() {
            if e.key == key || !e.is_used() {
                victim = i;
                break;
            }
            let worth = e.depth as i32 - 4 * age(e);
            if worth < worst {
                worst = worth;
                victim = i;
            }
        }
        let e = &entries[victim];
        let same = e.key == key && e.is_used();
        // Keep a deeper exact result of this very search unless the new one is exact.
        if same && bound != Bound::Exact && e.depth as i32 > depth + 2 && age(e) == 0 {
            return;
        }
        let mv_bits = match mv {
            Some(m) => m.bits(),
            None if same => e.mv,
            None => 0,
        };
        bucket.0[victim].save(&Entry {
            key,
            mv: mv_bits,
            score: score.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            eval: eval.clamp(i16::MIN as i32, i16::MAX as i32) as i16,
            depth: depth.clamp(0, 255) as u8,
            flags: bound as u8 | generation << 2,
            pv,
        });
    }

    /// Permille of sampled entries used by the current search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let generation = self.generation.load(Ordering::Relaxed);
        let sample = self.buckets.len().min(250);
        let used = self.buckets[..sample]
            .iter()
            .flat_map(|b| b.0.iter().map(Slot::load))
            .filter(|e| e.is_used() && e.flags >> 2 == generation)
            .count();
        (used * 1000 / (sample * BUCKET_SIZE).max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::geometry::Square;

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
        tt.store(0xDEAD_BEEF_1234_5678, Some(m), 42, 7, 5, Bound::Exact, true);
        let hit = tt.probe(0xDEAD_BEEF_1234_5678).expect("stored");
        assert_eq!(
            (hit.mv, hit.score, hit.eval, hit.depth, hit.bound, hit.pv),
            (Some(m), 42, 7, 5, Bound::Exact, true)
        );
        tt.store(0xDEAD_BEEF_1234_5678, Some(m), -3, 7, 6, Bound::Upper, false);
        let hit = tt.probe(0xDEAD_BEEF_1234_5678).expect("stored");
        assert_eq!((hit.score, hit.depth, hit.bound, hit.pv), (-3, 6, Bound::Upper, false));
        assert!(tt.probe(0x1111_2222_3333_4444).is_none());
        assert!(tt.hashfull() <= 1000);
        tt.clear();
        assert!(tt.probe(0xDEAD_BEEF_1234_5678).is_none());
    }

    #[test]
    fn a_torn_entry_fails_the_key_check() {
        // Two results for one position that differ only in score and bound:
        // the key half of one with the data of the other must not read as a hit.
        let mv = Move::normal(Square(0x33), Square(0x53)).bits();
        let a =
            Entry { key: 0xABCD_1234, mv, score: 10, eval: 3, depth: 9, flags: Bound::Exact as u8 | 5 << 2, pv: true };
        let b = Entry { score: -250, flags: Bound::Lower as u8 | 5 << 2, ..a };
        let b = Entry { pv: false, ..b };
        for (first, second) in [(a, b), (b, a)] {
            let torn = Entry::unpack(first.pack().0, second.pack().1);
            assert!(torn.is_none_or(|e| e.key != a.key), "a torn entry passed the check");
            let whole = Entry::unpack(first.pack().0, first.pack().1).expect("whole");
            assert_eq!(
                (whole.key, whole.score, whole.flags, whole.pv),
                (first.key, first.score, first.flags, first.pv)
            );
        }
    }

    /// Everything a store for `hash` writes, as the `variant`-th of four
    /// possible results for that position. As in a search, the move and the
    /// static evaluation belong to the position, the rest to the result.
    fn result_for(hash: u64, variant: u64) -> (Move, i32, i32, i32, Bound) {
        let position = scramble(hash);
        let mv = Move::normal(Square(1 + (position % 200) as u8), Square(1 + (position >> 8) as u8 % 200));
        let eval = (position >> 32) as i16 as i32;
        let result = scramble(hash ^ (variant + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let score = result as i16 as i32;
        let bound = [Bound::Upper, Bound::Lower, Bound::Exact][(result >> 16) as usize % 3];
        (mv, score, eval, (result >> 24) as u8 as i32, bound)
    }

    #[test]
    fn concurrent_stores_never_give_another_positions_data() {
        // One bucket, eight positions and four possible results per position:
        // four threads, started together, overwrite the same four slots and
        // often store one position at once.
        const POSITIONS: u64 = 8;
        let tt = TranspositionTable::new(0);
        let keys: Vec<u64> = (0..POSITIONS).map(|i| scramble(i + 1)).collect();
        let hits = std::sync::atomic::AtomicU64::new(0);
        let start = std::sync::Barrier::new(4);
        std::thread::scope(|scope| {
            for thread in 0..4u64 {
                let (tt, keys, hits, start) = (&tt, &keys, &hits, &start);
                scope.spawn(move || {
                    start.wait();
                    let mut state = thread + 1;
                    for _ in 0..1_500_000 {
                        state = scramble(state.wrapping_add(0x9E37_79B9_7F4A_7C15));
                        let hash = keys[(state % POSITIONS) as usize];
                        let (mv, score, eval, depth, bound) = result_for(hash, state >> 60 & 3);
                        tt.store(hash, Some(mv), score, eval, depth, bound, false);
                        let probed = keys[((state >> 8) % POSITIONS) as usize];
                        let Some(hit) = tt.probe(probed) else { continue };
                        hits.fetch_add(1, Ordering::Relaxed);
                        let found = (0..4).map(|v| result_for(probed, v)).any(|(mv, score, eval, depth, bound)| {
                            (hit.mv, hit.score, hit.eval, hit.depth, hit.bound) == (Some(mv), score, eval, depth, bound)
                        });
                        assert!(found, "hit for {probed:#x} carries data stored for no result of it: {hit:?}");
                    }
                });
            }
        });
        assert!(hits.load(Ordering::Relaxed) > 1000, "the probes must find entries");
    }
}
