//! Board geometry: a padded 16x16 mailbox shared by every board size.
//!
//! Files live in columns 3..=12 and ranks in rows 3..=12, so an offset
//! `dy * 16 + dx` means the same step on 8x8, 10x8 and 10x10 boards, and any
//! leap with |dx|, |dy| <= 3 lands on padding instead of wrapping around.

use std::fmt;

/// Width of the mailbox (and its height).
pub const MAILBOX_WIDTH: i32 = 16;
/// Padding squares on each side of the playing area.
pub const PADDING: i32 = 3;
/// Number of cells in the mailbox.
pub const MAILBOX_SIZE: usize = 256;
/// Largest number of files or ranks a board may have.
pub const MAX_BOARD_SIDE: u8 = 10;

/// A square of the mailbox. Only [`BoardShape::square`] and the parsers make
/// squares that are on the board; index 0 is padding and never a board square,
/// which keeps `Move` non-zero.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Square(pub u8);

impl Square {
    /// Zero-based file (a = 0).
    #[inline]
    pub fn file(self) -> u8 {
        (self.0 & 15).wrapping_sub(PADDING as u8)
    }
    /// Zero-based rank (rank 1 = 0).
    #[inline]
    pub fn rank(self) -> u8 {
        (self.0 >> 4).wrapping_sub(PADDING as u8)
    }
    /// Index into the mailbox.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
    /// The square `offset` away (may be padding).
    #[inline]
    pub fn offset(self, offset: i16) -> Square {
        Square((self.0 as i16 + offset) as u8)
    }
    /// True for a dark square (a1 is dark).
    pub fn is_dark(self) -> bool {
        (self.file() + self.rank()).is_multiple_of(2)
    }
    /// Builds the mailbox square of a zero-based file and rank without checking the board size.
    #[inline]
    pub const fn from_coords(file: u8, rank: u8) -> Square {
        Square(((rank as i32 + PADDING) * MAILBOX_WIDTH + file as i32 + PADDING) as u8)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file()) as char, self.rank() as u32 + 1)
    }
}

/// The mailbox offset of a step of `dx` files and `dy` ranks.
#[inline]
pub const fn offset(dx: i32, dy: i32) -> i16 {
    (dy * MAILBOX_WIDTH + dx) as i16
}

/// A set of mailbox squares (one bit per mailbox index).
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct SquareSet(pub [u64; 4]);

impl SquareSet {
    /// Adds a square.
    #[inline]
    pub fn insert(&mut self, sq: Square) {
        self.0[sq.index() >> 6] |= 1 << (sq.index() & 63);
    }
    /// True when the square is in the set.
    #[inline]
    pub fn contains(&self, sq: Square) -> bool {
        self.0[sq.index() >> 6] >> (sq.index() & 63) & 1 != 0
    }
    /// Adds every square of `other`.
    #[inline]
    pub fn union_with(&mut self, other: &SquareSet) {
        for (word, more) in self.0.iter_mut().zip(other.0) {
            *word |= more;
        }
    }
}

/// The size of a board: files x ranks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct BoardShape {
    /// Number of files (columns), 1..=10.
    pub files: u8,
    /// Number of ranks (rows), 1..=10.
    pub ranks: u8,
}

impl BoardShape {
    /// The square at a zero-based file and rank, if it is on this board.
    pub fn square(&self, file: u8, rank: u8) -> Option<Square> {
        (file < self.files && rank < self.ranks).then(|| Square::from_coords(file, rank))
    }

    /// True when `sq` is one of this board's squares.
    pub fn contains(&self, sq: Square) -> bool {
        sq.file() < self.files && sq.rank() < self.ranks
    }

    /// All squares, a1 first, rank by rank.
    pub fn squares(&self) -> impl Iterator<Item = Square> + '_ {
        (0..self.ranks).flat_map(move |r| (0..self.files).map(move |f| Square::from_coords(f, r)))
    }

    /// Number of squares on the board.
    pub fn len(&self) -> usize {
        self.files as usize * self.ranks as usize
    }

    /// Always false: boards have at least one square.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Parses a square name such as `e4` or `a10`.
    ///
    /// ```
    /// use menagerie::rules::geometry::BoardShape;
    /// let b = BoardShape { files: 10, ranks: 10 };
    /// assert_eq!(b.parse_square("a10").unwrap().rank(), 9);
    /// assert!(b.parse_square("k1").is_none());
    /// ```
    pub fn parse_square(&self, text: &str) -> Option<Square> {
        let bytes = text.as_bytes();
        let (&file_char, digits) = bytes.split_first()?;
        if !file_char.is_ascii_lowercase() || digits.is_empty() || digits.len() > 2 {
            return None;
        }
        if digits[0] == b'0' || !digits.iter().all(u8::is_ascii_digit) {
            return None;
        }
        let rank: u32 = std::str::from_utf8(digits).ok()?.parse().ok()?;
        let file = file_char - b'a';
        if rank == 0 || rank > 255 {
            return None;
        }
        self.square(file, (rank - 1) as u8)
    }

    /// Reads a square name at the start of `text`, returning it and the bytes used.
    /// A square is followed by another square or a promotion letter, so two rank
    /// digits are taken only when they name a rank of this board.
    pub fn parse_square_prefix(&self, text: &str) -> Option<(Square, usize)> {
        let bytes = text.as_bytes();
        if bytes.len() >= 3 && bytes[1].is_ascii_digit() && bytes[2].is_ascii_digit() {
            if let Some(sq) = text.get(..3).and_then(|t| self.parse_square(t)) {
                return Some((sq, 3));
            }
        }
        text.get(..2).and_then(|t| self.parse_square(t)).map(|sq| (sq, 2))
    }
}

impl fmt::Display for BoardShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.files, self.ranks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_names_round_trip_on_every_board() {
        for shape in
            [BoardShape { files: 8, ranks: 8 }, BoardShape { files: 10, ranks: 8 }, BoardShape { files: 10, ranks: 10 }]
        {
            let mut count = 0;
            for sq in shape.squares() {
                let name = sq.to_string();
                assert_eq!(shape.parse_square(&name), Some(sq), "{name}");
                count += 1;
            }
            assert_eq!(count, shape.len());
        }
    }

    #[test]
    fn leaps_of_three_land_on_padding() {
        let shape = BoardShape { files: 10, ranks: 10 };
        for sq in shape.squares() {
            for dx in -3..=3 {
                for dy in -3..=3 {
                    let to = sq.offset(offset(dx, dy));
                    let on = (sq.file() as i32 + dx) >= 0
                        && (sq.file() as i32 + dx) < 10
                        && (sq.rank() as i32 + dy) >= 0
                        && (sq.rank() as i32 + dy) < 10;
                    assert_eq!(shape.contains(to), on);
                }
            }
        }
    }

    #[test]
    fn a_union_holds_the_squares_of_both_sets() {
        let squares = [Square(21), Square(70), Square(150), Square(220)];
        let (mut a, mut b) = (SquareSet::default(), SquareSet::default());
        a.insert(squares[0]);
        a.insert(squares[2]);
        b.insert(squares[1]);
        b.insert(squares[2]);
        b.insert(squares[3]);
        a.union_with(&b);
        assert!(squares.iter().all(|&sq| a.contains(sq)));
        assert!(!a.contains(Square(22)) && !a.contains(Square(149)));
        assert!(!b.contains(squares[0]), "the other set is left as it was");
    }

    #[test]
    fn bad_square_names_are_rejected() {
        let shape = BoardShape { files: 8, ranks: 8 };
        for bad in ["", "e", "e0", "e9", "i1", "k11", "E4", "e04", "e4x", "é4"] {
            assert!(shape.parse_square(bad).is_none(), "{bad}");
        }
    }
}
