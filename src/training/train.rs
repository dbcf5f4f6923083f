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
//! validation loss of each epoch. Between epochs a run's whole state is a
//! [`TrainState`], which a checkpoint keeps ([`super::checkpoint`]), so a
//! stopped run goes on to the same network; the command line is in
//! [`super::train_command`].

use super::math::{blended_target, chunks, in_chunks, in_parallel, sigmoid, Adam};
use super::source::{PositionSource, Shuffle, Split};
use crate::eval::nnue::data::Record;
use crate::eval::nnue::network::{Activation, FloatNetwork, OUTPUT_SCALE};
use crate::eval::nnue::FeatureSet;
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
    /// The network's inputs use the king mirror ([`FeatureSet::with_king_mirror`]),
    /// whatever `init`'s did: the run decides the transform of its result.
    pub king_mirror: bool,
    /// King buckets ([`FeatureSet::with_king_buckets`], checked against the
    /// board); a left-half layout implies the king mirror; empty: none, or
    /// `init`'s. An `init` with none (or a coarser layout) gets each bucket's
    /// input rows as a copy of its own ([`FloatNetwork::with_king_buckets`]),
    /// so the run starts from its scores (with the king mirror for a
    /// left-half layout).
    pub king_buckets: Vec<u8>,
    /// Decoupled weight decay (AdamW): each step shrinks every weight by
    /// `rate * weight_decay` of itself, against overfitting small data.
    pub weight_decay: f32,
    /// The network to start from (a trained one, to go on training it on
    /// new data), instead of random weights; its width and activation
    /// replace `hidden` and `activation`, and the base given to
    /// [`train_on_base`] must be the one it was trained on (`menagerie
    /// train --init` takes it from the network's header).
    pub init: Option<FloatNetwork>,
    /// Output buckets (1: one output) and the men that fill the top one. A
    /// single-output `init` gets this many copies of its output.
    pub outputs: (usize, usize),
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
    /// Men on the board (they choose the output bucket).
    men: usize,
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
    Sample { inputs, target: blended_target(lambda, result, score), base, men: record.men().count() }
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
    output_bias: Vec<f32>,
    loss: f64,
}

impl Gradient {
    fn zeros(net: &FloatNetwork) -> Gradient {
        Gradient {
            hidden_weights: vec![0.0; net.hidden_weights.len()],
            hidden_bias: vec![0.0; net.hidden_bias.len()],
            output_weights: vec![0.0; net.output_weights.len()],
            output_bias: vec![0.0; net.output_bias.len()],
            loss: 0.0,
        }
    }

    fn clear(&mut self) {
        self.hidden_weights.iter_mut().for_each(|g| *g = 0.0);
        self.hidden_bias.iter_mut().for_each(|g| *g = 0.0);
        self.output_weights.iter_mut().for_each(|g| *g = 0.0);
        self.output_bias.iter_mut().for_each(|g| *g = 0.0);
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
        for (a, b) in self.output_bias.iter_mut().zip(&other.output_bias) {
            *a += b;
        }
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
    let bucket = net.header.output_bucket(s.men);
    let (w_us, w_them) = net.output_weights[2 * h * bucket..2 * h * (bucket + 1)].split_at(h);
    let out: f32 = acc[0].iter().zip(w_us).map(|(&x, w)| act.apply(x) * w).sum::<f32>()
        + acc[1].iter().zip(w_them).map(|(&x, w)| act.apply(x) * w).sum::<f32>();
    out + net.output_bias[bucket] + s.base
}

/// Adds one sample's loss gradient to `g`; returns its loss.
fn backward(net: &FloatNetwork, s: &Sample, acc: &mut [Vec<f32>; 2], g: &mut Gradient) -> f32 {
    let h = net.header.hidden;
    let out = forward(net, s, acc);
    let p = sigmoid(out);
    let error = p - s.target;
    // d(error²)/d(out) through the sigmoid.
    let d_out = 2.0 * error * p * (1.0 - p);
    let bucket = net.header.output_bucket(s.men);
    g.output_bias[bucket] += d_out;
    let act = net.header.activation;
    for (side, inputs) in s.inputs.iter().enumerate() {
        let at = 2 * h * bucket + side * h;
        let w = &net.output_weights[at..at + h];
        let gw = &mut g.output_weights[at..at + h];
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
        .chain(net.output_bias.iter_mut());
    let grads = g.hidden_weights.iter().chain(&g.hidden_bias).chain(&g.output_weights).chain(&g.output_bias);
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
        let h = trainer.state.net.header.hidden;
        let parts: Vec<(&[Entry], &mut Gradient)> = chunks(batch, CHUNKS).zip(trainer.grads.iter_mut()).collect();
        let used = parts.len();
        let net = &trainer.state.net;
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
        let state = &mut trainer.state;
        adam_step(&mut state.net, &trainer.total, &mut state.adam, rate, decay, batch.len());
        trainer.total.loss
    }
}

/// The run's state and the gradient buffers of its steps.
struct Trainer {
    state: TrainState,
    grads: Vec<Gradient>,
    total: Gradient,
}

/// Adam's ε in the trainer.
pub const ADAM_EPSILON: f32 = 1e-8;

/// The best epoch so far: its number, validation loss and network.
#[derive(Clone, Debug, PartialEq)]
pub struct Best {
    /// 1-based epoch.
    pub epoch: usize,
    /// Its validation loss.
    pub loss: f64,
    /// The network after it.
    pub net: FloatNetwork,
}

/// Where a run stands between epochs: all it needs to go on exactly as if
/// it had never stopped (the shuffle buffer and the batch are empty then).
/// A checkpoint keeps it ([`super::checkpoint`]).
#[derive(Clone, Debug, PartialEq)]
pub struct TrainState {
    /// Epochs done.
    pub epoch: usize,
    /// The network as trained so far.
    pub net: FloatNetwork,
    /// Adam's moments and step count.
    pub adam: Adam<f32>,
    /// The shuffle's generator state.
    pub rng: u64,
    /// The epoch that generalised best so far (none without validation).
    pub best: Option<Best>,
}

impl TrainState {
    /// A run's start: `plan.init` (widened to the plan's width, new neurons
    /// drawn from the seed) or random weights of the seed (on a base,
    /// adding almost nothing), a fresh Adam, the seed's shuffle.
    pub fn new(variant: &Variant, plan: &TrainPlan, on_base: bool) -> TrainState {
        let net = match &plan.init {
            Some(init) => init.clone(),
            None => {
                let mut net = FloatNetwork::random(variant, plan.hidden, plan.activation, plan.seed);
                net.header.linear_base = on_base;
                if on_base {
                    // On a base, start from adding (almost) nothing.
                    net.output_weights.iter_mut().for_each(|w| *w *= 0.01);
                }
                net
            }
        }
        .with_hidden(plan.hidden, plan.seed)
        .with_output_buckets(plan.outputs.0, plan.outputs.1)
        .with_king_buckets(&plan.king_buckets);
        let adam = Adam::new(parameter_count(&net), ADAM_EPSILON);
        TrainState::continuing(net, adam, plan)
    }

    /// A run's start from `net` with Adam's state `adam` (training a
    /// checkpoint's network on new data), the seed's shuffle; the inputs'
    /// transform is the plan's (the input count is the same either way),
    /// and left-half king buckets, which `net` must already have if the plan
    /// names them, keep the king mirror on.
    pub fn continuing(mut net: FloatNetwork, adam: Adam<f32>, plan: &TrainPlan) -> TrainState {
        net.header.king_mirror = plan.king_mirror || net.header.buckets_mirror();
        TrainState { epoch: 0, net, adam, rng: plan.seed.wrapping_add(1), best: None }
    }

    /// The network a run gives: the best epoch's, or the last one's
    /// without validation.
    pub fn network(self) -> FloatNetwork {
        self.best.map_or(self.net, |best| best.net)
    }
}

/// The weights Adam moves in a network: every weight and bias.
pub fn parameter_count(net: &FloatNetwork) -> usize {
    net.hidden_weights.len() + net.hidden_bias.len() + net.output_weights.len() + net.output_bias.len()
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
pub fn train_on_base(
    variant: &Variant,
    data: &dyn PositionSource,
    plan: &TrainPlan,
    base: Option<&Evaluator>,
    mut report: impl FnMut(EpochReport),
    progress: impl FnMut(usize, usize, usize),
) -> FloatNetwork {
    let start = TrainState::new(variant, plan, base.is_some());
    let end = train_from(
        variant,
        data,
        plan,
        base,
        start,
        |r, _| {
            report(r);
            true
        },
        progress,
    );
    end.network()
}

/// Trains from `start` (a fresh [`TrainState::new`] or one a checkpoint
/// kept) to `plan.epochs`; after each epoch `epoch_end` hears the report
/// and the state, and ends the run early by returning false. A state
/// saved between epochs and trained on gives the very network the
/// unbroken run does. `progress` hears each batch (epoch, batch, batches).
///
/// Each epoch reads `data` through once: the positions of the groups the
/// seed holds out ([`Split`]) give the validation loss, the others (and
/// their mirrors) pass through a shuffle buffer of `plan.shuffle` positions
/// into batches, so memory stays bounded whatever the data's size. A pass
/// that fails (a file changed since it was checked) ends the epoch early.
pub fn train_from(
    variant: &Variant,
    data: &dyn PositionSource,
    plan: &TrainPlan,
    base: Option<&Evaluator>,
    start: TrainState,
    mut epoch_end: impl FnMut(EpochReport, &TrainState) -> bool,
    mut progress: impl FnMut(usize, usize, usize),
) -> TrainState {
    let context = Context {
        // The trained network's header decides its inputs, as it does in play.
        features: start.net.header.features(variant),
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
    let grads = (0..CHUNKS).map(|_| Gradient::zeros(&start.net)).collect();
    let mut trainer = Trainer { total: Gradient::zeros(&start.net), state: start, grads };
    for epoch in trainer.state.epoch + 1..=plan.epochs {
        let mut rng = SplitMix64(trainer.state.rng);
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
        let state = &mut trainer.state;
        let validation_loss = if held > 0 { context.validation_loss(&state.net, data, split) } else { 0.0 };
        // Keep the epoch that generalised best: small data overfits late.
        if held > 0 && state.best.as_ref().is_none_or(|best| validation_loss < best.loss) {
            state.best = Some(Best { epoch, loss: validation_loss, net: state.net.clone() });
        }
        state.epoch = epoch;
        state.rng = rng.0;
        let report = EpochReport { epoch, train_loss: train_loss / samples.max(1) as f64, validation_loss };
        if !epoch_end(report, state) {
            break;
        }
    }
    trainer.state
}
