//! `menagerie play` driven through its standard input as a person would:
//! `help`, an ambiguous SAN, text that is no move, an illegal move, a move
//! and the reply, `undo`, `moves`, `hint` and `flip`, each answered in one
//! line (a board follows where the position changed); the clocks start
//! with each side's first move; the engine's evaluation follows its move;
//! Unicode figures on request, letters in a pipe.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `menagerie play ARGS` with `input` on its standard input; its output
/// split at each prompt: the answer to the i-th line typed is `[i]`.
fn play(args: &[&str], input: &str) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_menagerie"))
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run menagerie play");
    child.stdin.take().expect("stdin").write_all(input.as_bytes()).expect("send");
    let out = child.wait_with_output().expect("play ends");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    text.split("Your move: ").map(str::to_string).collect()
}

/// Two rooks that can both go to d1: `Rd1` is ambiguous.
const ROOKS: &str = "k7/8/8/8/8/8/K7/R6R w - - 0 1";

#[test]
fn a_scripted_game_at_the_terminal() {
    let input = "help\nRd1\nxyz\nRa8\nRad1\nundo\nmoves\nhint\nflip\nquit\n";
    let answers = play(&["--fen", ROOKS, "--random", "--tc", "60+0"], input);
    assert_eq!(answers.len(), 11, "{answers:#?}");
    let one_line = |i: usize| {
        assert_eq!(answers[i].lines().count(), 1, "answer {i} is one line: {:?}", answers[i]);
        answers[i].trim_end().to_string()
    };
    assert!(one_line(1).starts_with("Type a move in SAN") && answers[1].contains("undo"), "{}", answers[1]);
    let ambiguous = one_line(2);
    assert!(ambiguous.starts_with("Rd1: ambiguous: ") && ambiguous.contains("Rad1") && ambiguous.contains("Rhd1"));
    assert_eq!(one_line(3), "xyz: not a move (help lists the commands)");
    assert_eq!(one_line(4), "Ra8: not legal here (moves lists the legal ones)");
    // A move and the reply; each side's first move is free: the clocks stand at a minute.
    let moved = &answers[5];
    assert!(moved.starts_with("You play 1. Rad1 (a1d1); White 1:00, Black 1:00\n"), "{moved}");
    assert!(moved.contains("\nEngine plays 1... K") && moved.contains("; White 1:00, Black 1:00\n"), "{moved}");
    // `undo` takes back the pair; the board shows both rooks home again.
    let undone = &answers[6];
    assert!(undone.starts_with("took back 1. Rad1 1... K"), "{undone}");
    assert!(undone.contains("\n 1 R . . . . . . R \n"), "{undone}");
    let moves = one_line(7);
    assert!(moves.contains(" legal moves: ") && moves.contains(" Rad1 ") && moves.contains(" Rhd1 "), "{moves}");
    let hint = one_line(8);
    assert!(hint.starts_with("hint: ") && hint.contains(", eval "), "{hint}");
    // `flip`: Black's side nearest, files from h to a.
    assert!(
        answers[9].contains("\n 1 R . . . . . . R \n") && answers[9].contains("   h g f e d c b a"),
        "{}",
        answers[9]
    );
    let flipped = &answers[9];
    assert!(flipped.find(" 8 ").unwrap_or(0) > flipped.find(" 1 R").unwrap_or(usize::MAX), "{flipped}");
    assert!(flipped.contains("\n 2 . . . . . . . K \n"), "White's king on a2 at the right: {flipped}");
}

#[test]
fn the_engine_gives_its_evaluation_with_its_move() {
    let answers = play(&["--depth", "3"], "e4\nundo\nquit\n");
    let moved = &answers[1];
    assert!(moved.starts_with("You play 1. e4 (e2e4)\n"), "{moved}");
    assert!(moved.contains("\nEngine plays 1... ") && moved.contains(" at depth 3 (White's view)\n"), "{moved}");
    assert!(answers[2].starts_with("took back 1. e4 1... "), "{}", answers[2]);
    // Without a move of the person's own, there is nothing to take back.
    let answers = play(&["--depth", "1", "--color", "black"], "undo\nquit\n");
    assert!(answers[1].starts_with("nothing to take back\n"), "{answers:#?}");
}

#[test]
fn figures_on_request_letters_in_a_pipe() {
    // A pipe gets letters by default; `--unicode` draws figures, without colour codes off a terminal.
    let plain = play(&["--random"], "quit\n");
    assert!(plain[0].contains("\n 1 R N B Q K B N R \n"), "{}", plain[0]);
    let figures = play(&["--random", "--unicode"], "quit\n");
    assert!(
        figures[0].contains("\n 1 ♖ ♘ ♗ ♕ ♔ ♗ ♘ ♖ \n") && figures[0].contains("\n 8 ♜ ♞ ♝ ♛ ♚ ♝ ♞ ♜ \n"),
        "{}",
        figures[0]
    );
    assert!(!figures[0].contains('\x1b'), "no colour codes in a pipe");
}
