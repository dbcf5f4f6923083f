//! Colours, piece kinds and the one-byte board cell.

use std::ops::{Index, IndexMut, Not};

/// The side a man belongs to.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Color {
    /// Moves first in play; upper-case letters.
    White = 0,
    /// Lower-case letters.
    Black = 1,
}

impl Color {
    /// Both colours, white first.
    pub const ALL: [Color; 2] = [Color::White, Color::Black];

    /// 0 for white, 1 for black.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// +1 for white (forward is up), -1 for black.
    #[inline]
    pub fn forward(self) -> i32 {
        match self {
            Color::White => 1,
            Color::Black => -1,
        }
    }

    /// `white`/`black`.
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "white",
            Color::Black => "black",
        }
    }
}

impl Not for Color {
    type Output = Color;
    #[inline]
    fn not(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
}

/// A value per colour.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct ByColor<T>(pub [T; 2]);

impl<T> Index<Color> for ByColor<T> {
    type Output = T;
    #[inline]
    fn index(&self, c: Color) -> &T {
        &self.0[c as usize]
    }
}

impl<T> IndexMut<Color> for ByColor<T> {
    #[inline]
    fn index_mut(&mut self, c: Color) -> &mut T {
        &mut self.0[c as usize]
    }
}

/// Index of a piece type in its variant's piece table (at most [`MAX_KINDS`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct PieceKind(pub u8);

/// Most piece types a variant may declare.
pub const MAX_KINDS: usize = 32;

impl PieceKind {
    /// Index into per-kind tables.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One mailbox cell: empty, padding, or a coloured man.
///
/// Encoded as 0 (empty), 1 (off the board) or `2 + (kind << 1 | colour)`, so a
/// cell fits in a byte and a `u128` can hold a set of cells (see attack masks).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Cell(pub u8);

impl Cell {
    /// An empty board square.
    pub const EMPTY: Cell = Cell(0);
    /// A padding square.
    pub const OFFBOARD: Cell = Cell(1);
    /// Number of distinct cell values.
    pub const COUNT: usize = 2 + 2 * MAX_KINDS;

    /// The cell holding a man of `kind` and `color`.
    #[inline]
    pub const fn piece(color: Color, kind: PieceKind) -> Cell {
        Cell(2 + ((kind.0 << 1) | color as u8))
    }
    /// True for a man of either colour.
    #[inline]
    pub fn is_piece(self) -> bool {
        self.0 >= 2
    }
    /// True for an empty board square.
    #[inline]
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The man's colour (only meaningful for pieces).
    #[inline]
    pub fn color(self) -> Color {
        if (self.0 - 2) & 1 == 0 {
            Color::White
        } else {
            Color::Black
        }
    }
    /// The man's kind (only meaningful for pieces).
    #[inline]
    pub fn kind(self) -> PieceKind {
        PieceKind((self.0 - 2) >> 1)
    }
    /// True when the cell holds a man of `color`.
    #[inline]
    pub fn is_color(self, color: Color) -> bool {
        self.0 >= 2 && (self.0 - 2) & 1 == color as u8
    }
}
