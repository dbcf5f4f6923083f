//! `menagerie match` end to end: broken engines lose with the right
//! termination, every shipped variant (Clockwork too) plays over UCI against
//! XBoard and its PGN replays through the rules core, an XBoard engine that
//! refuses a variant is named with what it offers, Ctrl-C stops cleanly, and a
//! Capablanca match against Fairy-Max completes (skipped where `fairymax` is
//! not installed, except under `CI=true`, where that fails).

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{output_or_hang, require_tool, wait_or_hang, TempDir, HANG_SECS};
use menagerie::board::position::Position;
use menagerie::board::registry::Registry;
use menagerie::game::pgn::{read_pgn, PgnGame};
use menagerie::game::san::parse_san;
use menagerie::rules::moves::MoveList;

const BIN: &str = env!("CARGO_BIN_EXE_menagerie");

fn script(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/engines").join(name);
    format!("sh {}", path.display())
}

fn random(seed: u64, xboard: bool) -> Vec<String> {
    let mut cmd = format!("cmd={BIN} random-engine --seed {seed}");
    if xboard {
        cmd.push_str(" --xboard");
    }
    vec![cmd, format!("proto={}", if xboard { "xboard" } else { "uci" }), format!("name=random{seed}")]
}

fn run_match(engines: &[Vec<String>], extra: &[&str], pgn: &Path) -> Output {
    let mut cmd = Command::new(BIN);
    cmd.arg("match").arg("--quiet").arg("--pgn").arg(pgn);
    for e in engines {
        cmd.arg("--engine").args(e);
    }
    cmd.args(extra);
    let out = output_or_hang(&mut cmd, "menagerie match");
    assert!(out.status.success(), "match failed: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// Replays a PGN game through the rules core and checks that its end agrees with its result.
fn replay(registry: &Registry, game: &PgnGame) {
    let variant = registry.get(game.tag("Variant").unwrap_or("chess")).expect("variant tag");
    let fen = game.tag("FEN").map_or(variant.start_fen.clone(), str::to_string);
    let mut pos = Position::from_fen(Arc::clone(&variant), &fen).expect("FEN tag");
    for (i, text) in game.moves.iter().enumerate() {
        let m = parse_san(&mut pos, text).unwrap_or_else(|e| panic!("move {i} {text:?} does not replay in {fen}: {e}"));
        pos.make(m);
    }
    assert_eq!(game.tag("PlyCount"), Some(game.moves.len().to_string().as_str()));
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    if game.last_comment.as_deref() == Some("Draw by dead position") {
        assert!(pos.is_dead() && game.result == "1/2-1/2", "not dead: {}", pos.to_fen());
    }
    let resigned = game.last_comment.as_deref().is_some_and(|c| c.contains("resigns"));
    if game.tag("Termination") == Some("normal") && game.result != "1/2-1/2" && !resigned {
        // Decisive by the rules: the loser is mated.
        assert!(list.is_empty() && pos.in_check(), "result {} but position not mate: {}", game.result, pos.to_fen());
    }
}

fn games_in(path: &Path) -> Vec<PgnGame> {
    read_pgn(&std::fs::read_to_string(path).expect("PGN written"))
}

fn broken_engine_case(script_name: &str, tc: &str, termination: &str, reason: &str) {
    let dir = TempDir::new("match");
    let pgn = dir.join(format!("{script_name}.pgn"));
    let broken = vec![format!("cmd={}", script(script_name)), "name=broken".to_string()];
    let out = run_match(&[broken, random(1, false)], &["--games", "2", "--tc", tc, "--timemargin", "50"], &pgn);
    let games = games_in(&pgn);
    assert_eq!(games.len(), 2, "{}", String::from_utf8_lossy(&out.stdout));
    for g in &games {
        assert_eq!(g.tag("Termination"), Some(termination), "{g:?}");
        let broken_is_white = g.tag("White") == Some("broken");
        assert_eq!(g.result, if broken_is_white { "0-1" } else { "1-0" });
    }
    let text = std::fs::read_to_string(&pgn).unwrap_or_default();
    assert!(text.contains(reason), "reason {reason:?} missing in\n{text}");
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains(&format!("{termination} 2")), "{summary}");
}

#[test]
fn illegal_move_loses() {
    broken_engine_case("illegal.sh", "nodes=100", "illegal move", "makes an illegal move: e2e5");
}

#[test]
fn silent_engine_loses_on_time() {
    broken_engine_case("silent.sh", "tc=0.5+0", "time forfeit", "loses on time");
}

#[test]
fn exiting_engine_is_abandoned() {
    broken_engine_case("exits.sh", "nodes=100", "abandoned", "disconnects");
}

#[test]
fn garbage_output_is_abandoned_not_a_panic() {
    broken_engine_case("garbage.sh", "nodes=100", "abandoned", "empty bestmove");
    let dir = TempDir::new("match");
    let pgn = dir.join("garbage-xboard.pgn");
    let junk =
        vec![format!("cmd={}", script("garbage-xboard.sh")), "proto=xboard".to_string(), "name=broken".to_string()];
    run_match(&[junk, random(2, false)], &["--games", "2", "--tc", "nodes=100"], &pgn);
    let games = games_in(&pgn);
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g.tag("Termination"), Some("abandoned"), "{g:?}");
        assert!(g.last_comment.as_deref().is_some_and(|c| c.contains("empty move")), "{g:?}");
    }
}

#[test]
fn resignation_is_normal() {
    let dir = TempDir::new("match");
    let pgn = dir.join("resign.pgn");
    let resigns = vec![format!("cmd={}", script("resigns.sh")), "proto=xboard".to_string(), "name=broken".to_string()];
    run_match(&[resigns, random(2, false)], &["--games", "2", "--tc", "nodes=100"], &pgn);
    let games = games_in(&pgn);
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g.tag("Termination"), Some("normal"));
        assert_eq!(g.result, if g.tag("White") == Some("broken") { "0-1" } else { "1-0" });
    }
}

/// True when `BIN ARG` answers `probe` with a line containing `expect`
/// (the engine's own protocols live on another branch until merged).
fn has_protocol(bin: &str, arg: &str, probe: &str, expect: &str) -> bool {
    use std::io::Write;
    let Ok(mut child) =
        Command::new(bin).arg(arg).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn()
    else {
        return false;
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(probe.as_bytes());
    }
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    child.wait_with_output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains(expect))
}

/// The two sides of the every-variant match: `menagerie uci` against
/// `menagerie xboard` when this build (or `$MENAGERIE_MATCH_ENGINE`) has them,
/// else the random mover in both protocols. The XBoard side gets 50 ms a move,
/// since CECP has no node limit (an engine without `nps` would take a second).
fn protocol_pair() -> [Vec<String>; 2] {
    let bin = std::env::var("MENAGERIE_MATCH_ENGINE").unwrap_or_else(|_| BIN.to_string());
    let uci = has_protocol(&bin, "uci", "uci\nquit\n", "uciok");
    let xboard = has_protocol(&bin, "xboard", "xboard\nprotover 2\nquit\n", "done=1");
    if uci && xboard {
        [
            vec![format!("cmd={bin} uci"), "name=menagerie-uci".to_string()],
            vec![
                format!("cmd={bin} xboard"),
                "proto=xboard".to_string(),
                "name=menagerie-xboard".to_string(),
                "tc=st=0.05".to_string(),
            ],
        ]
    } else {
        eprintln!("note: `menagerie uci`/`xboard` not in this build; the random mover plays both sides");
        [random(3, false), random(4, true)]
    }
}

#[test]
fn every_variant_uci_against_xboard_replays() {
    let registry = Registry::builtin();
    let engines = protocol_pair();
    for name in registry.names() {
        let dir = TempDir::new("match");
        let pgn = dir.join(format!("variant-{name}.pgn"));
        let out = run_match(
            &engines,
            &[
                "--variant",
                &name,
                "--games",
                "4",
                "--tc",
                "nodes=2000",
                "--concurrency",
                "2",
                "--random-plies",
                "2",
                "--max-moves",
                "200",
                "--timemargin",
                "2000",
            ],
            &pgn,
        );
        let games = games_in(&pgn);
        assert_eq!(games.len(), 4, "{name}: {}", String::from_utf8_lossy(&out.stdout));
        for g in &games {
            let termination = g.tag("Termination").unwrap_or("");
            assert!(termination == "normal" || termination == "adjudication", "{name}: {g:?}");
            replay(&registry, g);
        }
    }
}

/// Runs `menagerie match` expecting it to stop with an error; returns stderr.
fn failing_match(engines: &[Vec<String>], extra: &[&str]) -> String {
    let mut cmd = Command::new(BIN);
    cmd.arg("match").arg("--quiet");
    for e in engines {
        cmd.arg("--engine").args(e);
    }
    let out = cmd.args(extra).output().expect("run menagerie match");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "the match should stop: {err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    err
}

/// Clockwork over XBoard: menagerie's XBoard engine does not list it (XBoard's
/// holdings would give captures to the capturer), but plays it when asked by
/// its own name; the runner asks so (not by its XBoard parent, crazyhouse).
#[test]
fn clockwork_over_xboard_under_its_own_name() {
    let registry = Registry::builtin();
    let dir = TempDir::new("match");
    let pgn = dir.join("clockwork-xboard.pgn");
    let engines = [
        vec![format!("cmd={BIN} uci"), "name=menagerie-uci".to_string()],
        vec![format!("cmd={BIN} xboard"), "proto=xboard".to_string(), "name=menagerie-xboard".to_string()],
    ];
    let out = run_match(
        &engines,
        // A move cap bounds the games' length (drops keep Clockwork games long):
        // the test is about the protocol, and a loaded machine must not run it
        // into the hang limit.
        &[
            "--variant",
            "clockwork",
            "--games",
            "2",
            "--tc",
            "nodes=2000",
            "--random-plies",
            "2",
            "--max-moves",
            "160",
            "--debug",
        ],
        &pgn,
    );
    let traffic = String::from_utf8_lossy(&out.stderr);
    assert!(traffic.contains("menagerie-xboard < variant clockwork"), "asked by its own name");
    let bad = |l: &&str| l.contains("< variant crazyhouse") || l.contains("> Error") || l.contains("> Illegal");
    assert_eq!(traffic.lines().find(bad), None, "not its parent, and no refusal");
    let games = games_in(&pgn);
    assert_eq!(games.len(), 2, "{}", String::from_utf8_lossy(&out.stdout));
    for g in &games {
        assert_eq!(g.tag("Variant"), Some("clockwork"));
        let termination = g.tag("Termination").unwrap_or("");
        assert!(termination == "normal" || termination == "adjudication", "{g:?}");
        assert!(g.moves.len() > 4, "{g:?}");
        replay(&registry, g);
    }
}

#[test]
fn an_engine_that_refuses_a_variant_is_named_with_what_it_offers() {
    let refuser = |arg: &str| {
        vec![
            format!("cmd={} {arg}", script("refuses-variants.sh")),
            "proto=xboard".to_string(),
            "name=Refuser".to_string(),
        ]
    };
    let tc = ["--games", "2", "--tc", "nodes=100"];
    for (variant, arg, answer) in [
        ("clockwork", "", "; it answered \"Error (unsupported variant): clockwork\""),
        ("clash1", "", "; it answered \"Error (unsupported variant): clash1\""),
        ("clockwork", "noping", ""),
    ] {
        let err = failing_match(&[refuser(arg), random(1, false)], &[&["--variant", variant][..], &tc[..]].concat());
        assert_eq!(
            err.trim_end(),
            format!("error: Refuser does not offer variant {variant} (it offers: normal, capablanca){answer}"),
            "{variant} {arg}"
        );
    }
    // What it offers plays.
    let dir = TempDir::new("match");
    let pgn = dir.join("refuser-capablanca.pgn");
    run_match(&[refuser(""), random(1, false)], &[&["--variant", "capablanca"][..], &tc[..]].concat(), &pgn);
    assert_eq!(games_in(&pgn).len(), 2);
}

#[test]
fn a_missing_engine_command_is_named() {
    let missing = vec!["cmd=menagerie-no-such-engine --flag".to_string(), "name=ghost".to_string()];
    let err = failing_match(&[missing, random(1, false)], &["--games", "2", "--tc", "nodes=100"]);
    assert_eq!(
        err.trim_end(),
        "error: engine ghost (menagerie-no-such-engine --flag): cannot start menagerie-no-such-engine: command not found"
    );
    // `play` starts its engine the same way.
    let out = Command::new(BIN)
        .args(["play", "--engine", "/nonexistent/engine uci"])
        .stdin(Stdio::null())
        .output()
        .expect("run play");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end(), "error: engine: cannot start /nonexistent/engine: command not found");
}

#[test]
fn openings_file_and_sprt() {
    let registry = Registry::builtin();
    let dir = TempDir::new("match");
    let pgn = dir.join("relocation.pgn");
    let epd = Path::new(env!("CARGO_MANIFEST_DIR")).join("variants/relocation-arrays.epd");
    let out = run_match(
        &[random(5, false), random(6, false)],
        &[
            "--variant",
            "relocation",
            "--games",
            "6",
            "--tc",
            "nodes=10",
            "--openings",
            epd.to_str().unwrap_or_default(),
            "--sprt",
            "elo0=0",
            "elo1=5",
            "alpha=0.05",
            "beta=0.05",
            "--max-moves",
            "40",
        ],
        &pgn,
    );
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("SPRT elo0=0 elo1=5"), "{summary}");
    assert!(summary.contains("Pentanomial"), "{summary}");
    let games = games_in(&pgn);
    assert_eq!(games.len(), 6);
    // Each opening is played twice, with colours swapped.
    assert_eq!(games[0].tag("FEN"), games[1].tag("FEN"));
    assert_eq!(games[0].tag("White"), games[1].tag("Black"));
    for g in &games {
        replay(&registry, g);
    }
    // `menagerie score` reads the PGN back into the very table the match printed.
    let rescored = Command::new(BIN)
        .arg("score")
        .arg(&pgn)
        .args(["--sprt", "elo0=0", "elo1=5", "alpha=0.05", "beta=0.05"])
        .output()
        .expect("run menagerie score");
    assert!(rescored.status.success(), "{}", String::from_utf8_lossy(&rescored.stderr));
    assert_eq!(String::from_utf8_lossy(&rescored.stdout), summary);
}

#[test]
fn score_rejects_missing_and_empty_files() {
    let dir = TempDir::new("match");
    let missing = dir.join("missing.pgn");
    let out = Command::new(BIN).arg("score").arg(&missing).output().expect("run menagerie score");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.starts_with("error: cannot read") && err.lines().count() == 1, "{err}");
    let empty = dir.join("empty.pgn");
    std::fs::write(&empty, "[Event \"x\"]\n\n{no result\n").expect("write PGN");
    let out = Command::new(BIN).arg("score").arg(&empty).output().expect("run menagerie score");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: no finished game"));
}

#[test]
fn interrupt_stops_cleanly() {
    let dir = TempDir::new("match");
    let pgn = dir.join("interrupt.pgn");
    let mut child = Command::new(BIN)
        .arg("match")
        .arg("--quiet")
        .arg("--pgn")
        .arg(&pgn)
        .args([
            "--engine",
            &format!("cmd={BIN} random-engine"),
            "--engine",
            &format!("cmd={BIN} random-engine --seed 9"),
        ])
        .args(["--games", "100000", "--tc", "nodes=1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn match");
    // Interrupted once a game is written, however long that takes.
    let deadline = Instant::now() + Duration::from_secs(HANG_SECS);
    while std::fs::read_to_string(&pgn).map_or(true, |text| read_pgn(&text).is_empty()) {
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("no game written within {HANG_SECS} s: the match hangs");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = Command::new("kill").arg("-INT").arg(child.id().to_string()).status().expect("kill");
    assert!(status.success());
    let out = wait_or_hang(child, "the match after SIGINT");
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("Stopped early"), "{summary}");
    let played = games_in(&pgn).len();
    assert!(played > 0);
    assert!(summary.contains(&format!("Games {played}/100000")), "{played} games in PGN; {summary}");
}

#[test]
fn capablanca_against_fairymax() {
    let found = ["/usr/games/fairymax", "/usr/bin/fairymax"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .ok_or_else(|| "not installed (apt-get install fairymax)".to_string());
    let Some(fairymax) = require_tool("fairymax", found) else { return };
    let registry = Registry::builtin();
    let dir = TempDir::new("match");
    let pgn = dir.join("fairymax.pgn");
    let fm = vec![format!("cmd={fairymax}"), "proto=xboard".to_string(), "name=Fairy-Max".to_string()];
    // menagerie's own engine when this build (or $MENAGERIE_MATCH_ENGINE) has it, else the random mover.
    let bin = std::env::var("MENAGERIE_MATCH_ENGINE").unwrap_or_else(|_| BIN.to_string());
    let opponent = if has_protocol(&bin, "uci", "uci\nquit\n", "uciok") {
        vec![format!("cmd={bin} uci"), "name=menagerie".to_string()]
    } else {
        eprintln!("note: `menagerie uci` not in this build; Fairy-Max plays the random mover");
        random(7, false)
    };
    let out = run_match(
        &[fm, opponent],
        &[
            "--variant",
            "capablanca",
            "--games",
            "20",
            "--tc",
            "40/2+0",
            "--concurrency",
            "2",
            "--max-moves",
            "150",
            "--random-plies",
            "4",
            "--timemargin",
            "500",
        ],
        &pgn,
    );
    let summary = String::from_utf8_lossy(&out.stdout);
    let games = games_in(&pgn);
    assert_eq!(games.len(), 20, "{summary}");
    for g in &games {
        replay(&registry, g);
        assert_ne!(g.tag("Termination"), Some("illegal move"), "{g:?}");
        assert_ne!(g.tag("Termination"), Some("abandoned"), "{g:?}");
    }
    assert!(summary.contains("Games 20/20"), "{summary}");
    eprintln!("{summary}");

    // Fairy-Max says "not supported" to Clockwork: the match stops, naming it and what it offers.
    let fm = vec![format!("cmd={fairymax}"), "proto=xboard".to_string(), "name=Fairy-Max".to_string()];
    let err = failing_match(&[fm, random(7, false)], &["--variant", "clockwork", "--games", "2", "--tc", "nodes=100"]);
    assert!(err.starts_with("error: Fairy-Max does not offer variant clockwork (it offers: normal, "), "{err}");
    assert!(err.contains("capablanca") && err.contains("not supported"), "{err}");
}

#[test]
fn analyse_prints_multipv_lines() {
    let engine = format!("{BIN} random-engine");
    let out = Command::new(BIN)
        .args(["analyse", "--engine", &engine, "--multipv", "3", "--variant", "capablanca", "--moves", "e2e4 e7e5"])
        .args(["--depth", "1", "--json"])
        .output()
        .expect("run analyse");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let json = String::from_utf8_lossy(&out.stdout);
    assert!(json.starts_with("{\"variant\":\"capablanca\""), "{json}");
    assert_eq!(json.matches("\"multipv\":").count(), 3, "{json}");
    let out = Command::new(BIN).args(["analyze", "--engine", &engine, "--depth", "1"]).output().expect("run analyze");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("best move:") && text.contains(" 1. "), "{text}");
    // A bad engine command is an error, not a panic.
    let out = Command::new(BIN).args(["analyse", "--engine", "exit 1", "--depth", "1"]).output().expect("run analyse");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("error:"));
}

#[test]
fn play_against_random_mover() {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(["play", "--variant", "capablanca", "--random", "--seed", "3"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn play");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(b"e2e4\nbogus\nmoves\nquit\n");
    }
    let out = child.wait_with_output().expect("wait play");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("10 r n a b q k b c n r") || text.contains(" 8 r n a b q k b c n r"), "{text}");
    assert!(text.contains("a b c d e f g h i j"), "{text}");
    assert!(text.contains("You play 1. e4 (e2e4)"), "{text}");
    assert!(text.contains("Engine plays"), "{text}");
    assert!(text.contains("Your move: bogus: not a move (help lists the commands)\n"), "{text}");
}

#[test]
fn analyse_prints_multipv_lines_best_first() {
    // The command of issue 26: line 2 used to come out above line 1.
    let out = Command::new(BIN)
        .args(["analyse", "--variant", "clash1", "--depth", "10", "--multipv", "3"])
        .output()
        .expect("run analyse");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    // ` 1.   +1.15  depth 10  1. d5 f7 ...` (White to move: higher is better).
    let lines: Vec<(f64, String)> = text
        .lines()
        .filter(|l| l.contains("  depth "))
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            (words[1].parse().expect("a score in pawns"), words[5].to_string())
        })
        .collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines.windows(2).all(|w| w[0].0 >= w[1].0), "{text}");
    assert!(text.contains(&format!("best move: {} (", lines[0].1)), "{text}");
}

#[test]
fn a_game_reaching_a_dead_position_ends_drawn() {
    // From each opening every legal move takes the checking queen, into a
    // dead position: K v K, or K+B v K (the king or the bishop takes).
    let registry = Registry::builtin();
    let dir = TempDir::new("match");
    let pgn = dir.join("dead.pgn");
    let openings = dir.join("dead.epd");
    std::fs::write(&openings, "7k/8/8/8/8/8/1q6/K7 w - - 0 1\n7k/8/8/8/8/8/1q6/K1B5 w - - 0 1\n")
        .expect("write openings");
    let extra = ["--games", "4", "--tc", "nodes=100", "--openings", openings.to_str().unwrap_or_default()];
    run_match(&[random(7, false), random(8, true)], &extra, &pgn);
    let games = games_in(&pgn);
    assert_eq!(games.len(), 4);
    for g in &games {
        replay(&registry, g);
        assert_eq!(g.moves.len(), 1, "{g:?}");
        assert_eq!(g.result, "1/2-1/2", "{g:?}");
        assert_eq!(g.tag("Termination"), Some("normal"), "{g:?}");
        assert_eq!(g.last_comment.as_deref(), Some("Draw by dead position"), "{g:?}");
    }
    // The same against menagerie's own engine over UCI, which still answers with a move.
    let own = vec![format!("cmd={BIN} uci"), "name=menagerie".to_string()];
    let pgn2 = dir.join("dead-own.pgn");
    run_match(&[own, random(9, false)], &extra, &pgn2);
    for g in &games_in(&pgn2) {
        assert_eq!((g.result.as_str(), g.tag("Termination")), ("1/2-1/2", Some("normal")), "{g:?}");
        assert_eq!(g.last_comment.as_deref(), Some("Draw by dead position"), "{g:?}");
    }
}

#[test]
fn play_announces_a_dead_position() {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(["play", "--fen", "7k/8/8/8/8/8/1q6/K7 w - - 0 1", "--random"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn play");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(b"a1b2\n");
    }
    let out = child.wait_with_output().expect("wait play");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("Draw by dead position (1/2-1/2)"), "{text}");
}

/// `play` takes SAN as the board does, and UCI text first.
#[test]
fn play_takes_san_and_uci_text() {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(["play", "--variant", "chess", "--random", "--seed", "5"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn play");
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(b"e4\nNf3\nO-O-O\nd2d3\nBe2\nquit\n");
    }
    let out = child.wait_with_output().expect("wait play");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    let played: Vec<&str> = text.lines().filter_map(|l| l.split("Your move: You play ").nth(1)).collect();
    assert_eq!(played, ["1. e4 (e2e4)", "2. Nf3 (g1f3)", "3. d3 (d2d3)", "4. Be2 (f1e2)"], "{text}");
    assert!(text.contains("Your move: O-O-O: not legal here (moves lists the legal ones)\n"), "{text}");
}
