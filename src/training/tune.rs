//! `menagerie tune`: learns a variant's evaluation weights from self-play.
//!
//! 1. **generate**: games at a fixed node count from seeded random
//!    openings; quiet positions (not in check, best move not a capture) are
//!    kept with the game's result and saved as training data (the records
//!    `train` reads) with the settings that played them, so that a fit can
//!    be rerun (a file whose settings differ from those a run names is
//!    refused, unless `--reuse-data`; an old tuner's `.positions` file is
//!    read as well, [`positions`]);
//! 2. **fit**: logistic (Texel) loss with a fitted scale, Adam over all
//!    weights ([`fit`]);
//! 3. **write** `NAME.eval`, whose header names the command line. The same
//!    seed gives the same file.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;

use super::fit::{self, FitPlan, Row};
use super::selfplay::{self, SelfPlay};
use super::train_command::data_commands;
use super::{command_line, positions};
use crate::eval::catalogue::Catalogue;
use crate::eval::nnue::data::{header_text, is_data, write_block, DataHeader, DataSet};
use crate::eval::{write_eval_file, EvalMode};
use crate::rules::variant::Variant;

/// `menagerie tune` arguments.
#[derive(Args, Debug, Clone)]
pub struct TuneArgs {
    /// The variant to tune.
    #[arg(long)]
    pub variant: String,
    /// Self-play games to generate [default: 2000].
    #[arg(long)]
    pub games: Option<usize>,
    /// Nodes per move in self-play [default: 3000].
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Threads for self-play and the fit.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Seed of the random openings [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Random plies that open each game [default: 8].
    #[arg(long)]
    pub random_plies: Option<usize>,
    /// Training data file (as `datagen` writes and `train` reads): read if it
    /// exists (no games are played), else written after the games. Default:
    /// NAME.data in the current directory (an old tuner's NAME.positions
    /// where only that exists; such files are read too). An existing file
    /// made with other --games, --nodes, --seed, --random-plies or
    /// --from-hand than this run names is refused.
    #[arg(long)]
    pub data: Option<PathBuf>,
    /// Fit the --data file as it is, even when it was generated with other
    /// settings than this run names (or does not record them).
    #[arg(long)]
    pub reuse_data: bool,
    /// Where to write the weights. Default: NAME.eval in the current directory.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Passes of the fit over the data.
    #[arg(long, default_value_t = 500)]
    pub epochs: usize,
    /// Weight of the game result in the fit's target; the rest is the
    /// self-play search's score (through the same logistic curve).
    #[arg(long, default_value_t = 0.3)]
    pub lambda: f64,
    /// Penalty on each weight's distance from where the fit starts, per
    /// (100 centipawns)^2: keeps weights that the data barely sees in place.
    #[arg(long, default_value_t = 1e-3)]
    pub regularize: f64,
    /// Start self-play and the fit from the derived weights (`Evaluation
    /// hand`) instead of the variant's current `.eval` file.
    #[arg(long)]
    pub from_hand: bool,
}

/// The self-play settings a data file was generated with: what makes
/// its games (the fit's settings and `--threads` do not).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DataSettings {
    games: usize,
    nodes: u64,
    seed: u64,
    random_plies: usize,
    from_hand: bool,
}

impl DataSettings {
    /// The settings `args` asks for, defaults filled in.
    fn of(args: &TuneArgs) -> DataSettings {
        DataSettings {
            games: args.games.unwrap_or(2000),
            nodes: args.nodes.unwrap_or(3000),
            seed: args.seed.unwrap_or(1),
            random_plies: args.random_plies.unwrap_or(8),
            from_hand: args.from_hand,
        }
    }

    /// As written in a data file: `--games 8 --nodes 3000 --seed 1 --random-plies 8 [--from-hand]`.
    fn text(&self) -> String {
        let hand = if self.from_hand { " --from-hand" } else { "" };
        format!(
            "--games {} --nodes {} --seed {} --random-plies {}{hand}",
            self.games, self.nodes, self.seed, self.random_plies
        )
    }

    /// Reads [`DataSettings::text`]; None for anything else.
    fn parse(text: &str) -> Option<DataSettings> {
        let (mut games, mut nodes, mut seed, mut random_plies, mut from_hand) = (None, None, None, None, false);
        let mut words = text.split_whitespace();
        while let Some(word) = words.next() {
            match word {
                "--from-hand" => from_hand = true,
                "--games" => games = Some(words.next()?.parse().ok()?),
                "--nodes" => nodes = Some(words.next()?.parse().ok()?),
                "--seed" => seed = Some(words.next()?.parse().ok()?),
                "--random-plies" => random_plies = Some(words.next()?.parse().ok()?),
                _ => return None,
            }
        }
        Some(DataSettings { games: games?, nodes: nodes?, seed: seed?, random_plies: random_plies?, from_hand })
    }

    /// The settings that `args` names and that differ from these, as
    /// (these, asked) texts; empty when the file fits the request.
    fn differences(&self, args: &TuneArgs) -> (Vec<String>, Vec<String>) {
        let asked = DataSettings::of(args);
        let mut have = Vec::new();
        let mut want = Vec::new();
        let mut compare = |named: bool, name: &str, mine: String, theirs: String| {
            if named && mine != theirs {
                have.push(format!("{name} {mine}"));
                want.push(format!("{name} {theirs}"));
            }
        };
        compare(args.games.is_some(), "--games", self.games.to_string(), asked.games.to_string());
        compare(args.nodes.is_some(), "--nodes", self.nodes.to_string(), asked.nodes.to_string());
        compare(args.seed.is_some(), "--seed", self.seed.to_string(), asked.seed.to_string());
        compare(
            args.random_plies.is_some(),
            "--random-plies",
            self.random_plies.to_string(),
            asked.random_plies.to_string(),
        );
        if args.from_hand && !self.from_hand {
            have.push("no --from-hand".to_string());
            want.push("--from-hand".to_string());
        }
        (have, want)
    }
}

/// Whether the data file `data`, generated with `recorded` settings
/// (None: not recorded), may serve this run; the error says why not and
/// what to do.
fn check_data(data: &Path, recorded: Option<&DataSettings>, args: &TuneArgs) -> Result<(), String> {
    if args.reuse_data {
        return Ok(());
    }
    let advice = "remove it (or name another --data file) to play the games, or pass --reuse-data to fit it as it is";
    let file = data.display();
    match recorded {
        Some(settings) => {
            let (have, want) = settings.differences(args);
            if have.is_empty() {
                return Ok(());
            }
            Err(format!(
                "{file} holds positions generated with {} (this run asks for {}): {advice}",
                have.join(" "),
                want.join(" ")
            ))
        }
        None if args.games.is_some()
            || args.nodes.is_some()
            || args.seed.is_some()
            || args.random_plies.is_some()
            || args.from_hand =>
        {
            Err(format!("{file} does not record the settings it was generated with: {advice}"))
        }
        None => Ok(()),
    }
}

/// Runs `menagerie tune`; the error is the line `main` prints.
pub fn run_tune_command(args: &TuneArgs, catalogue: &Catalogue) -> Result<(), String> {
    let variant = catalogue.get(&args.variant).ok_or_else(|| format!("unknown variant '{}'", args.variant))?;
    let settings = DataSettings::of(args);
    if settings.games == 0 || settings.nodes == 0 || args.threads == 0 || args.epochs == 0 {
        return Err("--games, --nodes, --threads and --epochs must be at least 1".to_string());
    }
    if !(0.0..=1.0).contains(&args.lambda) || args.regularize < 0.0 {
        return Err("--lambda must be between 0 and 1, --regularize at least 0".to_string());
    }
    let mode = if args.from_hand { EvalMode::Hand } else { EvalMode::Linear };
    let eval = catalogue.evaluator(&variant, mode);
    let data = args.data.clone().unwrap_or_else(|| default_data(&variant.name));
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from(format!("{}.eval", variant.name)));
    let command = command_line();
    let (set, generated_by) = if data.exists() {
        let set = read_data(&data, &variant)?;
        let settings = recorded_settings(&set).map_err(|bad| format!("{}: bad settings '{bad}'", data.display()))?;
        check_data(&data, settings.as_ref(), args)?;
        let made = settings.map_or("settings not recorded".to_string(), |s| s.text());
        eprintln!("read {} positions from {} ({made})", set.len(), data.display());
        let commands = data_commands(set.headers.iter().map(|h| h.command.as_str()));
        (set, Some(commands).filter(|c| !c.is_empty()))
    } else {
        let plan = SelfPlay {
            games: settings.games,
            nodes: settings.nodes,
            threads: args.threads,
            seed: settings.seed,
            random_plies: settings.random_plies,
            first_game: 0,
        };
        // The tuner keeps its positions as records (its data is small): the
        // games' quiet positions, read back through a game block.
        let games = selfplay::generate_all(&variant, &eval, &plan);
        let mut played = header_text(&DataHeader::games(&variant, &command)).into_bytes();
        games.iter().for_each(|game| game.encode(&mut played));
        let kept = DataSet::read(played, &variant).map_err(|e| format!("self-play: {e}"))?;
        let records: Vec<u8> = (0..kept.len()).flat_map(|i| kept.record(i).as_bytes().to_vec()).collect();
        let header = DataHeader::new(&variant, &command, kept.len()).with_settings(&settings.text());
        let bytes = write_block(&header, &records);
        std::fs::write(&data, &bytes).map_err(|e| format!("cannot write {}: {e}", data.display()))?;
        eprintln!("wrote {} positions to {}", kept.len(), data.display());
        let set = DataSet::read(bytes, &variant).map_err(|e| format!("{}: {e}", data.display()))?;
        (set, None)
    };
    if set.is_empty() {
        return Err("no positions to fit".to_string());
    }
    let rows: Vec<Row> = (0..set.len())
        .filter_map(|i| {
            let record = set.record(i);
            let pos = record.position(&variant, false).ok()?;
            Some(Row::new(&eval.trace(&pos), record.result(), record.score()))
        })
        .collect();
    eprintln!("fitting {} weights to {} positions", 2 * eval.layout().len(), rows.len());
    let plan = FitPlan {
        epochs: args.epochs,
        threads: args.threads,
        rate: 1.0,
        lambda: args.lambda,
        regularize: args.regularize,
        fixed: eval.layout().untuned().to_vec(),
    };
    let fitted = fit::fit(&rows, eval.weights(), &plan, |epoch, loss| eprintln!("  epoch {epoch:>4}: loss {loss:.6}"));
    println!(
        "positions {}  k {:.3}  loss before {:.6}  after {:.6}",
        rows.len(),
        fitted.k,
        fitted.loss_before,
        fitted.loss_after
    );
    let mut header = String::new();
    let _ = writeln!(header, "Evaluation weights of '{}', written by:", variant.name);
    let _ = writeln!(header, "  {command}");
    if let Some(generated_by) = generated_by {
        let _ = writeln!(header, "from positions generated by:");
        let _ = writeln!(header, "  {generated_by}");
    }
    let _ = write!(
        header,
        "{} positions, scale k {:.3}, loss {:.6} before and {:.6} after the fit",
        rows.len(),
        fitted.k,
        fitted.loss_before,
        fitted.loss_after
    );
    let text = write_eval_file(eval.layout(), &fitted.weights, &header);
    std::fs::write(&out, text).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    println!("wrote {}", out.display());
    Ok(())
}

/// The data file a run reads or writes by default: `NAME.data`, or an old
/// tuner's `NAME.positions` where only that one exists.
fn default_data(name: &str) -> PathBuf {
    let data = PathBuf::from(format!("{name}.data"));
    let old = PathBuf::from(format!("{name}.positions"));
    if !data.exists() && old.exists() {
        old
    } else {
        data
    }
}

/// Reads a data file for `variant`: training data, or an old tuner's positions file.
fn read_data(path: &Path, variant: &Arc<Variant>) -> Result<DataSet, String> {
    let file = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {file}: {e}"))?;
    if is_data(&bytes) {
        return DataSet::read(bytes, variant).map_err(|e| format!("{file}: {e}"));
    }
    let text = String::from_utf8(bytes).map_err(|_| format!("{file}: neither training data nor a positions file"))?;
    positions::read(&text, &file.to_string(), variant)
}

/// The settings that played every block of `set`: None when a block does
/// not say or two differ; the text that does not read as settings is the error.
fn recorded_settings(set: &DataSet) -> Result<Option<DataSettings>, String> {
    let mut found: Option<DataSettings> = None;
    for header in &set.headers {
        let Some(text) = &header.settings else { return Ok(None) };
        let settings = DataSettings::parse(text).ok_or_else(|| text.trim().to_string())?;
        if found.is_some_and(|f| f != settings) {
            return Ok(None);
        }
        found = Some(settings);
    }
    Ok(found)
}
