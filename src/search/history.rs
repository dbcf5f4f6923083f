//! Move-ordering statistics the search learns as it goes: quiet history,
//! capture history, counter moves and continuation histories; beside them
//! the evaluation's correction tables (`correction.rs`), which live and are
//! cleared with them.
//!
//! Every table is indexed compactly by the variant's own board and piece
//! kinds, so a 10x10 board with 15 kinds costs a few MiB, an 8x8 far less.
//! Entries move by "gravity" (`h += bonus - h * |bonus| / LIMIT`): they stay
//! within +-LIMIT and old knowledge fades as new bonuses arrive.

use crate::rules::geometry::{BoardShape, Square};
use crate::rules::moves::{Move, MoveKind};
use crate::rules::piece::{Cell, Color, PieceKind};
use crate::search::correction::Correction;

/// Largest magnitude of a history entry.
pub const HISTORY_LIMIT: i32 = 16_384;

/// The earlier moves a quiet move's continuation histories are keyed by:
/// one, two and (with `continuation_ply4`) four plies back.
pub const CONTINUATION_KEYS: usize = 3;

/// A moved man and where it went: the key of continuation histories and
/// counter moves. Index into `pieces x squares` (colour included).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PieceTo(u32);

/// The parts of the quiet and continuation histories' indices that one
/// node's quiet moves share (the side to move, the previous two moves),
/// computed once so that scoring each move adds only its own squares.
#[derive(Clone, Copy)]
pub struct QuietRows {
    quiet: usize,
    continuation: [Option<usize>; CONTINUATION_KEYS],
}

/// The history tables of one search thread.
pub struct Histories {
    files: usize,
    squares: usize,
    kinds: usize,
    /// colour x (origin square or dropped kind) x destination.
    quiet: Box<[i16]>,
    /// moved piece-to x captured kind.
    capture: Box<[i16]>,
    /// previous piece-to -> the reply that refuted it last.
    counter: Box<[Option<Move>]>,
    /// previous piece-to (colour included) x this move's kind x destination,
    /// one table for the moves one and two plies back. This move's colour is
    /// not in the key, so a reply to a move and the mover's own follow-up
    /// two plies on (same kind, same square) share an entry; keying by the
    /// colour too, as Stockfish does, measured level at twice the memory
    /// (`docs/search-log.md`, twentieth session).
    continuation: Box<[i16]>,
    /// The static evaluation's learnt corrections.
    pub(super) correction: Correction,
}

#[inline]
fn gravity(entry: &mut i16, bonus: i32) {
    let bonus = bonus.clamp(-HISTORY_LIMIT, HISTORY_LIMIT);
    let h = *entry as i32;
    *entry = (h + bonus - h * bonus.abs() / HISTORY_LIMIT) as i16;
}

impl Histories {
    /// Empty tables for a board shape and a number of piece kinds.
    pub fn new(shape: BoardShape, kinds: usize) -> Histories {
        let files = shape.files as usize;
        let squares = files * shape.ranks as usize;
        let piece_to = 2 * kinds * squares;
        Histories {
            files,
            squares,
            kinds,
            quiet: vec![0; 2 * (squares + kinds) * squares].into_boxed_slice(),
            capture: vec![0; piece_to * kinds].into_boxed_slice(),
            counter: vec![None; piece_to].into_boxed_slice(),
            continuation: vec![0; piece_to * kinds * squares].into_boxed_slice(),
            correction: Correction::new(),
        }
    }

    /// True when these tables fit a board shape and kind count.
    pub fn fits(&self, shape: BoardShape, kinds: usize) -> bool {
        self.files == shape.files as usize && self.squares == self.files * shape.ranks as usize && self.kinds == kinds
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        self.quiet.fill(0);
        self.capture.fill(0);
        self.counter.fill(None);
        self.continuation.fill(0);
        self.correction.clear();
    }

    #[inline]
    fn square(&self, sq: Square) -> usize {
        sq.rank() as usize * self.files + sq.file() as usize
    }

    /// The key of `mover` (a man, never empty) arriving on `to`.
    #[inline]
    pub fn piece_to(&self, mover: Cell, to: Square) -> PieceTo {
        PieceTo(((mover.0 as usize - 2) * self.squares + self.square(to)) as u32)
    }

    #[inline]
    fn quiet_index(&self, side: Color, m: Move) -> usize {
        let from = if m.kind() == MoveKind::Drop { self.squares + m.piece().index() } else { self.square(m.from()) };
        (side.index() * (self.squares + self.kinds) + from) * self.squares + self.square(m.to())
    }

    #[inline]
    fn continuation_index(&self, previous: PieceTo, mover: Cell, to: Square) -> usize {
        (previous.0 as usize * self.kinds + mover.kind().index()) * self.squares + self.square(to)
    }

    /// Quiet history of a move by `side`.
    #[inline]
    pub fn quiet(&self, side: Color, m: Move) -> i32 {
        self.quiet[self.quiet_index(side, m)] as i32
    }

    /// The shared parts of a node's quiet-move indices: `side` to move,
    /// after the moves `keys` (one, two and four plies back).
    #[inline]
    pub fn quiet_rows(&self, side: Color, keys: [Option<PieceTo>; CONTINUATION_KEYS]) -> QuietRows {
        QuietRows {
            quiet: side.index() * (self.squares + self.kinds) * self.squares,
            continuation: keys.map(|k| k.map(|p| p.0 as usize * self.kinds * self.squares)),
        }
    }

    /// Quiet history plus both continuation histories of `mover` making
    /// `m`: the same sum as [`Histories::quiet`] and two
    /// [`Histories::continuation`]s, with the node's rows computed once.
    #[inline]
    pub fn quiet_total(&self, rows: &QuietRows, m: Move, mover: Cell) -> i32 {
        let from = if m.kind() == MoveKind::Drop { self.squares + m.piece().index() } else { self.square(m.from()) };
        let to = self.square(m.to());
        let mut total = self.quiet[rows.quiet + from * self.squares + to] as i32;
        let piece = mover.kind().index() * self.squares + to;
        for row in rows.continuation.into_iter().flatten() {
            total += self.continuation[row + piece] as i32;
        }
        total
    }

    /// Adds `bonus` (negative: a malus) to a quiet move's history.
    pub fn update_quiet(&mut self, side: Color, m: Move, bonus: i32) {
        let i = self.quiet_index(side, m);
        gravity(&mut self.quiet[i], bonus);
    }

    /// Capture history of `mover` taking a man of kind `victim` on `to`.
    #[inline]
    pub fn capture(&self, mover: Cell, to: Square, victim: PieceKind) -> i32 {
        self.capture[self.piece_to(mover, to).0 as usize * self.kinds + victim.index()] as i32
    }

    /// Adds `bonus` to a capture's history.
    pub fn update_capture(&mut self, mover: Cell, to: Square, victim: PieceKind, bonus: i32) {
        let i = self.piece_to(mover, to).0 as usize * self.kinds + victim.index();
        gravity(&mut self.capture[i], bonus);
    }

    /// Continuation history of `mover` going to `to` after `previous`.
    #[inline]
    pub fn continuation(&self, previous: Option<PieceTo>, mover: Cell, to: Square) -> i32 {
        previous.map_or(0, |p| self.continuation[self.continuation_index(p, mover, to)] as i32)
    }

    /// Adds `bonus` to a continuation history entry (nothing without a previous move).
    pub fn update_continuation(&mut self, previous: Option<PieceTo>, mover: Cell, to: Square, bonus: i32) {
        if let Some(p) = previous {
            let i = self.continuation_index(p, mover, to);
            gravity(&mut self.continuation[i], bonus);
        }
    }

    /// The move that last refuted `previous`.
    #[inline]
    pub fn counter(&self, previous: Option<PieceTo>) -> Option<Move> {
        previous.and_then(|p| self.counter[p.0 as usize])
    }

    /// Remembers `m` as the refutation of `previous`.
    pub fn set_counter(&mut self, previous: Option<PieceTo>, m: Move) {
        if let Some(p) = previous {
            self.counter[p.0 as usize] = Some(m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gravity_bounds_entries_and_fades_old_knowledge() {
        let mut e = 0i16;
        for _ in 0..1000 {
            gravity(&mut e, 2000);
        }
        assert!(e as i32 <= HISTORY_LIMIT && e > 16_000, "{e}");
        gravity(&mut e, -2000);
        assert!((e as i32) < HISTORY_LIMIT - 1500, "a malus pulls a saturated entry down: {e}");
    }

    #[test]
    fn tables_are_keyed_by_side_piece_and_square() {
        let shape = BoardShape { files: 10, ranks: 10 };
        let mut h = Histories::new(shape, 15);
        let a = Square::from_coords(0, 0);
        let j10 = Square::from_coords(9, 9);
        let m = Move::normal(a, j10);
        h.update_quiet(Color::White, m, 500);
        assert!(h.quiet(Color::White, m) > 0);
        assert_eq!(h.quiet(Color::Black, m), 0);
        let drop = Move::new(Square(0), j10, MoveKind::Drop, PieceKind(14));
        h.update_quiet(Color::Black, drop, -500);
        assert!(h.quiet(Color::Black, drop) < 0);
        let white_last = Cell::piece(Color::White, PieceKind(14));
        let black_last = Cell::piece(Color::Black, PieceKind(14));
        let prev = Some(h.piece_to(black_last, j10));
        h.update_continuation(prev, white_last, a, 700);
        assert!(h.continuation(prev, white_last, a) > 0);
        assert_eq!(h.continuation(Some(h.piece_to(white_last, j10)), white_last, a), 0);
        assert_eq!(h.continuation(None, white_last, a), 0);
        // The node-row sum is the three tables' entries added up.
        let rows = h.quiet_rows(Color::White, [prev, Some(h.piece_to(black_last, a)), None]);
        h.update_quiet(Color::White, Move::normal(j10, a), 900);
        let back = Move::normal(j10, a);
        assert_eq!(
            h.quiet_total(&rows, back, white_last),
            h.quiet(Color::White, back) + h.continuation(prev, white_last, a)
        );
        assert_eq!(h.quiet_total(&rows, back, white_last), 900 + 700);
        h.set_counter(prev, m);
        assert_eq!(h.counter(prev), Some(m));
        h.update_capture(white_last, j10, PieceKind(3), 300);
        assert!(h.capture(white_last, j10, PieceKind(3)) > 0);
        h.clear();
        assert_eq!(h.quiet(Color::White, m), 0);
        assert_eq!(h.counter(prev), None);
    }
}
