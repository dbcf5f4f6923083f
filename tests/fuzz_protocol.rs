//! Protocol fuzzing: random and mutated command lines, interleaved with valid
//! ones, fed to the UCI and XBoard loops of the real binary. The engine must
//! never panic, must keep answering `isready`/`ping`, and must still play a
//! legal move afterwards. `FUZZ_PROTOCOL_LINES` sets the number of lines per
//! protocol (default 3 000; the closing note of the robustness issue quotes a
//! 10^6 run).

mod common;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use common::Engine;
use menagerie::board::position::Position;
use menagerie::board::registry::Registry;

/// How long a batch may take to be answered.
const SECS: u64 = 20;

const NASTY: &[&str] = &[
    "",
    "   ",
    "position fen",
    "position fen 8/8/8 w",
    "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNRR w KQkq - 0 1",
    "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR/8 w KQkq - 0 1",
    "position fen xnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "position fen 11/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "position startpos moves k11k12",
    "position startpos moves e2e5",
    "position startpos moves e2e4 e7e5 Q@d4",
    "position startpos moves 0000",
    "position startpos moves a10a11",
    "go depth 99999999999999999999",
    "go depth -1",
    "go movetime -100",
    "go wtime -5000 btime -5000",
    "go nodes 184467440737095516150",
    "go perft -3",
    "go perft 99999999999",
    "setoption name Hash value 99999999999",
    "setoption name Hash value -1",
    "setoption name UCI_Variant value nosuchvariant",
    "setoption name VariantPath value /nonexistent/dir",
    "setoption name",
    "setoption name MultiPV value 0",
    "setoption name Threads value 100000",
    "variant nosuch",
    "setboard 8/8/8/8/8/8/8/8 w - - 0 1",
    "setboard rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[Qq] w KQkq - 0 1",
    "usermove k11a1",
    "usermove e2e5",
    "level 0 0 0",
    "level 40 99999999:99 99999",
    "st -1",
    "sd 999999999999",
    "time -100",
    "otim abc",
    "memory 99999999999",
    "cores -1",
    "option Hash=abc",
    "ping",
    "ping abc",
    "ucci",
    "perft",
    "\u{1F600} \u{0}\u{7f}",
    "é à ü",
];

const VALID_UCI: &[&str] = &[
    "ucinewgame",
    "position startpos",
    "position startpos moves e2e4 e7e5 g1f3",
    "setoption name UCI_Variant value capablanca",
    "setoption name UCI_Variant value clockwork",
    "setoption name UCI_Variant value clash3",
    "setoption name UCI_Variant value relocation",
    "setoption name UCI_Variant value chess",
    "setoption name Hash value 4",
    "setoption name MultiPV value 2",
    "go depth 2",
    "go nodes 500",
    "go movetime 5",
    "stop",
    "d",
];

const VALID_XBOARD: &[&str] = &[
    "new",
    "force",
    "variant capablanca",
    "variant clash1",
    "variant clockwork",
    "variant normal",
    "usermove e2e4",
    "undo",
    "remove",
    "post",
    "nopost",
    "hard",
    "easy",
    "sd 2",
    "st 1",
    "level 40 5 0",
    "time 500",
    "otim 500",
    "?",
    "result 1-0 {resign}",
    "computer",
    "random",
    "setboard 4k3/8/8/8/8/8/8/4K3 w - - 0 1",
];

fn mutate(rng: &mut StdRng, line: &str) -> String {
    let mut chars: Vec<char> = line.chars().collect();
    match rng.gen_range(0..6) {
        0 if !chars.is_empty() => {
            chars.truncate(rng.gen_range(0..chars.len()));
        }
        1 if !chars.is_empty() => {
            let i = rng.gen_range(0..chars.len());
            chars[i] = ['x', '9', '-', ' ', '/', '@', 'é', '\u{0}'][rng.gen_range(0..8)];
        }
        2 => {
            let i = rng.gen_range(0..=chars.len());
            let number = rng.gen::<u64>().to_string();
            chars.splice(i..i, number.chars());
        }
        3 => chars = std::iter::repeat_n('a', rng.gen_range(1000..20_000)).collect(),
        4 => {
            let words: Vec<&str> = line.split(' ').collect();
            return words.iter().rev().copied().collect::<Vec<_>>().join(" ");
        }
        _ => {}
    }
    chars.into_iter().collect()
}

/// Keeps the fuzzer from asking for work a user may legitimately ask for but a
/// test cannot wait for: deep perfts (answered synchronously, as Stockfish
/// does) and hash tables of many GiB (allocated and cleared for real).
/// Invalid values are left alone: those are what the test is about.
fn tame(line: String) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    let number = |w: Option<&&str>| w.and_then(|w| w.parse::<u64>().ok());
    match words.as_slice() {
        ["go", "perft", d, ..] if number(Some(d)).is_some_and(|d| (4..=32).contains(&d)) => "go perft 3".into(),
        ["setoption", "name", "Hash", "value", n, ..]
            if number(Some(n)).is_some_and(|n| (257..=32_768).contains(&n)) =>
        {
            "setoption name Hash value 16".into()
        }
        ["memory", n, ..] if number(Some(n)).is_some_and(|n| (257..=32_768).contains(&n)) => "memory 16".into(),
        _ => line,
    }
}

fn line_count() -> usize {
    std::env::var("FUZZ_PROTOCOL_LINES").ok().and_then(|v| v.parse().ok()).unwrap_or(3_000)
}

#[test]
fn uci_loop_survives_fuzzing() {
    let mut rng = StdRng::seed_from_u64(11);
    let mut engine = Engine::start(&[]);
    engine.send("uci");
    engine.read_until(SECS, "uciok", |l| l == "uciok");
    let total = line_count();
    let mut sent = 0;
    while sent < total {
        for _ in 0..50 {
            let line = match rng.gen_range(0..3) {
                0 => NASTY[rng.gen_range(0..NASTY.len())].to_string(),
                1 => VALID_UCI[rng.gen_range(0..VALID_UCI.len())].to_string(),
                _ => {
                    let base = if rng.gen_bool(0.5) { NASTY } else { VALID_UCI };
                    let pick = base[rng.gen_range(0..base.len())];
                    mutate(&mut rng, pick)
                }
            };
            engine.send(&tame(line));
            sent += 1;
        }
        engine.send("stop");
        engine.send("isready");
        engine.read_until(SECS, "readyok", |l| l == "readyok");
    }
    // Still plays a legal move.
    engine.send("stop");
    engine.send("setoption name UCI_Variant value chess");
    engine.send("ucinewgame");
    engine.send("position startpos moves e2e4");
    engine.send("isready");
    engine.read_until(SECS, "readyok", |l| l == "readyok");
    engine.send("go depth 3");
    let lines = engine.read_until(SECS, "bestmove", |l| l.starts_with("bestmove"));
    let best = lines.last().and_then(|l| l.split_whitespace().nth(1)).expect("move").to_string();
    let reg = Registry::builtin();
    let mut pos = Position::startpos(reg.get("chess").expect("chess")).expect("start");
    let e4 = pos.parse_move("e2e4").expect("e4");
    pos.make(e4);
    assert!(pos.parse_move(&best).is_ok(), "bestmove {best} is not legal");
    engine.quit("quit");
}

#[test]
fn xboard_loop_survives_fuzzing() {
    let mut rng = StdRng::seed_from_u64(12);
    let mut engine = Engine::start(&["xboard"]);
    engine.send("xboard");
    engine.send("protover 2");
    engine.read_until(SECS, "feature done=1", |l| l.contains("done=1"));
    let total = line_count();
    let mut sent = 0;
    let mut ping = 0;
    while sent < total {
        for _ in 0..50 {
            let line = match rng.gen_range(0..3) {
                0 => NASTY[rng.gen_range(0..NASTY.len())].to_string(),
                1 => VALID_XBOARD[rng.gen_range(0..VALID_XBOARD.len())].to_string(),
                _ => {
                    let base = if rng.gen_bool(0.5) { NASTY } else { VALID_XBOARD };
                    let pick = base[rng.gen_range(0..base.len())];
                    mutate(&mut rng, pick)
                }
            };
            engine.send(&tame(line));
            sent += 1;
        }
        // Stop any thinking, then the ping must come back.
        engine.send("force");
        ping += 1;
        engine.send(&format!("ping {ping}"));
        let want = format!("pong {ping}");
        engine.read_until(SECS, "pong", |l| l == want);
    }
    engine.send("new");
    engine.send("variant normal");
    engine.send("force");
    engine.send("usermove e2e4");
    engine.send("sd 3");
    engine.send("go");
    let lines = engine.read_until(SECS, "move", |l| l.starts_with("move "));
    let best = lines.last().and_then(|l| l.split_whitespace().nth(1)).expect("move").to_string();
    let reg = Registry::builtin();
    let mut pos = Position::startpos(reg.get("chess").expect("chess")).expect("start");
    let e4 = pos.parse_move("e2e4").expect("e4");
    pos.make(e4);
    assert!(pos.parse_move(&best).is_ok(), "move {best} is not legal");
    engine.quit("quit");
}
