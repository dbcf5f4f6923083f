//! The `menagerie train` command: its arguments and their checks, the
//! commands the network's header names, and the checkpoint after every
//! epoch that `--resume` goes on from ([`super::checkpoint`]).

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;

use super::checkpoint::{self, Settings};
use super::datagen::parse_shard;
use super::math::Adam;
use super::source::DataFiles;
use super::train::{linear_loss, train_from, TrainPlan, TrainState};
use crate::eval::catalogue::Catalogue;
use crate::eval::nnue::games::Filter;
use crate::eval::nnue::network::{Activation, FloatNetwork};
use crate::eval::nnue::{check_fits, file};
use crate::rules::variant::Variant;

/// `menagerie train` arguments.
#[derive(Args, Debug, Clone)]
pub struct TrainArgs {
    /// The variant the data is for.
    #[arg(long)]
    pub variant: String,
    /// Data files from `menagerie datagen` (shards may be given one by one).
    #[arg(long, required = true, num_args = 1..)]
    pub data: Vec<PathBuf>,
    /// Hidden neurons per perspective (default 64). With --init, a width
    /// above the network's widens it: the new neurons start with small
    /// random input weights and zero output weights, so the run starts from
    /// its scores.
    #[arg(long)]
    pub hidden: Option<usize>,
    /// Activation: crelu or screlu.
    #[arg(long, default_value = "screlu")]
    pub activation: String,
    /// Passes over the data.
    #[arg(long, default_value_t = 10)]
    pub epochs: usize,
    /// Positions per step.
    #[arg(long, default_value_t = 1024)]
    pub batch: usize,
    /// Adam's step size at the start.
    #[arg(long, default_value_t = 0.003)]
    pub rate: f32,
    /// Adam's step size at the end (default: a tenth of --rate), reached
    /// geometrically batch by batch.
    #[arg(long)]
    pub final_rate: Option<f32>,
    /// Weight of the game result in the target; the rest is the search's score.
    #[arg(long, default_value_t = 0.0)]
    pub lambda: f32,
    /// Share of the positions held out for the validation loss.
    #[arg(long, default_value_t = 0.05)]
    pub validation: f32,
    /// Threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Seed of the first weights, the split and the order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// What the network scores: `none` (alone) or `linear` (what the linear
    /// evaluation misses; it then plays added to it).
    #[arg(long, default_value = "linear")]
    pub base: String,
    /// Also train on every position with its files reversed (twice the
    /// examples; for variants whose value hardly depends on the side of the board).
    #[arg(long)]
    pub mirror: bool,
    /// King mirror: each side's inputs reverse the files while its king
    /// stands on the right half of the board (written to the network's
    /// header; the input count is the same, so --init may be a network
    /// without it). Not with --mirror, which it makes a copy of each position.
    #[arg(long)]
    pub king_mirror: bool,
    /// King buckets: `B0,B1,...`, one bucket number per square of the left
    /// half of the board (rank by rank from each side's own first rank,
    /// files from the a-file: ranks x ceil(files / 2) numbers, buckets
    /// numbered from 0 without gaps); each side's inputs are those of its
    /// king's bucket (written to the header; implies --king-mirror). With
    /// --init of a network without them, every bucket starts as a copy of its
    /// inputs, so the run starts from its scores (with the king mirror).
    /// Not with --mirror.
    #[arg(long, value_name = "LIST")]
    pub king_buckets: Option<String>,
    /// Decoupled weight decay (AdamW), against overfitting small data.
    #[arg(long, default_value_t = 1.0)]
    pub weight_decay: f32,
    /// Start from this network instead of random weights (to go on training
    /// it on new data); its width (unless --hidden widens it), activation
    /// and base replace --hidden, --activation and --base. A checkpoint
    /// brings Adam's state along too.
    #[arg(long)]
    pub init: Option<PathBuf>,
    /// Output buckets by the men on the board (1: one output). With --init
    /// of a single-output network, each bucket starts as a copy of its output.
    #[arg(long, default_value_t = 1)]
    pub outputs: usize,
    /// Where to write the network (default: NAME.nnue).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Positions the shuffle buffer holds (about 130 bytes each).
    #[arg(long, default_value_t = 1 << 20)]
    pub shuffle_buffer: usize,
    /// Leave out the first plies of each game (game blocks only).
    #[arg(long, default_value_t = 0)]
    pub min_ply: usize,
    /// Leave out plies scored beyond this many centipawns (game blocks only).
    #[arg(long)]
    pub max_score: Option<i32>,
    /// Keep noisy plies of games too (in check, or a capture as the best move).
    #[arg(long)]
    pub noisy: bool,
    /// Where the checkpoint written after every epoch goes (default: the
    /// output's name with `.ckpt` added).
    #[arg(long)]
    pub checkpoint: Option<PathBuf>,
    /// Go on from the checkpoint of a stopped run of the same settings (from
    /// the start when there is none): the network is the unbroken run's.
    #[arg(long)]
    pub resume: bool,
    /// Stop after this many epochs, as a killed run would (for tests).
    #[arg(long, hide = true)]
    pub stop_after_epochs: Option<usize>,
}

/// The commands that made the data, once each: shards of one run differ
/// only in `--shard` and `--out`, so those are left out and the shards
/// named (`shards 0-2, 7 of 8`), which is what regenerates the set.
pub fn data_commands<'a>(commands: impl Iterator<Item = &'a str>) -> String {
    // Each run: its command without shard and output, and the shards seen.
    let mut runs: Vec<(String, Vec<(usize, usize)>)> = Vec::new();
    for command in commands {
        let mut words = command.split_whitespace();
        let (mut kept, mut shard) = (Vec::new(), None);
        while let Some(word) = words.next() {
            match word {
                "--shard" => shard = words.next().and_then(|w| parse_shard(w).ok()),
                "--out" => {
                    words.next();
                }
                _ if word.starts_with("--shard=") => shard = parse_shard(&word["--shard=".len()..]).ok(),
                _ if word.starts_with("--out=") => {}
                _ => kept.push(word),
            }
        }
        let run = kept.join(" ");
        let index = match runs.iter().position(|(r, _)| *r == run) {
            Some(index) => index,
            None => {
                runs.push((run, Vec::new()));
                runs.len() - 1
            }
        };
        runs[index].1.extend(shard);
    }
    let described: Vec<String> = runs
        .into_iter()
        .map(|(run, shards)| if shards.is_empty() { run } else { format!("{run} ({})", describe_shards(shards)) })
        .collect();
    described.join(" + ")
}

/// Shard indices as ranges: `shards 0-2, 7 of 8` (`shard 3 of 8` for one).
fn describe_shards(mut shards: Vec<(usize, usize)>) -> String {
    shards.sort_unstable();
    shards.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < shards.len() {
        let (first, count) = shards[i];
        let mut last = first;
        while i + 1 < shards.len() && shards[i + 1] == (last + 1, count) {
            last += 1;
            i += 1;
        }
        parts.push(if first == last { first.to_string() } else { format!("{first}-{last}") });
        i += 1;
    }
    let counts: Vec<String> =
        shards.iter().map(|&(_, n)| n).collect::<BTreeSet<_>>().iter().map(ToString::to_string).collect();
    let noun = if shards.len() == 1 { "shard" } else { "shards" };
    format!("{noun} {} of {}", parts.join(", "), counts.join("/"))
}

/// Hidden neurons per perspective of a network trained from scratch.
const DEFAULT_HIDDEN: usize = 64;

/// Runs `menagerie train`; the error is the line `main` prints.
pub fn run_train_command(args: &TrainArgs, catalogue: &Catalogue) -> Result<(), String> {
    let variant = catalogue.get(&args.variant).ok_or_else(|| format!("unknown variant '{}'", args.variant))?;
    let activation = Activation::from_name(&args.activation)
        .ok_or_else(|| format!("unknown activation '{}' (crelu or screlu)", args.activation))?;
    if !(1..=crate::eval::nnue::network::MAX_HIDDEN).contains(&args.hidden.unwrap_or(DEFAULT_HIDDEN)) {
        return Err(format!("--hidden must be 1 to {}", crate::eval::nnue::network::MAX_HIDDEN));
    }
    if !(args.rate > 0.0 && args.final_rate.unwrap_or(args.rate) > 0.0) {
        return Err("--rate and --final-rate must be above 0".to_string());
    }
    if args.epochs == 0 || args.batch == 0 || args.threads == Some(0) {
        return Err("--epochs, --batch and --threads must be at least 1".to_string());
    }
    if !(0.0..=1.0).contains(&args.lambda) || !(0.0..0.5).contains(&args.validation) {
        return Err("--lambda must be 0 to 1 and --validation 0 to 0.5".to_string());
    }
    if !(1..=crate::eval::nnue::network::MAX_OUTPUTS).contains(&args.outputs) {
        return Err(format!("--outputs must be 1 to {}", crate::eval::nnue::network::MAX_OUTPUTS));
    }
    // With a king on the board (and an even number of files: every shipped
    // board), a position and its file-reversed copy give the king-mirrored
    // inputs the same values: --mirror would only count every position
    // twice (and make the run twice as long) for nothing.
    if args.mirror && args.king_mirror {
        return Err(
            "--mirror adds nothing with --king-mirror (the mirrored positions have the same inputs)".to_string()
        );
    }
    let king_buckets = match &args.king_buckets {
        Some(list) => crate::eval::nnue::features::parse_king_buckets(list, variant.shape.files, variant.shape.ranks)
            .map_err(|why| format!("--king-buckets: {why}"))?,
        None => Vec::new(),
    };
    // A left-half layout implies the king mirror: the same holds. A
    // whole-board layout does not, and --mirror then gives new examples.
    let (files, ranks) = (variant.shape.files, variant.shape.ranks);
    let half_layout = |layout: &[u8]| crate::eval::nnue::features::layout_is_half(layout, files, ranks);
    if args.mirror && half_layout(&king_buckets) {
        return Err(
            "--mirror adds nothing with --king-buckets of the left half (the mirrored positions have the same inputs)"
                .to_string(),
        );
    }
    if args.shuffle_buffer == 0 {
        return Err("--shuffle-buffer must be at least 1".to_string());
    }
    let filter = Filter { quiet: !args.noisy, min_ply: args.min_ply, max_score: args.max_score.unwrap_or(i32::MAX) };
    let data = DataFiles { paths: args.data.clone(), variant: std::sync::Arc::clone(&variant), filter };
    let (headers, positions) = data.scan().map_err(|e| format!("bad data: {e}"))?;
    if positions < 2 {
        return Err("the data holds fewer than two positions".to_string());
    }
    let init = match &args.init {
        Some(path) => Some(read_init(path, &variant)?),
        None => None,
    };
    if let (true, Some(init)) = (args.mirror, &init) {
        if half_layout(&init.net.header.king_buckets) {
            return Err(
                "--mirror adds nothing with king buckets (the --init network has them, and keeps them)".to_string()
            );
        }
    }
    if let Some(init) = &init {
        let old = &init.net.header.king_buckets;
        if !old.is_empty() && !king_buckets.is_empty() && half_layout(old) != half_layout(&king_buckets) {
            return Err(
                "--king-buckets: the --init network's layout covers the other extent (left half or whole board); a new layout must cover the same".to_string()
            );
        }
    }
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let (hidden, activation, base_name) = match &init {
        Some(init) => {
            let h = &init.net.header;
            let hidden = args.hidden.unwrap_or(h.hidden);
            if hidden < h.hidden {
                return Err(format!("--hidden {hidden} is narrower than the --init network's {}", h.hidden));
            }
            if hidden > h.hidden && init.adam.is_some() {
                return Err(format!(
                    "--hidden {hidden} from a checkpoint of {} hidden: its optimiser state has another shape; --init its .nnue",
                    h.hidden
                ));
            }
            (hidden, h.activation, if h.linear_base { "linear" } else { "none" })
        }
        None => (args.hidden.unwrap_or(DEFAULT_HIDDEN), activation, args.base.as_str()),
    };
    let plan = TrainPlan {
        hidden,
        activation,
        epochs: args.epochs,
        batch: args.batch,
        rate: args.rate,
        final_rate: args.final_rate.unwrap_or(args.rate / 10.0),
        lambda: args.lambda,
        validation: args.validation,
        threads,
        seed: args.seed,
        shuffle: args.shuffle_buffer,
        mirror: args.mirror,
        king_mirror: args.king_mirror,
        king_buckets,
        weight_decay: args.weight_decay,
        init: init.as_ref().map(|init| init.net.clone()),
        outputs: (args.outputs, start_men(&variant)?),
    };
    if let Some(Init { net, adam: Some(_), .. }) = &init {
        if net.header.outputs != args.outputs && args.outputs > 1 {
            return Err(format!(
                "--outputs {} from a checkpoint of {} output(s): its optimiser state has another shape; --init its .nnue",
                args.outputs, net.header.outputs
            ));
        }
        if !plan.king_buckets.is_empty() && net.header.king_buckets != plan.king_buckets {
            return Err(format!(
                "--king-buckets from a checkpoint of {} king bucket(s) in another layout: its optimiser state has another shape; --init its .nnue",
                net.header.king_bucket_count()
            ));
        }
    }
    let linear = catalogue.evaluator(&variant, crate::eval::EvalMode::Linear);
    let base = match base_name {
        "none" => None,
        "linear" => Some(&linear),
        other => return Err(format!("unknown --base '{other}' (none or linear)")),
    };
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from(format!("{}.nnue", variant.name)));
    let checkpoint = args.checkpoint.clone().unwrap_or_else(|| {
        let mut path = out.clone().into_os_string();
        path.push(".ckpt");
        PathBuf::from(path)
    });
    let settings = settings(args, &plan, base_name, init.as_ref().map(|init| init.describe.as_str()))?;
    let mut start = match &init {
        Some(Init { net, adam: Some(adam), .. }) => TrainState::continuing(net.clone(), adam.clone(), &plan),
        _ => TrainState::new(&variant, &plan, base.is_some()),
    };
    start.net.header.data_command = data_commands(headers.iter().map(|h| h.command.as_str()));
    start.net.header.train_command = header_command();
    if let (Some(init), Some(path)) = (&init, &args.init) {
        // What made the starting network, so that the header still says how to remake this one.
        let h = &init.net.header;
        start.net.header.train_command += &format!(
            " ({} being: data: {}, trained by: {})",
            super::without_folders(&path.display().to_string()),
            h.data_command,
            h.train_command
        );
    }
    if args.resume && checkpoint.exists() {
        let saved = checkpoint::load(&checkpoint, &variant)?;
        checkpoint::check_same_settings(&checkpoint, &saved.settings, &settings)?;
        eprintln!("resuming from {} after epoch {} of {}", checkpoint.display(), saved.state.epoch, plan.epochs);
        start = saved.state;
    } else if args.resume {
        eprintln!("no checkpoint {}: starting at epoch 1", checkpoint.display());
    }
    eprintln!(
        "training {} {hidden}x2 ({}, base {base_name}{}{}) on {} positions, {threads} threads",
        variant.name,
        activation.name(),
        match start.net.header.king_bucket_count() {
            1 if start.net.header.king_mirror => ", king mirror".to_string(),
            1 => String::new(),
            n if start.net.header.king_mirror => format!(", king mirror, {n} king buckets"),
            n => format!(", {n} king buckets over the whole board"),
        },
        args.init.as_ref().map_or_else(String::new, |p| format!(", from {}", p.display())),
        positions
    );
    eprintln!(
        "the linear evaluation's validation loss: {:.6} (the network's should end below it)",
        linear_loss(&data, &plan, &linear)
    );
    let timer = Instant::now();
    let (first, mut ran, mut failure) = (start.epoch + 1, 0, None);
    let end = train_from(
        &variant,
        &data,
        &plan,
        base,
        start,
        |r, state| {
            eprintln!(
                "\repoch {:>3}: train loss {:.6}  validation loss {:.6}  ({:.0} s)          ",
                r.epoch,
                r.train_loss,
                r.validation_loss,
                timer.elapsed().as_secs_f64()
            );
            ran += 1;
            failure = checkpoint::save(&checkpoint, &settings, state).err();
            failure.is_none() && args.stop_after_epochs.is_none_or(|stop| ran < stop)
        },
        |epoch, batch, batches| {
            if batch % 8 == 0 || batch == batches {
                let done = ((epoch - first) * batches + batch) as f64 / ((plan.epochs + 1 - first) * batches) as f64;
                let eta = timer.elapsed().as_secs_f64() / done.max(1e-9) * (1.0 - done);
                eprint!("\r[{:<30}] epoch {epoch}/{}  ETA {eta:.0}s", "#".repeat((done * 30.0) as usize), plan.epochs);
                let _ = std::io::stderr().flush();
            }
        },
    );
    if let Some(failure) = failure {
        return Err(failure);
    }
    if end.epoch < plan.epochs {
        println!(
            "stopped after epoch {} of {}: {} holds the run (--resume goes on)",
            end.epoch,
            plan.epochs,
            checkpoint.display()
        );
        return Ok(());
    }
    let kept =
        end.best.as_ref().map_or_else(String::new, |b| format!(" (epoch {}, validation loss {:.6})", b.epoch, b.loss));
    let net = end.network();
    std::fs::write(&out, file::write(&net.quantize())).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    println!("wrote {}{kept} in {:.0} s", out.display(), timer.elapsed().as_secs_f64());
    Ok(())
}

/// The command line as the network's header names it: without the flags
/// that do not change the network (`--resume`, `--stop-after-epochs`), so
/// that a stopped and resumed run's header is the unbroken run's.
fn header_command() -> String {
    let mut words = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--resume" => {}
            "--stop-after-epochs" => {
                args.next();
            }
            _ if arg.starts_with("--stop-after-epochs=") => {}
            _ => words.push(super::without_folders(&arg)),
        }
    }
    format!("menagerie {}", words.join(" "))
}

/// The settings a checkpoint keeps and a resume must match: everything
/// that decides the network besides threads and paths (the data files
/// by name and size, `--init` by name and hash).
fn settings(args: &TrainArgs, plan: &TrainPlan, base: &str, init: Option<&str>) -> Result<Settings, String> {
    let mut data = Vec::new();
    for path in &args.data {
        let bytes = std::fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?.len();
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        data.push(format!("{name} ({bytes} bytes)"));
    }
    let yes_no = |flag: bool| if flag { "yes" } else { "no" }.to_string();
    let setting = |flag: &str, value: String| (flag.to_string(), value);
    Ok([
        setting("--variant", args.variant.clone()),
        setting("--data", data.join(", ")),
        setting("--init", init.unwrap_or("none").to_string()),
        setting("--hidden", plan.hidden.to_string()),
        setting("--activation", plan.activation.name().to_string()),
        setting("--base", base.to_string()),
        setting("--epochs", plan.epochs.to_string()),
        setting("--batch", plan.batch.to_string()),
        setting("--rate", plan.rate.to_string()),
        setting("--final-rate", plan.final_rate.to_string()),
        setting("--lambda", plan.lambda.to_string()),
        setting("--validation", plan.validation.to_string()),
        setting("--seed", plan.seed.to_string()),
        setting("--shuffle-buffer", plan.shuffle.to_string()),
        setting("--mirror", yes_no(plan.mirror)),
        setting("--weight-decay", plan.weight_decay.to_string()),
        setting("--min-ply", args.min_ply.to_string()),
        setting("--max-score", args.max_score.map_or("none".to_string(), |s| s.to_string())),
        setting("--noisy", yes_no(args.noisy)),
    ]
    .into_iter()
    // Only with output buckets, the king mirror or king buckets, so that checkpoints written before them still resume.
    .chain(
        (plan.outputs.0 > 1).then(|| setting("--outputs", format!("{} over {} men", plan.outputs.0, plan.outputs.1))),
    )
    .chain(plan.king_mirror.then(|| setting("--king-mirror", yes_no(true))))
    .chain(
        (!plan.king_buckets.is_empty())
            .then(|| setting("--king-buckets", crate::eval::nnue::features::write_king_buckets(&plan.king_buckets))),
    )
    .collect())
}

/// The men on the board of `variant`'s start position: the top output bucket's.
fn start_men(variant: &std::sync::Arc<Variant>) -> Result<usize, String> {
    let start = crate::board::position::Position::startpos(std::sync::Arc::clone(variant))
        .map_err(|e| format!("{}: bad start position: {e}", variant.name))?;
    Ok(crate::eval::nnue::accumulator::board_men(&start))
}

/// What `--init` names: a network, or a checkpoint (its network and Adam's state).
struct Init {
    net: FloatNetwork,
    adam: Option<Adam<f32>>,
    /// Its file's name and hash, for the settings.
    describe: String,
}

/// The network or checkpoint `--init` names, checked against the variant.
fn read_init(path: &Path, variant: &Variant) -> Result<Init, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let describe = checkpoint::describe_file(path, &bytes);
    if checkpoint::is_checkpoint(&bytes) {
        let saved = checkpoint::read(&bytes, variant).map_err(|e| format!("{}: {e}", path.display()))?;
        return Ok(Init { net: saved.state.net, adam: Some(saved.state.adam), describe });
    }
    let net = file::read(&bytes)
        .and_then(|net| check_fits(&net, variant).map(|()| net))
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(Init { net: net.dequantize(), adam: None, describe })
}

#[cfg(test)]
mod tests {
    use super::data_commands;

    #[test]
    fn shards_of_one_run_are_named_once() {
        let commands = [
            "menagerie datagen --variant chess --games 100 --shard 0/4 --out a.data",
            "menagerie datagen --variant chess --games 100 --shard 1/4 --out b.data",
            "menagerie datagen --variant chess --games 100 --shard=3/4",
            "menagerie datagen --variant chess --games 50 --nodes 9000",
        ];
        assert_eq!(
            data_commands(commands.into_iter()),
            "menagerie datagen --variant chess --games 100 (shards 0-1, 3 of 4) + menagerie datagen --variant chess --games 50 --nodes 9000"
        );
    }
}
