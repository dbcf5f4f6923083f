//! A sound sparring partner for tests and `play`: a UCI or XBoard engine that
//! plays a random legal move chosen by the rules core (seeded, so games are
//! reproducible). Its protocol handling is minimal and forgiving: unknown
//! commands are ignored.

use std::io::{BufRead, Write};
use std::sync::Arc;

use crate::board::notation::{uci_to_xboard, xboard_to_uci};
use crate::board::position::Position;
use crate::board::registry::Registry;
use crate::game::openings::SplitMix64;
use crate::rules::moves::MoveList;
use crate::rules::variant::Variant;

/// A random legal move of `pos` in UCI text (None when there is none).
pub fn random_move(pos: &mut Position, rng: &mut SplitMix64) -> Option<String> {
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    if list.is_empty() {
        return None;
    }
    let m = list[rng.below(list.len())];
    Some(pos.move_to_uci(m, false))
}

/// The random engine's game: the variant, the position (None after a bad
/// FEN, until the next one), the seeded generator, and the protocol's state
/// (XBoard's force mode, UCI's MultiPV).
struct RandomMover {
    registry: Registry,
    variant: Arc<Variant>,
    pos: Option<Position>,
    rng: SplitMix64,
    forced: bool,
    multipv: usize,
}

/// Writes a line to stdout at once.
fn say(line: &str) {
    let mut out = std::io::stdout();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

impl RandomMover {
    fn set_variant(&mut self, name: &str) {
        if let Some(v) = self.registry.get(name) {
            self.variant = v;
            self.pos = Position::startpos(Arc::clone(&self.variant)).ok();
        }
    }

    fn set_fen(&mut self, fen: &str) {
        self.pos = Position::from_fen(Arc::clone(&self.variant), fen).ok();
    }

    fn play(&mut self, text: &str) -> bool {
        let Some(pos) = self.pos.as_mut() else {
            return false;
        };
        match pos.parse_move(text) {
            Ok(m) => {
                pos.make(m);
                true
            }
            Err(_) => false,
        }
    }

    fn choose(&mut self) -> Option<String> {
        let pos = self.pos.as_mut()?;
        random_move(pos, &mut self.rng)
    }

    /// One XBoard command.
    fn xboard_command(&mut self, line: &str, tokens: &[&str]) {
        match tokens[0] {
            "protover" => {
                let names = self.registry.names().join(",");
                say(&format!("feature myname=\"menagerie-random\" ping=1 setboard=1 usermove=1 sigint=0 sigterm=0 variants=\"{names}\" done=1"));
            }
            "new" => {
                self.set_variant("chess");
                self.forced = false;
            }
            "variant" => {
                if let Some(name) = tokens.get(1) {
                    self.set_variant(name);
                }
            }
            "force" => self.forced = true,
            "setboard" => self.set_fen(line.trim_start_matches("setboard").trim()),
            "ping" => say(&format!("pong {}", tokens.get(1).unwrap_or(&""))),
            "usermove" => self.xboard_usermove(tokens.get(1).copied().unwrap_or("")),
            "go" => {
                self.forced = false;
                self.xboard_reply();
            }
            _ => {}
        }
    }

    /// XBoard's `usermove`: plays the opponent's move and answers it.
    fn xboard_usermove(&mut self, text: &str) {
        // XBoard numbers the ranks of a 10-rank board from 0.
        if !self.play(&xboard_to_uci(self.variant.shape, text)) {
            say(&format!("Illegal move: {text}"));
            return;
        }
        self.xboard_reply();
    }

    /// Plays and sends a random move, unless in force mode.
    fn xboard_reply(&mut self) {
        if self.forced {
            return;
        }
        if let Some(m) = self.choose() {
            self.play(&m);
            say(&format!("move {}", uci_to_xboard(self.variant.shape, &m)));
        }
    }

    /// One UCI command.
    fn uci_command(&mut self, tokens: &[&str]) {
        match tokens[0] {
            "uci" => self.uci_hello(),
            "isready" => say("readyok"),
            // setoption name UCI_Variant value X
            "setoption" if tokens.get(2).is_some_and(|t| t.eq_ignore_ascii_case("UCI_Variant")) => {
                if let Some(v) = tokens.get(4) {
                    self.set_variant(v);
                }
            }
            "position" => self.uci_position(tokens),
            "setoption" if tokens.get(2).is_some_and(|t| t.eq_ignore_ascii_case("MultiPV")) => {
                self.multipv = tokens.get(4).and_then(|v| v.parse().ok()).unwrap_or(1).max(1);
            }
            "go" => self.uci_go(),
            _ => {}
        }
    }

    /// The answer to `uci`: the name, the options and `uciok`.
    fn uci_hello(&self) {
        say("id name menagerie-random");
        say("option name MultiPV type spin default 1 min 1 max 64");
        say("id author the menagerie developers");
        let vars: Vec<String> = self.registry.names().iter().map(|n| format!("var {n}")).collect();
        say(&format!("option name UCI_Variant type combo default chess {}", vars.join(" ")));
        say("uciok");
    }

    /// `position [startpos | fen FEN] [moves ...]`, up to the first bad move.
    fn uci_position(&mut self, tokens: &[&str]) {
        let moves_at = tokens.iter().position(|&t| t == "moves").unwrap_or(tokens.len());
        match tokens.get(1) {
            Some(&"fen") => self.set_fen(&tokens[2.min(moves_at)..moves_at].join(" ")),
            _ => self.pos = Position::startpos(Arc::clone(&self.variant)).ok(),
        }
        for m in tokens.iter().skip(moves_at + 1) {
            if !self.play(m) {
                break;
            }
        }
    }

    /// `go`: MultiPV lines of distinct random moves, each a one-move PV, and
    /// the first as the best move.
    fn uci_go(&mut self) {
        let mut seen = Vec::new();
        for k in 1..=self.multipv {
            match self.choose() {
                Some(m) if !seen.contains(&m) => {
                    say(&format!("info depth 1 multipv {k} score cp 0 nodes 1 time 0 pv {m}"));
                    seen.push(m);
                }
                _ => break,
            }
        }
        let m = seen.first().cloned().unwrap_or_else(|| "0000".to_string());
        say(&format!("bestmove {m}"));
    }
}

/// Runs the random engine on stdin/stdout until `quit` or end of input.
pub fn run(registry: Registry, seed: u64, xboard: bool) {
    let Some(chess) = registry.get("chess").or_else(|| registry.variants().next().cloned()) else {
        return;
    };
    let mut mover = RandomMover {
        pos: Position::startpos(Arc::clone(&chess)).ok(),
        variant: chess,
        registry,
        rng: SplitMix64(seed),
        forced: true,
        multipv: 1,
    };
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        let tokens: Vec<&str> = line.split_whitespace().collect();
        match tokens.first() {
            None => continue,
            Some(&"quit") => break,
            Some(_) if xboard => mover.xboard_command(&line, &tokens),
            Some(_) => mover.uci_command(&tokens),
        }
    }
}
