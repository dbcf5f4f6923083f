//! Static evaluation for any variant, derived from the variant file alone
//! and tunable from games.
//!
//! The score is a sum of named features times weights ([`params`]), each
//! weight with a middlegame and an endgame value, blended by the non-pawn
//! material left. Defaults are derived from the variant's data; a
//! `NAME.eval` file ([`file`]), written by `menagerie tune`, overrides them.
//!
//! - **material** per kind: the `value` in the variant file; a piece of value
//!   0 that is not royal gets `30 * mobility + 150` from its average
//!   empty-board reach (a knight near 310, a rook near 570). Men in hand
//!   count a little more, since they can be dropped anywhere;
//! - **centralisation**: per square a man reaches on an empty board from
//!   where it stands, above its kind's average;
//! - **mobility** per kind: squares reached on the actual board;
//! - **threats**: men attacked by a cheaper enemy man, and men attacked and
//!   not defended (hoppers' screens and bent riders included: the attack
//!   maps come from the motion module's walker);
//! - **king safety**: squares of the king's zone attacked, per attacker kind,
//!   scaled by how many men attack it; a shield of own men; tropism; the
//!   king stays back in the middlegame;
//! - **pawns** (men that promote): rank, passed, isolated and doubled pawns;
//! - **tempo**;
//! - a side that can capture nothing (Clockwork's non-capturing men, a bare
//!   king) cannot mate: when it is the side ahead, the score shrinks
//!   towards a draw.
//!
//! Everything that depends only on the variant and the weights is
//! precomputed into per-cell, per-square tables. [`Evaluator::trace`] lists
//! the features of a position for the tuner; a test checks that it and the
//! fast path agree.
//!
//! Where the jobs live: this file holds the [`Evaluator`], its
//! construction, and [`Evaluator::evaluate_with`], the one place that
//! chooses between a network and the weights; `linear.rs` the walk over
//! the men and the features; `derived.rs` what comes from the variant file
//! alone (facts per kind, the default weights); `params.rs` the parameter
//! layout and `file.rs` the `.eval` files; [`nnue`] the network.

pub mod catalogue;
mod derived;
mod file;
mod linear;
pub mod nnue;
mod params;

use std::sync::Arc;

pub use file::{parse as parse_eval_file, write as write_eval_file, EvalFileError, TunedWeights};
pub use linear::Trace;
pub use params::{Layout, Weight};

use crate::board::position::Position;
use crate::eval::nnue::{evaluate_fresh, AccumulatorStack, FeatureSet, Network};
use crate::rules::geometry::MAILBOX_SIZE;
use crate::rules::piece::{Cell, Color, PieceKind, MAX_KINDS};
use crate::rules::variant::Variant;
use derived::{derived_weights, KindFacts};

/// Which weights an evaluator uses (option `Evaluation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalMode {
    /// The default: the variant's network where it has one, else the
    /// linear evaluation ([`EvalMode::Linear`]), without a word.
    Full,
    /// Asks for the network: the evaluator is the one [`EvalMode::Full`]
    /// builds, but choosing it for a variant without a network is reported
    /// as an error (the engine then plays with the linear evaluation).
    Nnue,
    /// Tuned weights where the variant has an `.eval` file, else derived.
    Linear,
    /// The defaults derived from the variant file.
    Hand,
    /// Material only: the weak baseline strength tests measure against.
    Material,
}

/// Precomputed evaluation tables of one variant.
#[derive(Clone, Debug)]
pub struct Evaluator {
    variant: Arc<Variant>,
    layout: Arc<Layout>,
    weights: Vec<Weight>,
    facts: Arc<KindFacts>,
    /// Empty-board reach per `cell * MAILBOX_SIZE + square`.
    reach: Arc<Vec<u8>>,
    /// Value per kind used by threats, search and exchanges: the blend of
    /// the material weights.
    value: [i32; MAX_KINDS],
    /// Rank of each kind by [`Evaluator::value`] (equal values share a
    /// rank): threats compare attackers and victims by it.
    value_rank: [u8; MAX_KINDS],
    /// Middlegame and endgame scores of a man standing on a square, per
    /// `cell * MAILBOX_SIZE + square`, White's view (material included).
    mg: Vec<i32>,
    eg: Vec<i32>,
    /// The start position's features (White's minus Black's, tempo left
    /// out), taken back in the middlegame: see [`Evaluator::start_features`].
    start_features: Arc<Vec<i32>>,
    /// Position-independent middlegame score: the start features' score,
    /// negated.
    mg_constant: i32,
    /// Count material only.
    material_only: bool,
    /// The network that scores positions instead of the weights, if any
    /// (the weights still give piece values to the search).
    network: Option<Arc<Network>>,
    /// The network's inputs over this variant (the plain ones without a network).
    features: FeatureSet,
}

impl Evaluator {
    /// The evaluation with the weights `mode` names: for the full evaluation,
    /// `tuned` (the variant's `.eval` file, which the catalogue keeps) over
    /// the derived defaults.
    pub fn with_mode(variant: &Arc<Variant>, mode: EvalMode, tuned: Option<&TunedWeights>) -> Evaluator {
        let v = &**variant;
        let layout = Layout::new(v);
        let mut reach = vec![0u8; Cell::COUNT * MAILBOX_SIZE];
        let start = Position::startpos(Arc::clone(variant)).ok();
        let facts = KindFacts::new(v, start.as_ref(), &mut reach);
        let mut weights = derived_weights(v, &layout, &facts);
        if let (EvalMode::Full | EvalMode::Nnue | EvalMode::Linear, Some(tuned)) = (mode, tuned) {
            tuned.apply(&mut weights);
        }
        let evaluator = Evaluator {
            variant: Arc::clone(variant),
            layout: Arc::new(layout),
            weights: Vec::new(),
            facts: Arc::new(facts),
            reach: Arc::new(reach),
            value: [0; MAX_KINDS],
            value_rank: [0; MAX_KINDS],
            mg: Vec::new(),
            eg: Vec::new(),
            start_features: Arc::new(Vec::new()),
            mg_constant: 0,
            material_only: mode == EvalMode::Material,
            network: None,
            features: FeatureSet::new(v),
        };
        evaluator.with_weights(weights)
    }

    /// The derived defaults.
    pub fn hand(variant: &Arc<Variant>) -> Evaluator {
        Evaluator::with_mode(variant, EvalMode::Hand, None)
    }

    /// The same tables, scoring material only: men on the board and in hand at
    /// their variant-file values. A deliberately weak baseline to measure the
    /// full evaluation against (`setoption name Evaluation value material`).
    pub fn material_only(variant: &Arc<Variant>) -> Evaluator {
        Evaluator::with_mode(variant, EvalMode::Material, None)
    }

    /// This evaluator with other weights (one per parameter of [`Evaluator::layout`]).
    pub fn with_weights(mut self, weights: Vec<Weight>) -> Evaluator {
        assert_eq!(weights.len(), self.layout.len(), "one weight per parameter");
        let kinds = self.variant.kind_count().min(MAX_KINDS);
        self.weights = weights;
        let material = self.layout.material;
        for k in 0..kinds {
            let w = self.weights[material + k];
            self.value[k] = if self.facts.royal == Some(PieceKind(k as u8)) {
                0
            } else if self.material_only {
                self.facts.value[k]
            } else {
                ((w.mg + w.eg) / 2).max(1)
            };
        }
        for k in 0..kinds {
            self.value_rank[k] = (0..kinds).filter(|&j| self.value[j] < self.value[k]).count() as u8;
        }
        self.start_features = Arc::new(self.start_features());
        self.mg_constant = -self.weights.iter().zip(self.start_features.iter()).map(|(w, &n)| w.mg * n).sum::<i32>();
        let mut mg = vec![0i32; Cell::COUNT * MAILBOX_SIZE];
        let mut eg = vec![0i32; Cell::COUNT * MAILBOX_SIZE];
        for k in 0..kinds {
            for color in Color::ALL {
                let cell = Cell::piece(color, PieceKind(k as u8));
                for sq in self.variant.shape.squares() {
                    let index = cell.0 as usize * MAILBOX_SIZE + sq.index();
                    self.static_features(color, PieceKind(k as u8), sq, |p, n| {
                        mg[index] += self.weights[p].mg * n;
                        eg[index] += self.weights[p].eg * n;
                    });
                }
            }
        }
        self.mg = mg;
        self.eg = eg;
        self
    }

    /// This evaluator scoring positions with `network`, which must fit the
    /// variant ([`crate::eval::nnue::check_fits`]).
    pub fn with_network(mut self, network: Arc<Network>) -> Evaluator {
        // The network's header says whether its inputs use the king mirror.
        self.features = network.header.features(&self.variant);
        self.network = Some(network);
        self
    }

    /// The network that scores positions, if any.
    #[inline]
    pub fn network(&self) -> Option<&Arc<Network>> {
        self.network.as_ref()
    }

    /// The network's inputs over this variant.
    #[inline]
    pub fn features(&self) -> &FeatureSet {
        &self.features
    }

    /// The parameters' names and families.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The weights in use, one per parameter.
    pub fn weights(&self) -> &[Weight] {
        &self.weights
    }

    /// True for the material-only baseline.
    pub fn is_material_only(&self) -> bool {
        self.material_only
    }

    /// The variant these tables belong to.
    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }

    /// Material value of a kind in centipawns (0 for the royal piece).
    #[inline]
    pub fn value(&self, kind: PieceKind) -> i32 {
        self.value[kind.index()]
    }

    /// True for kinds that promote (pawns).
    #[inline]
    pub fn is_pawn(&self, kind: PieceKind) -> bool {
        self.facts.is_pawn(kind)
    }

    /// True when `color` has a man other than pawns and the royal piece, on the
    /// board or in hand (null-move pruning is unsafe without one: zugzwang).
    pub fn has_non_pawn_material(&self, pos: &Position, color: Color) -> bool {
        let kinds = self.variant.kind_count();
        let weight = &self.facts.phase_weight;
        if (0..kinds).any(|k| weight[k] > 0 && pos.hand_count(color, PieceKind(k as u8)) > 0) {
            return true;
        }
        pos.squares().iter().any(|&sq| {
            let c = pos.cell(sq);
            c.is_color(color) && weight[c.kind().index()] > 0
        })
    }

    /// The score of `pos` in centipawns from the side to move's point of view.
    /// With a network this computes its accumulators from scratch (a search
    /// keeps them incrementally instead: [`Evaluator::evaluate_with`]).
    pub fn evaluate(&self, pos: &Position) -> i32 {
        self.evaluate_with(pos, None)
    }

    /// The score of `pos` in centipawns from the side to move's point of
    /// view, and the one place that chooses how: without a network the
    /// linear evaluation; with one, the linear score where a side is unarmed
    /// (`unarmed_guide`), else the network's output on its base
    /// (`network_base`). The network reads the accumulators of `kept`, a
    /// search's stack and the ply of `pos` (brought up to date there), or
    /// without it computes them from scratch.
    #[inline]
    pub fn evaluate_with(&self, pos: &Position, kept: Option<(&mut AccumulatorStack, usize)>) -> i32 {
        let Some(net) = &self.network else {
            return self.linear(pos);
        };
        if let Some(score) = self.unarmed_guide(pos) {
            return score;
        }
        let output = match kept {
            Some((stack, ply)) => {
                let score = stack.evaluate(net, &self.features, ply, pos);
                // Unit tests check every incremental evaluation against a fresh one.
                #[cfg(test)]
                assert_eq!(score, evaluate_fresh(net, pos), "ply {ply}: {}", pos.to_fen());
                score
            }
            None => evaluate_fresh(net, pos),
        };
        output + self.network_base(pos)
    }

    /// What the `eval` command prints for `pos`: the linear evaluation
    /// group by group, the network's output (if any) and the score the
    /// search uses, all from White's point of view in pawns.
    pub fn report(&self, pos: &Position) -> Vec<String> {
        let white = |score: i32| f64::from(score * linear::sign(pos.side_to_move()));
        let pawns = |cp: f64| format!("{:+.2}", cp.round() / 100.0 + 0.0);
        let mut lines = Vec::new();
        if !self.material_only {
            let trace = self.trace(pos);
            lines.push(format!("{:<20}| White's view (phase {}/{})", "Linear term", trace.phase, linear::PHASE_MAX));
            lines.push(format!("{:-<20}+{:-<29}", "", ""));
            for (group, cp) in trace.by_group(&self.weights, &self.layout) {
                lines.push(format!("{group:<20}|{:>6}", pawns(cp)));
            }
            lines.push(String::new());
        }
        let linear = white(self.linear(pos));
        let kind = if self.material_only { "Material" } else { "Linear" };
        lines.push(format!("{:<20}{:>6} (white side)", format!("{kind} evaluation"), pawns(linear)));
        if let Some(net) = &self.network {
            let output = white(evaluate_fresh(net, pos) + self.network_base(pos));
            lines.push(format!("{:<20}{:>6} (white side)", "Network evaluation", pawns(output)));
        }
        let fin = white(self.evaluate(pos));
        let why = if self.network.is_some() && self.unarmed_guide(pos).is_some() {
            " [linear: a side can capture nothing]"
        } else {
            ""
        };
        lines.push(format!("{:<20}{:>6} (white side){why}", "Final evaluation", pawns(fin)));
        lines
    }

    /// For a network that scores alone: the linear score when a side holds
    /// no man that can capture (on the board or in hand), else `None`.
    /// Networks learn little of such endings from self-play, while the linear
    /// evaluation knows them: it drives the lone king to the edge (mop-up)
    /// and scales down the score of a side that cannot win. A network on the
    /// linear base has these terms already.
    #[inline]
    fn unarmed_guide(&self, pos: &Position) -> Option<i32> {
        if self.network.as_ref().is_none_or(|net| net.header.linear_base) {
            return None;
        }
        let facts = &*self.facts;
        let mut armed = [false; 2];
        if self.variant.hands {
            for color in Color::ALL {
                let hand = (0..self.variant.kind_count().min(MAX_KINDS)).map(|k| PieceKind(k as u8));
                armed[color.index()] = hand.filter(|&k| facts.is_armed(k)).any(|k| pos.hand_count(color, k) > 0);
            }
        }
        // Both ends of the board at once: in most positions each side's men
        // stand near its own edge, so the scan stops after a few squares.
        let squares = pos.squares();
        let (front, back) = (squares.iter(), squares.iter().rev());
        for (&a, &b) in front.zip(back).take(squares.len().div_ceil(2)) {
            if armed[0] && armed[1] {
                return None;
            }
            for c in [pos.cell(a), pos.cell(b)] {
                if c.is_piece() && facts.is_armed(c.kind()) {
                    armed[c.color().index()] = true;
                }
            }
        }
        if armed[0] && armed[1] {
            None
        } else {
            Some(self.linear(pos))
        }
    }

    /// What the network's output is added to: the linear score for a
    /// network on the linear base, else 0.
    #[inline]
    fn network_base(&self, pos: &Position) -> i32 {
        match &self.network {
            Some(net) if net.header.linear_base => self.linear(pos),
            _ => 0,
        }
    }
}

#[cfg(test)]
mod tests;
