//! The match runner: a schedule of games (round robin over two or more
//! engines, each opening played with both colours), worker threads that each
//! own their engine processes, and the collector on the calling thread that
//! writes PGN as games finish, keeps the statistics, prints a live progress
//! line, runs the SPRT and stops early when it decides or on a stop request.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::Arc;
use std::thread;

use super::referee::{new_record, play_game, GameSetup, RefereeSettings};
use super::stats::{Pentanomial, Sprt, SprtDecision, Wdl};
use crate::board::outcome::Outcome;
use crate::game::openings::{add_random_plies, Opening, SplitMix64};
use crate::game::pgn::{write_game, PgnContext};
use crate::game::record::{GameRecord, Termination};
use crate::game::tc::TimeControl;
use crate::players::{Player, PlayerSpec};
use crate::rules::variant::Variant;

/// Everything a match needs.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Two or more engines (round robin).
    pub engines: Vec<PlayerSpec>,
    /// Only the first engine against each of the others (a gauntlet).
    pub gauntlet: bool,
    /// The variant.
    pub variant: Arc<Variant>,
    /// Limits for every engine.
    pub tc: TimeControl,
    /// Games per pair of engines per round.
    pub games: u32,
    /// Rounds.
    pub rounds: u32,
    /// Start positions (empty: the variant's start), used in turn.
    pub openings: Vec<Opening>,
    /// Random plies added to each opening.
    pub random_plies: u32,
    /// Seed for the random plies.
    pub seed: u64,
    /// Games played at once.
    pub concurrency: usize,
    /// PGN file to append games to.
    pub pgn: Option<PathBuf>,
    /// Optional SPRT (two engines only), from the first engine's point of view.
    pub sprt: Option<Sprt>,
    /// How every game is timed and adjudicated.
    pub referee: RefereeSettings,
    /// PGN `Event`.
    pub event: String,
    /// Echo engine traffic on stderr.
    pub debug: bool,
    /// Print the live progress line on stderr.
    pub progress: bool,
}

/// One game to play.
#[derive(Clone, Debug)]
pub struct Scheduled {
    /// 1-based game number (PGN `Round`).
    pub number: u32,
    /// White's engine index.
    pub white: usize,
    /// Black's engine index.
    pub black: usize,
    /// The opening.
    pub opening: Opening,
    /// Games with the same pair id share the opening with colours swapped.
    pub pair: u64,
}

/// Builds the game list.
pub fn schedule(config: &MatchConfig) -> Vec<Scheduled> {
    let mut out = Vec::new();
    let n = config.engines.len();
    let per_round_slots = config.games.div_ceil(2) as usize;
    let mut slot_openings: HashMap<usize, Opening> = HashMap::new();
    let mut number = 0;
    let mut pair_id = 0u64;
    for round in 0..config.rounds as usize {
        for i in 0..n {
            for j in i + 1..n {
                if config.gauntlet && i > 0 {
                    continue;
                }
                for g in 0..config.games as usize {
                    let slot = round * per_round_slots + g / 2;
                    let opening = slot_openings
                        .entry(slot)
                        .or_insert_with(|| {
                            let mut o = if config.openings.is_empty() {
                                Opening { fen: config.variant.start_fen.clone(), moves: Vec::new() }
                            } else {
                                config.openings[slot % config.openings.len()].clone()
                            };
                            if config.random_plies > 0 {
                                let mut rng =
                                    SplitMix64(config.seed ^ (slot as u64).wrapping_mul(0x2545_F491_4F6C_DD1D));
                                add_random_plies(&config.variant, &mut o, config.random_plies, &mut rng);
                            }
                            o
                        })
                        .clone();
                    if g % 2 == 0 {
                        pair_id += 1;
                    }
                    number += 1;
                    let (white, black) = if g % 2 == 0 { (i, j) } else { (j, i) };
                    out.push(Scheduled { number, white, black, opening, pair: pair_id });
                }
            }
        }
    }
    out
}

/// Totals for one pair of engines, from the first one's point of view.
#[derive(Clone, Debug, Default)]
pub struct PairStats {
    /// Games.
    pub wdl: Wdl,
    /// Complete pairs.
    pub penta: Pentanomial,
}

/// The state of a match (also its final summary).
#[derive(Clone, Debug)]
pub struct MatchSummary {
    /// Engine names.
    pub names: Vec<String>,
    /// Per engine, against everyone.
    pub totals: Vec<Wdl>,
    /// Per pair `(i, j)` with `i < j`, from `i`'s point of view.
    pub pairs: BTreeMap<(usize, usize), PairStats>,
    /// Games per termination.
    pub terminations: BTreeMap<Termination, u32>,
    /// Games finished.
    pub played: u32,
    /// Games scheduled.
    pub scheduled: u32,
    /// The SPRT, its last LLR and decision.
    pub sprt: Option<(Sprt, f64, SprtDecision)>,
    /// True when the match stopped before its schedule ended.
    pub stopped_early: bool,
    /// Problems that are not game results (PGN write errors).
    pub warnings: Vec<String>,
    /// Pair id -> the first game's points for the pair's first engine, until its partner ends.
    open_pairs: HashMap<u64, f64>,
}

impl MatchSummary {
    fn new(config: &MatchConfig, scheduled: u32) -> MatchSummary {
        let names = config.engines.iter().map(|e| e.name.clone()).collect();
        MatchSummary::for_engines(names, scheduled, config.sprt)
    }

    /// An empty table for these engines (the PGN scorer builds one too).
    pub fn for_engines(names: Vec<String>, scheduled: u32, sprt: Option<Sprt>) -> MatchSummary {
        MatchSummary {
            totals: vec![Wdl::default(); names.len()],
            names,
            pairs: BTreeMap::new(),
            terminations: BTreeMap::new(),
            played: 0,
            scheduled,
            sprt: sprt.map(|s| (s, 0.0, SprtDecision::Continue)),
            stopped_early: false,
            warnings: Vec::new(),
            open_pairs: HashMap::new(),
        }
    }

    /// Counts one finished game between engines `white` and `black`. Games
    /// with the same `pair` id (same opening, colours swapped) add a
    /// pentanomial pair once both have ended; `None` leaves the game unpaired.
    /// Updates the SPRT's LLR (pentanomial when `paired` games are counted
    /// by pair) and returns its decision.
    pub fn record(
        &mut self,
        white: usize,
        black: usize,
        white_points: f64,
        termination: Termination,
        pair: Option<u64>,
        paired: bool,
    ) -> SprtDecision {
        self.played += 1;
        *self.terminations.entry(termination).or_insert(0) += 1;
        self.totals[white].add(white_points);
        self.totals[black].add(1.0 - white_points);
        let (i, j) = (white.min(black), white.max(black));
        let points_i = if white == i { white_points } else { 1.0 - white_points };
        let stats = self.pairs.entry((i, j)).or_default();
        stats.wdl.add(points_i);
        if let Some(id) = pair {
            match self.open_pairs.remove(&id) {
                Some(p) => stats.penta.add(p + points_i),
                None => {
                    self.open_pairs.insert(id, points_i);
                }
            }
        }
        let Some((sprt, llr, decision)) = self.sprt.as_mut() else {
            return SprtDecision::Continue;
        };
        if let Some(p) = self.pairs.get(&(0, 1)) {
            *llr =
                if p.penta.pairs() > 0 && paired { sprt.llr_pentanomial(&p.penta) } else { sprt.llr_trinomial(&p.wdl) };
            *decision = sprt.decide(*llr);
        }
        *decision
    }

    /// One line for the terminal.
    pub fn progress_line(&self) -> String {
        let mut s = format!("Games {}/{}", self.played, self.scheduled);
        if let Some(((i, j), p)) = self.pairs.iter().next() {
            let sc = &p.wdl;
            s.push_str(&format!(
                "  {} vs {}: +{} ={} -{}  {:.1}%",
                self.names[*i],
                self.names[*j],
                sc.wins,
                sc.draws,
                sc.losses,
                100.0 * sc.fraction()
            ));
            if let Some(e) = sc.elo() {
                s.push_str(&format!("  Elo {e}"));
            }
        }
        if let Some((sprt, llr, _)) = &self.sprt {
            let (lo, hi) = sprt.bounds();
            s.push_str(&format!("  LLR {llr:.2} ({lo:.2}, {hi:.2})"));
        }
        s
    }
}

impl fmt::Display for MatchSummary {
    /// The final table.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let width = self.names.iter().map(|n| n.len()).max().unwrap_or(4).max(4);
        writeln!(
            f,
            "{:<4} {:<width$} {:>6} {:>5} {:>5} {:>5} {:>7}  Elo",
            "Rank", "Name", "Games", "W", "D", "L", "Score"
        )?;
        let mut order: Vec<usize> = (0..self.names.len()).collect();
        order.sort_by(|&a, &b| self.totals[b].fraction().total_cmp(&self.totals[a].fraction()));
        for (rank, &i) in order.iter().enumerate() {
            let s = &self.totals[i];
            let elo = s.elo().map_or("-".to_string(), |e| e.to_string());
            writeln!(
                f,
                "{:<4} {:<width$} {:>6} {:>5} {:>5} {:>5} {:>6.1}%  {elo}",
                rank + 1,
                self.names[i],
                s.games(),
                s.wins,
                s.draws,
                s.losses,
                100.0 * s.fraction()
            )?;
        }
        for ((i, j), p) in &self.pairs {
            let s = &p.wdl;
            writeln!(f)?;
            writeln!(
                f,
                "{} vs {}: W/D/L {}/{}/{}, score {:.1}%, draw ratio {:.1}%, LOS {:.1}%",
                self.names[*i],
                self.names[*j],
                s.wins,
                s.draws,
                s.losses,
                100.0 * s.fraction(),
                100.0 * s.draw_ratio(),
                100.0 * s.los()
            )?;
            if let Some(e) = s.elo() {
                writeln!(f, "  Elo difference {e} (95%)")?;
            }
            if p.penta.pairs() > 0 {
                let elo = p.penta.elo().map_or("-".to_string(), |e| e.to_string());
                writeln!(f, "  Pentanomial {} over {} pairs: Elo {elo}", p.penta, p.penta.pairs())?;
            }
        }
        if let Some((s, llr, decision)) = &self.sprt {
            let (lo, hi) = s.bounds();
            let verdict = match decision {
                SprtDecision::Continue => "no decision",
                SprtDecision::AcceptH0 => "H0 accepted",
                SprtDecision::AcceptH1 => "H1 accepted",
            };
            writeln!(
                f,
                "\nSPRT elo0={} elo1={} alpha={} beta={}: LLR {llr:.2} ({lo:.2}, {hi:.2}) {verdict}",
                s.elo0, s.elo1, s.alpha, s.beta
            )?;
        }
        let terms: Vec<String> = self.terminations.iter().map(|(t, n)| format!("{t} {n}")).collect();
        writeln!(
            f,
            "\nGames {}/{}; terminations: {}",
            self.played,
            self.scheduled,
            if terms.is_empty() { "-".to_string() } else { terms.join(", ") }
        )?;
        if self.stopped_early {
            writeln!(f, "Stopped early; unfinished games were discarded.")?;
        }
        for w in &self.warnings {
            writeln!(f, "warning: {w}")?;
        }
        Ok(())
    }
}

/// Starts any engine of a game not already running in this worker.
fn ensure_engine(
    running: &mut HashMap<usize, Player>,
    index: usize,
    spec: &PlayerSpec,
    stop: &AtomicBool,
    debug: bool,
) -> Result<(), String> {
    if running.contains_key(&index) {
        return Ok(());
    }
    match Player::start(spec, stop, debug) {
        Ok(e) => {
            running.insert(index, e);
            Ok(())
        }
        Err(e) => Err(e.to_string()),
    }
}

fn worker(
    config: &MatchConfig,
    games: &[Scheduled],
    next: &AtomicUsize,
    stop: &AtomicBool,
    results: mpsc::Sender<(usize, GameRecord)>,
) {
    let mut running: HashMap<usize, Player> = HashMap::new();
    loop {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let index = next.fetch_add(1, Ordering::Relaxed);
        let Some(game) = games.get(index) else { break };
        let specs = [&config.engines[game.white], &config.engines[game.black]];
        let setup = GameSetup {
            variant: Arc::clone(&config.variant),
            start_fen: game.opening.fen.clone(),
            opening: game.opening.moves.clone(),
            tc: [specs[0].tc.unwrap_or(config.tc), specs[1].tc.unwrap_or(config.tc)],
            referee: config.referee,
        };
        let started = [
            ensure_engine(&mut running, game.white, specs[0], stop, config.debug),
            ensure_engine(&mut running, game.black, specs[1], stop, config.debug),
        ];
        let record = match (running.remove(&game.white), running.remove(&game.black)) {
            (Some(mut w), Some(mut b)) => {
                let (record, faults) = play_game(&setup, [&specs[0].name, &specs[1].name], [&mut w, &mut b], stop);
                // A misbehaving engine is restarted before its next game.
                for (engine, index, fault) in [(w, game.white, faults[0]), (b, game.black, faults[1])] {
                    if fault {
                        engine.quit();
                    } else {
                        running.insert(index, engine);
                    }
                }
                record
            }
            (w, b) => {
                let (outcome, who) = match (&w, &b) {
                    (None, Some(_)) => (Some(Outcome::BlackWins), "White"),
                    (Some(_), None) => (Some(Outcome::WhiteWins), "Black"),
                    _ => (None, "Both"),
                };
                for (engine, idx) in [(w, game.white), (b, game.black)] {
                    if let Some(e) = engine {
                        running.insert(idx, e);
                    }
                }
                let why: Vec<String> = started.iter().filter_map(|r| r.clone().err()).collect();
                let mut record = new_record(&setup, [&specs[0].name, &specs[1].name]);
                record.outcome = if stop.load(Ordering::Relaxed) { None } else { outcome };
                record.termination = Termination::Abandoned;
                record.reason = format!("{who} failed to start: {}", why.join("; "));
                record
            }
        };
        if results.send((index, record)).is_err() {
            break;
        }
    }
    for (_, engine) in running.drain() {
        engine.quit();
    }
}

/// Plays the match; returns its summary. Setting `stop` ends it early
/// (running games are abandoned and not counted).
pub fn run_match(config: &MatchConfig, stop: &AtomicBool) -> MatchSummary {
    let games = schedule(config);
    let mut summary = MatchSummary::new(config, games.len() as u32);
    let mut pgn = config.pgn.as_ref().map(|path| {
        std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(|e| format!("{}: {e}", path.display()))
    });
    if let Some(Err(e)) = &pgn {
        summary.warnings.push(format!("cannot open PGN file {e}"));
    }
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel();
    let threads = config.concurrency.clamp(1, games.len().max(1));
    thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (games, next) = (&games, &next);
            scope.spawn(move || worker(config, games, next, stop, tx));
        }
        drop(tx);
        for (index, record) in rx {
            let Some(outcome) = record.outcome else {
                continue;
            };
            let Some(game) = games.get(index) else {
                continue;
            };
            if let Some(Ok(file)) = pgn.as_mut() {
                let ctx = PgnContext { event: &config.event, round: game.number, variant: &config.variant };
                if let Err(e) = file.write_all(write_game(&record, &ctx).as_bytes()).and_then(|_| file.flush()) {
                    summary.warnings.push(format!("PGN write failed: {e}"));
                }
            }
            let paired = config.games.is_multiple_of(2);
            let decision = summary.record(
                game.white,
                game.black,
                outcome.white_points(),
                record.termination,
                Some(game.pair),
                paired,
            );
            if decision != SprtDecision::Continue {
                stop.store(true, Ordering::Relaxed);
            }
            if config.progress {
                eprint!("\r{:<100}", summary.progress_line());
            }
        }
    });
    if config.progress {
        eprintln!();
    }
    summary.stopped_early = summary.played < summary.scheduled;
    summary
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::board::registry::Registry;

    fn config(engines: usize, games: u32, rounds: u32) -> MatchConfig {
        let registry = Registry::builtin();
        let variant = registry.get("chess").unwrap();
        MatchConfig {
            engines: (0..engines)
                .map(|i| PlayerSpec::from_tokens(&[format!("cmd=e{i}"), format!("name=E{i}")]).unwrap())
                .collect(),
            variant,
            tc: "nodes=1".parse().unwrap(),
            games,
            rounds,
            openings: Vec::new(),
            random_plies: 3,
            seed: 5,
            concurrency: 1,
            pgn: None,
            sprt: None,
            referee: RefereeSettings {
                margin: Duration::ZERO,
                move_timeout: Duration::from_secs(1),
                max_moves: 0,
                draw_rule: None,
                resign_rule: None,
            },
            event: "t".to_string(),
            debug: false,
            progress: false,
            gauntlet: false,
        }
    }

    #[test]
    fn round_robin_schedule() {
        let games = schedule(&config(3, 2, 2));
        // 3 pairs x 2 games x 2 rounds.
        assert_eq!(games.len(), 12);
        for pair in games.chunks(2) {
            assert_eq!(pair[0].pair, pair[1].pair);
            assert_eq!(pair[0].opening, pair[1].opening);
            assert_eq!((pair[0].white, pair[0].black), (pair[1].black, pair[1].white));
            assert_eq!(pair[0].opening.moves.len(), 3);
        }
        // Every pair of engines meets, and rounds use new openings.
        assert_eq!(games.iter().filter(|g| g.white.min(g.black) == 0 && g.white.max(g.black) == 2).count(), 4);
        assert_ne!(games[0].opening, games[6].opening);
        assert_eq!(games.iter().map(|g| g.number).collect::<Vec<_>>(), (1..=12).collect::<Vec<u32>>());
        // An odd number of games leaves the last opening unpaired.
        let mut g = config(4, 2, 1);
        g.gauntlet = true;
        let gauntlet = schedule(&g);
        assert_eq!(gauntlet.len(), 6);
        assert!(gauntlet.iter().all(|x| x.white == 0 || x.black == 0));
        let odd = schedule(&config(2, 3, 1));
        assert_eq!(odd.len(), 3);
        assert_ne!(odd[1].pair, odd[2].pair);
    }

    #[test]
    fn summary_text() {
        let c = config(2, 2, 1);
        let mut s = MatchSummary::new(&c, 4);
        s.played = 2;
        s.totals[0] = Wdl { wins: 1, draws: 1, losses: 0 };
        s.totals[1] = s.totals[0].flipped();
        let mut p = PairStats { wdl: s.totals[0], ..PairStats::default() };
        p.penta.add(1.5);
        s.pairs.insert((0, 1), p);
        s.stopped_early = true;
        let text = s.to_string();
        assert!(text.contains("E0 vs E1: W/D/L 1/1/0, score 75.0%"), "{text}");
        assert!(text.contains("Pentanomial [0, 0, 0, 1, 0] over 1 pairs"), "{text}");
        assert!(text.contains("Stopped early"), "{text}");
        assert!(s.progress_line().starts_with("Games 2/4  E0 vs E1: +1 =1 -0  75.0%"), "{}", s.progress_line());
    }
}
