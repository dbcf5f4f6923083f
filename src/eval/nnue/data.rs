//! Training data: positions with the search's score and the game's result,
//! in a compact binary file. A file is one or more blocks; each block is a
//! text header (`menagerie-data 1`, then `key value` lines naming the
//! variant, its pieces and board, the command that made the block and the
//! number of positions, then `end`) followed by that many records. So shards
//! made on several machines concatenate (`cat a.data b.data > all.data`)
//! into one valid file.
//!
//! A record, little-endian:
//!
//! | bytes | what |
//! |---|---|
//! | 1 | bit 0: Black to move; bits 1-2: result for White (0 loss, 1 draw, 2 win) |
//! | 2 | score, White's view, centipawns (`i16`) |
//! | 1 | `M`, men on the board |
//! | 2 `M` | each man: square (`rank * files + file`), then `colour << 5 \| kind` |
//! | 1 | `H`, kinds in hand |
//! | 2 `H` | each: `colour << 5 \| kind`, then the count |
//!
//! About 70 bytes for a position of 32 men.

use super::features::FeatureSet;
use crate::board::position::{Place, Position};
use crate::rules::geometry::Square;
use crate::rules::piece::{Cell, Color, PieceKind};
use crate::rules::variant::Variant;

/// The first line of every block.
const MAGIC: &str = "menagerie-data 1";

/// What a block of positions is for and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataHeader {
    /// The variant's name.
    pub variant: String,
    /// Its piece letters in kind order.
    pub pieces: String,
    /// Its board, `FILESxRANKS`.
    pub board: String,
    /// The command that made the block.
    pub command: String,
    /// Records in the block.
    pub positions: usize,
}

impl DataHeader {
    /// A header for `positions` records of `variant` made by `command`.
    pub fn new(variant: &Variant, command: &str, positions: usize) -> DataHeader {
        DataHeader {
            variant: variant.name.clone(),
            pieces: super::network::piece_letters(variant),
            board: variant.shape.to_string(),
            command: command.replace(['\n', '\r'], " "),
            positions,
        }
    }
}

/// Why a data file cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DataError {
    /// Not a data block where one should start.
    #[error("byte {0}: not a menagerie data block (expected {MAGIC:?})")]
    BadMagic(usize),
    /// A header that cannot be read.
    #[error("byte {offset}: bad header: {message}")]
    BadHeader {
        /// Where the block starts.
        offset: usize,
        /// What is wrong.
        message: String,
    },
    /// A record that ends early or holds what the variant cannot.
    #[error("byte {offset}: bad record: {message}")]
    BadRecord {
        /// Where the record starts.
        offset: usize,
        /// What is wrong.
        message: String,
    },
    /// A block for another variant's pieces or board.
    #[error("block at byte {offset} is for pieces {pieces} on {board}, not {expected}")]
    WrongVariant {
        /// Where the block starts.
        offset: usize,
        /// The block's pieces.
        pieces: String,
        /// The block's board.
        board: String,
        /// What the variant has.
        expected: String,
    },
}

/// Appends the record of `pos` with `score` (White's view) and `result`
/// (White's points: 0, 0.5 or 1).
pub fn encode(pos: &Position, score: i32, result: f32, out: &mut Vec<u8>) {
    let files = u16::from(pos.variant().shape.files);
    let result_code: u8 = if result > 0.75 {
        2
    } else if result < 0.25 {
        0
    } else {
        1
    };
    out.push(u8::from(pos.side_to_move() == Color::Black) | result_code << 1);
    out.extend_from_slice(&(score.clamp(-32_000, 32_000) as i16).to_le_bytes());
    let men_at = out.len();
    out.push(0);
    let mut men = 0u8;
    for &sq in pos.squares() {
        let cell = pos.cell(sq);
        if cell.is_piece() {
            out.push((u16::from(sq.rank()) * files + u16::from(sq.file())) as u8);
            out.push(man_code(cell));
            men += 1;
        }
    }
    out[men_at] = men;
    let hand_at = out.len();
    out.push(0);
    let mut kinds_held = 0u8;
    for color in Color::ALL {
        for k in 0..pos.variant().kind_count() {
            let count = pos.hand_count(color, PieceKind(k as u8));
            if count > 0 {
                out.push(man_code(Cell::piece(color, PieceKind(k as u8))));
                out.push(count);
                kinds_held += 1;
            }
        }
    }
    out[hand_at] = kinds_held;
}

fn man_code(cell: Cell) -> u8 {
    (cell.color().index() as u8) << 5 | cell.kind().0
}

/// One record, checked against its variant when the file was read.
#[derive(Clone, Copy, Debug)]
pub struct Record<'a> {
    bytes: &'a [u8],
    files: u8,
}

impl<'a> Record<'a> {
    /// The side to move.
    pub fn side_to_move(&self) -> Color {
        if self.bytes[0] & 1 != 0 {
            Color::Black
        } else {
            Color::White
        }
    }
    /// The game's result for White: 0, 0.5 or 1.
    pub fn result(&self) -> f32 {
        f32::from(self.bytes[0] >> 1 & 3) / 2.0
    }
    /// The search's score, White's view, in centipawns.
    pub fn score(&self) -> i32 {
        i32::from(i16::from_le_bytes([self.bytes[1], self.bytes[2]]))
    }
    /// The men on the board.
    pub fn men(&self) -> impl Iterator<Item = (Square, Cell)> + 'a {
        let n = usize::from(self.bytes[3]);
        let files = self.files;
        self.bytes[4..4 + 2 * n].chunks_exact(2).map(move |b| {
            let sq = Square::from_coords(b[0] % files, b[0] / files);
            (sq, decode_man(b[1]))
        })
    }
    /// The position as FEN (castling and en passant left out: records do
    /// not keep them), to evaluate it otherwise than with a network.
    pub fn to_fen(&self, variant: &Variant) -> String {
        self.to_fen_mirrored(variant, false)
    }

    /// Like [`Record::to_fen`]; with `mirror`, of the position with the files
    /// reversed (as [`Record::active_mirrored`]).
    pub fn to_fen_mirrored(&self, variant: &Variant, mirror: bool) -> String {
        let (files, ranks) = (usize::from(variant.shape.files), usize::from(variant.shape.ranks));
        let mut board = vec![None; files * ranks];
        for (sq, cell) in self.men() {
            let file = if mirror { files - 1 - usize::from(sq.file()) } else { usize::from(sq.file()) };
            board[usize::from(sq.rank()) * files + file] = Some(cell);
        }
        let letter = |cell: Cell| {
            let l = variant.pieces[cell.kind().index()].letter;
            if cell.color() == Color::White {
                l.to_ascii_uppercase()
            } else {
                l.to_ascii_lowercase()
            }
        };
        let mut fen = String::new();
        for rank in (0..ranks).rev() {
            let mut empty = 0;
            for file in 0..files {
                match board[rank * files + file] {
                    Some(cell) => {
                        if empty > 0 {
                            fen.push_str(&empty.to_string());
                            empty = 0;
                        }
                        fen.push(letter(cell));
                    }
                    None => empty += 1,
                }
            }
            if empty > 0 {
                fen.push_str(&empty.to_string());
            }
            if rank > 0 {
                fen.push('/');
            }
        }
        if variant.hands {
            fen.push('[');
            for (cell, count) in self.hand() {
                (0..count).for_each(|_| fen.push(letter(cell)));
            }
            fen.push(']');
        }
        let side = if self.side_to_move() == Color::White { "w" } else { "b" };
        format!("{fen} {side} - - 0 1")
    }

    /// The men in hand: (man, count).
    pub fn hand(&self) -> impl Iterator<Item = (Cell, u8)> + 'a {
        let at = 4 + 2 * usize::from(self.bytes[3]);
        let n = usize::from(self.bytes[at]);
        self.bytes[at + 1..at + 1 + 2 * n].chunks_exact(2).map(|b| (decode_man(b[0]), b[1]))
    }
    /// Every active input for `perspective`, as [`FeatureSet::active`] gives them for the position.
    pub fn active(&self, features: &FeatureSet, perspective: Color, each: impl FnMut(usize)) {
        self.active_mirrored(features, perspective, false, each);
    }

    /// Like [`Record::active`]; with `mirror`, of the position with the
    /// files reversed (a-file men on the last file), which training may add
    /// as a second example of about the same value.
    pub fn active_mirrored(
        &self,
        features: &FeatureSet,
        perspective: Color,
        mirror: bool,
        mut each: impl FnMut(usize),
    ) {
        let last_file = self.files - 1;
        for (sq, cell) in self.men() {
            let sq = if mirror { Square::from_coords(last_file - sq.file(), sq.rank()) } else { sq };
            each(features.index(perspective, cell, Place::Board(sq)));
        }
        for (cell, count) in self.hand() {
            for n in 0..count {
                each(features.index(perspective, cell, Place::Hand(n)));
            }
        }
    }
}

fn decode_man(code: u8) -> Cell {
    let color = if code >> 5 & 1 != 0 { Color::Black } else { Color::White };
    Cell::piece(color, PieceKind(code & 31))
}

/// The bytes of one block: its header and the records.
pub fn write_block(header: &DataHeader, records: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "{MAGIC}\nvariant {}\npieces {}\nboard {}\ncommand {}\npositions {}\nend\n",
        header.variant, header.pieces, header.board, header.command, header.positions
    )
    .into_bytes();
    out.extend_from_slice(records);
    out
}

/// A data file read whole: its blocks' headers and every record.
#[derive(Clone, Debug)]
pub struct DataSet {
    bytes: Vec<u8>,
    starts: Vec<usize>,
    files: u8,
    /// The headers of the blocks, in file order.
    pub headers: Vec<DataHeader>,
}

impl DataSet {
    /// Reads a file's bytes for `variant`: every block must be for its
    /// pieces and board, and every record must fit them.
    pub fn read(bytes: Vec<u8>, variant: &Variant) -> Result<DataSet, DataError> {
        let squares = usize::from(variant.shape.files) * usize::from(variant.shape.ranks);
        let kinds = variant.kind_count();
        let (pieces, board) = (super::network::piece_letters(variant), variant.shape.to_string());
        let mut starts = Vec::new();
        let mut headers = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let (header, body) = read_header(&bytes, at)?;
            if header.pieces != pieces || header.board != board {
                return Err(DataError::WrongVariant {
                    offset: at,
                    pieces: header.pieces,
                    board: header.board,
                    expected: format!("{pieces} on {board}"),
                });
            }
            at = body;
            for _ in 0..header.positions {
                starts.push(at);
                at += check_record(&bytes, at, squares, kinds)?;
            }
            headers.push(header);
        }
        Ok(DataSet { bytes, starts, files: variant.shape.files, headers })
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// True when there is no record.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Record `i`.
    pub fn record(&self, i: usize) -> Record<'_> {
        Record { bytes: &self.bytes[self.starts[i]..], files: self.files }
    }
}

/// The variant named by the first block of a data file (to know which
/// variant to read the whole file for).
pub fn first_variant(bytes: &[u8]) -> Result<String, DataError> {
    read_header(bytes, 0).map(|(header, _)| header.variant)
}

/// True when `bytes` start like a data file.
pub fn is_data(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC.as_bytes())
}

/// The header at `at` and where its records start.
fn read_header(bytes: &[u8], at: usize) -> Result<(DataHeader, usize), DataError> {
    if !bytes[at..].starts_with(MAGIC.as_bytes()) {
        return Err(DataError::BadMagic(at));
    }
    let bad = |message: String| DataError::BadHeader { offset: at, message };
    let window = &bytes[at..bytes.len().min(at + 64 * 1024)];
    let end = window.windows(5).position(|w| w == b"\nend\n").ok_or_else(|| bad("no end line".to_string()))?;
    let text = std::str::from_utf8(&window[..end]).map_err(|_| bad("not text".to_string()))?;
    let field = |key: &str| {
        text.lines().skip(1).find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(' '))).map(str::to_string)
    };
    let need = |key: &str| field(key).ok_or_else(|| bad(format!("no {key:?} line")));
    let positions = need("positions")?;
    let header = DataHeader {
        variant: need("variant")?,
        pieces: need("pieces")?,
        board: need("board")?,
        command: field("command").unwrap_or_default(),
        positions: positions.parse().map_err(|_| bad(format!("positions {positions:?}")))?,
    };
    Ok((header, at + end + "\nend\n".len()))
}

/// The length of the record at `at`, once it is known to fit the variant.
fn check_record(bytes: &[u8], at: usize, squares: usize, kinds: usize) -> Result<usize, DataError> {
    let bad = |message: String| DataError::BadRecord { offset: at, message };
    let rest = &bytes[at..];
    let byte = |i: usize| rest.get(i).copied().ok_or_else(|| bad("ends early".to_string()));
    if byte(0)? >> 1 > 2 {
        return Err(bad(format!("result code {}", byte(0)? >> 1)));
    }
    let men = usize::from(byte(3)?);
    for i in 0..men {
        let (sq, man) = (usize::from(byte(4 + 2 * i)?), byte(5 + 2 * i)?);
        if sq >= squares || usize::from(man & 31) >= kinds || man >> 6 != 0 {
            return Err(bad(format!("man {man} on square {sq}")));
        }
    }
    let hand_at = 4 + 2 * men;
    let held = usize::from(byte(hand_at)?);
    for i in 0..held {
        let man = byte(hand_at + 1 + 2 * i)?;
        byte(hand_at + 2 + 2 * i)?;
        if usize::from(man & 31) >= kinds || man >> 6 != 0 {
            return Err(bad(format!("man {man} in hand")));
        }
    }
    Ok(hand_at + 1 + 2 * held)
}
