//! Learning from self-play: games played by the engine ([`selfplay`]) kept
//! as training data records, the network's data ([`datagen`]) and trainer
//! ([`train`]), and the linear evaluation's tuner ([`tune`], fitting with
//! [`fit`]), which read the same data files; the math the two fits share
//! ([`math`]).

pub mod datagen;
pub mod fit;
pub mod math;
pub mod positions;
pub mod selfplay;
pub mod train;
pub mod tune;
