//! Test suites in EPD: one position a line (a FEN of the variant, its
//! move counters optional) followed by operations, `bm` (best moves: the
//! engine must play one of them), `am` (avoid moves: it must play none of
//! them) and `id` (a name); other operations are ignored. Moves are written in
//! SAN or UCI text. Blank lines and `#` comments are skipped.

use std::sync::Arc;

use super::san::{parse_san, SanError};
use crate::board::position::Position;
use crate::rules::moves::Move;
use crate::rules::variant::Variant;

/// One position of a suite with what is asked of it.
#[derive(Clone, Debug)]
pub struct EpdEntry {
    /// 1-based line in the file.
    pub line: usize,
    /// The `id`, or `line N` when there is none.
    pub id: String,
    /// The position.
    pub position: Position,
    /// Best moves (`bm`): one of them must be played.
    pub best: Vec<Move>,
    /// Moves to avoid (`am`): none of them may be played.
    pub avoid: Vec<Move>,
}

impl EpdEntry {
    /// Whether playing `m` solves the entry.
    pub fn solved_by(&self, m: Move) -> bool {
        (self.best.is_empty() || self.best.contains(&m)) && !self.avoid.contains(&m)
    }
}

/// Splits the operations `bm Qh7#; id "a; b";` into (opcode, operands),
/// keeping quoted text whole.
fn operations(text: &str) -> Vec<(String, Vec<String>)> {
    let mut ops = Vec::new();
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    for c in text.chars().chain(std::iter::once(';')) {
        match c {
            '"' => {
                quoted = !quoted;
                if !quoted {
                    words.push(std::mem::take(&mut word));
                }
            }
            c if quoted => word.push(c),
            ';' => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
                if let Some((op, rest)) = words.split_first() {
                    ops.push((op.clone(), rest.to_vec()));
                }
                words.clear();
            }
            c if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    ops
}

/// Reads one EPD line: the position (the longest run of at most 7 leading
/// fields that is a FEN of `variant`) and its operations.
fn parse_line(variant: &Arc<Variant>, number: usize, line: &str) -> Result<EpdEntry, String> {
    let fields: Vec<(usize, &str)> =
        line.split_whitespace().map(|w| (w.as_ptr() as usize - line.as_ptr() as usize, w)).take(7).collect();
    let (count, position) = (1..=fields.len())
        .rev()
        .find_map(|n| {
            let fen: Vec<&str> = fields[..n].iter().map(|f| f.1).collect();
            Position::from_fen(Arc::clone(variant), &fen.join(" ")).ok().map(|p| (n, p))
        })
        .ok_or_else(|| format!("line {number}: no {} position at the start of the line", variant.name))?;
    let rest = fields.get(count).map_or("", |&(at, _)| &line[at..]);
    let mut entry =
        EpdEntry { line: number, id: format!("line {number}"), position, best: Vec::new(), avoid: Vec::new() };
    for (op, operands) in operations(rest) {
        match op.as_str() {
            "bm" | "am" => {
                for text in &operands {
                    let mut pos = entry.position.clone();
                    let m = parse_san(&mut pos, text).map_err(|e| {
                        let reason = match e {
                            SanError::Illegal(_) => "not legal in this position".to_string(),
                            other => other.reason(),
                        };
                        format!("line {number}: {op} move {text:?} is {reason}")
                    })?;
                    if op == "bm" {
                        entry.best.push(m);
                    } else {
                        entry.avoid.push(m);
                    }
                }
                if operands.is_empty() {
                    return Err(format!("line {number}: {op} without a move"));
                }
            }
            "id" => entry.id = operands.join(" "),
            _ => {}
        }
    }
    if entry.best.is_empty() && entry.avoid.is_empty() {
        return Err(format!("line {number}: no bm or am operation"));
    }
    Ok(entry)
}

/// Reads a suite; the error names the first line that does not fit.
pub fn read_suite(variant: &Arc<Variant>, text: &str) -> Result<Vec<EpdEntry>, String> {
    let mut entries = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        entries.push(parse_line(variant, i + 1, line)?);
    }
    if entries.is_empty() {
        return Err("no positions in the suite".to_string());
    }
    Ok(entries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::registry::Registry;

    #[test]
    fn operations_and_moves() {
        let reg = Registry::builtin();
        let chess = reg.get("chess").unwrap();
        let text = "# a suite\n\n\
                    6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; id \"back rank; mate\";\n\
                    r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 am f3g5 Nxe5; c0 \"x\";\n";
        let suite = read_suite(&chess, text).unwrap();
        assert_eq!(suite.len(), 2);
        assert_eq!(suite[0].id, "back rank; mate");
        assert_eq!(suite[0].line, 3);
        assert_eq!(suite[0].best.len(), 1);
        assert_eq!((suite[1].id.as_str(), suite[1].avoid.len()), ("line 4", 2));
        assert!(!suite[1].solved_by(suite[1].avoid[0]));
        let e = read_suite(&chess, "8/8/8/8/8/8/8/K6k w - - bm Qh7;").unwrap_err();
        assert!(e.contains("line 1: bm move \"Qh7\" is not legal"), "{e}");
        assert!(read_suite(&chess, "8/8/8/8/8/8/8/K6k w - - id \"x\";").unwrap_err().contains("no bm or am"));
        assert!(read_suite(&chess, "garbage bm e4;").unwrap_err().contains("no chess position"));
        assert!(read_suite(&chess, "\n# only comments\n").is_err());
        // Drops in a variant with hands.
        let cw = reg.get("clockwork").unwrap();
        let suite = read_suite(&cw, "6k1/5ppp/8/8/8/8/8/6K1[Q] w - - bm Q@d8;").unwrap();
        assert_eq!(suite[0].best.len(), 1);
    }
}
