//! The network's inputs: every man as (colour relative to the perspective,
//! kind, square seen from the perspective's side), and the men in hand as one
//! input per (colour, kind, index), so that holding three of a kind lights
//! the first three inputs of that kind. A variant's kinds are its own
//! (Clockwork's non-capturing twins, Clash's jokers and special pawns are
//! kinds like any other): nothing here knows a variant by name.

use crate::board::position::{Place, Position};
use crate::rules::geometry::Square;
use crate::rules::piece::{Cell, Color};
use crate::rules::variant::Variant;

/// Hand inputs per colour and kind; a man beyond them shares the last one.
pub const HAND_SLOTS: usize = 16;

/// How a variant's men map to input indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureSet {
    files: u8,
    ranks: u8,
    kinds: usize,
    hands: bool,
}

impl FeatureSet {
    /// The inputs of `variant`'s board and pieces.
    pub fn new(variant: &Variant) -> FeatureSet {
        FeatureSet {
            files: variant.shape.files,
            ranks: variant.shape.ranks,
            kinds: variant.kind_count(),
            hands: variant.hands,
        }
    }

    /// Squares of the board.
    fn squares(&self) -> usize {
        usize::from(self.files) * usize::from(self.ranks)
    }

    /// Number of inputs (per perspective).
    pub fn len(&self) -> usize {
        let board = 2 * self.kinds * self.squares();
        let hand = if self.hands { 2 * self.kinds * HAND_SLOTS } else { 0 };
        board + hand
    }

    /// True for a set without inputs (a variant without pieces).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The input of `cell` at `place`, seen by `perspective`: Black sees the
    /// board with the ranks reversed and its own men as "ours".
    #[inline(always)]
    pub fn index(&self, perspective: Color, cell: Cell, place: Place) -> usize {
        let relative = usize::from(cell.color() != perspective);
        let piece = relative * self.kinds + cell.kind().index();
        match place {
            Place::Board(sq) => piece * self.squares() + self.square_index(perspective, sq),
            Place::Hand(n) => {
                let slot = usize::from(n).min(HAND_SLOTS - 1);
                2 * self.kinds * self.squares() + piece * HAND_SLOTS + slot
            }
        }
    }

    #[inline(always)]
    fn square_index(&self, perspective: Color, sq: Square) -> usize {
        let rank = match perspective {
            Color::White => sq.rank(),
            Color::Black => self.ranks - 1 - sq.rank(),
        };
        usize::from(rank) * usize::from(self.files) + usize::from(sq.file())
    }

    /// Every active input of `pos` for `perspective`, in board order then hands.
    pub fn active(&self, pos: &Position, perspective: Color, mut each: impl FnMut(usize)) {
        for &sq in pos.squares() {
            let cell = pos.cell(sq);
            if cell.is_piece() {
                each(self.index(perspective, cell, Place::Board(sq)));
            }
        }
        if !self.hands {
            return;
        }
        for color in Color::ALL {
            for k in 0..self.kinds {
                let kind = crate::rules::piece::PieceKind(k as u8);
                for n in 0..pos.hand_count(color, kind) {
                    each(self.index(perspective, Cell::piece(color, kind), Place::Hand(n)));
                }
            }
        }
    }
}
