//! Lazy SMP depth skipping: which iterations each helper thread leaves out.
//!
//! Every thread searches the same root and shares the transposition table;
//! helpers fill it with results the main thread then finds. Were all threads
//! to walk the same depths in step they would mostly repeat each other, so
//! each helper leaves out some iterations: helpers come in groups, the g-th
//! group (2g helpers) skips g depths in every 2g, each helper at its own
//! phase. The pattern repeats every 20 helpers.

/// Helpers in one round of the pattern.
const PATTERN: usize = 20;

/// True when helper `helper` (numbered from 1) leaves out iteration `depth`.
pub fn skips_depth(helper: usize, depth: i32) -> bool {
    let mut phase = helper.saturating_sub(1) % PATTERN;
    let mut cycle = 1;
    while phase >= 2 * cycle {
        phase -= 2 * cycle;
        cycle += 1;
    }
    (depth.max(0) as usize + phase) / cycle % 2 == 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn searched(helper: usize) -> Vec<i32> {
        (1..=12).filter(|&d| !skips_depth(helper, d)).collect()
    }

    #[test]
    fn helpers_search_different_depths() {
        assert_eq!(searched(1), [2, 4, 6, 8, 10, 12]);
        assert_eq!(searched(2), [1, 3, 5, 7, 9, 11]);
        assert_eq!(searched(3), [1, 4, 5, 8, 9, 12]);
        assert_eq!(searched(7), [1, 2, 6, 7, 8, 12]);
        assert_eq!(searched(21), searched(1));
    }

    #[test]
    fn every_helper_searches_half_the_depths() {
        for helper in 1..=PATTERN {
            let count = (1..=240).filter(|&d| !skips_depth(helper, d)).count();
            assert_eq!(count, 120, "helper {helper}");
        }
    }
}
