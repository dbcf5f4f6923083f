//! The protocol-free engine front end (after Stockfish's `Engine`): it owns
//! the variant catalogue, the game (start position plus moves), the options and
//! the transposition table, and runs searches on a worker thread (with
//! `Threads - 1` helper threads beside it, sharing the table). Protocols
//! (`protocol/`) only translate text to these calls and events back to text.
//! Prints nothing.

pub mod analysis;
pub mod bench;
pub mod options;

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::board::fen::FenError;
use crate::board::notation::MoveError;
use crate::board::outcome::GameEnd;
use crate::board::perft::{divide, MAX_PERFT_DEPTH};
use crate::board::position::Position;
use crate::board::registry::Registry;
use crate::eval::catalogue::Catalogue;
use crate::eval::{EvalMode, Evaluator};
use crate::rules::moves::{Move, MoveList};
use crate::rules::variant::Variant;
use crate::search::skill::{Candidates, Skill};
use crate::search::smp::{search_with_helpers, spawn_search};
use crate::search::tt::TranspositionTable;
use crate::search::{Histories, Limits, PvInfo, Score, SearchControl, SearchEvent, SearchResult};
use options::{EngineOptions, OptionId, OptionKind, OptionValue};

pub use crate::search::smp::SEARCH_STACK_BYTES;
/// Why an engine call failed. The engine state is unchanged after an error.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// No loaded variant has this name.
    #[error("unknown variant {0:?}")]
    UnknownVariant(String),
    /// A FEN that does not fit the variant.
    #[error("bad FEN: {0}")]
    Fen(#[from] FenError),
    /// Move text that is malformed or illegal here.
    #[error("{0}")]
    Move(#[from] MoveError),
    /// Variant files that could not be loaded.
    #[error("cannot load variants: {0}")]
    VariantLoad(String),
    /// An option this engine does not have.
    #[error("unknown option {0:?}")]
    UnknownOption(String),
    /// A value an option does not accept.
    #[error("bad value {value:?} for option {name:?}")]
    BadOptionValue {
        /// Option name.
        name: String,
        /// The rejected value.
        value: String,
    },
    /// `undo` with no move played.
    #[error("no move to take back")]
    NothingToUndo,
    /// The operating system refused to start the search thread.
    #[error("cannot start the search thread: {0}")]
    Thread(String),
    /// A network that cannot be read or used.
    #[error("{0}")]
    Network(String),
}

/// What a running search reports, with moves already written as UCI text.
#[derive(Clone, Debug)]
pub enum EngineEvent {
    /// A finished principal variation.
    Info {
        /// The numbers.
        info: PvInfo,
        /// The line as UCI move text.
        pv: Vec<String>,
    },
    /// The root move being searched.
    CurrMove {
        /// Iteration depth.
        depth: u32,
        /// The move as UCI text.
        mv: String,
        /// Its 1-based number.
        number: usize,
    },
    /// The search is over.
    BestMove {
        /// Best move (None when there is no legal move).
        best: Option<Move>,
        /// Best move as UCI text.
        best_text: Option<String>,
        /// Expected reply as UCI text.
        ponder_text: Option<String>,
        /// Totals of the search.
        result: SearchResult,
    },
}

/// The engine: a game, options, a hash table and at most one running search.
pub struct Engine {
    catalogue: Catalogue,
    variant: Arc<Variant>,
    evaluator: Arc<Evaluator>,
    /// The position the game started from.
    start: Position,
    /// Moves played since `start`.
    moves: Vec<Move>,
    /// `start` with `moves` played.
    pos: Position,
    options: EngineOptions,
    tt: Arc<Mutex<TranspositionTable>>,
    /// The search threads' history tables, kept from move to move of a game.
    histories: Arc<Mutex<Vec<Histories>>>,
    control: Arc<SearchControl>,
    worker: Option<JoinHandle<()>>,
    /// Searches started so far: with the position, the seed of a weakened
    /// search's choice (reproducible, yet different each time).
    searches: u64,
}

impl Engine {
    /// An engine with the shipped variants, playing orthodox chess.
    pub fn new() -> Engine {
        // The shipped variants are embedded and tested, so this cannot fail on input.
        Engine::with_catalogue(Catalogue::builtin()).expect("the shipped variants include a playable one")
    }

    /// An engine over `catalogue`, playing its `chess` (or else its first)
    /// variant; None when no variant has a valid start position.
    pub fn with_catalogue(catalogue: Catalogue) -> Option<Engine> {
        let registry = catalogue.registry();
        let (variant, start) = registry
            .get("chess")
            .into_iter()
            .chain(registry.variants().cloned())
            .find_map(|v| Position::startpos(Arc::clone(&v)).ok().map(|p| (v, p)))?;
        let options = EngineOptions::default();
        Some(Engine {
            evaluator: Arc::new(catalogue.evaluator(&variant, options.evaluation)),
            catalogue,
            variant,
            pos: start.clone(),
            start,
            moves: Vec::new(),
            tt: Arc::new(Mutex::new(TranspositionTable::new(options.hash_mib))),
            histories: Arc::new(Mutex::new(Vec::new())),
            options,
            control: Arc::new(SearchControl::default()),
            worker: None,
            searches: 0,
        })
    }

    /// The loaded variants.
    pub fn registry(&self) -> &Registry {
        self.catalogue.registry()
    }
    /// The loaded variants with their evaluation data.
    pub fn catalogue(&self) -> &Catalogue {
        &self.catalogue
    }
    /// The variant being played.
    pub fn variant(&self) -> &Arc<Variant> {
        &self.variant
    }
    /// The current position.
    pub fn position(&self) -> &Position {
        &self.pos
    }
    /// The current options.
    pub fn options(&self) -> &EngineOptions {
        &self.options
    }
    /// Moves played since the start position.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The evaluator the options ask for.
    fn evaluator_for(&self, variant: &Arc<Variant>) -> Evaluator {
        self.catalogue.evaluator(variant, self.options.evaluation)
    }

    /// Switches to a variant by name and sets up its start position.
    pub fn set_variant(&mut self, name: &str) -> Result<Arc<Variant>, EngineError> {
        let variant = self.catalogue.get(name).ok_or_else(|| EngineError::UnknownVariant(name.to_string()))?;
        let start = Position::startpos(Arc::clone(&variant))?;
        self.stop_and_wait();
        self.evaluator = Arc::new(self.evaluator_for(&variant));
        self.variant = variant;
        self.pos = start.clone();
        self.start = start;
        self.moves.clear();
        self.clear_histories();
        Ok(Arc::clone(&self.variant))
    }

    /// Loads variant files from a file or directory; returns the names loaded.
    pub fn load_variants(&mut self, path: &Path) -> Result<Vec<String>, EngineError> {
        let mut catalogue = self.catalogue.clone();
        let names = catalogue.load_path(path).map_err(|errors| {
            EngineError::VariantLoad(errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))
        })?;
        self.catalogue = catalogue;
        Ok(names)
    }

    /// Sets the game: a FEN (None = the start position) and moves played from it.
    /// On error the previous game is kept.
    pub fn set_position(&mut self, fen: Option<&str>, moves: &[&str]) -> Result<(), EngineError> {
        let start = match fen {
            Some(f) => Position::from_fen(Arc::clone(&self.variant), f)?,
            None => Position::startpos(Arc::clone(&self.variant))?,
        };
        let mut pos = start.clone();
        let mut played = Vec::with_capacity(moves.len());
        for text in moves {
            let m = pos.parse_move(text)?;
            pos.make(m);
            played.push(m);
        }
        self.stop_and_wait();
        self.start = start;
        self.pos = pos;
        self.moves = played;
        Ok(())
    }

    /// Plays one move given as UCI text on the current position.
    pub fn play(&mut self, text: &str) -> Result<Move, EngineError> {
        let m = self.pos.parse_move(text)?;
        self.play_move(m);
        Ok(m)
    }

    /// Plays a move known to be legal here (as returned by a search).
    pub fn play_move(&mut self, m: Move) {
        self.stop_and_wait();
        self.pos.make(m);
        self.moves.push(m);
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Result<(), EngineError> {
        self.stop_and_wait();
        let m = self.moves.pop().ok_or(EngineError::NothingToUndo)?;
        self.pos.unmake(m);
        Ok(())
    }

    /// A new game: the start position of the current variant and an empty hash table.
    pub fn new_game(&mut self) {
        self.stop_and_wait();
        if let Ok(start) = Position::startpos(Arc::clone(&self.variant)) {
            self.pos = start.clone();
            self.start = start;
        }
        self.moves.clear();
        self.tt_lock().clear();
        self.clear_histories();
    }

    /// Forgets what the history tables learned (another game), emptying them
    /// in place: freeing and allocating megabytes every game lets the
    /// allocator keep both, and the process grows game by game. Tables of
    /// another board shape are replaced by the next search.
    fn clear_histories(&self) {
        self.histories.lock().unwrap_or_else(PoisonError::into_inner).iter_mut().for_each(Histories::clear);
    }

    fn tt_lock(&self) -> std::sync::MutexGuard<'_, TranspositionTable> {
        // A panicked search leaves a table that is still a valid table.
        self.tt.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Resizes the hash table (MiB, within the `Hash` option's bounds).
    pub fn set_hash(&mut self, mib: usize) -> Result<(), EngineError> {
        let bad = |value: String| EngineError::BadOptionValue { name: "Hash".into(), value };
        if !options::spec(OptionId::Hash).allows_number(mib as u64) {
            return Err(bad(mib.to_string()));
        }
        self.stop_and_wait();
        let old = self.options.hash_mib;
        if mib == old {
            // Tournament managers resend the size before every game: empty
            // the table in place rather than give the allocator megabytes to
            // free and take again (which grows the process game by game).
            self.tt_lock().clear();
            return Ok(());
        }
        // Free the old table first so the two never coexist in memory.
        *self.tt_lock() = TranspositionTable::new(1);
        match TranspositionTable::try_new(mib) {
            Some(table) => {
                *self.tt_lock() = table;
                self.options.hash_mib = mib;
                Ok(())
            }
            None => {
                *self.tt_lock() = TranspositionTable::new(old);
                Err(bad(format!("{mib} (out of memory)")))
            }
        }
    }

    /// Empties the hash table.
    pub fn clear_hash(&mut self) {
        self.stop_and_wait();
        self.tt_lock().clear();
    }

    /// Sets an option by its name (case-insensitive), checked against the
    /// option table ([`options::OPTIONS`]).
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), EngineError> {
        if let Some(margin) = search_margin_name(name) {
            let bad = || EngineError::BadOptionValue { name: name.trim().to_string(), value: value.to_string() };
            let number = value.trim().parse::<i64>().map_err(|_| bad())?;
            return self.options.search.set(margin, number).map_err(|_| {
                if self.options.search.get(margin).is_some() {
                    bad()
                } else {
                    EngineError::UnknownOption(name.to_string())
                }
            });
        }
        let spec = options::find(name).ok_or_else(|| EngineError::UnknownOption(name.to_string()))?;
        let parsed = spec
            .parse(value)
            .ok_or_else(|| EngineError::BadOptionValue { name: spec.name.to_string(), value: value.to_string() })?;
        match (spec.id, parsed) {
            (OptionId::Hash, OptionValue::Number(mib)) => self.set_hash(mib as usize),
            (OptionId::ClearHash, _) => {
                self.clear_hash();
                Ok(())
            }
            (OptionId::Variant, OptionValue::Text(name)) => self.set_variant(&name).map(|_| ()),
            (OptionId::VariantPath, OptionValue::Text(path)) if path.is_empty() => Ok(()),
            (OptionId::VariantPath, OptionValue::Text(path)) => self.load_variants(Path::new(&path)).map(|_| ()),
            (OptionId::Evaluation, choice) => {
                self.options.set(OptionId::Evaluation, &choice);
                self.refresh_evaluator();
                if self.options.evaluation == EvalMode::Nnue && self.evaluator.network().is_none() {
                    return Err(EngineError::Network(format!(
                        "variant '{}' has no network: it plays with the linear evaluation",
                        self.variant.name
                    )));
                }
                Ok(())
            }
            (OptionId::EvalFile, OptionValue::Text(path)) if path.is_empty() => Ok(()),
            (OptionId::EvalFile, OptionValue::Text(path)) => self.load_network(Path::new(&path)).map(|_| ()),
            (id, value) => {
                self.options.set(id, &value);
                Ok(())
            }
        }
    }

    /// Builds the evaluator again from the options and the catalogue.
    fn refresh_evaluator(&mut self) {
        self.stop_and_wait();
        self.evaluator = Arc::new(self.evaluator_for(&self.variant));
        // Stored scores and evaluations came from the other evaluation.
        self.clear_hash();
    }

    /// Reads a network file and gives it to every variant of its pieces and
    /// board, the one played or not (GUIs such as Cute Chess send `EvalFile`
    /// before `UCI_Variant`); returns their names. A file that cannot be
    /// read, or that fits no variant, changes nothing.
    pub fn load_network(&mut self, path: &Path) -> Result<Vec<String>, EngineError> {
        let bytes = std::fs::read(path)
            .map_err(|e| EngineError::Network(format!("cannot read network {}: {e}", path.display())))?;
        let net = Arc::new(
            crate::eval::nnue::file::read(&bytes)
                .map_err(|e| EngineError::Network(format!("bad network {}: {e}", path.display())))?,
        );
        let fits: Vec<String> = self
            .catalogue
            .registry()
            .names()
            .into_iter()
            .filter(|name| self.catalogue.set_network(name, Some(Arc::clone(&net))).is_ok())
            .collect();
        if fits.is_empty() {
            // Why it does not fit the variant played says what the network is for.
            let why = self.catalogue.set_network(&self.variant.name, Some(net)).err().unwrap_or_default();
            return Err(EngineError::Network(format!("network {}: {why}", path.display())));
        }
        self.refresh_evaluator();
        Ok(fits)
    }

    /// The current value of option `id`, as the protocols print it.
    pub fn option_value(&self, id: OptionId) -> OptionValue {
        match options::spec(id).kind {
            OptionKind::Variant => OptionValue::Text(self.variant.name.clone()),
            _ => self.options.get(id).unwrap_or_else(|| options::spec(id).default_value()),
        }
    }

    /// Parses moves of the current position (for `searchmoves`).
    pub fn parse_moves(&mut self, texts: &[&str]) -> Result<Vec<Move>, EngineError> {
        texts.iter().map(|t| self.pos.parse_move(t).map_err(EngineError::from)).collect()
    }

    /// UCI text of a move of the current position.
    pub fn move_text(&self, m: Move) -> String {
        self.pos.move_to_uci(m, self.options.chess960)
    }

    /// True while a search thread is running.
    pub fn is_searching(&self) -> bool {
        self.worker.as_ref().is_some_and(|w| !w.is_finished())
    }

    /// Starts searching the current position; returns at once. Events arrive
    /// through `on_event` on the search thread, ending with one `BestMove`.
    /// Multipv and move overhead come from the options. An infinite or
    /// pondering search reports its best move only after [`Engine::stop`] or
    /// [`Engine::ponderhit`]. Below full strength (`Skill Level`,
    /// `UCI_LimitStrength`) the handicap of [`Skill`] is added to the limits,
    /// the move played is chosen among the lines searched, and its line is
    /// reported last, as multipv 1.
    pub fn go<F>(&mut self, mut limits: Limits, mut on_event: F) -> Result<(), EngineError>
    where
        F: FnMut(EngineEvent) + Send + 'static,
    {
        self.stop_and_wait();
        limits.multipv = self.options.multipv;
        limits.move_overhead = self.options.move_overhead;
        limits.params = self.options.search;
        // The GUI's limits decide when the best move may be sent, not the handicap's.
        let until_stopped = limits.until_stopped();
        let wait_for_stop = until_stopped || limits.ponder;
        let shown_lines = limits.multipv;
        let options = &self.options;
        let skill = Skill::requested(options.skill_level, options.limit_strength.then_some(options.elo));
        if let Some(skill) = skill {
            skill.restrict(&mut limits);
        }
        let searched_lines = limits.multipv;
        self.searches += 1;
        let mut rng = StdRng::seed_from_u64(self.pos.hash() ^ self.searches.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut candidates = Candidates::default();
        let control = Arc::new(SearchControl::default());
        control.pondering.store(limits.ponder, Ordering::SeqCst);
        self.control = Arc::clone(&control);
        let mut pos = self.pos.clone();
        let render = self.pos.clone();
        let tt = Arc::clone(&self.tt);
        let histories = Arc::clone(&self.histories);
        let eval = Arc::clone(&self.evaluator);
        let chess960 = self.options.chess960;
        let threads = self.options.threads;
        let handle = spawn_search("search".to_string(), move || {
            let text = |m: Move| render.move_to_uci(m, chess960);
            let mut result = {
                let table = tt.lock().unwrap_or_else(PoisonError::into_inner);
                let mut histories = histories.lock().unwrap_or_else(PoisonError::into_inner);
                search_with_helpers(&mut pos, &table, &eval, &control, &limits, threads, &mut histories, &mut |event| {
                    match event {
                        SearchEvent::Pv(info) => {
                            if skill.is_some() {
                                candidates.add(&info);
                            }
                            // Lines searched only to choose from are not shown.
                            if info.multipv <= shown_lines {
                                let pv = info.pv.iter().map(|&m| text(m)).collect();
                                on_event(EngineEvent::Info { info, pv });
                            }
                        }
                        SearchEvent::CurrMove { depth, mv, number } => {
                            on_event(EngineEvent::CurrMove { depth, mv: text(mv), number });
                        }
                    }
                })
            };
            // UCI: after `go infinite` or `go ponder` the best move waits for
            // `stop` or `ponderhit`, even when the search is over.
            if wait_for_stop {
                while !control.stop.load(Ordering::SeqCst)
                    && (until_stopped || control.pondering.load(Ordering::SeqCst))
                {
                    thread::sleep(Duration::from_millis(1));
                }
            }
            let chosen = skill.and_then(|s| s.choose(&candidates.deepest(searched_lines), &mut rng));
            if let Some(line) = chosen {
                // The move played is the last line shown, with its own score.
                result.best = line.pv.first().copied();
                result.ponder = line.pv.get(1).copied();
                result.score = Score::from_internal(line.raw_score);
                let info = PvInfo { multipv: 1, ..line.clone() };
                let pv = info.pv.iter().map(|&m| text(m)).collect();
                on_event(EngineEvent::Info { info, pv });
            }
            on_event(EngineEvent::BestMove {
                best: result.best,
                best_text: result.best.map(text),
                ponder_text: result.ponder.map(text),
                result,
            });
        })
        .map_err(|e| EngineError::Thread(e.to_string()))?;
        self.worker = Some(handle);
        Ok(())
    }

    /// Asks the running search to stop (it then reports its best move).
    pub fn stop(&self) {
        self.control.stop.store(true, Ordering::SeqCst);
    }

    /// The opponent played the expected move: the pondering search now runs on our clock.
    pub fn ponderhit(&self) {
        self.control.pondering.store(false, Ordering::SeqCst);
    }

    /// Waits until the running search (if any) has reported its best move.
    pub fn wait(&mut self) {
        if let Some(w) = self.worker.take() {
            // A panicking search has already lost its result; nothing to add.
            let _ = w.join();
        }
    }

    /// Stops the running search, if any, and waits for it.
    pub fn stop_and_wait(&mut self) {
        if self.worker.is_some() {
            self.stop();
            self.wait();
        }
    }

    /// perft split by first move of the current position.
    pub fn perft(&mut self, depth: u32) -> Vec<(String, u64)> {
        self.stop_and_wait();
        let mut pos = self.pos.clone();
        divide(&mut pos, depth.clamp(1, MAX_PERFT_DEPTH), self.options.chess960)
    }

    /// Legal moves of the current position.
    pub fn legal_moves(&mut self) -> MoveList {
        let mut list = MoveList::new();
        self.pos.generate_legal(&mut list);
        list
    }

    /// How the game has ended by the variant's rules, if it has.
    pub fn game_end(&mut self) -> Option<GameEnd> {
        self.pos.game_end()
    }

    /// The static evaluation of the position, term by term (the `eval` command).
    pub fn eval_text(&self) -> String {
        self.evaluator.report(&self.pos).join("\n") + "\n"
    }

    /// A picture of the board, the FEN and the hash (the `d` command).
    pub fn board_text(&self) -> String {
        let shape = self.variant.shape;
        let mut out = String::new();
        let line = format!(" +{}\n", "---+".repeat(shape.files as usize));
        out.push('\n');
        out.push_str(&line);
        for rank in (0..shape.ranks).rev() {
            out.push_str(" |");
            for file in 0..shape.files {
                let c = shape.square(file, rank).map(|sq| self.pos.cell(sq));
                let ch = match c {
                    Some(c) if c.is_piece() => self.variant.cell_letter(c),
                    _ => ' ',
                };
                out.push_str(&format!(" {ch} |"));
            }
            out.push_str(&format!(" {}\n", rank as u32 + 1));
            out.push_str(&line);
        }
        out.push_str("  ");
        for file in 0..shape.files {
            out.push_str(&format!(" {}  ", (b'a' + file) as char));
        }
        out.push_str(&format!(
            "\n\nVariant: {}\nFen: {}\nKey: {:016X}\nCheckers: {}\n",
            self.variant.name,
            self.pos.to_fen(),
            self.pos.hash(),
            if !self.pos.in_setup() && self.pos.in_check() { "yes" } else { "no" }
        ));
        out
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new()
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop_and_wait();
    }
}

/// The margin an unlisted `search.NAME` option sets (prefix case-insensitive).
fn search_margin_name(option: &str) -> Option<&str> {
    let option = option.trim();
    let prefix = options::SEARCH_PREFIX;
    let head = option.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &option[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    #[test]
    fn go_reports_a_best_move() {
        let mut engine = Engine::new();
        engine.set_position(None, &["e2e4", "e7e5"]).expect("legal moves");
        let (tx, rx) = mpsc::channel();
        engine
            .go(Limits { depth: Some(3), ..Limits::default() }, move |e| {
                if let EngineEvent::BestMove { best_text, .. } = e {
                    let _ = tx.send(best_text);
                }
            })
            .expect("thread starts");
        let best = rx.recv_timeout(Duration::from_secs(10)).expect("best move");
        assert!(best.is_some());
    }

    #[test]
    fn errors_keep_the_previous_position() {
        let mut engine = Engine::new();
        engine.set_position(None, &["e2e4"]).expect("legal");
        let fen = engine.position().to_fen();
        assert!(engine.set_position(None, &["e2e4", "e2e4"]).is_err());
        assert!(engine.set_position(Some("not a fen"), &[]).is_err());
        assert!(engine.set_variant("nonsense").is_err());
        assert_eq!(engine.position().to_fen(), fen);
    }

    #[test]
    fn infinite_search_stops_on_request() {
        let mut engine = Engine::new();
        let (tx, rx) = mpsc::channel();
        engine
            .go(Limits { infinite: true, ..Limits::default() }, move |e| {
                if let EngineEvent::BestMove { best_text, .. } = e {
                    let _ = tx.send(best_text);
                }
            })
            .expect("thread starts");
        thread::sleep(Duration::from_millis(100));
        assert!(rx.try_recv().is_err(), "an infinite search waits for stop");
        engine.stop();
        // The deadline only guards against a hang: how fast a stop is obeyed is
        // not a test's business (the search polls the flag every 1024 nodes).
        let best =
            rx.recv_timeout(Duration::from_secs(60)).expect("no best move within 60 s of stop: the search hangs");
        assert!(best.is_some());
    }

    /// Nodes of a depth-limited search from the start position.
    fn nodes_at_depth(engine: &mut Engine, depth: u32) -> u64 {
        let (tx, rx) = mpsc::channel();
        engine
            .go(Limits { depth: Some(depth), ..Limits::default() }, move |e| {
                if let EngineEvent::Info { info, .. } = e {
                    let _ = tx.send(info.nodes);
                }
            })
            .expect("thread starts");
        engine.wait();
        rx.try_iter().last().expect("a line")
    }

    #[test]
    fn unlisted_search_options_set_the_margins_the_search_uses() {
        let mut engine = Engine::new();
        let default_nodes = nodes_at_depth(&mut engine, 8);
        engine.set_option("Search.LMR_MIN_DEPTH", "100").expect_err("names are exact after the prefix");
        engine.set_option("search.lmr_min_depth", "100").expect("a margin");
        assert_eq!(engine.options.search.lmr_min_depth, 100);
        engine.clear_hash();
        let unreduced_nodes = nodes_at_depth(&mut engine, 8);
        assert!(unreduced_nodes > default_nodes, "{unreduced_nodes} nodes without reductions, {default_nodes} with");
        for (name, value) in
            [("search.no_such_margin", "1"), ("search.lmr_min_moves", "-1"), ("search.rfp_margin", "x")]
        {
            assert!(engine.set_option(name, value).is_err(), "{name} = {value}");
        }
        assert_eq!(engine.options.search.lmr_min_depth, 100);
        assert_eq!(engine.options.search.rfp_margin, crate::search::DEFAULT_PARAMS.rfp_margin);
    }
}
