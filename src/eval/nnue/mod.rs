//! A learned evaluation of the NNUE family, sized for this engine: per
//! perspective one hidden layer over (colour, kind, square) inputs and the
//! men in hand ([`features`]), the two halves side to move first into one
//! output ([`network`]), kept up to date move by move ([`accumulator`]) and
//! stored in `NAME.nnue` files ([`file`]); trained on data files of
//! records and games ([`games`]), read as a stream ([`data`]).

pub mod accumulator;
pub mod data;
pub mod features;
pub mod file;
pub mod games;
pub mod network;

pub use accumulator::{Accumulator, AccumulatorStack};
pub use features::{FeatureSet, View};
pub use file::NetworkError;
pub use network::{Activation, FloatNetwork, Network, NetworkHeader};

use crate::board::position::Position;
use crate::rules::variant::Variant;

/// Checks that `net` fits `variant` (same pieces, board and hands, king
/// buckets for its board, and the input count those give).
pub fn check_fits(net: &Network, variant: &Variant) -> Result<(), NetworkError> {
    if let Some(why) = net.header.mismatch(variant) {
        return Err(NetworkError::WrongVariant(why));
    }
    let buckets = &net.header.king_buckets;
    if !buckets.is_empty() {
        features::check_king_buckets(buckets, variant.shape.files, variant.shape.ranks)
            .map_err(|why| NetworkError::WrongVariant(format!("king-buckets: {why}")))?;
    }
    let inputs = net.header.features(variant).len();
    if net.inputs != inputs {
        return Err(NetworkError::WrongVariant(format!(
            "the network has {} inputs, the variant '{}' {inputs}",
            net.inputs, variant.name
        )));
    }
    Ok(())
}

/// The network's score of `pos` computed from scratch, in centipawns for
/// the side to move (for tests and for positions outside a search).
pub fn evaluate_fresh(net: &Network, pos: &Position) -> i32 {
    let features = net.header.features(pos.variant());
    let mut acc = Accumulator::new(net);
    acc.refresh(net, &features, pos);
    acc.evaluate(net, pos.side_to_move(), accumulator::board_men(pos))
}

/// The float network's score of `pos`, in centipawns for the side to move.
pub fn evaluate_float(net: &FloatNetwork, pos: &Position) -> f32 {
    let features = net.header.features(pos.variant());
    let h = net.header.hidden;
    let mut sums = [vec![0.0f32; h], vec![0.0f32; h]];
    for color in crate::rules::piece::Color::ALL {
        let mut active = Vec::new();
        features.active(pos, color, |i| active.push(i));
        net.accumulate(&active, &mut sums[color.index()]);
    }
    let us = pos.side_to_move().index();
    net.output(&sums[us], &sums[1 - us], net.header.output_bucket(accumulator::board_men(pos)))
}

#[cfg(test)]
mod tests;
