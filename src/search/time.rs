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

/// Moves ahead over which a clock without a moves count is planned.
const HORIZON: u64 = 50;

/// Soft and hard time limits of one move, `game_ply` plies into the game.
pub fn time_budget(limits: &Limits, side: Color, game_ply: u32) -> (Option<Duration>, Option<Duration>) {
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
    // `movestogo 0` (CECP `level 0 ...`) means no moves count: sudden death.
    let (soft, hard) = match limits.movestogo.filter(|&n| n > 0) {
        Some(moves_to_go) => moves_count_budget(time, inc, overhead, u64::from(moves_to_go)),
        None => increment_budget(time, inc, overhead, game_ply),
    };
    (Some(Duration::from_millis(soft.max(1))), Some(Duration::from_millis(hard.max(1))))
}

/// Sudden death, with or without an increment: the clock is planned over
/// [`HORIZON`] moves, each bringing the increment and costing the overhead,
/// and a move's share grows with the game (the opening needs less thought
/// than the middlegame), as Stockfish 13 plans it: `0.0084 + 0.0042
/// sqrt(ply + 3)` of the planned time, at most a fifth of the clock.
fn increment_budget(time: u64, inc: u64, overhead: u64, game_ply: u32) -> (u64, u64) {
    let planned = (time + inc * (HORIZON - 1)).saturating_sub(overhead * (2 + HORIZON)).max(1) as f64;
    let ply = f64::from(game_ply);
    let share = (0.0084 + (ply + 3.0).sqrt() * 0.0042).min(0.2 * time as f64 / planned);
    let soft = share * planned;
    // A hard limit well above the soft one, for a best move that keeps changing.
    let hard = (0.8 * time as f64 - overhead as f64).min(soft * (4.0 + ply / 12.0).min(7.0));
    (soft as u64, hard.max(soft) as u64)
}

/// A moves count to the next time control: the time divided over the moves
/// left, with the latency of each of them kept back.
fn moves_count_budget(time: u64, inc: u64, overhead: u64, moves_to_go: u64) -> (u64, u64) {
    let moves_to_go = moves_to_go.clamp(1, HORIZON);
    // Every move left before the control costs the overhead on top of its
    // search: keep it back for all of them, not just this one, or the last
    // moves of the control find an empty clock. Twice the overhead stays on
    // the clock as a reserve against a latency spike of a loaded machine.
    let left = time.saturating_sub(overhead.saturating_mul(moves_to_go));
    let available = left.saturating_sub((2 * overhead).min(left / 2)).max(1);
    // Never plan to spend more than a third of it on one move (three
    // quarters for the last move before a new time control).
    let cap = if moves_to_go == 1 { available * 3 / 4 } else { available / 3 };
    let soft = (available / moves_to_go).saturating_add(inc / 4 * 3).min(cap);
    (soft, soft.saturating_mul(4).min(cap))
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

    fn clock(wtime: u64, winc: u64, move_overhead: u64) -> Limits {
        Limits { wtime: Some(wtime), winc: Some(winc), move_overhead, ..Limits::default() }
    }

    #[test]
    fn time_budget_is_safe_at_one_second() {
        let (soft, hard) = time_budget(&clock(1000, 10, 10), Color::White, 0);
        assert!(soft.unwrap_or_default() <= hard.unwrap_or_default());
        assert!(hard.unwrap_or_default() <= Duration::from_millis(250));
        let (_, hard) = time_budget(&clock(40, 10, 10), Color::White, 60);
        assert!(hard.unwrap_or_default() <= Duration::from_millis(10));
    }

    #[test]
    fn no_moves_to_go_is_sudden_death() {
        let sudden = Limits { wtime: Some(60_000), ..Limits::default() };
        let zero = Limits { movestogo: Some(0), ..sudden.clone() };
        let one = Limits { movestogo: Some(1), ..sudden.clone() };
        assert_eq!(time_budget(&zero, Color::White, 0), time_budget(&sudden, Color::White, 0));
        // 60 s over the horizon, no overhead: (0.0084 + 0.0042 sqrt 3) of it at the first move.
        assert_eq!(time_budget(&sudden, Color::White, 0).0, Some(Duration::from_millis(940)));
        assert_eq!(time_budget(&one, Color::White, 0).0, Some(Duration::from_millis(45_000)));
    }

    #[test]
    fn the_middlegame_gets_more_time_than_the_first_move() {
        let first = time_budget(&clock(10_000, 100, 10), Color::White, 0).0.unwrap_or_default();
        let middle = time_budget(&clock(8_000, 100, 10), Color::White, 40).0.unwrap_or_default();
        assert!(middle > first + first / 2, "first move {first:?}, move 21 {middle:?}");
    }

    #[test]
    fn a_clock_lasts_the_game_even_when_every_move_takes_its_hard_limit() {
        // With an increment, hard limits every move (plus the overhead as
        // latency) never empty the clock; in sudden death the soft limits last
        // 150 moves.
        for (base, inc, spend_hard) in [(10_000u64, 100u64, true), (1_000, 20, true), (60_000, 0, false)] {
            let mut left = base as i64;
            for ply in (0..300).step_by(2) {
                let (soft, hard) = time_budget(&clock(left.max(0) as u64, inc, 10), Color::White, ply);
                let spent = if spend_hard { hard } else { soft }.unwrap_or_default().as_millis() as i64;
                left += inc as i64 - spent - 10;
                assert!(left > 0, "{base}+{inc}: flagged at ply {ply}");
            }
        }
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
                let (_, hard) = time_budget(&limits, Color::White, 2 * played);
                clock -= hard.unwrap_or_default().as_millis() as i64 + 50;
                assert!(clock > 0, "{base} ms: flagged at move {}", played + 1);
            }
        }
        // The reserve still leaves the first move most of its fair share (125 ms).
        let limits = Limits { wtime: Some(5_000), movestogo: Some(40), move_overhead: 50, ..Limits::default() };
        assert!(time_budget(&limits, Color::White, 0).0 >= Some(Duration::from_millis(70)));
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
