//! `NAME.nnue` files: a text header of `key value` lines that says what the
//! network is for and how it was made, an `end` line, then the quantized
//! weights as little-endian integers (hidden weights and biases `i16`,
//! output weights `i16`, output biases `i32`). A network with output
//! buckets says so in an `outputs BUCKETS MEN` line (none: one output),
//! one whose inputs use the king mirror in a `transform king-mirror` line
//! (none: the plain inputs), one with king buckets in a `king-buckets
//! B0,B1,...` line: a bucket per square of the left half (which implies
//! the king mirror) or of the whole board, rank by rank from the
//! perspective's first, files from the a-file (none: one bucket).
//!
//! ```text
//! menagerie-nnue 1
//! variant capablanca
//! pieces PNBRQKAC
//! board 10x8
//! hands no
//! hidden 256
//! activation screlu
//! base none
//! inputs 1280
//! data menagerie datagen --variant capablanca ...
//! train menagerie train --variant capablanca ...
//! end
//! ```

use super::features::{parse_king_buckets, write_king_buckets};
use super::network::{parse_board, Activation, Network, NetworkHeader, MAX_HIDDEN, MAX_OUTPUTS};

/// The first line of every network file.
const MAGIC: &str = "menagerie-nnue 1";
/// Longest header accepted, in bytes.
const MAX_HEADER: usize = 64 * 1024;

/// Why a network file cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NetworkError {
    /// Not a menagerie network.
    #[error("not a menagerie network file (it must start with {MAGIC:?})")]
    BadMagic,
    /// A header line that cannot be read.
    #[error("bad header line {0:?}")]
    BadHeader(String),
    /// A header field that is missing.
    #[error("the header has no {0:?} line")]
    MissingField(&'static str),
    /// Fewer weights than the header promises.
    #[error("truncated: {expected} bytes of weights expected, {found} found")]
    Truncated {
        /// Bytes the header promises.
        expected: usize,
        /// Bytes present.
        found: usize,
    },
    /// More bytes than the header promises.
    #[error("{0} bytes after the weights")]
    TrailingBytes(usize),
    /// A network for another piece set or board.
    #[error("{0}")]
    WrongVariant(String),
}

/// The file's bytes for `net`.
pub fn write(net: &Network) -> Vec<u8> {
    let h = &net.header;
    let mut text = String::new();
    let mut line = |key: &str, value: &str| {
        text.push_str(key);
        text.push(' ');
        // A command never spans lines in the header.
        text.push_str(&value.replace(['\n', '\r'], " "));
        text.push('\n');
    };
    line("variant", &h.variant);
    line("pieces", &h.pieces);
    line("board", &h.board);
    line("hands", if h.hands { "yes" } else { "no" });
    line("hidden", &h.hidden.to_string());
    line("activation", h.activation.name());
    line("base", if h.linear_base { "linear" } else { "none" });
    line("inputs", &net.inputs.to_string());
    if h.king_mirror {
        line("transform", "king-mirror");
    }
    if !h.king_buckets.is_empty() {
        line("king-buckets", &write_king_buckets(&h.king_buckets));
    }
    if h.outputs > 1 {
        line("outputs", &format!("{} {}", h.outputs, h.outputs_men));
    }
    line("data", &h.data_command);
    line("train", &h.train_command);
    let mut bytes = format!("{MAGIC}\n{text}end\n").into_bytes();
    for w in net.hidden_weights.iter().chain(&net.hidden_bias).chain(&net.output_weights) {
        bytes.extend_from_slice(&w.to_le_bytes());
    }
    for b in &net.output_bias {
        bytes.extend_from_slice(&b.to_le_bytes());
    }
    bytes
}

/// Reads a network file's bytes.
pub fn read(bytes: &[u8]) -> Result<Network, NetworkError> {
    let end = find_header_end(bytes)?;
    let text = std::str::from_utf8(&bytes[..end]).map_err(|_| NetworkError::BadMagic)?;
    let mut lines = text.lines();
    if lines.next() != Some(MAGIC) {
        return Err(NetworkError::BadMagic);
    }
    let mut fields: Vec<(&str, &str)> = Vec::new();
    for l in lines {
        let (key, value) = l.split_once(' ').unwrap_or((l, ""));
        if key.is_empty() {
            return Err(NetworkError::BadHeader(l.to_string()));
        }
        fields.push((key, value.trim()));
    }
    let field = |key: &'static str| {
        fields.iter().find(|(k, _)| *k == key).map(|(_, v)| *v).ok_or(NetworkError::MissingField(key))
    };
    let number = |key: &'static str| -> Result<usize, NetworkError> {
        let v = field(key)?;
        v.parse().map_err(|_| NetworkError::BadHeader(format!("{key} {v}")))
    };
    let hidden = number("hidden")?;
    if hidden == 0 || hidden > MAX_HIDDEN {
        return Err(NetworkError::BadHeader(format!("hidden {hidden} (1 to {MAX_HIDDEN})")));
    }
    let inputs = number("inputs")?;
    let activation = field("activation")?;
    // Networks without an `outputs` line have one output.
    let (outputs, outputs_men) = match field("outputs") {
        Err(_) => (1, 0),
        Ok(v) => {
            let bad =
                || NetworkError::BadHeader(format!("outputs {v} (BUCKETS MEN: 2 to {MAX_OUTPUTS}, then 1 or more)"));
            let (n, men) = v.split_once(' ').ok_or_else(bad)?;
            match (n.parse::<usize>(), men.trim().parse::<usize>()) {
                (Ok(n), Ok(men)) if (2..=MAX_OUTPUTS).contains(&n) && men >= 1 => (n, men),
                _ => return Err(bad()),
            }
        }
    };
    // Networks without a `king-buckets` line have one bucket; the layout's
    // length is checked against the header's board (and the variant's, by `check_fits`).
    let king_buckets = match field("king-buckets") {
        Err(_) => Vec::new(),
        Ok(v) => {
            let board = field("board")?;
            let (files, ranks) = parse_board(board).ok_or_else(|| NetworkError::BadHeader(format!("board {board}")))?;
            parse_king_buckets(v, files, ranks)
                .map_err(|why| NetworkError::BadHeader(format!("king-buckets: {why}")))?
        }
    };
    let header = NetworkHeader {
        variant: field("variant")?.to_string(),
        pieces: field("pieces")?.to_string(),
        board: field("board")?.to_string(),
        hands: match field("hands")? {
            "yes" => true,
            "no" => false,
            other => return Err(NetworkError::BadHeader(format!("hands {other}"))),
        },
        hidden,
        // Networks without a `transform` line have the plain inputs.
        king_mirror: match field("transform").unwrap_or("none") {
            "none" => false,
            "king-mirror" => true,
            other => return Err(NetworkError::BadHeader(format!("transform {other} (none or king-mirror)"))),
        },
        king_buckets,
        activation: Activation::from_name(activation)
            .ok_or_else(|| NetworkError::BadHeader(format!("activation {activation}")))?,
        // Networks written before `base` existed score alone.
        linear_base: match field("base").unwrap_or("none") {
            "none" => false,
            "linear" => true,
            other => return Err(NetworkError::BadHeader(format!("base {other}"))),
        },
        outputs,
        outputs_men,
        data_command: field("data").unwrap_or("").to_string(),
        train_command: field("train").unwrap_or("").to_string(),
    };
    let body = &bytes[end + "end\n".len()..];
    let count16 = inputs
        .checked_mul(hidden)
        .and_then(|n| n.checked_add(hidden + 2 * hidden * outputs))
        .ok_or(NetworkError::BadHeader(format!("inputs {inputs}")))?;
    let expected = 2 * count16 + 4 * outputs;
    if body.len() < expected {
        return Err(NetworkError::Truncated { expected, found: body.len() });
    }
    if body.len() > expected {
        return Err(NetworkError::TrailingBytes(body.len() - expected));
    }
    let mut words = body.chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]]));
    let mut take = |n: usize| words.by_ref().take(n).collect::<Vec<i16>>();
    let hidden_weights = take(inputs * hidden);
    let hidden_bias = take(hidden);
    let output_weights = take(2 * hidden * outputs);
    let output_bias =
        body[2 * count16..].chunks_exact(4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    Ok(Network::new(header, inputs, hidden_weights, hidden_bias, output_weights, output_bias))
}

/// Where the `end` line starts.
fn find_header_end(bytes: &[u8]) -> Result<usize, NetworkError> {
    if !bytes.starts_with(MAGIC.as_bytes()) {
        return Err(NetworkError::BadMagic);
    }
    let window = &bytes[..bytes.len().min(MAX_HEADER)];
    window.windows(5).position(|w| w == b"\nend\n").map(|i| i + 1).ok_or(NetworkError::MissingField("end"))
}
