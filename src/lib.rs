//! menagerie: a variant-aware chess engine. Rules are data (`variants/*.var`),
//! compiled into move rules that one generic mailbox generator executes.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod betza;
pub mod fen;
pub mod geometry;
pub mod movegen;
pub mod moves;
pub mod notation;
pub mod perft;
pub mod piece;
pub mod position;
pub mod tournament;
pub mod variant;
pub mod zobrist;
