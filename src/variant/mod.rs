//! A variant: board, pieces (compiled from Betza), promotion, drops, setup,
//! castling and end-of-game rules. Immutable once loaded; shared by `Arc`.
//! Uses geometry, piece, betza and zobrist.

pub mod builtin;
mod capacity;
pub mod parse;

use crate::betza::{Mode, Motion, MoveRule};
use crate::geometry::{offset, BoardShape, MAX_BOARD_SIDE};
use crate::piece::{ByColor, Cell, Color, PieceKind, MAX_KINDS};
use crate::zobrist::Zobrist;

pub use builtin::Registry;
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

/// A move rule turned into mailbox offsets for one colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompiledRule {
    /// Mailbox offset of one step.
    pub step: i16,
    /// How the step is repeated.
    pub motion: CompiledMotion,
    /// Quiet, capture or both.
    pub mode: Mode,
    /// Only from the piece's initial ranks.
    pub initial_only: bool,
}

/// [`Motion`] with mailbox offsets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompiledMotion {
    /// One jump.
    Leap,
    /// One jump over an intermediate square (offset from the origin) that must be empty.
    Lame {
        /// Offset from the origin of the square that must be empty.
        via: i16,
    },
    /// Slide `min..=max` steps.
    Ride {
        /// Fewest steps.
        min: u8,
        /// Most steps.
        max: u8,
    },
    /// Hop over exactly one screen.
    Hop,
    /// One step, then `min..=max` steps of `second`.
    Bent {
        /// Offset of the second leg.
        second: i16,
        /// Fewest steps of the second leg.
        min: u8,
        /// Most steps of the second leg.
        max: u8,
    },
}

/// A way in which a man of the attacking colour can attack a square, merged
/// over every piece kind sharing the geometry. `cells` is the set of cell
/// values (bit per [`Cell`]) that attack this way.
#[derive(Clone, Copy, Debug)]
pub struct AttackRule {
    /// The attacker's step (attacker stands at target - k * step).
    pub step: i16,
    /// Geometry.
    pub motion: CompiledMotion,
    /// Attacking cells.
    pub cells: u128,
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
    /// Per colour, per kind: compiled rules.
    pub rules: ByColor<Vec<Vec<CompiledRule>>>,
    /// Per attacking colour: how its men attack a square.
    pub attacks: ByColor<Vec<AttackRule>>,
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
    /// Per attacking colour, per (dx, dy) from the attacked square: the attack
    /// rules (bit i = `attacks[colour][i]`) whose path needs that square empty.
    lines: ByColor<Vec<u128>>,
    /// The same for hopping rules only: a man arriving there may become a screen.
    hop_lines: ByColor<Vec<u128>>,
    /// True when any piece hops (a man arriving can create a check).
    pub has_hoppers: bool,
    /// Per attacking colour: the lines (mailbox step walking away from the
    /// attacked square, and whether a hopper uses it) along which a man
    /// leaving a square can uncover an attack.
    pub lines_out: ByColor<Vec<(i16, bool)>>,
    /// False when some attack (a lame leap) is not along a line; the legality
    /// filter then skips its per-node shortcut.
    pub lines_exact: bool,
    letter_map: [Option<PieceKind>; 128],
}

/// A (files, ranks) displacement.
type Delta = (i32, i32);

const ALIGN_SIDE: i32 = 2 * MAX_BOARD_SIDE as i32 - 1;
const ALIGN_CELLS: usize = (ALIGN_SIDE * ALIGN_SIDE) as usize;

#[inline]
fn align_index(dx: i32, dy: i32) -> usize {
    ((dy + MAX_BOARD_SIDE as i32 - 1) * ALIGN_SIDE + dx + MAX_BOARD_SIDE as i32 - 1) as usize
}

impl Variant {
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

    /// Attack rules of `by` that a man leaving (dx, dy) from the target could unblock.
    #[inline]
    pub fn rules_through(&self, by: Color, dx: i32, dy: i32) -> u128 {
        self.lines[by][align_index(dx, dy)]
    }

    /// Hopping rules of `by` for which a man arriving at (dx, dy) could become a screen.
    #[inline]
    pub fn hop_rules_through(&self, by: Color, dx: i32, dy: i32) -> u128 {
        if self.has_hoppers {
            self.hop_lines[by][align_index(dx, dy)]
        } else {
            0
        }
    }

    /// Absolute rank index of relative rank `relative` (1-based from `color`'s side).
    pub fn absolute_rank(&self, color: Color, relative: u8) -> u8 {
        match color {
            Color::White => relative - 1,
            Color::Black => self.shape.ranks - relative,
        }
    }

    /// Builds the derived tables of a variant from its declared parts.
    pub(crate) fn build(spec: parse::VariantSpec) -> Variant {
        let shape = spec.shape;
        let kinds = spec.pieces.len();
        let mut letter_map = [None; 128];
        for (i, p) in spec.pieces.iter().enumerate() {
            letter_map[p.letter as usize] = Some(PieceKind(i as u8));
        }
        let mut rules = ByColor([Vec::new(), Vec::new()]);
        let mut attacks: ByColor<Vec<AttackRule>> = ByColor([Vec::new(), Vec::new()]);
        let mut lines = ByColor([vec![0u128; ALIGN_CELLS], vec![0u128; ALIGN_CELLS]]);
        let mut hop_lines = ByColor([vec![0u128; ALIGN_CELLS], vec![0u128; ALIGN_CELLS]]);
        let mut has_hoppers = false;
        let mut lines_out: ByColor<Vec<(i16, bool)>> = ByColor([Vec::new(), Vec::new()]);
        let mut lines_exact = true;
        for color in Color::ALL {
            let flip = color.forward() as i8;
            // Attack rules with the squares (relative to the attacked square)
            // whose emptiness they need, and whether they hop.
            let mut building: Vec<(AttackRule, Vec<Delta>, bool)> = Vec::new();
            for (k, piece) in spec.pieces.iter().enumerate() {
                let cell = Cell::piece(color, PieceKind(k as u8));
                let mut compiled = Vec::new();
                for r in &piece.rules {
                    let (dx, dy) = (r.dx as i32, (r.dy * flip) as i32);
                    let motion = match r.motion {
                        Motion::Leap => CompiledMotion::Leap,
                        Motion::Lame { via } => {
                            CompiledMotion::Lame { via: offset(via.0 as i32, (via.1 * flip) as i32) }
                        }
                        Motion::Ride { min, max } => CompiledMotion::Ride { min, max },
                        Motion::Hop => CompiledMotion::Hop,
                        Motion::Bent { second, min, max } => {
                            CompiledMotion::Bent { second: offset(second.0 as i32, (second.1 * flip) as i32), min, max }
                        }
                    };
                    let rule =
                        CompiledRule { step: offset(dx, dy), motion, mode: r.mode, initial_only: r.initial_only };
                    compiled.push(rule);
                    if !r.mode.captures() || r.initial_only {
                        continue;
                    }
                    // The attack test walks from the target back towards the attacker.
                    if let Some(a) = building.iter_mut().find(|a| a.0.step == rule.step && a.0.motion == motion) {
                        a.0.cells |= 1u128 << cell.0;
                        continue;
                    }
                    let along = |d: (i32, i32), n: i32| (1..=n).map(move |j| (-d.0 * j, -d.1 * j)).collect::<Vec<_>>();
                    let side = MAX_BOARD_SIDE as i32 - 1;
                    let (path, hop) = match r.motion {
                        Motion::Leap => (Vec::new(), false),
                        Motion::Lame { via } => (vec![(via.0 as i32 - dx, (via.1 * flip) as i32 - dy)], false),
                        Motion::Ride { max, .. } => (along((dx, dy), (max as i32).min(side)), false),
                        Motion::Hop => (along((dx, dy), side), true),
                        // Every square of a bent path lies on the target's line along the second leg.
                        Motion::Bent { second, .. } => {
                            (along((second.0 as i32, (second.1 * flip) as i32), side), false)
                        }
                    };
                    has_hoppers |= hop;
                    let out_step = match r.motion {
                        Motion::Leap => None,
                        Motion::Lame { .. } => {
                            lines_exact = false;
                            None
                        }
                        Motion::Ride { .. } | Motion::Hop => Some(-rule.step),
                        Motion::Bent { second, .. } => Some(-offset(second.0 as i32, (second.1 * flip) as i32)),
                    };
                    if let Some(step) = out_step {
                        match lines_out[color].iter_mut().find(|l| l.0 == step) {
                            Some(l) => l.1 |= hop,
                            None => lines_out[color].push((step, hop)),
                        }
                    }
                    building.push((AttackRule { step: rule.step, motion, cells: 1u128 << cell.0 }, path, hop));
                }
                rules[color].push(compiled);
            }
            // Cheap tests first: leaps, then riders, then hoppers and bent riders.
            building.sort_by_key(|a| match a.0.motion {
                CompiledMotion::Leap => 0,
                CompiledMotion::Lame { .. } => 1,
                CompiledMotion::Ride { .. } => 2,
                CompiledMotion::Hop => 3,
                CompiledMotion::Bent { .. } => 4,
            });
            for (i, (_, path, hop)) in building.iter().enumerate() {
                // Past 128 rules a bit stands for "some rule": the test then checks them all.
                let bit = if i < 128 { 1u128 << i } else { u128::MAX };
                for &(x, y) in path {
                    if x.abs() < MAX_BOARD_SIDE as i32 && y.abs() < MAX_BOARD_SIDE as i32 {
                        lines[color][align_index(x, y)] |= bit;
                        if *hop {
                            hop_lines[color][align_index(x, y)] |= bit;
                        }
                    }
                }
            }
            attacks[color] = building.into_iter().map(|b| b.0).collect();
        }
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
            rules,
            attacks,
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
            end: spec.end,
            xboard_parent: spec.xboard_parent,
            zobrist: Zobrist::new(kinds),
            lines,
            hop_lines,
            has_hoppers,
            lines_out,
            lines_exact,
            letter_map,
            pieces: spec.pieces,
        }
    }
}
