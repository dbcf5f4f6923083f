//! The linear evaluation's features: one walk over the men and hands
//! gathers the attack maps, pawn files and king zones, and hands every
//! feature to a sink, which either applies the weights at once (the fast
//! path, [`Evaluator::linear`]) or counts the features for the tuner
//! ([`Evaluator::trace`]).

use std::sync::Arc;

use arrayvec::ArrayVec;

use crate::board::position::Position;
use crate::eval::{Evaluator, Layout, Weight};
use crate::rules::geometry::{offset, Square, MAILBOX_SIZE, MAILBOX_WIDTH, MAX_BOARD_SIDE};
use crate::rules::motion::{for_each_attacked, for_each_target, Board};
use crate::rules::piece::{Cell, Color, PieceKind, MAX_KINDS};

/// Largest phase value (all non-pawn material on the board).
pub(super) const PHASE_MAX: i32 = 256;
/// Full scale of a score; a side that cannot mate gets [`CANNOT_MATE_SCALE`].
const SCALE_MAX: i32 = 64;
/// The scale of a score when the side ahead can capture nothing.
const CANNOT_MATE_SCALE: i32 = 8;
/// King-zone attack units count this much per number of attackers: one
/// attacker alone is rarely dangerous.
const ATTACKERS_SCALE: [i32; 8] = [0, 0, 1, 2, 3, 4, 4, 4];
/// Most men on a board.
const MAX_MEN: usize = MAX_BOARD_SIDE as usize * MAX_BOARD_SIDE as usize;
/// Mailbox index distances from a square to the nearest and farthest of the
/// three squares next to it on the next rank (the king's zone).
const NEXT_RANK_NEAREST: i32 = MAILBOX_WIDTH - 1;
const NEXT_RANK_FARTHEST: i32 = MAILBOX_WIDTH + 1;
/// Slots of the pawn-file maps: one per file of a mailbox row, more than a
/// board has, so the wrapped neighbours of the edge files are empty slots.
const FILE_SLOTS: usize = MAILBOX_WIDTH as usize;
/// Keeps a file index (or its wrapped neighbour) within the slots (their
/// count is a power of two).
const FILE_MASK: usize = FILE_SLOTS - 1;

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
        let sum: f64 = self.terms.iter().map(|&term| self.blended(weights, term)).sum();
        sum * self.scale as f64 / SCALE_MAX as f64
    }

    /// One term's middlegame and endgame parts blended by the phase, before the scale.
    fn blended(&self, weights: &[Weight], (p, mg, eg): (u16, f32, f32)) -> f64 {
        let phase = self.phase as f64 / PHASE_MAX as f64;
        let w = weights[p as usize];
        w.mg as f64 * mg as f64 * phase + w.eg as f64 * eg as f64 * (1.0 - phase)
    }

    /// [`Trace::score`] split by what the terms are about: one
    /// `(group, centipawns)` per group of [`TERM_GROUPS`], White's view,
    /// blended and scaled as the whole score is (the `eval` command's table).
    pub fn by_group(&self, weights: &[Weight], layout: &Layout) -> Vec<(&'static str, f64)> {
        let scale = self.scale as f64 / SCALE_MAX as f64;
        let mut groups: Vec<(&'static str, f64)> = TERM_GROUPS.iter().map(|&(group, _)| (group, 0.0)).collect();
        for &term in &self.terms {
            let family = layout.family(term.0 as usize);
            if let Some(at) = TERM_GROUPS.iter().position(|(_, families)| families.contains(&family)) {
                groups[at].1 += self.blended(weights, term) * scale;
            }
        }
        groups
    }
}

/// The parameter families ([`Layout`]) of each group the `eval` command
/// shows; every family is in one group.
pub const TERM_GROUPS: [(&str, &[&str]); 8] = [
    ("Material", &["material", "hand"]),
    ("Centralisation", &["centre"]),
    ("Mobility", &["mobility"]),
    ("Threats", &["threat", "hanging"]),
    ("King safety", &["king_attack", "shield", "tropism", "king_forward"]),
    ("Pawns", &["pawn_rank", "passed", "doubled", "isolated", "pawn_centre"]),
    ("Tempo", &["tempo"]),
    ("Mop-up", &["mopup_edge", "mopup_close"]),
];

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
    // The mailbox pads the board, so these offsets never wrap.
    king.is_some_and(
        |k| matches!((sq.index() as i32 - k.index() as i32).abs(), 0..=1 | NEXT_RANK_NEAREST..=NEXT_RANK_FARTHEST),
    )
}

/// +1 for White, -1 for Black.
#[inline(always)]
pub(super) fn sign(color: Color) -> i32 {
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
    pawn_files: [[u8; FILE_SLOTS]; 2],
    pawn_lowest: [[i32; FILE_SLOTS]; 2],
    pawn_highest: [[i32; FILE_SLOTS]; 2],
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
            pawn_files: [[0u8; FILE_SLOTS]; 2],
            pawn_lowest: [[i32::MAX; FILE_SLOTS]; 2],
            pawn_highest: [[i32::MIN; FILE_SLOTS]; 2],
            zone_units: [[0i32; MAX_KINDS]; 2],
            zone_attackers: [0usize; 2],
            tropism: [0i32; 2],
        }
    }
}

impl Evaluator {
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
    pub(super) fn start_features(&self) -> Vec<i32> {
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
    pub(super) fn static_features(
        &self,
        color: Color,
        kind: PieceKind,
        sq: Square,
        mut feature: impl FnMut(usize, i32),
    ) {
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
            let f = sq.file() as usize & FILE_MASK;
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
                let f = sq.file() as usize & FILE_MASK;
                let rank = sq.rank() as i32;
                let neighbours = [f.wrapping_sub(1) & FILE_MASK, (f + 1) & FILE_MASK];
                if neighbours.iter().all(|&n| maps.pawn_files[us][n] == 0) {
                    sink.add(l.isolated, sign(color));
                }
                let blocked = [f.wrapping_sub(1) & FILE_MASK, f, (f + 1) & FILE_MASK].iter().any(|&n| match color {
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
        let forward = offset(0, color.forward());
        let front = king.offset(forward);
        [front.offset(-1), front, front.offset(1)].iter().filter(|&&sq| pos.cell(sq).is_color(color)).count() as i32
    }
}
