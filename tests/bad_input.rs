//! One named regression test per class of bad input, each asserting the exact
//! one-line answer, for both protocols. The engine must answer and stay up
//! (every session ends with `isready`/`ping` answered).

mod common;

use common::Engine;

/// Runs a session and returns the engine's output lines (minus the handshake).
fn session(protocol: &str, lines: &[&str]) -> Vec<String> {
    let mut engine = Engine::start(&[protocol]);
    let (hello, bye) = if protocol == "uci" { ("uci", "isready") } else { ("protover 2", "ping 99") };
    engine.send(hello);
    for l in lines {
        engine.send(l);
    }
    engine.send(bye);
    let lines: Vec<String> = engine
        .quit("quit")
        .into_iter()
        .filter(|l| !l.starts_with("option ") && !l.starts_with("id ") && *l != "uciok" && !l.starts_with("feature "))
        .collect();
    let last = if protocol == "uci" { "readyok" } else { "pong 99" };
    assert!(lines.iter().any(|l| l == last), "engine stopped answering: {lines:?}");
    lines
}

fn uci_says(lines: &[&str], expected: &str) {
    let out = session("uci", lines);
    assert!(out.iter().any(|l| l == expected), "expected {expected:?} in {out:?}");
}

fn xboard_says(lines: &[&str], expected: &str) {
    let out = session("xboard", lines);
    assert!(out.iter().any(|l| l == expected), "expected {expected:?} in {out:?}");
}

#[test]
fn truncated_fen() {
    uci_says(
        &["position fen rnbqkbnr/pppppppp/8/8"],
        "info string error: bad FEN: FEN has 4 ranks, the chess board has 8",
    );
    xboard_says(
        &["setboard rnbqkbnr/pppppppp/8/8"],
        "tellusererror Illegal position: bad FEN: FEN has 4 ranks, the chess board has 8",
    );
}

#[test]
fn fen_with_a_wrong_row_length() {
    uci_says(
        &["position fen rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"],
        "info string error: bad FEN: FEN rank 7 has 7 squares, the board has 8 files",
    );
}

#[test]
fn fen_with_eleven_files() {
    uci_says(
        &["setoption name UCI_Variant value clash1", "position fen 11/10/10/10/10/10/10/10/10/4K5 w - - 0 1"],
        "info string error: bad FEN: FEN rank 10 has 11 squares, the board has 10 files",
    );
}

#[test]
fn fen_with_an_unknown_letter() {
    uci_says(
        &["position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1"],
        "info string error: bad FEN: unknown piece letter 'X' in FEN",
    );
}

#[test]
fn fen_without_a_king() {
    uci_says(
        &["position fen 8/8/8/8/8/8/8/K7 w - - 0 1"],
        "info string error: bad FEN: black must have exactly one king (found 0)",
    );
}

#[test]
fn move_off_the_board() {
    uci_says(&["position startpos moves k11a1"], "info string error: bad move syntax \"k11a1\"");
    xboard_says(&["new", "force", "usermove k11a1"], "Illegal move: k11a1");
}

#[test]
fn move_of_the_wrong_variant() {
    // A drop in orthodox chess, and a 10-file square on an 8x8 board.
    uci_says(&["position startpos moves P@e4"], "info string error: illegal move \"P@e4\"");
    uci_says(&["position startpos moves i2i4"], "info string error: bad move syntax \"i2i4\"");
}

#[test]
fn illegal_move() {
    uci_says(&["position startpos moves e2e5"], "info string error: illegal move \"e2e5\"");
    xboard_says(&["new", "force", "usermove e2e5"], "Illegal move: e2e5");
}

#[test]
fn giant_numbers() {
    uci_says(
        &["go depth 99999999999999999999"],
        "info string error: bad go command: bad value \"99999999999999999999\" for depth (ignored)",
    );
    uci_says(
        &["go movetime 99999999999999999999999"],
        "info string error: bad go command: bad value \"99999999999999999999999\" for movetime (ignored)",
    );
    uci_says(
        &["setoption name Hash value 99999999999"],
        "info string error: bad value \"99999999999\" for option \"Hash\"",
    );
    uci_says(&["go perft 1000"], "info string error: bad go command: perft depth must be 1 to 32, not 1000");
}

#[test]
fn negative_times_still_give_a_legal_move() {
    let out = session("uci", &["position startpos", "go wtime -5000 btime -5000"]);
    assert!(out.iter().any(|l| l.starts_with("bestmove ") && l != "bestmove 0000"), "{out:?}");
}

#[test]
fn unknown_variant() {
    uci_says(&["setoption name UCI_Variant value nosuch"], "info string error: unknown variant \"nosuch\"");
    xboard_says(&["variant nosuch"], "Error (unknown variant \"nosuch\"): variant nosuch");
}

#[test]
fn empty_lines_are_ignored() {
    let out = session("uci", &["", "   ", "\t"]);
    assert_eq!(out, vec!["readyok".to_string()]);
    let out = session("xboard", &["", "   "]);
    assert_eq!(out, vec!["pong 99".to_string()]);
}

#[test]
fn unicode_is_an_unknown_command() {
    uci_says(&["é ü 😀"], "info string error: unknown command \"é ü 😀\"");
    // CECP quotes the command, i.e. the first word.
    xboard_says(&["é ü 😀"], "Error (unknown command): é");
}

#[test]
fn very_long_lines_are_answered_briefly() {
    let long = "x".repeat(100_000);
    let quoted = format!("info string error: unknown command \"{}...\"", "x".repeat(80));
    uci_says(&[&long], &quoted);
    xboard_says(&[&long], &format!("Error (unknown command): {}...", "x".repeat(80)));
}

#[test]
fn unknown_option_value() {
    uci_says(
        &["setoption name Evaluation value clever"],
        "info string error: bad value \"clever\" for option \"Evaluation\"",
    );
    xboard_says(
        &["option Evaluation=clever"],
        "Error (bad value \"clever\" for option \"Evaluation\"): option Evaluation=clever",
    );
}
