//! The rules on a board: the position with make/unmake, and what extends it
//! (FEN, move generation, move text, the game-end rule, static exchange), the
//! move-list bound, perft, and the registry of variants checked against them.

pub mod capacity;
pub mod fen;
pub mod movegen;
pub mod notation;
pub mod outcome;
pub mod perft;
pub mod position;
pub mod pseudo_legal;
pub mod registry;
pub mod see;
