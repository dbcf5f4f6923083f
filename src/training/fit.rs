//! The fit: logistic (Texel) loss over game results, a fitted scale, then
//! Adam over every weight, on several threads.
//!
//! A position's predicted score for White is `sigmoid(k * eval / 400)`,
//! compared with the game's result by squared error. `k` is fitted first
//! (with the starting weights) and then held, so the weights keep
//! centipawn units.

use super::math::{blended_target, in_chunks, sigmoid, Adam};
use crate::eval::{Trace, Weight};

/// One position ready for the fit: its terms with the phase and scale folded in.
#[derive(Clone, Debug)]
pub struct Row {
    /// `(parameter, middlegame factor, endgame factor)`: the score is the
    /// sum of `w.mg * mg + w.eg * eg`.
    pub terms: Vec<(u16, f32, f32)>,
    /// White's points from the game.
    pub result: f32,
    /// The self-play search's score, White's view, in centipawns.
    pub score: i32,
}

impl Row {
    /// The row of a traced position.
    pub fn new(trace: &Trace, result: f32, score: i32) -> Row {
        let phase = trace.phase as f32 / 256.0;
        let scale = trace.scale as f32 / 64.0;
        let terms =
            trace.terms.iter().map(|&(p, mg, eg)| (p, mg * phase * scale, eg * (1.0 - phase) * scale)).collect();
        Row { terms, result, score }
    }

    fn score(&self, w: &[[f64; 2]]) -> f64 {
        self.terms.iter().map(|&(p, mg, eg)| w[p as usize][0] * mg as f64 + w[p as usize][1] * eg as f64).sum()
    }
}

/// How to fit.
#[derive(Clone, Debug)]
pub struct FitPlan {
    /// Full passes over the data.
    pub epochs: usize,
    /// Threads computing the gradient.
    pub threads: usize,
    /// Adam's step in centipawns at the start (it decays to a tenth).
    pub rate: f64,
    /// Weight of the game result in the target (the rest: the search's score).
    pub lambda: f64,
    /// Penalty per (100 centipawns)^2 of each weight's distance from the start.
    pub regularize: f64,
    /// Parameters that keep their start weights.
    pub fixed: Vec<usize>,
}

/// What the fit found.
#[derive(Clone, Debug)]
pub struct Fitted {
    /// The scale `k`.
    pub k: f64,
    /// Mean loss with the starting weights.
    pub loss_before: f64,
    /// Mean loss with the fitted weights (rounded to whole centipawns).
    pub loss_after: f64,
    /// The fitted weights.
    pub weights: Vec<Weight>,
}

/// Fixed number of chunks, so that sums come out the same whatever the number of threads.
const CHUNKS: usize = 64;

/// Mean loss of `rows` with weights `w` and scale `k`, and (if `grad`) its gradient.
fn loss_and_gradient(
    rows: &[Row],
    w: &[[f64; 2]],
    k: f64,
    lambda: f64,
    threads: usize,
    grad: bool,
) -> (f64, Vec<[f64; 2]>) {
    let results = in_chunks(rows, CHUNKS, threads, |rows| {
        let mut g = if grad { vec![[0.0; 2]; w.len()] } else { Vec::new() };
        let mut loss = 0.0;
        for row in rows {
            let p = sigmoid(k * row.score(w) / 400.0);
            let target = blended_target(lambda, row.result as f64, k * row.score as f64 / 400.0);
            let error = target - p;
            loss += error * error;
            if grad {
                let d = -2.0 * error * p * (1.0 - p) * k / 400.0;
                for &(i, mg, eg) in &row.terms {
                    g[i as usize][0] += d * mg as f64;
                    g[i as usize][1] += d * eg as f64;
                }
            }
        }
        (loss, g)
    });
    let n = rows.len().max(1) as f64;
    let mut total = vec![[0.0; 2]; if grad { w.len() } else { 0 }];
    let mut loss = 0.0;
    for (l, g) in &results {
        loss += l;
        for (t, x) in total.iter_mut().zip(g) {
            t[0] += x[0] / n;
            t[1] += x[1] / n;
        }
    }
    (loss / n, total)
}

/// The scale `k` that best fits `rows` with weights `w` (golden-section search).
fn fit_k(rows: &[Row], w: &[[f64; 2]], threads: usize) -> f64 {
    let (mut a, mut b) = (0.05f64, 6.0f64);
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    for _ in 0..40 {
        let c = b - ratio * (b - a);
        let d = a + ratio * (b - a);
        if loss_and_gradient(rows, w, c, 1.0, threads, false).0 < loss_and_gradient(rows, w, d, 1.0, threads, false).0 {
            b = d;
        } else {
            a = c;
        }
    }
    (a + b) / 2.0
}

/// The mean loss of `rows` with integer weights, scale `k` and result weight `lambda`.
pub fn loss(rows: &[Row], weights: &[Weight], k: f64, lambda: f64, threads: usize) -> f64 {
    let w: Vec<[f64; 2]> = weights.iter().map(|w| [w.mg as f64, w.eg as f64]).collect();
    loss_and_gradient(rows, &w, k, lambda, threads, false).0
}

/// Fits every weight to `rows`, starting from `start`; `report` gets the
/// epoch and the current loss now and then.
pub fn fit(rows: &[Row], start: &[Weight], plan: &FitPlan, mut report: impl FnMut(usize, f64)) -> Fitted {
    let mut w: Vec<[f64; 2]> = start.iter().map(|w| [w.mg as f64, w.eg as f64]).collect();
    let k = fit_k(rows, &w, plan.threads);
    let loss_before = loss_and_gradient(rows, &w, k, plan.lambda, plan.threads, false).0;
    let origin = w.clone();
    let mut adam = Adam::new(2 * w.len(), 1e-12);
    for epoch in 1..=plan.epochs {
        let (current, mut g) = loss_and_gradient(rows, &w, k, plan.lambda, plan.threads, true);
        for (gi, (wi, oi)) in g.iter_mut().zip(w.iter().zip(&origin)) {
            for j in 0..2 {
                gi[j] += 2.0 * plan.regularize * (wi[j] - oi[j]) / 10_000.0;
            }
        }
        let rate = plan.rate * (1.0 - 0.9 * epoch as f64 / plan.epochs.max(1) as f64);
        adam.next_step();
        for i in (0..w.len()).filter(|i| !plan.fixed.contains(i)) {
            for j in 0..2 {
                let (m_hat, v_hat) = adam.moments(2 * i + j, g[i][j]);
                if v_hat > 0.0 {
                    w[i][j] -= rate * m_hat / adam.denominator(v_hat);
                }
            }
        }
        if epoch % 50 == 0 || epoch == plan.epochs {
            report(epoch, current);
        }
    }
    let weights: Vec<Weight> = w.iter().map(|x| Weight { mg: x[0].round() as i32, eg: x[1].round() as i32 }).collect();
    let loss_after = loss(rows, &weights, k, plan.lambda, plan.threads);
    Fitted { k, loss_before, loss_after, weights }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    #[test]
    fn the_fit_recovers_known_weights_from_synthetic_data() {
        // Three features with known weights; results drawn from the logistic
        // model those weights define.
        let truth = [Weight { mg: 300, eg: 350 }, Weight { mg: -40, eg: 10 }, Weight { mg: 80, eg: 120 }];
        let mut rng = StdRng::seed_from_u64(7);
        let rows: Vec<Row> = (0..60_000)
            .map(|_| {
                let phase: f32 = rng.gen_range(0.0..1.0);
                let counts: Vec<f32> = (0..3).map(|_| rng.gen_range(-2i32..=2) as f32).collect();
                let terms: Vec<(u16, f32, f32)> =
                    counts.iter().enumerate().map(|(i, &c)| (i as u16, c * phase, c * (1.0 - phase))).collect();
                let row = Row { terms, result: 0.0, score: 0 };
                let w: Vec<[f64; 2]> = truth.iter().map(|w| [w.mg as f64, w.eg as f64]).collect();
                let p = sigmoid(row.score(&w) / 400.0);
                Row { result: if rng.gen_bool(p) { 1.0 } else { 0.0 }, ..row }
            })
            .collect();
        let start = [Weight::default(); 3];
        let plan = FitPlan { epochs: 600, threads: 2, rate: 8.0, lambda: 1.0, regularize: 0.0, fixed: Vec::new() };
        let fitted = fit(&rows, &start, &plan, |_, _| {});
        assert!(fitted.loss_after < fitted.loss_before);
        // A fixed parameter keeps its start weights while the others move.
        let held = Weight { mg: 7, eg: -3 };
        let plan = FitPlan { fixed: vec![1], epochs: 50, ..plan };
        let partly = fit(&rows, &[Weight::default(), held, Weight::default()], &plan, |_, _| {});
        assert_eq!(partly.weights[1], held);
        assert_ne!(partly.weights[0], Weight::default());
        // k is fitted first with all-zero weights, where any k fits equally;
        // compare the weights' ratios to the truth's instead of their size.
        let scale = fitted.weights[0].mg as f64 / truth[0].mg as f64;
        assert!((scale * fitted.k - 1.0).abs() < 0.2, "k {} against weight scale {scale}", fitted.k);
        for (got, want) in fitted.weights.iter().zip(&truth) {
            for (g, t) in [(got.mg, want.mg), (got.eg, want.eg)] {
                let expected = t as f64 * scale;
                assert!(
                    (g as f64 - expected).abs() <= 0.2 * expected.abs().max(40.0),
                    "{got:?} against {want:?} (scale {scale})"
                );
            }
        }
    }
}
