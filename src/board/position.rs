//! The position: mailbox board, hands, side to move, castling, en passant,
//! clocks, setup phase and an incrementally updated Zobrist hash; make/unmake
//! with a stack of [`StateInfo`]; attack queries, answered by the variant's
//! [`MotionTables`](crate::rules::motion::MotionTables).

use std::sync::Arc;

use arrayvec::ArrayVec;

use crate::rules::geometry::{Square, MAILBOX_SIZE};
use crate::rules::motion::{AttackerList, Board, CheckCandidates};
use crate::rules::moves::{Move, MoveKind};
use crate::rules::piece::{ByColor, Cell, Color, PieceKind, MAX_KINDS};
use crate::rules::variant::Variant;

/// Everything make must save for unmake besides the move itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateInfo {
    /// Zobrist hash of the position.
    pub hash: u64,
    /// Zobrist hash of the pawns on the board alone (both colours): the
    /// pawn structure, for statistics keyed by it (evaluation correction).
    pub pawn_key: u64,
    /// Castling rights: bit `2 * colour + side` (side 0 = queen side, 1 = king side).
    pub castling: u8,
    /// En-passant target square (0 = none); set only when a legal e.p. capture exists.
    pub ep: Square,
    /// The man that can be taken en passant.
    pub ep_victim: Square,
    /// Plies since the last capture, pawn move or drop.
    pub halfmove: u16,
    /// Move number, starting at 1, incremented after Black's move.
    pub fullmove: u16,
    /// Colours whose setup choice is pending (bit 0 white, bit 1 black).
    pub setup_pending: u8,
    /// What the move that led here captured (for unmake).
    pub captured: Cell,
    /// The man that moved (or was dropped) to reach this position.
    pub mover: Cell,
    /// Men on the board of kinds that no dead-position rule of the variant
    /// names (pawns, rooks...): while there is one, the position is not dead.
    pub live_men: u8,
}

/// Where a man stands: on a square, or in its owner's hand as the `n`-th
/// man of its kind (0 first), so that a hand is a list of places too.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// On the board.
    Board(Square),
    /// In hand: the man's index among those of its kind and colour.
    Hand(u8),
}

/// One man entering or leaving a place: what a move changed, for
/// evaluations kept up to date move by move (a network's accumulators).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Change {
    /// The man (colour and kind).
    pub cell: Cell,
    /// Where.
    pub place: Place,
    /// True when the man arrived there, false when it left.
    pub added: bool,
}

/// Most changes one move makes: a castling or a swap lifts and puts two
/// men; a capture in a drop variant adds the captured man to a hand.
pub const MAX_CHANGES: usize = 8;

/// The changes of the last move made.
pub type Changes = ArrayVec<Change, MAX_CHANGES>;

/// A position of some variant.
#[derive(Clone, Debug)]
pub struct Position {
    pub(crate) variant: Arc<Variant>,
    pub(crate) board: Board,
    pub(crate) hands: ByColor<[u8; MAX_KINDS]>,
    pub(crate) side: Color,
    pub(crate) kings: ByColor<Square>,
    /// Rook squares that carry castling rights: [queen side, king side].
    pub(crate) castle_rooks: ByColor<[Square; 2]>,
    /// The current state; `history` holds those before each move (unmake
    /// restores them; repetition scans their hashes).
    pub(crate) st: StateInfo,
    pub(crate) history: Vec<StateInfo>,
    /// The board's squares, a1 first.
    pub(crate) board_squares: Arc<[Square]>,
    /// What the last [`Position::make`] changed (empty after a null move).
    pub(crate) changes: Changes,
    /// Bit `cell.0` set for the cells of pawns (kinds that promote), so
    /// that make tells a pawn with one shift and no branch on emptiness.
    pub(crate) pawn_cells: u128,
}

/// The square that means "none" (mailbox padding).
pub const NO_SQUARE: Square = Square(0);

/// The cells of the variant's pawns, the kinds that promote (for either
/// colour), as a bit set over cell values: what the evaluation calls pawns.
fn pawn_cells(variant: &Variant) -> u128 {
    let mut cells = 0u128;
    for k in 0..variant.kind_count().min(MAX_KINDS) {
        let kind = PieceKind(k as u8);
        if variant.promotes(kind) {
            cells |= 1 << Cell::piece(Color::White, kind).0 | 1 << Cell::piece(Color::Black, kind).0;
        }
    }
    cells
}

/// Most men that can take en passant on one square: one per distinct leap
/// of at most 3 files and 3 ranks.
const MAX_EP_CAPTORS: usize = 48;

impl Position {
    /// The variant being played.
    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }
    /// Side to move.
    pub fn side_to_move(&self) -> Color {
        self.side
    }
    /// What stands on a square.
    #[inline]
    pub fn cell(&self, sq: Square) -> Cell {
        self.board[sq.index()]
    }
    /// How many men of `kind` `color` holds in hand.
    pub fn hand_count(&self, color: Color, kind: PieceKind) -> u8 {
        self.hands[color][kind.index()]
    }
    /// The current Zobrist hash.
    #[inline]
    pub fn hash(&self) -> u64 {
        self.st.hash
    }
    /// Zobrist hash of the pawns alone (see [`StateInfo::pawn_key`]).
    #[inline]
    pub fn pawn_key(&self) -> u64 {
        self.st.pawn_key
    }
    /// Current state (clocks, rights, e.p.).
    pub fn state(&self) -> &StateInfo {
        &self.st
    }
    /// The royal square of `color` (None when the variant or position has none).
    pub fn king_square(&self, color: Color) -> Option<Square> {
        (self.kings[color] != NO_SQUARE).then_some(self.kings[color])
    }
    /// True while setup choices are pending.
    pub fn in_setup(&self) -> bool {
        self.st.setup_pending != 0
    }
    /// The board's squares, a1 first.
    pub fn squares(&self) -> &[Square] {
        &self.board_squares
    }
    /// Number of moves made since the position was set up.
    pub fn ply_count(&self) -> usize {
        self.history.len()
    }
    /// Makes room for `plies` more moves, so that make does not allocate
    /// during a search.
    pub fn reserve_history(&mut self, plies: usize) {
        self.history.reserve(plies);
    }
    /// The men the last move (by [`Position::make`]) put down and lifted, on
    /// the board and in hands; empty after a null move. Unmake leaves it
    /// as it was: whoever follows the changes keeps their own stack.
    #[inline]
    pub fn last_changes(&self) -> &[Change] {
        &self.changes
    }
    /// The mailbox (padding cells are [`Cell::OFFBOARD`]).
    #[inline]
    pub(crate) fn board(&self) -> &Board {
        &self.board
    }

    /// Puts `cell` on `sq` and nothing else: the hash, hands, king squares
    /// and history are left as they were. For exchange evaluation only
    /// (moving men on and off a square between calls to
    /// [`Position::attackers`]); restore every edited square before anything
    /// else reads the position.
    #[inline]
    pub fn set_cell_raw(&mut self, sq: Square, cell: Cell) {
        debug_assert!(self.board[sq.index()] != Cell::OFFBOARD && cell != Cell::OFFBOARD, "off the board");
        self.board[sq.index()] = cell;
    }

    /// An empty position of `variant` (used by the FEN parser).
    pub(crate) fn empty(variant: Arc<Variant>) -> Position {
        let mut board = [Cell::OFFBOARD; MAILBOX_SIZE];
        let squares: Arc<[Square]> = variant.shape.squares().collect();
        let pawn_cells = pawn_cells(&variant);
        for sq in squares.iter() {
            board[sq.index()] = Cell::EMPTY;
        }
        Position {
            variant,
            board,
            hands: ByColor([[0; MAX_KINDS]; 2]),
            side: Color::White,
            kings: ByColor([NO_SQUARE; 2]),
            castle_rooks: ByColor([[NO_SQUARE; 2]; 2]),
            st: StateInfo {
                hash: 0,
                pawn_key: 0,
                castling: 0,
                ep: NO_SQUARE,
                ep_victim: NO_SQUARE,
                halfmove: 0,
                fullmove: 1,
                setup_pending: 0,
                captured: Cell::EMPTY,
                mover: Cell::EMPTY,
                live_men: 0,
            },
            history: Vec::with_capacity(256),
            board_squares: squares,
            changes: Changes::new(),
            pawn_cells,
        }
    }

    /// Computes the hash from scratch (the incremental one must always equal it).
    pub fn compute_hash(&self) -> u64 {
        let z = &self.variant.zobrist;
        let mut h = 0;
        for &sq in self.board_squares.iter() {
            let c = self.board[sq.index()];
            if c.is_piece() {
                h ^= z.cell(c, sq.index());
            }
        }
        for color in Color::ALL {
            for k in 0..self.variant.kind_count() {
                h ^= z.hand(color, PieceKind(k as u8), self.hands[color][k]);
            }
        }
        if self.side == Color::Black {
            h ^= z.black_to_move;
        }
        h ^= z.castling[self.st.castling as usize];
        if self.st.ep != NO_SQUARE {
            h ^= z.ep_file[self.st.ep.file() as usize];
        }
        h ^= z.setup[self.st.setup_pending as usize];
        h
    }

    /// Computes the pawn key from scratch (the incremental one must always equal it).
    pub fn compute_pawn_key(&self) -> u64 {
        let z = &self.variant.zobrist;
        let pawns = self.board_squares.iter().map(|&sq| (sq, self.board[sq.index()]));
        pawns.filter(|&(_, c)| self.is_pawn_cell(c)).fold(0, |key, (sq, c)| key ^ z.cell(c, sq.index()))
    }

    /// True when `cell` holds a pawn (of either colour).
    #[inline(always)]
    fn is_pawn_cell(&self, cell: Cell) -> bool {
        self.pawn_cells >> cell.0 & 1 != 0
    }

    /// Toggles a man on a square in the hash and, for a pawn, in the pawn key.
    #[inline(always)]
    fn toggle_key(&mut self, cell: Cell, sq: Square) {
        let key = self.variant.zobrist.cell(cell, sq.index());
        self.st.hash ^= key;
        if self.is_pawn_cell(cell) {
            self.st.pawn_key ^= key;
        }
    }

    #[inline]
    fn put(&mut self, sq: Square, cell: Cell) {
        self.board[sq.index()] = cell;
        self.toggle_key(cell, sq);
        self.record(Change { cell, place: Place::Board(sq), added: true });
    }

    #[inline]
    fn remove(&mut self, sq: Square) -> Cell {
        let cell = self.board[sq.index()];
        self.board[sq.index()] = Cell::EMPTY;
        self.toggle_key(cell, sq);
        self.record(Change { cell, place: Place::Board(sq), added: false });
        cell
    }

    /// Notes a change of the move being made. A move changes at most
    /// [`MAX_CHANGES`] places, so the list never overflows.
    #[inline(always)]
    fn record(&mut self, change: Change) {
        debug_assert!(!self.changes.is_full(), "more changes than a move makes");
        let _ = self.changes.try_push(change);
    }

    /// Adds one man to (delta 1) or takes one from (delta -1) a hand.
    #[inline]
    fn add_to_hand(&mut self, color: Color, kind: PieceKind, delta: i8) {
        let z = &self.variant.zobrist;
        let count = &mut self.hands[color][kind.index()];
        self.st.hash ^= z.hand(color, kind, *count);
        let before = *count;
        *count = count.wrapping_add(delta as u8);
        self.st.hash ^= z.hand(color, kind, *count);
        // The man arriving takes the next index; the one leaving is the last.
        let added = delta > 0;
        let index = if added { before } else { before.wrapping_sub(1) };
        self.record(Change { cell: Cell::piece(color, kind), place: Place::Hand(index), added });
    }

    /// True when no dead-position rule names `kind` (see [`StateInfo::live_men`]).
    #[inline]
    fn is_live(&self, kind: PieceKind) -> bool {
        self.variant.end.dead_kinds >> kind.0 & 1 == 0
    }

    /// Counts the men of live kinds on the board (see [`StateInfo::live_men`]).
    pub(crate) fn count_live_men(&self) -> u8 {
        let live = self.board_squares.iter().map(|sq| self.board[sq.index()]);
        live.filter(|c| c.is_piece() && self.is_live(c.kind())).count() as u8
    }

    /// A man taken off the board for good (captured): one live man fewer if it was one.
    #[inline]
    fn count_removed(&mut self, cell: Cell) {
        if cell.is_piece() && self.is_live(cell.kind()) {
            self.st.live_men -= 1;
        }
    }

    /// A man that comes onto the board (dropped or promoted to).
    #[inline]
    fn count_added(&mut self, kind: PieceKind) {
        if self.is_live(kind) {
            self.st.live_men += 1;
        }
    }

    /// A captured man goes to its owner's hand (converted) in drop variants.
    #[inline]
    fn captured_to_hand(&mut self, captured: Cell) {
        if self.variant.hands && captured.is_piece() {
            let kind = self.variant.capture_to_hand[captured.kind().index()];
            self.add_to_hand(captured.color(), kind, 1);
        }
    }

    #[inline]
    fn captured_from_hand(&mut self, captured: Cell) {
        if self.variant.hands && captured.is_piece() {
            let kind = self.variant.capture_to_hand[captured.kind().index()];
            let count = &mut self.hands[captured.color()][kind.index()];
            *count = count.wrapping_sub(1);
        }
    }

    /// Clears castling rights touched by a move from/to these squares.
    #[inline]
    fn update_castling(&mut self, from: Square, to: Square, mover: Cell) {
        if self.st.castling == 0 {
            return;
        }
        let mut rights = self.st.castling;
        if Some(mover.kind()) == self.variant.royal {
            rights &= !(3 << (2 * mover.color().index()));
        }
        for color in Color::ALL {
            for side in 0..2 {
                let rook = self.castle_rooks[color][side];
                if rook == from || rook == to {
                    rights &= !(1 << (2 * color.index() + side));
                }
            }
        }
        if rights != self.st.castling {
            let z = &self.variant.zobrist;
            self.st.hash ^= z.castling[self.st.castling as usize] ^ z.castling[rights as usize];
            self.st.castling = rights;
        }
    }

    /// Where king and rook end when castling with the rook on `rook`.
    pub(crate) fn castle_targets(&self, king: Square, rook: Square) -> Option<(Square, Square)> {
        let rule = self.variant.castling.as_ref()?;
        let side = usize::from(rook.file() > king.file());
        let shape = &self.variant.shape;
        Some((shape.square(rule.king_files[side], king.rank())?, shape.square(rule.rook_files[side], king.rank())?))
    }

    /// Plays a move (which must be pseudo-legal in this position).
    pub fn make(&mut self, m: Move) {
        self.history.push(self.st);
        self.changes.clear();
        let us = self.side;
        let z_ep = self.variant.zobrist.ep_file;
        if self.st.ep != NO_SQUARE {
            self.st.hash ^= z_ep[self.st.ep.file() as usize];
        }
        let prev_ep_victim = self.st.ep_victim;
        self.st.ep = NO_SQUARE;
        self.st.ep_victim = NO_SQUARE;
        self.st.captured = Cell::EMPTY;
        self.st.mover = match m.kind() {
            MoveKind::Drop => Cell::piece(us, m.piece()),
            _ => self.board[m.from().index()],
        };
        let (setup_move, ep_candidate) = self.move_men(m, us, prev_ep_victim);
        self.pass_turn(us, setup_move);
        if let Some((ep, victim)) = ep_candidate {
            // The e.p. test tries the capture (make and unmake): keep this move's changes.
            let changes = self.changes.clone();
            self.set_ep_if_capturable(ep, victim);
            self.changes = changes;
        }
    }

    /// The board, hand, king, castling and move-rule part of [`Position::make`]:
    /// returns whether it was a setup choice and, after a double step, the
    /// passed square with the man that may be taken en passant.
    #[inline(always)]
    fn move_men(&mut self, m: Move, us: Color, prev_ep_victim: Square) -> (bool, Option<(Square, Square)>) {
        let (from, to) = (m.from(), m.to());
        let mut setup_move = false;
        let mut ep_candidate = None;
        match m.kind() {
            MoveKind::Normal | MoveKind::DoublePush | MoveKind::Promotion => {
                let mover = self.remove(from);
                let captured = self.board[to.index()];
                if captured.is_piece() {
                    self.remove(to);
                    self.captured_to_hand(captured);
                    self.st.captured = captured;
                    self.count_removed(captured);
                }
                let placed = if m.kind() == MoveKind::Promotion {
                    self.count_removed(mover);
                    self.count_added(m.piece());
                    Cell::piece(us, m.piece())
                } else {
                    mover
                };
                self.put(to, placed);
                if Some(mover.kind()) == self.variant.royal {
                    self.kings[us] = to;
                }
                let resets = captured.is_piece()
                    || self.variant.end.reset_kinds >> mover.kind().0 & 1 != 0
                    || m.kind() != MoveKind::Normal;
                self.st.halfmove = if resets { 0 } else { self.st.halfmove + 1 };
                self.update_castling(from, to, mover);
                if m.kind() == MoveKind::DoublePush {
                    // The passed square is halfway for a lame double step.
                    let mid = Square(((from.0 as u16 + to.0 as u16) / 2) as u8);
                    ep_candidate = Some((mid, to));
                }
            }
            MoveKind::EnPassant => {
                let mover = self.remove(from);
                self.put(to, mover);
                let captured = self.remove(prev_ep_victim);
                self.captured_to_hand(captured);
                self.st.captured = captured;
                self.count_removed(captured);
                self.st.halfmove = 0;
            }
            MoveKind::Castle => {
                let (king_to, rook_to) = self.castle_targets(from, to).unwrap_or((from, to));
                let king = self.remove(from);
                let rook = self.remove(to);
                self.put(king_to, king);
                self.put(rook_to, rook);
                self.kings[us] = king_to;
                self.st.halfmove += 1;
                self.update_castling(from, to, king);
            }
            MoveKind::Drop => {
                self.put(to, Cell::piece(us, m.piece()));
                self.add_to_hand(us, m.piece(), -1);
                self.count_added(m.piece());
                self.st.halfmove = 0;
            }
            MoveKind::Swap => {
                let a = self.remove(from);
                let b = self.remove(to);
                self.put(to, a);
                self.put(from, b);
                if Some(a.kind()) == self.variant.royal {
                    self.kings[us] = to;
                } else if Some(b.kind()) == self.variant.royal {
                    self.kings[us] = from;
                }
                if self.st.setup_pending != 0 {
                    setup_move = true;
                } else {
                    self.st.halfmove += 1;
                }
            }
            MoveKind::Pass => setup_move = true,
        }
        (setup_move, ep_candidate)
    }

    /// Hands the move to the other side (or, in the setup phase, to whoever
    /// chooses next), with the move number and the hash.
    #[inline(always)]
    fn pass_turn(&mut self, us: Color, setup_move: bool) {
        let them = !us;
        let z = &self.variant.zobrist;
        if setup_move {
            // Setup plies do not count; after the last choice White plays first.
            let pending = self.st.setup_pending & !(1 << us.index());
            self.st.hash ^= z.setup[self.st.setup_pending as usize] ^ z.setup[pending as usize];
            self.st.setup_pending = pending;
            let next = if pending & (1 << them.index()) != 0 { them } else { Color::White };
            if next != us {
                self.side = next;
                self.st.hash ^= z.black_to_move;
            }
        } else {
            if us == Color::Black {
                self.st.fullmove += 1;
            }
            self.side = them;
            self.st.hash ^= z.black_to_move;
        }
    }

    /// Takes back `m`, which must be the last move made.
    pub fn unmake(&mut self, m: Move) {
        let Some(prev) = self.history.pop() else { return };
        let captured = self.st.captured;
        // Setup plies may not flip the side, so the mover's colour says who moved.
        self.side = self.st.mover.color();
        let us = self.side;
        let (from, to) = (m.from(), m.to());
        match m.kind() {
            MoveKind::Normal | MoveKind::DoublePush | MoveKind::Promotion => {
                let placed = self.board[to.index()];
                let mover = if m.kind() == MoveKind::Promotion { self.st.mover } else { placed };
                self.board[from.index()] = mover;
                self.board[to.index()] = captured;
                self.captured_from_hand(captured);
                if Some(mover.kind()) == self.variant.royal {
                    self.kings[us] = from;
                }
            }
            MoveKind::EnPassant => {
                self.board[from.index()] = self.board[to.index()];
                self.board[to.index()] = Cell::EMPTY;
                self.board[prev.ep_victim.index()] = captured;
                self.captured_from_hand(captured);
            }
            MoveKind::Castle => {
                let (king_to, rook_to) = self.castle_targets(from, to).unwrap_or((from, to));
                let king = self.board[king_to.index()];
                let rook = self.board[rook_to.index()];
                self.board[king_to.index()] = Cell::EMPTY;
                self.board[rook_to.index()] = Cell::EMPTY;
                self.board[from.index()] = king;
                self.board[to.index()] = rook;
                self.kings[us] = from;
            }
            MoveKind::Drop => {
                self.board[to.index()] = Cell::EMPTY;
                self.hands[us][m.piece().index()] += 1;
            }
            MoveKind::Swap => {
                let a = self.board[to.index()];
                let b = self.board[from.index()];
                self.board[from.index()] = a;
                self.board[to.index()] = b;
                if Some(a.kind()) == self.variant.royal {
                    self.kings[us] = from;
                } else if Some(b.kind()) == self.variant.royal {
                    self.kings[us] = to;
                }
            }
            MoveKind::Pass => {}
        }
        self.st = prev;
    }

    /// Passes the turn without moving (a null move, for search pruning only;
    /// never during a setup phase). The move-rule clock restarts so that
    /// repetition detection never looks across the pass.
    pub fn make_null(&mut self) {
        self.history.push(self.st);
        self.changes.clear();
        let z = &self.variant.zobrist;
        if self.st.ep != NO_SQUARE {
            self.st.hash ^= z.ep_file[self.st.ep.file() as usize];
        }
        self.st.ep = NO_SQUARE;
        self.st.ep_victim = NO_SQUARE;
        self.st.captured = Cell::EMPTY;
        self.st.halfmove = 0;
        self.st.hash ^= z.black_to_move;
        self.side = !self.side;
    }

    /// Takes back [`Position::make_null`].
    pub fn unmake_null(&mut self) {
        if let Some(prev) = self.history.pop() {
            self.st = prev;
            self.side = !self.side;
        }
    }

    /// Sets the e.p. square read from a FEN (kept only if a capture is legal).
    pub(crate) fn set_ep_from_fen(&mut self, ep: Square, victim: Square) {
        self.set_ep_if_capturable(ep, victim);
    }

    /// Keeps an e.p. square only if the side to move can legally capture on it.
    fn set_ep_if_capturable(&mut self, ep: Square, victim: Square) {
        self.st.ep = ep;
        self.st.ep_victim = victim;
        let found = self.ep_captors(ep).into_iter().any(|from| {
            let m = Move::new(from, ep, MoveKind::EnPassant, PieceKind(0));
            self.is_legal_full(m)
        });
        if found {
            self.st.hash ^= self.variant.zobrist.ep_file[ep.file() as usize];
        } else {
            self.st.ep = NO_SQUARE;
            self.st.ep_victim = NO_SQUARE;
        }
    }

    /// Men of the side to move that may take en passant on `ep`: men of an
    /// e.p. kind that attack it by a plain leap.
    pub(crate) fn ep_captors(&self, ep: Square) -> ArrayVec<Square, MAX_EP_CAPTORS> {
        let mut captors = ArrayVec::new();
        self.variant.motion.for_each_leaper(&self.board, ep, self.side, |from| {
            if self.variant.is_en_passant_kind(self.board[from.index()].kind()) {
                let pushed = captors.try_push(from);
                debug_assert!(pushed.is_ok(), "more e.p. captors than leaps");
            }
        });
        captors
    }

    /// Is `sq` attacked by a man of `by`? Knows every motion: leaps, lame
    /// leaps, riders, hoppers and bent riders.
    #[inline]
    pub fn attacked_by(&self, sq: Square, by: Color) -> bool {
        self.variant.motion.attacked(&self.board, sq, by)
    }

    /// Is `sq` attacked by a man of `by` through one of the attack rules in
    /// `mask` (see [`MotionTables::attacked_through`](crate::rules::motion::MotionTables::attacked_through))?
    #[inline]
    pub(crate) fn attacked_by_rules(&self, sq: Square, by: Color, mask: u128) -> bool {
        self.variant.motion.attacked_through(&self.board, sq, by, mask)
    }

    /// Replaces `out` with every man of `by` that could capture a man on
    /// `sq` now, each once: capturing rules only (a man that cannot capture
    /// attacks nothing), pawns by their capture steps, hoppers with the
    /// screen they jump (`Attacker::screen`). What stands on `sq` does not
    /// matter, so exchange evaluation may call it again after
    /// [`Position::set_cell_raw`] edits. Allocation-free.
    pub fn attackers(&self, sq: Square, by: Color, out: &mut AttackerList) {
        self.variant.motion.attackers(&self.board, sq, by, out);
    }

    /// The square of the man move `m` captures, if it captures (the
    /// en-passant victim stands off the target square).
    #[inline]
    pub fn victim_square(&self, m: Move) -> Option<Square> {
        match m.kind() {
            MoveKind::EnPassant => Some(self.st.ep_victim),
            MoveKind::Normal | MoveKind::Promotion | MoveKind::DoublePush if self.cell(m.to()).is_piece() => {
                Some(m.to())
            }
            _ => None,
        }
    }

    /// True when the side to move's royal piece is attacked.
    pub fn in_check(&self) -> bool {
        let us = self.side;
        self.kings[us] != NO_SQUARE && self.attacked_by(self.kings[us], !us)
    }

    /// True when the move `m` (legal here) checks the opponent. A quiet
    /// move or drop is tried on the bare board (the man lifted and set down,
    /// the attack test asked, the squares put back), which is right for
    /// every piece, hopper and drop, since the attack test reads only the
    /// board; anything else is played and taken back
    /// ([`Position::gives_check_played`]).
    pub fn gives_check(&mut self, m: Move) -> bool {
        match self.quiet_arrival(m) {
            Some((man, from)) => self.checks_on_bare_board(man, from, m.to()),
            None => self.gives_check_played(m),
        }
    }

    /// Where a quiet move or drop of the side to move could give check:
    /// worked out once for a node, so that [`Position::gives_check_among`]
    /// tests only those moves. None when the opponent has no king.
    pub fn check_candidates(&self) -> Option<CheckCandidates> {
        let king = self.kings[!self.side];
        (king != NO_SQUARE).then(|| self.variant.motion.check_candidates(&self.board, king, self.side))
    }

    /// [`Position::gives_check`], answered at once for a quiet move or drop
    /// that `candidates` (this position's) rule out.
    pub fn gives_check_among(&mut self, m: Move, candidates: &CheckCandidates) -> bool {
        match self.quiet_arrival(m) {
            Some((man, from)) => {
                candidates.may_check(man, from, m.to()) && self.checks_on_bare_board(man, from, m.to())
            }
            None => self.gives_check_played(m),
        }
    }

    /// For a quiet move or drop onto an empty square (out of setup): the man
    /// that arrives and the square it leaves (None for a drop). None for
    /// every other move, whose check is found by playing it.
    fn quiet_arrival(&self, m: Move) -> Option<(Cell, Option<Square>)> {
        if self.in_setup() || !self.board[m.to().index()].is_empty() {
            return None;
        }
        match m.kind() {
            MoveKind::Normal | MoveKind::DoublePush => Some((self.board[m.from().index()], Some(m.from()))),
            MoveKind::Drop => Some((Cell::piece(self.side, m.piece()), None)),
            _ => None,
        }
    }

    /// Whether `man`, leaving `from` for the empty square `to`, attacks the
    /// opponent's king: asked on the board with the man moved, which is
    /// then put back.
    fn checks_on_bare_board(&mut self, man: Cell, from: Option<Square>, to: Square) -> bool {
        let (us, king) = (self.side, self.kings[!self.side]);
        if king == NO_SQUARE {
            return false;
        }
        if let Some(from) = from {
            self.board[from.index()] = Cell::EMPTY;
        }
        self.board[to.index()] = man;
        let check = self.attacked_by(king, us);
        self.board[to.index()] = Cell::EMPTY;
        if let Some(from) = from {
            self.board[from.index()] = man;
        }
        check
    }

    /// [`Position::gives_check`] the slow way, for every move: played and
    /// taken back. The reference the fast path is tested against.
    pub fn gives_check_played(&mut self, m: Move) -> bool {
        self.make(m);
        let check = !self.in_setup() && self.in_check();
        self.unmake(m);
        check
    }

    /// True when `color`'s royal piece is attacked.
    pub fn king_attacked(&self, color: Color) -> bool {
        self.kings[color] != NO_SQUARE && self.attacked_by(self.kings[color], !color)
    }

    /// Plays `m` and checks that the mover's king is safe afterwards.
    pub(crate) fn is_legal_full(&mut self, m: Move) -> bool {
        let us = self.side;
        self.make(m);
        let ok = !self.king_attacked(us);
        self.unmake(m);
        ok
    }

    /// How many earlier positions (same side to move, within the move-rule
    /// window) have the current hash.
    pub fn repetitions(&self) -> u32 {
        let window = (self.st.halfmove as usize).min(self.history.len());
        let mut count = 0;
        let mut i = 2;
        while i <= window {
            if self.history[self.history.len() - i].hash == self.st.hash {
                count += 1;
            }
            i += 2;
        }
        count
    }
}
