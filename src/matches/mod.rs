//! Matches refereed by the rules core: one game ([`referee`]), the match
//! runner with its statistics and PGN, and the `match` and `score` command
//! lines. The players are [`crate::players`].

pub mod cli;
pub mod referee;
pub mod runner;
pub mod score;
pub mod stats;
