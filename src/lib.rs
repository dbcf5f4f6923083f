//! menagerie: a variant-aware chess engine. Rules are data (`variants/*.var`),
//! compiled into move rules that one generic mailbox generator executes.
//!
//! The modules stand in layers, each using only those below it: the order is
//! declared in `docs/architecture.md` and held by `tests/architecture.rs`.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod bench;
pub mod betza;
pub mod capacity;
pub mod catalogue;
pub mod engine;
pub mod eval;
pub mod fen;
pub mod game;
pub mod geometry;
pub mod gui;
pub mod motion;
pub mod movegen;
pub mod moves;
pub mod nnue;
pub mod notation;
pub mod options;
pub mod outcome;
pub mod perft;
pub mod piece;
pub mod position;
pub mod protocol;
pub mod registry;
pub mod review;
pub mod search;
pub mod see;
pub mod skill;
pub mod smp;
pub mod tournament;
pub mod tt;
pub mod tune;
pub mod variant;
pub mod zobrist;
