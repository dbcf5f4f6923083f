//! A variant: board, pieces (compiled from Betza), promotion, drops, setup,
//! castling and end-of-game rules. Immutable once loaded; shared by `Arc`.
//! The declared rules live here; what the board derives from the piece rules
//! is in [`MotionTables`]. How a variant is evaluated is no part of it: the
//! catalogue pairs each variant with its evaluation data.

pub mod describe;
pub mod parse;

use crate::rules::geometry::BoardShape;
use crate::rules::motion::{MotionTables, MoveRule};
use crate::rules::piece::{ByColor, Cell, Color, PieceKind, MAX_KINDS};
use crate::rules::zobrist::Zobrist;

pub use parse::{VariantError, VariantErrorKind};

/// A piece type as declared in a variant file.
#[derive(Clone, Debug)]
pub struct PieceDef {
    /// Upper-case FEN letter (White's; Black's is lower case).
    pub letter: char,
    /// Human name.
    pub name: String,
    /// Material value in centipawns.
    pub value: i32,
    /// The Betza text it was compiled from.
    pub betza: String,
    /// Colour-neutral rules (White's view).
    pub rules: Vec<MoveRule>,
    /// Betza string to send to XBoard when it differs from `betza`.
    pub xboard_betza: Option<String>,
}

/// Castling geometry: where king and rook end, and which piece is the rook.
#[derive(Clone, Debug)]
pub struct CastlingRule {
    /// King destination files: [queen side, king side].
    pub king_files: [u8; 2],
    /// Rook destination files: [queen side, king side].
    pub rook_files: [u8; 2],
    /// The piece that castles with the king.
    pub rook: PieceKind,
    /// Always write castling as king-takes-rook (Chess960 style) in UCI.
    pub king_takes_rook: bool,
}

/// The pre-game swap phase (Capablanca Relocation).
#[derive(Clone, Debug)]
pub struct SetupRule {
    /// Kinds that may move onto a partner to swap with it.
    pub movers: u32,
    /// Kinds a mover may swap with.
    pub partners: u32,
    /// Which side chooses first.
    pub first: Color,
    /// A kind whose two men must stand on opposite-coloured squares afterwards.
    pub opposite_colours: Option<PieceKind>,
}

/// How a drawn or won game is decided (used by search and the match arbiter).
#[derive(Clone, Debug)]
pub struct EndRules {
    /// Positions repeated this many times draw.
    pub repetition: u32,
    /// Moves (per side) without capture, pawn move or drop that draw; 0 = never.
    pub move_rule: u32,
    /// Kinds whose moves reset the move-rule counter (pawns).
    pub reset_kinds: u32,
    /// The material with which the position is dead, drawn at once (`dead`).
    pub dead: Vec<DeadRule>,
    /// The kinds some dead rule names: while a man of another kind is on
    /// the board, no position is dead.
    pub dead_kinds: u32,
}

/// The men of one side in a dead-position rule: per kind, how many (or at
/// least how many, for the kinds in `more`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadMen {
    /// Men per kind.
    pub counts: [u8; MAX_KINDS],
    /// Kinds marked `*`: any number beyond `counts`.
    pub more: u32,
}

impl DeadMen {
    /// True when `men` (a side's men per kind) fits.
    pub fn fits(&self, men: &[u8; MAX_KINDS]) -> bool {
        self.counts.iter().zip(men).enumerate().all(
            |(k, (&want, &have))| {
                if self.more >> k & 1 != 0 {
                    have >= want
                } else {
                    have == want
                }
            },
        )
    }

    /// The kinds it names.
    pub fn kinds(&self) -> u32 {
        self.counts.iter().enumerate().filter(|(_, &n)| n > 0).fold(self.more, |set, (k, _)| set | 1 << k)
    }
}

/// A dead position (`dead KB v K`): no sequence of legal moves can mate, so
/// the game is drawn as soon as the men on the board are exactly these (either
/// side may hold either half) and no man is in hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeadRule {
    /// The two halves, in the order written.
    pub sides: [DeadMen; 2],
    /// Every man but the royal ones must stand on squares of one colour
    /// (`same-colour`: bishops that never meet the other colour).
    pub same_colour: bool,
}

impl DeadRule {
    /// True when the men of the two colours (per kind) fit the rule's halves, either way round.
    pub fn fits(&self, white: &[u8; MAX_KINDS], black: &[u8; MAX_KINDS]) -> bool {
        let [a, b] = &self.sides;
        (a.fits(white) && b.fits(black)) || (a.fits(black) && b.fits(white))
    }
}

/// A fully loaded variant.
#[derive(Debug)]
pub struct Variant {
    /// Lower-case name (`capablanca`).
    pub name: String,
    /// One-line description.
    pub description: String,
    /// Board size.
    pub shape: BoardShape,
    /// Start position FEN.
    pub start_fen: String,
    /// Piece types in declaration order.
    pub pieces: Vec<PieceDef>,
    /// The royal kind (checkmate target).
    pub royal: Option<PieceKind>,
    /// The piece rules compiled for the board, with the attack and
    /// legality-shortcut tables derived from them.
    pub motion: MotionTables,
    /// Per colour and kind, the most moves one man can have on this board
    /// (the move-count bound's table, computed on first use: capacity.rs).
    pub(crate) most_moves: std::sync::OnceLock<ByColor<Vec<usize>>>,
    /// Per colour, per kind: bitmask of absolute ranks where `i` moves apply.
    pub initial_ranks: ByColor<[u16; MAX_KINDS]>,
    /// Per colour, per kind: promotion choices (empty = does not promote).
    pub promotions: ByColor<Vec<Vec<PieceKind>>>,
    /// Per colour: absolute rank on which promotion happens.
    pub promotion_rank: ByColor<u8>,
    /// Kinds whose double step creates an en-passant square and which capture en passant.
    pub en_passant: u32,
    /// Castling, if any.
    pub castling: Option<CastlingRule>,
    /// True when captured men go to a hand and can be dropped.
    pub hands: bool,
    /// A captured man of kind k enters its owner's hand as `capture_to_hand[k]`.
    pub capture_to_hand: Vec<PieceKind>,
    /// Per colour, per kind: bitmask of absolute ranks where drops are forbidden.
    pub drop_forbidden: ByColor<[u16; MAX_KINDS]>,
    /// The setup phase, if any.
    pub setup: Option<SetupRule>,
    /// King-succession piece (Joker), if any.
    pub succession: Option<PieceKind>,
    /// Draw rules.
    pub end: EndRules,
    /// Variant name XBoard knows as parent (for `setup`), if any.
    pub xboard_parent: Option<String>,
    /// Zobrist keys.
    pub zobrist: Zobrist,
    letter_map: [Option<PieceKind>; 128],
}

impl Variant {
    /// Whether men of `kind`, of either colour, promote.
    pub fn promotes(&self, kind: PieceKind) -> bool {
        Color::ALL.iter().any(|&c| self.promotions[c].get(kind.0 as usize).is_some_and(|p| !p.is_empty()))
    }

    /// The kind written with `letter` (either case), if any.
    pub fn kind_of_letter(&self, letter: char) -> Option<PieceKind> {
        let upper = letter.to_ascii_uppercase();
        if !upper.is_ascii() {
            return None;
        }
        self.letter_map[upper as usize]
    }

    /// The FEN letter of a cell.
    pub fn cell_letter(&self, cell: Cell) -> char {
        let upper = self.pieces[cell.kind().index()].letter;
        match cell.color() {
            Color::White => upper,
            Color::Black => upper.to_ascii_lowercase(),
        }
    }

    /// Number of piece kinds.
    pub fn kind_count(&self) -> usize {
        self.pieces.len()
    }

    /// True when `kind` may capture or be captured en passant.
    #[inline]
    pub fn is_en_passant_kind(&self, kind: PieceKind) -> bool {
        self.en_passant >> kind.0 & 1 != 0
    }

    /// Absolute rank index of relative rank `relative` (1-based from `color`'s side).
    pub fn absolute_rank(&self, color: Color, relative: u8) -> u8 {
        match color {
            Color::White => relative - 1,
            Color::Black => self.shape.ranks - relative,
        }
    }

    /// Builds a variant (with its motion tables and Zobrist keys) from its declared parts.
    pub(crate) fn build(spec: parse::VariantSpec) -> Variant {
        let shape = spec.shape;
        let kinds = spec.pieces.len();
        let mut letter_map = [None; 128];
        for (i, p) in spec.pieces.iter().enumerate() {
            letter_map[p.letter as usize] = Some(PieceKind(i as u8));
        }
        let motion = MotionTables::new(spec.pieces.iter().map(|p| p.rules.as_slice()));
        let mut initial_ranks = ByColor([[0u16; MAX_KINDS]; 2]);
        for (color, kind, ranks) in &spec.initial {
            initial_ranks[*color][kind.index()] = *ranks;
        }
        let promotion_rank = ByColor([
            spec.promotion_rank.map_or(shape.ranks - 1, |r| r - 1),
            spec.promotion_rank.map_or(0, |r| shape.ranks - r),
        ]);
        let capture_to_hand = (0..kinds).map(|k| spec.convert[k].unwrap_or(PieceKind(k as u8))).collect();
        Variant {
            name: spec.name,
            description: spec.description,
            shape,
            start_fen: spec.start_fen,
            royal: spec.royal,
            motion,
            most_moves: std::sync::OnceLock::new(),
            initial_ranks,
            promotions: spec.promotions,
            promotion_rank,
            en_passant: spec.en_passant,
            castling: spec.castling,
            hands: spec.hands,
            capture_to_hand,
            drop_forbidden: spec.drop_forbidden,
            setup: spec.setup,
            succession: spec.succession,
            end: EndRules {
                dead_kinds: spec
                    .end
                    .dead
                    .iter()
                    .fold(0, |set, rule| set | rule.sides[0].kinds() | rule.sides[1].kinds()),
                ..spec.end
            },
            xboard_parent: spec.xboard_parent,
            zobrist: Zobrist::new(kinds),
            letter_map,
            pieces: spec.pieces,
        }
    }
}
