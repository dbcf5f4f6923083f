//! Command line: `uci` (default), `xboard`, `perft`, `bench`, `check`, `variants`,
//! `match`, `play`, `analyse`, `gui`.

use std::io::{BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use menagerie::board::perft::{divide, perft, MAX_PERFT_DEPTH};
use menagerie::board::position::Position;
use menagerie::board::registry::Registry;
use menagerie::engine::Engine;
use menagerie::eval::catalogue::Catalogue;
use menagerie::protocol::{self, Output, Protocol};

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
    /// Speak UCI on stdin/stdout (the default).
    Uci,
    /// Speak XBoard / CECP v2 on stdin/stdout.
    Xboard,
    /// Search fixed positions of every variant to a fixed depth and print the node count.
    Bench {
        /// Search depth in plies.
        depth: Option<u32>,
    },
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
    /// Check a variant file (.var: every error printed), a network (.nnue) or training data (.data).
    Check {
        /// The `.var`, `.nnue` or `.data` file.
        file: PathBuf,
    },
    /// List the loaded variants.
    Variants,
    /// Play a match or round robin between engines, refereed by the rules core.
    Match(menagerie::matches::cli::MatchArgs),
    /// Play against menagerie (or another engine, or a random mover) in the terminal.
    Play(menagerie::play::terminal::PlayArgs),
    /// Analyse a position (MultiPV), analyse every move of the games of a PGN file, or run an EPD test suite.
    #[command(alias = "analyze")]
    Analyse(menagerie::play::analyse::AnalyseArgs),
    /// Score the games of match PGN files (W/D/L, Elo, pentanomial pairs, SPRT).
    Score(menagerie::matches::score::ScoreArgs),
    /// Learn a variant's evaluation weights from self-play and write NAME.eval.
    Tune(menagerie::training::tune::TuneArgs),
    /// Self-play positions with scores and results, to train a network on.
    Datagen(menagerie::training::datagen::DatagenArgs),
    /// Join datagen's shards of one run into the file one process makes (games in order, one header).
    Join(menagerie::training::join::JoinArgs),
    /// Training data from match games: one player's plies with the scores of its PGN comments.
    Import(menagerie::training::import::ImportArgs),
    /// Score the plies of a data file's games again with this engine's search or another UCI engine's (the unscored ones, or all).
    Rescore(menagerie::training::rescore::RescoreArgs),
    /// Train a network on datagen's positions (writes NAME.nnue).
    Train(menagerie::training::train_command::TrainArgs),
    /// Serve a board in the browser (play and analyse every variant).
    Gui(menagerie::gui::GuiArgs),
    /// A random legal mover speaking UCI (or XBoard), for tests.
    #[command(hide = true)]
    RandomEngine(menagerie::matches::cli::RandomEngineArgs),
}

/// A failed command's exit: its error on one line of stderr.
fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}

/// The exit of a command that returns its error.
fn finish(result: Result<(), String>) -> ExitCode {
    result.map_or_else(fail, |()| ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    stop_quietly_when_stdout_closes();
    let matches = Cli::command().get_matches();
    let mut cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    if let (Some(Command::Match(args)), Some(("match", sub))) = (&mut cli.command, matches.subcommand()) {
        args.group_engines(sub);
    }
    let catalogue = match load_catalogue(cli.variants.as_deref()) {
        Ok(c) => c,
        Err(message) => return fail(message),
    };
    let registry = catalogue.registry();
    match cli.command {
        Some(Command::Perft { variant, fen, moves, depth, divide: split, chess960 }) => {
            run_perft(registry, &PerftRequest { variant, fen, moves, depth, split, chess960 })
        }
        Some(Command::Check { file }) => check_file(&catalogue, &file),
        Some(Command::Variants) => list_variants(registry),
        Some(Command::Bench { depth }) => run_bench(&catalogue, depth),
        Some(Command::Uci) => serve(catalogue, Protocol::Uci),
        Some(Command::Xboard) => serve(catalogue, Protocol::Xboard),
        Some(Command::Match(args)) => menagerie::matches::cli::run_match_command(&args, registry),
        Some(Command::Play(args)) => menagerie::play::terminal::run_play(&args, &catalogue),
        Some(Command::Analyse(args)) => menagerie::play::analyse::run_analyse(&args, &catalogue),
        Some(Command::Score(args)) => menagerie::matches::score::run_score(&args),
        Some(Command::Tune(args)) => finish(menagerie::training::tune::run_tune_command(&args, &catalogue)),
        Some(Command::Datagen(args)) => finish(menagerie::training::datagen::run_datagen_command(&args, &catalogue)),
        Some(Command::Join(args)) => finish(menagerie::training::join::run_join_command(&args, &catalogue)),
        Some(Command::Import(args)) => finish(menagerie::training::import::run_import_command(&args, &catalogue)),
        Some(Command::Rescore(args)) => finish(menagerie::training::rescore::run_rescore_command(&args, &catalogue)),
        Some(Command::Train(args)) => finish(menagerie::training::train_command::run_train_command(&args, &catalogue)),
        Some(Command::Gui(args)) => menagerie::gui::run_gui(&args, catalogue),
        Some(Command::RandomEngine(args)) => {
            menagerie::players::random_engine::run(registry.clone(), args.seed, args.xboard);
            ExitCode::SUCCESS
        }
        None => serve(catalogue, Protocol::Uci),
    }
}

/// The shipped variants plus those of `--variants`, if given; the error
/// names the first problem and how many more there are.
fn load_catalogue(extra: Option<&Path>) -> Result<Catalogue, String> {
    let mut catalogue = Catalogue::builtin();
    if let Some(dir) = extra {
        if let Err(errors) = catalogue.load_path(dir) {
            let first = errors.first().map_or_else(|| "cannot load variants".to_string(), |e| e.to_string());
            let more = match errors.len() {
                0 | 1 => String::new(),
                n => format!(" (and {} more; run `menagerie check FILE` to list them)", n - 1),
            };
            return Err(format!("{first}{more}"));
        }
    }
    Ok(catalogue)
}

/// What `menagerie perft` was asked to count.
struct PerftRequest {
    variant: String,
    fen: Option<String>,
    moves: Vec<String>,
    depth: u32,
    split: bool,
    chess960: bool,
}

/// The position a perft request starts from: the FEN (or start position)
/// with the moves played.
fn perft_position(registry: &Registry, request: &PerftRequest) -> Result<Position, String> {
    let Some(v) = registry.get(&request.variant) else {
        return Err(format!("unknown variant {:?} (try `menagerie variants`)", request.variant));
    };
    let mut pos = match &request.fen {
        Some(f) => Position::from_fen(v, f),
        None => Position::startpos(v),
    }
    .map_err(|e| format!("bad FEN: {e}"))?;
    for text in &request.moves {
        let m = pos.parse_move(text).map_err(|e| e.to_string())?;
        pos.make(m);
    }
    Ok(pos)
}

fn run_perft(registry: &Registry, request: &PerftRequest) -> ExitCode {
    let depth = request.depth;
    if !(1..=MAX_PERFT_DEPTH).contains(&depth) {
        return fail(format!("perft depth must be 1 to {MAX_PERFT_DEPTH}, not {depth}"));
    }
    let mut pos = match perft_position(registry, request) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    // Output errors (a closed pipe, as with `| head`) end the listing quietly.
    let mut out = std::io::stdout().lock();
    let start = Instant::now();
    let nodes = if request.split {
        let rows = divide(&mut pos, depth, request.chess960);
        for (m, n) in &rows {
            if writeln!(out, "{m}: {n}").is_err() {
                return ExitCode::SUCCESS;
            }
        }
        let _ = writeln!(out);
        rows.iter().map(|r| r.1).sum()
    } else {
        perft(&mut pos, depth)
    };
    let secs = start.elapsed().as_secs_f64();
    let _ = writeln!(out, "Nodes searched: {nodes}");
    let _ = writeln!(out, "Time: {:.3} s, Nodes/second: {:.0}", secs, nodes as f64 / secs.max(1e-9));
    ExitCode::SUCCESS
}

/// `menagerie check FILE`: validates a variant file and prints every error.
fn check_file(catalogue: &Catalogue, file: &Path) -> ExitCode {
    if file.extension().is_some_and(|e| e == "nnue") {
        return check_network(catalogue, file);
    }
    match std::fs::read(file) {
        Ok(bytes) if file.extension().is_some_and(|e| e == "data") || menagerie::eval::nnue::data::is_data(&bytes) => {
            return check_data(catalogue, file, bytes);
        }
        Ok(bytes) if std::str::from_utf8(&bytes).is_err() => {
            return fail(format!("{}: neither a variant file (not text), a network nor a data file", file.display()));
        }
        Ok(_) => {}
        Err(e) => return fail(format!("cannot read {}: {e}", file.display())),
    }
    // A scratch copy of the catalogue: checking loads nothing for good.
    let mut scratch = catalogue.clone();
    match scratch.load_file(file) {
        Ok(v) => {
            let weights = scratch.weights(&v.name).map_or_else(String::new, |t| format!(", weights from {}", t.source));
            println!("{}: ok ({} pieces, {} board{weights})", v.name, v.pieces.len(), v.shape);
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

/// `menagerie ... | head` closes the output early; Rust reports the failed
/// print as a panic. Unix tools stop quietly then, and so does menagerie
/// (any other panic is reported as before).
fn stop_quietly_when_stdout_closes() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        report(info);
    }));
}

/// `menagerie check FILE.nnue`: reads a network and checks it against the
/// variant its header names.
fn check_network(catalogue: &Catalogue, file: &Path) -> ExitCode {
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => return fail(format!("cannot read {}: {e}", file.display())),
    };
    let net = match menagerie::eval::nnue::file::read(&bytes) {
        Ok(n) => n,
        Err(e) => return fail(format!("{}: {e}", file.display())),
    };
    let Some(variant) = catalogue.get(&net.header.variant) else {
        return fail(format!("{}: the network is for '{}', which is not loaded", file.display(), net.header.variant));
    };
    if let Err(e) = menagerie::eval::nnue::check_fits(&net, &variant) {
        return fail(format!("{}: {e}", file.display()));
    }
    let h = &net.header;
    println!(
        "{}: ok (network for {}: {} inputs, {}x2 {}, data: {}, trained by: {})",
        file.display(),
        variant.name,
        net.inputs,
        h.hidden,
        h.activation.name(),
        if h.data_command.is_empty() { "-" } else { &h.data_command },
        if h.train_command.is_empty() { "-" } else { &h.train_command },
    );
    let folders: Vec<&str> = [&h.data_command, &h.train_command]
        .into_iter()
        .flat_map(|command| menagerie::training::words_with_folders(command))
        .collect();
    if let Some(first) = folders.first() {
        // Still usable: the weights are fine, only the recipe is unclear.
        println!(
            "{}: warning: the header names {} file{} by its folders ({first}{}): \
             a header should name the commands that made its files, not this machine's paths",
            file.display(),
            folders.len(),
            if folders.len() == 1 { "" } else { "s" },
            if folders.len() > 1 { ", ..." } else { "" },
        );
    }
    ExitCode::SUCCESS
}

/// `menagerie check FILE.data`: reads training data for the variant its
/// first block names, checking every record and replaying every game.
fn check_data(catalogue: &Catalogue, file: &Path, bytes: Vec<u8>) -> ExitCode {
    use menagerie::eval::nnue::data::{first_variant, DataSet};
    let name = match first_variant(&bytes) {
        Ok(name) => name,
        Err(e) => return fail(format!("{}: {e}", file.display())),
    };
    let Some(variant) = catalogue.get(&name) else {
        return fail(format!("{}: the data is for '{name}', which is not loaded", file.display()));
    };
    let census = menagerie::training::census::MoveCensus::of(&bytes, &variant);
    let data = match DataSet::read(bytes, &variant) {
        Ok(data) => data,
        Err(e) => return fail(format!("{}: {e}", file.display())),
    };
    let commands = menagerie::training::train_command::data_commands(data.headers.iter().map(|h| h.command.as_str()));
    println!(
        "{}: ok (data for {}: {} positions in {} block{}, {} from records and {} from {} games, made by: {})",
        file.display(),
        variant.name,
        data.len(),
        data.headers.len(),
        if data.headers.len() == 1 { "" } else { "s" },
        data.records,
        data.len() - data.records,
        data.games,
        if commands.is_empty() { "-" } else { &commands }
    );
    if let Ok(census) = census {
        if census.plies > 0 {
            println!("{}: {}", file.display(), census.describe(&variant));
        }
    }
    ExitCode::SUCCESS
}

fn list_variants(registry: &Registry) -> ExitCode {
    let mut out = std::io::stdout().lock();
    for v in registry.variants() {
        if writeln!(out, "{:<12} {}", v.name, v.description).is_err() {
            break;
        }
    }
    ExitCode::SUCCESS
}

fn run_bench(catalogue: &Catalogue, depth: Option<u32>) -> ExitCode {
    let depth = depth.unwrap_or(menagerie::engine::bench::DEFAULT_DEPTH).clamp(1, 64);
    let mut out = std::io::stdout().lock();
    let totals = menagerie::engine::bench::run(catalogue, depth, 16, |line| {
        let _ = writeln!(out, "{line}");
    });
    let ms = totals.time.as_millis().max(1) as u64;
    let _ = writeln!(out, "Total time (ms) : {ms}");
    let _ = writeln!(out, "Nodes searched: {}", totals.nodes);
    let _ = writeln!(out, "Nodes/second: {}", totals.nodes * 1000 / ms);
    ExitCode::SUCCESS
}

/// Runs a protocol session on stdin/stdout.
fn serve(catalogue: Catalogue, protocol: Protocol) -> ExitCode {
    let Some(mut engine) = Engine::with_catalogue(catalogue) else {
        return fail("no loaded variant has a valid start position");
    };
    let out: Output = Arc::new(Mutex::new(std::io::stdout()));
    protocol::run(&mut engine, BufReader::new(std::io::stdin()), out, protocol);
    ExitCode::SUCCESS
}
