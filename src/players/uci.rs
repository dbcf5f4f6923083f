//! The UCI side of [`Player`](super::Player): `uci`/`uciok`, options including
//! `UCI_Variant`, `position ... moves ...`, `go` with clocks or limits, and
//! `bestmove`; and the one reader of `info` lines.

use std::str::FromStr;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use super::{MoveRequest, PlayerError, PlayerProcess, PlayerSpec, Reply};
use crate::game::record::SearchInfo;
use crate::rules::variant::Variant;

/// How long the handshake and `isready` may take.
const HANDSHAKE: Duration = Duration::from_secs(30);

/// A UCI engine after `uciok`.
#[derive(Debug)]
pub struct UciPlayer {
    pub(crate) process: PlayerProcess,
    /// Names of the options the engine declared.
    pub options: Vec<String>,
    /// Values the engine offers for `UCI_Variant`.
    pub variants: Vec<String>,
    /// The name the engine gave in `id name`.
    pub id_name: Option<String>,
    user_options: Vec<(String, String)>,
    variant_start: String,
}

/// The fields of UCI `info` lines that the runner and `analyse` read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InfoLine {
    /// Depth reached.
    pub depth: Option<u32>,
    /// Selective depth.
    pub seldepth: Option<u32>,
    /// MultiPV index (1 = best).
    pub multipv: Option<u32>,
    /// Score in centipawns from the engine's point of view.
    pub score_cp: Option<i32>,
    /// Mate in this many moves (negative: being mated).
    pub mate: Option<i32>,
    /// `lowerbound` / `upperbound`, if the score is a bound.
    pub bound: Option<String>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Milliseconds used.
    pub time_ms: Option<u64>,
    /// The PV in UCI text.
    pub pv: Vec<String>,
}

impl InfoLine {
    /// What the game record keeps of it.
    pub fn search_info(&self) -> SearchInfo {
        SearchInfo { score_cp: self.score_cp, mate: self.mate, depth: self.depth }
    }
}

/// Reads an `info` line into `into`: each field the line names replaces the
/// one there (a depth without a number clears it, a score the other kind of
/// score), the PV runs to the end of the line, and `string` ends the fields.
/// False for a line that is no `info` line or that has a `string`.
pub fn parse_info(line: &str, into: &mut InfoLine) -> bool {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.first() != Some(&"info") {
        return false;
    }
    let mut i = 1;
    while i < tokens.len() {
        match tokens[i] {
            "depth" => into.depth = number(&tokens, i + 1),
            "seldepth" => into.seldepth = number(&tokens, i + 1),
            "multipv" => into.multipv = number(&tokens, i + 1),
            "nodes" => into.nodes = number(&tokens, i + 1),
            "time" => into.time_ms = number(&tokens, i + 1),
            "score" => {
                match (tokens.get(i + 1), tokens.get(i + 2).and_then(|t| t.parse::<i32>().ok())) {
                    (Some(&"cp"), Some(v)) => (into.score_cp, into.mate) = (Some(v), None),
                    (Some(&"mate"), Some(v)) => (into.mate, into.score_cp) = (Some(v), None),
                    _ => {}
                }
                into.bound =
                    tokens.get(i + 3).filter(|t| **t == "lowerbound" || **t == "upperbound").map(|b| b.to_string());
                i += 3 + usize::from(into.bound.is_some());
                continue;
            }
            "pv" => {
                into.pv = tokens[i + 1..].iter().map(|t| t.to_string()).collect();
                break;
            }
            "string" => return false,
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    true
}

/// The token at `i` as a number, if it is one.
fn number<T: FromStr>(tokens: &[&str], i: usize) -> Option<T> {
    tokens.get(i).and_then(|t| t.parse().ok())
}

impl UciPlayer {
    /// Sends `uci` and reads the option list until `uciok`.
    pub fn handshake(
        mut process: PlayerProcess,
        spec: &PlayerSpec,
        stop: &AtomicBool,
    ) -> Result<UciPlayer, PlayerError> {
        process.send("uci")?;
        let deadline = Instant::now() + HANDSHAKE;
        let mut engine = UciPlayer {
            process,
            options: Vec::new(),
            variants: Vec::new(),
            id_name: None,
            user_options: spec.options.clone(),
            variant_start: String::new(),
        };
        loop {
            let line = engine.process.read_line(deadline, stop)?;
            let mut tokens = line.split_whitespace();
            match tokens.next() {
                Some("uciok") => break,
                Some("id") if tokens.next() == Some("name") => {
                    engine.id_name = Some(tokens.collect::<Vec<_>>().join(" "));
                }
                Some("option") => engine.read_option(&line),
                _ => {}
            }
        }
        Ok(engine)
    }

    fn read_option(&mut self, line: &str) {
        // option name NAME... type T [default D] [var V]...
        let Some(rest) = line.split_once(" name ").map(|x| x.1) else {
            return;
        };
        let (name, tail) = match rest.split_once(" type ") {
            Some((n, t)) => (n.trim(), t),
            None => (rest.trim(), ""),
        };
        if name.eq_ignore_ascii_case("UCI_Variant") {
            let mut tokens = tail.split_whitespace().peekable();
            while let Some(t) = tokens.next() {
                if t == "var" {
                    if let Some(v) = tokens.next() {
                        self.variants.push(v.to_string());
                    }
                }
            }
        }
        self.options.push(name.to_string());
    }

    fn has_option(&self, name: &str) -> bool {
        self.options.iter().any(|o| o.eq_ignore_ascii_case(name))
    }

    /// Sets the variant and options, `ucinewgame`, and waits for `readyok`.
    pub fn new_game(&mut self, variant: &Variant, _start_fen: &str, stop: &AtomicBool) -> Result<(), PlayerError> {
        self.variant_start = variant.start_fen.clone();
        if !self.has_option("UCI_Variant") && variant.name != "chess" {
            return Err(PlayerError::Protocol(format!(
                "engine has no UCI_Variant option, cannot play {}",
                variant.name
            )));
        }
        if self.has_option("UCI_Variant") {
            if !self.variants.is_empty() && !self.variants.iter().any(|v| v == &variant.name) {
                return Err(PlayerError::Protocol(format!("engine does not offer UCI_Variant {}", variant.name)));
            }
            self.process.send(&format!("setoption name UCI_Variant value {}", variant.name))?;
        }
        let options = self.user_options.clone();
        for (name, value) in &options {
            self.process.send(&format!("setoption name {name} value {value}"))?;
        }
        self.process.send("ucinewgame")?;
        self.sync(stop)
    }

    /// `isready` until `readyok`.
    pub fn sync(&mut self, stop: &AtomicBool) -> Result<(), PlayerError> {
        self.process.send("isready")?;
        let deadline = Instant::now() + HANDSHAKE;
        loop {
            if self.process.read_line(deadline, stop)?.trim() == "readyok" {
                return Ok(());
            }
        }
    }

    /// The `position` command for a request.
    pub fn position_command(variant_start: &str, start_fen: &str, moves: &[String]) -> String {
        let mut cmd = if start_fen == variant_start {
            "position startpos".to_string()
        } else {
            format!("position fen {start_fen}")
        };
        if !moves.is_empty() {
            cmd.push_str(" moves ");
            cmd.push_str(&moves.join(" "));
        }
        cmd
    }

    /// Sends the position and `go`, then waits for `bestmove`.
    pub fn play(&mut self, request: &MoveRequest<'_>, stop: &AtomicBool) -> Result<Reply, PlayerError> {
        self.process.drain();
        let position = UciPlayer::position_command(&self.variant_start, request.start_fen, request.moves);
        self.process.send(&position)?;
        let mut go = String::from("go");
        let tc = request.tc;
        let [white, black] = request.clocks;
        if tc.clock.is_some() {
            go.push_str(&format!(
                " wtime {} btime {} winc {} binc {}",
                white.left_ms.max(0),
                black.left_ms.max(0),
                white.increment().as_millis(),
                black.increment().as_millis()
            ));
            let own = if request.white { white } else { black };
            if own.moves_to_go() > 0 {
                go.push_str(&format!(" movestogo {}", own.moves_to_go()));
            }
        }
        if let Some(t) = tc.movetime {
            go.push_str(&format!(" movetime {}", t.as_millis()));
        }
        if let Some(n) = tc.nodes {
            go.push_str(&format!(" nodes {n}"));
        }
        if let Some(d) = tc.depth {
            go.push_str(&format!(" depth {d}"));
        }
        if go == "go" {
            go.push_str(" infinite");
        }
        self.process.send(&go)?;
        let mut info = InfoLine::default();
        loop {
            let line = self.process.read_line_or_interrupt(request.deadline, stop, "stop")?;
            let mut tokens = line.split_whitespace();
            match tokens.next() {
                Some("info") => {
                    parse_info(&line, &mut info);
                }
                Some("bestmove") => {
                    return match tokens.next() {
                        Some(m) => Ok(Reply::Move(m.to_string(), info.search_info())),
                        None => Err(PlayerError::Protocol(format!("empty bestmove: {line:?}"))),
                    };
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_parsing() {
        let mut i = InfoLine::default();
        parse_info("info depth 7 seldepth 9 score cp -35 nodes 100 pv e2e4 e7e5", &mut i);
        assert_eq!((i.depth, i.score_cp, i.mate), (Some(7), Some(-35), None));
        parse_info("info depth 9 score mate 3 pv a1a8", &mut i);
        assert_eq!((i.depth, i.score_cp, i.mate), (Some(9), None, Some(3)));
        parse_info("info string depth x score", &mut i);
        parse_info("info depth", &mut i);
        assert_eq!(i.depth, None);
    }

    #[test]
    fn position_text() {
        let s = "8/8/8/8/8/8/8/K6k w - - 0 1";
        assert_eq!(UciPlayer::position_command(s, s, &[]), "position startpos");
        assert_eq!(UciPlayer::position_command("x", s, &["a1a2".to_string()]), format!("position fen {s} moves a1a2"));
    }
}
