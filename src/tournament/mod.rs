//! Tournaments refereed by the rules core: players (external engines over UCI or XBoard),
//! one game, the match runner with its statistics and PGN, openings, the
//! random sparring engine, and the `match`/`play`/`analyse`/`score` command lines.

pub mod analyse;
pub mod cli;
pub mod play;
pub mod player;
pub mod random_engine;
pub mod referee;
pub mod runner;
pub mod score;
pub mod stats;
