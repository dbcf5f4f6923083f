//! Drives the built binary with several search threads (Lazy SMP): legal best
//! moves and consistent `info` counts under `Threads 2`, the `go nodes`
//! budget shared by all threads, `stop` during `go infinite` with three
//! threads, and XBoard's `cores`. (The exact node total of a shared budget is
//! checked in `smp.rs`, where the search's result can be seen.) Searches are
//! bounded by depth, nodes or the engine's own clock; a deadline only catches
//! a hang, and speed is left to the benchmarks.

mod common;

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use common::Engine;
use menagerie::board::position::Position;
use menagerie::board::registry::Registry;

/// A position with captures and checks about: after 1.e4 e5 2.Nf3 Nc6 3.Bc4 Nf6.
const MOVES: &str = "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6";

fn uci_with_threads(threads: usize) -> Engine {
    let mut s = Engine::start(&[]);
    s.send("uci");
    s.expect(5, "uciok", |l| l == "uciok");
    s.send(&format!("setoption name Threads value {threads}"));
    s.send("isready");
    s.expect(5, "readyok", |l| l == "readyok");
    s
}

/// The numbers of an `info depth ...` line: (depth, nodes, nps, time).
fn info_numbers(line: &str) -> Option<(u64, u64, u64, u64)> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let number = |key: &str| {
        let at = words.iter().position(|w| *w == key)?;
        words.get(at + 1)?.parse::<u64>().ok()
    };
    Some((number("depth")?, number("nodes")?, number("nps")?, number("time")?))
}

/// Sends `go`, reads until `bestmove`, checks the move is legal after `moves`
/// and returns the numbers of every `info depth` line.
fn search(s: &mut Engine, go: &str, moves: &str) -> Vec<(u64, u64, u64, u64)> {
    s.send(&format!("position startpos moves {moves}"));
    s.send(go);
    let lines = s.read_until_or_hang(&format!("bestmove after {go}"), |l| l.starts_with("bestmove "));
    let best = lines.last().and_then(|l| l.split_whitespace().nth(1)).unwrap_or("").to_string();
    let registry = Registry::builtin();
    let mut pos = Position::startpos(Arc::clone(&registry.get("chess").expect("chess ships"))).expect("start");
    for m in moves.split_whitespace() {
        let m = pos.parse_move(m).expect("test moves are legal");
        pos.make(m);
    }
    assert!(pos.parse_move(&best).is_ok(), "{go}: illegal best move {best:?}; transcript:\n{}", s.transcript_tail());
    lines.iter().filter(|l| l.starts_with("info depth ")).filter_map(|l| info_numbers(l)).collect()
}

/// More nodes than any search of these tests reaches before the hang guard
/// (a wrapped or uninitialised counter passes it).
const GARBAGE_NODES: u64 = 1_000_000_000;

/// Node counts grow, agree with nps and time, and are not garbage.
fn assert_sane(go: &str, infos: &[(u64, u64, u64, u64)]) {
    assert!(!infos.is_empty(), "{go}: no info lines");
    let mut last_nodes = 0;
    for &(depth, nodes, nps, time) in infos {
        assert!(nodes > 0 && nodes >= last_nodes, "{go}: depth {depth} nodes {nodes} after {last_nodes}");
        assert_eq!(nps, nodes * 1000 / time.max(1), "{go}: depth {depth}");
        assert!(nodes < GARBAGE_NODES, "{go}: depth {depth} reports {nodes} nodes");
        last_nodes = nodes;
    }
}

#[test]
fn two_threads_give_legal_moves_and_sane_counts() {
    let mut s = uci_with_threads(2);
    let infos = search(&mut s, "go depth 8", MOVES);
    assert_sane("go depth 8", &infos);
    assert_eq!(infos.last().map(|i| i.0), Some(8), "the main thread finishes depth 8");

    // The engine's clock ends this search; one that ignored movetime would
    // run into the hang guard.
    let infos = search(&mut s, "go movetime 300", MOVES);
    assert_sane("go movetime 300", &infos);
    s.quit("quit");
}

#[test]
fn two_threads_share_the_node_budget() {
    let mut s = uci_with_threads(2);
    let limit = 50_000;
    let infos = search(&mut s, &format!("go nodes {limit}"), MOVES);
    assert_sane("go nodes", &infos);
    let reported = infos.last().map_or(0, |i| i.1);
    // A report comes only after a finished iteration, so it may fall short
    // of the budget, but it never passes it by more than a few polls.
    assert!(reported <= limit + 8_000, "{reported} nodes reported for a budget of {limit}");
    s.quit("quit");
}

/// Threads of the process named `helper N` (Linux names them in /proc; elsewhere None).
fn helper_threads(s: &Engine) -> Option<usize> {
    let tasks = std::fs::read_dir(format!("/proc/{}/task", s.id())).ok()?;
    let names = tasks.filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok());
    Some(names.filter(|name| name.starts_with("helper ")).count())
}

#[test]
fn stop_ends_an_infinite_search_on_three_threads() {
    let mut s = uci_with_threads(3);
    // Twice: the helpers of the first search are gone and come back for the second.
    for _ in 0..2 {
        s.send("position startpos");
        s.send("go infinite");
        thread::sleep(Duration::from_millis(300));
        if let Some(helpers) = helper_threads(&s) {
            assert_eq!(helpers, 2, "Threads 3 searches with two helpers");
        }
        s.send("stop");
        let line = s.read_until_or_hang("bestmove after stop", |l| l.starts_with("bestmove ")).pop();
        let best = line.as_deref().and_then(|l| l.split_whitespace().nth(1)).unwrap_or("");
        assert!(!best.is_empty() && best != "0000", "a stopped search still names a move: {line:?}");
        if let Some(helpers) = helper_threads(&s) {
            assert_eq!(helpers, 0, "helpers are joined before bestmove");
        }
    }
    s.send("isready");
    s.expect(5, "readyok", |l| l == "readyok");
    s.quit("quit");
}

#[test]
fn threads_out_of_bounds_are_refused_and_xboard_cores_search() {
    let mut s = uci_with_threads(1);
    s.send("setoption name Threads value 0");
    s.expect_prefix(5, "info string error:");
    s.send("setoption name Threads value 1025");
    s.expect_prefix(5, "info string error:");
    s.quit("quit");

    let mut x = Engine::start(&["xboard"]);
    x.send("xboard");
    x.send("protover 2");
    x.expect(5, "done=1", |l| l.contains("done=1"));
    x.send("cores 2");
    x.send("new");
    x.send("sd 6");
    x.send("go");
    x.read_until_or_hang("move after sd 6", |l| l.starts_with("move "));
    x.send("cores 0");
    x.expect_prefix(5, "Error");
    x.quit("quit");
}
