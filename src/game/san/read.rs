//! Reads SAN as [`super::move_to_san`] writes it, and looser forms
//! (`Ng1f3`, `e8Q`, `0-0`, check marks optional, UCI text), saying why
//! text is refused: not a move, illegal, or ambiguous with the candidates.

use crate::board::notation::MoveError;
use crate::board::position::Position;
use crate::rules::geometry::Square;
use crate::rules::moves::{Move, MoveKind, MoveList};
use crate::rules::piece::PieceKind;

use super::write::{is_board_move, is_capture, move_to_san, pawn_kind};

/// Why text is not one legal move.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SanError {
    /// Neither SAN nor UCI move syntax.
    #[error("not a move: {0:?}")]
    NotAMove(String),
    /// Move syntax, but no legal move fits it.
    #[error("illegal move {0:?}")]
    Illegal(String),
    /// More than one legal move fits it (their SAN listed).
    #[error("ambiguous move {text:?}: {}", candidates.join(" or "))]
    Ambiguous {
        /// The text as given.
        text: String,
        /// The SAN of every move that fits it.
        candidates: Vec<String>,
    },
}

impl SanError {
    /// The reason alone, to follow "move 3 (Nd2) is ": `illegal`,
    /// `not a move`, `ambiguous: Nbd2 or Nfd2`.
    pub fn reason(&self) -> String {
        match self {
            SanError::NotAMove(_) => "not a move".to_string(),
            SanError::Illegal(_) => "illegal".to_string(),
            SanError::Ambiguous { candidates, .. } => format!("ambiguous: {}", candidates.join(" or ")),
        }
    }
}

/// SAN text taken apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SanText {
    Castle {
        king_side: bool,
    },
    Drop {
        kind: PieceKind,
        to: Square,
    },
    Board {
        kind: Option<PieceKind>,
        file: Option<u8>,
        rank: Option<u8>,
        capture: bool,
        to: Square,
        promotion: Option<PieceKind>,
    },
}

/// Takes SAN apart; None when it is not SAN syntax for this variant.
fn read(pos: &Position, text: &str) -> Option<SanText> {
    let v = pos.variant();
    let shape = v.shape;
    match text {
        "O-O" | "0-0" => return Some(SanText::Castle { king_side: true }),
        "O-O-O" | "0-0-0" => return Some(SanText::Castle { king_side: false }),
        _ => {}
    }
    if let Some((piece, square)) = text.split_once('@') {
        let mut letters = piece.chars();
        let (Some(letter), None) = (letters.next(), letters.next()) else { return None };
        return Some(SanText::Drop { kind: v.kind_of_letter(letter)?, to: shape.parse_square(square)? });
    }
    // A leading capital names the man (`P` the pawn); none means the pawn.
    let (kind, rest) = match text.chars().next() {
        Some(c) if c.is_ascii_uppercase() => (Some(v.kind_of_letter(c)?), &text[1..]),
        _ => (None, text),
    };
    // A promotion: `=Q` or a trailing capital.
    let (rest, promotion) = match rest.split_once('=') {
        Some((core, letter)) => {
            let mut letters = letter.chars();
            let (Some(l), None) = (letters.next(), letters.next()) else { return None };
            (core, Some(v.kind_of_letter(l)?))
        }
        None => match rest.chars().last() {
            Some(c) if c.is_ascii_uppercase() => (&rest[..rest.len() - 1], Some(v.kind_of_letter(c)?)),
            _ => (rest, None),
        },
    };
    let capture = rest.contains(['x', ':']);
    let core: String = rest.chars().filter(|c| !matches!(c, 'x' | ':' | '-')).collect();
    // The destination is the last square; what precedes it disambiguates.
    let at = core.rfind(|c: char| c.is_ascii_lowercase())?;
    let to = shape.parse_square(&core[at..])?;
    let origin = &core[..at];
    let (file, rank) = if origin.is_empty() {
        (None, None)
    } else if origin.len() == 1 && origin.as_bytes()[0].is_ascii_lowercase() {
        let file = origin.as_bytes()[0] - b'a';
        (file < shape.files).then_some((Some(file), None))?
    } else if origin.bytes().all(|b| b.is_ascii_digit()) {
        let rank: u8 = origin.parse().ok()?;
        (1..=shape.ranks).contains(&rank).then_some((None, Some(rank - 1)))?
    } else {
        let from = shape.parse_square(origin)?;
        (Some(from.file()), Some(from.rank()))
    };
    Some(SanText::Board { kind, file, rank, capture, to, promotion })
}

/// The kinds a letterless SAN may name: the pawn, or (`legacy`) the other
/// men that promote or take en passant, which older SAN left letterless.
fn letterless_kinds(pos: &Position, legacy: bool) -> u32 {
    let v = pos.variant();
    let pawn = pawn_kind(v);
    if !legacy {
        return pawn.map_or(0, |k| 1 << k.0);
    }
    let promotes = &v.promotions[pos.side_to_move()];
    (0..v.kind_count() as u8)
        .map(PieceKind)
        .filter(|&k| Some(k) != pawn)
        .filter(|&k| v.is_en_passant_kind(k) || promotes.get(k.index()).is_some_and(|p| !p.is_empty()))
        .fold(0, |set, k| set | 1 << k.0)
}

/// True when legal move `m` fits `san` (a letterless one when the man's kind
/// is in `letterless`; a promotion only when named, unless `any_promotion`).
fn fits(pos: &Position, m: Move, san: SanText, letterless: u32, any_promotion: bool) -> bool {
    match san {
        SanText::Castle { king_side } => m.kind() == MoveKind::Castle && (m.to().file() > m.from().file()) == king_side,
        SanText::Drop { kind, to } => m.kind() == MoveKind::Drop && m.piece() == kind && m.to() == to,
        SanText::Board { kind, file, rank, capture, to, promotion } => {
            let cell = pos.cell(m.from());
            let promotion_fits = match promotion {
                Some(p) => m.kind() == MoveKind::Promotion && m.piece() == p,
                None => any_promotion || m.kind() != MoveKind::Promotion,
            };
            is_board_move(m)
                && m.to() == to
                && cell.is_piece()
                && kind.map_or(letterless >> cell.kind().0 & 1 != 0, |k| k == cell.kind())
                && file.is_none_or(|f| f == m.from().file())
                && rank.is_none_or(|r| r == m.from().rank())
                && (!capture || is_capture(pos, m))
                && promotion_fits
        }
    }
}

/// Finds the legal move written as SAN (as [`move_to_san`] writes it, or
/// looser: check marks, `x` and `=` optional, `0-0`, more disambiguation
/// than needed) or as UCI text. A promotion written without its man fits
/// when only one promotion does; a letterless move no pawn makes is read as
/// a promoting man's (older SAN wrote Clash 5's `Sg8` as `fg8`).
pub fn parse_san(pos: &mut Position, text: &str) -> Result<Move, SanError> {
    let plain = text.trim().trim_end_matches(['+', '#', '!', '?']);
    let Some(san) = read(pos, plain) else {
        return pos.parse_move(plain).map_err(|e| match e {
            MoveError::Syntax(_) => SanError::NotAMove(text.to_string()),
            MoveError::Illegal(_) => SanError::Illegal(text.to_string()),
        });
    };
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    // Looser readings only where the plain one fits nothing.
    let mut found = Vec::new();
    for (legacy, any_promotion) in [(false, false), (false, true), (true, false), (true, true)] {
        let letterless = letterless_kinds(pos, legacy);
        found.extend(list.iter().copied().filter(|&m| fits(pos, m, san, letterless, any_promotion)));
        if !found.is_empty() {
            break;
        }
    }
    match found.as_slice() {
        [m] => Ok(*m),
        // UCI text that is also SAN syntax (`e1g1` castling, a swap).
        [] => pos.parse_move(plain).map_err(|_| SanError::Illegal(text.to_string())),
        _ => Err(SanError::Ambiguous {
            text: text.to_string(),
            candidates: found.into_iter().map(|m| move_to_san(pos, m)).collect(),
        }),
    }
}
