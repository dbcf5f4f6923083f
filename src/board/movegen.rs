//! Move generation: every piece rule through the motion module's forward
//! walker, plus en passant, castling, drops, setup swaps and king succession;
//! and the legality filter with a fast path for moves that cannot expose the
//! king.

use crate::board::position::{Position, NO_SQUARE};
use crate::rules::geometry::Square;
use crate::rules::motion::for_each_target;
use crate::rules::moves::{Move, MoveKind, MoveList};
use crate::rules::piece::{Cell, Color, PieceKind};

/// Appends `m`. The loader bounds every variant's move count by the list's
/// capacity, so a full list is a bug: it is caught in debug builds, not
/// skipped over.
#[inline(always)]
fn push(out: &mut MoveList, m: Move) {
    let pushed = out.try_push(m);
    debug_assert!(pushed.is_ok(), "move list full");
}

impl Position {
    /// The move(s) of a `kind` man from `from` to `to`: one per promotion
    /// choice on the promotion rank, else one ordinary (or double-step) move.
    #[inline]
    fn emit_move(&self, from: Square, to: Square, kind: PieceKind, double: bool, mut emit: impl FnMut(Move)) {
        let us = self.side;
        let promotions = &self.variant.promotions[us][kind.index()];
        if !promotions.is_empty() && to.rank() == self.variant.promotion_rank[us] {
            for &p in promotions {
                emit(Move::new(from, to, MoveKind::Promotion, p));
            }
        } else {
            let kind = if double { MoveKind::DoublePush } else { MoveKind::Normal };
            emit(Move::new(from, to, kind, PieceKind(0)));
        }
    }

    /// All pseudo-legal moves (legal except that the king may be left attacked).
    pub fn generate_pseudo(&self, out: &mut MoveList) {
        if self.st.setup_pending != 0 {
            self.generate_setup(out);
            return;
        }
        self.generate_piece_moves::<false>(out);
        if self.st.ep != NO_SQUARE {
            self.generate_en_passant(out);
        }
        if self.st.castling >> (2 * self.side.index()) & 3 != 0 {
            self.generate_castling(out);
        }
        if self.variant.hands {
            self.generate_drops(out);
        }
    }

    /// The captures and promotions among the pseudo-legal moves, in the order
    /// [`Position::generate_pseudo`] lists them (quiescence searches only
    /// these: skipping the quiet moves, drops and castling here saves
    /// generating, scoring and sorting them at every quiescence node).
    /// Nothing during setup.
    pub fn generate_tactical(&self, out: &mut MoveList) {
        if self.st.setup_pending != 0 {
            return;
        }
        self.generate_piece_moves::<true>(out);
        if self.st.ep != NO_SQUARE {
            self.generate_en_passant(out);
        }
    }

    /// The moves of the men on the board by their rules: all of them, or
    /// with `TACTICAL` only captures and promotions (same order either way).
    #[inline(always)]
    fn generate_piece_moves<const TACTICAL: bool>(&self, out: &mut MoveList) {
        let us = self.side;
        for &from in self.board_squares.iter() {
            if self.board[from.index()].is_color(us) {
                self.for_each_man_move::<TACTICAL>(from, |m| push(out, m));
            }
        }
    }

    /// The moves by its rules of the side to move's man on `from`, in
    /// generation order (with `TACTICAL` only captures and promotions).
    #[inline(always)]
    pub(crate) fn for_each_man_move<const TACTICAL: bool>(&self, from: Square, mut emit: impl FnMut(Move)) {
        let them = !self.side;
        let board = &self.board;
        let variant = &*self.variant;
        let promotion_rank = variant.promotion_rank[self.side];
        let kind = board[from.index()].kind();
        let promotes = !variant.promotions[self.side][kind.index()].is_empty();
        for rule in variant.motion.rules(self.side, kind) {
            if TACTICAL && !rule.mode.captures() && !promotes {
                continue;
            }
            if rule.initial_only && variant.initial_ranks[self.side][kind.index()] >> from.rank() & 1 == 0 {
                continue;
            }
            for_each_target(board, from, rule, them, |to| {
                if !TACTICAL || board[to.index()].is_piece() || (promotes && to.rank() == promotion_rank) {
                    let double = rule.is_double_step() && variant.is_en_passant_kind(kind);
                    self.emit_move(from, to, kind, double, &mut emit);
                }
            });
        }
    }

    pub(crate) fn generate_en_passant(&self, out: &mut MoveList) {
        let ep = self.st.ep;
        for from in self.ep_captors(ep) {
            push(out, Move::new(from, ep, MoveKind::EnPassant, PieceKind(0)));
        }
    }

    pub(crate) fn generate_castling(&self, out: &mut MoveList) {
        let us = self.side;
        let king = self.kings[us];
        if king == NO_SQUARE {
            return;
        }
        for side in 0..2 {
            if self.st.castling >> (2 * us.index() + side) & 1 == 0 {
                continue;
            }
            let rook = self.castle_rooks[us][side];
            let Some((king_to, rook_to)) = self.castle_targets(king, rook) else { continue };
            // Every square on the king's and the rook's paths must be empty
            // (bar the two castling men themselves).
            let clear = |a: Square, b: Square| {
                let (lo, hi) = if a.0 <= b.0 { (a.0, b.0) } else { (b.0, a.0) };
                (lo..=hi).all(|s| {
                    let s = Square(s);
                    s == king || s == rook || self.board[s.index()].is_empty()
                })
            };
            if !clear(king, king_to) || !clear(rook, rook_to) {
                continue;
            }
            // The king may not castle out of or through check; its destination
            // is checked by the full legality test after the move.
            let them = !us;
            let (lo, hi) = if king.0 <= king_to.0 { (king.0, king_to.0) } else { (king_to.0, king.0) };
            if (lo..=hi).any(|s| Square(s) != king_to && self.attacked_by(Square(s), them)) {
                continue;
            }
            if king == king_to && self.attacked_by(king, them) {
                continue;
            }
            push(out, Move::new(king, rook, MoveKind::Castle, PieceKind(0)));
        }
    }

    fn generate_drops(&self, out: &mut MoveList) {
        let us = self.side;
        for k in 0..self.variant.kind_count() {
            if self.hands[us][k] == 0 {
                continue;
            }
            let forbidden = self.variant.drop_forbidden[us][k];
            for &sq in self.board_squares.iter() {
                if self.board[sq.index()].is_empty() && forbidden >> sq.rank() & 1 == 0 {
                    push(out, Move::new(NO_SQUARE, sq, MoveKind::Drop, PieceKind(k as u8)));
                }
            }
        }
    }

    /// Setup choices: each mover may swap with a partner on the back rank, or pass.
    pub(crate) fn generate_setup(&self, out: &mut MoveList) {
        let Some(rule) = self.variant.setup.as_ref() else { return };
        let us = self.side;
        let king = self.kings[us];
        if king == NO_SQUARE {
            return;
        }
        push(out, Move::new(king, king, MoveKind::Pass, PieceKind(0)));
        let rank = self.variant.absolute_rank(us, 1);
        let files = self.variant.shape.files;
        let royal = self.variant.royal;
        for fa in 0..files {
            let a_sq = Square::from_coords(fa, rank);
            let a = self.board[a_sq.index()];
            if !a.is_color(us) || rule.movers >> a.kind().0 & 1 == 0 {
                continue;
            }
            for fb in 0..files {
                let b_sq = Square::from_coords(fb, rank);
                let b = self.board[b_sq.index()];
                if fb == fa || !b.is_color(us) || rule.partners >> b.kind().0 & 1 == 0 || b.kind() == a.kind() {
                    continue;
                }
                // A swap of two movers is listed once: the royal (or else the
                // lower kind) is the one that "moves".
                if rule.movers >> b.kind().0 & 1 != 0 {
                    let b_first = Some(b.kind()) == royal || (Some(a.kind()) != royal && b.kind() < a.kind());
                    if b_first {
                        continue;
                    }
                }
                if let Some(bishop) = rule.opposite_colours {
                    let mut colours = [0u8; 2];
                    for f in 0..files {
                        let sq = Square::from_coords(f, rank);
                        let c = if sq == a_sq {
                            b
                        } else if sq == b_sq {
                            a
                        } else {
                            self.board[sq.index()]
                        };
                        if c.is_color(us) && c.kind() == bishop {
                            colours[usize::from(sq.is_dark())] += 1;
                        }
                    }
                    if colours[0] > 1 || colours[1] > 1 {
                        continue;
                    }
                }
                push(out, Move::new(a_sq, b_sq, MoveKind::Swap, PieceKind(0)));
            }
        }
    }

    /// Is the pseudo-legal move `m` legal? `in_check` must be the side to
    /// move's check status. Ordinary moves and drops are tested on the board
    /// alone (no make/unmake); when not in check only the attack rules whose
    /// path runs through the vacated square (or, for hoppers, the arrival
    /// square) are re-tested. Castling, e.p. and swaps use the full test.
    #[inline]
    pub fn is_legal(&mut self, m: Move, in_check: bool) -> bool {
        let us = self.side;
        let them = !us;
        let king = self.kings[us];
        if king == NO_SQUARE {
            return true;
        }
        let kind = m.kind();
        if !matches!(kind, MoveKind::Normal | MoveKind::DoublePush | MoveKind::Promotion | MoveKind::Drop) {
            return self.is_legal_full(m);
        }
        let (from, to) = (m.from(), m.to());
        let is_drop = kind == MoveKind::Drop;
        let king_moves = !is_drop && from == king;
        let mask = if in_check || king_moves {
            u128::MAX
        } else {
            let variant = &*self.variant;
            let (kx, ky) = (king.file() as i32, king.rank() as i32);
            let mut mask = variant.motion.hop_rules_through(them, to.file() as i32 - kx, to.rank() as i32 - ky);
            if !is_drop {
                mask |= variant.motion.rules_through(them, from.file() as i32 - kx, from.rank() as i32 - ky);
            }
            if mask == 0 {
                return true;
            }
            mask
        };
        // Play the move on the board only; occupancy is all the attack test reads.
        let mover = if is_drop { Cell::piece(us, m.piece()) } else { self.board[from.index()] };
        let captured = self.board[to.index()];
        if !is_drop {
            self.board[from.index()] = Cell::EMPTY;
        }
        self.board[to.index()] = mover;
        let target = if king_moves { to } else { king };
        let attacked = self.attacked_by_rules(target, them, mask);
        self.board[to.index()] = captured;
        if !is_drop {
            self.board[from.index()] = mover;
        }
        !attacked
    }

    /// All legal moves. In a succession variant a checkmated side with a safe
    /// joker gets the king-joker swaps as its only moves.
    pub fn generate_legal(&mut self, out: &mut MoveList) {
        out.clear();
        self.generate_pseudo(out);
        let in_check = self.st.setup_pending == 0 && self.in_check();
        if self.st.setup_pending == 0 {
            let king = self.kings[self.side];
            // Outside check, a move that neither leaves an exposed square nor
            // lands between the king and a hopper's screen is legal as it stands.
            let shortcut = !in_check && king != NO_SQUARE && self.variant.motion.lines_exact();
            let (leaving, arriving) =
                if shortcut { self.variant.motion.exposure(&self.board, king, !self.side) } else { Default::default() };
            let mut i = 0;
            while i < out.len() {
                let m = out[i];
                let safe = shortcut
                    && match m.kind() {
                        MoveKind::Normal | MoveKind::DoublePush | MoveKind::Promotion => {
                            m.from() != king && !leaving.contains(m.from()) && !arriving.contains(m.to())
                        }
                        MoveKind::Drop => !arriving.contains(m.to()),
                        _ => false,
                    };
                if safe || self.is_legal(m, in_check) {
                    i += 1;
                } else {
                    out.swap_remove(i);
                }
            }
        }
        if out.is_empty() && in_check {
            self.generate_succession(out);
        }
    }

    fn generate_succession(&mut self, out: &mut MoveList) {
        let Some(joker) = self.variant.succession else { return };
        let us = self.side;
        let king = self.kings[us];
        let joker_cell = Cell::piece(us, joker);
        let squares = self.board_squares.clone();
        for &sq in squares.iter() {
            if self.board[sq.index()] == joker_cell {
                let m = Move::new(king, sq, MoveKind::Swap, PieceKind(0));
                if self.is_legal_full(m) {
                    push(out, m);
                }
            }
        }
    }

    /// Number of legal moves (allocation-free).
    pub fn legal_move_count(&mut self) -> usize {
        let mut list = MoveList::new();
        self.generate_legal(&mut list);
        list.len()
    }

    /// The colour whose man stands on `sq`, if any.
    pub fn color_on(&self, sq: Square) -> Option<Color> {
        let c = self.board[sq.index()];
        c.is_piece().then(|| c.color())
    }
}
