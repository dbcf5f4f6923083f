//! PGN: writing refereed games (with `Variant`, `FEN`/`SetUp`,
//! `TimeControl` and `Termination` tags and SAN-like moves) and reading PGN
//! back into tags and move tokens, to replay through the rules core.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use super::record::GameRecord;
use super::san::parse_san;
use crate::board::position::Position;
use crate::board::registry::Registry;
use crate::rules::moves::Move;
use crate::rules::piece::Color;
use crate::rules::variant::Variant;

/// Tags besides those a game record carries.
#[derive(Clone, Debug)]
pub struct PgnContext<'a> {
    /// `Event`.
    pub event: &'a str,
    /// `Round` (game number).
    pub round: u32,
    /// The variant.
    pub variant: &'a Variant,
}

/// Today's date as `YYYY.MM.DD` (UTC).
pub fn today() -> String {
    let days = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() / 86_400) as i64;
    // Civil date from days since 1970-01-01 (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

fn quote(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

/// One game as PGN text (ending with a blank line).
pub fn write_game(game: &GameRecord, ctx: &PgnContext<'_>) -> String {
    let result = game.outcome.map_or("*", |o| o.pgn());
    let mut out = String::new();
    let mut tag = |name: &str, value: &str| out.push_str(&format!("[{name} \"{}\"]\n", quote(value)));
    tag("Event", ctx.event);
    tag("Site", "?");
    tag("Date", &today());
    tag("Round", &ctx.round.to_string());
    tag("White", &game.white);
    tag("Black", &game.black);
    tag("Result", result);
    if ctx.variant.name != "chess" {
        tag("Variant", &ctx.variant.name);
    }
    if game.start_fen != ctx.variant.start_fen {
        tag("FEN", &game.start_fen);
        tag("SetUp", "1");
    }
    if game.tc[0] == game.tc[1] {
        tag("TimeControl", &game.tc[0].to_string());
    } else {
        tag("WhiteTimeControl", &game.tc[0].to_string());
        tag("BlackTimeControl", &game.tc[1].to_string());
    }
    tag("PlyCount", &game.moves.len().to_string());
    tag("Termination", &game.termination.to_string());
    out.push('\n');

    // Move numbers come from the positions (a setup phase may give one side two moves in a row).
    let mut tokens: Vec<String> = Vec::new();
    let mut last: Option<(bool, u32)> = None;
    for m in &game.moves {
        if m.white {
            tokens.push(format!("{}.", m.number));
        } else if last != Some((true, m.number)) {
            tokens.push(format!("{}...", m.number));
        }
        last = Some((m.white, m.number));
        tokens.push(m.san.clone());
        if let Some(c) = &m.comment {
            tokens.push(format!("{{{}}}", c.replace('}', ")")));
        }
    }
    if !game.reason.is_empty() {
        tokens.push(format!("{{{}}}", game.reason.replace('}', ")")));
    }
    tokens.push(result.to_string());
    push_movetext(&mut out, &tokens);
    out
}

/// Appends movetext tokens to `out` in lines of at most 79 characters, then
/// the blank line that ends a game.
pub fn push_movetext(out: &mut String, tokens: &[String]) {
    let mut line = String::new();
    for t in tokens {
        if !line.is_empty() && line.len() + 1 + t.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(t);
    }
    out.push_str(&line);
    out.push_str("\n\n");
}

/// A game read from PGN: its tags, move tokens and result.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnGame {
    /// Tag pairs in order.
    pub tags: Vec<(String, String)>,
    /// Move tokens (SAN or UCI), without numbers, comments or variations.
    pub moves: Vec<String>,
    /// The result token (`*` when missing).
    pub result: String,
    /// The last comment (the runner puts the reason for the result there).
    pub last_comment: Option<String>,
    /// The clock after each move (`0:04:59` from `{[%clk 0:04:59]}`), at the
    /// move's index; shorter than `moves` when the last moves carry none.
    pub clocks: Vec<Option<String>>,
    /// The first comment after each move of the main line (`+0.35/12 0.41s`
    /// in a match's games), at the move's index; shorter than `moves` when
    /// the last moves carry none.
    pub comments: Vec<Option<String>>,
}

impl PgnGame {
    /// The value of a tag.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// White's points for the game's result (1, 0.5 or 0); None when it is
    /// unfinished (`*`) or unreadable.
    pub fn white_points(&self) -> Option<f64> {
        match self.result.as_str() {
            "1-0" => Some(1.0),
            "0-1" => Some(0.0),
            "1/2-1/2" => Some(0.5),
            _ => None,
        }
    }

    /// The variant its `Variant` tag names (chess without one); the error
    /// is one line naming it.
    pub fn variant(&self, registry: &Registry) -> Result<Arc<Variant>, String> {
        let name = self.tag("Variant").unwrap_or("chess").trim().to_lowercase();
        registry.get(&name).ok_or_else(|| format!("unknown variant {name:?}"))
    }
}

/// A PGN game replayed through the rules: its variant (the `Variant` tag,
/// chess without one), start position (the `FEN` tag or the variant's) and
/// moves.
#[derive(Clone, Debug)]
pub struct Replayed {
    /// The variant.
    pub variant: Arc<Variant>,
    /// The position before the first move.
    pub start: Position,
    /// The moves, checked legal.
    pub moves: Vec<Move>,
}

impl Replayed {
    /// The start position's FEN.
    pub fn start_fen(&self) -> String {
        self.start.to_fen()
    }
    /// The moves as UCI text.
    pub fn uci_moves(&self) -> Vec<String> {
        let mut pos = self.start.clone();
        self.moves
            .iter()
            .map(|&m| {
                let text = pos.move_to_uci(m, false);
                pos.make(m);
                text
            })
            .collect()
    }
}

/// Replays `game` through the rules of the variant its tags name; the error
/// is one line naming the variant, the FEN or the move that does not fit.
pub fn replay(registry: &Registry, game: &PgnGame) -> Result<Replayed, String> {
    let variant = game.variant(registry)?;
    let start = match game.tag("FEN") {
        Some(f) => Position::from_fen(Arc::clone(&variant), f).map_err(|e| format!("bad FEN: {e}"))?,
        None => Position::startpos(Arc::clone(&variant)).map_err(|e| format!("bad start FEN: {e}"))?,
    };
    let mut pos = start.clone();
    let mut moves = Vec::with_capacity(game.moves.len());
    for text in &game.moves {
        // Named as people write it: `3. Ke3`, `3... Ke3`.
        let dots = if pos.side_to_move() == Color::White { "." } else { "..." };
        let named = format!("move {}{dots} {text}", pos.state().fullmove);
        if pos.game_end().is_some() {
            return Err(format!("{named} comes after the end of the game"));
        }
        let m = parse_san(&mut pos, text).map_err(|e| format!("{named} is {}", e.reason()))?;
        moves.push(m);
        pos.make(m);
    }
    Ok(Replayed { variant, start, moves })
}

fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.trim().strip_prefix('[')?.strip_suffix(']')?;
    let (name, rest) = inner.split_once(char::is_whitespace)?;
    let value = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    Some((name.to_string(), value.replace("\\\"", "\"").replace("\\\\", "\\")))
}

/// The time of a `[%clk H:MM:SS]` command in a comment's text.
fn clock_of(comment: &str) -> Option<String> {
    let rest = comment.split_once("[%clk")?.1;
    let time = rest.split_once(']')?.0.trim();
    (!time.is_empty() && time.chars().all(|c| c.is_ascii_digit() || c == ':' || c == '.')).then(|| time.to_string())
}

/// Reads every game of a PGN text. Malformed parts are skipped, never a panic.
pub fn read_pgn(text: &str) -> Vec<PgnGame> {
    let mut games = Vec::new();
    let mut game = PgnGame::default();
    let mut in_moves = false;
    let mut comment_depth = 0usize;
    let mut variation_depth = 0usize;
    let mut comment = String::new();
    for line in text.lines() {
        if comment_depth == 0 && line.trim_start().starts_with('[') {
            if in_moves {
                // A tag after movetext without a result starts a new game.
                games.push(std::mem::take(&mut game));
                in_moves = false;
            }
            if let Some(t) = parse_tag(line) {
                game.tags.push(t);
            }
            continue;
        }
        let mut token = String::new();
        let chars = line.chars();
        let flush = |token: &mut String, game: &mut PgnGame, games: &mut Vec<PgnGame>, in_moves: &mut bool| {
            let t = std::mem::take(token);
            if t.is_empty() {
                return;
            }
            *in_moves = true;
            if matches!(t.as_str(), "1-0" | "0-1" | "1/2-1/2" | "*") {
                game.result = t;
                games.push(std::mem::take(game));
                *in_moves = false;
                return;
            }
            // Move numbers (`12.`, `12...`) and NAGs (`$1`).
            let t = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
            if t.is_empty() || t.starts_with('$') {
                return;
            }
            game.moves.push(t.to_string());
        };
        for c in chars {
            if comment_depth > 0 {
                if c == '}' {
                    comment_depth = 0;
                    let text = std::mem::take(&mut comment).trim().to_string();
                    if variation_depth == 0 && !game.moves.is_empty() {
                        let at = game.moves.len() - 1;
                        if let Some(clock) = clock_of(&text) {
                            game.clocks.resize(at + 1, None);
                            game.clocks[at] = Some(clock);
                        }
                        if game.comments.get(at).is_none_or(Option::is_none) {
                            game.comments.resize(at + 1, None);
                            game.comments[at] = Some(text.clone());
                        }
                    }
                    game.last_comment = Some(text);
                } else {
                    comment.push(c);
                }
                continue;
            }
            match c {
                '{' => {
                    flush(&mut token, &mut game, &mut games, &mut in_moves);
                    comment_depth = 1;
                }
                ';' => break,
                '(' => {
                    flush(&mut token, &mut game, &mut games, &mut in_moves);
                    variation_depth += 1;
                }
                ')' => {
                    token.clear();
                    variation_depth = variation_depth.saturating_sub(1);
                }
                c if c.is_whitespace() => {
                    if variation_depth == 0 {
                        flush(&mut token, &mut game, &mut games, &mut in_moves);
                    } else {
                        token.clear();
                    }
                }
                c => token.push(c),
            }
        }
        if variation_depth == 0 {
            flush(&mut token, &mut game, &mut games, &mut in_moves);
        }
    }
    if in_moves || !game.tags.is_empty() {
        if game.result.is_empty() {
            game.result = "*".to_string();
        }
        games.push(game);
    }
    games
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_of_the_moves() {
        let text = "1. e4 {[%eval 0.2] [%clk 0:04:59]} e5 {book} 2. Nf3 {[%clk 0:04:50.5]} \
                    (2. f4 {[%clk 9:99:99]}) Nc6 {[%clk bad]} *";
        let games = read_pgn(text);
        assert_eq!(games[0].moves, ["e4", "e5", "Nf3", "Nc6"]);
        let clocks: Vec<Option<&str>> = games[0].clocks.iter().map(Option::as_deref).collect();
        assert_eq!(clocks, [Some("0:04:59"), None, Some("0:04:50.5")], "none from a variation or a bad time");
    }

    #[test]
    fn first_comment_of_each_move() {
        let text = "1. e4 {+0.20/12 0.4s} {second} e5 2. Nf3 {book} (2. f4 {in a variation}) Nc6 {-0.15/9 0.1s} \
                    {White resigns} 0-1";
        let games = read_pgn(text);
        let comments: Vec<Option<&str>> = games[0].comments.iter().map(Option::as_deref).collect();
        assert_eq!(comments, [Some("+0.20/12 0.4s"), None, Some("book"), Some("-0.15/9 0.1s")]);
        assert_eq!(games[0].last_comment.as_deref(), Some("White resigns"));
    }

    #[test]
    fn read_back() {
        let text = "[Event \"t\"]\n[White \"a \\\"b\\\"\"]\n\n1. e4 {book} e5 2. Nf3 (2. f4 exf4) $1 Nc6 ; rest\n{done} 1-0\n\n\
                    [Event \"u\"]\n[FEN \"x\"]\n\n12... a10 13. O-O 1/2-1/2\n";
        let games = read_pgn(text);
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].tag("White"), Some("a \"b\""));
        assert_eq!(games[0].moves, ["e4", "e5", "Nf3", "Nc6"]);
        assert_eq!(games[0].result, "1-0");
        assert_eq!(games[0].last_comment.as_deref(), Some("done"));
        assert_eq!(games[1].moves, ["a10", "O-O"]);
        assert!(games[0].clocks.is_empty(), "no [%clk] read");
        assert_eq!(games[1].result, "1/2-1/2");
        assert!(read_pgn("[[[ {{ ((").len() <= 1);
        assert_eq!(today().len(), 10);
    }
}
