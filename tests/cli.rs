//! The command line never panics on bad input: a one-line error on stderr and
//! a non-zero exit for unknown variants, bad FENs, illegal moves and broken
//! variant files.

mod common;

use std::process::Command;

use common::TempDir;

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_menagerie")).args(args).output().expect("run menagerie");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_one_line_error(args: &[&str], expected: &str) {
    let (ok, _, err) = run(args);
    assert!(!ok, "{args:?} should fail");
    assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert!(err.contains(expected), "{args:?}: {err:?} lacks {expected:?}");
    assert!(!err.contains("panicked"));
}

#[test]
fn perft_prints_the_stockfish_summary_line() {
    let (ok, out, _) = run(&["perft", "--variant", "capablanca", "--depth", "3"]);
    assert!(ok);
    assert!(out.lines().any(|l| l == "Nodes searched: 25228"), "{out}");
    let (ok, out, _) = run(&["perft", "--variant", "chess", "--depth", "2", "--divide"]);
    assert!(ok);
    assert!(out.lines().any(|l| l == "e2e4: 20"), "{out}");
    assert!(out.lines().any(|l| l == "Nodes searched: 400"), "{out}");
}

#[test]
fn perft_after_moves() {
    let (ok, out, _) = run(&["perft", "--variant", "relocation", "--moves", "f8d8", "f1f1", "--depth", "1"]);
    assert!(ok);
    assert!(out.lines().any(|l| l == "Nodes searched: 28"), "{out}");
}

#[test]
fn perft_depth_is_bounded() {
    assert_one_line_error(&["perft", "--depth", "1000"], "perft depth must be 1 to 32, not 1000");
    assert_one_line_error(&["perft", "--depth", "0"], "perft depth must be 1 to 32, not 0");
}

#[test]
fn unknown_variant_is_an_error() {
    assert_one_line_error(&["perft", "--variant", "nosuch", "--depth", "1"], "unknown variant \"nosuch\"");
}

#[test]
fn bad_fen_is_an_error() {
    assert_one_line_error(
        &["perft", "--fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w - - 0 1", "--depth", "1"],
        "FEN has 7 ranks",
    );
    assert_one_line_error(
        &["perft", "--fen", "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w", "--depth", "1"],
        "FEN rank 6 has 9 squares",
    );
    assert_one_line_error(
        &["perft", "--fen", "xnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w", "--depth", "1"],
        "unknown piece letter 'x'",
    );
    assert_one_line_error(
        &["perft", "--fen", "8/8/8/8/8/8/8/K7 w - - 0 1", "--depth", "1"],
        "black must have exactly one king",
    );
}

/// One wording for a bad FEN wherever it is read: `bad FEN: ` and the
/// reason, with "1 rank" and "1 square" in the singular.
#[test]
fn bad_fen_messages_agree_across_commands() {
    let one_rank = "k7 w - - 0 1";
    let expected = "bad FEN: FEN has 1 rank, the chess board has 8";
    for args in [
        &["perft", "--fen", one_rank, "--depth", "1"][..],
        &["play", "--random", "--fen", one_rank],
        &["analyse", "--fen", one_rank, "--depth", "1"],
    ] {
        let (ok, _, err) = run(args);
        assert!(!ok, "{args:?}");
        assert_eq!(err.trim_end(), format!("error: {expected}"), "{args:?}");
    }
    let (ok, _, err) = run(&["perft", "--fen", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/k w", "--depth", "1"]);
    assert!(!ok);
    assert_eq!(err.trim_end(), "error: bad FEN: FEN rank 1 has 1 square, the board has 8 files");
    for (protocol, command, answer) in [
        ("uci", format!("position fen {one_rank}"), format!("info string error: {expected}")),
        ("xboard", format!("setboard {one_rank}"), format!("tellusererror Illegal position: {expected}")),
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_menagerie"))
            .arg(protocol)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start the engine");
        let hello = if protocol == "uci" { "uci" } else { "xboard\nprotover 2" };
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            let _ = write!(stdin, "{hello}\n{command}\nquit\n");
        }
        let out = child.wait_with_output().expect("the engine ends");
        let out = String::from_utf8_lossy(&out.stdout);
        assert!(out.lines().any(|l| l == answer), "{protocol}: {answer:?} not in {out}");
    }
}

#[test]
fn illegal_and_malformed_moves_are_errors() {
    assert_one_line_error(&["perft", "--moves", "e2e5", "--depth", "1"], "illegal move \"e2e5\"");
    assert_one_line_error(&["perft", "--moves", "k11a1", "--depth", "1"], "bad move syntax \"k11a1\"");
    assert_one_line_error(&["perft", "--moves", "0000", "--depth", "1"], "illegal move \"0000\"");
}

#[test]
fn broken_variant_file_is_reported_with_line_and_column() {
    let dir = TempDir::new("cli");
    let file = dir.join("bad.var");
    std::fs::write(&file, "name bad\nboard 8x8\nstart 4k3/8/8/8/8/8/8/4K3 w - - 0 1\npiece K king 0 K\npiece Z zed 100 fmWX\nroyal K\nfrobnicate yes\n")
        .expect("write");
    let path = file.to_str().expect("utf-8 path");
    let (ok, out, _) = run(&["check", path]);
    assert!(!ok);
    assert!(out.contains("bad.var:5:20: bad Betza \"fmWX\": unknown Betza letter 'X'"), "{out}");
    assert!(out.contains("bad.var:7:1: unknown directive \"frobnicate\""), "{out}");
    assert_one_line_error(&["--variants", path, "variants"], "bad.var:5:20");
    let (ok, out, _) = run(&["check", concat!(env!("CARGO_MANIFEST_DIR"), "/variants/clash5.var")]);
    assert!(ok, "{out}");
}

/// `menagerie play` names the men in hand and lists the variant's pieces on `legend`.
#[test]
fn play_names_the_pieces_in_its_legend() {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_menagerie"))
        .args(["play", "--variant", "clash5", "--random"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run menagerie play");
    child.stdin.take().expect("stdin").write_all(b"legend\nquit\n").expect("send");
    let out = child.wait_with_output().expect("play ends");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("help lists the commands"), "{text}");
    assert!(text.contains("Pieces of clash5 (White's letters; Black's are lower case):"), "{text}");
    assert!(text.contains("J  joker\n   Steps one square in any direction.\n   Succession: a king"), "{text}");
    assert!(text.contains("S  special pawn\n   Steps one square straight forward or diagonally forward.\n"), "{text}");
    assert!(
        text.contains("O  monk\n   Slides any distance diagonally, without capturing; captures by hopping"),
        "{text}"
    );

    // Clockwork's hands name what they hold.
    let mut child = Command::new(env!("CARGO_BIN_EXE_menagerie"))
        .args(["play", "--variant", "clockwork", "--random", "--fen", "4k3/8/8/8/8/8/8/4K3[Uu] w - - 0 1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run menagerie play");
    child.stdin.take().expect("stdin").write_all(b"quit\n").expect("send");
    let out = child.wait_with_output().expect("play ends");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("white hand: U (nc rook)\nblack hand: U (nc rook)\n"), "{text}");
}

/// `menagerie ... | head`: output to a pipe whose reader has gone ends the
/// command quietly (exit 0, nothing on stderr), as Unix tools do, instead
/// of a panic report.
#[test]
fn a_closed_output_pipe_ends_the_command_quietly() {
    let network = concat!(env!("CARGO_MANIFEST_DIR"), "/variants/clash1.nnue");
    for args in [&["variants"][..], &["perft", "--variant", "chess", "--depth", "2", "--divide"], &["check", network]] {
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_menagerie"))
            .args(args)
            .stdout(writer)
            .stderr(std::process::Stdio::piped())
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && stderr.is_empty(), "{args:?}: {:?} {stderr}", out.status);
    }
}
