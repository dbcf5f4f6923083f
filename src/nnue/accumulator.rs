//! The accumulators: for each perspective, the hidden layer's sums before
//! the activation. A move changes only the rows of the men it lifted and put
//! down ([`Position::last_changes`]), so an accumulator follows a game by
//! subtracting and adding those rows; a fresh computation sums every active
//! row. The two must always agree (tested after every move of random games).

use super::features::FeatureSet;
use super::network::Network;
use crate::piece::Color;
use crate::position::{Change, Position};

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
        let h = self.hidden;
        for color in Color::ALL {
            let sums = &mut self.sums[color.index() * h..(color.index() + 1) * h];
            for (s, &b) in sums.iter_mut().zip(&net.hidden_bias) {
                *s = i32::from(b);
            }
            features.active(pos, color, |i| add_row(sums, net.row(i)));
        }
    }

    /// Follows a move: subtracts the rows of the men it lifted, adds those
    /// of the men it put down.
    #[inline]
    pub fn update(&mut self, net: &Network, features: &FeatureSet, changes: &[Change]) {
        let h = self.hidden;
        for color in Color::ALL {
            let sums = &mut self.sums[color.index() * h..(color.index() + 1) * h];
            for c in changes {
                let row = net.row(features.index(color, c.cell, c.place));
                if c.added {
                    add_row(sums, row);
                } else {
                    sub_row(sums, row);
                }
            }
        }
    }

    /// The network's score of the position, in centipawns for `side_to_move`.
    #[inline]
    pub fn evaluate(&self, net: &Network, side_to_move: Color) -> i32 {
        net.output(self.perspective(side_to_move), self.perspective(!side_to_move))
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
