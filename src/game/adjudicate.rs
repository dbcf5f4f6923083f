//! Score-based adjudication, as cutechess-cli offers it: a draw when both
//! engines' scores stay near zero for a number of moves after a move number,
//! and a loss for an engine whose score stays below a threshold (or, two-sided,
//! when both engines' scores agree on who is lost). The match runner and
//! self-play both adjudicate with it.

use std::str::FromStr;

use super::record::SearchInfo;

/// `movenumber=N movecount=M score=S`: a draw when, from move N on, every
/// score of both engines for M moves each is within S centipawns of zero.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrawRule {
    /// First full move at which a draw may be adjudicated.
    pub movenumber: u32,
    /// Consecutive moves per side.
    pub movecount: u32,
    /// Largest absolute score, in centipawns.
    pub score: i32,
}

/// `movecount=M score=S`: an engine whose own score is at most -S centipawns
/// for M consecutive moves loses. Two-sided, both engines' scores count: a
/// side loses when for M consecutive moves each its own score is at most -S
/// and its opponent's at least S.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResignRule {
    /// Consecutive moves of that engine.
    pub movecount: u32,
    /// Threshold in centipawns.
    pub score: i32,
    /// Whether the opponent's score must agree (not read from the text form).
    pub twosided: bool,
}

/// Why an adjudication rule could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad adjudication rule {0:?} (draw: movenumber=N movecount=M score=S; resign: movecount=M score=S)")]
pub struct AdjudicationError(pub String);

fn pairs(text: &str) -> Result<Vec<(String, i64)>, AdjudicationError> {
    let err = || AdjudicationError(text.to_string());
    text.split([' ', ','])
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').ok_or_else(err)?;
            let v: i64 = v.parse().map_err(|_| err())?;
            if !(0..=1_000_000).contains(&v) {
                return Err(err());
            }
            Ok((k.to_string(), v))
        })
        .collect()
}

impl FromStr for DrawRule {
    type Err = AdjudicationError;
    /// ```
    /// use menagerie::game::adjudicate::DrawRule;
    /// let d: DrawRule = "movenumber=40 movecount=8 score=10".parse().unwrap();
    /// assert_eq!((d.movenumber, d.movecount, d.score), (40, 8, 10));
    /// ```
    fn from_str(text: &str) -> Result<DrawRule, AdjudicationError> {
        let mut rule = DrawRule { movenumber: 0, movecount: 0, score: 0 };
        for (k, v) in pairs(text)? {
            match k.as_str() {
                "movenumber" => rule.movenumber = v as u32,
                "movecount" => rule.movecount = v as u32,
                "score" => rule.score = v as i32,
                _ => return Err(AdjudicationError(text.to_string())),
            }
        }
        if rule.movecount == 0 {
            return Err(AdjudicationError(text.to_string()));
        }
        Ok(rule)
    }
}

impl FromStr for ResignRule {
    type Err = AdjudicationError;
    /// ```
    /// use menagerie::game::adjudicate::ResignRule;
    /// let r: ResignRule = "movecount=3 score=1000".parse().unwrap();
    /// assert_eq!((r.movecount, r.score), (3, 1000));
    /// ```
    fn from_str(text: &str) -> Result<ResignRule, AdjudicationError> {
        let mut rule = ResignRule { movecount: 0, score: 0, twosided: false };
        for (k, v) in pairs(text)? {
            match k.as_str() {
                "movecount" => rule.movecount = v as u32,
                "score" => rule.score = v as i32,
                _ => return Err(AdjudicationError(text.to_string())),
            }
        }
        if rule.movecount == 0 || rule.score == 0 {
            return Err(AdjudicationError(text.to_string()));
        }
        Ok(rule)
    }
}

/// What the adjudicator decided after a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Both engines agree the game is level.
    Draw,
    /// The engine of this side (0 = White, 1 = Black) is lost.
    Loses(usize),
}

/// Counts consecutive qualifying scores during one game.
#[derive(Clone, Debug, Default)]
pub struct Adjudicator {
    draw: Option<DrawRule>,
    resign: Option<ResignRule>,
    draw_plies: u32,
    losing: [u32; 2],
}

/// A score in centipawns from the mover's point of view (mates as ±30000).
fn centipawns(info: &SearchInfo) -> Option<i32> {
    match (info.mate, info.score_cp) {
        (Some(m), _) => Some(if m > 0 { 30_000 } else { -30_000 }),
        (None, cp) => cp,
    }
}

impl Adjudicator {
    /// An adjudicator with these rules (either may be absent).
    pub fn new(draw: Option<DrawRule>, resign: Option<ResignRule>) -> Adjudicator {
        Adjudicator { draw, resign, draw_plies: 0, losing: [0, 0] }
    }

    /// Records the score `side` reported with its move at full move `number`.
    pub fn record(&mut self, side: usize, number: u32, info: &SearchInfo) -> Option<Verdict> {
        let score = centipawns(info);
        if let Some(rule) = self.resign {
            if let Some(loser) = self.count_losing(rule, side.min(1), score) {
                return Some(Verdict::Loses(loser));
            }
        }
        if let Some(rule) = self.draw {
            self.draw_plies = match score {
                Some(s) if number >= rule.movenumber && s.abs() <= rule.score => self.draw_plies + 1,
                _ => 0,
            };
            if self.draw_plies >= 2 * rule.movecount {
                return Some(Verdict::Draw);
            }
        }
        None
    }

    /// Counts `side`'s `score` towards a loss; the side that has lost, if any.
    fn count_losing(&mut self, rule: ResignRule, side: usize, score: Option<i32>) -> Option<usize> {
        if !rule.twosided {
            let slot = &mut self.losing[side];
            *slot = match score {
                Some(s) if s <= -rule.score => *slot + 1,
                _ => 0,
            };
            return (*slot >= rule.movecount).then_some(side);
        }
        // Each move of either engine counts for the side it calls lost.
        let lost = match score {
            Some(s) if s <= -rule.score => Some(side),
            Some(s) if s >= rule.score => Some(1 - side),
            _ => None,
        };
        for (who, slot) in self.losing.iter_mut().enumerate() {
            *slot = if lost == Some(who) { *slot + 1 } else { 0 };
        }
        lost.filter(|&who| self.losing[who] >= 2 * rule.movecount)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cp(v: i32) -> SearchInfo {
        SearchInfo { score_cp: Some(v), mate: None, depth: Some(1) }
    }

    #[test]
    fn rules() {
        let mut a =
            Adjudicator::new("movenumber=2 movecount=2 score=10".parse().ok(), "movecount=2 score=500".parse().ok());
        assert_eq!(a.record(0, 1, &cp(0)), None);
        assert_eq!(a.record(1, 1, &cp(0)), None);
        // Counting starts at move 2.
        assert_eq!(a.record(0, 2, &cp(5)), None);
        assert_eq!(a.record(1, 2, &cp(-5)), None);
        assert_eq!(a.record(0, 3, &cp(0)), None);
        assert_eq!(a.record(1, 3, &cp(3)), Some(Verdict::Draw));
        let mut a = Adjudicator::new(None, "movecount=2 score=500".parse().ok());
        assert_eq!(a.record(1, 1, &cp(-600)), None);
        assert_eq!(a.record(0, 2, &cp(600)), None);
        let mate = SearchInfo { score_cp: None, mate: Some(-3), depth: None };
        assert_eq!(a.record(1, 2, &mate), Some(Verdict::Loses(1)));
        // A move without a score breaks the run.
        let mut a = Adjudicator::new(None, "movecount=2 score=500".parse().ok());
        assert_eq!(a.record(0, 1, &cp(-600)), None);
        assert_eq!(a.record(0, 2, &SearchInfo::default()), None);
        assert_eq!(a.record(0, 3, &cp(-600)), None);
        // Two-sided: both engines' moves count, and must agree on the loser.
        let rule = ResignRule { movecount: 2, score: 500, twosided: true };
        let mut a = Adjudicator::new(None, Some(rule));
        assert_eq!(a.record(0, 1, &cp(600)), None);
        assert_eq!(a.record(1, 1, &cp(-600)), None);
        assert_eq!(a.record(0, 2, &cp(-600)), None);
        assert_eq!(a.record(1, 2, &cp(600)), None);
        assert_eq!(a.record(0, 3, &cp(-600)), None);
        assert_eq!(a.record(1, 3, &cp(600)), Some(Verdict::Loses(0)));
        assert!("movecount=0 score=5".parse::<ResignRule>().is_err());
        assert!("movenumber=x".parse::<DrawRule>().is_err());
        assert!("bogus=1 movecount=1".parse::<DrawRule>().is_err());
    }
}
