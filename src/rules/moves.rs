//! The compact move: 32 bits, never zero.
//!
//! Bits 0-7: `to`; 8-15: `from` (0 for drops); 16-19: [`MoveKind`];
//! 20-24: the promoted or dropped kind. `to` is always a board square, and
//! mailbox index 0 is padding, so a move is never 0 and `Option<Move>` costs
//! nothing. Castling is stored as king-from + rook-from; a setup swap or a
//! king succession as king/queen-from + partner square; a setup pass as the
//! king "moving" to its own square.

use std::num::NonZeroU32;

use arrayvec::ArrayVec;

use crate::rules::geometry::Square;
use crate::rules::piece::PieceKind;

/// What a move does besides moving one man.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum MoveKind {
    /// An ordinary move or capture.
    Normal = 0,
    /// A lame initial double step that may create an en-passant square.
    DoublePush = 1,
    /// En-passant capture.
    EnPassant = 2,
    /// Castling (from = king, to = rook).
    Castle = 3,
    /// Move or capture with promotion.
    Promotion = 4,
    /// A man placed from the hand.
    Drop = 5,
    /// Two own men exchange squares (setup swap or king succession).
    Swap = 6,
    /// Keep the array during the setup phase.
    Pass = 7,
}

const KINDS: [MoveKind; 8] = [
    MoveKind::Normal,
    MoveKind::DoublePush,
    MoveKind::EnPassant,
    MoveKind::Castle,
    MoveKind::Promotion,
    MoveKind::Drop,
    MoveKind::Swap,
    MoveKind::Pass,
];

/// A move, 4 bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct Move(NonZeroU32);

const _: () = assert!(std::mem::size_of::<Option<Move>>() == 4);

impl Move {
    /// Builds a move; `to` must be a board square (never mailbox index 0).
    #[inline]
    pub fn new(from: Square, to: Square, kind: MoveKind, piece: PieceKind) -> Move {
        let bits = to.0 as u32 | (from.0 as u32) << 8 | (kind as u32) << 16 | (piece.0 as u32) << 20;
        // `to` is a board square, so bits != 0; the fallback is never taken.
        Move(NonZeroU32::new(bits).unwrap_or(NonZeroU32::MIN))
    }
    /// An ordinary move.
    #[inline]
    pub fn normal(from: Square, to: Square) -> Move {
        Move::new(from, to, MoveKind::Normal, PieceKind(0))
    }
    /// Origin square (padding square 0 for drops).
    #[inline]
    pub fn from(self) -> Square {
        Square((self.0.get() >> 8) as u8)
    }
    /// Destination square.
    #[inline]
    pub fn to(self) -> Square {
        Square(self.0.get() as u8)
    }
    /// The move's kind.
    #[inline]
    pub fn kind(self) -> MoveKind {
        KINDS[(self.0.get() >> 16 & 7) as usize]
    }
    /// Promoted-to or dropped kind.
    #[inline]
    pub fn piece(self) -> PieceKind {
        PieceKind((self.0.get() >> 20 & 31) as u8)
    }
    /// Raw bits (for the transposition table).
    #[inline]
    pub fn bits(self) -> u32 {
        self.0.get()
    }
    /// Rebuilds a move from [`Move::bits`].
    #[inline]
    pub fn from_bits(bits: u32) -> Option<Move> {
        NonZeroU32::new(bits).map(Move)
    }
}

/// Capacity of a move list.
pub const MAX_MOVES: usize = 2048;

/// A fixed-capacity, allocation-free move list.
pub type MoveList = ArrayVec<Move, MAX_MOVES>;
