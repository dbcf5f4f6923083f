//! The accumulators: for each perspective, the hidden layer's sums before
//! the activation. A move changes only the rows of the men it lifted and put
//! down ([`Position::last_changes`]), so an accumulator follows a game by
//! subtracting and adding those rows; a fresh computation sums every active
//! row. The two must always agree (tested after every move of random games).

use super::features::FeatureSet;
use super::network::Network;
use crate::board::position::{Change, Changes, Place, Position};
use crate::rules::piece::Color;

/// Both perspectives' sums of one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    /// White's perspective, then Black's: `hidden` sums each.
    sums: Vec<i32>,
    hidden: usize,
}

impl Accumulator {
    /// An accumulator for `net` (all zeros until [`Accumulator::refresh`]).
    pub fn new(net: &Network) -> Accumulator {
        Accumulator { sums: vec![0; 2 * net.hidden()], hidden: net.hidden() }
    }

    /// The sums of one perspective.
    #[inline]
    pub fn perspective(&self, color: Color) -> &[i32] {
        let h = self.hidden;
        &self.sums[color.index() * h..(color.index() + 1) * h]
    }

    /// Computes both perspectives from scratch.
    pub fn refresh(&mut self, net: &Network, features: &FeatureSet, pos: &Position) {
        refresh_sums(&mut self.sums, net, features, pos);
    }

    /// Follows a move: subtracts the rows of the men it lifted, adds those
    /// of the men it put down.
    #[inline]
    pub fn update(&mut self, net: &Network, features: &FeatureSet, changes: &[Change]) {
        apply_changes(&mut self.sums, net, features, changes);
    }

    /// The network's score of the position, in centipawns for `side_to_move`,
    /// with `men` men on the board (which choose the output bucket).
    #[inline]
    pub fn evaluate(&self, net: &Network, side_to_move: Color, men: usize) -> i32 {
        let bucket = net.header.output_bucket(men);
        net.output(self.perspective(side_to_move), self.perspective(!side_to_move), bucket)
    }
}

/// The men on the board of `pos` (output buckets count them).
pub fn board_men(pos: &Position) -> usize {
    pos.squares().iter().filter(|&&sq| !pos.cell(sq).is_empty()).count()
}

/// How a move's changes change the men on the board.
#[inline]
fn men_change(changes: &[Change]) -> i32 {
    changes.iter().filter(|c| matches!(c.place, Place::Board(_))).map(|c| if c.added { 1 } else { -1 }).sum()
}

/// Both perspectives' sums (`2 * hidden`, White's first) of `pos`, from scratch.
fn refresh_sums(sums: &mut [i32], net: &Network, features: &FeatureSet, pos: &Position) {
    let h = net.hidden();
    for color in Color::ALL {
        let half = &mut sums[color.index() * h..(color.index() + 1) * h];
        for (s, &b) in half.iter_mut().zip(&net.hidden_bias) {
            *s = i32::from(b);
        }
        features.active(pos, color, |i| add_row(half, net.row(i)));
    }
}

/// Both perspectives' sums after a move: the rows of the men it lifted
/// subtracted, those of the men it put down added.
#[inline(always)]
fn apply_changes(sums: &mut [i32], net: &Network, features: &FeatureSet, changes: &[Change]) {
    let h = net.hidden();
    for color in Color::ALL {
        let half = &mut sums[color.index() * h..(color.index() + 1) * h];
        for c in changes {
            let row = net.row(features.index(color, c.cell, c.place));
            if c.added {
                add_row(half, row);
            } else {
                sub_row(half, row);
            }
        }
    }
}

#[inline(always)]
fn add_row(sums: &mut [i32], row: &[i16]) {
    for (s, &w) in sums.iter_mut().zip(row) {
        *s += i32::from(w);
    }
}

#[inline(always)]
fn sub_row(sums: &mut [i32], row: &[i16]) {
    for (s, &w) in sums.iter_mut().zip(row) {
        *s -= i32::from(w);
    }
}

/// The accumulators of a search, one per ply, brought up to date lazily: a
/// move only records what it changed ([`AccumulatorStack::push`]), and an
/// evaluation applies the changes from the nearest computed ply up
/// ([`AccumulatorStack::evaluate`]), so nodes cut off before their
/// evaluation cost nothing. Unmaking a move is stepping back a ply. Every
/// buffer is allocated once, up front.
#[derive(Clone, Debug)]
pub struct AccumulatorStack {
    /// `plies` accumulators of `2 * hidden` sums (White's perspective, then Black's).
    sums: Vec<i32>,
    /// The changes that lead to each ply from the one before.
    changes: Vec<Changes>,
    /// Whether each ply's sums are up to date.
    computed: Vec<bool>,
    /// The men on the board at each ply (kept at every push: output buckets need it).
    men: Vec<i32>,
    hidden: usize,
}

impl AccumulatorStack {
    /// A stack of `plies` accumulators for `net`.
    pub fn new(net: &Network, plies: usize) -> AccumulatorStack {
        let plies = plies.max(1);
        AccumulatorStack {
            sums: vec![0; plies * 2 * net.hidden()],
            changes: vec![Changes::new(); plies],
            computed: vec![false; plies],
            men: vec![0; plies],
            hidden: net.hidden(),
        }
    }

    /// Computes ply 0 from `pos` (the root of a search).
    pub fn reset(&mut self, net: &Network, features: &FeatureSet, pos: &Position) {
        refresh_sums(&mut self.sums[..2 * self.hidden], net, features, pos);
        self.computed[0] = true;
        self.men[0] = board_men(pos) as i32;
    }

    /// Records that ply `ply` follows ply `ply - 1` by `changes` (a null
    /// move changes nothing). `ply` must be at least 1 and below [`AccumulatorStack::plies`].
    #[inline]
    pub fn push(&mut self, ply: usize, changes: &[Change]) {
        let slot = &mut self.changes[ply];
        slot.clear();
        slot.try_extend_from_slice(changes).expect("a move changes at most MAX_CHANGES cells");
        self.computed[ply] = false;
        self.men[ply] = self.men[ply - 1] + men_change(changes);
    }

    /// The network's score at ply `ply` for `side_to_move`, in centipawns.
    #[inline]
    pub fn evaluate(&mut self, net: &Network, features: &FeatureSet, ply: usize, side_to_move: Color) -> i32 {
        self.bring_up_to_date(net, features, ply);
        let (h, base) = (self.hidden, ply * 2 * self.hidden);
        let (white, black) = self.sums[base..base + 2 * h].split_at(h);
        let bucket = net.header.output_bucket(self.men[ply].max(0) as usize);
        match side_to_move {
            Color::White => net.output(white, black, bucket),
            Color::Black => net.output(black, white, bucket),
        }
    }

    fn bring_up_to_date(&mut self, net: &Network, features: &FeatureSet, ply: usize) {
        let mut from = ply;
        while !self.computed[from] {
            // Ply 0 is computed by `reset`; a stack never reset starts from zeros.
            if from == 0 {
                break;
            }
            from -= 1;
        }
        let width = 2 * self.hidden;
        for p in from + 1..=ply {
            let (done, rest) = self.sums.split_at_mut(p * width);
            let next = &mut rest[..width];
            next.copy_from_slice(&done[(p - 1) * width..]);
            apply_changes(next, net, features, &self.changes[p]);
            self.computed[p] = true;
        }
    }
}
