//! Checkpoints of `menagerie train`, written after every epoch so that a
//! run stopped anywhere (a machine taken away) goes on with `--resume` to
//! the very network the unbroken run gives. A text header of `key value`
//! lines, an `end` line, then little-endian `f32`s and a checksum:
//!
//! ```text
//! menagerie-checkpoint 1
//! variant chess
//! pieces PNBRQK
//! board 8x8
//! hands no
//! hidden 64
//! activation screlu
//! base linear
//! inputs 768
//! transform king-mirror      the inputs' king mirror (only with it)
//! king-buckets 0,0,1,...     the king buckets' layout (only with them)
//! outputs 8 32               output buckets and their men (only with buckets)
//! epoch 3                    epochs done
//! steps 1431                 Adam's step count
//! rng 12297829382473034413   the shuffle's generator
//! best 2 3f4a0b2c1d3e4f50    best epoch and its validation loss (f64 bits; `best none`)
//! setting --rate 0.003       the run's settings, one a line: a resume must match them
//! data menagerie datagen ... the commands the network's header will name
//! train menagerie train ...
//! end
//! ```
//!
//! The body: the weights (hidden weights, hidden biases, output weights,
//! output bias), Adam's first moments and second moments in the same
//! order, the best epoch's weights when there is one; last, the FNV-1a
//! hash of every byte before it (`u64`), so that a damaged file is caught.

use std::io::Write as _;
use std::path::Path;

use super::math::Adam;
use super::train::{parameter_count, Best, TrainState, ADAM_EPSILON};
use crate::eval::nnue::features::{parse_king_buckets, write_king_buckets};
use crate::eval::nnue::network::{Activation, FloatNetwork, NetworkHeader};
use crate::rules::variant::Variant;

/// The first line of every checkpoint.
const MAGIC: &str = "menagerie-checkpoint 1";
/// Longest header accepted, in bytes.
const MAX_HEADER: usize = 64 * 1024;

/// A run's settings, `(--flag, value)` in a fixed order: what decides the
/// network besides the data's bytes (threads and paths do not).
pub type Settings = Vec<(String, String)>;

/// A checkpoint read back: the run's settings and its state (whose
/// network's header holds the data and train commands).
#[derive(Clone, Debug, PartialEq)]
pub struct Checkpoint {
    /// The settings of the run that wrote it.
    pub settings: Settings,
    /// Where the run stood.
    pub state: TrainState,
}

/// True for the bytes of a checkpoint (rather than a network).
pub fn is_checkpoint(bytes: &[u8]) -> bool {
    bytes.starts_with(b"menagerie-checkpoint ")
}

/// The file's bytes for `state` of a run with `settings`.
pub fn write(settings: &[(String, String)], state: &TrainState) -> Vec<u8> {
    let net = &state.net;
    let h = &net.header;
    let yes_no = |flag: bool| if flag { "yes" } else { "no" }.to_string();
    let best = state.best.as_ref().map_or("none".to_string(), |b| format!("{} {:016x}", b.epoch, b.loss.to_bits()));
    let fields = [
        ("variant", h.variant.clone()),
        ("pieces", h.pieces.clone()),
        ("board", h.board.clone()),
        ("hands", yes_no(h.hands)),
        ("hidden", h.hidden.to_string()),
        ("activation", h.activation.name().to_string()),
        ("base", if h.linear_base { "linear" } else { "none" }.to_string()),
        ("inputs", net.inputs.to_string()),
        ("epoch", state.epoch.to_string()),
        ("steps", state.adam.parts().2.to_string()),
        ("rng", state.rng.to_string()),
        ("best", best),
    ];
    let settings = settings.iter().map(|(flag, value)| ("setting", format!("{flag} {value}")));
    let outputs = (h.outputs > 1).then(|| ("outputs", format!("{} {}", h.outputs, h.outputs_men)));
    let transform = h.king_mirror.then(|| ("transform", "king-mirror".to_string()));
    let buckets = (!h.king_buckets.is_empty()).then(|| ("king-buckets", write_king_buckets(&h.king_buckets)));
    let commands = [("data", h.data_command.clone()), ("train", h.train_command.clone())];
    let mut text = format!("{MAGIC}\n");
    for (key, value) in
        fields.into_iter().chain(outputs).chain(transform).chain(buckets).chain(settings).chain(commands)
    {
        // A command never spans lines in the header.
        text.push_str(&format!("{key} {}\n", value.replace(['\n', '\r'], " ")));
    }
    let mut bytes = format!("{text}end\n").into_bytes();
    let (m, v, _) = state.adam.parts();
    let floats = weights(net).chain(m.iter().copied()).chain(v.iter().copied());
    let best = state.best.iter().flat_map(|b| weights(&b.net));
    for w in floats.chain(best) {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    bytes.extend_from_slice(&fnv1a(&bytes).to_le_bytes());
    bytes
}

/// Reads a checkpoint's bytes for `variant`; the error is one line that
/// names the byte where the file goes wrong.
pub fn read(bytes: &[u8], variant: &Variant) -> Result<Checkpoint, String> {
    if !bytes.starts_with(format!("{MAGIC}\n").as_bytes()) {
        return Err(if is_checkpoint(bytes) {
            format!("byte 0: checkpoint version not supported (expected {MAGIC:?})")
        } else {
            format!("byte 0: not a menagerie checkpoint (it must start with {MAGIC:?})")
        });
    }
    let window = &bytes[..bytes.len().min(MAX_HEADER)];
    let Some(end) = window.windows(5).position(|w| w == b"\nend\n").map(|i| i + 1) else {
        return Err(format!("byte {}: no \"end\" line: the header is cut off or too long", window.len()));
    };
    let header = Header::parse(&bytes[..end])?;
    let need = |key: &'static str| header.get(key).ok_or_else(|| format!("byte {end}: the header has no {key:?} line"));
    let number = |key: &'static str| -> Result<u64, String> {
        let (value, at) = need(key)?;
        value.parse().map_err(|_| format!("byte {at}: bad {key} {value:?}"))
    };
    let (activation, at) = need("activation")?;
    let activation = Activation::from_name(activation).ok_or_else(|| format!("byte {at}: bad activation"))?;
    let hidden = number("hidden")? as usize;
    if hidden == 0 || hidden > crate::eval::nnue::network::MAX_HIDDEN {
        return Err(format!("byte {}: bad hidden {hidden}", need("hidden")?.1));
    }
    let mut net = FloatNetwork::zeros(variant, hidden, activation);
    let found = NetworkHeader {
        pieces: need("pieces")?.0.to_string(),
        board: need("board")?.0.to_string(),
        hands: need("hands")?.0 == "yes",
        ..net.header.clone()
    };
    if let Some(why) = found.mismatch(variant) {
        return Err(format!("byte {}: {}", need("pieces")?.1, why.replacen("the network", "the checkpoint", 1)));
    }
    if let Ok((value, at)) = need("king-buckets") {
        let layout = parse_king_buckets(value, variant.shape.files, variant.shape.ranks)
            .map_err(|why| format!("byte {at}: bad king-buckets: {why}"))?;
        net = net.with_king_buckets(&layout);
    }
    if number("inputs")? as usize != net.inputs {
        return Err(format!(
            "byte {}: {} inputs, the variant has {}",
            need("inputs")?.1,
            number("inputs")?,
            net.inputs
        ));
    }
    net.header.linear_base = match need("base")? {
        ("linear", _) => true,
        ("none", _) => false,
        (other, at) => return Err(format!("byte {at}: bad base {other:?}")),
    };
    if let Ok((value, at)) = need("outputs") {
        let bad = || format!("byte {at}: bad outputs {value:?}");
        let (n, men) = value.split_once(' ').ok_or_else(bad)?;
        let (n, men) = (n.parse::<usize>().map_err(|_| bad())?, men.parse::<usize>().map_err(|_| bad())?);
        if !(2..=crate::eval::nnue::network::MAX_OUTPUTS).contains(&n) || men == 0 {
            return Err(bad());
        }
        net = net.with_output_buckets(n, men);
    }
    net.header.king_mirror = match need("transform") {
        Err(_) => false,
        Ok(("king-mirror", _)) => true,
        Ok((other, at)) => return Err(format!("byte {at}: bad transform {other:?}")),
    };
    net.header.data_command = need("data")?.0.to_string();
    net.header.train_command = need("train")?.0.to_string();
    let best = match need("best")? {
        ("none", _) => None,
        (value, at) => {
            let bad = || format!("byte {at}: bad best {value:?}");
            let (epoch, bits) = value.split_once(' ').ok_or_else(bad)?;
            let loss = f64::from_bits(u64::from_str_radix(bits, 16).map_err(|_| bad())?);
            Some((epoch.parse::<usize>().map_err(|_| bad())?, loss))
        }
    };
    let count = parameter_count(&net);
    let arrays = if best.is_some() { 4 } else { 3 };
    let body = end + "end\n".len();
    let expected = body + 4 * count * arrays + 8;
    if bytes.len() < expected {
        return Err(format!("byte {}: truncated ({expected} bytes expected)", bytes.len()));
    }
    if bytes.len() > expected {
        return Err(format!("byte {expected}: {} bytes after the end", bytes.len() - expected));
    }
    let sum = expected - 8;
    if u64::from_le_bytes(bytes[sum..].try_into().unwrap_or_default()) != fnv1a(&bytes[..sum]) {
        return Err(format!("byte {sum}: the checksum does not match: the file is damaged"));
    }
    let mut floats = bytes[body..sum].chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let mut take = |n: usize| floats.by_ref().take(n).collect::<Vec<f32>>();
    set_weights(&mut net, &take(count));
    let (m, v) = (take(count), take(count));
    let (steps, steps_at) = (number("steps")?, need("steps")?.1);
    let adam = i32::try_from(steps)
        .ok()
        .and_then(|steps| Adam::from_parts(m, v, steps, ADAM_EPSILON))
        .ok_or_else(|| format!("byte {steps_at}: bad steps {steps}"))?;
    let best = best.map(|(epoch, loss)| {
        let mut best = net.clone();
        set_weights(&mut best, &take(count));
        Best { epoch, loss, net: best }
    });
    let settings = header.settings();
    let state = TrainState { epoch: number("epoch")? as usize, net, adam, rng: number("rng")?, best };
    Ok(Checkpoint { settings, state })
}

/// Writes `state` to `path` at once: into a file beside it, then renamed
/// over it, so that a run killed while writing leaves the last checkpoint whole.
pub fn save(path: &Path, settings: &[(String, String)], state: &TrainState) -> Result<(), String> {
    let mut temp = path.as_os_str().to_owned();
    temp.push(".tmp");
    let temp = Path::new(&temp);
    let written = std::fs::File::create(temp)
        .and_then(|mut file| file.write_all(&write(settings, state)).and_then(|()| file.sync_all()))
        .and_then(|()| std::fs::rename(temp, path));
    written.map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Reads the checkpoint at `path` for `variant`.
pub fn load(path: &Path, variant: &Variant) -> Result<Checkpoint, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    read(&bytes, variant).map_err(|e| format!("{}: {e}", path.display()))
}

/// Refuses to resume a run of other settings: the first that differs, in one line.
pub fn check_same_settings(path: &Path, saved: &[(String, String)], now: &[(String, String)]) -> Result<(), String> {
    let describe =
        |setting: Option<&(String, String)>| setting.map_or("nothing".to_string(), |(f, v)| format!("{f} {v}"));
    for i in 0..saved.len().max(now.len()) {
        if saved.get(i) != now.get(i) {
            return Err(format!(
                "{}: cannot resume: made with {}, not {}",
                path.display(),
                describe(saved.get(i)),
                describe(now.get(i))
            ));
        }
    }
    Ok(())
}

/// The header's lines with the byte each starts at.
struct Header<'a> {
    lines: Vec<(&'a str, &'a str, usize)>,
}

impl<'a> Header<'a> {
    fn parse(bytes: &'a [u8]) -> Result<Header<'a>, String> {
        let text = std::str::from_utf8(bytes).map_err(|e| format!("byte {}: not text", e.valid_up_to()))?;
        let mut lines = Vec::new();
        let mut at = MAGIC.len() + 1;
        for line in text.lines().skip(1) {
            let (key, value) = line.split_once(' ').unwrap_or((line, ""));
            let known = ["variant", "pieces", "board", "hands", "hidden", "activation", "base", "inputs", "outputs"]
                .into_iter()
                .chain(["transform", "king-buckets", "epoch", "steps", "rng", "best", "setting", "data", "train"]);
            if !known.clone().any(|k| k == key) {
                return Err(format!("byte {at}: unknown header line {line:?}"));
            }
            if key != "setting" && lines.iter().any(|(k, _, _)| *k == key) {
                return Err(format!("byte {at}: a second {key:?} line"));
            }
            lines.push((key, value, at));
            at += line.len() + 1;
        }
        Ok(Header { lines })
    }

    /// The value of `key`'s line and the byte it starts at.
    fn get(&self, key: &str) -> Option<(&'a str, usize)> {
        self.lines.iter().find(|(k, _, _)| *k == key).map(|&(_, value, at)| (value, at))
    }

    fn settings(&self) -> Settings {
        let settings = self.lines.iter().filter(|(k, _, _)| *k == "setting");
        settings
            .map(|(_, value, _)| {
                let (flag, value) = value.split_once(' ').unwrap_or((value, ""));
                (flag.to_string(), value.to_string())
            })
            .collect()
    }
}

/// Every weight of `net` in file order.
fn weights(net: &FloatNetwork) -> impl Iterator<Item = f32> + '_ {
    let rows = net.hidden_weights.iter().chain(&net.hidden_bias).chain(&net.output_weights);
    rows.chain(&net.output_bias).copied()
}

/// Sets `net`'s weights from `values` in file order.
fn set_weights(net: &mut FloatNetwork, values: &[f32]) {
    let (rows, rest) = values.split_at(net.hidden_weights.len());
    let (bias, rest) = rest.split_at(net.hidden_bias.len());
    let (out, rest) = rest.split_at(net.output_weights.len());
    net.hidden_weights.copy_from_slice(rows);
    net.hidden_bias.copy_from_slice(bias);
    net.output_weights.copy_from_slice(out);
    if rest.len() == net.output_bias.len() {
        net.output_bias.copy_from_slice(rest);
    }
}

/// The 64-bit FNV-1a hash: cheap, and enough to notice damage.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// The settings line of a network or checkpoint given by `--init`: its
/// file name and the hash of its bytes.
pub fn describe_file(path: &Path, bytes: &[u8]) -> String {
    let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    format!("{name} ({} bytes, fnv {:016x})", bytes.len(), fnv1a(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::registry::Registry;
    use crate::training::train::TrainPlan;

    fn state(variant: &Variant, outputs: usize) -> TrainState {
        let plan = TrainPlan {
            hidden: 1,
            activation: Activation::ClippedRelu,
            epochs: 3,
            batch: 8,
            rate: 0.01,
            final_rate: 0.001,
            lambda: 0.0,
            validation: 0.1,
            threads: 1,
            seed: 5,
            shuffle: 10,
            mirror: false,
            // The bucketed state has the king mirror and two king buckets (the
            // first rank, the rest) too: their lines are read back and damaged.
            king_mirror: outputs > 1,
            king_buckets: if outputs > 1 { (0..32).map(|i| u8::from(i >= 4)).collect() } else { Vec::new() },
            weight_decay: 0.0,
            init: None,
            outputs: (outputs, 32),
        };
        let mut state = TrainState::new(variant, &plan, true);
        state.epoch = 2;
        state.adam.next_step();
        let _ = state.adam.moments(3, 0.25);
        state.net.header.train_command = "menagerie train --variant chess".to_string();
        state.best = Some(Best { epoch: 1, loss: 0.125, net: state.net.clone() });
        state.net.output_bias.iter_mut().enumerate().for_each(|(b, bias)| *bias = 0.5 + b as f32);
        state
    }

    #[test]
    fn a_checkpoint_reads_back_and_every_damage_is_a_one_line_error() {
        for outputs in [1, 3] {
            a_checkpoint_of_outputs_reads_back(outputs);
        }
    }

    fn a_checkpoint_of_outputs_reads_back(outputs: usize) {
        let chess = Registry::builtin().get("chess").expect("ships");
        let state = state(&chess, outputs);
        assert_eq!(state.net.output_bias.len(), outputs);
        assert_eq!(state.net.header.king_mirror, outputs > 1);
        assert_eq!(state.net.header.king_bucket_count(), if outputs > 1 { 2 } else { 1 });
        assert_eq!(state.net.inputs, state.net.header.king_bucket_count() * 768);
        let settings = vec![("--rate".to_string(), "0.01".to_string()), ("--mirror".to_string(), "no".to_string())];
        let bytes = write(&settings, &state);
        let back = read(&bytes, &chess).expect("reads back");
        // (Not assert_eq: the state's Debug is thousands of numbers.)
        assert!(back == Checkpoint { settings, state }, "the checkpoint reads back as written");
        let one_line = |e: &str| e.starts_with("byte ") && e.lines().count() == 1;
        for len in 0..bytes.len() {
            let e = read(&bytes[..len], &chess).expect_err("a cut file is refused");
            assert!(one_line(&e), "cut at {len}: {e}");
        }
        assert_eq!(
            read(&bytes[..bytes.len() - 1], &chess),
            Err(format!("byte {}: truncated ({} bytes expected)", bytes.len() - 1, bytes.len()))
        );
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x10;
            let e = read(&damaged, &chess).expect_err("a damaged file is refused");
            assert!(one_line(&e), "byte {at} changed: {e}");
        }
        let capablanca = Registry::builtin().get("capablanca").expect("ships");
        assert!(read(&bytes, &capablanca).is_err_and(|e| e.contains("the checkpoint is for pieces PNBRQK")));
    }

    #[test]
    fn a_resume_is_refused_at_the_first_setting_that_differs() {
        let setting = |f: &str, v: &str| (f.to_string(), v.to_string());
        let saved = vec![setting("--seed", "1"), setting("--rate", "0.003")];
        let path = Path::new("x.ckpt");
        assert_eq!(check_same_settings(path, &saved, &saved), Ok(()));
        let now = vec![setting("--seed", "1"), setting("--rate", "0.01")];
        assert_eq!(
            check_same_settings(path, &saved, &now),
            Err("x.ckpt: cannot resume: made with --rate 0.003, not --rate 0.01".to_string())
        );
        assert!(check_same_settings(path, &saved, &saved[..1]).is_err_and(|e| e.ends_with("not nothing")));
    }
}
