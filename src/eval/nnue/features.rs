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
//!
//! It may also ask for king buckets ([`FeatureSet::with_king_buckets`]): a
//! layout gives each square of the left half (implying the king mirror) or
//! of the whole board (without it) a bucket, and a perspective's whole
//! input vector (board and hands) is
//! that of its king's bucket, `bucket * base_len + index`, so each bucket
//! has its own rows. A perspective's flip and bucket together are its
//! [`View`]; without a royal man on the board it is bucket 0, not flipped.

use crate::board::position::{Place, Position};
use crate::rules::geometry::{Square, MAX_BOARD_SIDE};
use crate::rules::piece::{Cell, Color, PieceKind};
use crate::rules::variant::Variant;

/// Hand inputs per colour and kind; a man beyond them shares the last one.
pub const HAND_SLOTS: usize = 16;

/// Most squares a king bucket layout lists: the whole of the largest board.
pub const MAX_LAYOUT: usize = MAX_BOARD_SIDE as usize * MAX_BOARD_SIDE as usize;

/// How a perspective sees the board: whether the files are reversed (king
/// mirror) and which king bucket's inputs it lights. An accumulator kept
/// for one view is computed afresh when the view changes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct View {
    /// The files are reversed (the perspective's king stands on the right half).
    pub flipped: bool,
    /// The bucket of the perspective's king (0 without buckets or without a king).
    pub bucket: u8,
}

/// How a variant's men map to input indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeatureSet {
    files: u8,
    ranks: u8,
    kinds: usize,
    hands: bool,
    /// The kind whose man decides the king mirror and the bucket.
    royal: Option<PieceKind>,
    /// Whether a perspective with its royal man on the right half sees the files reversed.
    king_mirror: bool,
    /// Inputs of one bucket (the inputs without buckets).
    base_len: usize,
    /// King buckets (1: none).
    buckets: u8,
    /// Files a layout row lists: `ceil(files / 2)` for a left-half layout
    /// (with the king mirror), `files` for a whole-board one.
    bucket_width: u8,
    /// The bucket of each square of the layout, seen from the perspective:
    /// `rank * bucket_width + file` (0 everywhere without buckets).
    bucket_of: [u8; MAX_LAYOUT],
}

impl FeatureSet {
    /// The inputs of `variant`'s board and pieces.
    pub fn new(variant: &Variant) -> FeatureSet {
        let (files, ranks, kinds) = (variant.shape.files, variant.shape.ranks, variant.kind_count());
        let board = 2 * kinds * usize::from(files) * usize::from(ranks);
        let hand = if variant.hands { 2 * kinds * HAND_SLOTS } else { 0 };
        FeatureSet {
            files,
            ranks,
            kinds,
            hands: variant.hands,
            royal: variant.royal,
            king_mirror: false,
            base_len: board + hand,
            buckets: 1,
            bucket_width: files,
            bucket_of: [0; MAX_LAYOUT],
        }
    }

    /// These inputs with the king mirror on or off (the input count is the
    /// same, so a network trained without it can start one with it).
    /// King buckets keep it on.
    pub fn with_king_mirror(self, king_mirror: bool) -> FeatureSet {
        let half_layout = self.buckets > 1 && self.bucket_width < self.files;
        FeatureSet { king_mirror: king_mirror || half_layout, ..self }
    }

    /// These inputs with the king buckets of `layout` (one bucket per square
    /// of the left half, which turns the king mirror on, or of the whole
    /// board, which leaves it as it is: [`check_king_buckets`]); an empty
    /// layout changes nothing. A layout that
    /// does not fit the board gives what it can (squares past it are bucket
    /// 0) and never panics: callers check it first.
    pub fn with_king_buckets(self, layout: &[u8]) -> FeatureSet {
        if layout.is_empty() {
            return self;
        }
        let mut bucket_of = [0u8; MAX_LAYOUT];
        for (slot, &b) in bucket_of.iter_mut().zip(layout) {
            *slot = b;
        }
        let buckets = bucket_count(layout).min(usize::from(u8::MAX)) as u8;
        let half = layout_is_half(layout, self.files, self.ranks);
        let bucket_width = if half { self.files.div_ceil(2) } else { self.files };
        FeatureSet { king_mirror: self.king_mirror || half, buckets, bucket_width, bucket_of, ..self }
    }

    /// Whether a perspective's [`View`] may change from move to move (the
    /// king mirror or king buckets): only then is it computed per position.
    #[inline(always)]
    pub fn views_vary(&self) -> bool {
        self.king_mirror || self.buckets > 1
    }

    /// Whether the king mirror is on (king buckets turn it on): a
    /// perspective's [`View`] may then change from move to move.
    #[inline(always)]
    pub fn king_mirror(&self) -> bool {
        self.king_mirror
    }

    /// King buckets (1: none).
    pub fn buckets(&self) -> usize {
        usize::from(self.buckets)
    }

    /// The royal kind (a record's king is its man of this kind).
    pub fn royal(&self) -> Option<PieceKind> {
        self.royal
    }

    /// How `perspective`, whose royal man stands on `king`, sees the board:
    /// with the king mirror, the files reversed for a king on the right half
    /// (file index `files / 2` or more), and the bucket of the king's square
    /// on the left half, ranks counted from the perspective's own first;
    /// without a king, bucket 0 and not reversed.
    #[inline(always)]
    pub fn view(&self, perspective: Color, king: Option<Square>) -> View {
        match king {
            Some(k) if self.views_vary() => {
                let flipped = self.king_mirror && k.file() >= self.files / 2;
                let file = if flipped { self.files - 1 - k.file() } else { k.file() };
                let rank = match perspective {
                    Color::White => k.rank(),
                    Color::Black => self.ranks - 1 - k.rank(),
                };
                let width = usize::from(self.bucket_width);
                let bucket = self.bucket_of.get(usize::from(rank) * width + usize::from(file)).copied().unwrap_or(0);
                View { flipped, bucket }
            }
            _ => View::default(),
        }
    }

    /// How `perspective` sees `pos` ([`FeatureSet::view`]).
    #[inline(always)]
    pub fn view_of(&self, pos: &Position, perspective: Color) -> View {
        self.view(perspective, pos.king_square(perspective))
    }

    /// Both perspectives' [`FeatureSet::view_of`], White's first.
    #[inline(always)]
    pub fn views(&self, pos: &Position) -> [View; 2] {
        if !self.views_vary() {
            return [View::default(); 2];
        }
        [self.view_of(pos, Color::White), self.view_of(pos, Color::Black)]
    }

    /// Squares of the board.
    fn squares(&self) -> usize {
        usize::from(self.files) * usize::from(self.ranks)
    }

    /// Number of inputs (per perspective): every bucket's.
    pub fn len(&self) -> usize {
        self.buckets() * self.base_len
    }

    /// Inputs of one bucket: the board's men and the hands.
    pub fn base_len(&self) -> usize {
        self.base_len
    }

    /// True for a set without inputs (a variant without pieces).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The input of `cell` at `place`, seen by `perspective` with `view`
    /// (its [`FeatureSet::view_of`]): Black sees the board with the ranks
    /// reversed and its own men as "ours"; a flipped view reverses the files
    /// too; the view's bucket picks the block of inputs, hands included.
    #[inline(always)]
    pub fn index(&self, perspective: Color, view: View, cell: Cell, place: Place) -> usize {
        let relative = usize::from(cell.color() != perspective);
        let piece = relative * self.kinds + cell.kind().index();
        let bucket = usize::from(view.bucket) * self.base_len;
        bucket
            + match place {
                Place::Board(sq) => piece * self.squares() + self.square_index(perspective, view.flipped, sq),
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
        let view = self.view_of(pos, perspective);
        for &sq in pos.squares() {
            let cell = pos.cell(sq);
            if cell.is_piece() {
                each(self.index(perspective, view, cell, Place::Board(sq)));
            }
        }
        if !self.hands {
            return;
        }
        for color in Color::ALL {
            for k in 0..self.kinds {
                let kind = PieceKind(k as u8);
                for n in 0..pos.hand_count(color, kind) {
                    each(self.index(perspective, view, Cell::piece(color, kind), Place::Hand(n)));
                }
            }
        }
    }
}

/// Squares a king bucket layout lists for a board of `files` x `ranks`:
/// the left half, `ranks * ceil(files / 2)`.
pub fn layout_squares(files: u8, ranks: u8) -> usize {
    usize::from(files.div_ceil(2)) * usize::from(ranks)
}

/// Whether a layout of this length is a left-half one, which implies the
/// king mirror (`Some(true)`), or a whole-board one, which does not
/// (`Some(false)`); `None` for any other length.
pub fn layout_mirrors(layout: &[u8], files: u8, ranks: u8) -> Option<bool> {
    if layout.len() == layout_squares(files, ranks) {
        Some(true)
    } else if layout.len() == usize::from(files) * usize::from(ranks) {
        Some(false)
    } else {
        None
    }
}

/// Whether `layout` is a left-half one, which implies the king mirror
/// ([`layout_mirrors`]); false without buckets and for a whole-board one.
pub fn layout_is_half(layout: &[u8], files: u8, ranks: u8) -> bool {
    !layout.is_empty() && layout_mirrors(layout, files, ranks) != Some(false)
}

/// The buckets a layout names: its largest number plus one (1 when empty).
pub fn bucket_count(layout: &[u8]) -> usize {
    layout.iter().map(|&b| usize::from(b) + 1).max().unwrap_or(1)
}

/// Checks a king bucket layout for a board of `files` x `ranks`: one
/// bucket per square of the left half or of the whole board
/// ([`layout_mirrors`]; rank by rank from the perspective's own first rank,
/// files from the a-file), numbered from 0 without gaps.
/// Returns the number of buckets; the error is one line.
pub fn check_king_buckets(layout: &[u8], files: u8, ranks: u8) -> Result<usize, String> {
    if layout_mirrors(layout, files, ranks).is_none() {
        let (squares, half) = (layout_squares(files, ranks), files.div_ceil(2));
        return Err(format!(
            "{} entries, the {files}x{ranks} board's left half has {squares} ({half} files x {ranks} ranks) and the whole board {}",
            layout.len(),
            usize::from(files) * usize::from(ranks)
        ));
    }
    let buckets = bucket_count(layout);
    if let Some(missing) = (0..buckets).find(|&b| !layout.iter().any(|&x| usize::from(x) == b)) {
        return Err(format!("no square has bucket {missing} (buckets are numbered from 0 without gaps)"));
    }
    Ok(buckets)
}

/// Reads a king bucket layout written `B0,B1,...` (as a network's
/// `king-buckets` line and `train --king-buckets` give it) for a board of
/// `files` x `ranks`, checked as [`check_king_buckets`] does; the error is one line.
pub fn parse_king_buckets(text: &str, files: u8, ranks: u8) -> Result<Vec<u8>, String> {
    let mut layout = Vec::new();
    for (i, entry) in text.split(',').enumerate() {
        let entry = entry.trim();
        let bucket = entry
            .parse::<u8>()
            .ok()
            .filter(|&b| usize::from(b) < MAX_LAYOUT)
            .ok_or_else(|| format!("entry {} '{entry}' is not a bucket number (0 to {})", i + 1, MAX_LAYOUT - 1))?;
        layout.push(bucket);
    }
    check_king_buckets(&layout, files, ranks)?;
    Ok(layout)
}

/// A layout as `parse_king_buckets` reads it: `B0,B1,...`.
pub fn write_king_buckets(layout: &[u8]) -> String {
    layout.iter().map(u8::to_string).collect::<Vec<_>>().join(",")
}
