//! Zobrist keys sized for one variant, from a fixed-seed SplitMix64 so that
//! hashes are reproducible across builds and rand versions.

use crate::rules::geometry::MAILBOX_SIZE;
use crate::rules::piece::{Cell, Color, PieceKind, MAX_KINDS};

/// Largest hand count with its own key; larger counts share the last key.
pub const MAX_HAND_COUNT: usize = 40;

/// Keys for every hashed feature of a position.
#[derive(Clone, Debug)]
pub struct Zobrist {
    cells: Vec<u64>,
    hands: Vec<u64>,
    /// Key per castling-rights bit set (4 bits).
    pub castling: [u64; 16],
    /// Key per en-passant file.
    pub ep_file: [u64; 16],
    /// Key toggled when Black is to move.
    pub black_to_move: u64,
    /// Key per pending-setup bit set (2 bits).
    pub setup: [u64; 4],
}

/// SplitMix64: tiny, fast and good enough for hash keys; also the match
/// runner's seeded generator (reproducible across builds and rand versions).
#[derive(Clone, Debug)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// The next pseudo-random number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }
}

impl Zobrist {
    /// Keys for `kinds` piece types.
    pub fn new(kinds: usize) -> Zobrist {
        let mut rng = SplitMix64(0x6D65_6E61_6765_7269);
        let cell_count = 2 + 2 * kinds.max(1);
        let cells = (0..cell_count * MAILBOX_SIZE).map(|_| rng.next_u64()).collect();
        let hands = (0..2 * MAX_KINDS * (MAX_HAND_COUNT + 1)).map(|_| rng.next_u64()).collect();
        let mut castling = [0; 16];
        castling.iter_mut().for_each(|k| *k = rng.next_u64());
        castling[0] = 0;
        let mut ep_file = [0; 16];
        ep_file.iter_mut().for_each(|k| *k = rng.next_u64());
        let black_to_move = rng.next_u64();
        let mut setup = [0; 4];
        setup.iter_mut().for_each(|k| *k = rng.next_u64());
        setup[0] = 0;
        Zobrist { cells, hands, castling, ep_file, black_to_move, setup }
    }

    /// Key of `cell` standing on mailbox index `square`.
    #[inline]
    pub fn cell(&self, cell: Cell, square: usize) -> u64 {
        self.cells[cell.0 as usize * MAILBOX_SIZE + square]
    }

    /// Key of holding exactly `count` men of `kind` (count 0 has key 0).
    #[inline]
    pub fn hand(&self, color: Color, kind: PieceKind, count: u8) -> u64 {
        if count == 0 {
            return 0;
        }
        let count = (count as usize).min(MAX_HAND_COUNT);
        self.hands[(color.index() * MAX_KINDS + kind.index()) * (MAX_HAND_COUNT + 1) + count]
    }
}
