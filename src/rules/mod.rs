//! The rules as data: squares on the padded mailbox, colours and kinds, the
//! move encoding, the one ray walker (`motion`), Betza text, Zobrist keys,
//! and the `Variant` compiled from a `.var` file. Nothing here knows a
//! position, an evaluation or a protocol.

pub mod betza;
pub mod geometry;
pub mod motion;
pub mod moves;
pub mod piece;
pub mod variant;
pub mod zobrist;
