//! Where training positions come from, as a stream: a data set in memory
//! or data files read pass by pass ([`DataFiles`], bounded memory whatever
//! their size); the seeded validation split by group; and the shuffle
//! buffer that mixes a stream without holding it.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;
use std::sync::Arc;

use crate::eval::nnue::data::{DataHeader, DataSet, Item, PositionReader, Record};
use crate::eval::nnue::games::Filter;
use crate::rules::variant::Variant;
use crate::rules::zobrist::SplitMix64;

/// Training positions, each with its group ([`crate::eval::nnue::data`]),
/// in the same order on every pass.
pub trait PositionSource {
    /// Gives every position to `each`; the error is a one-line message.
    fn visit(&self, each: &mut dyn FnMut(Record<'_>, u64)) -> Result<(), String>;
}

impl PositionSource for DataSet {
    fn visit(&self, each: &mut dyn FnMut(Record<'_>, u64)) -> Result<(), String> {
        (0..self.len()).for_each(|i| each(self.record(i), self.group(i)));
        Ok(())
    }
}

/// Data files of one variant, read from disk on every pass.
pub struct DataFiles {
    /// The files, read in this order (as if concatenated).
    pub paths: Vec<PathBuf>,
    /// Their variant.
    pub variant: Arc<Variant>,
    /// Which plies of games are positions.
    pub filter: Filter,
}

impl DataFiles {
    /// Reads every file through, telling `visit` each item.
    pub fn read(&self, visit: &mut dyn FnMut(Item<'_>)) -> Result<(), String> {
        let mut reader = PositionReader::new(&self.variant, self.filter);
        for path in &self.paths {
            let file = File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            reader
                .read(BufReader::with_capacity(1 << 20, file), visit)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(())
    }

    /// Checks every file whole: the blocks' headers, and the number of positions.
    pub fn scan(&self) -> Result<(Vec<DataHeader>, usize), String> {
        let (mut headers, mut positions) = (Vec::new(), 0);
        self.read(&mut |item| match item {
            Item::Block(header) => headers.push(header.clone()),
            Item::Position(..) => positions += 1,
            Item::Game(_) => {}
        })?;
        Ok((headers, positions))
    }
}

impl PositionSource for DataFiles {
    fn visit(&self, each: &mut dyn FnMut(Record<'_>, u64)) -> Result<(), String> {
        self.read(&mut |item| {
            if let Item::Position(record, group) = item {
                each(record, group);
            }
        })
    }
}

/// The validation split: a share of the groups, placed by the seed. Groups
/// step through a golden-ratio sequence, so any run of groups holds nearly
/// exactly the share, and a group is held out or not on every pass alike.
#[derive(Clone, Copy, Debug)]
pub struct Split {
    offset: u64,
    below: u64,
}

impl Split {
    /// Holds out `share` (0 to 1) of the groups; `seed` places them.
    pub fn new(share: f32, seed: u64) -> Split {
        let below = (f64::from(share.clamp(0.0, 1.0)) * 2f64.powi(64)).min(u64::MAX as f64) as u64;
        Split { offset: SplitMix64(seed).next_u64(), below }
    }

    /// True for a group held out for validation.
    pub fn held(&self, group: u64) -> bool {
        group.wrapping_mul(0x9E37_79B9_7F4A_7C15).wrapping_add(self.offset) < self.below
    }
}

/// A shuffle buffer: items go in in stream order and come out in a random
/// order, at most `capacity` held at once (the whole stream shuffled when
/// it fits).
pub struct Shuffle<T> {
    items: Vec<T>,
    capacity: usize,
}

impl<T> Shuffle<T> {
    /// An empty buffer of `capacity` items (at least 1).
    pub fn new(capacity: usize) -> Shuffle<T> {
        Shuffle { items: Vec::new(), capacity: capacity.max(1) }
    }

    /// Takes `item`; once the buffer is full, gives back a random item it held.
    pub fn push(&mut self, item: T, rng: &mut SplitMix64) -> Option<T> {
        if self.items.len() < self.capacity {
            self.items.push(item);
            return None;
        }
        let slot = rng.below(self.capacity);
        Some(std::mem::replace(&mut self.items[slot], item))
    }

    /// Gives back what is left, in a random order.
    pub fn drain(&mut self, rng: &mut SplitMix64) -> std::vec::Drain<'_, T> {
        for i in (1..self.items.len()).rev() {
            self.items.swap(i, rng.below(i + 1));
        }
        self.items.drain(..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_holds_out_its_share_and_the_seed_moves_it() {
        let split = Split::new(0.1, 3);
        let held: Vec<u64> = (0..1000).filter(|&g| split.held(g)).collect();
        assert!((95..=105).contains(&held.len()), "{}", held.len());
        // Any run of 50 groups holds about 5.
        assert!((0..950).all(|s| (3..=7).contains(&held.iter().filter(|&&g| (s..s + 50).contains(&g)).count())));
        let other: Vec<u64> = (0..1000).filter(|&g| Split::new(0.1, 4).held(g)).collect();
        assert_ne!(held, other);
        assert!((0..1000).all(|g| !Split::new(0.0, 3).held(g)));
    }

    #[test]
    fn the_shuffle_gives_back_every_item_once_holding_at_most_its_capacity() {
        let mut rng = SplitMix64(7);
        let mut shuffle = Shuffle::new(10);
        let mut out: Vec<u32> = (0..100).filter_map(|i| shuffle.push(i, &mut rng)).collect();
        assert_eq!(out.len(), 90);
        out.extend(shuffle.drain(&mut rng));
        assert_ne!(out, (0..100).collect::<Vec<_>>());
        out.sort_unstable();
        assert_eq!(out, (0..100).collect::<Vec<_>>());
    }
}
