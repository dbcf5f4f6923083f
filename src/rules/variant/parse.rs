//! The hand-written `.var` parser: one `directive args...` per line, `#`
//! comments, `inherit NAME` to start from another variant. Each directive has
//! its own small handler, listed in [`DIRECTIVES`]. Every error names its
//! file, line and column and carries a [`VariantErrorKind`]; `check` reports
//! all of them, not just the first.

use std::collections::HashMap;
use std::fmt;

use super::{CastlingRule, DeadMen, DeadRule, EndRules, PieceDef, SetupRule};
use crate::rules::betza;
use crate::rules::geometry::{BoardShape, MAX_BOARD_SIDE};
use crate::rules::piece::{ByColor, Color, PieceKind, MAX_KINDS};

/// The class of a [`VariantError`], for callers that must tell errors apart
/// (the message is for people).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VariantErrorKind {
    /// The file or directory cannot be read.
    Unreadable,
    /// A line starts with a word that is no directive.
    UnknownDirective,
    /// `inherit` without a name, with an unknown name, or nested too deeply.
    Inherit,
    /// A directive's arguments do not fit its usage.
    BadArguments,
    /// A piece letter that is not declared (or was removed by `no-piece`).
    UnknownPiece,
    /// A `piece` line with a bad letter, value or Betza string.
    BadPiece,
    /// More piece kinds than a variant may have.
    TooManyPieces,
    /// A directive every variant needs is missing.
    Missing,
    /// The start FEN is not a valid position of this variant.
    BadStart,
    /// Some position could have more moves than a move list holds.
    TooManyMoves,
    /// The variant's `.eval` file has a bad line.
    BadEval,
    /// The variant's `.nnue` file cannot be read or is for other pieces.
    BadNetwork,
}

/// An error in a variant file, with its position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct VariantError {
    /// File (or variant) name.
    pub file: String,
    /// 1-based line (0 when the error concerns the whole file: then it is
    /// shown without a position).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What class of error this is.
    pub kind: VariantErrorKind,
    /// What is wrong.
    pub message: String,
}

impl VariantError {
    /// An error about the whole file (line 0, column 1).
    pub fn whole_file(file: &str, kind: VariantErrorKind, message: impl Into<String>) -> VariantError {
        VariantError { file: file.to_string(), line: 0, column: 1, kind, message: message.into() }
    }
}

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            // A file-level error (a directive missing): no line to point at.
            write!(f, "{}: {}", self.file, self.message)
        } else {
            write!(f, "{}:{}:{}: {}", self.file, self.line, self.column, self.message)
        }
    }
}

/// Everything a variant file declares, before the derived tables are built.
#[derive(Clone, Debug)]
pub(crate) struct VariantSpec {
    pub name: String,
    pub description: String,
    pub shape: BoardShape,
    pub start_fen: String,
    /// Where the start FEN was declared (file, line, column), for its errors.
    pub start_position: (String, usize, usize),
    pub pieces: Vec<PieceDef>,
    pub royal: Option<PieceKind>,
    /// Initial ranks given by `initial` directives (absolute rank masks). The
    /// others come from where each kind stands in the start position.
    pub initial: Vec<(Color, PieceKind, u16)>,
    pub promotions: ByColor<Vec<Vec<PieceKind>>>,
    pub promotion_rank: Option<u8>,
    pub en_passant: u32,
    pub castling: Option<CastlingRule>,
    pub hands: bool,
    pub convert: Vec<Option<PieceKind>>,
    pub drop_forbidden: ByColor<[u16; MAX_KINDS]>,
    pub setup: Option<SetupRule>,
    pub succession: Option<PieceKind>,
    pub end: EndRules,
    pub xboard_parent: Option<String>,
}

#[derive(Clone, Debug)]
struct Token {
    column: usize,
    text: String,
}

#[derive(Clone, Debug)]
struct Line {
    file: String,
    number: usize,
    tokens: Vec<Token>,
    /// True for lines that come from an inherited variant.
    inherited: bool,
}

impl Line {
    fn error(&self, kind: VariantErrorKind, token: usize, message: impl Into<String>) -> VariantError {
        let column = self.tokens.get(token).or(self.tokens.last()).map_or(1, |t| t.column);
        VariantError { file: self.file.clone(), line: self.number, column, kind, message: message.into() }
    }
    /// A usage error at `token`.
    fn usage(&self, token: usize, message: impl Into<String>) -> VariantError {
        self.error(VariantErrorKind::BadArguments, token, message)
    }
    fn directive(&self) -> &str {
        &self.tokens[0].text
    }
    fn args(&self) -> &[Token] {
        &self.tokens[1..]
    }
    fn word(&self, index: usize) -> &str {
        self.tokens.get(index).map_or("", |t| t.text.as_str())
    }
    /// The tokens from `index` on, joined by single spaces.
    fn rest(&self, index: usize) -> String {
        self.tokens.get(index..).unwrap_or(&[]).iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ")
    }
}

fn tokenize(file: &str, text: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let content = raw.split('#').next().unwrap_or("");
        let mut tokens = Vec::new();
        let mut start = None;
        for (pos, ch) in content.char_indices().chain(std::iter::once((content.len(), ' '))) {
            if ch.is_whitespace() {
                if let Some(s) = start.take() {
                    tokens.push(Token { column: content[..s].chars().count() + 1, text: content[s..pos].to_string() });
                }
            } else if start.is_none() {
                start = Some(pos);
            }
        }
        if !tokens.is_empty() {
            lines.push(Line { file: file.to_string(), number: i + 1, tokens, inherited: false });
        }
    }
    lines
}

/// Looks up the text of another variant for `inherit`.
pub type Resolver<'r> = &'r dyn Fn(&str) -> Option<(String, String)>;

/// Reads a variant file's text into lines, following `inherit` (parent lines first).
fn collect_lines(file: &str, text: &str, resolve: Resolver, depth: usize, errors: &mut Vec<VariantError>) -> Vec<Line> {
    let mut out = Vec::new();
    for line in tokenize(file, text) {
        if line.directive() == "inherit" {
            let Some(parent) = line.args().first().map(|t| t.text.clone()) else {
                errors.push(line.error(VariantErrorKind::Inherit, 0, "inherit needs a variant name"));
                continue;
            };
            if depth > 8 {
                errors.push(line.error(VariantErrorKind::Inherit, 1, "inherit nested too deeply (a cycle?)"));
                continue;
            }
            match resolve(&parent) {
                Some((parent_file, parent_text)) => {
                    let parent_lines = collect_lines(&parent_file, &parent_text, resolve, depth + 1, errors);
                    // The parent's name, description and xboard parent are its own.
                    out.extend(
                        parent_lines
                            .into_iter()
                            .filter(|l| !matches!(l.directive(), "name" | "description"))
                            .map(|l| Line { inherited: true, ..l }),
                    );
                }
                None => errors.push(line.error(
                    VariantErrorKind::Inherit,
                    1,
                    format!("inherit: unknown variant {parent:?}"),
                )),
            }
            continue;
        }
        out.push(line);
    }
    out
}

/// A key under which a later directive replaces an earlier one (from a parent).
fn override_key(line: &Line) -> String {
    let head: Vec<&str> =
        line.tokens.iter().map(|t| t.text.as_str()).take_while(|t| *t != "to" && *t != "rank").collect();
    match line.directive() {
        "promote" | "initial" | "drop-forbid" => head.join(" "),
        "convert" | "xboard-piece" | "draw" => head.iter().take(2).copied().collect::<Vec<_>>().join(" "),
        // Each dead-position rule stands on its own (`dead none` drops those before it).
        "dead" => line.tokens.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" "),
        d => d.to_string(),
    }
}

/// The lines that apply: every `piece`/`no-piece` line, and of the other
/// directives the last one under each override key.
fn active_lines(lines: &[Line]) -> Vec<&Line> {
    let mut last: HashMap<String, usize> = HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        last.insert(override_key(line), i);
    }
    lines
        .iter()
        .enumerate()
        .filter(|(i, l)| matches!(l.directive(), "piece" | "no-piece") || last.get(&override_key(l)) == Some(i))
        .map(|(_, l)| l)
        .collect()
}

/// `piece LETTER NAME VALUE BETZA...`. Errors that still leave a usable
/// definition (a leap past the padding) are pushed and the piece is kept.
fn parse_piece(line: &Line, errors: &mut Vec<VariantError>) -> Option<PieceDef> {
    let bad = |token: usize, message: String| line.error(VariantErrorKind::BadPiece, token, message);
    if line.tokens.len() < 5 {
        errors.push(line.usage(line.tokens.len(), "usage: piece LETTER NAME VALUE BETZA..."));
        return None;
    }
    let letter_text = line.word(1);
    let mut chars = letter_text.chars();
    let letter = match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_uppercase() => c,
        _ => {
            errors.push(bad(1, format!("a piece letter is one upper-case letter, not {letter_text:?}")));
            return None;
        }
    };
    let value = match line.word(3).parse::<i32>() {
        Ok(v) if (0..=100_000).contains(&v) => v,
        _ => {
            errors.push(bad(3, format!("bad piece value {:?}", line.word(3))));
            return None;
        }
    };
    let betza_text = line.rest(4);
    let rules = match betza::parse(&betza_text) {
        Ok(rules) => rules,
        Err(e) => {
            let mut error = bad(4, format!("bad Betza {betza_text:?}: {}", e.message));
            error.column = betza_column(line, e.column);
            errors.push(error);
            return None;
        }
    };
    for r in &rules {
        if r.dx.abs() > 3 || r.dy.abs() > 3 {
            errors.push(bad(4, "leaps longer than 3 squares are not supported".to_string()));
        }
    }
    Some(PieceDef { letter, name: line.word(2).to_string(), value, betza: betza_text, rules, xboard_betza: None })
}

/// Maps a 1-based column of the Betza text (its tokens joined by single
/// spaces) back to the column in the file.
fn betza_column(line: &Line, column: usize) -> usize {
    let mut offset = column - 1;
    for t in &line.tokens[4..] {
        if offset <= t.text.len() {
            return t.column + offset;
        }
        offset -= t.text.len() + 1;
    }
    line.tokens[4].column
}

/// Pass 1: the piece table (a later definition of a letter replaces the
/// earlier one; `no-piece` removes).
fn piece_table(lines: &[Line], errors: &mut Vec<VariantError>) -> Vec<PieceDef> {
    let mut pieces: Vec<PieceDef> = Vec::new();
    for line in lines {
        match line.directive() {
            "piece" => {
                let Some(def) = parse_piece(line, errors) else { continue };
                match pieces.iter_mut().find(|p| p.letter == def.letter) {
                    Some(slot) => *slot = def,
                    None => pieces.push(def),
                }
            }
            "no-piece" => {
                for (i, t) in line.args().iter().enumerate() {
                    let before = pieces.len();
                    pieces.retain(|p| p.letter.to_string() != t.text);
                    if pieces.len() == before {
                        errors.push(line.usage(i + 1, format!("no-piece: {:?} is not declared", t.text)));
                    }
                }
            }
            _ => {}
        }
    }
    pieces
}

/// Pass 2: `board FILESxRANKS` (rank lists depend on it). True when one was given.
fn parse_board(lines: &[&Line], shape: &mut BoardShape, errors: &mut Vec<VariantError>) -> bool {
    let mut saw_board = false;
    for line in lines.iter().filter(|l| l.directive() == "board") {
        saw_board = true;
        let text = line.word(1);
        let side = 1..=MAX_BOARD_SIDE as u32;
        match text.split_once('x').and_then(|(f, r)| Some((f.parse::<u32>().ok()?, r.parse::<u32>().ok()?))) {
            Some((f, r)) if side.contains(&f) && side.contains(&r) => {
                *shape = BoardShape { files: f as u8, ranks: r as u8 }
            }
            Some((f, r)) => errors.push(
                line.usage(1, format!("board {f}x{r}: files and ranks must each be between 1 and {MAX_BOARD_SIDE}")),
            ),
            None => errors.push(line.usage(1, format!("expected FILESxRANKS such as 10x8, found {text:?}"))),
        }
    }
    saw_board
}

/// A directive's handler.
type Handler = fn(&mut Parser, &Line) -> Result<(), VariantError>;

/// Every directive and its handler. `piece`, `no-piece` and `board` are read
/// by the earlier passes; `inherit` while collecting the lines.
const DIRECTIVES: &[(&str, Handler)] = &[
    ("piece", Parser::read_earlier),
    ("no-piece", Parser::read_earlier),
    ("board", Parser::read_earlier),
    ("name", Parser::name),
    ("description", Parser::description),
    ("start", Parser::start),
    ("royal", Parser::royal),
    ("initial", Parser::initial),
    ("en-passant", Parser::en_passant),
    ("promote", Parser::promote),
    ("promotion-rank", Parser::promotion_rank),
    ("castling", Parser::castling),
    ("castling-notation", Parser::castling_notation),
    ("hand", Parser::hand),
    ("convert", Parser::convert),
    ("drop-forbid", Parser::drop_forbid),
    ("setup-swap", Parser::setup_swap),
    ("setup-first", Parser::setup_first),
    ("setup-opposite-colours", Parser::setup_opposite_colours),
    ("succession", Parser::succession),
    ("draw", Parser::draw),
    ("dead", Parser::dead),
    ("xboard-parent", Parser::xboard_parent),
    ("xboard-piece", Parser::xboard_piece),
];

/// The spec being filled in by the directive handlers (pass 3).
struct Parser {
    letters: HashMap<char, PieceKind>,
    pieces: Vec<PieceDef>,
    spec: VariantSpec,
    setup_first: Color,
    setup_opposite: Option<PieceKind>,
    castling_king_takes_rook: bool,
    /// The line of each rule in `spec.end.dead`, for the check that needs the royal piece.
    dead_lines: Vec<Line>,
}

impl Parser {
    fn new(file: &str, pieces: Vec<PieceDef>, shape: BoardShape) -> Parser {
        let letters = pieces.iter().enumerate().map(|(i, p)| (p.letter, PieceKind(i as u8))).collect();
        let kinds = pieces.len();
        let spec = VariantSpec {
            name: String::new(),
            description: String::new(),
            shape,
            start_fen: String::new(),
            start_position: (file.to_string(), 0, 1),
            pieces: Vec::new(),
            royal: None,
            initial: Vec::new(),
            promotions: ByColor([vec![Vec::new(); kinds], vec![Vec::new(); kinds]]),
            promotion_rank: None,
            en_passant: 0,
            castling: None,
            hands: false,
            convert: vec![None; MAX_KINDS],
            drop_forbidden: ByColor([[0; MAX_KINDS]; 2]),
            setup: None,
            succession: None,
            end: EndRules { repetition: 3, move_rule: 50, reset_kinds: 0, dead: Vec::new(), dead_kinds: 0 },
            xboard_parent: None,
        };
        Parser {
            letters,
            pieces,
            spec,
            setup_first: Color::Black,
            setup_opposite: None,
            castling_king_takes_rook: false,
            dead_lines: Vec::new(),
        }
    }

    /// Runs one line's handler. An inherited directive about a piece this
    /// variant removed does not apply.
    fn apply(&mut self, line: &Line, errors: &mut Vec<VariantError>) {
        let result = match DIRECTIVES.iter().find(|(name, _)| *name == line.directive()) {
            Some((_, handler)) => handler(self, line),
            None => Err(line.error(
                VariantErrorKind::UnknownDirective,
                0,
                format!("unknown directive {:?}", line.directive()),
            )),
        };
        match result {
            Err(e) if line.inherited && e.kind == VariantErrorKind::UnknownPiece => {}
            Err(e) => errors.push(e),
            Ok(()) => {}
        }
    }

    /// Completes the spec and checks the directives every variant needs.
    fn finish(
        mut self,
        file: &str,
        saw_board: bool,
        mut errors: Vec<VariantError>,
    ) -> Result<VariantSpec, Vec<VariantError>> {
        if let Some(rule) = self.spec.castling.as_mut() {
            rule.king_takes_rook = self.castling_king_takes_rook;
        }
        if let Some(setup) = self.spec.setup.as_mut() {
            setup.first = self.setup_first;
            setup.opposite_colours = self.setup_opposite;
        }
        let missing = |message: &str| VariantError::whole_file(file, VariantErrorKind::Missing, message);
        if self.spec.name.is_empty() {
            errors.push(missing("missing 'name'"));
        }
        if !saw_board {
            errors.push(missing("missing 'board'"));
        }
        if self.spec.start_fen.is_empty() {
            errors.push(missing("missing 'start'"));
        }
        if self.pieces.is_empty() {
            errors.push(missing("no pieces declared"));
        }
        if self.spec.royal.is_none() {
            errors.push(missing("missing 'royal' (the piece to checkmate)"));
        }
        if let Some(royal) = self.spec.royal {
            errors.extend(self.dead_rules_without_royal(royal));
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        self.spec.pieces = self.pieces;
        Ok(self.spec)
    }

    fn kind(&self, line: &Line, index: usize) -> Result<PieceKind, VariantError> {
        let Some(token) = line.tokens.get(index) else {
            return Err(line.usage(index, format!("'{}' needs a piece letter", line.directive())));
        };
        let text = token.text.as_str();
        let mut chars = text.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) if c.is_ascii_uppercase() => self.letters.get(&c).copied().ok_or_else(|| {
                line.error(VariantErrorKind::UnknownPiece, index, format!("unknown piece letter {c:?}"))
            }),
            _ => Err(line.usage(index, format!("expected an upper-case piece letter, found {text:?}"))),
        }
    }

    /// The kinds named from token `from` to the end, as a bit set.
    fn kind_set(&self, line: &Line, from: usize) -> Result<u32, VariantError> {
        let mut set = 0;
        for i in from..line.tokens.len() {
            set |= 1 << self.kind(line, i)?.0;
        }
        Ok(set)
    }

    /// Splits `[white|black] A B ... <keyword> rest...` into colours, kinds and the index after the keyword.
    fn colours_and_kinds(
        &self,
        line: &Line,
        keyword: &str,
    ) -> Result<(Vec<Color>, Vec<PieceKind>, usize), VariantError> {
        let (colours, mut i) = match line.word(1) {
            "white" => (vec![Color::White], 2),
            "black" => (vec![Color::Black], 2),
            _ => (vec![Color::White, Color::Black], 1),
        };
        let mut kinds = Vec::new();
        while i < line.tokens.len() && line.tokens[i].text != keyword {
            kinds.push(self.kind(line, i)?);
            i += 1;
        }
        if i >= line.tokens.len() {
            return Err(line.usage(i, format!("expected '{keyword}'")));
        }
        if kinds.is_empty() {
            return Err(line.usage(i, "expected piece letters"));
        }
        Ok((colours, kinds, i + 1))
    }

    /// A rank list such as `2`, `1-3` or `1,8` (ranks counted from each side's
    /// own point of view) as a set: bit r-1 for rank r.
    fn relative_ranks(&self, line: &Line, index: usize) -> Result<u16, VariantError> {
        let ranks = self.spec.shape.ranks;
        let text = line.word(index);
        let mut set = 0u16;
        for part in text.split(',') {
            let (lo, hi) = part.split_once('-').unwrap_or((part, part));
            match (lo.parse::<u8>(), hi.parse::<u8>()) {
                (Ok(lo), Ok(hi)) if lo >= 1 && lo <= hi && hi <= ranks => {
                    set |= (lo..=hi).fold(0, |s, r| s | 1 << (r - 1))
                }
                _ => return Err(line.usage(index, format!("bad rank list {text:?} (ranks 1..{ranks}, e.g. 2 or 1-3)"))),
            }
        }
        Ok(set)
    }

    /// A set of ranks counted from `color`'s side as absolute rank indices.
    fn absolute_ranks(&self, color: Color, relative: u16) -> u16 {
        let ranks = self.spec.shape.ranks;
        (0..ranks).filter(|r| relative >> r & 1 != 0).fold(0, |set, r| match color {
            Color::White => set | 1 << r,
            Color::Black => set | 1 << (ranks - 1 - r),
        })
    }

    fn number(line: &Line, index: usize) -> Result<u32, VariantError> {
        let text = line.word(index);
        text.parse().map_err(|_| line.usage(index, format!("expected a number, found {text:?}")))
    }

    fn read_earlier(&mut self, _line: &Line) -> Result<(), VariantError> {
        Ok(())
    }

    /// `name NAME`: letters, digits, '-' and '_'; stored in lower case.
    fn name(&mut self, line: &Line) -> Result<(), VariantError> {
        let name = line.args().first().ok_or_else(|| line.usage(1, "name needs a value"))?.text.as_str();
        if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
            return Err(line.usage(1, "a variant name uses letters, digits, '-' and '_'"));
        }
        self.spec.name = name.to_ascii_lowercase();
        Ok(())
    }

    /// `description TEXT...`
    fn description(&mut self, line: &Line) -> Result<(), VariantError> {
        self.spec.description = line.rest(1);
        Ok(())
    }

    /// `start FEN`: checked once the variant is built.
    fn start(&mut self, line: &Line) -> Result<(), VariantError> {
        let Some(first) = line.args().first() else { return Err(line.usage(1, "start needs a FEN")) };
        self.spec.start_fen = line.rest(1);
        self.spec.start_position = (line.file.clone(), line.number, first.column);
        Ok(())
    }

    /// `royal L`
    fn royal(&mut self, line: &Line) -> Result<(), VariantError> {
        if line.args().len() != 1 {
            return Err(line.usage(1, "royal takes one piece letter"));
        }
        self.spec.royal = Some(self.kind(line, 1)?);
        Ok(())
    }

    /// `initial [white|black] L... rank N[,N]`
    fn initial(&mut self, line: &Line) -> Result<(), VariantError> {
        let (colours, kinds, rest) = self.colours_and_kinds(line, "rank")?;
        let relative = self.relative_ranks(line, rest)?;
        for c in colours {
            let ranks = self.absolute_ranks(c, relative);
            self.spec.initial.extend(kinds.iter().map(|&k| (c, k, ranks)));
        }
        Ok(())
    }

    /// `en-passant L...`
    fn en_passant(&mut self, line: &Line) -> Result<(), VariantError> {
        self.spec.en_passant = self.kind_set(line, 1)?;
        Ok(())
    }

    /// `promote [white|black] L... to L...`
    fn promote(&mut self, line: &Line) -> Result<(), VariantError> {
        let (colours, kinds, rest) = self.colours_and_kinds(line, "to")?;
        let targets = (rest..line.tokens.len()).map(|i| self.kind(line, i)).collect::<Result<Vec<_>, _>>()?;
        if targets.is_empty() {
            return Err(line.usage(rest, "promote needs at least one target piece"));
        }
        for c in colours {
            for &k in &kinds {
                self.spec.promotions[c][k.index()] = targets.clone();
            }
        }
        Ok(())
    }

    /// `promotion-rank N`
    fn promotion_rank(&mut self, line: &Line) -> Result<(), VariantError> {
        let ranks = self.spec.shape.ranks;
        let r = Self::number(line, 1)?;
        if r == 0 || r > ranks as u32 {
            return Err(line.usage(1, format!("promotion rank must be 1..{ranks}")));
        }
        self.spec.promotion_rank = Some(r as u8);
        Ok(())
    }

    /// `castling king-to FILE FILE rook-to FILE FILE rook LETTER`
    fn castling(&mut self, line: &Line) -> Result<(), VariantError> {
        let words: Vec<&str> = line.args().iter().map(|t| t.text.as_str()).collect();
        if words.len() != 8 || words[0] != "king-to" || words[3] != "rook-to" || words[6] != "rook" {
            return Err(line.usage(1, "usage: castling king-to FILE FILE rook-to FILE FILE rook LETTER"));
        }
        let files = self.spec.shape.files;
        let file_of = |i: usize| -> Result<u8, VariantError> {
            match words[i].as_bytes() {
                &[w] if w.is_ascii_lowercase() && w - b'a' < files => Ok(w - b'a'),
                _ => Err(line.usage(i + 1, format!("{:?} is not a file of this board", words[i]))),
            }
        };
        self.spec.castling = Some(CastlingRule {
            king_files: [file_of(1)?, file_of(2)?],
            rook_files: [file_of(4)?, file_of(5)?],
            rook: self.kind(line, 8)?,
            king_takes_rook: false,
        });
        Ok(())
    }

    /// `castling-notation king-takes-rook|king-destination`
    fn castling_notation(&mut self, line: &Line) -> Result<(), VariantError> {
        self.castling_king_takes_rook = match line.word(1) {
            "king-takes-rook" => true,
            "king-destination" => false,
            _ => return Err(line.usage(1, "castling-notation is king-takes-rook or king-destination")),
        };
        Ok(())
    }

    /// `hand`
    fn hand(&mut self, _line: &Line) -> Result<(), VariantError> {
        self.spec.hands = true;
        Ok(())
    }

    /// `convert A B`: a captured A goes to its owner's hand as B.
    fn convert(&mut self, line: &Line) -> Result<(), VariantError> {
        if line.args().len() != 2 {
            return Err(line.usage(1, "usage: convert A B (a captured A goes to its owner's hand as B)"));
        }
        let a = self.kind(line, 1)?;
        let b = self.kind(line, 2)?;
        self.spec.convert[a.index()] = Some(b);
        Ok(())
    }

    /// `drop-forbid [white|black] L... rank N`
    fn drop_forbid(&mut self, line: &Line) -> Result<(), VariantError> {
        let (colours, kinds, rest) = self.colours_and_kinds(line, "rank")?;
        let relative = self.relative_ranks(line, rest)?;
        for c in colours {
            let ranks = self.absolute_ranks(c, relative);
            for &k in &kinds {
                self.spec.drop_forbidden[c][k.index()] |= ranks;
            }
        }
        Ok(())
    }

    /// `setup-swap MOVERS... with PARTNERS...`
    fn setup_swap(&mut self, line: &Line) -> Result<(), VariantError> {
        let with = line.args().iter().position(|t| t.text == "with").ok_or_else(|| line.usage(1, "expected 'with'"))?;
        let mut movers = 0;
        for i in 1..=with {
            movers |= 1 << self.kind(line, i)?.0;
        }
        let partners = self.kind_set(line, with + 2)?;
        if movers == 0 || partners == 0 {
            return Err(line.usage(1, "usage: setup-swap MOVERS... with PARTNERS..."));
        }
        self.spec.setup = Some(SetupRule { movers, partners, first: Color::Black, opposite_colours: None });
        Ok(())
    }

    /// `setup-first white|black`
    fn setup_first(&mut self, line: &Line) -> Result<(), VariantError> {
        self.setup_first = match line.word(1) {
            "white" => Color::White,
            "black" => Color::Black,
            _ => return Err(line.usage(1, "setup-first is white or black")),
        };
        Ok(())
    }

    /// `setup-opposite-colours L`
    fn setup_opposite_colours(&mut self, line: &Line) -> Result<(), VariantError> {
        self.setup_opposite = Some(self.kind(line, 1)?);
        Ok(())
    }

    /// `succession L`
    fn succession(&mut self, line: &Line) -> Result<(), VariantError> {
        self.spec.succession = Some(self.kind(line, 1)?);
        Ok(())
    }

    /// `draw repetition N | draw move-rule N | draw move-rule-reset L...`
    fn draw(&mut self, line: &Line) -> Result<(), VariantError> {
        match line.word(1) {
            "repetition" => self.spec.end.repetition = Self::number(line, 2)?,
            "move-rule" => self.spec.end.move_rule = Self::number(line, 2)?,
            "move-rule-reset" => self.spec.end.reset_kinds = self.kind_set(line, 2)?,
            _ => return Err(line.usage(1, "draw repetition N | draw move-rule N | draw move-rule-reset LETTERS")),
        }
        Ok(())
    }

    /// `dead MEN v MEN [same-colour]` (`dead KB v K`, `dead KB* v KB* same-colour`)
    /// or `dead none`, which drops the rules declared before it (inherited ones).
    fn dead(&mut self, line: &Line) -> Result<(), VariantError> {
        const USAGE: &str = "usage: dead MEN v MEN [same-colour] (e.g. dead KB v K), or dead none";
        let words = line.args().len();
        if words == 1 && line.word(1) == "none" {
            self.spec.end.dead.clear();
            self.dead_lines.clear();
            return Ok(());
        }
        if words >= 2 && line.word(2) != "v" {
            return Err(line.usage(2, format!("expected 'v' between the two sides, found {:?}", line.word(2))));
        }
        if words < 3 {
            return Err(line.usage(words + 1, USAGE));
        }
        let same_colour = match line.word(4) {
            "" => false,
            "same-colour" => true,
            other => {
                return Err(line.usage(4, format!("expected 'same-colour' or the end of the line, found {other:?}")))
            }
        };
        if words > 4 {
            return Err(line.usage(5, USAGE));
        }
        let sides = [self.dead_men(line, 1)?, self.dead_men(line, 3)?];
        self.spec.end.dead.push(DeadRule { sides, same_colour });
        self.dead_lines.push(line.clone());
        Ok(())
    }

    /// One side of a dead rule: piece letters, one per man, and `*` after a
    /// letter for any number of it, none included, as in a regular expression
    /// (`KB*`: a king and any number of bishops; `KBB*`: at least one).
    fn dead_men(&self, line: &Line, index: usize) -> Result<DeadMen, VariantError> {
        let mut men = DeadMen { counts: [0; MAX_KINDS], more: 0 };
        let mut last: Option<PieceKind> = None;
        for (offset, c) in line.word(index).chars().enumerate() {
            // Errors name the letter's own column.
            let at = |e: VariantError| VariantError { column: e.column + offset, ..e };
            if c == '*' {
                let Some(kind) = last.take() else {
                    return Err(at(line.usage(index, "'*' follows a piece letter (KB*: a king and any number of B)")));
                };
                men.counts[kind.index()] -= 1;
                men.more |= 1 << kind.0;
                continue;
            }
            if !c.is_ascii_uppercase() {
                return Err(at(line.usage(index, format!("expected upper-case piece letters, found {c:?}"))));
            }
            let Some(&kind) = self.letters.get(&c) else {
                let message = format!("unknown piece letter {c:?}");
                return Err(at(line.error(VariantErrorKind::UnknownPiece, index, message)));
            };
            men.counts[kind.index()] = men.counts[kind.index()].saturating_add(1);
            last = Some(kind);
        }
        Ok(men)
    }

    /// Each side of a dead rule names the royal piece once, without `*`
    /// (every position has one royal man a side).
    fn dead_rules_without_royal(&self, royal: PieceKind) -> Vec<VariantError> {
        let letter = self.pieces.get(royal.index()).map_or('?', |p| p.letter);
        let mut errors = Vec::new();
        for (rule, line) in self.spec.end.dead.iter().zip(&self.dead_lines) {
            for (side, index) in rule.sides.iter().zip([1, 3]) {
                if side.counts[royal.index()] != 1 || side.more >> royal.0 & 1 != 0 {
                    let message = format!("each side of a dead position has one royal piece: {letter} exactly once");
                    errors.push(line.usage(index, message));
                }
            }
        }
        errors
    }

    /// `xboard-parent NAME`
    fn xboard_parent(&mut self, line: &Line) -> Result<(), VariantError> {
        let name = line.args().first().ok_or_else(|| line.usage(1, "needs a name"))?;
        self.spec.xboard_parent = Some(name.text.clone());
        Ok(())
    }

    /// `xboard-piece L BETZA`
    fn xboard_piece(&mut self, line: &Line) -> Result<(), VariantError> {
        let kind = self.kind(line, 1)?;
        let text = line.rest(2);
        if text.is_empty() {
            return Err(line.usage(2, "xboard-piece needs a Betza string"));
        }
        self.pieces[kind.index()].xboard_betza = Some(text);
        Ok(())
    }
}

/// Parses a variant file. `resolve` supplies the text of inherited variants.
pub(crate) fn parse_spec(file: &str, text: &str, resolve: Resolver) -> Result<VariantSpec, Vec<VariantError>> {
    let mut errors = Vec::new();
    let lines = collect_lines(file, text, resolve, 0, &mut errors);
    let pieces = piece_table(&lines, &mut errors);
    if pieces.len() > MAX_KINDS {
        let message = format!("{} piece types; at most {MAX_KINDS} are supported", pieces.len());
        errors.push(VariantError::whole_file(file, VariantErrorKind::TooManyPieces, message));
        return Err(errors);
    }
    let active = active_lines(&lines);
    let mut shape = BoardShape { files: 8, ranks: 8 };
    let saw_board = parse_board(&active, &mut shape, &mut errors);
    let mut parser = Parser::new(file, pieces, shape);
    for line in active {
        parser.apply(line, &mut errors);
    }
    parser.finish(file, saw_board, errors)
}
