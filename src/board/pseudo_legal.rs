//! Is a move from elsewhere (a transposition-table entry, a killer) one of
//! this position's pseudo-legal moves? Answered by generating only the moves
//! that could be it: those of the man on its origin, the drops of its kind,
//! castling, en passant or the setup choices; nothing is allocated.

use crate::board::position::{Position, NO_SQUARE};
use crate::rules::moves::{Move, MoveKind, MoveList};
use crate::rules::piece::PieceKind;

impl Position {
    /// True exactly when `m` is in the list [`Position::generate_pseudo`]
    /// gives (so any 32-bit pattern may be asked about). King successions
    /// are not pseudo-legal: only the legal generator offers them.
    pub fn is_pseudo_legal(&self, m: Move) -> bool {
        if self.st.setup_pending != 0 {
            if !matches!(m.kind(), MoveKind::Swap | MoveKind::Pass) {
                return false;
            }
            let mut list = MoveList::new();
            self.generate_setup(&mut list);
            return list.contains(&m);
        }
        match m.kind() {
            MoveKind::Normal | MoveKind::DoublePush | MoveKind::Promotion => {
                if !self.board[m.from().index()].is_color(self.side) {
                    return false;
                }
                let mut found = false;
                self.for_each_man_move::<false>(m.from(), |g| found |= g == m);
                found
            }
            MoveKind::EnPassant => {
                if self.st.ep == NO_SQUARE || m.to() != self.st.ep {
                    return false;
                }
                let mut list = MoveList::new();
                self.generate_en_passant(&mut list);
                list.contains(&m)
            }
            MoveKind::Castle => {
                if self.st.castling >> (2 * self.side.index()) & 3 == 0 || m.from() != self.kings[self.side] {
                    return false;
                }
                let mut list = MoveList::new();
                self.generate_castling(&mut list);
                list.contains(&m)
            }
            MoveKind::Drop => {
                let k = m.piece().index();
                self.variant.hands
                    && k < self.variant.kind_count()
                    && self.hands[self.side][k] != 0
                    && m == Move::new(NO_SQUARE, m.to(), MoveKind::Drop, PieceKind(k as u8))
                    && self.board_squares.contains(&m.to())
                    && self.board[m.to().index()].is_empty()
                    && self.variant.drop_forbidden[self.side][k] >> m.to().rank() & 1 == 0
            }
            MoveKind::Swap | MoveKind::Pass => false,
        }
    }
}
