//! Drives the built binary over UCI and XBoard for every shipped variant:
//! handshakes, positions by FEN and by moves, every kind of search limit,
//! `stop` during `go infinite`, `go perft`, and malformed input answered with
//! an error line while the engine stays responsive.

mod common;

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use common::Engine;
use menagerie::board::perft::perft;
use menagerie::board::position::Position;
use menagerie::board::registry::Registry;
use menagerie::rules::moves::MoveList;

fn registry() -> Registry {
    Registry::builtin()
}

/// The first legal move of the variant's start position (UCI text) and the FEN after it.
fn first_move(registry: &Registry, name: &str) -> (String, String) {
    let v = registry.get(name).expect("variant ships");
    let pos = Position::startpos(Arc::clone(&v)).expect("start position");
    first_move_of(pos)
}

/// The first legal move of `pos` (UCI text) and the FEN after it.
fn first_move_of(mut pos: Position) -> (String, String) {
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    let m = list[0];
    let text = pos.move_to_uci(m, false);
    pos.make(m);
    (text, pos.to_fen())
}

/// XBoard numbers the ranks of 10-rank boards from 0.
fn xboard_text(registry: &Registry, name: &str, uci: &str) -> String {
    let v = registry.get(name).expect("variant ships");
    if v.shape.ranks != 10 {
        return uci.to_string();
    }
    let mut out = String::new();
    let mut digits = String::new();
    for c in uci.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if !digits.is_empty() {
            let n: u32 = digits.parse().expect("digits");
            out.push_str(&(n - 1).to_string());
            digits.clear();
        }
        if c != ' ' {
            out.push(c);
        }
    }
    out
}

fn uci_handshake(s: &mut Engine) {
    s.send("uci");
    s.expect_prefix(5, "id name menagerie");
    let combo = s.expect_prefix(5, "option name UCI_Variant type combo");
    for name in registry().names() {
        assert!(combo.contains(&format!(" var {name}")), "{combo}");
    }
    s.expect(5, "uciok", |l| l == "uciok");
    s.send("isready");
    s.expect(5, "readyok", |l| l == "readyok");
}

/// The move of the next `bestmove` line (never the null move), however long
/// the search takes short of a hang.
fn bestmove(s: &mut Engine) -> String {
    let line = s.read_until_or_hang("bestmove", |l| l.starts_with("bestmove ")).pop().unwrap_or_default();
    let mv = line.split_whitespace().nth(1).unwrap_or("").to_string();
    assert!(!mv.is_empty() && mv != "0000", "{line}");
    mv
}

#[test]
fn uci_every_variant_every_limit() {
    let reg = registry();
    let mut s = Engine::start(&[]);
    uci_handshake(&mut s);
    for name in reg.names() {
        let v = reg.get(&name).expect("variant ships");
        s.send(&format!("setoption name UCI_Variant value {name}"));
        let line = s.expect_prefix(5, "info string variant ");
        assert_eq!(
            line,
            format!(
                "info string variant {name} files {} ranks {} startpos {}",
                v.shape.files, v.shape.ranks, v.start_fen
            )
        );
        s.send("ucinewgame");
        s.send("isready");
        s.expect(5, "readyok", |l| l == "readyok");

        let (mv, fen_after) = first_move(&reg, &name);
        // By moves, then the same position by FEN: `d` shows the same FEN.
        s.send(&format!("position startpos moves {mv}"));
        s.send("d");
        let fen_line = s.expect_prefix(5, "Fen: ");
        assert_eq!(fen_line, format!("Fen: {fen_after}"));
        s.send(&format!("position fen {fen_after}"));
        s.send("d");
        let fen_line = s.expect_prefix(5, "Fen: ");
        assert_eq!(fen_line, format!("Fen: {fen_after}"));

        s.send("go depth 3");
        s.expect(10, "depth 3 info", |l| l.starts_with("info depth 3 ") && l.contains(" pv "));
        bestmove(&mut s);
        s.send("go nodes 3000");
        bestmove(&mut s);
        s.send("go movetime 100");
        bestmove(&mut s);
        s.send("go wtime 1000 btime 1000 winc 10 binc 10");
        bestmove(&mut s);
        s.send("go wtime 2000 btime 2000 movestogo 5");
        bestmove(&mut s);
        s.send("go mate 1 movetime 200");
        bestmove(&mut s);

        // `stop` ends `go infinite` with a move (how fast is for the benchmarks).
        s.send("go infinite");
        thread::sleep(Duration::from_millis(150));
        s.send("stop");
        bestmove(&mut s);

        s.send("go ponder wtime 1000 btime 1000");
        thread::sleep(Duration::from_millis(50));
        s.send("ponderhit");
        bestmove(&mut s);

        s.send("position startpos");
        s.send("go perft 2");
        let expected = {
            let mut pos = Position::startpos(Arc::clone(&v)).expect("start position");
            perft(&mut pos, 2)
        };
        let line = s.expect_prefix(30, "Nodes searched: ");
        assert_eq!(line, format!("Nodes searched: {expected}"), "{name}");
    }
    s.quit("quit");
}

#[test]
fn uci_errors_keep_the_position_and_the_engine_alive() {
    let mut s = Engine::start(&["uci"]);
    uci_handshake(&mut s);
    s.send("position startpos moves e2e4");
    let bad = [
        "position fen this is not a fen",
        "position startpos moves e2e4 e2e4",
        "position startpos moves k9z9",
        "position",
        "go depth x",
        "go wtime",
        "go searchmoves a1a8",
        "setoption name NoSuchOption value 3",
        "setoption name Hash value -5",
        "setoption name UCI_Variant value nonsense",
        "frobnicate",
        "\u{1F600} \u{0}",
    ];
    for line in bad {
        s.send(line);
        s.expect_prefix(5, "info string error: ");
        if line.starts_with("go ") {
            // What is not understood is ignored: the search runs (here without a limit).
            s.send("stop");
            bestmove(&mut s);
        }
    }
    s.send("d");
    let fen = s.expect_prefix(5, "Fen: ");
    assert_eq!(fen, "Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    s.send("isready");
    s.expect(5, "readyok", |l| l == "readyok");
    // No legal move: `bestmove 0000`, and only then.
    s.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    s.send("go depth 3");
    let line = s.expect_prefix(5, "bestmove ");
    assert_eq!(line, "bestmove 0000");
    s.send("position startpos");
    s.send("setoption name MultiPV value 3");
    s.send("go depth 4");
    s.expect(10, "multipv 3", |l| l.starts_with("info depth 4 ") && l.contains(" multipv 3 "));
    bestmove(&mut s);
    // End of input is quit.
    s.close();
}

#[test]
fn random_lines_never_crash_either_protocol() {
    // A fixed pseudo-random stream of command-like lines.
    let words = [
        "go",
        "position",
        "fen",
        "startpos",
        "moves",
        "setoption",
        "name",
        "value",
        "depth",
        "-1",
        "999999999999",
        "e2e4",
        "a10a9",
        "P@e4",
        "0000",
        "@@@@",
        "usermove",
        "level",
        "time",
        "st",
        "sd",
        "undo",
        "remove",
        "new",
        "variant",
        "setboard",
        "ping",
        "option",
        "=",
        "[",
        "]",
        "/",
        "8/8",
        "w",
        "b",
        "KQkq",
        "-",
        "movetime",
        "nodes",
        "perft",
        "x",
        "",
    ];
    for args in [&[][..], &["xboard"][..]] {
        let mut s = Engine::start(args);
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..300 {
            let mut line = Vec::new();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            for k in 0..(seed % 6) {
                line.push(words[((seed >> (8 * k)) % words.len() as u64) as usize]);
            }
            let text = line.join(" ");
            // Searches and perft without limits would run on; skip those lines.
            if text.starts_with("go") || text.contains("perft") {
                continue;
            }
            s.send(&text);
        }
        if args.is_empty() {
            s.send("isready");
            s.expect(10, "readyok", |l| l == "readyok");
        } else {
            s.send("ping 77");
            s.expect(10, "pong 77", |l| l == "pong 77");
        }
        s.quit("quit");
    }
}

#[test]
fn xboard_every_variant() {
    let reg = registry();
    let mut s = Engine::start(&["xboard"]);
    s.send("xboard");
    s.send("protover 2");
    let features = s.expect(5, "feature with variants", |l| l.contains("variants=\""));
    assert!(features.contains("ping=1") && features.contains("setboard=1") && features.contains("usermove=1"));
    s.expect(5, "done=1", |l| l.contains("done=1"));
    let mut n = 0;
    for name in reg.names() {
        let v = reg.get(&name).expect("variant ships");
        // XBoard's own name for chess is `normal`.
        let xname = if name == "chess" { "normal".to_string() } else { name.clone() };
        if v.hands {
            // Captured men go back to their owner: XBoard's holdings cannot, so not offered.
            assert!(!features.contains(&xname), "{features}");
            continue;
        }
        assert!(features.contains(&xname), "{features}");
        s.send("new");
        s.send(&format!("variant {xname}"));
        n += 1;
        s.send(&format!("ping {n}"));
        let standard = v.xboard_parent.as_deref().is_some_and(|p| p == xname);
        if !standard {
            s.expect_prefix(5, "setup (");
            s.expect_prefix(5, "piece ");
        }
        s.expect(5, "pong", |l| l == format!("pong {n}"));

        // Set a position by moves, let the engine answer within a fixed time.
        // XBoard games start after a setup phase (the arrays both sides keep).
        let mut start = Position::startpos(Arc::clone(&v)).expect("start position");
        while start.in_setup() {
            let pass = start.parse_move("0000").expect("a setup pass");
            start.make(pass);
        }
        let (mv, fen_after) = first_move_of(start);
        s.send("force");
        s.send(&format!("usermove {}", xboard_text(&reg, &name, &mv)));
        s.send("st 1");
        s.send("post");
        s.send("go");
        s.expect(5, "thinking", |l| l.split_whitespace().count() >= 5 && l.starts_with("1 "));
        s.expect_prefix(5, "move ");

        // By FEN, with a depth limit and a clock.
        s.send("force");
        s.send(&format!("setboard {fen_after}"));
        s.send("sd 3");
        s.send("level 0 1 0");
        s.send("time 3000");
        s.send("otim 3000");
        s.send("go");
        s.expect_prefix(10, "move ");

        // Illegal and unknown input.
        s.send("force");
        s.send("usermove z9z9");
        s.expect(5, "illegal", |l| l == "Illegal move: z9z9");
        s.send("frobnicate");
        s.expect(5, "unknown", |l| l == "Error (unknown command): frobnicate");
        s.send("setboard 8/8 w - -");
        s.expect_prefix(5, "tellusererror Illegal position");

        // Analysis stops on `exit`, and the engine stays responsive.
        s.send("analyze");
        thread::sleep(Duration::from_millis(100));
        s.send("exit");
        n += 1;
        s.send(&format!("ping {n}"));
        s.expect(5, "pong", |l| l == format!("pong {n}"));
    }
    s.quit("quit");
}

#[test]
fn xboard_as_first_uci_line_switches_protocol() {
    let mut s = Engine::start(&[]);
    s.send("xboard");
    s.send("protover 2");
    s.expect(5, "done=1", |l| l.contains("done=1"));
    s.send("new");
    s.send("st 1");
    s.send("usermove e2e4");
    // A ping received while the engine thinks on its move is answered after the move.
    s.send("ping 9");
    let reply = s.expect_prefix(10, "move ");
    assert!(reply.len() > 5);
    s.expect(5, "pong", |l| l == "pong 9");
    s.quit("quit");
}

#[test]
fn xboard_setboard_after_variant_is_the_start_xboard_learns() {
    // XBoard sends an array it loaded itself right after `variant`, before it
    // reads the engine's `setup`; that `setup` then carries the array, so
    // XBoard's board and the engines' agree.
    let arrays = std::fs::read_to_string("variants/relocation-arrays.epd").expect("arrays ship");
    let array = arrays.lines().filter(|l| !l.starts_with('#') && !l.trim().is_empty()).nth(59).expect("144 arrays");
    let mut s = Engine::start(&["xboard"]);
    s.send("protover 2");
    s.expect(5, "done=1", |l| l.contains("done=1"));
    for line in ["new", "variant relocation", "level 40 5 0", "ping 1", "force"] {
        s.send(line);
    }
    s.send(&format!("setboard {array}"));
    let setup = s.expect_prefix(5, "setup (");
    assert_eq!(setup.split_once(") ").map(|(_, rest)| rest), Some(format!("10x8+0_caparandom {array}").as_str()));
    // XBoard castles its caparandom parent Chess960-style itself: no `O` atom.
    s.expect(5, "king line", |l| l == "piece K& K");
    s.expect(5, "pong after the definition", |l| l == "pong 1");
    // Without a `setboard` the definition comes on its own, before the pong.
    for line in ["new", "variant clash2", "ping 2"] {
        s.send(line);
    }
    let setup = s.expect_prefix(5, "setup (");
    assert!(
        setup.ends_with(" 10x10+0_fairy lrfbkmbfrl/g8g/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBUQKUBNR/3A2C3 w - - 0 1"),
        "{setup}"
    );
    s.expect(5, "pong", |l| l == "pong 2");
    s.quit("quit");
}

#[test]
fn material_evaluation_scores_material_alone() {
    // A knight on d4 and a pawn on a2 (a lone knight would be a dead
    // position, scored 0): the full evaluation adds centralisation and tempo,
    // the material baseline says exactly their values (320 + 100 in chess.var).
    let mut s = Engine::start(&["uci"]);
    s.send("uci");
    s.expect(5, "Evaluation option", |l| {
        l == "option name Evaluation type combo default full var full var nnue var linear var hand var material"
    });
    s.expect(5, "uciok", |l| l == "uciok");
    s.send("setoption name Evaluation value material");
    s.send("position fen 4k3/8/8/8/3N4/8/P7/4K3 w - - 0 1");
    s.send("go depth 1");
    let info = s.expect(10, "depth-1 score", |l| l.starts_with("info depth 1 ") && l.contains(" score "));
    assert!(info.contains(" score cp 420 "), "{info}");
    bestmove(&mut s);
    s.send("setoption name Evaluation value full");
    s.send("go depth 1");
    let info = s.expect(10, "depth-1 score", |l| l.starts_with("info depth 1 ") && l.contains(" score "));
    assert!(!info.contains(" score cp 420 "), "{info}");
    bestmove(&mut s);
    s.quit("quit");
}

#[test]
fn eval_prints_the_static_evaluation_from_whites_side() {
    let mut s = Engine::start(&[]);
    uci_handshake(&mut s);
    // Material alone: the knight and the pawn of chess.var (320 + 100), from
    // White's side whoever is to move.
    s.send("setoption name Evaluation value material");
    for side in ["w", "b"] {
        s.send(&format!("position fen 4k3/8/8/8/3N4/8/P7/4K3 {side} - - 0 1"));
        s.send("eval");
        s.expect(5, "material line", |l| l == "Material evaluation  +4.20 (white side)");
        s.expect(5, "final line", |l| l == "Final evaluation     +4.20 (white side)");
    }
    // The full evaluation: the linear terms group by group, then the
    // network, which the search uses when both sides are armed.
    s.send("setoption name Evaluation value full");
    s.send("position startpos moves e2e4 e7e5 g1f3");
    s.send("eval");
    let mut groups = Vec::new();
    let network = loop {
        let line = s.expect(5, "eval line", |_| true);
        if let Some(value) = line.strip_prefix("Network evaluation") {
            break value.trim().to_string();
        }
        if let Some((group, _)) = line.split_once('|') {
            groups.push(group.trim().to_string());
        }
    };
    let want =
        ["Linear term", "Material", "Centralisation", "Mobility", "Threats", "King safety", "Pawns", "Tempo", "Mop-up"];
    assert_eq!(groups, want);
    let fin = s.expect_prefix(5, "Final evaluation");
    assert_eq!(fin.strip_prefix("Final evaluation").map(str::trim), Some(network.as_str()));
    // Still alive and answering.
    s.send("isready");
    s.expect(5, "readyok", |l| l == "readyok");
    s.quit("quit");
}

/// One reported line: depth, number among the lines of its depth, score, first move.
#[derive(Clone, Debug)]
struct PvLine {
    depth: u32,
    multipv: u32,
    score: i32,
    mv: String,
}

/// The lines of one `go`, in blocks of one depth each.
fn blocks_by_depth(lines: &[PvLine]) -> Vec<Vec<PvLine>> {
    let mut blocks: Vec<Vec<PvLine>> = Vec::new();
    for line in lines {
        match blocks.last_mut() {
            Some(block) if block[0].depth == line.depth => block.push(line.clone()),
            _ => blocks.push(vec![line.clone()]),
        }
    }
    blocks
}

/// Every block numbers its lines 1, 2, 3 and lists them best first.
fn assert_best_first(blocks: &[Vec<PvLine>], transcript: &str) {
    assert!(blocks.len() >= 5, "{transcript}");
    for block in blocks {
        let numbers: Vec<u32> = block.iter().map(|l| l.multipv).collect();
        assert_eq!(numbers, [1, 2, 3], "{transcript}");
        assert!(block.windows(2).all(|w| w[0].score >= w[1].score), "{block:?}\n{transcript}");
    }
}

#[test]
fn multipv_lines_come_best_first_over_uci_and_xboard() {
    // From the start position a later line outscores an earlier one at
    // several depths when each line is reported as soon as it is searched.
    let mut s = Engine::start(&["uci"]);
    s.send("uci");
    s.expect(5, "uciok", |l| l == "uciok");
    s.send("setoption name MultiPV value 3");
    s.send("position startpos");
    s.send("go depth 7");
    let seen = s.read_until(60, "bestmove", |l| l.starts_with("bestmove "));
    let mut lines = Vec::new();
    for line in &seen {
        let words: Vec<&str> = line.split_whitespace().collect();
        let field = |name: &str| words.iter().position(|w| *w == name).map(|i| words[i + 1]);
        if let (Some(depth), Some(multipv), Some("cp"), Some(pv)) =
            (field("depth"), field("multipv"), field("score"), field("pv"))
        {
            let score = words[words.iter().position(|w| *w == "cp").expect("cp") + 1];
            let (depth, multipv, score) = (depth.parse().unwrap(), multipv.parse().unwrap(), score.parse().unwrap());
            lines.push(PvLine { depth, multipv, score, mv: pv.to_string() });
        }
    }
    let transcript = seen.join("\n");
    let blocks = blocks_by_depth(&lines);
    assert_best_first(&blocks, &transcript);
    let best = seen.last().and_then(|l| l.split_whitespace().nth(1)).expect("bestmove");
    assert_eq!(best, blocks.last().expect("a block")[0].mv, "{transcript}");
    s.quit("quit");

    // XBoard's thinking output: `depth score time nodes pv`, one line per PV.
    let mut s = Engine::start(&["xboard"]);
    s.send("xboard");
    s.send("protover 2");
    s.expect(5, "done=1", |l| l.contains("done=1"));
    for line in ["new", "option MultiPV=3", "sd 7", "post", "go"] {
        s.send(line);
    }
    let seen = s.read_until(60, "move", |l| l.starts_with("move "));
    let mut lines = Vec::new();
    for line in &seen {
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() >= 5 && words[..4].iter().all(|w| w.parse::<i64>().is_ok()) {
            let depth: u32 = words[0].parse().unwrap();
            let multipv = lines.iter().filter(|l: &&PvLine| l.depth == depth).count() as u32 + 1;
            lines.push(PvLine { depth, multipv, score: words[1].parse().unwrap(), mv: words[4].to_string() });
        }
    }
    let transcript = seen.join("\n");
    let blocks = blocks_by_depth(&lines);
    assert_best_first(&blocks, &transcript);
    let played = seen.last().and_then(|l| l.split_whitespace().nth(1)).expect("move");
    assert_eq!(played, blocks.last().expect("a block")[0].mv, "{transcript}");
    s.quit("quit");
}
