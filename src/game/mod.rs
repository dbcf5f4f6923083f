//! The game's notation and record, below both the arbiter (`tournament`) and
//! the board (`gui`), and shared with self-play (`tune`): SAN, PGN, the game
//! record, time controls and who wins on time, openings, adjudication, test suites (EPD), the
//! analysis of a game move by move and its accuracy as lichess gives it.

pub mod accuracy;
pub mod adjudicate;
pub mod analysis;
pub mod epd;
pub mod flag;
pub mod openings;
pub mod pgn;
pub mod record;
pub mod san;
pub mod tc;
