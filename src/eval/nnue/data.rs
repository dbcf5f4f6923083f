//! Training data: positions with the search's score and the game's result,
//! in a compact binary file. A file is one or more blocks; each block is a
//! text header (`menagerie-data 1`, then `key value` lines naming the
//! variant, its pieces and board, the command that made the block and the
//! number of positions, optionally the `settings` that played the games,
//! then `end`) followed by that many records. So shards
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

use std::sync::Arc;

use super::features::FeatureSet;
use std::io::BufRead;

use super::games::{result_code, Filter, Game, Ply, GAME_FIXED, GAME_TAG, PLY_BYTES};
use crate::board::fen::{FenError, FenFields};
use crate::board::position::{Place, Position};
use crate::rules::geometry::Square;
use crate::rules::piece::{Cell, Color, PieceKind};
use crate::rules::variant::Variant;

/// The first line of a block of records.
pub const MAGIC: &str = "menagerie-data 1";
/// The first line of a block of games ([`super::games`]).
pub const GAMES_MAGIC: &str = "menagerie-games 1";

/// What a block holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockKind {
    /// `positions` records.
    Records,
    /// Games, each self-delimiting, up to the next block or the end.
    Games,
}

/// What a block of positions is for and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataHeader {
    /// Records or games.
    pub kind: BlockKind,
    /// The variant's name.
    pub variant: String,
    /// Its piece letters in kind order.
    pub pieces: String,
    /// Its board, `FILESxRANKS`.
    pub board: String,
    /// The command that made the block.
    pub command: String,
    /// Records in the block (0 for a game block: its games need no count).
    pub positions: usize,
    /// The self-play settings that played the games, where the maker keeps
    /// them (the tuner does, to refuse a file made otherwise); a `settings`
    /// line, which older files lack and older readers skip.
    pub settings: Option<String>,
}

impl DataHeader {
    /// A header for `positions` records of `variant` made by `command`.
    pub fn new(variant: &Variant, command: &str, positions: usize) -> DataHeader {
        DataHeader {
            kind: BlockKind::Records,
            variant: variant.name.clone(),
            pieces: super::network::piece_letters(variant),
            board: variant.shape.to_string(),
            command: command.replace(['\n', '\r'], " "),
            positions,
            settings: None,
        }
    }

    /// A header for a block of games of `variant` made by `command`.
    pub fn games(variant: &Variant, command: &str) -> DataHeader {
        DataHeader { kind: BlockKind::Games, ..DataHeader::new(variant, command, 0) }
    }

    /// The header with the settings that played the games.
    pub fn with_settings(self, settings: &str) -> DataHeader {
        DataHeader { settings: Some(settings.replace(['\n', '\r'], " ")), ..self }
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
    /// A game that ends early or does not replay.
    #[error("byte {offset}: bad game: {message}")]
    BadGame {
        /// Where the game, or its bad ply, starts.
        offset: usize,
        /// What is wrong.
        message: String,
    },
    /// The file could not be read on.
    #[error("byte {offset}: cannot read: {message}")]
    Io {
        /// How far it was read.
        offset: usize,
        /// The system's message.
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

impl DataError {
    /// The error with its record offset counted from `at` (a record checked on its own).
    pub(crate) fn moved_by(self, at: usize) -> DataError {
        match self {
            DataError::BadRecord { offset, message } => DataError::BadRecord { offset: offset + at, message },
            other => other,
        }
    }
}

/// Appends the record of `pos` with `score` (White's view) and `result`
/// (White's points: 0, 0.5 or 1).
pub fn encode(pos: &Position, score: i32, result: f32, out: &mut Vec<u8>) {
    let files = u16::from(pos.variant().shape.files);
    out.push(u8::from(pos.side_to_move() == Color::Black) | result_code(result) << 1);
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

/// The length of the (well-formed) record at the start of `bytes`.
fn record_length(bytes: &[u8]) -> usize {
    let hand_at = 4 + 2 * usize::from(bytes[3]);
    hand_at + 1 + 2 * usize::from(bytes[hand_at])
}

/// Records as they are made: the body of a block and how many records it holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Records {
    bytes: Vec<u8>,
    count: usize,
}

impl Records {
    /// No records.
    pub fn new() -> Records {
        Records::default()
    }

    /// Appends the record of `pos` with `score` (White's view) and `result`
    /// (White's points: 0, 0.5 or 1).
    pub fn push(&mut self, pos: &Position, score: i32, result: f32) {
        encode(pos, score, result, &mut self.bytes);
        self.count += 1;
    }

    /// Gives every record the same result: a game's, known at its end.
    pub fn set_results(&mut self, result: f32) {
        let mut at = 0;
        while at < self.bytes.len() {
            self.bytes[at] = self.bytes[at] & 1 | result_code(result) << 1;
            at += record_length(&self.bytes[at..]);
        }
    }

    /// Appends `other`'s records after these.
    pub fn append(&mut self, other: &Records) {
        self.bytes.extend_from_slice(&other.bytes);
        self.count += other.count;
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.count
    }

    /// True when there is no record.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The records' bytes, the body of a block ([`write_block`]).
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
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
    /// The record at the start of `bytes` (checked bytes: [`check_record`]), on a board of `files` files.
    pub(crate) fn new(bytes: &'a [u8], files: u8) -> Record<'a> {
        Record { bytes, files }
    }

    /// The record's own bytes.
    pub fn as_bytes(&self) -> &'a [u8] {
        &self.bytes[..record_length(self.bytes)]
    }

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
    /// The position (castling rights, en passant and the clocks left out:
    /// records do not keep them), checked by the rules as a FEN would be;
    /// with `mirror`, the position with the files reversed (as
    /// [`Record::active_mirrored`]).
    pub fn position(&self, variant: &Arc<Variant>, mirror: bool) -> Result<Position, FenError> {
        let last_file = self.files - 1;
        let men = self
            .men()
            .map(|(sq, cell)| (if mirror { Square::from_coords(last_file - sq.file(), sq.rank()) } else { sq }, cell))
            .collect();
        let hand: Vec<(Color, PieceKind)> = self
            .hand()
            .flat_map(|(cell, count)| std::iter::repeat_n((cell.color(), cell.kind()), usize::from(count)))
            .collect();
        let holdings =
            variant.hands.then(|| hand.iter().map(|&(c, k)| variant.cell_letter(Cell::piece(c, k))).collect());
        let fields = FenFields {
            men,
            holdings,
            hand,
            side: self.side_to_move(),
            castling: "-".to_string(),
            en_passant: None,
            halfmove: 0,
            fullmove: 1,
            setup_pending: None,
        };
        Position::from_fields(Arc::clone(variant), &fields)
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
        let placed = |sq: Square| if mirror { Square::from_coords(last_file - sq.file(), sq.rank()) } else { sq };
        // The king is the perspective's man of the royal kind, as `Position::king_square` has it.
        let king = features.views_vary().then(|| self.king(features, perspective).map(placed)).flatten();
        let view = features.view(perspective, king);
        for (sq, cell) in self.men() {
            each(features.index(perspective, view, cell, Place::Board(placed(sq))));
        }
        for (cell, count) in self.hand() {
            for n in 0..count {
                each(features.index(perspective, view, cell, Place::Hand(n)));
            }
        }
    }

    /// The square of `color`'s man of the royal kind, if it has one on the board.
    fn king(&self, features: &FeatureSet, color: Color) -> Option<Square> {
        let royal = features.royal()?;
        self.men().find(|(_, cell)| cell.kind() == royal && cell.color() == color).map(|(sq, _)| sq)
    }
}

fn decode_man(code: u8) -> Cell {
    let color = if code >> 5 & 1 != 0 { Color::Black } else { Color::White };
    Cell::piece(color, PieceKind(code & 31))
}

/// The bytes of one block: its header and the records.
pub fn write_block(header: &DataHeader, records: &[u8]) -> Vec<u8> {
    let mut out = header_text(header).into_bytes();
    out.extend_from_slice(records);
    out
}

/// The header's text, up to its `end` line: a game block's has no count.
pub fn header_text(header: &DataHeader) -> String {
    let settings = header.settings.as_ref().map_or_else(String::new, |s| format!("settings {s}\n"));
    let (magic, count) = match header.kind {
        BlockKind::Records => (MAGIC, format!("positions {}\n", header.positions)),
        BlockKind::Games => (GAMES_MAGIC, String::new()),
    };
    format!(
        "{magic}\nvariant {}\npieces {}\nboard {}\ncommand {}\n{settings}{count}end\n",
        header.variant, header.pieces, header.board, header.command
    )
}

/// A data file read whole: its blocks' headers and every position, records
/// as they are and the positions of games that the default [`Filter`] keeps.
#[derive(Clone, Debug)]
pub struct DataSet {
    bytes: Vec<u8>,
    starts: Vec<usize>,
    groups: Vec<u64>,
    files: u8,
    /// The headers of the blocks, in file order.
    pub headers: Vec<DataHeader>,
    /// Games read from game blocks.
    pub games: usize,
    /// Positions read from record blocks (the rest come from games).
    pub records: usize,
}

impl DataSet {
    /// Reads a file's bytes for `variant`: every block must be for its
    /// pieces and board, and every record and game must fit them.
    pub fn read(bytes: Vec<u8>, variant: &Arc<Variant>) -> Result<DataSet, DataError> {
        let mut set = DataSet {
            bytes: Vec::new(),
            starts: Vec::new(),
            groups: Vec::new(),
            files: variant.shape.files,
            headers: Vec::new(),
            games: 0,
            records: 0,
        };
        PositionReader::new(variant, Filter::default()).read(&bytes[..], &mut |item| match item {
            Item::Block(header) => set.headers.push(header.clone()),
            Item::Game(_) => set.games += 1,
            Item::Position(record, group) => {
                if set.headers.last().is_some_and(|h| h.kind == BlockKind::Records) {
                    set.records += 1;
                }
                set.starts.push(set.bytes.len());
                set.groups.push(group);
                set.bytes.extend_from_slice(record.as_bytes());
            }
        })?;
        Ok(set)
    }

    /// Number of positions.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// True when there is no position.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }

    /// Position `i`.
    pub fn record(&self, i: usize) -> Record<'_> {
        Record { bytes: &self.bytes[self.starts[i]..], files: self.files }
    }

    /// The group of position `i` (see [`PositionReader`]).
    pub fn group(&self, i: usize) -> u64 {
        self.groups[i]
    }
}

/// The variant named by the first block of a data file (to know which
/// variant to read the whole file for).
pub fn first_variant(bytes: &[u8]) -> Result<String, DataError> {
    first_header(bytes).map(|header| header.variant)
}

/// True when `bytes` start like a data file.
pub fn is_data(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC.as_bytes()) || bytes.starts_with(GAMES_MAGIC.as_bytes())
}

/// The length of the record at `at`, once it is known to fit the variant.
pub(crate) fn check_record(bytes: &[u8], at: usize, squares: usize, kinds: usize) -> Result<usize, DataError> {
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

// Reading training data as a stream: block by block, record by record and
// game by game, so a file of any size reads in bounded memory. Record
// blocks give their records; game blocks replay each game and give the
// positions a [`Filter`] keeps, as records. Every position comes with its
// group: the game's number for a game, the record's place in the stream
// over [`RECORD_GROUP`] records for a record block (records come game by
// game), so a split by group keeps (nearly) whole games together.

/// Consecutive records of a record block that share a group.
pub const RECORD_GROUP: u64 = 16;
/// The bit that sets record groups apart from game numbers.
const RECORD_BIT: u64 = 1 << 63;
/// The longest header read.
const HEADER_LIMIT: u64 = 64 * 1024;

/// What the reader meets, in file order.
pub enum Item<'a> {
    /// A block starts.
    Block(&'a DataHeader),
    /// A game of a game block, read whole; its positions follow.
    Game(&'a Game),
    /// A training position and its group.
    Position(Record<'a>, u64),
}

/// Bytes with their offset in the stream.
struct Input<R> {
    inner: R,
    offset: usize,
    buf: Vec<u8>,
}

impl<R: BufRead> Input<R> {
    /// The next byte, not consumed; None at the end.
    fn peek(&mut self) -> Result<Option<u8>, DataError> {
        let at = self.offset;
        let buf = self.inner.fill_buf().map_err(|e| DataError::Io { offset: at, message: e.to_string() })?;
        Ok(buf.first().copied())
    }

    /// Appends the next `n` bytes to `self.buf`; false when the stream ends first.
    fn take(&mut self, n: usize) -> Result<bool, DataError> {
        let start = self.buf.len();
        self.buf.resize(start + n, 0);
        let mut filled = start;
        while filled < start + n {
            match self.inner.read(&mut self.buf[filled..]) {
                Ok(0) => break,
                Ok(k) => filled += k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(DataError::Io { offset: self.offset, message: e.to_string() }),
            }
        }
        self.offset += filled - start;
        self.buf.truncate(filled);
        Ok(filled == start + n)
    }

    /// The next line (without its newline), at most `limit` bytes; None at the end.
    fn line(&mut self, limit: u64) -> Result<Option<Vec<u8>>, DataError> {
        let mut line = Vec::new();
        let at = self.offset;
        let read = std::io::Read::take(&mut self.inner, limit)
            .read_until(b'\n', &mut line)
            .map_err(|e| DataError::Io { offset: at, message: e.to_string() })?;
        self.offset += read;
        if read == 0 {
            return Ok(None);
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        Ok(Some(line))
    }
}

/// Reads data files of one variant as a stream of positions.
pub struct PositionReader {
    variant: Arc<Variant>,
    filter: Filter,
    records_seen: u64,
    pieces: String,
    board: String,
    squares: usize,
    kinds: usize,
    record: Vec<u8>,
}

impl PositionReader {
    /// A reader for `variant`'s data, keeping the plies of games that `filter` keeps.
    pub fn new(variant: &Arc<Variant>, filter: Filter) -> PositionReader {
        PositionReader {
            variant: Arc::clone(variant),
            filter,
            records_seen: 0,
            pieces: super::network::piece_letters(variant),
            board: variant.shape.to_string(),
            squares: usize::from(variant.shape.files) * usize::from(variant.shape.ranks),
            kinds: variant.kind_count(),
            record: Vec::new(),
        }
    }

    /// Reads one file (or any stream of blocks) through, telling `visit`
    /// each block, game and position; the first damage is the error, with
    /// its byte offset in this input. Record groups count on from the
    /// inputs read before, so reading files one after the other groups
    /// as reading them concatenated.
    pub fn read(&mut self, input: impl BufRead, visit: &mut dyn FnMut(Item<'_>)) -> Result<(), DataError> {
        let mut input = Input { inner: input, offset: 0, buf: Vec::new() };
        while input.peek()?.is_some() {
            let block_at = input.offset;
            let header = read_header(&mut input)?;
            if header.pieces != self.pieces || header.board != self.board {
                return Err(DataError::WrongVariant {
                    offset: block_at,
                    pieces: header.pieces,
                    board: header.board,
                    expected: format!("{} on {}", self.pieces, self.board),
                });
            }
            visit(Item::Block(&header));
            match header.kind {
                BlockKind::Records => self.read_records(&mut input, header.positions, visit)?,
                BlockKind::Games => self.read_games(&mut input, visit)?,
            }
        }
        Ok(())
    }

    fn read_records<R: BufRead>(
        &mut self,
        input: &mut Input<R>,
        count: usize,
        visit: &mut dyn FnMut(Item<'_>),
    ) -> Result<(), DataError> {
        for _ in 0..count {
            let at = input.offset;
            input.buf.clear();
            let ends_early = || DataError::BadRecord { offset: at, message: "ends early".to_string() };
            if !input.take(4)? {
                return Err(ends_early());
            }
            let men = usize::from(input.buf[3]);
            if !input.take(2 * men + 1)? {
                return Err(ends_early());
            }
            let held = usize::from(input.buf[4 + 2 * men]);
            if !input.take(2 * held)? {
                return Err(ends_early());
            }
            check_record(&input.buf, 0, self.squares, self.kinds).map_err(|e| e.moved_by(at))?;
            let group = RECORD_BIT | (self.records_seen / RECORD_GROUP);
            self.records_seen += 1;
            visit(Item::Position(Record::new(&input.buf, self.variant.shape.files), group));
        }
        Ok(())
    }

    fn read_games<R: BufRead>(
        &mut self,
        input: &mut Input<R>,
        visit: &mut dyn FnMut(Item<'_>),
    ) -> Result<(), DataError> {
        loop {
            match input.peek()? {
                None | Some(b'm') => return Ok(()),
                Some(GAME_TAG) => {}
                Some(byte) => {
                    let message = format!("byte {byte:#04x} where a game or a block should start");
                    return Err(DataError::BadGame { offset: input.offset, message });
                }
            }
            let at = input.offset;
            let game = read_game(input, at)?;
            visit(Item::Game(&game));
            let (filter, files, result) = (self.filter, self.variant.shape.files, game.white_points());
            let record = &mut self.record;
            let fen_len = game.start.as_ref().map_or(0, String::len);
            game.replay(&self.variant, |pos, number, ply, m| {
                if let Some(cp) = filter.keep(pos, number, ply, m) {
                    record.clear();
                    encode(pos, cp, result, record);
                    visit(Item::Position(Record::new(record, files), u64::from(game.number)));
                }
            })
            .map_err(|(ply, message)| DataError::BadGame {
                offset: ply.map_or(at, |p| at + GAME_FIXED + fen_len + 2 + p * PLY_BYTES),
                message,
            })?;
        }
    }
}

/// The game at `at` (its bytes read, not yet replayed).
fn read_game<R: BufRead>(input: &mut Input<R>, at: usize) -> Result<Game, DataError> {
    let bad = |message: &str| DataError::BadGame { offset: at, message: message.to_string() };
    input.buf.clear();
    if !input.take(GAME_FIXED)? {
        return Err(bad("ends early"));
    }
    let b = &input.buf;
    let number = u32::from_le_bytes([b[1], b[2], b[3], b[4]]);
    let result = b[5];
    let fen_len = usize::from(u16::from_le_bytes([b[6], b[7]]));
    if result > 2 {
        return Err(bad(&format!("result code {result}")));
    }
    input.buf.clear();
    if !input.take(fen_len + 2)? {
        return Err(bad("ends early"));
    }
    let start = match fen_len {
        0 => None,
        _ => Some(String::from_utf8(input.buf[..fen_len].to_vec()).map_err(|_| bad("start FEN not text"))?),
    };
    let plies = usize::from(u16::from_le_bytes([input.buf[fen_len], input.buf[fen_len + 1]]));
    input.buf.clear();
    if !input.take(plies * PLY_BYTES)? {
        return Err(bad("ends early"));
    }
    let mut game = Game { number, result, start, plies: Vec::with_capacity(plies) };
    for (i, bytes) in input.buf.chunks_exact(PLY_BYTES).enumerate() {
        let ply = Ply::decode([bytes[0], bytes[1], bytes[2], bytes[3]])
            .ok_or_else(|| bad(&format!("ply {i}: unknown score kind")))?;
        game.plies.push(ply);
    }
    Ok(game)
}

/// The header at the stream's place, read up to its `end` line.
fn read_header<R: BufRead>(input: &mut Input<R>) -> Result<DataHeader, DataError> {
    let at = input.offset;
    let first = input.line(MAGIC.len().max(GAMES_MAGIC.len()) as u64 + 1)?.unwrap_or_default();
    let kind = match &first[..] {
        l if l == MAGIC.as_bytes() => BlockKind::Records,
        l if l == GAMES_MAGIC.as_bytes() => BlockKind::Games,
        _ => return Err(DataError::BadMagic(at)),
    };
    let bad = |message: String| DataError::BadHeader { offset: at, message };
    let mut lines = Vec::new();
    loop {
        let left = HEADER_LIMIT.saturating_sub((input.offset - at) as u64);
        let line = input.line(left)?.ok_or_else(|| bad("no end line".to_string()))?;
        let line = String::from_utf8(line).map_err(|_| bad("not text".to_string()))?;
        if line == "end" {
            break;
        }
        if left == 0 {
            return Err(bad("no end line".to_string()));
        }
        lines.push(line);
    }
    let field = |key: &str| {
        lines.iter().find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix(' '))).map(str::to_string)
    };
    let need = |key: &str| field(key).ok_or_else(|| bad(format!("no {key:?} line")));
    let positions = match kind {
        BlockKind::Records => {
            let text = need("positions")?;
            text.parse().map_err(|_| bad(format!("positions {text:?}")))?
        }
        BlockKind::Games => 0,
    };
    Ok(DataHeader {
        kind,
        variant: need("variant")?,
        pieces: need("pieces")?,
        board: need("board")?,
        command: field("command").unwrap_or_default(),
        positions,
        settings: field("settings"),
    })
}

/// The header of the first block of `bytes`.
fn first_header(bytes: &[u8]) -> Result<DataHeader, DataError> {
    read_header(&mut Input { inner: bytes, offset: 0, buf: Vec::new() })
}
