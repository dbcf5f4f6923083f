//! `menagerie datagen`: training data for a network. Self-play at a fixed
//! node count from seeded random openings (the tuner's self-play, on every
//! thread), each game written to a game block ([`crate::eval::nnue::games`])
//! as soon as it ends, so a run that is stopped keeps its finished games,
//! and `--resume` plays only the games the file lacks.
//!
//! `--shard I/N` plays the `I`-th of `N` equal, contiguous ranges of the
//! games, so shards made on N machines are disjoint and, concatenated in
//! order, hold exactly the positions one run makes.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use clap::Args;

use super::command_line;
use super::selfplay::{generate_with_progress, SelfPlay};
use crate::eval::catalogue::Catalogue;
use crate::eval::nnue::data::{header_text, BlockKind, DataError, DataHeader, Item, PositionReader};
use crate::eval::nnue::games::{Filter, Game};
use crate::eval::EvalMode;
use crate::rules::variant::Variant;

/// `menagerie datagen` arguments.
#[derive(Args, Debug, Clone)]
pub struct DatagenArgs {
    /// The variant to play.
    #[arg(long)]
    pub variant: String,
    /// Self-play games (over all shards).
    #[arg(long, default_value_t = 1000)]
    pub games: usize,
    /// Nodes per move.
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
    /// Threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random plies that open each game.
    #[arg(long, default_value_t = 8)]
    pub random_plies: usize,
    /// Which part of the games to play, `I/N` (0-based I): shards of one
    /// run are disjoint and concatenate into the whole.
    #[arg(long, default_value = "0/1", value_parser = parse_shard)]
    pub shard: (usize, usize),
    /// Where to write (default: NAME.data, or NAME-I-of-N.data for a shard).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Carry on a run that stopped: keep the games the file holds (a game
    /// cut off at its end is dropped) and play only the missing ones.
    #[arg(long)]
    pub resume: bool,
    /// Play at most this many games, then stop as a killed run would (for tests).
    #[arg(long, hide = true)]
    pub stop_after: Option<usize>,
}

impl DatagenArgs {
    /// The settings that decide the games, as the block header keeps them.
    fn settings(&self) -> String {
        format!(
            "--games {} --nodes {} --seed {} --random-plies {} --shard {}/{}",
            self.games, self.nodes, self.seed, self.random_plies, self.shard.0, self.shard.1
        )
    }
}

/// Reads `I/N` with `I < N`.
pub(crate) fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let (i, n) = text.split_once('/').ok_or_else(|| format!("expected I/N, found {text:?}"))?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| format!("bad shard index {i:?}"))?,
        n.trim().parse().map_err(|_| format!("bad shard count {n:?}"))?,
    );
    if n == 0 || i >= n {
        return Err(format!("shard {i}/{n}: the index must be below the count (0/{n} to {}/{n})", n.max(1) - 1));
    }
    Ok((i, n))
}

/// The games of shard `i` of `n`: a contiguous range, the ranges in order
/// covering `0..games`.
pub fn shard_games(games: usize, (i, n): (usize, usize)) -> std::ops::Range<usize> {
    (games * i / n)..(games * (i + 1) / n)
}

/// Runs `menagerie datagen`; the error is the line `main` prints.
pub fn run_datagen_command(args: &DatagenArgs, catalogue: &Catalogue) -> Result<(), String> {
    let variant = catalogue.get(&args.variant).ok_or_else(|| format!("unknown variant '{}'", args.variant))?;
    if args.games == 0 || args.nodes == 0 || args.threads == Some(0) {
        return Err("--games, --nodes and --threads must be at least 1".to_string());
    }
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let range = shard_games(args.games, args.shard);
    let out = args.out.clone().unwrap_or_else(|| match args.shard {
        (_, 1) => PathBuf::from(format!("{}.data", variant.name)),
        (i, n) => PathBuf::from(format!("{}-{i}-of-{n}.data", variant.name)),
    });
    let eval = catalogue.evaluator(&variant, EvalMode::Full);
    let plan = SelfPlay {
        games: range.len(),
        nodes: args.nodes,
        threads,
        seed: args.seed,
        random_plies: args.random_plies,
        first_game: range.start,
    };
    eprintln!(
        "datagen {}: games {}..{} of {}, {} nodes a move, {threads} threads",
        variant.name, range.start, range.end, args.games, args.nodes
    );
    let header = DataHeader::games(&variant, &command_line()).with_settings(&args.settings());
    let done: BTreeSet<usize> = if args.resume && out.exists() {
        finished_game_numbers(&out, &variant, &header)?.into_iter().collect()
    } else {
        BTreeSet::new()
    };
    let file = if !args.resume || !out.exists() {
        let mut file = std::fs::File::create(&out).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
        file.write_all(header_text(&header).as_bytes()).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
        file
    } else {
        std::fs::OpenOptions::new()
            .append(true)
            .open(&out)
            .map_err(|e| format!("cannot write {}: {e}", out.display()))?
    };
    let mut numbers: Vec<usize> = range.clone().filter(|n| !done.contains(n)).collect();
    numbers.truncate(args.stop_after.unwrap_or(usize::MAX));
    if !done.is_empty() {
        eprintln!("{} holds {} finished games; playing the {} missing", out.display(), done.len(), numbers.len());
    }
    let writer = GameWriter { file: Mutex::new(file), failure: Mutex::new(None) };
    let start = Instant::now();
    let positions = generate_with_progress(&variant, &eval, &plan, &numbers, &|game| writer.write(&game));
    if let Some(error) = writer.failure.into_inner().ok().flatten() {
        return Err(format!("cannot write {}: {error}", out.display()));
    }
    let seconds = start.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(&out).map_or(0, |m| m.len());
    let per_core_hour = positions as f64 / seconds.max(1e-9) * 3600.0 / threads as f64;
    println!(
        "wrote {positions} positions from {} games to {} ({bytes} bytes) in {:.0} s ({:.0} positions an hour per thread)",
        numbers.len(),
        out.display(),
        seconds,
        per_core_hour
    );
    Ok(())
}

/// Appends each game to the file as it ends; the first failure is kept.
struct GameWriter {
    file: Mutex<std::fs::File>,
    failure: Mutex<Option<String>>,
}

impl GameWriter {
    fn write(&self, game: &Game) {
        let mut bytes = Vec::with_capacity(64 + 4 * game.plies.len());
        game.encode(&mut bytes);
        let written = match self.file.lock() {
            Ok(mut file) => file.write_all(&bytes).and_then(|()| file.flush()).map_err(|e| e.to_string()),
            Err(_) => Err("a writer thread failed".to_string()),
        };
        if let (Err(e), Ok(mut failure)) = (written, self.failure.lock()) {
            failure.get_or_insert(e);
        }
    }
}

/// The numbers of the games `path` holds, in the file's order, for
/// `--resume`: its blocks must be game blocks made with the same settings
/// as `header`. A game cut off at the end (a run killed while writing) is
/// cut from the file.
pub(crate) fn finished_game_numbers(
    path: &Path,
    variant: &Arc<Variant>,
    header: &DataHeader,
) -> Result<Vec<usize>, String> {
    let name = path.display();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    let mut done = Vec::new();
    let mut refused = None;
    let filter = Filter { quiet: false, ..Filter::default() };
    let read = PositionReader::new(variant, filter).read(&bytes[..], &mut |item| match item {
        Item::Block(found) if found.kind != BlockKind::Games || found.settings != header.settings => {
            refused.get_or_insert_with(|| found.settings.clone().unwrap_or_else(|| "no settings".to_string()));
        }
        Item::Game(game) => {
            done.push(game.number as usize);
        }
        _ => {}
    });
    if let Some(settings) = refused {
        return Err(format!(
            "{name}: cannot resume: made with {settings}, not {}",
            header.settings.as_deref().unwrap_or_default()
        ));
    }
    match read {
        Ok(()) => Ok(done),
        Err(DataError::BadGame { offset, message }) if message == "ends early" => {
            eprintln!("{name}: dropping the game cut off at byte {offset}");
            let file = std::fs::OpenOptions::new().write(true).open(path).map_err(|e| format!("{name}: {e}"))?;
            file.set_len(offset as u64).map_err(|e| format!("{name}: {e}"))?;
            Ok(done)
        }
        Err(e) => Err(format!("{name}: cannot resume: {e}")),
    }
}
