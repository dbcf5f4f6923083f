//! The network: per perspective one hidden layer over the inputs of
//! [`FeatureSet`], its activations for the side to move first, then the
//! other side, into one output; with output buckets, one output per bucket
//! of men on the board, the position's count choosing which
//! ([`NetworkHeader::output_bucket`]). [`FloatNetwork`] holds `f32` weights (for
//! training and for tests); [`Network`] holds them quantized for play.
//!
//! Quantization (after bullet's convention): the accumulator and the hidden
//! layer's weights are scaled by [`QA`], the output weights by [`QB`], so an
//! activation in `0..=1` becomes `0..=QA`; the output is centipawns divided
//! by [`OUTPUT_SCALE`].

use super::features::{bucket_count, layout_is_half, FeatureSet};
use crate::rules::variant::Variant;

/// The files and ranks of a header's `board` (`FILESxRANKS`), if it reads.
pub fn parse_board(board: &str) -> Option<(u8, u8)> {
    board.split_once('x').and_then(|(f, r)| Some((f.parse().ok()?, r.parse().ok()?)))
}

/// Scale of the hidden layer (weights, biases, accumulators).
pub const QA: i32 = 255;
/// Scale of the output weights.
pub const QB: i32 = 128;
/// Centipawns per unit of the network's output.
pub const OUTPUT_SCALE: i32 = 400;
/// Widest hidden layer a network file may have.
pub const MAX_HIDDEN: usize = 1024;
/// Most output buckets a network file may have.
pub const MAX_OUTPUTS: usize = 32;

/// The hidden layer's activation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    /// `clamp(x, 0, 1)`.
    ClippedRelu,
    /// `clamp(x, 0, 1)²`.
    SquaredClippedRelu,
}

impl Activation {
    /// The name a network file writes.
    pub fn name(self) -> &'static str {
        match self {
            Activation::ClippedRelu => "crelu",
            Activation::SquaredClippedRelu => "screlu",
        }
    }

    /// The activation a network file names.
    pub fn from_name(name: &str) -> Option<Activation> {
        match name {
            "crelu" => Some(Activation::ClippedRelu),
            "screlu" => Some(Activation::SquaredClippedRelu),
            _ => None,
        }
    }

    /// The activation of a float accumulator value.
    #[inline]
    pub fn apply(self, x: f32) -> f32 {
        let c = x.clamp(0.0, 1.0);
        match self {
            Activation::ClippedRelu => c,
            Activation::SquaredClippedRelu => c * c,
        }
    }
}

/// What a network is for: the variant's piece set and board (a network
/// for another set is refused), its shape, and how it was made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkHeader {
    /// The variant it was trained for.
    pub variant: String,
    /// The piece letters in the variant's kind order (`PNBRQK`).
    pub pieces: String,
    /// The board, `FILESxRANKS`.
    pub board: String,
    /// Whether the inputs include hands.
    pub hands: bool,
    /// Hidden neurons per perspective.
    pub hidden: usize,
    /// The hidden layer's activation.
    pub activation: Activation,
    /// Whether each perspective's inputs reverse the files while its king
    /// stands on the right half ([`FeatureSet::with_king_mirror`]).
    pub king_mirror: bool,
    /// King buckets: one bucket per square of the left half or of the whole
    /// board, rank by rank from the perspective's first ([`FeatureSet::with_king_buckets`]);
    /// empty without buckets. A left-half layout implies the king mirror.
    pub king_buckets: Vec<u8>,
    /// Whether the network adds to the linear evaluation (it was trained on
    /// what the linear evaluation misses) instead of scoring alone.
    pub linear_base: bool,
    /// Output buckets (1: a single output).
    pub outputs: usize,
    /// The men on the board that fill the top bucket (the start position's
    /// count); buckets split `1..=outputs_men` evenly.
    pub outputs_men: usize,
    /// The command that made the training data.
    pub data_command: String,
    /// The command that trained the network.
    pub train_command: String,
}

impl NetworkHeader {
    /// A header for a network of `hidden` neurons over `variant`'s inputs.
    pub fn for_variant(variant: &Variant, hidden: usize, activation: Activation) -> NetworkHeader {
        NetworkHeader {
            variant: variant.name.clone(),
            pieces: piece_letters(variant),
            board: variant.shape.to_string(),
            hands: variant.hands,
            hidden,
            activation,
            king_mirror: false,
            king_buckets: Vec::new(),
            linear_base: false,
            outputs: 1,
            outputs_men: 0,
            data_command: String::new(),
            train_command: String::new(),
        }
    }

    /// The output bucket of a position with `men` men on the board: the
    /// men from 1 to `outputs_men` cut into `outputs` equal bands (fewer
    /// men in the lower buckets; more than `outputs_men` in the top one).
    #[inline]
    pub fn output_bucket(&self, men: usize) -> usize {
        if self.outputs <= 1 {
            return 0;
        }
        (men.saturating_sub(1) * self.outputs / self.outputs_men.max(1)).min(self.outputs - 1)
    }

    /// The inputs of this network over `variant` (the variant's, with the
    /// network's king mirror and king buckets; [`super::check_fits`] checks
    /// that the buckets fit the variant's board).
    pub fn features(&self, variant: &Variant) -> FeatureSet {
        FeatureSet::new(variant).with_king_buckets(&self.king_buckets).with_king_mirror(self.king_mirror)
    }

    /// King buckets (1: none).
    pub fn king_bucket_count(&self) -> usize {
        bucket_count(&self.king_buckets)
    }

    /// Whether the king buckets are a left-half layout, which implies the
    /// king mirror (false without buckets and for a whole-board layout).
    pub fn buckets_mirror(&self) -> bool {
        let (files, ranks) = parse_board(&self.board).unwrap_or((0, 0));
        layout_is_half(&self.king_buckets, files, ranks)
    }

    /// Why this network cannot evaluate `variant`, if it cannot.
    pub fn mismatch(&self, variant: &Variant) -> Option<String> {
        let (pieces, board) = (piece_letters(variant), variant.shape.to_string());
        if self.pieces != pieces || self.board != board || self.hands != variant.hands {
            return Some(format!(
                "the network is for pieces {} on {}{}, the variant '{}' has {pieces} on {board}{}",
                self.pieces,
                self.board,
                if self.hands { " with hands" } else { "" },
                variant.name,
                if variant.hands { " with hands" } else { "" },
            ));
        }
        None
    }
}

/// The variant's piece letters in kind order.
pub fn piece_letters(variant: &Variant) -> String {
    variant.pieces.iter().map(|p| p.letter).collect()
}

/// A network with `f32` weights.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNetwork {
    /// Its header.
    pub header: NetworkHeader,
    /// Inputs per perspective.
    pub inputs: usize,
    /// Hidden weights, `inputs` rows of `hidden`.
    pub hidden_weights: Vec<f32>,
    /// Hidden biases.
    pub hidden_bias: Vec<f32>,
    /// Output weights per bucket: the side to move's `hidden`, then the other side's.
    pub output_weights: Vec<f32>,
    /// Output bias per bucket.
    pub output_bias: Vec<f32>,
}

impl FloatNetwork {
    /// A network of zeros for `variant`.
    pub fn zeros(variant: &Variant, hidden: usize, activation: Activation) -> FloatNetwork {
        let inputs = FeatureSet::new(variant).len();
        FloatNetwork {
            header: NetworkHeader::for_variant(variant, hidden, activation),
            inputs,
            hidden_weights: vec![0.0; inputs * hidden],
            hidden_bias: vec![0.0; hidden],
            output_weights: vec![0.0; 2 * hidden],
            output_bias: vec![0.0],
        }
    }

    /// This single-output network with `outputs` output buckets over
    /// `men` men, each a copy of its output (so that it scores as before
    /// until trained on). A network with buckets already is kept as it is.
    pub fn with_output_buckets(mut self, outputs: usize, men: usize) -> FloatNetwork {
        if self.header.outputs == 1 && outputs > 1 {
            self.output_weights = self.output_weights.repeat(outputs);
            self.output_bias = self.output_bias.repeat(outputs);
            self.header.outputs = outputs;
            self.header.outputs_men = men;
        }
        self
    }

    /// This network with the king buckets of `layout` (checked against the
    /// board: [`super::features::check_king_buckets`]); a left-half layout
    /// implies the king mirror, a whole-board one keeps the network's. Each
    /// new bucket's input rows start as a copy of the rows of the bucket its
    /// first square had before (all of them the network's only rows when it
    /// had no buckets), so where the new layout refines the old one of the
    /// same extent (from none, always) the network scores every position as
    /// it did (with the king mirror, for a left-half layout). An empty
    /// layout, or the network's own, keeps it as it is.
    pub fn with_king_buckets(mut self, layout: &[u8]) -> FloatNetwork {
        if layout.is_empty() || layout == self.header.king_buckets {
            return self;
        }
        let h = self.header.hidden;
        let base = self.inputs / self.header.king_bucket_count();
        let old = std::mem::take(&mut self.header.king_buckets);
        self.header.king_buckets = layout.to_vec();
        // A left-half layout needs the king mirror; a whole-board one keeps
        // the network's own views, so that the copies score as it did.
        self.header.king_mirror |= self.header.buckets_mirror();
        let buckets = self.header.king_bucket_count();
        let mut weights = Vec::with_capacity(buckets * base * h);
        for b in 0..buckets {
            let square = layout.iter().position(|&x| usize::from(x) == b).unwrap_or(0);
            let from = old.get(square).map_or(0, |&x| usize::from(x));
            weights.extend_from_slice(&self.hidden_weights[from * base * h..(from + 1) * base * h]);
        }
        self.hidden_weights = weights;
        self.inputs = buckets * base;
        self
    }

    /// This network widened to `hidden` neurons per perspective (a width no
    /// larger keeps it as it is). The new neurons get small random input
    /// weights of `seed` (a fresh network's scale) and zero bias and output weights, so the network
    /// scores every position as before (the quantized one exactly: a zero
    /// output weight adds nothing) while training finds them a use (their
    /// output weights learn first, from the activations the random inputs give).
    pub fn with_hidden(mut self, hidden: usize, seed: u64) -> FloatNetwork {
        let old = self.header.hidden;
        if hidden <= old {
            return self;
        }
        let mut rng = crate::rules::zobrist::SplitMix64(seed);
        let mut weights = Vec::with_capacity(self.inputs * hidden);
        for row in self.hidden_weights.chunks_exact(old) {
            weights.extend_from_slice(row);
            weights.extend((old..hidden).map(|_| uniform(&mut rng, FIRST_WEIGHT_SCALE)));
        }
        self.hidden_weights = weights;
        self.hidden_bias.resize(hidden, 0.0);
        // Per output bucket: the side to move's weights, then the other side's.
        self.output_weights = self
            .output_weights
            .chunks_exact(old)
            .flat_map(|half| half.iter().copied().chain(std::iter::repeat_n(0.0, hidden - old)))
            .collect();
        self.header.hidden = hidden;
        self
    }

    /// The accumulator of a set of active inputs: the bias plus their rows.
    pub fn accumulate(&self, active: &[usize], out: &mut [f32]) {
        let h = self.header.hidden;
        out[..h].copy_from_slice(&self.hidden_bias);
        for &i in active {
            for (o, w) in out[..h].iter_mut().zip(&self.hidden_weights[i * h..(i + 1) * h]) {
                *o += w;
            }
        }
    }

    /// The output of `bucket` in centipawns for the side to move, from both accumulators.
    pub fn output(&self, us: &[f32], them: &[f32], bucket: usize) -> f32 {
        let h = self.header.hidden;
        let act = self.header.activation;
        let (w_us, w_them) = self.output_weights[2 * h * bucket..2 * h * (bucket + 1)].split_at(h);
        let sum: f32 = us.iter().zip(w_us).map(|(&x, w)| act.apply(x) * w).sum::<f32>()
            + them.iter().zip(w_them).map(|(&x, w)| act.apply(x) * w).sum::<f32>();
        (sum + self.output_bias[bucket]) * OUTPUT_SCALE as f32
    }

    /// The network with integer weights. Values beyond what `i16` holds are
    /// clamped (a trainer keeps them well inside).
    pub fn quantize(&self) -> Network {
        let q16 = |x: f32, scale: i32| (x * scale as f32).round().clamp(i16::MIN as f32, i16::MAX as f32) as i16;
        Network::new(
            self.header.clone(),
            self.inputs,
            self.hidden_weights.iter().map(|&w| q16(w, QA)).collect(),
            self.hidden_bias.iter().map(|&b| q16(b, QA)).collect(),
            self.output_weights.iter().map(|&w| q16(w, QB)).collect(),
            self.output_bias.iter().map(|&b| (b * (QA * QB) as f32).round() as i32).collect(),
        )
    }
}

/// A network with integer weights, as the engine plays with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    /// Its header.
    pub header: NetworkHeader,
    /// Inputs per perspective.
    pub inputs: usize,
    /// Hidden weights (scale [`QA`]), `inputs` rows of `hidden`.
    pub hidden_weights: Vec<i16>,
    /// Hidden biases (scale [`QA`]).
    pub hidden_bias: Vec<i16>,
    /// Output weights (scale [`QB`]) per bucket: the side to move's, then
    /// the other side's. Set by [`Network::new`], which sizes the output's
    /// runs by them: a network with other output weights is a new network.
    pub output_weights: Vec<i16>,
    /// Output bias (scale `QA * QB`) per bucket.
    pub output_bias: Vec<i32>,
    /// Products of activation and output weight that may be summed in 32
    /// bits before the sum is widened: chosen from the largest output
    /// weight so that no such run can overflow ([`Network::output`]).
    output_run: usize,
}

impl Network {
    /// A network from its header and weights.
    pub fn new(
        header: NetworkHeader,
        inputs: usize,
        hidden_weights: Vec<i16>,
        hidden_bias: Vec<i16>,
        output_weights: Vec<i16>,
        output_bias: Vec<i32>,
    ) -> Network {
        // The largest product: activation (at most QA, squared for the
        // squared activation) times the largest output weight.
        let top = output_weights.iter().map(|&w| i64::from(w).abs()).max().unwrap_or(0).max(1);
        let activation = match header.activation {
            Activation::ClippedRelu => i64::from(QA),
            Activation::SquaredClippedRelu => i64::from(QA * QA),
        };
        let output_run = (i64::from(i32::MAX) / (activation * top)).clamp(1, 1 << 16) as usize;
        Network { header, inputs, hidden_weights, hidden_bias, output_weights, output_bias, output_run }
    }

    /// The network with float weights, for a trainer to continue from:
    /// quantizing it again gives this network back.
    pub fn dequantize(&self) -> FloatNetwork {
        let scaled = |w: &[i16], scale: i32| w.iter().map(|&w| f32::from(w) / scale as f32).collect();
        FloatNetwork {
            header: self.header.clone(),
            inputs: self.inputs,
            hidden_weights: scaled(&self.hidden_weights, QA),
            hidden_bias: scaled(&self.hidden_bias, QA),
            output_weights: scaled(&self.output_weights, QB),
            output_bias: self.output_bias.iter().map(|&b| b as f32 / (QA * QB) as f32).collect(),
        }
    }

    /// Hidden neurons per perspective.
    #[inline]
    pub fn hidden(&self) -> usize {
        self.header.hidden
    }

    /// The weights row of input `i`.
    #[inline(always)]
    pub fn row(&self, i: usize) -> &[i16] {
        let h = self.header.hidden;
        &self.hidden_weights[i * h..(i + 1) * h]
    }

    /// The output of `bucket` in centipawns for the side to move, from the
    /// accumulators of the side to move (`us`) and of the other side (`them`).
    #[inline]
    pub fn output(&self, us: &[i32], them: &[i32], bucket: usize) -> i32 {
        let h = self.hidden();
        let (w_us, w_them) = self.output_weights[2 * h * bucket..2 * h * (bucket + 1)].split_at(h);
        // Each product fits an i32 (255 * 255 * 32768 < 2^31), and so does
        // the sum of any `output_run` of them: runs are summed in 32-bit
        // vector lanes and only their sums widened to 64 bits.
        let run = self.output_run;
        let sum = match self.header.activation {
            Activation::ClippedRelu => {
                let half = |acc: &[i32], w: &[i16]| -> i64 {
                    let products = |(a, w): (&[i32], &[i16])| -> i32 {
                        a.iter().zip(w).map(|(&x, &w)| x.clamp(0, QA) * i32::from(w)).sum()
                    };
                    acc.chunks(run).zip(w.chunks(run)).map(|c| i64::from(products(c))).sum()
                };
                half(us, w_us) + half(them, w_them)
            }
            Activation::SquaredClippedRelu => {
                let half = |acc: &[i32], w: &[i16]| -> i64 {
                    let products = |(a, w): (&[i32], &[i16])| -> i32 {
                        a.iter().zip(w).map(|(&x, &w)| x.clamp(0, QA).pow(2) * i32::from(w)).sum()
                    };
                    acc.chunks(run).zip(w.chunks(run)).map(|c| i64::from(products(c))).sum()
                };
                // Squaring scaled QA twice: take one QA off.
                (half(us, w_us) + half(them, w_them)) / i64::from(QA)
            }
        };
        let out = (sum + i64::from(self.output_bias[bucket])) * i64::from(OUTPUT_SCALE) / i64::from(QA * QB);
        out.clamp(i64::from(i32::MIN / 2), i64::from(i32::MAX / 2)) as i32
    }
}

impl FloatNetwork {
    /// A network with small random weights (uniform, the hidden layer's
    /// scaled by its fan-in), the same for the same seed: a trainer's start.
    pub fn random(variant: &Variant, hidden: usize, activation: Activation, seed: u64) -> FloatNetwork {
        let mut net = FloatNetwork::zeros(variant, hidden, activation);
        let mut rng = crate::rules::zobrist::SplitMix64(seed);
        for w in &mut net.hidden_weights {
            *w = uniform(&mut rng, FIRST_WEIGHT_SCALE);
        }
        for b in &mut net.hidden_bias {
            *b = uniform(&mut rng, FIRST_WEIGHT_SCALE) + 0.1;
        }
        let out = 1.0 / (hidden as f32).sqrt();
        for w in &mut net.output_weights {
            *w = uniform(&mut rng, out);
        }
        net
    }
}

/// The bound of a fresh hidden weight: about 32 inputs are active at once,
/// so their sum stays near 0..1.
const FIRST_WEIGHT_SCALE: f32 = 0.1;

/// A draw from `rng`, uniform in `-scale..scale`.
fn uniform(rng: &mut crate::rules::zobrist::SplitMix64, scale: f32) -> f32 {
    let unit = (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
    (2.0 * unit - 1.0) * scale
}
