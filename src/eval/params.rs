//! The evaluation's weights: every one named, in one vector.
//!
//! A [`Layout`] lists the parameters of one variant (some per piece kind,
//! some per rank), each with a middlegame and an endgame weight. The names
//! are what `variants/NAME.eval` files and `menagerie tune` use:
//! `material.N.mg`, `passed.5.eg`, `tempo.mg`.

use crate::rules::variant::Variant;

/// A middlegame and an endgame weight, in centipawns per unit of the feature.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Weight {
    /// Middlegame weight.
    pub mg: i32,
    /// Endgame weight.
    pub eg: i32,
}

impl Weight {
    /// A weight that is the same in both phases.
    pub const fn flat(value: i32) -> Weight {
        Weight { mg: value, eg: value }
    }
}

/// The parameters of one variant: where each family starts in the vector.
/// Families "per kind" have one parameter per piece kind (in declaration
/// order), "per rank" one per rank counted from the man's own side.
#[derive(Clone, Debug)]
pub struct Layout {
    names: Vec<String>,
    /// Value of a man on the board, per kind.
    pub material: usize,
    /// Value of a man in hand, per kind.
    pub hand: usize,
    /// Per square of empty-board reach above the kind's average, per kind.
    pub centre: usize,
    /// Per square reached on the actual board (above half the average), per kind.
    pub mobility: usize,
    /// Per man of this kind attacked by a cheaper enemy man, per kind.
    pub threat: usize,
    /// Per square of the enemy king's zone attacked, scaled by the number of attackers, per kind.
    pub king_attack: usize,
    /// Per pawn on this rank, per rank.
    pub pawn_rank: usize,
    /// Per passed pawn on this rank, per rank.
    pub passed: usize,
    /// Per man attacked and not defended (and not already a threat).
    pub hanging: usize,
    /// Per extra pawn on a file.
    pub doubled: usize,
    /// Per pawn with no own pawn on a neighbouring file.
    pub isolated: usize,
    /// Per own man on the three squares in front of the king.
    pub shield: usize,
    /// Per enemy piece per step of closeness (within 3) to the king.
    pub tropism: usize,
    /// Per rank (up to 3) the king stands away from its first rank.
    pub king_forward: usize,
    /// Per step of a pawn's file towards the centre (within 3 files).
    pub pawn_centre: usize,
    /// For the side to move.
    pub tempo: usize,
    /// Mop-up, when only one side has armed men: per step the enemy king
    /// stands from the centre (file and rank steps added).
    pub mopup_edge: usize,
    /// Mop-up: per step the kings stand closer than the board's length.
    pub mopup_close: usize,
}

impl Layout {
    /// The parameters of `variant`.
    pub fn new(variant: &Variant) -> Layout {
        let letters: Vec<String> = variant.pieces.iter().map(|p| p.letter.to_ascii_uppercase().to_string()).collect();
        let ranks: Vec<String> = (0..variant.shape.ranks).map(|r| r.to_string()).collect();
        let mut names = Vec::new();
        let mut family = |prefix: &str, items: &[String]| {
            let start = names.len();
            if items.is_empty() {
                names.push(prefix.to_string());
            }
            names.extend(items.iter().map(|item| format!("{prefix}.{item}")));
            start
        };
        Layout {
            material: family("material", &letters),
            hand: family("hand", &letters),
            centre: family("centre", &letters),
            mobility: family("mobility", &letters),
            threat: family("threat", &letters),
            king_attack: family("king_attack", &letters),
            pawn_rank: family("pawn_rank", &ranks),
            passed: family("passed", &ranks),
            hanging: family("hanging", &[]),
            doubled: family("doubled", &[]),
            isolated: family("isolated", &[]),
            shield: family("shield", &[]),
            tropism: family("tropism", &[]),
            king_forward: family("king_forward", &[]),
            pawn_centre: family("pawn_centre", &[]),
            tempo: family("tempo", &[]),
            mopup_edge: family("mopup_edge", &[]),
            mopup_close: family("mopup_close", &[]),
            names,
        }
    }

    /// Parameters the tuner leaves at their defaults: the mop-up terms steer
    /// a search through endings that are won anyway, so game results say
    /// nothing about them (fitted, they drift to whatever the few such
    /// positions happen to favour, even to keeping the kings apart).
    pub fn untuned(&self) -> [usize; 2] {
        [self.mopup_edge, self.mopup_close]
    }

    /// Number of parameters (each has two weights).
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// True when there are no parameters (never for a loaded variant).
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The name of parameter `index`, without the phase suffix.
    pub fn name(&self, index: usize) -> &str {
        &self.names[index]
    }

    /// The family of parameter `index`: its name up to the first dot
    /// (`material` for `material.N`).
    pub fn family(&self, index: usize) -> &str {
        let name = self.name(index);
        name.split('.').next().unwrap_or(name)
    }

    /// The index of a parameter by its name (without the phase suffix).
    pub fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }
}
