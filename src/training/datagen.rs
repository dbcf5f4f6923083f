//! `menagerie datagen`: training data for a network. Self-play at a fixed
//! node count from seeded random openings (the tuner's self-play, on every
//! thread), whose records (each kept position with the search's score and
//! the game's result, [`crate::eval::nnue::data`]) are written as they come.
//!
//! `--shard I/N` plays the `I`-th of `N` equal, contiguous ranges of the
//! games, so shards made on N machines are disjoint and, concatenated in
//! order, hold exactly the positions one run makes.

use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use super::command_line;
use super::selfplay::{generate_with_progress, SelfPlay};
use crate::eval::catalogue::Catalogue;
use crate::eval::nnue::data::{write_block, DataHeader};
use crate::eval::EvalMode;

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
    let start = Instant::now();
    let records = generate_with_progress(&variant, &eval, &plan);
    let seconds = start.elapsed().as_secs_f64();
    let header = DataHeader::new(&variant, &command_line(), records.len());
    std::fs::write(&out, write_block(&header, records.bytes()))
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let per_core_hour = records.len() as f64 / seconds.max(1e-9) * 3600.0 / threads as f64;
    println!(
        "wrote {} positions from {} games to {} in {:.0} s ({:.0} positions an hour per thread)",
        records.len(),
        range.len(),
        out.display(),
        seconds,
        per_core_hour
    );
    Ok(())
}
