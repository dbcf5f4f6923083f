//! The fitting math that the tuner ([`super::fit`], in `f64`) and the
//! network trainer ([`super::train`], in `f32`) share: the logistic curve,
//! the blended target, Adam's moments and sums over fixed chunks computed
//! on several threads.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// The float types the fits compute in.
pub trait Real:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// Adam's decay of the first moment.
    const BETA1: Self;
    /// Adam's decay of the second moment.
    const BETA2: Self;
    /// `e` to the power of `self`.
    fn exp(self) -> Self;
    /// The square root.
    fn sqrt(self) -> Self;
    /// `self` to the power of `n`.
    fn powi(self, n: i32) -> Self;
}

macro_rules! real {
    ($t:ty) => {
        impl Real for $t {
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            const BETA1: $t = 0.9;
            const BETA2: $t = 0.999;
            fn exp(self) -> $t {
                <$t>::exp(self)
            }
            fn sqrt(self) -> $t {
                <$t>::sqrt(self)
            }
            fn powi(self, n: i32) -> $t {
                <$t>::powi(self, n)
            }
        }
    };
}
real!(f32);
real!(f64);

/// The logistic curve: a score in logits to a win probability.
pub fn sigmoid<T: Real>(x: T) -> T {
    T::ONE / (T::ONE + (-x).exp())
}

/// The target of a position: `lambda` of the game's result and the rest of
/// the search's score (in logits) through the logistic curve.
pub fn blended_target<T: Real>(lambda: T, result: T, score: T) -> T {
    lambda * result + (T::ONE - lambda) * sigmoid(score)
}

/// Adam's moment estimates for a fixed number of parameters. Each step,
/// [`Adam::next_step`] and then [`Adam::moments`] once per parameter moved;
/// the caller turns the moments into its own update.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam<T> {
    m: Vec<T>,
    v: Vec<T>,
    step: i32,
    epsilon: T,
    corrections: (T, T),
}

impl<T: Real> Adam<T> {
    /// Zero moments for `len` parameters; `epsilon` keeps the step finite.
    pub fn new(len: usize, epsilon: T) -> Adam<T> {
        Adam { m: vec![T::ZERO; len], v: vec![T::ZERO; len], step: 0, epsilon, corrections: (T::ONE, T::ONE) }
    }

    /// Adam as [`Adam::parts`] gave it: the moments (of one length) and
    /// the steps taken; it goes on exactly as the one saved would have.
    pub fn from_parts(m: Vec<T>, v: Vec<T>, step: i32, epsilon: T) -> Option<Adam<T>> {
        (m.len() == v.len() && step >= 0).then(|| Adam { m, v, step, epsilon, corrections: corrections(step) })
    }

    /// What a checkpoint keeps: the first moments, the second, and the steps taken.
    pub fn parts(&self) -> (&[T], &[T], i32) {
        (&self.m, &self.v, self.step)
    }

    /// Starts the next step (the bias corrections depend on the count).
    pub fn next_step(&mut self) {
        self.step += 1;
        self.corrections = corrections(self.step);
    }

    /// Takes parameter `i`'s gradient into its moments and returns them
    /// bias-corrected: `(m̂, v̂)`.
    pub fn moments(&mut self, i: usize, gradient: T) -> (T, T) {
        let (m, v) = (&mut self.m[i], &mut self.v[i]);
        *m = T::BETA1 * *m + (T::ONE - T::BETA1) * gradient;
        *v = T::BETA2 * *v + (T::ONE - T::BETA2) * gradient * gradient;
        (*m / self.corrections.0, *v / self.corrections.1)
    }

    /// The divisor of the step: `√v̂ + ε`.
    pub fn denominator(&self, v_hat: T) -> T {
        v_hat.sqrt() + self.epsilon
    }
}

/// Adam's bias corrections after `step` steps (none before the first).
fn corrections<T: Real>(step: i32) -> (T, T) {
    if step == 0 {
        return (T::ONE, T::ONE);
    }
    (T::ONE - T::BETA1.powi(step), T::ONE - T::BETA2.powi(step))
}

/// `items` cut into at most `count` chunks of one size (the last may be
/// shorter): fixed by the count alone, so that sums taken chunk by chunk in
/// order come out the same whatever the number of threads.
pub fn chunks<T>(items: &[T], count: usize) -> std::slice::Chunks<'_, T> {
    items.chunks(items.len().div_ceil(count.max(1)).max(1))
}

/// `f` of every item, computed on `threads` threads (items dealt out in
/// turn), returned in item order.
pub fn in_parallel<I: Send, R: Send>(items: Vec<I>, threads: usize, f: impl Fn(I) -> R + Sync) -> Vec<R> {
    let threads = threads.max(1);
    let mut groups: Vec<Vec<(usize, I)>> = (0..threads).map(|_| Vec::new()).collect();
    for (k, item) in items.into_iter().enumerate() {
        groups[k % threads].push((k, item));
    }
    let f = &f;
    let mut results: Vec<(usize, R)> = std::thread::scope(|scope| {
        let handles: Vec<_> = groups
            .into_iter()
            .map(|group| scope.spawn(move || group.into_iter().map(|(k, item)| (k, f(item))).collect::<Vec<_>>()))
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_default()).collect()
    });
    results.sort_by_key(|(k, _)| *k);
    results.into_iter().map(|(_, r)| r).collect()
}

/// `f` of each chunk of `items` ([`chunks`]), on `threads` threads, in chunk order.
pub fn in_chunks<T: Sync, R: Send>(items: &[T], count: usize, threads: usize, f: impl Fn(&[T]) -> R + Sync) -> Vec<R> {
    in_parallel(chunks(items, count).collect(), threads, f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_depend_on_the_count_alone_and_results_keep_their_order() {
        let items: Vec<u64> = (1..=100).collect();
        let sizes: Vec<usize> = chunks(&items, 8).map(<[u64]>::len).collect();
        assert_eq!(sizes, [13, 13, 13, 13, 13, 13, 13, 9]);
        let one = in_chunks(&items, 8, 1, |part| part.iter().sum::<u64>());
        assert_eq!(in_chunks(&items, 8, 3, |part| part.iter().sum::<u64>()), one);
        assert_eq!(one.iter().sum::<u64>(), 5050);
        assert_eq!(one[0], (1..=13).sum::<u64>());
        assert_eq!(chunks::<u64>(&[], 8).count(), 0);
    }

    #[test]
    fn the_target_blends_result_and_score_and_adam_moves_against_the_gradient() {
        assert_eq!(sigmoid(0.0f64), 0.5);
        assert!((blended_target(0.25f64, 1.0, 0.0) - 0.625).abs() < 1e-12);
        assert_eq!(blended_target(1.0f32, 0.0, 5.0), 0.0);
        let mut adam = Adam::new(2, 1e-8f32);
        adam.next_step();
        let (m, v) = adam.moments(0, 0.5);
        // After one step the corrected moments are the gradient and its square.
        assert!((m - 0.5).abs() < 1e-6 && (v - 0.25).abs() < 1e-6, "{m} {v}");
        assert!((m / adam.denominator(v) - 1.0).abs() < 1e-6);
        assert_eq!(adam.moments(1, 0.0), (0.0, 0.0));
    }
}
