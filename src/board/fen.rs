//! FEN in and out for every board size: multi-digit empty runs (`10`),
//! holdings in brackets (`[Qp]`), X-FEN and Shredder-FEN castling, and the
//! relocation field (7th) for positions inside a setup phase. Reading is two
//! steps: [`FenFields::parse`] reads the text, [`Position::from_fields`] checks the rules.

use std::fmt::Write as _;
use std::sync::Arc;

use crate::board::capacity::move_bound;
use crate::board::position::{Position, NO_SQUARE};
use crate::rules::geometry::{offset, Square};
use crate::rules::moves::MAX_MOVES;
use crate::rules::piece::{Cell, Color, PieceKind};
use crate::rules::variant::Variant;

/// Why a FEN was rejected. Messages quote the offending part.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    /// Nothing to parse.
    #[error("empty FEN")]
    Empty,
    /// Wrong number of ranks.
    #[error("FEN has {}, the {variant} board has {expected}", count(*.found, "rank"))]
    RankCount {
        /// Ranks in the FEN.
        found: usize,
        /// Ranks of the board.
        expected: u8,
        /// Variant name.
        variant: String,
    },
    /// A rank with the wrong number of squares.
    #[error("FEN rank {rank} has {}, the board has {}", count(*.found, "square"), count(usize::from(*.expected), "file"))]
    RankWidth {
        /// 1-based rank number.
        rank: usize,
        /// Squares described.
        found: usize,
        /// Files of the board.
        expected: u8,
    },
    /// A letter that is not a piece of this variant.
    #[error("unknown piece letter {0:?} in FEN")]
    UnknownPiece(char),
    /// Something that is not a letter, digit or '/'.
    #[error("unexpected character {0:?} in FEN board")]
    BadCharacter(char),
    /// Holdings where the variant has none, or bad holdings.
    #[error("bad holdings {0:?}")]
    BadHoldings(String),
    /// Side to move not `w` or `b`.
    #[error("side to move must be 'w' or 'b', not {0:?}")]
    BadSide(String),
    /// Unknown castling letter.
    #[error("bad castling field {0:?}")]
    BadCastling(String),
    /// Bad en-passant square.
    #[error("bad en-passant square {0:?}")]
    BadEnPassant(String),
    /// A clock that is not a number.
    #[error("bad move counter {0:?}")]
    BadCounter(String),
    /// Missing or extra royal pieces.
    #[error("{color} must have exactly one {piece} (found {count})")]
    RoyalCount {
        /// Colour name.
        color: &'static str,
        /// Royal piece name.
        piece: String,
        /// How many were found.
        count: usize,
    },
    /// A man that promotes stands on its promotion rank.
    #[error("{color} {piece} on {square} stands on its promotion rank (it must promote there)")]
    OnPromotionRank {
        /// Colour name.
        color: &'static str,
        /// Piece name.
        piece: String,
        /// The square.
        square: Square,
    },
    /// A man that only moves forward stands behind every rank it can reach.
    #[error(
        "{color} {piece} on {square} cannot be there: it moves only forward and never stands behind rank {lowest}"
    )]
    BehindItsRanks {
        /// Colour name.
        color: &'static str,
        /// Piece name.
        piece: String,
        /// The square.
        square: Square,
        /// The lowest rank (1-based, as on the board) it can stand on.
        lowest: u8,
    },
    /// Bad relocation (7th) field.
    #[error("bad setup field {0:?}")]
    BadSetup(String),
    /// More fields than a FEN has.
    #[error("unexpected text after the FEN: {0:?}")]
    TrailingText(String),
    /// The side not to move is in check.
    #[error("the side not to move is in check")]
    OpponentInCheck,
    /// More men than a move list has room for the moves of.
    #[error("too many moves: a position could have up to {bound}, a move list holds {capacity}")]
    TooManyMoves {
        /// The bound on the moves of positions reached from this one.
        bound: usize,
        /// The move list's capacity.
        capacity: usize,
    },
}

/// `n` and the noun, plural unless `n` is 1 ("1 rank", "3 ranks").
fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Men that promote (pawns) may not stand on their promotion rank, and,
/// when they only move forward, not behind the ranks where they start or may
/// be dropped or swapped to: a chess pawn on the 1st or 8th rank.
fn check_men_that_promote(pos: &Position) -> Result<(), FenError> {
    let variant = pos.variant();
    for &sq in pos.squares() {
        let cell = pos.cell(sq);
        if !cell.is_piece() {
            continue;
        }
        let (color, kind) = (cell.color(), cell.kind());
        if variant.promotions[color][kind.index()].is_empty() {
            continue;
        }
        let piece = || variant.pieces[kind.index()].name.clone();
        if sq.rank() == variant.promotion_rank[color] {
            return Err(FenError::OnPromotionRank { color: color.name(), piece: piece(), square: sq });
        }
        if let Some(lowest) = lowest_rank(variant, color, kind) {
            let behind = match color {
                Color::White => sq.rank() < lowest,
                Color::Black => sq.rank() > lowest,
            };
            if behind {
                return Err(FenError::BehindItsRanks {
                    color: color.name(),
                    piece: piece(),
                    square: sq,
                    lowest: lowest + 1,
                });
            }
        }
    }
    Ok(())
}

/// The absolute rank nearest `color`'s own side that a man of `kind` can
/// reach: None when it can move backward (or never enters the game). It
/// enters on its initial ranks (the start position's by default), by a drop
/// where drops are not forbidden, or by a setup swap on the first rank.
fn lowest_rank(variant: &Variant, color: Color, kind: PieceKind) -> Option<u8> {
    if !variant.pieces[kind.index()].rules.iter().all(|r| r.never_backward()) {
        return None;
    }
    let ranks = variant.shape.ranks;
    let mut entry = variant.initial_ranks[color][kind.index()];
    if variant.hands {
        entry |= !variant.drop_forbidden[color][kind.index()];
    }
    if variant.setup.as_ref().is_some_and(|s| (s.movers | s.partners) >> kind.0 & 1 != 0) {
        entry |= 1 << variant.absolute_rank(color, 1);
    }
    let entry = entry & ((1u32 << ranks) - 1) as u16;
    let forward = (0..ranks).filter(|&r| entry >> r & 1 != 0);
    match color {
        Color::White => forward.min(),
        Color::Black => forward.max(),
    }
}

/// A FEN read into its fields for a variant's board and letters, before any
/// rule is checked (shakmaty calls this `Setup`, a word taken here by the
/// setup phase): [`Position::from_fields`]
/// turns it into a position or says which rule it breaks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FenFields {
    /// The men on the board.
    pub men: Vec<(Square, Cell)>,
    /// The holdings field as written (without brackets), if the FEN has one.
    pub holdings: Option<String>,
    /// The men in hand, as the holdings field lists them.
    pub hand: Vec<(Color, PieceKind)>,
    /// The side to move.
    pub side: Color,
    /// The castling field (`-`, `KQkq`, or Shredder-FEN files).
    pub castling: String,
    /// The en-passant square, if the field names one.
    pub en_passant: Option<Square>,
    /// Plies since the last capture or pawn move.
    pub halfmove: u16,
    /// The move number.
    pub fullmove: u16,
    /// The setup (7th) field: which sides still choose (bit 0 White, bit 1
    /// Black) and the field as written; None when the FEN has no 7th field.
    pub setup_pending: Option<(u8, String)>,
}

impl FenFields {
    /// Reads the fields of `fen` for `variant`'s board and letters; missing
    /// fields take their defaults (White to move, no rights, clocks 0 and 1).
    pub fn parse(variant: &Variant, fen: &str) -> Result<FenFields, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let Some(&board_field) = fields.first() else { return Err(FenError::Empty) };
        if fields.len() > 7 {
            return Err(FenError::TrailingText(fields[7..].join(" ")));
        }
        let (rows, holdings) = split_holdings(board_field)?;
        let men = parse_board(variant, rows)?;
        let hand = match holdings {
            Some(h) => parse_holdings(variant, h)?,
            None => Vec::new(),
        };
        let side = match fields.get(1).copied().unwrap_or("w") {
            "w" | "W" => Color::White,
            "b" | "B" => Color::Black,
            other => return Err(FenError::BadSide(other.to_string())),
        };
        let castling = fields.get(2).copied().unwrap_or("-").to_string();
        let counter = |i: usize, default: u16| -> Result<u16, FenError> {
            match fields.get(i) {
                None => Ok(default),
                Some(t) => t.parse::<u16>().map_err(|_| FenError::BadCounter(t.to_string())),
            }
        };
        let (halfmove, fullmove) = (counter(4, 0)?, counter(5, 1)?.max(1));
        let setup_pending = fields.get(6).map(|f| parse_setup_field(f)).transpose()?;
        let ep_text = fields.get(3).copied().unwrap_or("-");
        let en_passant = match ep_text {
            "-" => None,
            text => Some(variant.shape.parse_square(text).ok_or_else(|| FenError::BadEnPassant(text.to_string()))?),
        };
        Ok(FenFields {
            men,
            holdings: holdings.map(str::to_string),
            hand,
            side,
            castling,
            en_passant,
            halfmove,
            fullmove,
            setup_pending,
        })
    }
}

/// The board part and the holdings (inside `[...]`) of the first field.
fn split_holdings(board_field: &str) -> Result<(&str, Option<&str>), FenError> {
    let Some(i) = board_field.find('[') else { return Ok((board_field, None)) };
    let rest = &board_field[i + 1..];
    let Some(rest) = rest.strip_suffix(']') else {
        return Err(FenError::BadHoldings(board_field[i..].to_string()));
    };
    Ok((&board_field[..i], Some(rest)))
}

/// The men of the board part: ranks from the top, multi-digit empty runs,
/// `~` (a crazyhouse promotion marker) ignored.
fn parse_board(variant: &Variant, rows_text: &str) -> Result<Vec<(Square, Cell)>, FenError> {
    let shape = variant.shape;
    let rows: Vec<&str> = rows_text.split('/').collect();
    if rows.len() != shape.ranks as usize {
        return Err(FenError::RankCount { found: rows.len(), expected: shape.ranks, variant: variant.name.clone() });
    }
    let mut men = Vec::new();
    for (i, row) in rows.iter().enumerate() {
        let rank = shape.ranks as usize - 1 - i;
        let mut file = 0usize;
        let mut chars = row.chars().peekable();
        while let Some(c) = chars.next() {
            if let Some(d) = c.to_digit(10) {
                let mut n = d as usize;
                while let Some(d2) = chars.peek().and_then(|c| c.to_digit(10)) {
                    n = n * 10 + d2 as usize;
                    chars.next();
                    if n > 100 {
                        break;
                    }
                }
                if n == 0 {
                    return Err(FenError::BadCharacter('0'));
                }
                file += n;
            } else if c == '~' {
                // Promoted marker (crazyhouse FENs); promoted men do not revert here.
            } else if c.is_ascii_alphabetic() {
                let kind = variant.kind_of_letter(c).ok_or(FenError::UnknownPiece(c))?;
                let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
                if file < shape.files as usize {
                    men.push((Square::from_coords(file as u8, rank as u8), Cell::piece(color, kind)));
                }
                file += 1;
            } else {
                return Err(FenError::BadCharacter(c));
            }
            if file > shape.files as usize {
                break;
            }
        }
        if file != shape.files as usize {
            return Err(FenError::RankWidth { rank: rank + 1, found: file, expected: shape.files });
        }
    }
    Ok(men)
}

/// The men of a holdings field (`-` or letters).
fn parse_holdings(variant: &Variant, h: &str) -> Result<Vec<(Color, PieceKind)>, FenError> {
    h.chars()
        .filter(|&c| c != '-')
        .map(|c| {
            let kind = variant.kind_of_letter(c).ok_or_else(|| FenError::BadHoldings(h.to_string()))?;
            let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
            Ok((color, kind))
        })
        .collect()
}

/// The setup field: `-`, or `S` (White still chooses) and `s` (Black), once each.
fn parse_setup_field(field: &str) -> Result<(u8, String), FenError> {
    let mut pending = 0u8;
    if field != "-" {
        for c in field.chars() {
            match c {
                'S' if pending & 1 == 0 => pending |= 1,
                's' if pending & 2 == 0 => pending |= 2,
                _ => return Err(FenError::BadSetup(field.to_string())),
            }
        }
    }
    Ok((pending, field.to_string()))
}

/// Exactly one royal man a side, where the variant has a royal kind.
fn check_royal_count(pos: &Position) -> Result<(), FenError> {
    let variant = pos.variant();
    let Some(royal) = variant.royal else { return Ok(()) };
    for color in Color::ALL {
        let count = pos.board_squares.iter().filter(|s| pos.board[s.index()] == Cell::piece(color, royal)).count();
        if count != 1 {
            return Err(FenError::RoyalCount {
                color: color.name(),
                piece: variant.pieces[royal.index()].name.clone(),
                count,
            });
        }
    }
    Ok(())
}

/// Puts the men in hand: only where the variant has hands, never a royal
/// man, at most 64 of a kind.
fn place_holdings(pos: &mut Position, fields: &FenFields) -> Result<(), FenError> {
    let Some(h) = fields.holdings.as_deref() else { return Ok(()) };
    let variant = Arc::clone(pos.variant());
    if !variant.hands && !h.is_empty() && h != "-" {
        return Err(FenError::BadHoldings(h.to_string()));
    }
    for &(color, kind) in &fields.hand {
        if Some(kind) == variant.royal {
            return Err(FenError::BadHoldings(h.to_string()));
        }
        let count = &mut pos.hands[color][kind.index()];
        if *count >= 64 {
            return Err(FenError::BadHoldings(h.to_string()));
        }
        *count += 1;
    }
    Ok(())
}

/// The castling rights of the field (X-FEN `KQkq` or Shredder-FEN files):
/// rights without a rook, or with the king off its home rank, are dropped,
/// as GUIs expect.
fn place_castling_rights(pos: &mut Position, castling: &str) -> Result<(), FenError> {
    if castling == "-" {
        return Ok(());
    }
    let variant = Arc::clone(pos.variant());
    let Some(rule) = variant.castling.as_ref() else {
        return Err(FenError::BadCastling(castling.to_string()));
    };
    let files = variant.shape.files;
    for c in castling.chars() {
        let color = if c.is_ascii_uppercase() { Color::White } else { Color::Black };
        let king = pos.kings[color];
        if king == NO_SQUARE {
            continue;
        }
        let rook_cell = Cell::piece(color, rule.rook);
        let on_rank = |f: u8| Square::from_coords(f, king.rank());
        let rook = match c.to_ascii_lowercase() {
            'k' => (king.file() + 1..files).rev().map(on_rank).find(|s| pos.board[s.index()] == rook_cell),
            'q' => (0..king.file()).map(on_rank).find(|s| pos.board[s.index()] == rook_cell),
            f @ 'a'..='j' if (f as u8 - b'a') < files => {
                Some(on_rank(f as u8 - b'a')).filter(|s| pos.board[s.index()] == rook_cell)
            }
            _ => return Err(FenError::BadCastling(castling.to_string())),
        };
        let home = variant.absolute_rank(color, 1);
        if let Some(rook) = rook.filter(|_| king.rank() == home) {
            let side = usize::from(rook.file() > king.file());
            pos.castle_rooks[color][side] = rook;
            pos.st.castling |= 1 << (2 * color.index() + side);
        }
    }
    Ok(())
}

/// A setup field only in a variant with a setup phase, and naming a side
/// that may choose now: the side to move (or both, when the first chooser is to move).
fn check_setup_field(pos: &Position, pending: u8, field: &str) -> Result<(), FenError> {
    let variant = pos.variant();
    if pending != 0 && variant.setup.is_none() {
        return Err(FenError::BadSetup(field.to_string()));
    }
    if let Some(rule) = variant.setup.as_ref() {
        let ok = match pending {
            0 => true,
            3 => pos.side == rule.first,
            1 => pos.side == Color::White,
            _ => pos.side == Color::Black,
        };
        if !ok {
            return Err(FenError::BadSetup(format!("{field} with {} to move", pos.side.name())));
        }
    }
    Ok(())
}

impl Position {
    /// The variant's start position.
    pub fn startpos(variant: Arc<Variant>) -> Result<Position, FenError> {
        let fen = variant.start_fen.clone();
        Position::from_fen(variant, &fen)
    }

    /// Parses a FEN for `variant`: [`FenFields::parse`] reads its fields, then
    /// [`Position::from_fields`] checks them against the rules.
    ///
    /// ```
    /// use menagerie::board::registry::Registry;
    /// use menagerie::board::position::Position;
    /// let reg = Registry::builtin();
    /// let pos = Position::from_fen(reg.get("capablanca").unwrap(),
    ///     "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1").unwrap();
    /// assert_eq!(pos.to_fen(), "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1");
    /// ```
    pub fn from_fen(variant: Arc<Variant>, fen: &str) -> Result<Position, FenError> {
        let fields = FenFields::parse(&variant, fen)?;
        Position::from_fields(variant, &fields)
    }

    /// The position `fields` describes, once it is legal in `variant`: one
    /// royal man a side, no man on a rank it cannot stand on, holdings only
    /// where the variant has hands, castling rights for rooks that are there,
    /// a setup field that fits the side to move, the side not to move not in
    /// check, and no more moves than a move list holds.
    pub fn from_fields(variant: Arc<Variant>, fields: &FenFields) -> Result<Position, FenError> {
        let mut pos = Position::empty(Arc::clone(&variant));
        for &(sq, cell) in &fields.men {
            pos.board[sq.index()] = cell;
            if Some(cell.kind()) == variant.royal {
                pos.kings[cell.color()] = sq;
            }
        }
        check_men_that_promote(&pos)?;
        check_royal_count(&pos)?;
        place_holdings(&mut pos, fields)?;
        pos.side = fields.side;
        place_castling_rights(&mut pos, &fields.castling)?;
        pos.st.halfmove = fields.halfmove;
        pos.st.fullmove = fields.fullmove;
        if let Some((pending, field)) = &fields.setup_pending {
            check_setup_field(&pos, *pending, field)?;
            pos.st.setup_pending = *pending;
        }
        if pos.king_attacked(!pos.side) && pos.st.setup_pending == 0 {
            return Err(FenError::OpponentInCheck);
        }
        // En passant: accepted after any double step, kept only if a capture is legal.
        pos.st.hash = pos.compute_hash();
        pos.st.pawn_key = pos.compute_pawn_key();
        pos.st.live_men = pos.count_live_men();
        if let Some(ep) = fields.en_passant {
            // The man that stepped twice stands one rank past the square, in its own forward direction.
            let victim = ep.offset(offset(0, (!pos.side).forward()));
            let victim_cell = pos.board[victim.index()];
            if pos.board[ep.index()].is_empty()
                && victim_cell.is_color(!pos.side)
                && variant.is_en_passant_kind(victim_cell.kind())
            {
                pos.set_ep_from_fen(ep, victim);
            }
        }
        debug_assert_eq!(pos.st.hash, pos.compute_hash());
        // Refuse what could overflow a move list rather than drop moves.
        let bound = move_bound(&pos);
        if bound > MAX_MOVES {
            return Err(FenError::TooManyMoves { bound, capacity: MAX_MOVES });
        }
        Ok(pos)
    }

    /// Writes the position as FEN (holdings for drop variants, the setup field for setup variants).
    pub fn to_fen(&self) -> String {
        let v = &*self.variant;
        let mut s = String::new();
        for rank in (0..v.shape.ranks).rev() {
            let mut empty = 0;
            for file in 0..v.shape.files {
                let c = self.board[Square::from_coords(file, rank).index()];
                if c.is_piece() {
                    if empty > 0 {
                        let _ = write!(s, "{empty}");
                        empty = 0;
                    }
                    s.push(v.cell_letter(c));
                } else {
                    empty += 1;
                }
            }
            if empty > 0 {
                let _ = write!(s, "{empty}");
            }
            if rank > 0 {
                s.push('/');
            }
        }
        if v.hands {
            s.push('[');
            for color in Color::ALL {
                for k in 0..v.kind_count() {
                    let cell = Cell::piece(color, PieceKind(k as u8));
                    for _ in 0..self.hands[color][k] {
                        s.push(v.cell_letter(cell));
                    }
                }
            }
            s.push(']');
        }
        s.push_str(if self.side == Color::White { " w " } else { " b " });
        s.push_str(&self.castling_text());
        let _ = write!(s, " {}", if self.st.ep == NO_SQUARE { "-".to_string() } else { self.st.ep.to_string() });
        let _ = write!(s, " {} {}", self.st.halfmove, self.st.fullmove);
        if v.setup.is_some() {
            s.push(' ');
            match self.st.setup_pending {
                0 => s.push('-'),
                p => {
                    if p & 1 != 0 {
                        s.push('S');
                    }
                    if p & 2 != 0 {
                        s.push('s');
                    }
                }
            }
        }
        s
    }

    fn castling_text(&self) -> String {
        let v = &*self.variant;
        let mut s = String::new();
        for color in Color::ALL {
            for side in [1usize, 0] {
                if self.st.castling >> (2 * color.index() + side) & 1 == 0 {
                    continue;
                }
                let rook = self.castle_rooks[color][side];
                let king = self.kings[color];
                let Some(rule) = v.castling.as_ref() else { continue };
                let rook_cell = Cell::piece(color, rule.rook);
                // X-FEN K/Q when the rook is the outermost one on its side, else Shredder letters.
                let outer = if side == 1 {
                    (rook.file() + 1..v.shape.files)
                        .all(|f| self.board[Square::from_coords(f, rook.rank()).index()] != rook_cell)
                } else {
                    (0..rook.file()).all(|f| self.board[Square::from_coords(f, rook.rank()).index()] != rook_cell)
                };
                let letter = if outer || king == NO_SQUARE {
                    if side == 1 {
                        'K'
                    } else {
                        'Q'
                    }
                } else {
                    (b'A' + rook.file()) as char
                };
                s.push(if color == Color::White { letter } else { letter.to_ascii_lowercase() });
            }
        }
        if s.is_empty() {
            s.push('-');
        }
        s
    }
}
