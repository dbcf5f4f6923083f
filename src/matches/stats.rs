//! Match statistics: W/D/L, score, logistic Elo difference with a 95 %
//! error margin, likelihood of superiority, pentanomial counts of paired
//! games and the sequential probability ratio test.
//!
//! The formulas are those of cutechess-cli and fishtest, written anew:
//! Elo = -400 log10(1/s - 1) for score s; the margin maps s ± 1.96 standard
//! errors through the same curve and halves the width; the SPRT is the
//! generalised SPRT of fishtest's "logistic" model: the log-likelihood ratio
//! of the maximum-likelihood outcome distributions whose mean scores are those
//! of elo0 and elo1, over game scores (trinomial) or over pair scores
//! (pentanomial, when games are paired). For many games it equals the normal
//! approximation N (s1 - s0) (2 mean - s0 - s1) / (2 var).

use std::fmt;
use std::str::FromStr;

/// The 97.5 % quantile of the standard normal distribution.
const Z95: f64 = 1.959_963_984_540_054;

/// Wins, draws and losses from one side's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

impl Wdl {
    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }
    /// Points scored (draw = 1/2).
    pub fn points(&self) -> f64 {
        self.wins as f64 + self.draws as f64 / 2.0
    }
    /// Score fraction in 0..=1 (0.5 when no game was played).
    pub fn fraction(&self) -> f64 {
        if self.games() == 0 {
            0.5
        } else {
            self.points() / self.games() as f64
        }
    }
    /// The same games seen from the other side.
    pub fn flipped(&self) -> Wdl {
        Wdl { wins: self.losses, draws: self.draws, losses: self.wins }
    }
    /// Adds one game result (1, 0.5 or 0 points).
    pub fn add(&mut self, points: f64) {
        if points > 0.75 {
            self.wins += 1;
        } else if points < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }
    /// Elo difference and its 95 % margin (None without games).
    pub fn elo(&self) -> Option<EloEstimate> {
        let counts = [self.losses as f64, self.draws as f64, self.wins as f64];
        estimate(&counts, &[0.0, 0.5, 1.0])
    }
    /// Likelihood of superiority in 0..=1, from wins and losses.
    pub fn los(&self) -> f64 {
        let (w, l) = (self.wins as f64, self.losses as f64);
        if w + l == 0.0 {
            return 0.5;
        }
        0.5 * (1.0 + erf((w - l) / (2.0 * (w + l)).sqrt()))
    }
    /// Draw ratio in 0..=1.
    pub fn draw_ratio(&self) -> f64 {
        if self.games() == 0 {
            0.0
        } else {
            self.draws as f64 / self.games() as f64
        }
    }
}

/// Counts of game pairs by pair score 0, 1/2, 1, 3/2, 2 (same opening, colours swapped).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u32; 5]);

impl Pentanomial {
    /// Records a pair worth `points` (0..=2 in half points).
    pub fn add(&mut self, points: f64) {
        let i = (points * 2.0).round().clamp(0.0, 4.0) as usize;
        self.0[i] += 1;
    }
    /// Number of pairs.
    pub fn pairs(&self) -> u32 {
        self.0.iter().sum()
    }
    /// Elo difference and its 95 % margin from the pair scores.
    pub fn elo(&self) -> Option<EloEstimate> {
        let counts = self.0.map(|c| c as f64);
        estimate(&counts, &[0.0, 0.25, 0.5, 0.75, 1.0])
    }
}

impl fmt::Display for Pentanomial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.0;
        write!(f, "[{}, {}, {}, {}, {}]", p[0], p[1], p[2], p[3], p[4])
    }
}

/// An Elo difference with its 95 % error margin.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EloEstimate {
    /// Estimated difference (infinite after a clean sweep).
    pub elo: f64,
    /// Half width of the 95 % interval (infinite when unbounded).
    pub margin: f64,
}

impl fmt::Display for EloEstimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let num = |x: f64| {
            if x.is_finite() {
                format!("{x:+.1}")
            } else if x > 0.0 {
                "+inf".to_string()
            } else {
                "-inf".to_string()
            }
        };
        let margin = if self.margin.is_finite() { format!("{:.1}", self.margin) } else { "inf".to_string() };
        write!(f, "{} +/- {}", num(self.elo), margin)
    }
}

/// Logistic Elo of a score fraction.
pub fn elo_of_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        // Adding 0.0 turns -0.0 into 0.0 for display.
        -400.0 * (1.0 / s - 1.0).log10() + 0.0
    }
}

/// Expected score of a logistic Elo difference.
pub fn score_of_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// Mean and per-sample variance of a distribution given by counts over values.
fn mean_var(counts: &[f64], values: &[f64]) -> Option<(f64, f64, f64)> {
    let n: f64 = counts.iter().sum();
    if n <= 0.0 {
        return None;
    }
    let mean = counts.iter().zip(values).map(|(c, v)| c * v).sum::<f64>() / n;
    let var = counts.iter().zip(values).map(|(c, v)| c * (v - mean).powi(2)).sum::<f64>() / n;
    Some((n, mean, var))
}

fn estimate(counts: &[f64], values: &[f64]) -> Option<EloEstimate> {
    let (n, mean, var) = mean_var(counts, values)?;
    let stderr = (var / n).sqrt();
    let low = elo_of_score(mean - Z95 * stderr);
    let high = elo_of_score(mean + Z95 * stderr);
    Some(EloEstimate { elo: elo_of_score(mean), margin: (high - low) / 2.0 })
}

/// The error function (Abramowitz and Stegun 7.1.26, |error| < 1.5e-7).
pub fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly =
        t * (0.254_829_592 + t * (-0.284_496_736 + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x >= 0.0 {
        y
    } else {
        -y
    }
}

/// The distribution closest to `phat` (maximum likelihood) whose mean over
/// `values` is `mean`: p_i = phat_i / (1 + t (v_i - mean)), with t found by
/// bisection (the constraint is monotone in t). `mean` must lie strictly
/// between the smallest and largest value.
fn mle_with_mean(phat: &[f64], values: &[f64], mean: f64) -> Vec<f64> {
    let high_v = values.iter().copied().fold(f64::MIN, f64::max) - mean;
    let low_v = values.iter().copied().fold(f64::MAX, f64::min) - mean;
    // Every denominator stays positive for t in (-1/high_v, -1/low_v).
    let (mut lo, mut hi) = (-1.0 / high_v, -1.0 / low_v);
    let constraint =
        |t: f64| phat.iter().zip(values).map(|(p, v)| p * (v - mean) / (1.0 + t * (v - mean))).sum::<f64>();
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if constraint(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let t = 0.5 * (lo + hi);
    phat.iter().zip(values).map(|(p, v)| p / (1.0 + t * (v - mean))).collect()
}

/// Parameters of a sequential probability ratio test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sprt {
    /// Elo of the null hypothesis.
    pub elo0: f64,
    /// Elo of the alternative hypothesis.
    pub elo1: f64,
    /// False positive rate.
    pub alpha: f64,
    /// False negative rate.
    pub beta: f64,
}

/// What an SPRT says after some games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtDecision {
    /// Keep playing.
    Continue,
    /// H0 accepted (the change is not an improvement of `elo1`).
    AcceptH0,
    /// H1 accepted.
    AcceptH1,
}

/// Why SPRT parameters could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad SPRT parameters {0:?} (use elo0=0 elo1=5 alpha=0.05 beta=0.05)")]
pub struct SprtError(pub String);

impl FromStr for Sprt {
    type Err = SprtError;

    /// ```
    /// use menagerie::matches::stats::Sprt;
    /// let s: Sprt = "elo0=0 elo1=5 alpha=0.05 beta=0.05".parse().unwrap();
    /// assert_eq!(s.elo1, 5.0);
    /// ```
    fn from_str(text: &str) -> Result<Sprt, SprtError> {
        let err = || SprtError(text.to_string());
        let mut s = Sprt { elo0: 0.0, elo1: 5.0, alpha: 0.05, beta: 0.05 };
        for part in text.split([' ', ',']).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').ok_or_else(err)?;
            let v: f64 = v.parse().map_err(|_| err())?;
            if !v.is_finite() {
                return Err(err());
            }
            match k {
                "elo0" => s.elo0 = v,
                "elo1" => s.elo1 = v,
                "alpha" => s.alpha = v,
                "beta" => s.beta = v,
                _ => return Err(err()),
            }
        }
        let rate_ok = |r: f64| r > 0.0 && r < 0.5;
        if s.elo1 <= s.elo0 || !rate_ok(s.alpha) || !rate_ok(s.beta) {
            return Err(err());
        }
        Ok(s)
    }
}

impl Sprt {
    /// Lower and upper LLR bounds.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    fn llr(&self, counts: &[f64], values: &[f64]) -> f64 {
        let n: f64 = counts.iter().sum();
        if n <= 0.0 {
            return 0.0;
        }
        // Empty bins get a tiny weight so that no outcome is deemed impossible (as fishtest does).
        let regular: Vec<f64> = counts.iter().map(|&c| if c == 0.0 { 1e-3 } else { c }).collect();
        let total: f64 = regular.iter().sum();
        let phat: Vec<f64> = regular.iter().map(|c| c / total).collect();
        let (s0, s1) = (score_of_elo(self.elo0), score_of_elo(self.elo1));
        let p0 = mle_with_mean(&phat, values, s0);
        let p1 = mle_with_mean(&phat, values, s1);
        n * phat.iter().zip(p0.iter().zip(&p1)).map(|(h, (a, b))| h * (b / a).ln()).sum::<f64>()
    }

    /// Log-likelihood ratio from single game results.
    pub fn llr_trinomial(&self, wdl: &Wdl) -> f64 {
        self.llr(&[wdl.losses as f64, wdl.draws as f64, wdl.wins as f64], &[0.0, 0.5, 1.0])
    }

    /// Log-likelihood ratio from game pairs.
    pub fn llr_pentanomial(&self, penta: &Pentanomial) -> f64 {
        self.llr(&penta.0.map(|c| c as f64), &[0.0, 0.25, 0.5, 0.75, 1.0])
    }

    /// The decision for a log-likelihood ratio.
    pub fn decide(&self, llr: f64) -> SprtDecision {
        let (low, high) = self.bounds();
        if llr >= high {
            SprtDecision::AcceptH1
        } else if llr <= low {
            SprtDecision::AcceptH0
        } else {
            SprtDecision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, eps: f64) -> bool {
        (a - b).abs() < eps
    }

    #[test]
    fn elo_and_margin() {
        let s = Wdl { wins: 60, draws: 20, losses: 20 };
        let e = s.elo().unwrap();
        // score 0.7 -> 147.2 Elo
        assert!(close(e.elo, 147.19, 0.05), "{e:?}");
        // variance = (60*.09 + 20*.04 + 20*.49)/100 = 0.16; se = 0.04; 0.7 +/- 0.0784
        let expect = (elo_of_score(0.7 + Z95 * 0.04) - elo_of_score(0.7 - Z95 * 0.04)) / 2.0;
        assert!(close(e.margin, expect, 1e-9));
        assert!(close(Wdl { wins: 5, draws: 0, losses: 5 }.elo().unwrap().elo, 0.0, 1e-9));
        assert!(Wdl::default().elo().is_none());
        assert!(Wdl { wins: 3, draws: 0, losses: 0 }.elo().unwrap().elo.is_infinite());
    }

    #[test]
    fn los_and_erf() {
        assert!(close(erf(0.5), 0.520_499_9, 1e-6));
        assert!(close(erf(-1.0), -0.842_700_8, 1e-6));
        assert!(close(Wdl { wins: 10, draws: 5, losses: 10 }.los(), 0.5, 1e-9));
        assert!(Wdl { wins: 30, draws: 0, losses: 10 }.los() > 0.99);
    }

    #[test]
    fn sprt_bounds_and_llr() {
        let s: Sprt = "elo0=0 elo1=5 alpha=0.05 beta=0.05".parse().unwrap();
        let (lo, hi) = s.bounds();
        assert!(close(lo, -2.944, 1e-3) && close(hi, 2.944, 1e-3));
        // A clearly stronger side accepts H1, a weaker one H0.
        let strong = Wdl { wins: 6000, draws: 8000, losses: 5000 };
        assert_eq!(s.decide(s.llr_trinomial(&strong)), SprtDecision::AcceptH1);
        assert_eq!(s.decide(s.llr_trinomial(&strong.flipped())), SprtDecision::AcceptH0);
        assert_eq!(s.decide(s.llr_trinomial(&Wdl { wins: 1, draws: 0, losses: 0 })), SprtDecision::Continue);
        // The LLR is zero half-way between the hypotheses' scores.
        let mid = Sprt { elo0: -5.0, elo1: 5.0, alpha: 0.05, beta: 0.05 };
        assert!(close(mid.llr_trinomial(&Wdl { wins: 100, draws: 50, losses: 100 }), 0.0, 1e-6));
        // One game decides nothing; a long sweep does.
        assert_eq!(s.decide(s.llr_trinomial(&Wdl { wins: 1, draws: 0, losses: 0 })), SprtDecision::Continue);
        assert_eq!(s.decide(s.llr_trinomial(&Wdl { wins: 400, draws: 0, losses: 0 })), SprtDecision::AcceptH1);
        // Large samples agree with the normal approximation.
        let big = Wdl { wins: 30_000, draws: 40_000, losses: 29_000 };
        let (n, mean) = (big.games() as f64, big.fraction());
        let var = (big.wins as f64 * (1.0 - mean).powi(2)
            + big.draws as f64 * (0.5 - mean).powi(2)
            + big.losses as f64 * mean.powi(2))
            / n;
        let (s0, s1) = (score_of_elo(0.0), score_of_elo(5.0));
        let approx = n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var);
        assert!(close(s.llr_trinomial(&big), approx, 0.01 * approx.abs().max(1.0)), "{approx}");
        let p = Pentanomial([10, 200, 500, 250, 12]);
        assert!(mid.llr_pentanomial(&p) > 0.0);
        assert!("elo0=5 elo1=0".parse::<Sprt>().is_err());
        assert!("elo0=0 elo1=5 alpha=2".parse::<Sprt>().is_err());
        assert!("foo".parse::<Sprt>().is_err());
    }

    #[test]
    fn pentanomial_estimate() {
        let mut p = Pentanomial::default();
        for pts in [2.0, 1.0, 1.5, 0.5, 1.0] {
            p.add(pts);
        }
        assert_eq!(p.0, [0, 1, 2, 1, 1]);
        let e = p.elo().unwrap();
        assert!(close(e.elo, elo_of_score(0.6), 1e-9));
    }
}
