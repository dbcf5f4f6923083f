//! The command line's own games and analysis: `menagerie play` (a game in the
//! terminal, or between two engines) and `menagerie analyse` (a game or a
//! test suite analysed by an engine).

pub mod analyse;
pub mod figures;
pub mod terminal;
