//! What GUIs expect beyond the happy path (issue: "every GUI gets what it
//! expects"): UCI ignores what it does not understand and still answers,
//! every `go` ends in `bestmove`, and the last line shown before `bestmove`
//! is the line of the move played.

mod common;

use common::Engine;

fn uci() -> Engine {
    let mut s = Engine::start(&["uci"]);
    s.send("uci");
    s.expect(10, "uciok", |l| l == "uciok");
    s
}

/// Sends `go ...` and returns every line up to and including `bestmove`.
fn go(s: &mut Engine, line: &str) -> Vec<String> {
    s.send(line);
    s.read_until(20, "bestmove", |l| l.starts_with("bestmove "))
}

/// The search's lines other than `info depth` reports, with `bestmove`
/// cut to its move (the expected reply depends on the evaluation).
fn plain(lines: &[String]) -> Vec<String> {
    let cut = |l: &String| match l.split_once(" ponder ") {
        Some((best, _)) if l.starts_with("bestmove ") => best.to_string(),
        _ => l.clone(),
    };
    lines.iter().filter(|l| !l.starts_with("info depth ")).map(cut).collect()
}

/// The depths of the `info depth N ... pv` lines.
fn depths(lines: &[String]) -> Vec<u32> {
    let depth = |l: &String| l.strip_prefix("info depth ")?.split(' ').next()?.parse().ok();
    lines.iter().filter(|l| l.contains(" pv ")).filter_map(depth).collect()
}

#[test]
fn uci_unknown_words_before_a_command_are_skipped() {
    let mut s = uci();
    s.send("joho isready");
    assert_eq!(s.read_until(5, "readyok", |l| l == "readyok"), ["readyok"]);
    s.send("frobnicate");
    s.send("isready");
    assert_eq!(
        s.read_until(5, "readyok", |l| l == "readyok"),
        ["info string error: unknown command \"frobnicate\"", "readyok"]
    );
    s.send("position joho startpos joho moves e2e4");
    s.send("d");
    assert_eq!(s.expect_prefix(5, "Fen: "), "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    s.expect_prefix(5, "Checkers: ");
    s.send("joho setoption joho name MultiPV value 2");
    s.send("isready");
    assert_eq!(s.read_until(5, "readyok", |l| l == "readyok"), ["readyok"]);
    s.send("go depth 1");
    s.expect(5, "a second line", |l| l.contains(" multipv 2 "));
    s.quit("quit");
}

#[test]
fn uci_go_ignores_unknown_and_malformed_parameters() {
    let mut s = uci();
    s.send("position startpos");
    let lines = go(&mut s, "go byoyomi 1000 depth 3 searchmoves g1f3");
    assert_eq!(
        plain(&lines),
        ["info string error: bad go command: unknown parameter \"byoyomi 1000\" (ignored)", "bestmove g1f3"]
    );
    assert_eq!(depths(&lines), [1, 2, 3]);
    let lines = go(&mut s, "go depth 2 wtime 1.5 winc searchmoves b1c3");
    assert_eq!(
        plain(&lines),
        [
            "info string error: bad go command: bad value \"1.5\" for wtime (ignored)",
            "info string error: bad go command: missing value after winc (ignored)",
            "bestmove b1c3"
        ]
    );
    assert_eq!(depths(&lines), [1, 2]);
    s.quit("quit");
}

#[test]
fn uci_searchmoves_keeps_the_legal_moves_only() {
    let mut s = uci();
    s.send("position startpos");
    let lines = go(&mut s, "go depth 2 searchmoves e7e5 h2h3 e2e5");
    assert_eq!(
        plain(&lines),
        [
            "info string error: bad go command: searchmoves: illegal move \"e7e5\" (ignored)",
            "info string error: bad go command: searchmoves: illegal move \"e2e5\" (ignored)",
            "bestmove h2h3"
        ]
    );
    // No legal move left: the whole position is searched.
    let lines = go(&mut s, "go depth 2 searchmoves e7e5");
    assert_eq!(plain(&lines)[0], "info string error: bad go command: searchmoves: illegal move \"e7e5\" (ignored)");
    assert!(plain(&lines)[1].starts_with("bestmove ") && plain(&lines)[1] != "bestmove 0000", "{lines:?}");
    s.quit("quit");
}

/// The last `info ... pv` line before `bestmove`: its first move and its score.
fn last_line(lines: &[String]) -> Option<(String, String)> {
    let line = lines.iter().rev().find(|l| l.starts_with("info depth ") && l.contains(" pv "))?;
    let head = line.split(" pv ").nth(1)?.split(' ').next()?.to_string();
    let score = line.split(" score ").nth(1)?.split(' ').take(2).collect::<Vec<_>>().join(" ");
    Some((head, score))
}

#[test]
fn uci_the_last_line_shown_is_the_move_played() {
    // Node limits stop searches inside an iteration, often after a new best
    // move was found there (dozens of these searches before the fix).
    let mut s = uci();
    for variant in ["chess", "capablanca"] {
        s.send(&format!("setoption name UCI_Variant value {variant}"));
        for nodes in (1_000..40_000).step_by(1_000) {
            s.send("ucinewgame");
            s.send("position startpos");
            let lines = go(&mut s, &format!("go nodes {nodes}"));
            let best = lines.last().and_then(|l| l.split(' ').nth(1)).unwrap_or_default().to_string();
            let (head, score) = last_line(&lines).unwrap_or_default();
            assert_eq!(head, best, "{variant}, {nodes} nodes: {lines:?}");
            assert!(!score.is_empty(), "{lines:?}");
        }
    }
    s.quit("quit");
}

#[test]
fn xboard_go_on_a_finished_game_answers_the_result() {
    let mut s = Engine::start(&["xboard"]);
    s.send("protover 2");
    s.expect(10, "features", |l| l == "feature done=1");
    for (fen, result) in [
        ("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "1-0 {White mates}"),
        ("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "1/2-1/2 {Stalemate}"),
        ("8/8/8/8/8/6k1/6q1/7K w - - 0 1", "0-1 {Black mates}"),
        ("8/8/8/8/8/6k1/8/7K w - - 0 1", "1/2-1/2 {Dead position}"),
        ("8/8/8/8/8/6k1/8/5B1K b - - 0 1", "1/2-1/2 {Dead position}"),
    ] {
        s.send("new");
        s.send("force");
        s.send(&format!("setboard {fen}"));
        s.send("go");
        s.send("ping 1");
        assert_eq!(s.read_until(5, "pong", |l| l == "pong 1"), [result, "pong 1"]);
    }
    s.quit("quit");
}

#[test]
fn a_move_into_a_dead_position_ends_the_game() {
    // XBoard: the king takes the queen, K v K, and the engine announces the draw.
    let mut s = Engine::start(&["xboard"]);
    s.send("protover 2");
    s.expect(10, "features", |l| l == "feature done=1");
    for line in ["new", "force", "setboard 7k/8/8/8/8/8/1q6/K7 w - - 0 1", "usermove a1b2", "ping 1"] {
        s.send(line);
    }
    assert_eq!(s.read_until(5, "pong", |l| l == "pong 1"), ["1/2-1/2 {Dead position}", "pong 1"]);
    // Clash: bishops of both sides on dark squares are dead, on both colours they play on.
    for line in ["new", "variant clash1", "force", "setboard 4k5/10/10/10/10/10/5b4/10/10/2B1K5 w - - 0 1", "ping 2"] {
        s.send(line);
    }
    let seen = s.read_until(5, "pong", |l| l == "pong 2");
    assert!(!seen.iter().any(|l| l.starts_with("1/2-1/2")), "{seen:?}");
    s.send("go");
    s.send("ping 3");
    assert_eq!(s.read_until(5, "pong", |l| l == "pong 3"), ["1/2-1/2 {Dead position}", "pong 3"]);
    s.quit("quit");

    // UCI has no result line: a search of a dead position still names a move, scored 0.
    let mut s = uci();
    s.send("position fen 7k/8/8/8/8/8/8/KN6 w - - 0 1");
    let lines = go(&mut s, "go depth 4");
    let best = lines.last().and_then(|l| l.split(' ').nth(1)).unwrap_or_default();
    assert!(!best.is_empty() && best != "0000", "{lines:?}");
    assert!(lines.iter().any(|l| l.starts_with("info depth 4 ") && l.contains(" score cp 0 ")), "{lines:?}");
    s.quit("quit");
}

/// The answers of a UCI session to `lines`, up to the final `readyok`.
fn uci_answers(lines: &[&str]) -> Vec<String> {
    let mut s = uci();
    for l in lines {
        s.send(l);
    }
    s.send("isready");
    let out = s.read_until(10, "readyok", |l| l == "readyok");
    s.quit("quit");
    out
}

#[test]
fn fen_men_on_ranks_their_variant_never_allows() {
    let errors = uci_answers(&[
        "position fen rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w - - 0 1",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP w - - 0 1",
        "position fen rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNp w - - 0 1",
        "position fen pnbqkbnr/1ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
        "setoption name UCI_Variant value clash1",
        "position fen hrfbkmbfrh/g8g/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBUQKUBPR/3A2C3 w - - 0 1",
    ]);
    assert_eq!(
        errors.iter().filter(|l| l.starts_with("info string error")).collect::<Vec<_>>(),
        [
            "info string error: bad FEN: white pawn on h8 stands on its promotion rank (it must promote there)",
            "info string error: bad FEN: white pawn on h1 cannot be there: it moves only forward and never stands behind rank 2",
            "info string error: bad FEN: black pawn on h1 stands on its promotion rank (it must promote there)",
            "info string error: bad FEN: black pawn on a8 cannot be there: it moves only forward and never stands behind rank 7",
            "info string error: bad FEN: white pawn on i2 cannot be there: it moves only forward and never stands behind rank 3",
        ]
    );
    // Clockwork drops pawns on the first rank: a pawn there is legal.
    let answers = uci_answers(&[
        "setoption name UCI_Variant value clockwork",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP[] w - - 0 1",
        "d",
    ]);
    assert!(answers.iter().any(|l| l == "Fen: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNP[] w - - 0 1"), "{answers:?}");
    assert!(!answers.iter().any(|l| l.contains("error")), "{answers:?}");
}

#[test]
fn play_plays_menageries_engine_by_default() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    // Black (the engine) mates in one among 15 moves; a random mover would rarely find it.
    let play = |extra: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_menagerie"))
            .args(["play", "--fen", "r5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1", "--tc", "depth=3"])
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn play");
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(b"quit\n");
        }
        let out = child.wait_with_output().expect("wait play");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect::<Vec<_>>()
    };
    let lines = play(&[]);
    let said = |lines: &[String], start: &str| lines.iter().find(|l| l.starts_with(start)).cloned().unwrap_or_default();
    assert_eq!(
        said(&lines, "You play"),
        "You play white against menagerie's engine (depth=3). Type moves in SAN (e4, Nf3, O-O) or UCI text (e2e4, a9a10q, P@e4); help lists the commands."
    );
    // The move, numbered, with the engine's evaluation in White's view: Black mates in one.
    let mate = said(&lines, "Engine plays");
    assert!(mate.starts_with("Engine plays 1... Ra1# (a8a1); eval #-1 at depth "), "{mate}");
    assert!(lines.iter().any(|l| l == "Black mates (0-1)"), "{lines:?}");
    let lines = play(&["--random", "--seed", "5"]);
    assert!(said(&lines, "You play").starts_with("You play white against a random mover (seed 5)."), "{lines:?}");
}
