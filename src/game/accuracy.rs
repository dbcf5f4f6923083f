//! Accuracy as lichess computes it (<https://lichess.org/page/accuracy> and
//! lila's `AccuracyPercent.scala`): a position's Win% from its centipawns,
//! a move's accuracy from the mover's drop in Win%, and a game's accuracy
//! per side as the mean of a volatility-weighted mean and the harmonic mean
//! of its moves' accuracies. Pure arithmetic; the scores come from above.

/// lichess's slope of winning chances per centipawn.
const CHANCES_PER_CP: f64 = 0.003_682_08;
/// Centipawns beyond this count as this (a mate counts as the cap).
const CP_CAP: f64 = 1000.0;

/// Win% of a score of `cp` centipawns for the side it favours, 0 to 100:
/// `50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1)`, `cp` clamped to ±1000.
pub fn win_percent(cp: f64) -> f64 {
    let cp = cp.clamp(-CP_CAP, CP_CAP);
    50.0 + 50.0 * (2.0 / (1.0 + (-CHANCES_PER_CP * cp).exp()) - 1.0)
}

/// A move's accuracy, 0 to 100, from the mover's Win% before and after it:
/// `103.1668 * exp(-0.04354 * (before - after)) - 3.1669`, plus lichess's
/// one point of "uncertainty bonus" (for the imprecision of the evaluation),
/// clamped to 0..100; a move that keeps or raises the Win% scores 100.
pub fn move_accuracy(before: f64, after: f64) -> f64 {
    if after >= before {
        return 100.0;
    }
    let raw = 103.166_810_071_164_9 * (-0.043_544_153_867_539_51 * (before - after)).exp() - 3.166_924_740_191_411;
    (raw + 1.0).clamp(0.0, 100.0)
}

/// The number of positions in each volatility window of a game of `moves`
/// moves (plies): a tenth of them, at least 2 and at most 8.
fn window_size(moves: usize) -> usize {
    (moves / 10).clamp(2, 8)
}

/// The weight of each move: the standard deviation (population) of White's
/// Win% over a window of positions around it, clamped to 0.5..12, so that
/// moves in sharp stretches of the game count more. `wins` holds the Win%
/// of every position, the start first (one more than there are moves). As
/// lichess does, the first moves share the first window.
pub fn volatility_weights(wins: &[f64]) -> Vec<f64> {
    let moves = wins.len().saturating_sub(1);
    if moves == 0 {
        return Vec::new();
    }
    let size = window_size(moves).min(wins.len());
    let first = &wins[..size];
    let repeated = std::iter::repeat_n(first, size - 2);
    let weights: Vec<f64> =
        repeated.chain(wins.windows(size)).map(|w| standard_deviation(w).clamp(0.5, 12.0)).collect();
    debug_assert_eq!(weights.len(), moves);
    weights
}

fn standard_deviation(values: &[f64]) -> f64 {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt()
}

/// The harmonic mean, each value counted as at least 1 (a move of accuracy
/// 0 must not make the whole game 0); None when empty.
fn harmonic_mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.len() as f64 / values.iter().map(|v| 1.0 / v.max(1.0)).sum::<f64>())
}

/// The weighted mean of `(value, weight)` pairs; None when empty or weightless.
fn weighted_mean(pairs: &[(f64, f64)]) -> Option<f64> {
    let (sum, weight) = pairs.iter().fold((0.0, 0.0), |(s, w), &(v, wv)| (s + v * wv, w + wv));
    (weight > 0.0).then(|| sum / weight)
}

/// Each side's game accuracy, White's then Black's (None for a side
/// without a move): the mean of the volatility-weighted mean and the
/// harmonic mean of its moves' accuracies. `wins` is White's Win% of every
/// position (the start first), `accuracies` each move's accuracy in order,
/// and `white_first` tells who made the first move.
pub fn game_accuracy(wins: &[f64], accuracies: &[f64], white_first: bool) -> [Option<f64>; 2] {
    let weights = volatility_weights(wins);
    let mut sides: [Vec<(f64, f64)>; 2] = [Vec::new(), Vec::new()];
    for (i, (&accuracy, &weight)) in accuracies.iter().zip(&weights).enumerate() {
        let white = (i % 2 == 0) == white_first;
        sides[usize::from(!white)].push((accuracy, weight));
    }
    sides.map(|pairs| {
        let plain: Vec<f64> = pairs.iter().map(|&(a, _)| a).collect();
        Some((weighted_mean(&pairs)? + harmonic_mean(&plain)?) / 2.0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn near(a: f64, b: f64) -> bool {
        (a - b).abs() < 0.01
    }

    #[test]
    fn win_percent_by_hand() {
        assert!(near(win_percent(0.0), 50.0));
        // exp(-0.368208) = 0.691973; 2 / 1.691973 - 1 = 0.182052; 50 + 50 * 0.182052 = 59.10.
        assert!(near(win_percent(100.0), 59.10), "{}", win_percent(100.0));
        assert!(near(win_percent(-100.0), 40.90));
        // Beyond ±1000 nothing changes: exp(-3.68208) = 0.025172 gives 97.54.
        assert!(near(win_percent(5000.0), 97.54) && win_percent(5000.0) == win_percent(1000.0));
    }

    #[test]
    fn move_accuracy_by_hand() {
        assert_eq!(move_accuracy(50.0, 50.0), 100.0);
        assert_eq!(move_accuracy(40.0, 60.0), 100.0, "a gain is a perfect move");
        // A drop of 10: exp(-0.435442) = 0.646979; 103.16681 * 0.646979 = 66.7468;
        // - 3.16692 = 63.5798; + 1 (uncertainty bonus) = 64.58.
        assert!(near(move_accuracy(60.0, 50.0), 64.58), "{}", move_accuracy(60.0, 50.0));
        // A drop of 20: exp(-0.870883) = 0.418582; 103.16681 * 0.418582 = 43.1838; - 3.16692 + 1 = 41.02.
        assert!(near(move_accuracy(70.0, 50.0), 41.02));
        // A drop of 100: 103.16681 * 0.012850 - 3.16692 + 1 = -0.84, clamped to 0.
        assert_eq!(move_accuracy(100.0, 0.0), 0.0);
    }

    #[test]
    fn game_accuracy_by_hand() {
        // Four moves, White's Win% 50, 40, 40, 20, 20. Windows of 2 (4 / 10 = 0, at
        // least 2): [50 40] sd 5, [40 40] sd 0 -> 0.5, [40 20] sd 10, [20 20] -> 0.5.
        let wins = [50.0, 40.0, 40.0, 20.0, 20.0];
        assert_eq!(volatility_weights(&wins), [5.0, 0.5, 10.0, 0.5]);
        // White drops 10 (64.58, weight 5) and 20 (41.02, weight 10); Black keeps his (100, 100).
        let accuracies: Vec<f64> = wins
            .windows(2)
            .enumerate()
            .map(
                |(i, w)| if i % 2 == 0 { move_accuracy(w[0], w[1]) } else { move_accuracy(100.0 - w[0], 100.0 - w[1]) },
            )
            .collect();
        let [white, black] = game_accuracy(&wins, &accuracies, true);
        // Weighted: (64.580 * 5 + 41.017 * 10) / 15 = 48.871; harmonic: 2 / (1/64.580 + 1/41.017)
        // = 50.169; their mean 49.52.
        assert!(near(white.unwrap(), 49.52), "{white:?}");
        assert!(near(black.unwrap(), 100.0));
        // Black moving first: the first move is Black's.
        let [white, black] = game_accuracy(&wins, &accuracies, false);
        assert!(near(white.unwrap(), 100.0) && near(black.unwrap(), 49.52));
        assert_eq!(game_accuracy(&[50.0], &[], true), [None, None]);
    }

    #[test]
    fn long_games_have_wider_windows_and_the_first_moves_share_the_first() {
        // 30 moves: windows of 3; one copy of the first window, then 29 sliding ones.
        let wins: Vec<f64> = (0..31).map(|i| f64::from(i * i % 17) * 4.0).collect();
        let weights = volatility_weights(&wins);
        assert_eq!(weights.len(), 30);
        assert_eq!(weights[0], weights[1]);
        assert_eq!(weights[2], standard_deviation(&wins[1..4]).clamp(0.5, 12.0));
        assert!(weights.iter().all(|w| (0.5..=12.0).contains(w)));
        // A game shorter than its window: every move shares the one window.
        assert_eq!(volatility_weights(&[50.0, 60.0]), [5.0]);
        // A move of accuracy 0 counts as 1 in the harmonic mean.
        assert!(near(harmonic_mean(&[0.0, 100.0]).unwrap(), 2.0 / 1.01));
    }
}
