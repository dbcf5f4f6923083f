//! Command-line front ends for `match` and `random-engine`: clap argument
//! structs and the functions `main` calls.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use clap::{ArgAction, Args};

use super::referee::RefereeSettings;
use super::runner::{run_match, MatchConfig};
use super::stats::Sprt;
use crate::board::registry::Registry;
use crate::game::adjudicate::AdjudicationError;
use crate::game::openings::{read_openings, SplitMix64};
use crate::game::tc::TimeControl;
use crate::players::{Player, PlayerError, PlayerSpec};

/// `menagerie match`: play engines against each other.
#[derive(Args, Debug)]
pub struct MatchArgs {
    /// An engine: `cmd=COMMAND proto=uci|xboard name=NAME dir=DIR tc=LIMITS option.NAME=VALUE` (repeat for each engine).
    #[arg(long, num_args = 1.., action = ArgAction::Append, value_name = "KEY=VALUE")]
    pub engine: Vec<String>,
    /// The `--engine` values grouped by occurrence (filled by [`MatchArgs::group_engines`]).
    #[arg(skip)]
    pub engine_groups: Vec<Vec<String>>,
    /// Variant name.
    #[arg(long, default_value = "chess")]
    pub variant: String,
    /// Games per pair of engines per round (pairs of games share an opening).
    #[arg(long, default_value_t = 2)]
    pub games: u32,
    /// Rounds.
    #[arg(long, default_value_t = 1)]
    pub rounds: u32,
    /// Time control: `moves/time+inc`, `tc=time+inc`, `st=secs`, `nodes=N`, `depth=N` (combinable).
    #[arg(long, default_value = "tc=10+0.1")]
    pub tc: String,
    /// EPD/FEN file of start positions, used in turn.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Use the opening file's positions in random order (seeded by --seed).
    #[arg(long)]
    pub openings_random: bool,
    /// Play the first engine against each of the others, not a round robin.
    #[arg(long)]
    pub gauntlet: bool,
    /// Random plies played from each start position.
    #[arg(long, default_value_t = 0)]
    pub random_plies: u32,
    /// Seed for random plies.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Append games to this PGN file.
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// SPRT for two engines: `elo0=0 elo1=5 alpha=0.05 beta=0.05`.
    #[arg(long, num_args = 1..=4, value_name = "KEY=VALUE")]
    pub sprt: Option<Vec<String>>,
    /// Milliseconds of grace before a flag falls.
    #[arg(long, default_value_t = 100)]
    pub timemargin: u64,
    /// Seconds an engine may think without a clock or movetime.
    #[arg(long, default_value_t = 60)]
    pub move_timeout: u64,
    /// Adjudicate a draw after this many moves per side (0 = never).
    #[arg(long, default_value_t = 0)]
    pub max_moves: u32,
    /// Adjudicate a draw: `movenumber=40 movecount=8 score=10` (centipawns).
    #[arg(long, num_args = 1..=3, value_name = "KEY=VALUE")]
    pub draw: Option<Vec<String>>,
    /// Adjudicate a loss: `movecount=3 score=1000` (the engine's own score at most -score).
    #[arg(long, num_args = 1..=2, value_name = "KEY=VALUE")]
    pub resign: Option<Vec<String>>,
    /// PGN Event tag.
    #[arg(long, default_value = "menagerie match")]
    pub event: String,
    /// Echo all engine traffic on stderr.
    #[arg(long)]
    pub debug: bool,
    /// No live progress line.
    #[arg(long)]
    pub quiet: bool,
}

/// `menagerie random-engine`: a random mover (for tests).
#[derive(Args, Debug)]
pub struct RandomEngineArgs {
    /// Random seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Speak XBoard instead of UCI.
    #[arg(long)]
    pub xboard: bool,
}

impl MatchArgs {
    /// Groups the `--engine` values by occurrence (clap's derive flattens them).
    pub fn group_engines(&mut self, matches: &clap::ArgMatches) {
        self.engine_groups = match matches.get_occurrences::<String>("engine") {
            Some(occurrences) => occurrences.map(|o| o.cloned().collect()).collect(),
            None => Vec::new(),
        };
    }
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}

/// Builds the match configuration from the arguments.
pub fn match_config(args: &MatchArgs, registry: &Registry) -> Result<MatchConfig, String> {
    let variant = registry
        .get(&args.variant)
        .ok_or_else(|| format!("unknown variant {:?} (try `menagerie variants`)", args.variant))?;
    let engines = args
        .engine_groups
        .iter()
        .map(|tokens| PlayerSpec::from_tokens(tokens).map_err(|e| e.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    if engines.len() < 2 {
        return Err("a match needs at least two --engine".to_string());
    }
    // Names must tell engines apart in the PGN and the table.
    let mut engines = engines;
    for i in 1..engines.len() {
        let taken = |name: &str, engines: &[PlayerSpec]| engines[..i].iter().any(|e| e.name == name);
        if taken(&engines[i].name, &engines) {
            let mut k = 2;
            while taken(&format!("{}-{k}", engines[i].name), &engines) {
                k += 1;
            }
            engines[i].name = format!("{}-{k}", engines[i].name);
        }
    }
    let tc: TimeControl = args.tc.parse().map_err(|e| format!("{e}"))?;
    let sprt = match &args.sprt {
        Some(parts) => {
            if engines.len() != 2 {
                return Err("--sprt needs exactly two engines".to_string());
            }
            Some(parts.join(" ").parse::<Sprt>().map_err(|e| e.to_string())?)
        }
        None => None,
    };
    let mut openings = match &args.openings {
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            read_openings(&variant, &text).map_err(|e| format!("{}: {e}", path.display()))?
        }
        None => Vec::new(),
    };
    if args.openings_random {
        // Fisher-Yates with the crate's own generator, so an order is reproducible.
        let mut rng = SplitMix64(args.seed ^ 0x005E_ED0F_0BE4_1465);
        for i in (1..openings.len()).rev() {
            openings.swap(i, rng.below(i + 1));
        }
    }
    if args.games == 0 || args.rounds == 0 {
        return Err("--games and --rounds must be at least 1".to_string());
    }
    Ok(MatchConfig {
        engines,
        gauntlet: args.gauntlet,
        variant: Arc::clone(&variant),
        tc,
        games: args.games,
        rounds: args.rounds,
        openings,
        random_plies: args.random_plies,
        seed: args.seed,
        concurrency: args.concurrency.max(1),
        pgn: args.pgn.clone(),
        sprt,
        referee: RefereeSettings {
            margin: Duration::from_millis(args.timemargin),
            move_timeout: Duration::from_secs(args.move_timeout.max(1)),
            max_moves: args.max_moves,
            draw_rule: match &args.draw {
                Some(parts) => Some(parts.join(" ").parse().map_err(|e: AdjudicationError| e.to_string())?),
                None => None,
            },
            resign_rule: match &args.resign {
                Some(parts) => Some(parts.join(" ").parse().map_err(|e: AdjudicationError| e.to_string())?),
                None => None,
            },
        },
        event: args.event.clone(),
        debug: args.debug,
        progress: !args.quiet && std::io::stderr().is_terminal(),
    })
}

/// Runs `menagerie match`; Ctrl-C stops it cleanly.
pub fn run_match_command(args: &MatchArgs, registry: &Registry) -> ExitCode {
    let config = match match_config(args, registry) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let stop = Arc::new(AtomicBool::new(false));
    // Start every engine once, so that a wrong command fails before any game.
    for spec in &config.engines {
        let check = Player::start(spec, &stop, config.debug).and_then(|mut e| {
            e.new_game(&config.variant, &config.variant.start_fen, &spec.tc.unwrap_or(config.tc), &stop).map(|_| e)
        });
        match check {
            Ok(e) => e.quit(),
            // A refusal names the engine itself.
            Err(e @ PlayerError::Refused(_)) => return fail(e.to_string()),
            Err(e) => return fail(format!("engine {} ({}): {e}", spec.name, spec.cmd)),
        }
    }
    let flag = Arc::clone(&stop);
    // The first Ctrl-C stops the match cleanly; a second one exits at once
    // (the engines then see their input close).
    if let Err(e) = ctrlc::set_handler(move || {
        if flag.swap(true, std::sync::atomic::Ordering::Relaxed) {
            eprintln!("\ninterrupted twice, exiting");
            std::process::exit(130);
        }
        eprintln!("\nstopping: finishing up (Ctrl-C again to exit at once)");
    }) {
        eprintln!("warning: no Ctrl-C handler: {e}");
    }
    let summary = run_match(&config, &stop);
    println!("{summary}");
    ExitCode::SUCCESS
}
