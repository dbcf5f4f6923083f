//! The network's inputs: every man as (colour relative to the perspective,
//! kind, square seen from the perspective's side), and the men in hand as one
//! input per (colour, kind, index), so that holding three of a kind lights
//! the first three inputs of that kind. A variant's kinds are its own
//! (Clockwork's non-capturing twins, Clash's jokers and special pawns are
//! kinds like any other): nothing here knows a variant by name.
//!
//! A network may ask for the king mirror ([`FeatureSet::with_king_mirror`]):
//! a perspective whose royal man stands on the right half of the board sees
//! the files reversed, so that the inputs only ever show its king on the
//! left half and the weights learn each half once. Hands are not affected;
//! a perspective without a royal man on the board never flips.

use crate::board::position::{Place, Position};
use crate::rules::geometry::Square;
use crate::rules::piece::{Cell, Color, PieceKind};
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
    /// The kind whose man decides the king mirror.
    royal: Option<PieceKind>,
    /// Whether a perspective with its royal man on the right half sees the files reversed.
    king_mirror: bool,
}

impl FeatureSet {
    /// The inputs of `variant`'s board and pieces.
    pub fn new(variant: &Variant) -> FeatureSet {
        FeatureSet {
            files: variant.shape.files,
            ranks: variant.shape.ranks,
            kinds: variant.kind_count(),
            hands: variant.hands,
            royal: variant.royal,
            king_mirror: false,
        }
    }

    /// These inputs with the king mirror on or off (the input count is the
    /// same, so a network trained without it can start one with it).
    pub fn with_king_mirror(self, king_mirror: bool) -> FeatureSet {
        FeatureSet { king_mirror, ..self }
    }

    /// Whether the king mirror is on.
    #[inline(always)]
    pub fn king_mirror(&self) -> bool {
        self.king_mirror
    }

    /// The royal kind (a record's king is its man of this kind).
    pub fn royal(&self) -> Option<PieceKind> {
        self.royal
    }

    /// Whether a perspective whose royal man stands on `king` sees the files
    /// reversed: with the king mirror, a king on the right half (file index
    /// `files / 2` or more); never without a king.
    #[inline(always)]
    pub fn flips(&self, king: Option<Square>) -> bool {
        self.king_mirror && king.is_some_and(|k| k.file() >= self.files / 2)
    }

    /// Whether `perspective` sees the files of `pos` reversed ([`FeatureSet::flips`]).
    #[inline(always)]
    pub fn flipped(&self, pos: &Position, perspective: Color) -> bool {
        self.flips(pos.king_square(perspective))
    }

    /// Both perspectives' [`FeatureSet::flipped`], White's first.
    #[inline(always)]
    pub fn flipped_both(&self, pos: &Position) -> [bool; 2] {
        if !self.king_mirror {
            return [false; 2];
        }
        [self.flipped(pos, Color::White), self.flipped(pos, Color::Black)]
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
    /// board with the ranks reversed and its own men as "ours"; `flipped`
    /// (the perspective's [`FeatureSet::flipped`]) reverses the files too.
    #[inline(always)]
    pub fn index(&self, perspective: Color, flipped: bool, cell: Cell, place: Place) -> usize {
        let relative = usize::from(cell.color() != perspective);
        let piece = relative * self.kinds + cell.kind().index();
        match place {
            Place::Board(sq) => piece * self.squares() + self.square_index(perspective, flipped, sq),
            Place::Hand(n) => {
                let slot = usize::from(n).min(HAND_SLOTS - 1);
                2 * self.kinds * self.squares() + piece * HAND_SLOTS + slot
            }
        }
    }

    #[inline(always)]
    fn square_index(&self, perspective: Color, flipped: bool, sq: Square) -> usize {
        let rank = match perspective {
            Color::White => sq.rank(),
            Color::Black => self.ranks - 1 - sq.rank(),
        };
        let file = if flipped { self.files - 1 - sq.file() } else { sq.file() };
        usize::from(rank) * usize::from(self.files) + usize::from(file)
    }

    /// Every active input of `pos` for `perspective`, in board order then hands.
    pub fn active(&self, pos: &Position, perspective: Color, mut each: impl FnMut(usize)) {
        let flipped = self.flipped(pos, perspective);
        for &sq in pos.squares() {
            let cell = pos.cell(sq);
            if cell.is_piece() {
                each(self.index(perspective, flipped, cell, Place::Board(sq)));
            }
        }
        if !self.hands {
            return;
        }
        for color in Color::ALL {
            for k in 0..self.kinds {
                let kind = PieceKind(k as u8);
                for n in 0..pos.hand_count(color, kind) {
                    each(self.index(perspective, false, Cell::piece(color, kind), Place::Hand(n)));
                }
            }
        }
    }
}
