//! `menagerie train`: fits a network to training data on the CPU. The loss
//! is the tuner's: squared error between the network's win probability,
//! `sigmoid(eval / 400)`, and a blend of the game's result (`--lambda`) and
//! the search's score through the same curve, for the side to move. Adam
//! over every weight; each batch is split into a fixed number of chunks,
//! shared out over the threads, whose gradients are summed in chunk order, so
//! a seed gives the same network whatever the number of threads. The data
//! is read as a stream, pass by pass, through a seeded shuffle buffer
//! ([`super::source`]), so memory stays bounded whatever its size; a
//! held-out share of it (whole games, placed by the seed) reports the
//! validation loss of each epoch.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;

use super::command_line;
use super::datagen::parse_shard;
use super::math::{blended_target, chunks, in_chunks, in_parallel, sigmoid, Adam};
use super::source::{DataFiles, PositionSource, Shuffle, Split};
use crate::eval::catalogue::Catalogue;
use crate::eval::nnue::data::Record;
use crate::eval::nnue::games::Filter;
use crate::eval::nnue::network::{Activation, FloatNetwork, Network, OUTPUT_SCALE};
use crate::eval::nnue::{check_fits, file, FeatureSet};
use crate::eval::Evaluator;
use crate::rules::piece::Color;
use crate::rules::variant::Variant;
use crate::rules::zobrist::SplitMix64;

/// Largest weight magnitude kept: the quantized accumulator stays far from
/// `i16` limits per row (1.98 * 255 = 505).
const WEIGHT_CLIP: f32 = 1.98;

/// Chunks of each batch (and of the validation set), whatever the threads:
/// the sums are then the same in every run of a seed.
const CHUNKS: usize = 8;

/// How to train.
#[derive(Clone, Debug)]
pub struct TrainPlan {
    /// Hidden neurons per perspective.
    pub hidden: usize,
    /// Activation of the hidden layer.
    pub activation: Activation,
    /// Passes over the training part.
    pub epochs: usize,
    /// Positions per gradient step.
    pub batch: usize,
    /// Adam's step size at the start.
    pub rate: f32,
    /// Adam's step size at the end: the step shrinks geometrically from
    /// `rate`, batch by batch (equal to `rate`: a constant step).
    pub final_rate: f32,
    /// Weight of the game result in the target (the rest: the search's score).
    pub lambda: f32,
    /// Share of the data held out for validation.
    pub validation: f32,
    /// Threads.
    pub threads: usize,
    /// Seed of the first weights, the split and the order.
    pub seed: u64,
    /// Positions the shuffle buffer holds (the data's order is mixed within that many).
    pub shuffle: usize,
    /// Also train on each position with its files reversed.
    pub mirror: bool,
    /// Decoupled weight decay (AdamW): each step shrinks every weight by
    /// `rate * weight_decay` of itself, against overfitting small data.
    pub weight_decay: f32,
    /// The network to start from (a trained one, to go on training it on
    /// new data), instead of random weights; its width and activation
    /// replace `hidden` and `activation`, and the base given to
    /// [`train_on_base`] must be the one it was trained on (`menagerie
    /// train --init` takes it from the network's header).
    pub init: Option<FloatNetwork>,
}

/// What a training run reports per epoch.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    /// 1-based epoch.
    pub epoch: usize,
    /// Mean loss over the training part (as it was during the epoch).
    pub train_loss: f64,
    /// Mean loss over the validation part after the epoch.
    pub validation_loss: f64,
}

/// One position's inputs and target, decoded once.
struct Sample {
    /// Active inputs of the side to move's perspective, then the other's.
    inputs: [Vec<u32>; 2],
    /// Target win probability for the side to move.
    target: f32,
    /// What the network adds to, in output units (the linear evaluation
    /// over 400 cp for a network on a linear base, else 0).
    base: f32,
}

fn decode(record: &Record, features: &FeatureSet, lambda: f32, mirror: bool, base: Option<&Evaluator>) -> Sample {
    let us = record.side_to_move();
    let mut inputs = [Vec::with_capacity(40), Vec::with_capacity(40)];
    for (slot, perspective) in [us, !us].into_iter().enumerate() {
        record.active_mirrored(features, perspective, mirror, |i| inputs[slot].push(i as u32));
    }
    let sign = if us == Color::White { 1.0 } else { -1.0 };
    let result = if us == Color::White { record.result() } else { 1.0 - record.result() };
    let score = sign * record.score() as f32 / OUTPUT_SCALE as f32;
    let base = base.map_or(0.0, |eval| linear_score(record, eval, mirror) as f32 / OUTPUT_SCALE as f32);
    Sample { inputs, target: blended_target(lambda, result, score), base }
}

/// The linear evaluation of a record's position (mirrored or not), for the
/// side to move; 0 for a record that is not a position of the variant.
fn linear_score(record: &Record, eval: &Evaluator, mirror: bool) -> i32 {
    record.position(eval.variant(), mirror).map_or(0, |pos| eval.linear(&pos))
}

/// Gradient buffers, one per thread, shaped like the network.
struct Gradient {
    hidden_weights: Vec<f32>,
    hidden_bias: Vec<f32>,
    output_weights: Vec<f32>,
    output_bias: f32,
    loss: f64,
}

impl Gradient {
    fn zeros(net: &FloatNetwork) -> Gradient {
        Gradient {
            hidden_weights: vec![0.0; net.hidden_weights.len()],
            hidden_bias: vec![0.0; net.hidden_bias.len()],
            output_weights: vec![0.0; net.output_weights.len()],
            output_bias: 0.0,
            loss: 0.0,
        }
    }

    fn clear(&mut self) {
        self.hidden_weights.iter_mut().for_each(|g| *g = 0.0);
        self.hidden_bias.iter_mut().for_each(|g| *g = 0.0);
        self.output_weights.iter_mut().for_each(|g| *g = 0.0);
        self.output_bias = 0.0;
        self.loss = 0.0;
    }

    fn add(&mut self, other: &Gradient) {
        for (a, b) in self.hidden_weights.iter_mut().zip(&other.hidden_weights) {
            *a += b;
        }
        for (a, b) in self.hidden_bias.iter_mut().zip(&other.hidden_bias) {
            *a += b;
        }
        for (a, b) in self.output_weights.iter_mut().zip(&other.output_weights) {
            *a += b;
        }
        self.output_bias += other.output_bias;
        self.loss += other.loss;
    }
}

/// Forward pass: the two accumulators into `acc` and the output.
fn forward(net: &FloatNetwork, s: &Sample, acc: &mut [Vec<f32>; 2]) -> f32 {
    let h = net.header.hidden;
    for (side, inputs) in s.inputs.iter().enumerate() {
        let sums = &mut acc[side];
        sums.copy_from_slice(&net.hidden_bias);
        for &i in inputs {
            let row = &net.hidden_weights[i as usize * h..(i as usize + 1) * h];
            for (x, w) in sums.iter_mut().zip(row) {
                *x += w;
            }
        }
    }
    let act = net.header.activation;
    let (w_us, w_them) = net.output_weights.split_at(h);
    let out: f32 = acc[0].iter().zip(w_us).map(|(&x, w)| act.apply(x) * w).sum::<f32>()
        + acc[1].iter().zip(w_them).map(|(&x, w)| act.apply(x) * w).sum::<f32>();
    out + net.output_bias + s.base
}

/// Adds one sample's loss gradient to `g`; returns its loss.
fn backward(net: &FloatNetwork, s: &Sample, acc: &mut [Vec<f32>; 2], g: &mut Gradient) -> f32 {
    let h = net.header.hidden;
    let out = forward(net, s, acc);
    let p = sigmoid(out);
    let error = p - s.target;
    // d(error²)/d(out) through the sigmoid.
    let d_out = 2.0 * error * p * (1.0 - p);
    g.output_bias += d_out;
    let act = net.header.activation;
    for (side, inputs) in s.inputs.iter().enumerate() {
        let w = &net.output_weights[side * h..(side + 1) * h];
        let gw = &mut g.output_weights[side * h..(side + 1) * h];
        // Reuse the accumulator for the gradient at the hidden sums.
        for ((x, &wi), gwi) in acc[side].iter_mut().zip(w).zip(gw.iter_mut()) {
            *gwi += act.apply(*x) * d_out;
            let slope = if *x <= 0.0 || *x >= 1.0 {
                0.0
            } else {
                match act {
                    Activation::ClippedRelu => 1.0,
                    Activation::SquaredClippedRelu => 2.0 * *x,
                }
            };
            *x = d_out * wi * slope;
        }
        for (gb, d) in g.hidden_bias.iter_mut().zip(&acc[side]) {
            *gb += d;
        }
        for &i in inputs {
            let row = &mut g.hidden_weights[i as usize * h..(i as usize + 1) * h];
            for (gr, d) in row.iter_mut().zip(&acc[side]) {
                *gr += d;
            }
        }
    }
    error * error
}

/// Applies one Adam step to every weight from the summed gradient of `count` samples.
fn adam_step(net: &mut FloatNetwork, g: &Gradient, adam: &mut Adam<f32>, rate: f32, decay: f32, count: usize) {
    adam.next_step();
    let scale = 1.0 / count.max(1) as f32;
    let params = net
        .hidden_weights
        .iter_mut()
        .chain(net.hidden_bias.iter_mut())
        .chain(net.output_weights.iter_mut())
        .chain(std::iter::once(&mut net.output_bias));
    let grads =
        g.hidden_weights.iter().chain(&g.hidden_bias).chain(&g.output_weights).chain(std::iter::once(&g.output_bias));
    for (k, (w, &gr)) in params.zip(grads).enumerate() {
        let (m_hat, v_hat) = adam.moments(k, gr * scale);
        *w -= rate * (m_hat / adam.denominator(v_hat) + decay * *w);
        *w = w.clamp(-WEIGHT_CLIP, WEIGHT_CLIP);
    }
}

/// A position waiting in the shuffle buffer: its record and whether it trains mirrored.
struct Entry {
    record: Vec<u8>,
    mirror: bool,
}

/// Validation positions decoded and scored at once: bounds the memory of a
/// validation pass, and fixes how its sums are grouped.
const VALIDATION_CHUNK: usize = 1 << 16;

/// What every step needs besides the network.
struct Context<'a> {
    features: FeatureSet,
    files: u8,
    lambda: f32,
    base: Option<&'a Evaluator>,
    threads: usize,
}

impl Context<'_> {
    fn sample(&self, entry: &Entry) -> Sample {
        decode(&Record::new(&entry.record, self.files), &self.features, self.lambda, entry.mirror, self.base)
    }

    /// Summed loss of `entries` (in fixed chunks, summed in order).
    fn loss(&self, net: &FloatNetwork, entries: &[Entry]) -> f64 {
        let h = net.header.hidden;
        let losses = in_chunks(entries, CHUNKS, self.threads, |part| {
            let mut acc = [vec![0.0; h], vec![0.0; h]];
            part.iter()
                .map(|entry| {
                    let sample = self.sample(entry);
                    let e = sigmoid(forward(net, &sample, &mut acc)) - sample.target;
                    f64::from(e * e)
                })
                .sum::<f64>()
        });
        losses.iter().sum()
    }

    /// Mean loss of the validation positions of `data` (0 when there are none).
    fn validation_loss(&self, net: &FloatNetwork, data: &dyn PositionSource, split: Split) -> f64 {
        let (mut total, mut count, mut pending) = (0.0, 0usize, Vec::new());
        let _ = data.visit(&mut |record, group| {
            if split.held(group) {
                pending.push(Entry { record: record.as_bytes().to_vec(), mirror: false });
                if pending.len() == VALIDATION_CHUNK {
                    total += self.loss(net, &pending);
                    count += pending.len();
                    pending.clear();
                }
            }
        });
        total += self.loss(net, &pending);
        count += pending.len();
        total / count.max(1) as f64
    }

    /// One Adam step on `batch`; returns its summed loss.
    fn step(&self, trainer: &mut Trainer, batch: &[Entry], rate: f32, decay: f32) -> f64 {
        let h = trainer.net.header.hidden;
        let parts: Vec<(&[Entry], &mut Gradient)> = chunks(batch, CHUNKS).zip(trainer.grads.iter_mut()).collect();
        let used = parts.len();
        let net = &trainer.net;
        in_parallel(parts, self.threads, |(part, g)| {
            g.clear();
            let mut acc = [vec![0.0; h], vec![0.0; h]];
            for entry in part {
                g.loss += f64::from(backward(net, &self.sample(entry), &mut acc, g));
            }
        });
        trainer.total.clear();
        for g in trainer.grads.iter().take(used) {
            trainer.total.add(g);
        }
        adam_step(&mut trainer.net, &trainer.total, &mut trainer.adam, rate, decay, batch.len());
        trainer.total.loss
    }
}

/// The network being trained and its optimiser's state.
struct Trainer {
    net: FloatNetwork,
    adam: Adam<f32>,
    grads: Vec<Gradient>,
    total: Gradient,
}

/// The loss of the linear evaluation `eval` on the validation positions of
/// `data` (as `plan` splits them), with the targets the network trains on:
/// the yardstick its validation loss should beat.
pub fn linear_loss(data: &dyn PositionSource, plan: &TrainPlan, eval: &crate::eval::Evaluator) -> f64 {
    let split = Split::new(plan.validation, plan.seed);
    let (mut total, mut count) = (0.0, 0);
    let _ = data.visit(&mut |record, group| {
        if !split.held(group) {
            return;
        }
        let Ok(pos) = record.position(eval.variant(), false) else { return };
        let target = decode(&record, eval.features(), plan.lambda, false, None).target;
        let e = sigmoid(eval.linear(&pos) as f32 / OUTPUT_SCALE as f32) - target;
        total += f64::from(e * e);
        count += 1;
    });
    total / f64::from(count.max(1))
}

/// Trains a network for `variant` on `data`; `report` hears each epoch, and
/// `progress` each batch (epoch, batch, batches). Returns the network of the
/// epoch with the lowest validation loss (the last one without validation).
pub fn train(
    variant: &Variant,
    data: &dyn PositionSource,
    plan: &TrainPlan,
    report: impl FnMut(EpochReport),
    progress: impl FnMut(usize, usize, usize),
) -> FloatNetwork {
    train_on_base(variant, data, plan, None, report, progress)
}

/// Like [`train`]; with `base`, the network learns what that linear
/// evaluation misses, and plays added to it.
///
/// Each epoch reads `data` through once: the positions of the groups the
/// seed holds out ([`Split`]) give the validation loss, the others (and
/// their mirrors) pass through a shuffle buffer of `plan.shuffle` positions
/// into batches, so memory stays bounded whatever the data's size. A pass
/// that fails (a file changed since it was checked) ends the epoch early.
pub fn train_on_base(
    variant: &Variant,
    data: &dyn PositionSource,
    plan: &TrainPlan,
    base: Option<&Evaluator>,
    mut report: impl FnMut(EpochReport),
    mut progress: impl FnMut(usize, usize, usize),
) -> FloatNetwork {
    let context = Context {
        features: FeatureSet::new(variant),
        files: variant.shape.files,
        lambda: plan.lambda,
        base,
        threads: plan.threads.max(1),
    };
    let split = Split::new(plan.validation, plan.seed);
    let (mut trained, mut held) = (0usize, 0usize);
    let _ = data.visit(&mut |_, group| if split.held(group) { held += 1 } else { trained += 1 });
    let mirrors: &[bool] = if plan.mirror { &[false, true] } else { &[false] };
    let samples = trained * mirrors.len();
    let batch_size = plan.batch.max(1);
    let batches = samples.div_ceil(batch_size);
    let net = match &plan.init {
        Some(init) => init.clone(),
        None => {
            let mut net = FloatNetwork::random(variant, plan.hidden, plan.activation, plan.seed);
            net.header.linear_base = base.is_some();
            if base.is_some() {
                // On a base, start from adding (almost) nothing.
                net.output_weights.iter_mut().for_each(|w| *w *= 0.01);
            }
            net
        }
    };
    let adam = Adam::new(net.hidden_weights.len() + net.hidden_bias.len() + net.output_weights.len() + 1, 1e-8);
    let grads = (0..CHUNKS).map(|_| Gradient::zeros(&net)).collect();
    let mut trainer = Trainer { total: Gradient::zeros(&net), net, adam, grads };
    let mut rng = SplitMix64(plan.seed.wrapping_add(1));
    let mut best: Option<(f64, FloatNetwork)> = None;
    for epoch in 1..=plan.epochs {
        let mut shuffle = Shuffle::new(plan.shuffle);
        let (mut batch, mut done, mut train_loss) = (Vec::with_capacity(batch_size), 0, 0.0);
        let mut take = |entry: Entry, batch: &mut Vec<Entry>, flush: bool| {
            batch.push(entry);
            if batch.len() == batch_size || flush {
                let share = ((epoch - 1) * batches + done) as f32 / (plan.epochs * batches).max(1) as f32;
                let rate = plan.rate * (plan.final_rate / plan.rate).powf(share);
                train_loss += context.step(&mut trainer, batch, rate, plan.weight_decay);
                batch.clear();
                done += 1;
                progress(epoch, done, batches);
            }
        };
        let _ = data.visit(&mut |record, group| {
            if split.held(group) {
                return;
            }
            for &mirror in mirrors {
                if let Some(out) = shuffle.push(Entry { record: record.as_bytes().to_vec(), mirror }, &mut rng) {
                    take(out, &mut batch, false);
                }
            }
        });
        let left: Vec<Entry> = shuffle.drain(&mut rng).collect();
        let count = left.len();
        for (i, entry) in left.into_iter().enumerate() {
            take(entry, &mut batch, i + 1 == count);
        }
        let validation_loss = if held > 0 { context.validation_loss(&trainer.net, data, split) } else { 0.0 };
        report(EpochReport { epoch, train_loss: train_loss / samples.max(1) as f64, validation_loss });
        // Keep the epoch that generalised best: small data overfits late.
        if held > 0 && best.as_ref().is_none_or(|(loss, _)| validation_loss < *loss) {
            best = Some((validation_loss, trainer.net.clone()));
        }
    }
    best.map_or(trainer.net, |(_, net)| net)
}

/// `menagerie train` arguments.
#[derive(Args, Debug, Clone)]
pub struct TrainArgs {
    /// The variant the data is for.
    #[arg(long)]
    pub variant: String,
    /// Data files from `menagerie datagen` (shards may be given one by one).
    #[arg(long, required = true, num_args = 1..)]
    pub data: Vec<PathBuf>,
    /// Hidden neurons per perspective.
    #[arg(long, default_value_t = 64)]
    pub hidden: usize,
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
    /// Decoupled weight decay (AdamW), against overfitting small data.
    #[arg(long, default_value_t = 1.0)]
    pub weight_decay: f32,
    /// Start from this network instead of random weights (to go on training
    /// it on new data); its width, activation and base replace --hidden,
    /// --activation and --base.
    #[arg(long)]
    pub init: Option<PathBuf>,
    /// Where to write the network (default: NAME.nnue).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Positions the shuffle buffer holds (about 100 bytes each).
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

/// Runs `menagerie train`; the error is the line `main` prints.
pub fn run_train_command(args: &TrainArgs, catalogue: &Catalogue) -> Result<(), String> {
    let variant = catalogue.get(&args.variant).ok_or_else(|| format!("unknown variant '{}'", args.variant))?;
    let activation = Activation::from_name(&args.activation)
        .ok_or_else(|| format!("unknown activation '{}' (crelu or screlu)", args.activation))?;
    if !(1..=crate::eval::nnue::network::MAX_HIDDEN).contains(&args.hidden) {
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
    let threads = args.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let (hidden, activation, base_name) = match &init {
        Some(net) => (net.header.hidden, net.header.activation, if net.header.linear_base { "linear" } else { "none" }),
        None => (args.hidden, activation, args.base.as_str()),
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
        weight_decay: args.weight_decay,
        init: init.as_ref().map(Network::dequantize),
    };
    eprintln!(
        "training {} {hidden}x2 ({}, base {base_name}{}) on {} positions, {threads} threads",
        variant.name,
        activation.name(),
        args.init.as_ref().map_or_else(String::new, |p| format!(", from {}", p.display())),
        positions
    );
    let linear = catalogue.evaluator(&variant, crate::eval::EvalMode::Linear);
    let base = match base_name {
        "none" => None,
        "linear" => Some(&linear),
        other => return Err(format!("unknown --base '{other}' (none or linear)")),
    };
    eprintln!(
        "the linear evaluation's validation loss: {:.6} (the network's should end below it)",
        linear_loss(&data, &plan, &linear)
    );
    let start = Instant::now();
    let mut best: Option<(usize, f64)> = None;
    let mut net = train_on_base(
        &variant,
        &data,
        &plan,
        base,
        |r| {
            eprintln!(
                "\repoch {:>3}: train loss {:.6}  validation loss {:.6}  ({:.0} s)          ",
                r.epoch,
                r.train_loss,
                r.validation_loss,
                start.elapsed().as_secs_f64()
            );
            if best.is_none_or(|(_, loss)| r.validation_loss < loss) {
                best = Some((r.epoch, r.validation_loss));
            }
        },
        |epoch, batch, batches| {
            if batch % 8 == 0 || batch == batches {
                let done = ((epoch - 1) * batches + batch) as f64 / (plan.epochs * batches) as f64;
                let eta = start.elapsed().as_secs_f64() / done.max(1e-9) * (1.0 - done);
                eprint!("\r[{:<30}] epoch {epoch}/{}  ETA {eta:.0}s", "#".repeat((done * 30.0) as usize), plan.epochs);
                let _ = std::io::stderr().flush();
            }
        },
    );
    net.header.data_command = data_commands(headers.iter().map(|h| h.command.as_str()));
    net.header.train_command = command_line();
    if let (Some(init), Some(path)) = (&init, &args.init) {
        // What made the starting network, so that the header still says how to remake this one.
        let h = &init.header;
        net.header.train_command +=
            &format!(" ({} being: data: {}, trained by: {})", path.display(), h.data_command, h.train_command);
    }
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from(format!("{}.nnue", variant.name)));
    std::fs::write(&out, file::write(&net.quantize())).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    let kept = best.map_or_else(String::new, |(epoch, loss)| format!(" (epoch {epoch}, validation loss {loss:.6})"));
    println!("wrote {}{kept} in {:.0} s", out.display(), start.elapsed().as_secs_f64());
    Ok(())
}

/// The network `--init` names, checked against the variant.
fn read_init(path: &Path, variant: &Variant) -> Result<Network, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    file::read(&bytes)
        .and_then(|net| check_fits(&net, variant).map(|()| net))
        .map_err(|e| format!("{}: {e}", path.display()))
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
