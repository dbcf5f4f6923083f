//! Time management: how long one move may take.
//!
//! The clock gives a soft limit (when to stop starting new iterations) and a
//! hard one (when to abort the iteration in progress). Between iterations the
//! soft limit is scaled: a best move that has stayed the same for several
//! iterations, and that took most of the nodes, needs less time; a best move
//! that keeps changing needs more (never past the hard limit).

use std::time::Duration;

use super::Limits;
use crate::rules::piece::Color;

/// Soft and hard time limits of one move.
pub fn time_budget(limits: &Limits, side: Color) -> (Option<Duration>, Option<Duration>) {
    let overhead = limits.move_overhead;
    if let Some(mt) = limits.movetime {
        // A fixed time per move is not a clock: keep back only a part of it,
        // so that short move times are still used.
        let t = Duration::from_millis(mt.saturating_sub(overhead.min(mt / 5)).max(1));
        return (Some(t), Some(t));
    }
    // A GUI that sends only the other side's clock still bounds the search.
    let (time, inc) = match side {
        Color::White => (limits.wtime.or(limits.btime), limits.winc.unwrap_or(0)),
        Color::Black => (limits.btime.or(limits.wtime), limits.binc.unwrap_or(0)),
    };
    let Some(time) = time else {
        return (None, None);
    };
    // Twice the overhead stays on the clock as a reserve: with increments the
    // clock drains to about the reserve and then hovers there (each move then
    // costs less than the increment brings), so a latency spike of a loaded
    // machine meets a cushion instead of an empty clock.
    // `movestogo 0` (CECP `level 0 ...`) means no moves count: sudden death.
    let counted = limits.movestogo.filter(|&n| n > 0);
    let moves_to_go = counted.unwrap_or(30).clamp(1, 50) as u64;
    // With a moves count, every move left before the control costs the
    // overhead on top of its search: keep it back for all of them, not just
    // this one, or the last moves of the control find an empty clock.
    let latency = overhead.saturating_mul(if counted.is_some() { moves_to_go } else { 1 });
    let left = time.saturating_sub(latency);
    let available = left.saturating_sub((2 * overhead).min(left / 2)).max(1);
    // Never plan to spend more than a third of it on one move (three
    // quarters for the last move before a new time control).
    let cap = if moves_to_go == 1 { available * 3 / 4 } else { available / 3 };
    let soft = (available / moves_to_go).saturating_add(inc / 4 * 3).min(cap).max(1);
    let hard = soft.saturating_mul(4).min(cap).max(1);
    (Some(Duration::from_millis(soft)), Some(Duration::from_millis(hard)))
}

/// Scale of the soft limit after an iteration, in percent: from the number of
/// iterations the best move has stayed the same and the share of the nodes
/// (permille) spent under it.
pub fn soft_scale_percent(stable_iterations: u32, best_move_permille: u64) -> u64 {
    let stability = match stable_iterations {
        0 => 150,
        1 => 120,
        2 => 100,
        3 => 90,
        _ => 80,
    };
    // 100 % of the nodes on the best move: 60; a third of them: 140.
    let effort = (180 - best_move_permille.min(1000) * 12 / 100).clamp(60, 150);
    stability * effort / 100
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_budget_is_safe_at_one_second() {
        let limits = Limits { wtime: Some(1000), winc: Some(10), move_overhead: 50, ..Limits::default() };
        let (soft, hard) = time_budget(&limits, Color::White);
        assert!(soft.unwrap_or_default() <= hard.unwrap_or_default());
        assert!(hard.unwrap_or_default() <= Duration::from_millis(250));
        let low = Limits { wtime: Some(40), winc: Some(10), move_overhead: 50, ..Limits::default() };
        let (_, hard) = time_budget(&low, Color::White);
        assert!(hard.unwrap_or_default() <= Duration::from_millis(10));
    }

    #[test]
    fn no_moves_to_go_is_sudden_death() {
        let sudden = Limits { wtime: Some(60_000), ..Limits::default() };
        let zero = Limits { movestogo: Some(0), ..sudden.clone() };
        let one = Limits { movestogo: Some(1), ..sudden.clone() };
        assert_eq!(time_budget(&zero, Color::White), time_budget(&sudden, Color::White));
        assert_eq!(time_budget(&sudden, Color::White).0, Some(Duration::from_millis(2000)));
        assert_eq!(time_budget(&one, Color::White).0, Some(Duration::from_millis(45_000)));
    }

    #[test]
    fn a_moves_count_lasts_to_the_time_control() {
        // Every move takes its whole hard limit plus the overhead as latency:
        // the clock still reaches the 40th move, at 40 moves in 5 s and in 60 s.
        for base in [5_000u64, 60_000] {
            let mut clock = base as i64;
            for played in 0..40u32 {
                let limits = Limits {
                    wtime: Some(clock.max(0) as u64),
                    movestogo: Some(40 - played),
                    move_overhead: 50,
                    ..Limits::default()
                };
                let (_, hard) = time_budget(&limits, Color::White);
                clock -= hard.unwrap_or_default().as_millis() as i64 + 50;
                assert!(clock > 0, "{base} ms: flagged at move {}", played + 1);
            }
        }
        // The reserve still leaves the first move most of its fair share (125 ms).
        let limits = Limits { wtime: Some(5_000), movestogo: Some(40), move_overhead: 50, ..Limits::default() };
        assert!(time_budget(&limits, Color::White).0 >= Some(Duration::from_millis(70)));
    }

    #[test]
    fn a_stable_dominant_best_move_needs_less_time() {
        let settled = soft_scale_percent(5, 950);
        let unsettled = soft_scale_percent(0, 300);
        assert!(settled < 70, "{settled}");
        assert!(unsettled > 150, "{unsettled}");
        assert!(soft_scale_percent(2, 500) > settled && soft_scale_percent(2, 500) < unsettled);
    }
}
