//! Learning from self-play: games played by the engine ([`selfplay`]), the
//! network's training data ([`datagen`]) and trainer ([`train`]), and the
//! linear evaluation's tuner ([`tune`], fitting with [`fit`]); the math the
//! two fits share ([`math`]).

pub mod datagen;
pub mod fit;
pub mod math;
pub mod selfplay;
pub mod train;
pub mod tune;
