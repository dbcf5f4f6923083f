//! `menagerie rescore`: the games of a data file with their plies scored
//! again by this engine's search. Two uses: plies without a score (the
//! other player's in an imported match, the random opening plies) get one,
//! so a match's games teach from both sides' moves; and with `--all`, every
//! ply gets a deeper search than the one that played it. With `--engine`
//! another UCI engine scores instead ([`super::teacher`]): a stronger
//! engine's judgement on any position of the data.
//!
//! The games keep their moves, numbers and results; only the scores change.
//! They are written in the input's order as they are done, so a stopped
//! run keeps its finished games and `--resume` carries on after them.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use clap::Args;

use super::datagen::finished_game_numbers;
use super::import::check_score_percent;
use super::teacher::Teacher;
use super::train_command::data_commands;
use super::workers::on_search_threads;
use super::{command_line, without_folders};
use crate::eval::catalogue::Catalogue;
use crate::eval::nnue::data::{header_text, DataHeader, Item, PositionReader};
use crate::eval::nnue::games::{white_view, Filter, Game, PlyScore};
use crate::eval::{EvalMode, Evaluator};
use crate::players::PlayerSpec;
use crate::rules::moves::MoveList;
use crate::rules::variant::Variant;
use crate::search::tt::TranspositionTable;
use crate::search::{Histories, Limits, Score, Search, SearchControl};

/// `menagerie rescore` arguments.
#[derive(Args, Debug, Clone)]
pub struct RescoreArgs {
    /// The variant the data is for.
    #[arg(long)]
    pub variant: String,
    /// The data file whose games are scored (game blocks: datagen, import, join).
    #[arg(long)]
    pub data: PathBuf,
    /// Where to write the scored games.
    #[arg(long)]
    pub out: PathBuf,
    /// Nodes of each ply's search.
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
    /// Score every ply again, not only those without a score.
    #[arg(long)]
    pub all: bool,
    /// Threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Carry on a run that stopped: keep the games the output holds (a game
    /// cut off at its end is dropped) and score the rest.
    #[arg(long)]
    pub resume: bool,
    /// Score with another UCI engine instead of this one's search:
    /// `cmd=COMMAND name=NAME option.NAME=VALUE` (as `match --engine`); one
    /// copy runs per thread, each ply searched with `go nodes` --nodes.
    #[arg(long, num_args = 1..)]
    pub engine: Vec<String>,
    /// With --engine: the variant it is told (`UCI_Variant`), when it knows
    /// the data's by another name (`relocation` data after its setup is
    /// `caparandom`). Default: --variant.
    #[arg(long)]
    pub engine_variant: Option<String>,
    /// With --engine: its centipawn scores times this percentage, brought to
    /// this engine's scale as `import --score-percent` does. Mates are kept.
    #[arg(long, default_value_t = 100.0)]
    pub score_percent: f64,
    /// Score at most this many games, then stop as a killed run would (for tests).
    #[arg(long, hide = true)]
    pub stop_after: Option<usize>,
}

impl RescoreArgs {
    /// The settings that decide the output, as its block header keeps them.
    fn settings(&self) -> String {
        let mut settings =
            format!("--rescore {} --nodes {}{}", self.input_name(), self.nodes, if self.all { " --all" } else { "" });
        if !self.engine.is_empty() {
            // The engine by its settings, its program without folders.
            let engine: Vec<String> = self.engine.iter().map(|word| without_folders(word)).collect();
            settings.push_str(&format!(" --engine {} --score-percent {}", engine.join(" "), self.score_percent));
            if let Some(name) = &self.engine_variant {
                settings.push_str(&format!(" --engine-variant {name}"));
            }
        }
        settings
    }

    /// The teacher named by --engine, if any.
    fn teacher(&self, catalogue: &Catalogue) -> Result<Option<Teacher>, String> {
        if self.engine.is_empty() {
            return Ok(None);
        }
        let spec = PlayerSpec::from_tokens(&self.engine).map_err(|e| format!("--engine: {e}"))?;
        let name = self.engine_variant.as_deref().unwrap_or(&self.variant);
        let variant = catalogue.get(name).ok_or_else(|| format!("unknown --engine-variant '{name}'"))?;
        check_score_percent(self.score_percent)?;
        Ok(Some(Teacher::new(spec, variant, self.nodes, self.score_percent)))
    }

    /// The input's file name, without its folders, as headers name it.
    fn input_name(&self) -> String {
        self.data.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned())
    }
}

/// Runs `menagerie rescore`; the error is the line `main` prints.
pub fn run_rescore_command(args: &RescoreArgs, catalogue: &Catalogue) -> Result<(), String> {
    let variant = catalogue.get(&args.variant).ok_or_else(|| format!("unknown variant '{}'", args.variant))?;
    if args.nodes == 0 || args.threads == Some(0) {
        return Err("--nodes and --threads must be at least 1".to_string());
    }
    if args.engine_variant.is_some() && args.engine.is_empty() {
        return Err("--engine-variant needs --engine".to_string());
    }
    let teacher = args.teacher(catalogue)?;
    if let Some(teacher) = &teacher {
        teacher.start()?;
    }
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let (made_by, games) = read_games(&args.data, &variant)?;
    // The header names the commands that made the input too, so a network
    // trained on the output still says how to make its data again.
    let command = format!("{} ({} being: {made_by})", command_line(), args.input_name());
    let header = DataHeader::games(&variant, &command).with_settings(&args.settings());
    let out = &args.out;
    let done = if args.resume && out.exists() { finished_game_numbers(out, &variant, &header)?.len() } else { 0 };
    if done > games.len() {
        return Err(format!(
            "{} holds {done} games, more than the {} of {}",
            out.display(),
            games.len(),
            args.data.display()
        ));
    }
    let file = if args.resume && out.exists() {
        std::fs::OpenOptions::new().append(true).open(out)
    } else {
        std::fs::File::create(out).and_then(|mut f| f.write_all(header_text(&header).as_bytes()).map(|()| f))
    }
    .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let todo = &games[done..games.len().min(done.saturating_add(args.stop_after.unwrap_or(usize::MAX)))];
    if done > 0 {
        eprintln!("{} holds {done} scored games; scoring the {} left", out.display(), todo.len());
    }
    let eval = catalogue.evaluator(&variant, EvalMode::Full);
    let plan = Plan { variant: &variant, eval: &eval, nodes: args.nodes, all: args.all, teacher: teacher.as_ref() };
    let writer = InOrder { state: Mutex::new(WriterState { file, next: 0, waiting: BTreeMap::new(), failure: None }) };
    let start = Instant::now();
    let (searched, engine_failure) = score_games(&plan, todo, threads, &writer);
    drop(teacher);
    let state = writer.state.into_inner().map_err(|_| "a scoring thread failed".to_string())?;
    if let Some(error) = state.failure {
        return Err(format!("cannot write {}: {error}", out.display()));
    }
    if let Some(error) = engine_failure {
        return Err(format!(
            "{error}; {} holds the {} games scored before it, and --resume carries on",
            out.display(),
            done + state.next
        ));
    }
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "scored {searched} plies of {} games into {} in {seconds:.0} s ({:.0} plies an hour per thread)",
        todo.len(),
        out.display(),
        searched as f64 / seconds.max(1e-9) * 3600.0 / threads as f64
    );
    Ok(())
}

/// The commands that made a data file, and its games (those of its game
/// blocks; position blocks have none).
fn read_games(path: &Path, variant: &Arc<Variant>) -> Result<(String, Vec<Game>), String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let (mut games, mut commands) = (Vec::new(), Vec::new());
    let filter = Filter { quiet: false, ..Filter::default() };
    PositionReader::new(variant, filter)
        .read(std::io::BufReader::new(file), &mut |item| match item {
            Item::Game(game) => games.push(game.clone()),
            Item::Block(header) => commands.push(header.command.clone()),
            Item::Position(..) => {}
        })
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if games.is_empty() {
        return Err(format!("{} holds no games (only game blocks can be scored again)", path.display()));
    }
    Ok((data_commands(commands.iter().map(String::as_str)), games))
}

/// What every scoring thread shares.
struct Plan<'a> {
    variant: &'a Arc<Variant>,
    eval: &'a Evaluator,
    nodes: u64,
    all: bool,
    /// Another engine that scores instead of this one's search.
    teacher: Option<&'a Teacher>,
}

/// Scores `games` on `threads` threads, handing each to `writer` with its
/// index; returns the plies searched, and the teacher's first failure
/// (the games from the failed one on are then left unwritten). Progress
/// goes to stderr.
fn score_games(plan: &Plan<'_>, games: &[Game], threads: usize, writer: &InOrder) -> (usize, Option<String>) {
    let failure: Mutex<Option<String>> = Mutex::new(None);
    let score = |index: usize, tt: &mut TranspositionTable| {
        let scored = match plan.teacher {
            None => Ok(score_game(plan, tt, &games[index])),
            // After a failure the rest is left for --resume.
            Some(_) if failure.lock().map_or(true, |f| f.is_some()) => return 0,
            Some(teacher) => teacher.score_game(plan.variant, &games[index], plan.all),
        };
        match scored {
            Ok((game, searched)) => {
                writer.write(index, game);
                searched
            }
            Err(error) => {
                if let Ok(mut first) = failure.lock() {
                    first.get_or_insert(error);
                }
                0
            }
        }
    };
    let line =
        |done: usize, plies: usize, eta: f64| format!("games {done}/{}  plies {plies}  ETA {eta:.0}s", games.len());
    let searched = on_search_threads("rescore", threads, games.len(), score, line);
    (searched, failure.into_inner().unwrap_or(None))
}

/// `game` with its plies scored by a search of `plan.nodes` nodes (the
/// unscored ones, or every one with `plan.all`; never a setup ply, where
/// nothing is learnt); the plies searched.
fn score_game(plan: &Plan<'_>, tt: &mut TranspositionTable, game: &Game) -> (Game, usize) {
    let mut scored = game.clone();
    let Ok(mut pos) = game.start_position(plan.variant) else { return (scored, 0) };
    tt.clear();
    let limits = Limits { nodes: Some(plan.nodes), multipv: 1, ..Limits::default() };
    let mut histories = Histories::new(plan.variant.shape, plan.variant.kind_count());
    let mut list = MoveList::new();
    let mut searched = 0;
    for ply in &mut scored.plies {
        pos.generate_legal(&mut list);
        let Some(&m) = list.get(usize::from(ply.index)) else { break };
        if !pos.in_setup() && (plan.all || ply.score == PlyScore::Random) {
            let control = SearchControl::default();
            let mut search = Search::with_histories(&mut pos, &*tt, plan.eval, &control, &limits, histories);
            let found = search.run(&mut |_| {});
            histories = search.into_histories();
            if found.best.is_some() {
                ply.score = match found.score {
                    Score::Cp(cp) => PlyScore::Cp(white_view(&pos, cp)),
                    Score::Mate(n) => PlyScore::mate(n),
                };
                searched += 1;
            }
        }
        pos.make(m);
    }
    (scored, searched)
}

/// Writes games in their input order as they arrive from the threads.
struct InOrder {
    state: Mutex<WriterState>,
}

struct WriterState {
    file: std::fs::File,
    /// The index of the next game to write.
    next: usize,
    /// Games done ahead of `next`.
    waiting: BTreeMap<usize, Game>,
    /// The first write that failed.
    failure: Option<String>,
}

impl InOrder {
    fn write(&self, index: usize, game: Game) {
        let Ok(mut state) = self.state.lock() else { return };
        state.waiting.insert(index, game);
        let mut bytes = Vec::new();
        while let Some(game) = {
            let next = state.next;
            state.waiting.remove(&next)
        } {
            game.encode(&mut bytes);
            state.next += 1;
        }
        if bytes.is_empty() || state.failure.is_some() {
            return;
        }
        if let Err(e) = state.file.write_all(&bytes).and_then(|()| state.file.flush()) {
            state.failure = Some(e.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_name_the_input_and_the_nodes() {
        let args = RescoreArgs {
            variant: "chess".into(),
            data: PathBuf::from("/some/folder/spar.data"),
            out: PathBuf::from("out.data"),
            nodes: 3000,
            all: true,
            threads: None,
            resume: false,
            engine: Vec::new(),
            engine_variant: None,
            score_percent: 100.0,
            stop_after: None,
        };
        assert_eq!(args.settings(), "--rescore spar.data --nodes 3000 --all");
        assert_eq!(RescoreArgs { all: false, ..args }.settings(), "--rescore spar.data --nodes 3000");
    }
}
