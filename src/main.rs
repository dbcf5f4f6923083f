//! Command line: `uci` (default), `xboard`, `perft`, `bench`, `check`, `variants`,
//! `match`, `play`, `analyse`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use menagerie::perft::{divide, perft};
use menagerie::position::Position;
use menagerie::variant::Registry;

#[derive(Parser)]
#[command(name = "menagerie", version, about = "A variant-aware chess engine (UCI and XBoard)")]
struct Cli {
    /// Load extra variant files from this directory or file.
    #[arg(long, global = true)]
    variants: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count leaf nodes of the legal move tree.
    Perft {
        /// Variant name.
        #[arg(long, default_value = "chess")]
        variant: String,
        /// Start from this FEN instead of the variant's start position.
        #[arg(long)]
        fen: Option<String>,
        /// Moves (UCI text) to play from the position first.
        #[arg(long, num_args = 1.., value_delimiter = ' ')]
        moves: Vec<String>,
        /// Depth in plies.
        #[arg(long)]
        depth: u32,
        /// Print the node count after each first move.
        #[arg(long)]
        divide: bool,
        /// Write castling as king-takes-rook.
        #[arg(long)]
        chess960: bool,
    },
    /// Validate a variant file and print every error.
    Check {
        /// The `.var` file.
        file: PathBuf,
    },
    /// List the loaded variants.
    Variants,
    /// Play a match or round robin between engines, refereed by the rules core.
    Match(menagerie::tournament::cli::MatchArgs),
    /// Play against an engine (or a random mover) in the terminal.
    Play(menagerie::tournament::play::PlayArgs),
    /// Analyse a position with a UCI engine (MultiPV, text or JSON).
    #[command(alias = "analyze")]
    Analyse(menagerie::tournament::analyse::AnalyseArgs),
    /// A random legal mover speaking UCI (or XBoard), for tests.
    #[command(hide = true)]
    RandomEngine(menagerie::tournament::cli::RandomEngineArgs),
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let mut cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    if let (Some(Command::Match(args)), Some(("match", sub))) = (&mut cli.command, matches.subcommand()) {
        args.group_engines(sub);
    }
    let mut registry = Registry::builtin();
    if let Some(dir) = &cli.variants {
        if let Err(errors) = registry.load_path(dir) {
            let first = errors.first().map_or_else(|| "cannot load variants".to_string(), |e| e.to_string());
            let more = match errors.len() {
                0 | 1 => String::new(),
                n => format!(" (and {} more; run `menagerie check FILE` to list them)", n - 1),
            };
            return fail(format!("{first}{more}"));
        }
    }
    match cli.command {
        Some(Command::Perft { variant, fen, moves, depth, divide: split, chess960 }) => {
            let Some(v) = registry.get(&variant) else {
                return fail(format!("unknown variant {variant:?} (try `menagerie variants`)"));
            };
            let pos = match fen {
                Some(f) => Position::from_fen(v, &f),
                None => Position::startpos(v),
            };
            let mut pos = match pos {
                Ok(p) => p,
                Err(e) => return fail(e),
            };
            for text in &moves {
                match pos.parse_move(text) {
                    Ok(m) => pos.make(m),
                    Err(e) => return fail(e),
                }
            }
            let start = Instant::now();
            let nodes = if split {
                let rows = divide(&mut pos, depth, chess960);
                for (m, n) in &rows {
                    println!("{m}: {n}");
                }
                println!();
                rows.iter().map(|r| r.1).sum()
            } else {
                perft(&mut pos, depth)
            };
            let secs = start.elapsed().as_secs_f64();
            println!("Nodes searched: {nodes}");
            println!("Time: {:.3} s, Nodes/second: {:.0}", secs, nodes as f64 / secs.max(1e-9));
            ExitCode::SUCCESS
        }
        Some(Command::Check { file }) => {
            let text = match std::fs::read_to_string(&file) {
                Ok(t) => t,
                Err(e) => return fail(format!("cannot read {}: {e}", file.display())),
            };
            match registry.parse_text(&file.display().to_string(), &text) {
                Ok(v) => {
                    println!("{}: ok ({} pieces, {} board)", v.name, v.pieces.len(), v.shape);
                    ExitCode::SUCCESS
                }
                Err(errors) => {
                    for e in &errors {
                        println!("{e}");
                    }
                    ExitCode::FAILURE
                }
            }
        }
        Some(Command::Variants) => {
            for v in registry.variants() {
                println!("{:<12} {}", v.name, v.description);
            }
            ExitCode::SUCCESS
        }
        Some(Command::Match(args)) => menagerie::tournament::cli::run_match_command(&args, &registry),
        Some(Command::Play(args)) => menagerie::tournament::play::run_play(&args, &registry),
        Some(Command::Analyse(args)) => menagerie::tournament::analyse::run_analyse(&args, &registry),
        Some(Command::RandomEngine(args)) => {
            menagerie::tournament::random_engine::run(registry, args.seed, args.xboard);
            ExitCode::SUCCESS
        }
        None => fail("protocols are not built yet"),
    }
}
