//! `NAME.eval` files: tuned weights of one variant as plain text (uses
//! eval::params).
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

/// Reads `text` (from `file`) against `layout`. Errors are `FILE:LINE: message`.
pub fn parse(file: &str, text: &str, layout: &Layout) -> Result<TunedWeights, String> {
    let mut entries: Vec<(usize, bool, i32)> = Vec::new();
    for (number, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = |message: String| format!("{file}:{}: {message}", number + 1);
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
