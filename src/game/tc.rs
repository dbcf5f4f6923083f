//! Time controls and search limits as written on the command line
//! (`40/60+0.6`, `tc=10+0.1`, `st=0.5` or `movetime=500`, `nodes=2000`,
//! `depth=6`, `inf`),
//! the chess clock that enforces them, and a running pair of clocks for a
//! game played live (the board's).

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use crate::rules::piece::Color;

/// A clock time control: `moves` moves in `base`, plus `increment` per move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClockControl {
    /// Moves per period (0 = the whole game).
    pub moves: u32,
    /// Time per period.
    pub base: Duration,
    /// Added after each move.
    pub increment: Duration,
}

/// What limits one engine's search. Several parts may be combined
/// (`tc=10+0.1 depth=8`); at least one of them is usually set.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeControl {
    /// A game clock.
    pub clock: Option<ClockControl>,
    /// A fixed time per move.
    pub movetime: Option<Duration>,
    /// A node budget per move.
    pub nodes: Option<u64>,
    /// A depth limit per move.
    pub depth: Option<u32>,
}

/// Why a time control could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    /// A part that is none of the known forms.
    #[error("bad time control {0:?} (use moves/time+inc, tc=time+inc, st=secs, movetime=ms, nodes=N, depth=N or inf)")]
    Syntax(String),
}

fn seconds(text: &str, whole: &str) -> Result<Duration, TimeControlError> {
    let err = || TimeControlError::Syntax(whole.to_string());
    // `m:ss` as XBoard writes it, or seconds with a fraction.
    let secs = match text.split_once(':') {
        Some((m, s)) => {
            let m: f64 = m.parse().map_err(|_| err())?;
            let s: f64 = s.parse().map_err(|_| err())?;
            m * 60.0 + s
        }
        None => text.parse::<f64>().map_err(|_| err())?,
    };
    if !secs.is_finite() || !(0.0..=1e7).contains(&secs) {
        return Err(err());
    }
    Ok(Duration::from_secs_f64(secs))
}

fn parse_clock(text: &str, whole: &str) -> Result<ClockControl, TimeControlError> {
    let err = || TimeControlError::Syntax(whole.to_string());
    let (moves, rest) = match text.split_once('/') {
        Some((m, r)) => (m.parse::<u32>().map_err(|_| err())?, r),
        None => (0, text),
    };
    let (base, increment) = match rest.split_once('+') {
        Some((b, i)) => (seconds(b, whole)?, seconds(i, whole)?),
        None => (seconds(rest, whole)?, Duration::ZERO),
    };
    if base.is_zero() {
        return Err(err());
    }
    Ok(ClockControl { moves, base, increment })
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    /// Reads space- or comma-separated parts.
    ///
    /// ```
    /// use menagerie::game::tc::TimeControl;
    /// let tc: TimeControl = "40/60+0.5".parse().unwrap();
    /// assert_eq!(tc.clock.unwrap().moves, 40);
    /// let tc: TimeControl = "nodes=2000".parse().unwrap();
    /// assert_eq!(tc.nodes, Some(2000));
    /// assert!("tc=abc".parse::<TimeControl>().is_err());
    /// ```
    fn from_str(text: &str) -> Result<TimeControl, TimeControlError> {
        let err = || TimeControlError::Syntax(text.to_string());
        let mut tc = TimeControl::default();
        let mut any = false;
        for part in text.split([' ', ',']).filter(|p| !p.is_empty()) {
            any = true;
            match part.split_once('=') {
                Some(("tc", v)) => tc.clock = Some(parse_clock(v, text)?),
                Some(("st", v)) => tc.movetime = Some(seconds(v, text)?),
                // Milliseconds, as `analyse --movetime` and UCI's `go movetime` take them.
                Some(("movetime", v)) => tc.movetime = Some(Duration::from_millis(v.parse().map_err(|_| err())?)),
                Some(("nodes", v)) => tc.nodes = Some(v.parse().map_err(|_| err())?),
                Some(("depth", v)) => tc.depth = Some(v.parse().map_err(|_| err())?),
                Some(_) => return Err(err()),
                None if part == "inf" => {}
                None => tc.clock = Some(parse_clock(part, text)?),
            }
        }
        if !any {
            return Err(err());
        }
        Ok(tc)
    }
}

fn fmt_secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{}", s as u64)
    } else {
        format!("{}", (s * 1000.0).round() / 1000.0)
    }
}

impl fmt::Display for TimeControl {
    /// The PGN `TimeControl` form: `40/60+0.5`, `60+1`, `st=1`, or `-` when untimed.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = Vec::new();
        if let Some(c) = self.clock {
            let mut s = String::new();
            if c.moves > 0 {
                s.push_str(&format!("{}/", c.moves));
            }
            s.push_str(&fmt_secs(c.base));
            if !c.increment.is_zero() {
                s.push_str(&format!("+{}", fmt_secs(c.increment)));
            }
            parts.push(s);
        }
        if let Some(t) = self.movetime {
            parts.push(format!("st={}", fmt_secs(t)));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("nodes={n}"));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth={d}"));
        }
        if parts.is_empty() {
            f.write_str("-")
        } else {
            f.write_str(&parts.join(" "))
        }
    }
}

/// One side's clock during a game.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    /// Time left (may be negative after a flag fall, hence signed milliseconds).
    pub left_ms: i64,
    /// Moves this side has made.
    pub moves_made: u32,
    control: Option<ClockControl>,
}

impl Clock {
    /// A full clock for `tc` (untimed when `tc` has no clock).
    pub fn new(tc: &TimeControl) -> Clock {
        Clock { left_ms: tc.clock.map_or(0, |c| c.base.as_millis() as i64), moves_made: 0, control: tc.clock }
    }
    /// The increment per move (zero when untimed).
    pub fn increment(&self) -> Duration {
        self.control.map_or(Duration::ZERO, |c| c.increment)
    }
    /// True when the clock runs.
    pub fn is_timed(&self) -> bool {
        self.control.is_some()
    }
    /// Moves left until the next time control (0 = sudden death).
    pub fn moves_to_go(&self) -> u32 {
        match self.control {
            Some(c) if c.moves > 0 => c.moves - self.moves_made % c.moves,
            _ => 0,
        }
    }
    /// Charges `used` for one move; false when the flag fell (beyond `margin`).
    pub fn charge(&mut self, used: Duration, margin: Duration) -> bool {
        let Some(c) = self.control else {
            self.moves_made += 1;
            return true;
        };
        self.left_ms -= used.as_millis() as i64;
        if self.left_ms + (margin.as_millis() as i64) < 0 {
            return false;
        }
        self.left_ms = self.left_ms.max(0);
        self.moves_made += 1;
        self.left_ms += c.increment.as_millis() as i64;
        if c.moves > 0 && self.moves_made.is_multiple_of(c.moves) {
            self.left_ms += c.base.as_millis() as i64;
        }
        true
    }
}

/// Both sides' clocks in a game played live, as lichess runs them: the
/// side to move's clock runs, except before that side's first move (each
/// side's first move is free) and while the game is paused (reviewed).
#[derive(Clone, Debug)]
pub struct GameClock {
    /// The time control.
    pub control: TimeControl,
    clocks: [Clock; 2],
    /// The side whose clock runs, and since when.
    running: Option<(Color, Instant)>,
    /// The side to move (None once stopped for good).
    to_move: Option<Color>,
    /// True while the game is reviewed: no clock runs.
    paused: bool,
}

impl GameClock {
    /// Full clocks for `control` (None when it has no clock), `side` to
    /// move; no clock runs until a side has made its first move.
    pub fn start(control: TimeControl, side: Color, _now: Instant) -> Option<GameClock> {
        control.clock?;
        let clock = Clock::new(&control);
        Some(GameClock { control, clocks: [clock, clock], running: None, to_move: Some(side), paused: false })
    }

    /// `side`'s time left at `now`, in milliseconds (negative once its flag fell).
    pub fn left_ms(&self, side: Color, now: Instant) -> i64 {
        let left = self.clocks[side.index()].left_ms;
        match self.running {
            Some((s, since)) if s == side => left - now.saturating_duration_since(since).as_millis() as i64,
            _ => left,
        }
    }

    /// `side`'s clock as it stands at `now` (for an engine's search).
    pub fn clock(&self, side: Color, now: Instant) -> Clock {
        Clock { left_ms: self.left_ms(side, now), ..self.clocks[side.index()] }
    }

    /// The side whose clock runs.
    pub fn running(&self) -> Option<Color> {
        self.running.map(|(s, _)| s)
    }

    /// The side whose flag has fallen at `now`, if any.
    pub fn flagged(&self, now: Instant) -> Option<Color> {
        self.running.map(|(s, _)| s).filter(|&s| self.left_ms(s, now) <= 0)
    }

    /// `side` moved at `now`: its time is charged (plus the increment; a
    /// first move costs nothing) and the other side's clock starts if that
    /// side has moved before. False, with nothing charged, when `side`'s
    /// flag had already fallen.
    pub fn moved(&mut self, side: Color, now: Instant) -> bool {
        if self.to_move != Some(side) {
            return true;
        }
        match self.running {
            Some((running, since)) if running == side => {
                if self.left_ms(side, now) <= 0 {
                    return false;
                }
                self.clocks[side.index()].charge(now.saturating_duration_since(since), Duration::ZERO);
            }
            _ => self.clocks[side.index()].moves_made += 1,
        }
        self.to_move = Some(!side);
        self.running = None;
        self.run_if_due(now);
        true
    }

    /// Starts the side to move's clock when it has moved before and the game is not paused.
    fn run_if_due(&mut self, now: Instant) {
        if let (Some(side), None, false) = (self.to_move, self.running, self.paused) {
            if self.clocks[side.index()].moves_made > 0 {
                self.running = Some((side, now));
            }
        }
    }

    /// Charges the running clock up to `now` and stops it.
    fn halt(&mut self, now: Instant) {
        if let Some((side, since)) = self.running.take() {
            self.clocks[side.index()].left_ms -= now.saturating_duration_since(since).as_millis() as i64;
        }
    }

    /// Pauses both clocks while the game is reviewed (earlier positions viewed, analysed).
    pub fn pause(&mut self, now: Instant) {
        self.halt(now);
        self.paused = true;
    }

    /// Ends a pause: the side to move's clock runs again (if it ran before).
    pub fn resume(&mut self, now: Instant) {
        self.paused = false;
        self.run_if_due(now);
    }

    /// True while paused.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Stops both clocks for good (the game is over).
    pub fn stop(&mut self, now: Instant) {
        self.halt(now);
        self.to_move = None;
    }

    /// The clock a search of `side` may use: (time left, increment, moves to go).
    pub fn budget(&self, side: Color, now: Instant) -> (u64, u64, u32) {
        let c = &self.clocks[side.index()];
        (self.left_ms(side, now).max(1) as u64, c.increment().as_millis() as u64, c.moves_to_go())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        for text in ["40/60+0.5", "60+1", "10", "st=0.5", "nodes=2000", "depth=6", "tc=1:30+2 depth=3"] {
            let tc: TimeControl = text.parse().unwrap();
            let again: TimeControl = tc.to_string().parse().unwrap();
            assert_eq!(tc, again, "{text}");
        }
        let st: TimeControl = "st=0.3".parse().unwrap();
        assert_eq!(st.movetime, Some(Duration::from_millis(300)));
        assert_eq!("movetime=300".parse::<TimeControl>().unwrap(), st, "the same limit in milliseconds");
        assert!("movetime=0.3".parse::<TimeControl>().is_err());
        let tc: TimeControl = "tc=1:30+2".parse().unwrap();
        assert_eq!(tc.clock.unwrap().base, Duration::from_secs(90));
        assert!("".parse::<TimeControl>().is_err());
        assert!("x=1".parse::<TimeControl>().is_err());
        assert!("0+1".parse::<TimeControl>().is_err());
    }

    #[test]
    fn clock_periods() {
        let tc: TimeControl = "2/10+1".parse().unwrap();
        let mut c = Clock::new(&tc);
        assert_eq!(c.moves_to_go(), 2);
        assert!(c.charge(Duration::from_secs(3), Duration::ZERO));
        assert_eq!(c.left_ms, 8000);
        assert_eq!(c.moves_to_go(), 1);
        assert!(c.charge(Duration::from_secs(3), Duration::ZERO));
        assert_eq!(c.left_ms, 16000);
        assert!(!c.charge(Duration::from_secs(17), Duration::ZERO));
    }

    #[test]
    fn a_live_pair_of_clocks() {
        let tc: TimeControl = "10+1".parse().unwrap();
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        assert!(GameClock::start("st=1".parse().unwrap(), Color::White, t0).is_none());
        let mut clock = GameClock::start(tc, Color::White, t0).unwrap();
        // No clock runs before a side's first move, and a first move costs nothing.
        assert_eq!((clock.running(), clock.left_ms(Color::White, at(3000))), (None, 10_000));
        assert!(clock.moved(Color::White, at(3000)));
        assert_eq!((clock.running(), clock.left_ms(Color::Black, at(5000))), (None, 10_000));
        assert!(clock.moved(Color::Black, at(5000)));
        // From then on the side to move's clock runs.
        assert_eq!(clock.running(), Some(Color::White));
        assert_eq!(clock.left_ms(Color::White, at(8000)), 7000);
        assert!(clock.moved(Color::White, at(8000)));
        assert_eq!(clock.running(), Some(Color::Black));
        assert_eq!(clock.left_ms(Color::White, at(9000)), 8000, "7 s left plus the increment");
        assert_eq!(clock.budget(Color::Black, at(8000)), (10_000, 1000, 0));
        assert_eq!(clock.clock(Color::Black, at(9000)).left_ms, 9000);
        // A pause (the game reviewed) stops the clock; resuming starts it again.
        clock.pause(at(9000));
        assert_eq!((clock.running(), clock.left_ms(Color::Black, at(60_000))), (None, 9000));
        clock.resume(at(60_000));
        assert_eq!(clock.left_ms(Color::Black, at(61_000)), 8000);
        assert_eq!(clock.flagged(at(68_000)), None);
        assert_eq!(clock.flagged(at(69_001)), Some(Color::Black));
        assert!(!clock.moved(Color::Black, at(69_500)), "a move after the flag fell does not count");
        clock.stop(at(70_000));
        assert_eq!((clock.running(), clock.flagged(at(80_000))), (None, None));
        assert_eq!(clock.left_ms(Color::Black, at(80_000)), -1000, "stopped at 70 s");
        clock.resume(at(80_000));
        assert_eq!(clock.running(), None, "a stopped clock stays stopped");
    }
}
