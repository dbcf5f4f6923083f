//! `NAME.eval` files: tuned weights of one variant as plain text.
//!
//! One `name value` pair a line, the name carrying its phase
//! (`material.N.mg 312`); `#` starts a comment, and the first comment lines
//! say which command produced the file. Weights the file leaves out keep
//! their derived defaults.

use std::fmt::Write as _;

use super::params::{Layout, Weight};

/// Weights read from an `.eval` file: `(parameter, endgame?, value)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TunedWeights {
    /// Where they came from (for messages).
    pub source: String,
    /// The weights the file sets.
    pub entries: Vec<(usize, bool, i32)>,
}

impl TunedWeights {
    /// Overrides `weights` with the entries.
    pub fn apply(&self, weights: &mut [Weight]) {
        for &(index, endgame, value) in &self.entries {
            if let Some(w) = weights.get_mut(index) {
                if endgame {
                    w.eg = value;
                } else {
                    w.mg = value;
                }
            }
        }
    }
}

/// A line of an `.eval` file that cannot be read; shown as `FILE:LINE: message`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct EvalFileError {
    /// The file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// Reads `text` (from `file`) against `layout`.
pub fn parse(file: &str, text: &str, layout: &Layout) -> Result<TunedWeights, EvalFileError> {
    let mut entries: Vec<(usize, bool, i32)> = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = |message: String| EvalFileError { file: file.to_string(), line: number + 1, message };
        let words: Vec<&str> = line.split_whitespace().collect();
        let [name, value] = words[..] else {
            return Err(at(format!("expected 'name value', found '{line}'")));
        };
        let (param, endgame) = match name.rsplit_once('.') {
            Some((param, "mg")) => (param, false),
            Some((param, "eg")) => (param, true),
            _ => return Err(at(format!("'{name}' must end in .mg or .eg"))),
        };
        let index = layout.index(param).ok_or_else(|| at(format!("unknown parameter '{param}'")))?;
        let value: i32 = value.parse().map_err(|_| at(format!("'{value}' is not a whole number")))?;
        if entries.iter().any(|&(i, e, _)| i == index && e == endgame) {
            return Err(at(format!("'{name}' is set twice")));
        }
        entries.push((index, endgame, value));
    }
    Ok(TunedWeights { source: file.to_string(), entries })
}

/// The text of an `.eval` file holding every weight, after `header` (each
/// of its lines becomes a comment).
pub fn write(layout: &Layout, weights: &[Weight], header: &str) -> String {
    let mut out = String::new();
    for line in header.lines() {
        let _ = writeln!(out, "# {line}");
    }
    for (index, w) in weights.iter().enumerate().take(layout.len()) {
        let name = layout.name(index);
        let _ = writeln!(out, "{name}.mg {}", w.mg);
        let _ = writeln!(out, "{name}.eg {}", w.eg);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::registry::Registry;

    fn chess_layout() -> Layout {
        Layout::new(&Registry::builtin().get("chess").expect("chess ships"))
    }

    #[test]
    fn reads_what_it_writes() {
        let layout = chess_layout();
        let weights: Vec<Weight> = (0..layout.len() as i32).map(|i| Weight { mg: i, eg: -i }).collect();
        let text = write(&layout, &weights, "made by a test\nsecond line");
        assert!(text.starts_with("# made by a test\n# second line\n"));
        let read = parse("t.eval", &text, &layout).expect("own output");
        let mut back = vec![Weight::default(); layout.len()];
        read.apply(&mut back);
        assert_eq!(back, weights);
    }

    #[test]
    fn a_malformed_line_is_an_error_with_file_and_line() {
        let layout = chess_layout();
        let cases = [
            ("material.N.mg 300\nmaterial.N.eg\n", 2, "expected 'name value'"),
            ("# header\n\nmaterial.N 300\n", 3, "must end in .mg or .eg"),
            ("material.N.mg three\n", 1, "is not a whole number"),
            ("tempo.mg 10\ntempo.mg 12\n", 2, "set twice"),
        ];
        for (text, line, message) in cases {
            let e = parse("x.eval", text, &layout).expect_err(text);
            assert_eq!(e.line, line, "{text}");
            assert!(e.to_string().starts_with(&format!("x.eval:{line}: ")), "{e}");
            assert!(e.message.contains(message), "{e}");
        }
    }

    #[test]
    fn an_unknown_parameter_is_an_error() {
        let e = parse("x.eval", "material.Z.mg 300\n", &chess_layout()).expect_err("no Z in chess");
        assert_eq!(e.to_string(), "x.eval:1: unknown parameter 'material.Z'");
    }
}
