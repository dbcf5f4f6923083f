//! A sound sparring partner for tests and `play`: a UCI or XBoard engine that
//! plays a random legal move chosen by the rules core (seeded, so games are
//! reproducible). Its protocol handling is minimal and forgiving: unknown
//! commands are ignored. Uses the rules core and the opening generator.

use std::io::{BufRead, Write};
use std::sync::Arc;

use crate::game::openings::SplitMix64;
use crate::moves::MoveList;
use crate::notation::{uci_to_xboard, xboard_to_uci};
use crate::position::Position;
use crate::registry::Registry;
use crate::variant::Variant;

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
/// FEN, until the next one) and the seeded generator.
struct RandomMover {
    registry: Registry,
    variant: Arc<Variant>,
    pos: Option<Position>,
    rng: SplitMix64,
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
    };
    let stdin = std::io::stdin();
    let mut out = std::io::stdout();
    let mut say = |line: &str| {
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    };
    let mut forced = true;
    let mut multipv: usize = 1;
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some(&command) = tokens.first() else {
            continue;
        };
        if command == "quit" {
            break;
        }
        if xboard {
            match command {
                "protover" => {
                    let names = mover.registry.names().join(",");
                    say(&format!("feature myname=\"menagerie-random\" ping=1 setboard=1 usermove=1 sigint=0 sigterm=0 variants=\"{names}\" done=1"));
                }
                "new" => {
                    mover.set_variant("chess");
                    forced = false;
                }
                "variant" => {
                    if let Some(name) = tokens.get(1) {
                        mover.set_variant(name);
                    }
                }
                "force" => forced = true,
                "setboard" => mover.set_fen(line.trim_start_matches("setboard").trim()),
                "ping" => say(&format!("pong {}", tokens.get(1).unwrap_or(&""))),
                "go" | "usermove" => {
                    // XBoard numbers the ranks of a 10-rank board from 0.
                    let shape = mover.variant.shape;
                    if command == "usermove" {
                        let text = tokens.get(1).copied().unwrap_or("");
                        if !mover.play(&xboard_to_uci(shape, text)) {
                            say(&format!("Illegal move: {text}"));
                            continue;
                        }
                    } else {
                        forced = false;
                    }
                    if !forced {
                        if let Some(m) = mover.choose() {
                            mover.play(&m);
                            say(&format!("move {}", uci_to_xboard(shape, &m)));
                        }
                    }
                }
                _ => {}
            }
        } else {
            match command {
                "uci" => {
                    say("id name menagerie-random");
                    say("option name MultiPV type spin default 1 min 1 max 64");
                    say("id author the menagerie developers");
                    let vars: Vec<String> = mover.registry.names().iter().map(|n| format!("var {n}")).collect();
                    say(&format!("option name UCI_Variant type combo default chess {}", vars.join(" ")));
                    say("uciok");
                }
                "isready" => say("readyok"),
                // setoption name UCI_Variant value X
                "setoption" if tokens.get(2).is_some_and(|t| t.eq_ignore_ascii_case("UCI_Variant")) => {
                    if let Some(v) = tokens.get(4) {
                        mover.set_variant(v);
                    }
                }
                "position" => {
                    let moves_at = tokens.iter().position(|&t| t == "moves").unwrap_or(tokens.len());
                    match tokens.get(1) {
                        Some(&"fen") => mover.set_fen(&tokens[2.min(moves_at)..moves_at].join(" ")),
                        _ => mover.pos = Position::startpos(Arc::clone(&mover.variant)).ok(),
                    }
                    for m in tokens.iter().skip(moves_at + 1) {
                        if !mover.play(m) {
                            break;
                        }
                    }
                }
                "setoption" if tokens.get(2).is_some_and(|t| t.eq_ignore_ascii_case("MultiPV")) => {
                    multipv = tokens.get(4).and_then(|v| v.parse().ok()).unwrap_or(1).max(1);
                }
                "go" => {
                    // MultiPV lines: distinct random moves, each a one-move PV.
                    let mut seen = Vec::new();
                    for k in 1..=multipv {
                        match mover.choose() {
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
                _ => {}
            }
        }
    }
}
