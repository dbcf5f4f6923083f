//! Analysis with an engine: a whole game searched position by position and
//! analysed move by move ([`analyse_game`]; the marks and the annotated PGN
//! are [`crate::game::analysis`]), and a test suite of EPD positions run to a limit
//! ([`run_suite`]). The engine is any [`Searcher`]: menagerie's own,
//! in-process ([`InProcess`]), or one a front end drives over a protocol.
//! Shared by `menagerie analyse` and the board's "Analyse game".

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use crate::board::position::Position;
use crate::engine::{Engine, EngineEvent};
use crate::eval::catalogue::Catalogue;
use crate::game::analysis::{analyse_moves, Assessment, Eval, GameAnalysis, Probe, Thresholds};
use crate::game::epd::EpdEntry;
use crate::game::pgn::Replayed;
use crate::rules::variant::Variant;
use crate::search::{Limits, Score};

/// An engine that searches one position at a time to a fixed limit.
pub trait Searcher {
    /// Prepares a game of `variant` (a new game: an empty hash table).
    fn new_game(&mut self, variant: &Arc<Variant>) -> Result<(), String>;
    /// Searches `pos`, reached from `start_fen` by `moves` (UCI text).
    fn search(&mut self, pos: &Position, start_fen: &str, moves: &[String]) -> Result<Probe, String>;
}

/// How long a search without a time limit may take before it is stopped.
const UNTIMED_WAIT: Duration = Duration::from_secs(3600);

/// menagerie's engine in this process, searching each position to `limits`.
pub struct InProcess {
    engine: Engine,
    limits: Limits,
}

impl InProcess {
    /// An engine over `catalogue` with `options` (`NAME=VALUE` as for UCI's
    /// `setoption`) that searches to `limits`.
    pub fn new(catalogue: Catalogue, options: &[String], limits: Limits) -> Result<InProcess, String> {
        let mut engine = Engine::with_catalogue(catalogue).ok_or("no loaded variant has a valid start position")?;
        for option in options {
            let (name, value) =
                option.split_once('=').ok_or_else(|| format!("bad option {option:?} (use NAME=VALUE)"))?;
            engine.set_option(name.trim(), value.trim()).map_err(|e| e.to_string())?;
        }
        Ok(InProcess { engine, limits })
    }
}

impl Searcher for InProcess {
    fn new_game(&mut self, variant: &Arc<Variant>) -> Result<(), String> {
        self.engine.set_variant(&variant.name).map_err(|e| e.to_string())?;
        self.engine.new_game();
        Ok(())
    }

    fn search(&mut self, _pos: &Position, start_fen: &str, moves: &[String]) -> Result<Probe, String> {
        let texts: Vec<&str> = moves.iter().map(String::as_str).collect();
        self.engine.set_position(Some(start_fen), &texts).map_err(|e| e.to_string())?;
        let (tx, rx) = mpsc::channel();
        let mut pv: Vec<String> = Vec::new();
        self.engine
            .go(self.limits.clone(), move |event| match event {
                EngineEvent::Info { info, pv: line } if info.multipv == 1 => pv = line,
                EngineEvent::BestMove { best_text, result, .. } => {
                    let _ = tx.send((best_text, result, std::mem::take(&mut pv)));
                }
                _ => {}
            })
            .map_err(|e| e.to_string())?;
        let wait = self.limits.movetime.map_or(UNTIMED_WAIT, |t| Duration::from_millis(t) + Duration::from_secs(30));
        let answer = rx.recv_timeout(wait);
        if answer.is_err() {
            self.engine.stop();
        }
        self.engine.wait();
        let (best, result, pv) = answer.map_err(|_| "the search did not finish in time".to_string())?;
        let (cp, mate) = match result.score {
            Score::Cp(cp) => (Some(cp), None),
            Score::Mate(n) => (None, Some(n)),
        };
        Ok(Probe { best, cp, mate, pv, depth: result.depth })
    }
}

/// The assessment of one position of a game: the rules' when the game is
/// over there, else the engine's.
fn assess(
    searcher: &mut dyn Searcher,
    pos: &mut Position,
    start_fen: &str,
    moves: &[String],
) -> Result<Assessment, String> {
    if let Some(end) = pos.game_end() {
        let eval = match end.outcome() {
            crate::board::outcome::Outcome::WhiteWins => Eval::Won(crate::rules::piece::Color::White),
            crate::board::outcome::Outcome::BlackWins => Eval::Won(crate::rules::piece::Color::Black),
            crate::board::outcome::Outcome::Draw => Eval::Drawn,
        };
        return Ok(Assessment { eval, best: None, line: Vec::new() });
    }
    let probe = searcher.search(pos, start_fen, moves)?;
    Assessment::from_probe(&probe, pos.side_to_move()).ok_or_else(|| "the engine gave no score".to_string())
}

/// Searches every position of `game` (each once, start and end included)
/// and analyses its moves. `progress(done, total)` is called after each search.
pub fn analyse_game(
    searcher: &mut dyn Searcher,
    game: &Replayed,
    thresholds: &Thresholds,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<GameAnalysis, String> {
    searcher.new_game(&game.variant)?;
    let start_fen = game.start_fen();
    let uci = game.uci_moves();
    let mut pos = game.start.clone();
    let total = game.moves.len() + 1;
    let mut assessments = Vec::with_capacity(total);
    for i in 0..total {
        let v =
            assess(searcher, &mut pos, &start_fen, &uci[..i]).map_err(|e| format!("position after {i} moves: {e}"))?;
        assessments.push(v);
        progress(i + 1, total);
        if let Some(&m) = game.moves.get(i) {
            pos.make(m);
        }
    }
    Ok(analyse_moves(&game.start, &game.moves, &assessments, thresholds))
}

/// One position of a suite as the engine answered it.
#[derive(Clone, Debug)]
pub struct SuiteResult {
    /// The entry's id.
    pub id: String,
    /// Its line in the file.
    pub line: usize,
    /// The engine's move as SAN (None when it gave none).
    pub played: Option<String>,
    /// The engine's score, side to move's view (`+0.35`, `#3`).
    pub score: String,
    /// Whether the move solves the entry.
    pub solved: bool,
    /// What was asked, as SAN: `bm Qh7#`, `am Nxe5`.
    pub wanted: String,
}

/// Runs each entry of a suite: one search from its position, solved when
/// the move played is one of its `bm` and none of its `am`.
pub fn run_suite(
    searcher: &mut dyn Searcher,
    entries: &[EpdEntry],
    progress: &mut dyn FnMut(&SuiteResult),
) -> Result<Vec<SuiteResult>, String> {
    let mut results = Vec::with_capacity(entries.len());
    for entry in entries {
        let mut pos = entry.position.clone();
        searcher.new_game(pos.variant())?;
        let probe = searcher.search(&pos, &pos.to_fen(), &[]).map_err(|e| format!("{}: {e}", entry.id))?;
        let played = probe.best.as_deref().and_then(|t| pos.parse_move(t).ok());
        let san = |pos: &mut Position, m| crate::game::san::move_to_san(pos, m);
        let mut wanted = Vec::new();
        for (op, moves) in [("bm", &entry.best), ("am", &entry.avoid)] {
            if !moves.is_empty() {
                let list: Vec<String> = moves.iter().map(|&m| san(&mut pos, m)).collect();
                wanted.push(format!("{op} {}", list.join(" ")));
            }
        }
        let score = Eval::from_side(probe.cp, probe.mate, crate::rules::piece::Color::White)
            .map_or_else(|| "?".to_string(), Eval::display);
        let result = SuiteResult {
            id: entry.id.clone(),
            line: entry.line,
            played: played.map(|m| san(&mut pos, m)),
            score,
            solved: played.is_some_and(|m| entry.solved_by(m)),
            wanted: wanted.join("; "),
        };
        progress(&result);
        results.push(result);
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::analysis::Mark;
    use crate::game::pgn::{read_pgn, replay};

    #[test]
    fn a_queen_left_en_prise_is_a_blunder() {
        let catalogue = Catalogue::builtin();
        let game = &read_pgn("1. e4 e5 2. Nf3 Nc6 3. Bc4 Qg5 4. Nxg5 *")[0];
        let replayed = replay(catalogue.registry(), game).unwrap();
        let limits = Limits { nodes: Some(20_000), ..Limits::default() };
        let mut engine = InProcess::new(catalogue.clone(), &[], limits).unwrap();
        let mut calls = 0;
        let analysis = analyse_game(&mut engine, &replayed, &Thresholds::LICHESS, &mut |_, total| {
            calls += 1;
            assert_eq!(total, 8);
        })
        .unwrap();
        assert_eq!(calls, 8);
        assert_eq!(analysis.moves.len(), 7);
        assert_eq!(analysis.moves[5].san, "Qg5");
        assert_eq!(analysis.moves[5].mark, Some(Mark::Blunder), "{:?}", analysis.moves[5]);
        assert!(analysis.moves[..5].iter().all(|m| m.mark != Some(Mark::Blunder)));
        assert_eq!(analysis.summary[1].blunders, 1);
    }
}
