//! Betza notation (with the XBetza modifiers we need) compiled into move rules.
//!
//! Supported: atoms `W F D N A H C Z G` and the compounds `K Q R B`; riders by
//! doubling (`NN`), by a range suffix (`N0` unlimited, `W3` at most 3, `W3..`
//! at least 3, `W2..4`); modifiers `m` (move only), `c` (capture only), `p`
//! (hop over exactly one screen), `n` (lame: the square on the way must be
//! empty), `i` (only from the piece's initial rank) and the directions
//! `f b l r v s` (adjacent `fl`-style pairs mean one diagonal direction);
//! and bent riders in brackets, `[F-W3..]`, whose second leg continues outward
//! (the Tamerlane giraffe). Anything else is an error with its column.

use std::fmt;

use crate::rules::motion::{Mode, Motion, MoveRule, Vector, UNLIMITED};

/// A Betza syntax error: the column (1-based, in the Betza text) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BetzaError {
    /// 1-based column in the Betza string.
    pub column: usize,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for BetzaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "column {}: {}", self.column, self.message)
    }
}

/// A rider's (min, max) steps.
type Range = (u8, u8);

fn atom_vector(letter: u8) -> Option<(i8, i8)> {
    Some(match letter {
        b'W' => (1, 0),
        b'F' => (1, 1),
        b'D' => (2, 0),
        b'N' => (2, 1),
        b'A' => (2, 2),
        b'H' => (3, 0),
        b'C' => (3, 1),
        b'Z' => (3, 2),
        b'G' => (3, 3),
        _ => return None,
    })
}

/// All symmetric images of a leap vector, without duplicates.
fn symmetric(v: (i8, i8)) -> Vec<(i8, i8)> {
    let mut out = Vec::new();
    for (a, b) in [(v.0, v.1), (v.1, v.0)] {
        for sa in [1, -1] {
            for sb in [1, -1] {
                let d = (a * sa, b * sb);
                if !out.contains(&d) {
                    out.push(d);
                }
            }
        }
    }
    out
}

#[derive(Clone, Copy, Debug)]
enum DirFilter {
    Forward,
    Backward,
    Left,
    Right,
    Vertical,
    Sideways,
    Both(u8, u8),
}

fn matches_single(letter: u8, d: (i8, i8)) -> bool {
    let (dx, dy) = (d.0 as i32, d.1 as i32);
    match letter {
        b'f' => dy > 0,
        b'b' => dy < 0,
        b'l' => dx < 0,
        b'r' => dx > 0,
        b'v' => dy.abs() > dx.abs(),
        b's' => dx.abs() > dy.abs(),
        _ => false,
    }
}

impl DirFilter {
    fn matches(self, d: (i8, i8)) -> bool {
        match self {
            DirFilter::Forward => matches_single(b'f', d),
            DirFilter::Backward => matches_single(b'b', d),
            DirFilter::Left => matches_single(b'l', d),
            DirFilter::Right => matches_single(b'r', d),
            DirFilter::Vertical => matches_single(b'v', d),
            DirFilter::Sideways => matches_single(b's', d),
            DirFilter::Both(a, b) => matches_single(a, d) && matches_single(b, d),
        }
    }
}

#[derive(Default)]
struct Modifiers {
    quiet: bool,
    capture: bool,
    hop: bool,
    lame: bool,
    initial: bool,
    dirs: Vec<DirFilter>,
}

impl Modifiers {
    fn mode(&self) -> Mode {
        match (self.quiet, self.capture) {
            (true, false) => Mode::Quiet,
            (false, true) => Mode::Capture,
            _ => Mode::Both,
        }
    }
    fn allows(&self, d: (i8, i8)) -> bool {
        self.dirs.is_empty() || self.dirs.iter().any(|f| f.matches(d))
    }
}

struct Parser<'a> {
    text: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn error<T>(&self, at: usize, message: impl Into<String>) -> Result<T, BetzaError> {
        Err(BetzaError { column: at + 1, message: message.into() })
    }
    fn peek(&self) -> Option<u8> {
        self.text.get(self.pos).copied()
    }

    fn modifiers(&mut self) -> Modifiers {
        let mut m = Modifiers::default();
        while let Some(c) = self.peek() {
            match c {
                b'm' => m.quiet = true,
                b'c' => m.capture = true,
                b'p' => m.hop = true,
                b'n' => m.lame = true,
                b'i' => m.initial = true,
                b'f' | b'b' => {
                    let next = self.text.get(self.pos + 1).copied();
                    if let Some(side @ (b'l' | b'r')) = next {
                        m.dirs.push(DirFilter::Both(c, side));
                        self.pos += 1;
                    } else {
                        m.dirs.push(if c == b'f' { DirFilter::Forward } else { DirFilter::Backward });
                    }
                }
                b'l' => m.dirs.push(DirFilter::Left),
                b'r' => m.dirs.push(DirFilter::Right),
                b'v' => m.dirs.push(DirFilter::Vertical),
                b's' => m.dirs.push(DirFilter::Sideways),
                _ => break,
            }
            self.pos += 1;
        }
        m
    }

    /// Reads a range suffix: none, `0`, `n`, `n..`, `n..m`. Returns (min, max) if present.
    fn range(&mut self) -> Result<Option<(u8, u8)>, BetzaError> {
        let start = self.pos;
        let number = |p: &mut Parser| -> Option<u32> {
            let s = p.pos;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.pos += 1;
            }
            std::str::from_utf8(&p.text[s..p.pos]).ok()?.parse().ok()
        };
        let Some(first) = number(self) else {
            if self.text[self.pos..].starts_with(b"..") {
                return self.error(start, "a range needs a number before '..'");
            }
            return Ok(None);
        };
        let clamp = |n: u32| n.min(UNLIMITED as u32) as u8;
        if self.text[self.pos..].starts_with(b"..") {
            self.pos += 2;
            let max = number(self).map(clamp).unwrap_or(UNLIMITED);
            let min = clamp(first.max(1));
            if max < min {
                return self.error(start, "range maximum is below its minimum");
            }
            return Ok(Some((min, max)));
        }
        Ok(Some(if first == 0 { (1, UNLIMITED) } else { (1, clamp(first)) }))
    }

    /// Parses one atom with its modifiers, appending its rules.
    fn atom(&mut self, out: &mut Vec<MoveRule>) -> Result<(), BetzaError> {
        let mods_at = self.pos;
        let m = self.modifiers();
        let at = self.pos;
        let Some(letter) = self.peek() else {
            return self.error(mods_at, "modifiers without a piece letter");
        };
        if letter == b'[' {
            return self.bent(m, out);
        }
        self.pos += 1;
        // Compounds and their rider forms.
        let (vectors, mut rider): (Vec<Vector>, Option<Range>) = match letter {
            b'K' => (vec![(1, 0), (1, 1)], None),
            b'Q' => (vec![(1, 0), (1, 1)], Some((1, UNLIMITED))),
            b'R' => (vec![(1, 0)], Some((1, UNLIMITED))),
            b'B' => (vec![(1, 1)], Some((1, UNLIMITED))),
            _ => match atom_vector(letter) {
                Some(v) => {
                    if self.peek() == Some(letter) {
                        self.pos += 1;
                        (vec![v], Some((1, UNLIMITED)))
                    } else {
                        (vec![v], None)
                    }
                }
                None => {
                    let shown = self
                        .text
                        .get(at..)
                        .and_then(|t| std::str::from_utf8(t).ok())
                        .and_then(|t| t.chars().next())
                        .unwrap_or('?');
                    return self.error(at, format!("unknown Betza letter '{shown}'"));
                }
            },
        };
        if let Some(r) = self.range()? {
            if letter == b'K' || rider.is_some() && !matches!(letter, b'Q' | b'R' | b'B') {
                return self.error(at, "a range suffix on a piece that is already a rider");
            }
            rider = Some(r);
        }
        let mode = m.mode();
        for v in vectors {
            let motion = if m.hop {
                if rider.is_none() {
                    return self.error(mods_at, "'p' (hopper) needs a rider such as R, B, Q or WW");
                }
                Motion::Hop
            } else if m.lame {
                if rider.is_some() {
                    return self.error(mods_at, "'n' (lame) applies to leaps, not riders");
                }
                match v {
                    (2, 0) | (2, 2) | (2, 1) => Motion::Leap, // via filled in per direction below
                    _ => return self.error(mods_at, "'n' (lame) is supported for D, A and N"),
                }
            } else if let Some((min, max)) = rider {
                Motion::Ride { min, max }
            } else {
                Motion::Leap
            };
            for d in symmetric(v) {
                if !m.allows(d) {
                    continue;
                }
                let motion = if m.lame {
                    // D and A pass over their midpoint; N passes its orthogonal neighbour.
                    let via = if d.0.abs() == d.1.abs() || d.0 == 0 || d.1 == 0 {
                        (d.0 / 2, d.1 / 2)
                    } else if d.0.abs() == 2 {
                        (d.0 / 2, 0)
                    } else {
                        (0, d.1 / 2)
                    };
                    Motion::Lame { via }
                } else {
                    motion
                };
                out.push(MoveRule { dx: d.0, dy: d.1, motion, mode, initial_only: m.initial });
            }
        }
        Ok(())
    }

    /// `[F-W3..]`: a first step, then an outward second leg.
    fn bent(&mut self, m: Modifiers, out: &mut Vec<MoveRule>) -> Result<(), BetzaError> {
        let open = self.pos;
        self.pos += 1;
        let first_at = self.pos;
        let first = self.peek().and_then(atom_vector);
        let Some(first) = first else {
            return self.error(first_at, "a bent piece '[A-B]' starts with a leap atom");
        };
        self.pos += 1;
        if self.peek() != Some(b'-') {
            return self.error(self.pos, "expected '-' between the legs of a bent piece");
        }
        self.pos += 1;
        let second_at = self.pos;
        let Some(second) = self.peek().and_then(atom_vector) else {
            return self.error(second_at, "the second leg of a bent piece is a leap atom");
        };
        self.pos += 1;
        let (min, max) = self.range()?.unwrap_or((1, UNLIMITED));
        if self.peek() != Some(b']') {
            return self.error(open, "unclosed '['");
        }
        self.pos += 1;
        if m.hop || m.lame {
            return self.error(open, "'p' and 'n' cannot modify a bent piece");
        }
        for d in symmetric(first) {
            if !m.allows(d) {
                continue;
            }
            for s in symmetric(second) {
                let outward = |a: i8, b: i8| a == 0 || a.signum() == b.signum();
                if s == d || !outward(s.0, d.0) || !outward(s.1, d.1) {
                    continue;
                }
                out.push(MoveRule {
                    dx: d.0,
                    dy: d.1,
                    motion: Motion::Bent { second: s, min, max },
                    mode: m.mode(),
                    initial_only: m.initial,
                });
            }
        }
        Ok(())
    }
}

/// Parses a Betza string (spaces between atoms are allowed) into move rules.
///
/// ```
/// use menagerie::rules::betza::parse;
/// assert_eq!(parse("NN").unwrap().len(), 8);
/// assert_eq!(parse("[F-W3..]").unwrap().len(), 8);
/// assert!(parse("fmWX").is_err());
/// ```
pub fn parse(text: &str) -> Result<Vec<MoveRule>, BetzaError> {
    if !text.is_ascii() {
        let col = text.char_indices().find(|(_, c)| !c.is_ascii()).map_or(0, |(i, _)| i);
        return Err(BetzaError { column: col + 1, message: "non-ASCII character".into() });
    }
    let mut p = Parser { text: text.as_bytes(), pos: 0 };
    let mut out = Vec::new();
    while p.pos < p.text.len() {
        if p.text[p.pos] == b' ' {
            p.pos += 1;
            continue;
        }
        p.atom(&mut out)?;
    }
    if out.is_empty() {
        return Err(BetzaError { column: 1, message: "no moves".into() });
    }
    // Merge quiet and capture twins of the same geometry into one rule.
    let mut merged: Vec<MoveRule> = Vec::with_capacity(out.len());
    for r in out {
        if let Some(prev) = merged
            .iter_mut()
            .find(|p| p.dx == r.dx && p.dy == r.dy && p.motion == r.motion && p.initial_only == r.initial_only)
        {
            if prev.mode != r.mode {
                prev.mode = Mode::Both;
            }
        } else {
            merged.push(r);
        }
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(text: &str) -> usize {
        parse(text).unwrap().len()
    }

    #[test]
    fn standard_pieces_have_the_right_number_of_directions() {
        assert_eq!(count("K"), 8);
        assert_eq!(count("Q"), 8);
        assert_eq!(count("R"), 4);
        assert_eq!(count("B"), 4);
        assert_eq!(count("N"), 8);
        assert_eq!(count("BN"), 12);
        assert_eq!(count("KAD"), 16);
        assert_eq!(count("fmWfcF"), 3);
        assert_eq!(count("fK"), 3);
    }

    #[test]
    fn pawn_rules_are_directional_and_moded() {
        let rules = parse("fmW fcF ifmnD").unwrap();
        assert!(rules.iter().all(|r| r.dy > 0));
        let double = rules.iter().find(|r| r.dy == 2).unwrap();
        assert!(double.initial_only);
        assert_eq!(double.motion, Motion::Lame { via: (0, 1) });
        assert_eq!(double.mode, Mode::Quiet);
        assert!(rules.iter().filter(|r| r.dx != 0).all(|r| r.mode == Mode::Capture));
    }

    #[test]
    fn riders_hoppers_and_bent_riders() {
        let nn = parse("NN").unwrap();
        assert!(nn.iter().all(|r| r.motion == Motion::Ride { min: 1, max: UNLIMITED }));
        assert_eq!(parse("N0").unwrap(), nn);
        let cannon = parse("mRcpR").unwrap();
        assert_eq!(cannon.iter().filter(|r| r.motion == Motion::Hop && r.mode == Mode::Capture).count(), 4);
        assert_eq!(
            cannon.iter().filter(|r| matches!(r.motion, Motion::Ride { .. }) && r.mode == Mode::Quiet).count(),
            4
        );
        let giraffe = parse("[F-W3..]").unwrap();
        for r in &giraffe {
            let Motion::Bent { second, min, .. } = r.motion else { panic!() };
            assert_eq!(min, 3);
            assert!(second == (r.dx, 0) || second == (0, r.dy));
        }
        assert_eq!(parse("W3..").unwrap()[0].motion, Motion::Ride { min: 3, max: UNLIMITED });
        assert_eq!(parse("W2..4").unwrap()[0].motion, Motion::Ride { min: 2, max: 4 });
    }

    #[test]
    fn errors_name_the_column() {
        assert_eq!(parse("fmWX").unwrap_err().column, 4);
        assert_eq!(parse("KYD").unwrap_err().column, 2);
        assert!(parse("pN").is_err());
        assert!(parse("nH").is_err());
        assert!(parse("[F-W3..").is_err());
        assert!(parse("[FW]").is_err());
        assert!(parse("").is_err());
        assert!(parse("mc").is_err());
        assert!(parse("W..3").is_err());
        assert!(parse("Wé").is_err());
    }
}
