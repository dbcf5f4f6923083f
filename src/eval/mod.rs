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

pub mod catalogue;
mod file;
pub mod nnue;
mod params;

use std::sync::Arc;

use arrayvec::ArrayVec;

pub use file::{parse as parse_eval_file, write as write_eval_file, EvalFileError, TunedWeights};
pub use params::{Layout, Weight};

use crate::board::position::Position;
use crate::eval::nnue::{evaluate_fresh, AccumulatorStack, FeatureSet, Network};
use crate::rules::geometry::{Square, MAILBOX_SIZE, MAX_BOARD_SIDE};
use crate::rules::motion::{for_each_attacked, for_each_target, Board, CompiledRule, Mode};
use crate::rules::piece::{Cell, Color, PieceKind, MAX_KINDS};
use crate::rules::variant::Variant;

/// Largest phase value (all non-pawn material on the board).
const PHASE_MAX: i32 = 256;
/// Full scale of a score; a side that cannot mate gets [`CANNOT_MATE_SCALE`].
const SCALE_MAX: i32 = 64;
/// The scale of a score when the side ahead can capture nothing.
const CANNOT_MATE_SCALE: i32 = 8;
/// King-zone attack units count this much per number of attackers: one
/// attacker alone is rarely dangerous.
const ATTACKERS_SCALE: [i32; 8] = [0, 0, 1, 2, 3, 4, 4, 4];
/// Most men on a board.
const MAX_MEN: usize = MAX_BOARD_SIDE as usize * MAX_BOARD_SIDE as usize;

/// Which weights an evaluator uses (option `Evaluation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvalMode {
    /// The variant's network where it has one, else [`EvalMode::Linear`].
    Full,
    /// The variant's network (where it has none, the linear evaluation).
    Nnue,
    /// Tuned weights where the variant has an `.eval` file, else derived.
    Linear,
    /// The defaults derived from the variant file.
    Hand,
    /// Material only: the weak baseline strength tests measure against.
    Material,
}

/// What the evaluation knows of each kind, from the variant alone.
#[derive(Clone, Debug)]
struct KindFacts {
    /// Material value from the variant file (or derived), 0 for the royal kind.
    value: [i32; MAX_KINDS],
    /// Average empty-board reach.
    average_reach: [i32; MAX_KINDS],
    /// Kinds that promote (pawns), as a bitmask.
    pawns: u32,
    /// Kinds that can capture, or promote to one that can.
    armed: u32,
    /// The royal kind, if any.
    royal: Option<PieceKind>,
    /// Phase weight per kind (non-pawn, non-royal material).
    phase_weight: [i32; MAX_KINDS],
    /// Total phase weight of the start position (board and hands), at least 1.
    phase_total: i32,
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
    /// The network's inputs over this variant.
    features: FeatureSet,
}

/// The features of one position, for the tuner: the score is
/// `scale / 64 * sum(mg * w.mg * phase + eg * w.eg * (256 - phase)) / 256`
/// from White's point of view.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// 0 (endgame) to 256 (all material on).
    pub phase: i32,
    /// 0..=64.
    pub scale: i32,
    /// `(parameter, middlegame count, endgame count)`, White's count minus Black's.
    pub terms: Vec<(u16, f32, f32)>,
}

impl Trace {
    /// The score these features give with `weights`, White's view.
    pub fn score(&self, weights: &[Weight]) -> f64 {
        let phase = self.phase as f64 / PHASE_MAX as f64;
        let sum: f64 = self
            .terms
            .iter()
            .map(|&(p, mg, eg)| {
                let w = weights[p as usize];
                w.mg as f64 * mg as f64 * phase + w.eg as f64 * eg as f64 * (1.0 - phase)
            })
            .sum();
        sum * self.scale as f64 / SCALE_MAX as f64
    }
}

/// Receives what the evaluation walk finds: the man-by-square terms, and
/// feature counts (White's minus Black's).
trait Sink {
    fn man(&mut self, ev: &Evaluator, cell: Cell, sq: Square);
    fn add(&mut self, param: usize, count: i32);
}

/// The fast path: weights applied as the walk goes.
struct Sum<'a> {
    weights: &'a [Weight],
    mg: i32,
    eg: i32,
}

impl Sink for Sum<'_> {
    #[inline(always)]
    fn man(&mut self, ev: &Evaluator, cell: Cell, sq: Square) {
        let index = cell.0 as usize * MAILBOX_SIZE + sq.index();
        let sign = sign(cell.color());
        self.mg += sign * ev.mg[index];
        self.eg += sign * ev.eg[index];
    }
    #[inline(always)]
    fn add(&mut self, param: usize, count: i32) {
        let w = self.weights[param];
        self.mg += w.mg * count;
        self.eg += w.eg * count;
    }
}

/// The tuner's path: feature counts kept per parameter.
struct Tracer {
    mg: Vec<i32>,
    eg: Vec<i32>,
}

impl Sink for Tracer {
    fn man(&mut self, ev: &Evaluator, cell: Cell, sq: Square) {
        let sign = sign(cell.color());
        ev.static_features(cell.color(), cell.kind(), sq, |p, n| self.add(p, sign * n));
    }
    fn add(&mut self, param: usize, count: i32) {
        self.mg[param] += count;
        self.eg[param] += count;
    }
}

/// True when `sq` is `king`'s square or next to it (the king's zone).
#[inline(always)]
fn in_zone(sq: Square, king: Option<Square>) -> bool {
    // The mailbox is 16 squares wide with padding, so these offsets never wrap.
    king.is_some_and(|k| matches!(sq.index() as i32 - k.index() as i32, -17..=-15 | -1..=1 | 15..=17))
}

/// +1 for White, -1 for Black.
#[inline(always)]
fn sign(color: Color) -> i32 {
    if color == Color::White {
        1
    } else {
        -1
    }
}

/// What the walk learns besides the features.
struct Walked {
    /// Phase weight on the board and in hand.
    phase: i32,
    /// Per colour: holds a man (board or hand) that can capture, royal aside.
    armed: [bool; 2],
}

/// What the pass over the men gathers for the terms that need the whole
/// board (all on the stack: the evaluation allocates nothing).
struct Maps {
    /// Each colour's king square.
    kings: [Option<Square>; 2],
    /// How many men of each colour attack a square...
    attacks: [[u8; MAILBOX_SIZE]; 2],
    /// ...and the value rank of the cheapest of them.
    cheapest: [[u8; MAILBOX_SIZE]; 2],
    /// The men on the board.
    men: ArrayVec<(Square, Cell), MAX_MEN>,
    /// Pawns per file, and the lowest and highest rank of one, per colour.
    pawn_files: [[u8; 16]; 2],
    pawn_lowest: [[i32; 16]; 2],
    pawn_highest: [[i32; 16]; 2],
    /// Per colour: the units its men score against the enemy king's zone,
    /// per kind, and how many of its men attack the zone.
    zone_units: [[i32; MAX_KINDS]; 2],
    zone_attackers: [usize; 2],
    /// Per colour: how close the enemy men stand to its king.
    tropism: [i32; 2],
}

impl Maps {
    #[inline(always)]
    fn new(kings: [Option<Square>; 2]) -> Maps {
        Maps {
            kings,
            attacks: [[0u8; MAILBOX_SIZE]; 2],
            cheapest: [[u8::MAX; MAILBOX_SIZE]; 2],
            men: ArrayVec::new(),
            pawn_files: [[0u8; 16]; 2],
            pawn_lowest: [[i32::MAX; 16]; 2],
            pawn_highest: [[i32::MIN; 16]; 2],
            zone_units: [[0i32; MAX_KINDS]; 2],
            zone_attackers: [0usize; 2],
            tropism: [0i32; 2],
        }
    }
}

/// The board of `variant` with no men on it.
fn empty_board(variant: &Variant) -> Board {
    let mut board = [Cell::OFFBOARD; MAILBOX_SIZE];
    for sq in variant.shape.squares() {
        board[sq.index()] = Cell::EMPTY;
    }
    board
}

/// Squares a man of `kind` and `color` reaches from `from` on `empty`, an
/// empty board, by moving or capturing (each square counted once).
fn empty_board_reach(variant: &Variant, empty: &Board, color: Color, kind: PieceKind, from: Square) -> i32 {
    let mut seen = [false; MAILBOX_SIZE];
    let mut count = 0;
    for rule in variant.motion.rules(color, kind) {
        // On an empty board a capturing rule reaches the squares it could take on.
        let rule = CompiledRule { mode: Mode::Both, ..*rule };
        for_each_target(empty, from, &rule, !color, |to| {
            if !seen[to.index()] {
                seen[to.index()] = true;
                count += 1;
            }
        });
    }
    count
}

/// `numerator / denominator`, rounded to the nearest whole number.
fn ratio(numerator: i32, denominator: i32) -> i32 {
    let d = denominator.max(1);
    (2 * numerator + d) / (2 * d)
}

impl KindFacts {
    fn new(v: &Variant, start: Option<&Position>, reach: &mut [u8]) -> KindFacts {
        let kinds = v.kind_count().min(MAX_KINDS);
        let squares: Vec<Square> = v.shape.squares().collect();
        let empty = empty_board(v);
        let mut facts = KindFacts {
            value: [0; MAX_KINDS],
            average_reach: [0; MAX_KINDS],
            pawns: 0,
            armed: 0,
            royal: v.royal,
            phase_weight: [0; MAX_KINDS],
            phase_total: 0,
        };
        for k in 0..kinds {
            let kind = PieceKind(k as u8);
            if !v.promotions[Color::White][k].is_empty() {
                facts.pawns |= 1 << k;
            }
            if v.motion.rules(Color::White, kind).iter().any(|r| r.mode.captures()) {
                facts.armed |= 1 << k;
            }
            for color in Color::ALL {
                let cell = Cell::piece(color, kind);
                for &sq in &squares {
                    let n = empty_board_reach(v, &empty, color, kind, sq);
                    reach[cell.0 as usize * MAILBOX_SIZE + sq.index()] = n.clamp(0, 255) as u8;
                }
            }
            let white = Cell::piece(Color::White, kind).0 as usize * MAILBOX_SIZE;
            let total: i32 = squares.iter().map(|sq| reach[white + sq.index()] as i32).sum();
            let average = total / squares.len().max(1) as i32;
            facts.average_reach[k] = average;
            let declared = v.pieces[k].value;
            let royal = v.royal == Some(kind);
            facts.value[k] = if royal {
                0
            } else if declared == 0 {
                30 * average + 150
            } else {
                declared
            };
            if !royal && facts.pawns >> k & 1 == 0 {
                facts.phase_weight[k] = facts.value[k].max(0);
            }
        }
        // A pawn that promotes to an armed kind is armed (repeat for chains).
        for _ in 0..kinds {
            for k in 0..kinds {
                if v.promotions[Color::White][k].iter().any(|p| facts.armed >> p.0 & 1 != 0) {
                    facts.armed |= 1 << k;
                }
            }
        }
        if let Some(start) = start {
            for &sq in start.squares() {
                let c = start.cell(sq);
                if c.is_piece() {
                    facts.phase_total += facts.phase_weight[c.kind().index()];
                }
            }
            for color in Color::ALL {
                for k in 0..kinds {
                    let n = start.hand_count(color, PieceKind(k as u8)) as i32;
                    facts.phase_total += facts.phase_weight[k] * n;
                }
            }
        }
        facts.phase_total = facts.phase_total.max(1);
        facts
    }

    #[inline(always)]
    fn is_pawn(&self, kind: PieceKind) -> bool {
        self.pawns >> kind.0 & 1 != 0
    }

    #[inline(always)]
    fn is_armed(&self, kind: PieceKind) -> bool {
        self.armed >> kind.0 & 1 != 0 && self.royal != Some(kind)
    }
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
                let score = stack.evaluate(net, &self.features, ply, pos.side_to_move());
                // Unit tests check every incremental evaluation against a fresh one.
                #[cfg(test)]
                assert_eq!(score, evaluate_fresh(net, pos), "ply {ply}: {}", pos.to_fen());
                score
            }
            None => evaluate_fresh(net, pos),
        };
        output + self.network_base(pos)
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

    /// The score of `pos` by the weights, whatever the network.
    pub fn linear(&self, pos: &Position) -> i32 {
        if self.material_only {
            return self.material(pos);
        }
        let mut sum = Sum { weights: &self.weights, mg: self.mg_constant, eg: 0 };
        let walked = self.walk(pos, &mut sum);
        let (phase, scale) = self.phase_and_scale(&walked, sum.mg, sum.eg);
        let score = (sum.mg * phase + sum.eg * (PHASE_MAX - phase)) / PHASE_MAX * scale / SCALE_MAX;
        if pos.side_to_move() == Color::White {
            score
        } else {
            -score
        }
    }

    /// The features of `pos`, for the tuner (see [`Trace`]).
    pub fn trace(&self, pos: &Position) -> Trace {
        let n = self.layout.len();
        let mut tracer = Tracer { mg: vec![0; n], eg: vec![0; n] };
        let walked = self.walk(pos, &mut tracer);
        for (count, start) in tracer.mg.iter_mut().zip(self.start_features.iter()) {
            *count -= start;
        }
        let (mut mg, mut eg) = (0, 0);
        for (p, w) in self.weights.iter().enumerate() {
            mg += w.mg * tracer.mg[p];
            eg += w.eg * tracer.eg[p];
        }
        let (phase, scale) = self.phase_and_scale(&walked, mg, eg);
        let terms = (0..n)
            .filter(|&p| tracer.mg[p] != 0 || tracer.eg[p] != 0)
            .map(|p| (p as u16, tracer.mg[p] as f32, tracer.eg[p] as f32))
            .collect();
        Trace { phase, scale, terms }
    }

    /// The start position's features, White's minus Black's, tempo left out.
    /// The evaluation takes them back in the middlegame, so that the start
    /// scores level: the Clash armies differ in material, reach and
    /// placement by design, and an evaluation that rates one army better
    /// from move one makes that side's opponent settle for early repetitions.
    /// (Zero in every variant whose armies mirror each other.)
    fn start_features(&self) -> Vec<i32> {
        let n = self.layout.len();
        let mut tracer = Tracer { mg: vec![0; n], eg: vec![0; n] };
        if let Ok(start) = Position::startpos(Arc::clone(&self.variant)) {
            self.walk(&start, &mut tracer);
        }
        tracer.mg[self.layout.tempo] = 0;
        tracer.mg
    }

    /// The blend's phase (0..=256) and the score's scale (0..=64).
    fn phase_and_scale(&self, walked: &Walked, mg: i32, eg: i32) -> (i32, i32) {
        let phase = (walked.phase * PHASE_MAX / self.facts.phase_total).min(PHASE_MAX);
        let score = mg * phase + eg * (PHASE_MAX - phase);
        let ahead = if score >= 0 { Color::White } else { Color::Black };
        let scale = if walked.armed[ahead.index()] { SCALE_MAX } else { CANNOT_MATE_SCALE };
        (phase, scale)
    }

    /// The features that depend only on a man and its square.
    #[inline(always)]
    fn static_features(&self, color: Color, kind: PieceKind, sq: Square, mut feature: impl FnMut(usize, i32)) {
        let (l, k) = (&*self.layout, kind.index());
        let shape = self.variant.shape;
        let progress = match color {
            Color::White => sq.rank() as i32,
            Color::Black => shape.ranks as i32 - 1 - sq.rank() as i32,
        };
        let reach = self.reach[Cell::piece(color, kind).0 as usize * MAILBOX_SIZE + sq.index()] as i32;
        feature(l.material + k, 1);
        if self.facts.royal == Some(kind) {
            feature(l.centre + k, reach - self.facts.average_reach[k]);
            feature(l.king_forward, progress.min(3));
        } else if self.facts.is_pawn(kind) {
            feature(l.pawn_rank + progress as usize, 1);
            let from_centre = (2 * sq.file() as i32 - (shape.files as i32 - 1)).abs();
            feature(l.pawn_centre, (3 - from_centre).max(0));
        } else {
            feature(l.centre + k, reach - self.facts.average_reach[k]);
        }
    }

    /// One pass over the men and hands: every feature but the static ones
    /// goes to `sink` (the static ones through [`Sink::man`]).
    #[inline(always)]
    fn walk<S: Sink>(&self, pos: &Position, sink: &mut S) -> Walked {
        let board = pos.board();
        let mut maps = Maps::new([pos.king_square(Color::White), pos.king_square(Color::Black)]);
        let mut walked = Walked { phase: 0, armed: [false; 2] };
        for &sq in pos.squares() {
            let c = board[sq.index()];
            if c.is_piece() {
                self.walk_man(board, sq, c, &mut maps, &mut walked, sink);
            }
        }
        self.colour_terms(pos, &maps, &mut walked, sink);
        self.threats_and_pawns(&maps, sink);
        self.mop_up(&walked, maps.kings, sink);
        sink.add(self.layout.tempo, sign(pos.side_to_move()));
        walked
    }

    /// One man on the board: its static terms, phase and armament, its
    /// attacks into the maps, its mobility, and its pawn file or tropism.
    #[inline(always)]
    fn walk_man<S: Sink>(
        &self,
        board: &Board,
        sq: Square,
        c: Cell,
        maps: &mut Maps,
        walked: &mut Walked,
        sink: &mut S,
    ) {
        let (l, facts) = (&*self.layout, &*self.facts);
        let (color, kind) = (c.color(), c.kind());
        let (k, us, sign) = (kind.index(), color.index(), sign(color));
        sink.man(self, c, sq);
        walked.phase += facts.phase_weight[k];
        walked.armed[us] |= facts.is_armed(kind);
        let _ = maps.men.try_push((sq, c));
        let enemy_king = maps.kings[(!color).index()];
        let mobility = self.man_attacks(board, sq, c, maps);
        if facts.is_pawn(kind) {
            let f = sq.file() as usize & 15;
            maps.pawn_files[us][f] += 1;
            maps.pawn_lowest[us][f] = maps.pawn_lowest[us][f].min(sq.rank() as i32);
            maps.pawn_highest[us][f] = maps.pawn_highest[us][f].max(sq.rank() as i32);
        } else if facts.phase_weight[k] > 0 {
            sink.add(l.mobility + k, sign * (mobility - facts.average_reach[k] / 2));
            if let Some(king) = enemy_king {
                let d =
                    (sq.file() as i32 - king.file() as i32).abs().max((sq.rank() as i32 - king.rank() as i32).abs());
                maps.tropism[(!color).index()] += (4 - d).max(0);
            }
        }
    }

    /// The squares a man attacks, into the attack maps and the enemy king
    /// zone's units. Returns its mobility: squares it can move to or
    /// capture on.
    #[inline(always)]
    fn man_attacks(&self, board: &Board, sq: Square, c: Cell, maps: &mut Maps) -> i32 {
        let facts = &*self.facts;
        let (color, kind) = (c.color(), c.kind());
        let (k, us) = (kind.index(), color.index());
        let royal = facts.royal == Some(kind);
        let pawn = facts.is_pawn(kind);
        let enemy_king = maps.kings[(!color).index()];
        let mut mobility = 0;
        let mut zone_hits = 0;
        for rule in self.variant.motion.rules(color, kind) {
            // The king's own attacks are left out: they rarely defend for long.
            if rule.initial_only || royal {
                continue;
            }
            if rule.mode.captures() {
                let quiet = rule.mode.quiet();
                for_each_attacked(
                    board,
                    sq,
                    rule,
                    #[inline(always)]
                    |to| {
                        let t = board[to.index()];
                        let count = &mut maps.attacks[us][to.index()];
                        *count = count.saturating_add(1);
                        let least = &mut maps.cheapest[us][to.index()];
                        *least = (*least).min(self.value_rank[k]);
                        if t.is_color(!color) || (quiet && t.is_empty()) {
                            mobility += 1;
                        }
                        zone_hits += i32::from(in_zone(to, enemy_king));
                    },
                );
            } else if !pawn && !royal {
                for_each_target(board, sq, rule, !color, |_| mobility += 1);
            }
        }
        if !royal && zone_hits > 0 {
            maps.zone_units[us][k] += zone_hits;
            maps.zone_attackers[us] += 1;
        }
        mobility
    }

    /// The terms of each colour as a whole: men in hand, doubled pawns,
    /// tropism, the king's shield and the attacks on its zone.
    #[inline(always)]
    fn colour_terms<S: Sink>(&self, pos: &Position, maps: &Maps, walked: &mut Walked, sink: &mut S) {
        let (l, facts) = (&*self.layout, &*self.facts);
        let kinds = self.variant.kind_count().min(MAX_KINDS);
        for color in Color::ALL {
            let (us, sign) = (color.index(), sign(color));
            for k in 0..kinds {
                let n = pos.hand_count(color, PieceKind(k as u8)) as i32;
                if n > 0 {
                    sink.add(l.hand + k, sign * n);
                    walked.phase += n * facts.phase_weight[k];
                    walked.armed[us] |= facts.is_armed(PieceKind(k as u8));
                }
            }
            let doubled: i32 = maps.pawn_files[us].iter().map(|&n| (n as i32 - 1).max(0)).sum();
            sink.add(l.doubled, sign * doubled);
            sink.add(l.tropism, sign * maps.tropism[us]);
            if let Some(king) = maps.kings[us] {
                sink.add(l.shield, sign * self.shield(pos, color, king));
            }
            let scale = ATTACKERS_SCALE[maps.zone_attackers[us].min(ATTACKERS_SCALE.len() - 1)];
            if scale > 0 {
                for (k, &units) in maps.zone_units[us].iter().enumerate().take(kinds) {
                    if units > 0 {
                        sink.add(l.king_attack + k, sign * units * scale);
                    }
                }
            }
        }
    }

    /// The terms of each man that need the full attack maps and pawn files:
    /// threats and hanging men, isolated and passed pawns.
    #[inline(always)]
    fn threats_and_pawns<S: Sink>(&self, maps: &Maps, sink: &mut S) {
        let (l, facts) = (&*self.layout, &*self.facts);
        let ranks = self.variant.shape.ranks as i32;
        for &(sq, c) in &maps.men {
            let (color, kind) = (c.color(), c.kind());
            let (k, us, them) = (kind.index(), color.index(), (!color).index());
            if facts.royal == Some(kind) {
                continue;
            }
            if maps.attacks[them][sq.index()] > 0 {
                if maps.cheapest[them][sq.index()] < self.value_rank[k] {
                    sink.add(l.threat + k, -sign(color));
                } else if maps.attacks[us][sq.index()] == 0 {
                    sink.add(l.hanging, -sign(color));
                }
            }
            if facts.is_pawn(kind) {
                let f = sq.file() as usize & 15;
                let rank = sq.rank() as i32;
                let neighbours = [f.wrapping_sub(1) & 15, (f + 1) & 15];
                if neighbours.iter().all(|&n| maps.pawn_files[us][n] == 0) {
                    sink.add(l.isolated, sign(color));
                }
                let blocked = [f.wrapping_sub(1) & 15, f, (f + 1) & 15].iter().any(|&n| match color {
                    Color::White => maps.pawn_highest[them][n] > rank,
                    Color::Black => maps.pawn_lowest[them][n] < rank,
                });
                if !blocked {
                    let progress = if color == Color::White { rank } else { ranks - 1 - rank };
                    sink.add(l.passed + progress as usize, sign(color));
                }
            }
        }
    }

    /// Mop-up: when only one side has men that capture, it drives the other
    /// king to the edge and brings its own king next to it (a shallow search
    /// finds no mate in such endings without this guide).
    #[inline(always)]
    fn mop_up<S: Sink>(&self, walked: &Walked, kings: [Option<Square>; 2], sink: &mut S) {
        let l = &*self.layout;
        let shape = self.variant.shape;
        let from_centre = |n: i32, len: u8| (2 * n - (len as i32 - 1)).abs() / 2;
        for color in Color::ALL {
            let (us, them) = (color.index(), (!color).index());
            if let (true, false, Some(ours), Some(theirs)) =
                (walked.armed[us], walked.armed[them], kings[us], kings[them])
            {
                let (file, rank) = (theirs.file() as i32, theirs.rank() as i32);
                let edge = from_centre(file, shape.files) + from_centre(rank, shape.ranks);
                let distance = (ours.file() as i32 - file).abs().max((ours.rank() as i32 - rank).abs());
                sink.add(l.mopup_edge, sign(color) * edge);
                sink.add(l.mopup_close, sign(color) * (shape.files.max(shape.ranks) as i32 - distance));
            }
        }
    }

    /// Material balance from the side to move's point of view.
    fn material(&self, pos: &Position) -> i32 {
        let mut score = 0;
        for &sq in pos.squares() {
            let c = pos.cell(sq);
            if c.is_piece() {
                score += sign(c.color()) * self.value[c.kind().index()];
            }
        }
        for (k, &v) in self.value.iter().enumerate().take(self.variant.kind_count()) {
            let kind = PieceKind(k as u8);
            score += v * (pos.hand_count(Color::White, kind) as i32 - pos.hand_count(Color::Black, kind) as i32);
        }
        score * sign(pos.side_to_move())
    }

    /// Own men on the three squares in front of the king.
    fn shield(&self, pos: &Position, color: Color, king: Square) -> i32 {
        let forward = 16 * color.forward() as i16;
        let front = king.offset(forward);
        [front.offset(-1), front, front.offset(1)].iter().filter(|&&sq| pos.cell(sq).is_color(color)).count() as i32
    }
}

/// The default weights, derived from the variant's data.
fn derived_weights(v: &Variant, l: &Layout, facts: &KindFacts) -> Vec<Weight> {
    let mut w = vec![Weight::default(); l.len()];
    let ranks = v.shape.ranks as i32;
    for k in 0..v.kind_count().min(MAX_KINDS) {
        let kind = PieceKind(k as u8);
        let value = facts.value[k];
        let average = facts.average_reach[k].max(1);
        w[l.material + k] = Weight::flat(value);
        w[l.hand + k] = Weight::flat(value + value / 10);
        if facts.royal == Some(kind) {
            w[l.centre + k] = Weight { mg: -ratio(20, average), eg: ratio(40, average) };
            continue;
        }
        w[l.threat + k] = Weight::flat(value / 8);
        w[l.king_attack + k] = Weight { mg: (value / 100).max(1), eg: 0 };
        if !facts.is_pawn(kind) {
            w[l.centre + k] = Weight { mg: ratio(40, average), eg: ratio(20, average) };
            w[l.mobility + k] = Weight::flat(3);
        }
    }
    for r in 0..ranks {
        // Scaled so that the rank before promotion is "6" on any board.
        let p = r * 6 / (ranks - 2).max(1);
        w[l.pawn_rank + r as usize] = Weight { mg: 2 * p * p, eg: 4 * p * p };
        w[l.passed + r as usize] = Weight { mg: p * p, eg: 3 * p * p };
    }
    w[l.hanging] = Weight::flat(20);
    w[l.doubled] = Weight::flat(-15);
    w[l.isolated] = Weight::flat(-10);
    w[l.shield] = Weight { mg: 10, eg: 0 };
    w[l.tropism] = Weight { mg: -3, eg: 0 };
    w[l.king_forward] = Weight { mg: -12, eg: 0 };
    w[l.pawn_centre] = Weight { mg: 3, eg: 0 };
    w[l.tempo] = Weight::flat(12);
    w[l.mopup_edge] = Weight::flat(20);
    w[l.mopup_close] = Weight::flat(10);
    w
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::registry::Registry;

    #[test]
    fn start_positions_are_balanced() {
        let reg = crate::eval::catalogue::Catalogue::builtin();
        for name in reg.registry().names() {
            let Some(v) = reg.get(&name) else { continue };
            let ev = reg.evaluator(&v, EvalMode::Full);
            let Ok(pos) = Position::startpos(Arc::clone(&v)) else {
                continue;
            };
            // Everything but the tempo is taken back at the start, also
            // where the armies differ (Clash).
            let tempo = ev.weights()[ev.layout().tempo].mg;
            assert_eq!(ev.linear(&pos), tempo, "{name}");
        }
    }

    #[test]
    fn mop_up_drives_the_lone_king_to_the_edge_and_brings_ours_closer() {
        let reg = crate::eval::catalogue::Catalogue::builtin();
        let v = reg.get("chess").expect("chess ships");
        let ev = reg.evaluator(&v, EvalMode::Full);
        let score = |fen: &str| ev.evaluate(&Position::from_fen(Arc::clone(&v), fen).expect("valid FEN"));
        let edge = ev.weights()[ev.layout().mopup_edge];
        let close = ev.weights()[ev.layout().mopup_close];
        assert!(edge.eg > 0 && close.eg > 0);
        // The black king on e5 (centre) and on h5 (edge), the white king far.
        let centre = score("8/8/8/4k3/8/8/8/R6K w - - 0 1");
        let side = score("8/8/8/7k/8/8/8/R6K w - - 0 1");
        assert!(side > centre, "edge {side} centre {centre}");
        // The white king next to the black one, or far from it.
        let near = score("8/8/8/7k/8/6K1/8/R7 w - - 0 1");
        assert!(near > side, "near {near} far {side}");
        // A black knight can capture: no mop-up, so only the ordinary terms move.
        let mops_up = |fen: &str| {
            let t = ev.trace(&Position::from_fen(Arc::clone(&v), fen).expect("valid FEN"));
            t.terms.iter().any(|&(p, _, _)| p as usize == ev.layout().mopup_edge)
        };
        assert!(mops_up("8/8/8/7k/8/8/8/R6K w - - 0 1"));
        assert!(!mops_up("8/8/8/6nk/8/8/8/R6K w - - 0 1"));
    }

    #[test]
    fn extra_queen_is_good() {
        let reg = crate::eval::catalogue::Catalogue::builtin();
        let v = reg.get("chess").expect("chess ships");
        let ev = reg.evaluator(&v, EvalMode::Full);
        let pos = Position::from_fen(Arc::clone(&v), "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
            .expect("valid FEN");
        assert!(ev.evaluate(&pos) > 700);
    }

    #[test]
    fn knights_prefer_the_centre() {
        let reg = crate::eval::catalogue::Catalogue::builtin();
        let v = reg.get("chess").expect("chess ships");
        let ev = reg.evaluator(&v, EvalMode::Full);
        let centre = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/3N4/8/8/4K3 w - - 0 1").expect("valid");
        let corner = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/8/N3K3 w - - 0 1").expect("valid");
        assert!(ev.evaluate(&centre) > ev.evaluate(&corner));
    }

    #[test]
    fn material_only_counts_men_and_hands_and_nothing_else() {
        let reg = Registry::builtin();
        let v = reg.get("clockwork").expect("clockwork ships");
        let ev = Evaluator::material_only(&v);
        assert!(ev.is_material_only());
        let n = ev.value(v.kind_of_letter('N').expect("knight"));
        // A centralised and a cornered knight score alike: no piece-square terms.
        let centre = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/3N4/8/8/4K3 w - - 0 1").expect("valid");
        let corner = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/8/N3K3 b - - 0 1").expect("valid");
        assert_eq!(ev.evaluate(&centre), n);
        assert_eq!(ev.evaluate(&corner), -n);
        // A knight in White's hand counts the same as one on the board.
        let hand = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1").expect("valid");
        assert_eq!(ev.evaluate(&hand), n);
    }

    #[test]
    fn army_balance_fades_with_the_pieces() {
        let reg = crate::eval::catalogue::Catalogue::builtin();
        let v = reg.get("clash5").expect("clash5 ships");
        let (full, material) = (reg.evaluator(&v, EvalMode::Full), Evaluator::material_only(&v));
        let start = Position::startpos(Arc::clone(&v)).expect("start");
        // White's army is worth over ten pawns more by the file's values...
        assert!(material.evaluate(&start) > 1000);
        // ...which the full evaluation takes back at the start...
        assert!(full.evaluate(&start).abs() < 250, "{}", full.evaluate(&start));
        // ...but not once the pieces are gone: a lone extra pawn is still an extra pawn.
        let ending = Position::from_fen(Arc::clone(&v), "4k5/10/10/10/10/10/4P5/10/10/5K4 w - - 0 1").expect("valid");
        assert!(full.evaluate(&ending) > 50, "{}", full.evaluate(&ending));
    }
}

#[cfg(test)]
mod trace_tests {
    use super::*;
    use crate::board::registry::Registry;
    use crate::rules::moves::MoveList;

    /// Positions of every shipped variant from a fixed pseudo-random walk.
    fn walk_positions(v: &Arc<Variant>, games: u64) -> Vec<Position> {
        let mut out = Vec::new();
        let mut list = MoveList::new();
        for game in 0..games {
            let Ok(mut pos) = Position::startpos(Arc::clone(v)) else { return out };
            let mut seed = game.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
            for _ in 0..120 {
                pos.generate_legal(&mut list);
                if list.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                pos.make(list[(seed % list.len() as u64) as usize]);
                out.push(Position::from_fen(Arc::clone(v), &pos.to_fen()).expect("own FEN"));
            }
        }
        out
    }

    #[test]
    fn trace_and_fast_path_agree_in_every_variant() {
        let reg = Registry::builtin();
        for name in reg.names() {
            let v = reg.get(&name).expect("listed");
            let hand = Evaluator::hand(&v);
            // Odd weights too, so that no feature hides behind a zero weight.
            let odd: Vec<Weight> = (0..hand.layout().len())
                .map(|i| Weight { mg: (i as i32 * 7) % 23 - 9, eg: (i as i32 * 5) % 19 - 7 })
                .collect();
            for ev in [hand.clone(), hand.clone().with_weights(odd)] {
                for pos in walk_positions(&v, 4) {
                    let fast = ev.evaluate(&pos) * sign(pos.side_to_move());
                    let traced = ev.trace(&pos).score(ev.weights());
                    assert!(
                        (fast as f64 - traced).abs() <= 2.0,
                        "{name} {}: fast {fast} traced {traced}",
                        pos.to_fen()
                    );
                }
            }
        }
    }

    #[test]
    fn a_side_that_can_capture_nothing_cannot_win() {
        let reg = crate::eval::catalogue::Catalogue::builtin();
        let v = reg.get("clockwork").expect("clockwork ships");
        let ev = reg.evaluator(&v, EvalMode::Full);
        // White is a rook up in non-capturing men only (U: NC rook, S: NC pawns).
        let nc = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/SSS5/U3K3 w - - 0 1").expect("valid");
        let real = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/PPP5/R3K3 w - - 0 1").expect("valid");
        let (nc, real) = (ev.evaluate(&nc), ev.evaluate(&real));
        assert!(real > 400, "{real}");
        assert!(nc < real / 4, "non-capturing {nc} against capturing {real}");
    }
}
