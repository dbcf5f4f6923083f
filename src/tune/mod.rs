//! `menagerie tune`: learns a variant's evaluation weights from self-play.
//!
//! 1. **generate**: games at a fixed node count from seeded random
//!    openings; quiet positions (not in check, best move not a capture) are
//!    kept with the game's result and saved, so that a fit can be rerun;
//! 2. **fit**: logistic (Texel) loss with a fitted scale, Adam over all
//!    weights ([`fit`]);
//! 3. **write** `NAME.eval`, whose header names the command line. The same
//!    seed gives the same file.

pub mod datagen;
pub mod fit;
pub mod selfplay;
pub mod train;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;

use crate::catalogue::Catalogue;
use crate::eval::{write_eval_file, EvalMode};
use crate::position::Position;
use crate::variant::Variant;
use fit::{FitPlan, Row};
use selfplay::{Sample, SelfPlay};

/// `menagerie tune` arguments.
#[derive(Args, Debug, Clone)]
pub struct TuneArgs {
    /// The variant to tune.
    #[arg(long)]
    pub variant: String,
    /// Self-play games to generate.
    #[arg(long, default_value_t = 2000)]
    pub games: usize,
    /// Nodes per move in self-play.
    #[arg(long, default_value_t = 3000)]
    pub nodes: u64,
    /// Threads for self-play and the fit.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Random plies that open each game.
    #[arg(long, default_value_t = 8)]
    pub random_plies: usize,
    /// Positions file: read if it exists (no games are played), else written
    /// after the games. Default: NAME.positions in the current directory.
    #[arg(long)]
    pub data: Option<PathBuf>,
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

/// Runs `menagerie tune`.
pub fn run_tune_command(args: &TuneArgs, catalogue: &Catalogue) -> ExitCode {
    match tune(args, catalogue) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn tune(args: &TuneArgs, catalogue: &Catalogue) -> Result<(), String> {
    let variant = catalogue.get(&args.variant).ok_or_else(|| format!("unknown variant '{}'", args.variant))?;
    if args.games == 0 || args.nodes == 0 || args.threads == 0 || args.epochs == 0 {
        return Err("--games, --nodes, --threads and --epochs must be at least 1".to_string());
    }
    if !(0.0..=1.0).contains(&args.lambda) || args.regularize < 0.0 {
        return Err("--lambda must be between 0 and 1, --regularize at least 0".to_string());
    }
    let mode = if args.from_hand { EvalMode::Hand } else { EvalMode::Full };
    let eval = catalogue.evaluator(&variant, mode);
    let data = args.data.clone().unwrap_or_else(|| PathBuf::from(format!("{}.positions", variant.name)));
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from(format!("{}.eval", variant.name)));
    let command = format!("menagerie {}", std::env::args().skip(1).collect::<Vec<_>>().join(" "));
    let (samples, generated_by) = if data.exists() {
        let (samples, generated_by) = read_samples(&data, &variant)?;
        eprintln!("read {} positions from {}", samples.len(), data.display());
        (samples, generated_by)
    } else {
        let plan = SelfPlay {
            games: args.games,
            nodes: args.nodes,
            threads: args.threads,
            seed: args.seed,
            random_plies: args.random_plies,
            first_game: 0,
        };
        let samples = selfplay::generate_with_progress(&variant, &eval, &plan);
        write_samples(&data, &variant, &samples, &command)
            .map_err(|e| format!("cannot write {}: {e}", data.display()))?;
        eprintln!("wrote {} positions to {}", samples.len(), data.display());
        (samples, None)
    };
    if samples.is_empty() {
        return Err("no positions to fit".to_string());
    }
    let rows: Vec<Row> = samples
        .iter()
        .filter_map(|s| {
            Position::from_fen(Arc::clone(&variant), &s.fen)
                .ok()
                .map(|pos| Row::new(&eval.trace(&pos), s.result, s.score))
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

/// Header of a positions file.
const DATA_HEADER: &str = "# menagerie tune positions:";
/// The line of a positions file that names the command that played its games.
const GENERATED_BY: &str = "# generated by:";

/// Writes samples as `FEN | result | score` lines after a header naming the variant.
fn write_samples(path: &Path, variant: &Variant, samples: &[Sample], command: &str) -> std::io::Result<()> {
    let mut text = format!("{DATA_HEADER} {}\n{GENERATED_BY} {command}\n", variant.name);
    for s in samples {
        let _ = writeln!(text, "{} | {} | {}", s.fen, s.result, s.score);
    }
    std::fs::write(path, text)
}

/// Reads a positions file written by [`write_samples`] for `variant`, and
/// the command that generated it, if the file says.
fn read_samples(path: &Path, variant: &Arc<Variant>) -> Result<(Vec<Sample>, Option<String>), String> {
    let file = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {file}: {e}"))?;
    let mut samples = Vec::new();
    let mut generated_by = None;
    for (number, line) in text.lines().enumerate() {
        if let Some(command) = line.strip_prefix(GENERATED_BY) {
            generated_by = Some(command.trim().to_string());
            continue;
        }
        let at = |message: String| format!("{file}:{}: {message}", number + 1);
        if let Some(name) = line.strip_prefix(DATA_HEADER) {
            if name.trim() != variant.name {
                return Err(at(format!("positions of '{}', not '{}'", name.trim(), variant.name)));
            }
            continue;
        }
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('|').map(str::trim).collect();
        let [fen, result, score] = fields[..] else { return Err(at("expected 'FEN | result | score'".to_string())) };
        let result: f32 = result.parse().map_err(|_| at(format!("bad result '{result}'")))?;
        let score: i32 = score.parse().map_err(|_| at(format!("bad score '{score}'")))?;
        if !(0.0..=1.0).contains(&result) {
            return Err(at(format!("result {result} is not between 0 and 1")));
        }
        Position::from_fen(Arc::clone(variant), fen).map_err(|e| at(format!("bad FEN: {e}")))?;
        samples.push(Sample { fen: fen.to_string(), result, score });
    }
    Ok((samples, generated_by))
}
