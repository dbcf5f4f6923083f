//! Reading training data as a stream: block by block, record by record and
//! game by game, so a file of any size reads in bounded memory. Record
//! blocks give their records; game blocks replay each game and give the
//! positions a [`Filter`] keeps, as records. Every position comes with its
//! group: the game's number for a game, the record's place in the stream
//! over [`RECORD_GROUP`] records for a record block (records come game by
//! game), so a split by group keeps (nearly) whole games together.

use std::io::BufRead;
use std::sync::Arc;

use super::data::{check_record, encode, BlockKind, DataError, DataHeader, Record, GAMES_MAGIC, MAGIC};
use super::games::{Filter, Game, Ply, GAME_FIXED, GAME_TAG, PLY_BYTES};
use crate::rules::variant::Variant;

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
pub fn first_header(bytes: &[u8]) -> Result<DataHeader, DataError> {
    read_header(&mut Input { inner: bytes, offset: 0, buf: Vec::new() })
}
