//! The hand-written `.var` parser: one `directive args...` per line, `#`
//! comments, `inherit NAME` to start from another variant. Every error names
//! its file, line and column; `check` reports all of them, not just the first.
//! Uses betza, geometry, piece and the variant types.

use std::collections::HashMap;
use std::fmt;

use super::{CastlingRule, EndRules, PieceDef, SetupRule};
use crate::betza;
use crate::geometry::{BoardShape, MAX_BOARD_SIDE};
use crate::piece::{ByColor, Color, PieceKind, MAX_KINDS};

/// An error in a variant file, with its position.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct VariantError {
    /// File (or variant) name.
    pub file: String,
    /// 1-based line (0 when the error concerns the whole file).
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for VariantError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file, self.line, self.column, self.message)
    }
}

/// Everything a variant file declares, before the derived tables are built.
#[derive(Clone, Debug)]
pub(crate) struct VariantSpec {
    pub name: String,
    pub description: String,
    pub shape: BoardShape,
    pub start_fen: String,
    pub start_position: (String, usize, usize),
    pub pieces: Vec<PieceDef>,
    pub royal: Option<PieceKind>,
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
    fn error(&self, token: usize, message: impl Into<String>) -> VariantError {
        let column = self.tokens.get(token).or(self.tokens.last()).map_or(1, |t| t.column);
        VariantError { file: self.file.clone(), line: self.number, column, message: message.into() }
    }
    fn directive(&self) -> &str {
        &self.tokens[0].text
    }
    fn args(&self) -> &[Token] {
        &self.tokens[1..]
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
                errors.push(line.error(0, "inherit needs a variant name"));
                continue;
            };
            if depth > 8 {
                errors.push(line.error(1, "inherit nested too deeply (a cycle?)"));
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
                None => errors.push(line.error(1, format!("inherit: unknown variant {parent:?}"))),
            }
            continue;
        }
        out.push(line);
    }
    out
}

fn parse_kind(line: &Line, index: usize, letters: &HashMap<char, PieceKind>) -> Result<PieceKind, VariantError> {
    let Some(token) = line.tokens.get(index) else {
        return Err(line.error(index, format!("'{}' needs a piece letter", line.directive())));
    };
    let text = token.text.as_str();
    let mut chars = text.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if c.is_ascii_uppercase() => {
            letters.get(&c).copied().ok_or_else(|| line.error(index, format!("unknown piece letter {c:?}")))
        }
        _ => Err(line.error(index, format!("expected an upper-case piece letter, found {text:?}"))),
    }
}

fn parse_number(line: &Line, index: usize) -> Result<u32, VariantError> {
    let text = line.tokens.get(index).map_or("", |t| t.text.as_str());
    text.parse().map_err(|_| line.error(index, format!("expected a number, found {text:?}")))
}

/// Splits `[white|black] A B ... <keyword> rest...` into colours, kind indices and the rest index.
fn colours_and_kinds(
    line: &Line,
    keyword: &str,
    letters: &HashMap<char, PieceKind>,
) -> Result<(Vec<Color>, Vec<PieceKind>, usize), VariantError> {
    let mut i = 1;
    let colours = match line.tokens.get(1).map(|t| t.text.as_str()) {
        Some("white") => {
            i = 2;
            vec![Color::White]
        }
        Some("black") => {
            i = 2;
            vec![Color::Black]
        }
        _ => vec![Color::White, Color::Black],
    };
    let mut kinds = Vec::new();
    while i < line.tokens.len() && line.tokens[i].text != keyword {
        kinds.push(parse_kind(line, i, letters)?);
        i += 1;
    }
    if i >= line.tokens.len() {
        return Err(line.error(i, format!("expected '{keyword}'")));
    }
    if kinds.is_empty() {
        return Err(line.error(i, "expected piece letters"));
    }
    Ok((colours, kinds, i + 1))
}

fn kind_mask(line: &Line, from: usize, letters: &HashMap<char, PieceKind>) -> Result<u32, VariantError> {
    let mut mask = 0;
    for i in from..line.tokens.len() {
        mask |= 1 << parse_kind(line, i, letters)?.0;
    }
    Ok(mask)
}

fn rank_mask(line: &Line, index: usize, ranks: u8) -> Result<Vec<u8>, VariantError> {
    let text = line.tokens.get(index).map_or("", |t| t.text.as_str());
    let mut out = Vec::new();
    for part in text.split(',') {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (a.parse::<u8>(), b.parse::<u8>()),
            None => (part.parse::<u8>(), part.parse::<u8>()),
        };
        match (lo, hi) {
            (Ok(lo), Ok(hi)) if lo >= 1 && lo <= hi && hi <= ranks => out.extend(lo..=hi),
            _ => return Err(line.error(index, format!("bad rank list {text:?} (ranks 1..{ranks}, e.g. 2 or 1-3)"))),
        }
    }
    Ok(out)
}

/// A key under which a later directive replaces an earlier one (from a parent).
fn override_key(line: &Line) -> String {
    let head: Vec<&str> =
        line.tokens.iter().map(|t| t.text.as_str()).take_while(|t| *t != "to" && *t != "rank").collect();
    match line.directive() {
        "promote" | "initial" | "drop-forbid" => head.join(" "),
        "convert" | "xboard-piece" | "draw" => head.iter().take(2).copied().collect::<Vec<_>>().join(" "),
        d => d.to_string(),
    }
}

/// Parses a variant file. `resolve` supplies the text of inherited variants.
pub(crate) fn parse_spec(file: &str, text: &str, resolve: Resolver) -> Result<VariantSpec, Vec<VariantError>> {
    let mut errors = Vec::new();
    let lines = collect_lines(file, text, resolve, 0, &mut errors);

    // Pass 1: the piece table (later definitions of a letter replace earlier ones).
    let mut pieces: Vec<(PieceDef, usize)> = Vec::new();
    for (li, line) in lines.iter().enumerate() {
        match line.directive() {
            "piece" => {
                if line.tokens.len() < 5 {
                    errors.push(line.error(line.tokens.len(), "usage: piece LETTER NAME VALUE BETZA..."));
                    continue;
                }
                let letter_text = line.tokens[1].text.as_str();
                let mut chars = letter_text.chars();
                let letter = match (chars.next(), chars.next()) {
                    (Some(c), None) if c.is_ascii_uppercase() => c,
                    _ => {
                        errors.push(
                            line.error(1, format!("a piece letter is one upper-case letter, not {letter_text:?}")),
                        );
                        continue;
                    }
                };
                let value = match line.tokens[3].text.parse::<i32>() {
                    Ok(v) if (0..=100_000).contains(&v) => v,
                    _ => {
                        errors.push(line.error(3, format!("bad piece value {:?}", line.tokens[3].text)));
                        continue;
                    }
                };
                let betza_text = line.tokens[4..].iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ");
                let rules = match betza::parse(&betza_text) {
                    Ok(r) => r,
                    Err(e) => {
                        // Map the column in the joined text back to the file.
                        let mut offset = e.column - 1;
                        let mut col = line.tokens[4].column;
                        for t in &line.tokens[4..] {
                            if offset <= t.text.len() {
                                col = t.column + offset;
                                break;
                            }
                            offset -= t.text.len() + 1;
                        }
                        errors.push(VariantError {
                            file: line.file.clone(),
                            line: line.number,
                            column: col,
                            message: format!("bad Betza {betza_text:?}: {}", e.message),
                        });
                        continue;
                    }
                };
                for r in &rules {
                    if r.dx.abs() > 3 || r.dy.abs() > 3 {
                        errors.push(line.error(4, "leaps longer than 3 squares are not supported"));
                    }
                }
                let def = PieceDef {
                    letter,
                    name: line.tokens[2].text.clone(),
                    value,
                    betza: betza_text,
                    rules,
                    xboard_betza: None,
                };
                match pieces.iter_mut().find(|(p, _)| p.letter == letter) {
                    Some(slot) => *slot = (def, li),
                    None => pieces.push((def, li)),
                }
            }
            "no-piece" => {
                for (i, t) in line.args().iter().enumerate() {
                    let before = pieces.len();
                    pieces.retain(|(p, _)| p.letter.to_string() != t.text);
                    if pieces.len() == before {
                        errors.push(line.error(i + 1, format!("no-piece: {:?} is not declared", t.text)));
                    }
                }
            }
            _ => {}
        }
    }
    if pieces.len() > MAX_KINDS {
        errors.push(VariantError {
            file: file.into(),
            line: 0,
            column: 1,
            message: format!("{} piece types; at most {MAX_KINDS} are supported", pieces.len()),
        });
        return Err(errors);
    }
    let letters: HashMap<char, PieceKind> =
        pieces.iter().enumerate().map(|(i, (p, _))| (p.letter, PieceKind(i as u8))).collect();
    let mut pieces: Vec<PieceDef> = pieces.into_iter().map(|(p, _)| p).collect();

    // Later directives with the same key override earlier (inherited) ones.
    let mut last: HashMap<String, usize> = HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        last.insert(override_key(line), i);
    }
    let active: Vec<&Line> = lines
        .iter()
        .enumerate()
        .filter(|(i, l)| matches!(l.directive(), "piece" | "no-piece") || last.get(&override_key(l)) == Some(i))
        .map(|(_, l)| l)
        .collect();

    let mut spec = VariantSpec {
        name: String::new(),
        description: String::new(),
        shape: BoardShape { files: 8, ranks: 8 },
        start_fen: String::new(),
        start_position: (file.to_string(), 0, 1),
        pieces: Vec::new(),
        royal: None,
        initial: Vec::new(),
        promotions: ByColor([vec![Vec::new(); pieces.len()], vec![Vec::new(); pieces.len()]]),
        promotion_rank: None,
        en_passant: 0,
        castling: None,
        hands: false,
        convert: vec![None; MAX_KINDS],
        drop_forbidden: ByColor([[0; MAX_KINDS]; 2]),
        setup: None,
        succession: None,
        end: EndRules { repetition: 3, move_rule: 50, reset_kinds: 0 },
        xboard_parent: None,
    };
    let mut saw_board = false;
    let mut initial_explicit: Vec<(Color, PieceKind)> = Vec::new();
    let mut setup_first = Color::Black;
    let mut setup_opposite = None;
    let mut castling_notation = false;

    // Board first: rank lists depend on it.
    for line in &active {
        if line.directive() == "board" {
            saw_board = true;
            let text = line.tokens.get(1).map_or("", |t| t.text.as_str());
            let parsed = text.split_once('x').and_then(|(f, r)| Some((f.parse::<u32>().ok()?, r.parse::<u32>().ok()?)));
            match parsed {
                Some((f, r))
                    if (1..=MAX_BOARD_SIDE as u32).contains(&f) && (1..=MAX_BOARD_SIDE as u32).contains(&r) =>
                {
                    spec.shape = BoardShape { files: f as u8, ranks: r as u8 }
                }
                Some((f, r)) => {
                    errors.push(line.error(
                        1,
                        format!("board {f}x{r}: files and ranks must each be between 1 and {MAX_BOARD_SIDE}"),
                    ))
                }
                None => errors.push(line.error(1, format!("expected FILESxRANKS such as 10x8, found {text:?}"))),
            }
        }
    }
    let ranks = spec.shape.ranks;
    let abs_mask = |color: Color, relative: &[u8]| -> u16 {
        relative.iter().fold(0u16, |m, &r| {
            let abs = match color {
                Color::White => r - 1,
                Color::Black => ranks - r,
            };
            m | 1 << abs
        })
    };

    for line in &active {
        let result: Result<(), VariantError> = (|| {
            let args = line.args();
            match line.directive() {
                "piece" | "no-piece" | "board" => {}
                "name" => {
                    let name = args.first().ok_or_else(|| line.error(1, "name needs a value"))?.text.as_str();
                    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                        return Err(line.error(1, "a variant name uses letters, digits, '-' and '_'"));
                    }
                    spec.name = name.to_ascii_lowercase();
                }
                "description" => spec.description = args.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" "),
                "start" => {
                    if args.is_empty() {
                        return Err(line.error(1, "start needs a FEN"));
                    }
                    spec.start_fen = args.iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ");
                    spec.start_position = (line.file.clone(), line.number, args[0].column);
                }
                "royal" => {
                    if args.len() != 1 {
                        return Err(line.error(1, "royal takes one piece letter"));
                    }
                    spec.royal = Some(parse_kind(line, 1, &letters)?);
                }
                "initial" => {
                    let (colours, kinds, rest) = colours_and_kinds(line, "rank", &letters)?;
                    let list = rank_mask(line, rest, ranks)?;
                    for c in colours {
                        for &k in &kinds {
                            initial_explicit.push((c, k));
                            spec.initial.push((c, k, abs_mask(c, &list)));
                        }
                    }
                }
                "en-passant" => spec.en_passant = kind_mask(line, 1, &letters)?,
                "promote" => {
                    let (colours, kinds, rest) = colours_and_kinds(line, "to", &letters)?;
                    let mut targets = Vec::new();
                    for i in rest..line.tokens.len() {
                        targets.push(parse_kind(line, i, &letters)?);
                    }
                    if targets.is_empty() {
                        return Err(line.error(rest, "promote needs at least one target piece"));
                    }
                    for c in colours {
                        for &k in &kinds {
                            spec.promotions[c][k.index()] = targets.clone();
                        }
                    }
                }
                "promotion-rank" => {
                    let r = parse_number(line, 1)?;
                    if r == 0 || r > ranks as u32 {
                        return Err(line.error(1, format!("promotion rank must be 1..{ranks}")));
                    }
                    spec.promotion_rank = Some(r as u8);
                }
                "castling" => {
                    // castling king-to c g rook-to d f rook R
                    let words: Vec<&str> = args.iter().map(|t| t.text.as_str()).collect();
                    let usage = "usage: castling king-to FILE FILE rook-to FILE FILE rook LETTER";
                    if words.len() != 8 || words[0] != "king-to" || words[3] != "rook-to" || words[6] != "rook" {
                        return Err(line.error(1, usage));
                    }
                    let file_of = |i: usize| -> Result<u8, VariantError> {
                        let w = words[i].as_bytes();
                        if w.len() == 1 && w[0].is_ascii_lowercase() && w[0] - b'a' < spec.shape.files {
                            Ok(w[0] - b'a')
                        } else {
                            Err(line.error(i + 1, format!("{:?} is not a file of this board", words[i])))
                        }
                    };
                    spec.castling = Some(CastlingRule {
                        king_files: [file_of(1)?, file_of(2)?],
                        rook_files: [file_of(4)?, file_of(5)?],
                        rook: parse_kind(line, 8, &letters)?,
                        king_takes_rook: false,
                    });
                }
                "castling-notation" => match args.first().map(|t| t.text.as_str()) {
                    Some("king-takes-rook") => castling_notation = true,
                    Some("king-destination") => castling_notation = false,
                    _ => return Err(line.error(1, "castling-notation is king-takes-rook or king-destination")),
                },
                "hand" => spec.hands = true,
                "convert" => {
                    if args.len() != 2 {
                        return Err(line.error(1, "usage: convert A B (a captured A goes to its owner's hand as B)"));
                    }
                    let a = parse_kind(line, 1, &letters)?;
                    let b = parse_kind(line, 2, &letters)?;
                    spec.convert[a.index()] = Some(b);
                }
                "drop-forbid" => {
                    let (colours, kinds, rest) = colours_and_kinds(line, "rank", &letters)?;
                    let list = rank_mask(line, rest, ranks)?;
                    for c in colours {
                        for &k in &kinds {
                            spec.drop_forbidden[c][k.index()] |= abs_mask(c, &list);
                        }
                    }
                }
                "setup-swap" => {
                    let with =
                        args.iter().position(|t| t.text == "with").ok_or_else(|| line.error(1, "expected 'with'"))?;
                    let mut movers = 0;
                    for i in 1..=with {
                        movers |= 1 << parse_kind(line, i, &letters)?.0;
                    }
                    let partners = kind_mask(line, with + 2, &letters)?;
                    if movers == 0 || partners == 0 {
                        return Err(line.error(1, "usage: setup-swap MOVERS... with PARTNERS..."));
                    }
                    spec.setup = Some(SetupRule { movers, partners, first: Color::Black, opposite_colours: None });
                }
                "setup-first" => {
                    setup_first = match args.first().map(|t| t.text.as_str()) {
                        Some("white") => Color::White,
                        Some("black") => Color::Black,
                        _ => return Err(line.error(1, "setup-first is white or black")),
                    }
                }
                "setup-opposite-colours" => setup_opposite = Some(parse_kind(line, 1, &letters)?),
                "succession" => spec.succession = Some(parse_kind(line, 1, &letters)?),
                "draw" => match args.first().map(|t| t.text.as_str()) {
                    Some("repetition") => spec.end.repetition = parse_number(line, 2)?,
                    Some("move-rule") => spec.end.move_rule = parse_number(line, 2)?,
                    Some("move-rule-reset") => spec.end.reset_kinds = kind_mask(line, 2, &letters)?,
                    _ => {
                        return Err(line.error(1, "draw repetition N | draw move-rule N | draw move-rule-reset LETTERS"))
                    }
                },
                "xboard-parent" => {
                    spec.xboard_parent = Some(args.first().ok_or_else(|| line.error(1, "needs a name"))?.text.clone())
                }
                "xboard-piece" => {
                    let kind = parse_kind(line, 1, &letters)?;
                    let text =
                        args.get(1..).unwrap_or(&[]).iter().map(|t| t.text.as_str()).collect::<Vec<_>>().join(" ");
                    if text.is_empty() {
                        return Err(line.error(2, "xboard-piece needs a Betza string"));
                    }
                    pieces[kind.index()].xboard_betza = Some(text);
                }
                other => return Err(line.error(0, format!("unknown directive {other:?}"))),
            }
            Ok(())
        })();
        match result {
            // An inherited directive about a piece this variant removed does not apply.
            Err(e) if line.inherited && e.message.starts_with("unknown piece letter") => {}
            Err(e) => errors.push(e),
            Ok(()) => {}
        }
    }
    if let Some(rule) = spec.castling.as_mut() {
        rule.king_takes_rook = castling_notation;
    }
    if let Some(setup) = spec.setup.as_mut() {
        setup.first = setup_first;
        setup.opposite_colours = setup_opposite;
    }
    let whole = |message: &str| VariantError { file: file.into(), line: 0, column: 1, message: message.into() };
    if spec.name.is_empty() {
        errors.push(whole("missing 'name'"));
    }
    if !saw_board {
        errors.push(whole("missing 'board'"));
    }
    if spec.start_fen.is_empty() {
        errors.push(whole("missing 'start'"));
    }
    if pieces.is_empty() {
        errors.push(whole("no pieces declared"));
    }
    if spec.royal.is_none() {
        errors.push(whole("missing 'royal' (the piece to checkmate)"));
    }
    // Initial ranks not given explicitly come from where the kind stands in the start position.
    let board_text = spec.start_fen.split(['[', ' ']).next().unwrap_or("");
    let rows: Vec<&str> = board_text.split('/').collect();
    for (k, piece) in pieces.iter().enumerate() {
        if !piece.rules.iter().any(|r| r.initial_only) {
            continue;
        }
        for color in Color::ALL {
            if initial_explicit.contains(&(color, PieceKind(k as u8))) {
                continue;
            }
            let mut mask = 0u16;
            for (row_index, row) in rows.iter().enumerate() {
                let want = match color {
                    Color::White => piece.letter,
                    Color::Black => piece.letter.to_ascii_lowercase(),
                };
                if row.contains(want) && row_index < ranks as usize {
                    mask |= 1 << (ranks as usize - 1 - row_index);
                }
            }
            spec.initial.push((color, PieceKind(k as u8), mask));
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    spec.pieces = std::mem::take(&mut pieces);
    Ok(spec)
}
