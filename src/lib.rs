//! menagerie: a variant-aware chess engine. Rules are data (`variants/*.var`),
//! compiled into move rules that one generic mailbox generator executes.
//!
//! The modules stand in layers, each using only those below it: the order is
//! declared in `docs/architecture.md` and held by `tests/architecture.rs`.
// One audited exception: the table's prefetch hint (`search::tt::prefetch_line`).
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod board;
pub mod engine;
pub mod eval;
pub mod game;
pub mod gui;
pub mod matches;
pub mod play;
pub mod players;
pub mod protocol;
pub mod rules;
pub mod search;
pub mod training;
