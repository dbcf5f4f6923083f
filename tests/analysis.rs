//! `menagerie analyse --pgn` analyses whole games move by move and writes them
//! back as annotated PGN that the project's reader replays to the same moves
//! (a Clash 1 game of 40 moves, a Clockwork game with drops), marks a planted
//! blunder `??`; `--json` gives the same for scripts; `--epd` runs a test
//! suite and counts the solved positions, with menagerie in-process or over
//! UCI. Errors are one line with a non-zero exit.

mod common;

use std::path::Path;
use std::process::Command;

use common::{output_or_hang, TempDir};
use menagerie::board::registry::Registry;
use menagerie::game::pgn::{read_pgn, replay};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_menagerie");

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/analysis").join(name).display().to_string()
}

/// Runs menagerie; success, stdout, stderr. The work is bounded by nodes or
/// depth, so only a hang ends it early.
fn run(args: &[&str]) -> (bool, String, String) {
    let out = output_or_hang(Command::new(BIN).args(args), &format!("menagerie {}", args.join(" ")));
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

/// The moves of each game of a PGN text, replayed through the rules (UCI text).
fn replayed_moves(text: &str) -> Vec<Vec<String>> {
    let registry = Registry::builtin();
    read_pgn(text)
        .iter()
        .map(|g| replay(&registry, g).unwrap_or_else(|e| panic!("{e} in\n{text}")).uci_moves())
        .collect()
}

/// Annotates `file` at a small node limit and checks the output: the same
/// games and moves, a score after every move, the annotator tag and the
/// summary comment.
fn annotate_and_read_back(file: &str, variant: &str) -> String {
    let path = data(file);
    let (ok, out, err) = run(&["analyse", "--pgn", &path, "--nodes", "2000"]);
    assert!(ok, "{err}");
    let original = std::fs::read_to_string(&path).expect("fixture");
    let before = replayed_moves(&original);
    let after = replayed_moves(&out);
    assert_eq!(after, before, "the annotated game replays to the same moves");
    let plies = before[0].len();
    assert!(plies >= 70, "{file} is a long game ({plies} plies)");
    let games = read_pgn(&out);
    assert_eq!(games[0].tag("Variant"), Some(variant));
    assert_eq!(games[0].tag("Annotator"), Some("menagerie (nodes=2000 per position)"));
    // A score after every move: no move of these games ends them by the rules.
    assert_eq!(out.matches("[%eval ").count(), plies, "{out}");
    assert!(out.contains("White: accuracy ") && out.contains("%, average centipawn loss "), "{out}");
    // Every mark comes with its comment and the engine's better line.
    let marked = games[0].moves.iter().filter(|m| m.ends_with('?') || m.ends_with("?!")).count();
    let explained = ["Inaccuracy (", "Mistake (", "Blunder ("].iter().map(|w| out.matches(w).count()).sum::<usize>();
    assert_eq!(marked, explained, "{out}");
    out
}

#[test]
fn a_40_move_clash1_game_is_annotated_and_reads_back() {
    annotate_and_read_back("clash1-40.pgn", "clash1");
}

#[test]
fn a_clockwork_game_with_drops_is_annotated_and_reads_back() {
    let out = annotate_and_read_back("clockwork-drops.pgn", "clockwork");
    let drops = read_pgn(&out)[0].moves.iter().filter(|m| m.contains('@')).count();
    assert!(drops >= 5, "the game has its drops: {drops}");
}

#[test]
fn a_planted_blunder_is_marked_and_the_better_move_given() {
    let (ok, out, err) = run(&["analyse", "--pgn", &data("chess-blunder.pgn"), "--nodes", "20000"]);
    assert!(ok, "{err}");
    let moves = &read_pgn(&out)[0].moves;
    let marked: Vec<&String> = moves.iter().filter(|m| m.ends_with("??")).collect();
    assert_eq!(marked, ["Qg5??"], "{out}");
    let flat = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("3... Qg5?? {[%eval "), "{out}");
    // The variation starts from the position before the blunder, with Black's move.
    assert!(flat.contains("was best.} (3... "), "{out}");
    assert!(out.contains("Black: accuracy "), "{out}");
    assert!(out.contains("0 mistakes, 1 blunder."), "{out}");

    let (ok, json, err) = run(&["analyse", "--pgn", &data("chess-blunder.pgn"), "--nodes", "20000", "--json"]);
    assert!(ok, "{err}");
    let value: Value = serde_json::from_str(&json).expect("JSON");
    let game = &value["games"][0];
    assert_eq!(game["variant"], "chess");
    let qg5 = &game["moves"][5];
    assert_eq!((qg5["san"].as_str(), qg5["mark"].as_str()), (Some("Qg5"), Some("??")));
    assert!(qg5["eval"]["cp"].as_i64().is_some_and(|cp| cp > 300), "White's view after the blunder: {qg5}");
    assert!(qg5["loss_cp"].as_i64().is_some_and(|cp| cp > 300), "{qg5}");
    assert_ne!(qg5["best"], "d8g5");
    assert_eq!(game["summary"]["black"]["blunders"], 1);
    // Each side's accuracy, lichess's: the blunderer's is the lower, the blunder's own below 50.
    let accuracy = |side: &str| game["summary"][side]["accuracy"].as_f64().unwrap_or(-1.0);
    assert!((0.0..accuracy("white")).contains(&accuracy("black")) && accuracy("white") <= 100.0, "{game}");
    assert!(qg5["accuracy"].as_f64().is_some_and(|a| a < 50.0), "{qg5}");
    assert_eq!(game["summary"]["white"]["blunders"], 0);
    assert_eq!(game["moves"].as_array().map(Vec::len), Some(7));
    assert_eq!(read_pgn(game["pgn"].as_str().unwrap_or(""))[0].moves.len(), 7);
}

#[test]
fn output_file_gets_the_pgn_and_stdout_the_summaries() {
    let dir = TempDir::new("analysis");
    let file = dir.join("out.pgn");
    let path = file.display().to_string();
    let (ok, out, err) = run(&["analyse", "--pgn", &data("chess-blunder.pgn"), "--nodes", "5000", "--output", &path]);
    assert!(ok, "{err}");
    assert!(out.starts_with("game 1: White - Black (chess, 4 moves, 1-0)\n  White: "), "{out}");
    let written = std::fs::read_to_string(&file).expect("written");
    assert_eq!(read_pgn(&written)[0].moves.len(), 7);
}

#[test]
fn a_test_suite_reports_what_it_solved() {
    let suite = data("chess-suite.epd");
    let (ok, out, err) = run(&["analyse", "--epd", &suite, "--depth", "4"]);
    assert!(ok, "{err}");
    assert!(out.contains("\nsolved 3 / 4 (chess, depth=4 per position)\n"), "{out}");
    let failures = out.split("failures:\n").nth(1).unwrap_or("");
    assert_eq!(failures.lines().count(), 1, "{out}");
    assert!(failures.contains("line 7 \"wrong key: Qxd5 loses the queen\": played"), "{out}");
    assert!(failures.contains("wanted bm Qxd5"), "{out}");

    // The same through an external UCI engine (menagerie's own, as a process).
    let engine = format!("{BIN} uci");
    let (ok, json, err) = run(&["analyse", "--epd", &suite, "--depth", "4", "--json", "--engine", &engine]);
    assert!(ok, "{err}");
    let value: Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!((value["solved"].as_u64(), value["total"].as_u64()), (Some(3), Some(4)));
    assert_eq!(value["results"][0]["played"], "Ra8#");
    assert_eq!(value["results"][3]["solved"], false);

    // Drops, several best moves, and avoid moves in a variant with hands.
    let (ok, out, err) =
        run(&["analyse", "--epd", &data("clockwork-suite.epd"), "--variant", "clockwork", "--depth", "3"]);
    assert!(ok, "{err}");
    assert!(out.contains("\nsolved 2 / 2 (clockwork"), "{out}");
    assert!(out.contains("bm Q@a8# Q@b8# Q@c8# Q@d8# Q@e8#"), "{out}");
}

#[test]
fn bad_input_is_a_one_line_error() {
    let dir = TempDir::new("analysis-bad");
    let write = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).expect("write");
        p.display().to_string()
    };
    let illegal = write("illegal.pgn", "1. e4 e5 2. Ke3 *\n");
    let unknown = write("unknown.pgn", "[Variant \"shogi\"]\n\n1. e4 *\n");
    let empty = write("empty.pgn", "\n\n");
    let bad_bm = write("bad.epd", "8/8/8/8/8/8/8/K6k w - - bm Qh7;\n");
    let cases: [(&[&str], &str); 7] = [
        (&["analyse", "--pgn", &illegal], "game 1: move 2. Ke3 is illegal"),
        (&["analyse", "--pgn", &unknown], "game 1: unknown variant \"shogi\""),
        (&["analyse", "--pgn", &empty], "no game in"),
        (&["analyse", "--pgn", &data("chess-blunder.pgn"), "--game", "2"], "has games 1 to 1"),
        (&["analyse", "--pgn", "/no/such/file.pgn"], "cannot read /no/such/file.pgn"),
        (&["analyse", "--epd", &bad_bm], "line 1: bm move \"Qh7\" is not legal in this position"),
        (&["analyse", "--pgn", &data("chess-blunder.pgn"), "--option", "Hash"], "bad option \"Hash\""),
    ];
    for (args, expected) in cases {
        let (ok, _, err) = run(args);
        assert!(!ok, "{args:?} should fail");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: ") && err.contains(expected), "{args:?}: {err:?} lacks {expected:?}");
    }
}
