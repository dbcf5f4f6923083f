//! `menagerie train`: fits a network to training data on the CPU. The loss
//! is the tuner's: squared error between the network's win probability,
//! `sigmoid(eval / 400)`, and a blend of the game's result (`--lambda`) and
//! the search's score through the same curve, for the side to move. Adam
//! over every weight; each batch is split into a fixed number of chunks,
//! shared out over the threads, whose gradients are summed in chunk order, so
//! a seed gives the same network whatever the number of threads. A held-out part of the data (a
//! contiguous run of records, so whole games, placed by the seed) reports the validation loss
//! of each epoch.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;

use super::command_line;
use super::datagen::parse_shard;
use super::math::{blended_target, chunks, in_chunks, in_parallel, sigmoid, Adam};
use crate::eval::catalogue::Catalogue;
use crate::eval::nnue::data::{DataSet, Record};
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

/// Mean loss of `samples` (in fixed chunks, summed in order).
fn mean_loss(net: &FloatNetwork, samples: &[Sample], threads: usize) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let h = net.header.hidden;
    let losses = in_chunks(samples, CHUNKS, threads, |part| {
        let mut acc = [vec![0.0; h], vec![0.0; h]];
        part.iter()
            .map(|s| {
                let e = sigmoid(forward(net, s, &mut acc)) - s.target;
                f64::from(e * e)
            })
            .sum::<f64>()
    });
    losses.iter().sum::<f64>() / samples.len() as f64
}

/// The records held out for validation: one contiguous run at a place the
/// seed picks. Records come game by game, so it holds (nearly) whole games
/// the network never trained on, not neighbours of training positions.
pub fn validation_range(records: usize, plan: &TrainPlan) -> std::ops::Range<usize> {
    let held = ((records as f32 * plan.validation) as usize).min(records.saturating_sub(1));
    let start = SplitMix64(plan.seed).below(records - held + 1);
    start..start + held
}

/// The loss of the linear evaluation `eval` on the records of `range`, with
/// the targets the network trains on: the yardstick its validation loss
/// should beat.
pub fn linear_loss(data: &DataSet, range: std::ops::Range<usize>, eval: &crate::eval::Evaluator, lambda: f32) -> f64 {
    let (mut total, mut count) = (0.0, 0);
    for i in range {
        let record = data.record(i);
        let Ok(pos) = record.position(eval.variant(), false) else { continue };
        let target = decode(&record, eval.features(), lambda, false, None).target;
        let e = sigmoid(eval.linear(&pos) as f32 / OUTPUT_SCALE as f32) - target;
        total += f64::from(e * e);
        count += 1;
    }
    total / f64::from(count.max(1))
}

/// Trains a network for `variant` on `data`; `report` hears each epoch, and
/// `progress` each batch (epoch, batch, batches). Returns the network of the
/// epoch with the lowest validation loss (the last one without validation).
pub fn train(
    variant: &Variant,
    data: &DataSet,
    plan: &TrainPlan,
    report: impl FnMut(EpochReport),
    progress: impl FnMut(usize, usize, usize),
) -> FloatNetwork {
    train_on_base(variant, data, plan, None, report, progress)
}

/// Like [`train`]; with `base`, the network learns what that linear
/// evaluation misses, and plays added to it.
pub fn train_on_base(
    variant: &Variant,
    data: &DataSet,
    plan: &TrainPlan,
    base: Option<&Evaluator>,
    mut report: impl FnMut(EpochReport),
    mut progress: impl FnMut(usize, usize, usize),
) -> FloatNetwork {
    let features = FeatureSet::new(variant);
    let held = validation_range(data.len(), plan);
    let validation_order: Vec<usize> = held.clone().collect();
    let train_order: Vec<usize> = (0..held.start).chain(held.end..data.len()).collect();
    let (train_order, validation_order) = (&train_order[..], &validation_order[..]);
    let mut rng = SplitMix64(plan.seed.wrapping_add(1));
    let decode_all = |indices: &[usize], mirror: bool| -> Vec<Sample> {
        indices.iter().map(|&i| decode(&data.record(i), &features, plan.lambda, mirror, base)).collect()
    };
    let mut train_part = decode_all(train_order, false);
    if plan.mirror {
        // Mirrored copies train only: the validation loss stays that of real positions.
        train_part.extend(decode_all(train_order, true));
    }
    let validation_part = &decode_all(validation_order, false)[..];
    let train_part = &train_part[..];
    let mut net = match &plan.init {
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
    let h = net.header.hidden;
    let mut adam = Adam::new(net.hidden_weights.len() + net.hidden_bias.len() + net.output_weights.len() + 1, 1e-8);
    let threads = plan.threads.max(1);
    let mut grads: Vec<Gradient> = (0..CHUNKS).map(|_| Gradient::zeros(&net)).collect();
    let mut total = Gradient::zeros(&net);
    let mut batch_order: Vec<usize> = (0..train_part.len()).collect();
    let mut best: Option<(f64, FloatNetwork)> = None;
    for epoch in 1..=plan.epochs {
        for i in (1..batch_order.len()).rev() {
            batch_order.swap(i, rng.below(i + 1));
        }
        let batches = batch_order.len().div_ceil(plan.batch.max(1));
        let mut train_loss = 0.0;
        for (b, batch) in batch_order.chunks(plan.batch.max(1)).enumerate() {
            let parts: Vec<(&[usize], &mut Gradient)> = chunks(batch, CHUNKS).zip(grads.iter_mut()).collect();
            let net_ref = &net;
            let used = parts.len();
            in_parallel(parts, threads, |(part, g)| {
                g.clear();
                let mut acc = [vec![0.0; h], vec![0.0; h]];
                for &i in part {
                    g.loss += f64::from(backward(net_ref, &train_part[i], &mut acc, g));
                }
            });
            total.clear();
            for g in grads.iter().take(used) {
                total.add(g);
            }
            train_loss += total.loss;
            let done = ((epoch - 1) * batches + b) as f32 / (plan.epochs * batches).max(1) as f32;
            let rate = plan.rate * (plan.final_rate / plan.rate).powf(done);
            adam_step(&mut net, &total, &mut adam, rate, plan.weight_decay, batch.len());
            progress(epoch, b + 1, batches);
        }
        let validation_loss = mean_loss(&net, validation_part, threads);
        report(EpochReport { epoch, train_loss: train_loss / train_part.len().max(1) as f64, validation_loss });
        // Keep the epoch that generalised best: small data overfits late.
        if !validation_part.is_empty() && best.as_ref().is_none_or(|(loss, _)| validation_loss < *loss) {
            best = Some((validation_loss, net.clone()));
        }
    }
    best.map_or(net, |(_, net)| net)
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
    let mut bytes = Vec::new();
    for path in &args.data {
        bytes.extend(std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?);
    }
    let data = DataSet::read(bytes, &variant).map_err(|e| format!("bad data: {e}"))?;
    if data.len() < 2 {
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
        mirror: args.mirror,
        weight_decay: args.weight_decay,
        init: init.as_ref().map(Network::dequantize),
    };
    eprintln!(
        "training {} {hidden}x2 ({}, base {base_name}{}) on {} positions, {threads} threads",
        variant.name,
        activation.name(),
        args.init.as_ref().map_or_else(String::new, |p| format!(", from {}", p.display())),
        data.len()
    );
    let linear = catalogue.evaluator(&variant, crate::eval::EvalMode::Linear);
    let base = match base_name {
        "none" => None,
        "linear" => Some(&linear),
        other => return Err(format!("unknown --base '{other}' (none or linear)")),
    };
    eprintln!(
        "the linear evaluation's validation loss: {:.6} (the network's should end below it)",
        linear_loss(&data, validation_range(data.len(), &plan), &linear, plan.lambda)
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
    net.header.data_command = data_commands(data.headers.iter().map(|h| h.command.as_str()));
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
