//! Networks in use: a hand-built network that counts material scores through
//! UCI exactly as its weights say (in place of chess's shipped network); `EvalFile` and `Evaluation nnue` report
//! bad files, foreign networks and missing networks in one line and the
//! engine keeps its linear evaluation; a network set before its variant
//! plays once the variant is chosen; a `.nnue` file beside a `.var` file
//! loads with it; `menagerie check` validates a network.

mod common;

use common::{Engine, TempDir};
use menagerie::board::position::Place;
use menagerie::board::registry::Registry;
use menagerie::eval::nnue::network::{Activation, FloatNetwork};
use menagerie::eval::nnue::{file, FeatureSet, View};
use menagerie::rules::piece::{Cell, Color, PieceKind};

/// A one-neuron network whose output is the material balance for the side
/// to move (pawn 100, knight 320, bishop 330, rook 500, queen 900): each
/// perspective's neuron sits at 0.5 plus its own material minus the other
/// side's, in units of 2000 cp, inside the clipped ReLU's linear range.
fn material_network(variant: &str) -> Vec<u8> {
    material_network_of(&Registry::builtin().get(variant).expect("ships"))
}

fn material_network_of(v: &std::sync::Arc<menagerie::rules::variant::Variant>) -> Vec<u8> {
    let features = FeatureSet::new(v);
    let mut net = FloatNetwork::zeros(v, 1, Activation::ClippedRelu);
    net.hidden_bias[0] = 0.5;
    for (k, piece) in v.pieces.iter().enumerate() {
        let value = match piece.letter {
            'P' => 100.0,
            'N' => 320.0,
            'B' => 330.0,
            'R' => 500.0,
            'Q' => 900.0,
            _ => 0.0,
        } / 2000.0;
        for sq in v.shape.squares() {
            for (owner, sign) in [(Color::White, 1.0), (Color::Black, -1.0)] {
                let cell = Cell::piece(owner, PieceKind(k as u8));
                net.hidden_weights[features.index(Color::White, View::default(), cell, Place::Board(sq))] =
                    sign * value;
            }
        }
    }
    // The same rows serve Black's perspective: inputs are relative to it.
    // Output: (us - them) * w * 400 cp = 2 * material / 2000 * w * 400.
    net.output_weights[0] = 2.5;
    net.output_weights[1] = -2.5;
    file::write(&net.quantize())
}

/// Writes `bytes` to `name` in `dir`; returns the path.
fn temp_file(dir: &TempDir, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    path
}

/// A copy of `variants/chess.var` under another name, written as `NAME.var`
/// in `dir`: a variant from a file, with no shipped network of its own.
fn chess_var_named(dir: &TempDir, name: &str) -> std::path::PathBuf {
    let var = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/variants/chess.var")).expect("chess.var");
    let renamed = var.replace("name        chess", &format!("name        {name}"));
    assert_ne!(renamed, var, "chess.var names its variant");
    temp_file(dir, &format!("{name}.var"), renamed.as_bytes())
}

fn depth_one_score(s: &mut Engine) -> i32 {
    s.send("go depth 1");
    let info = s.expect(10, "depth-1 score", |l| l.starts_with("info depth 1 ") && l.contains(" score cp "));
    s.expect(10, "bestmove", |l| l.starts_with("bestmove"));
    let after = info.split(" score cp ").nth(1).expect("score");
    after.split_whitespace().next().and_then(|n| n.parse().ok()).expect("a number")
}

#[test]
fn a_material_network_scores_material_through_uci() {
    let dir = TempDir::new("network");
    let chess_net = temp_file(&dir, "chess.nnue", &material_network("chess"));
    // Every shipped variant has a network; a variant from a file has none.
    chess_var_named(&dir, "plain");
    let mut s = Engine::start(&["--variants", dir.to_str().expect("utf-8"), "uci"]);
    s.send("uci");
    s.expect(5, "Evaluation option", |l| {
        l == "option name Evaluation type combo default full var full var nnue var linear var hand var material"
    });
    s.expect(5, "EvalFile option", |l| l.starts_with("option name EvalFile type string"));
    s.expect(5, "uciok", |l| l == "uciok");
    // Asking for a network the variant lacks says so in one line, the linear evaluation plays.
    s.send("setoption name UCI_Variant value plain");
    s.send("setoption name Evaluation value nnue");
    s.expect(5, "no-network error", |l| l.starts_with("info string error") && l.contains("has no network"));
    s.send("setoption name UCI_Variant value chess");
    s.send("setoption name Evaluation value linear");
    s.send("position fen 4k3/7p/8/8/3N4/8/PP6/4K3 w - - 0 1");
    let linear = depth_one_score(&mut s);

    // The material network replaces chess's shipped one.
    s.send("setoption name Evaluation value full");
    s.send(&format!("setoption name EvalFile value {}", chess_net.display()));
    s.send("isready");
    let ready = s.expect(5, "readyok", |l| l == "readyok" || l.starts_with("info string error"));
    assert_eq!(ready, "readyok", "{}", s.transcript_tail());
    // Knight and pawn up: 420 cp, give or take the rounding of the weights.
    let nnue = depth_one_score(&mut s);
    assert!((410..=430).contains(&nnue), "network score {nnue} (linear {linear})\n{}", s.transcript_tail());
    assert_ne!(nnue, linear);
    // Black to move sees the same balance from its side.
    s.send("position fen 4k3/7p/8/8/3N4/8/PP6/4K3 b - - 0 1");
    s.send("go depth 1");
    let info = s.expect(10, "black's score", |l| l.starts_with("info depth 1 ") && l.contains(" score cp -4"));
    assert!(info.contains(" score cp -4"), "{info}");
    s.expect(10, "bestmove", |l| l.starts_with("bestmove"));
    // `linear` turns the network off, `full` picks it again.
    s.send("position fen 4k3/7p/8/8/3N4/8/PP6/4K3 w - - 0 1");
    s.send("setoption name Evaluation value linear");
    assert_eq!(depth_one_score(&mut s), linear);
    s.send("setoption name Evaluation value full");
    assert_eq!(depth_one_score(&mut s), nnue);
    // A lone king: a network that scores alone leaves such endings to the
    // linear evaluation, which knows how to mate (see `unarmed_guide`).
    s.send("position fen 4k3/8/8/8/3N4/8/PP6/4K3 w - - 0 1");
    let guided = depth_one_score(&mut s);
    s.send("setoption name Evaluation value linear");
    assert_eq!(depth_one_score(&mut s), guided);
    s.quit("quit");
}

#[test]
fn bad_and_foreign_networks_are_one_line_errors() {
    // Centaur's pieces are no shipped variant's.
    let mut registry = Registry::builtin();
    let centaur = registry
        .load_file(std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/variants/centaur.var")))
        .expect("centaur.var loads");
    let dir = TempDir::new("network");
    let centaur_net = temp_file(&dir, "centaur.nnue", &material_network_of(&centaur));
    let mut truncated = material_network("chess");
    truncated.truncate(truncated.len() - 7);
    let truncated = temp_file(&dir, "truncated.nnue", &truncated);
    let mut s = Engine::start(&["uci"]);
    s.send("uci");
    s.expect(5, "uciok", |l| l == "uciok");
    s.send("position fen 4k3/7p/8/8/3N4/8/PP6/4K3 w - - 0 1");
    let linear = depth_one_score(&mut s);
    for (path, why) in [
        (centaur_net.display().to_string(), "the network is for pieces"),
        (truncated.display().to_string(), "truncated"),
        ("/no/such/file.nnue".to_string(), "cannot read"),
    ] {
        s.send(&format!("setoption name EvalFile value {path}"));
        let error = s.expect(5, "error line", |l| l.starts_with("info string error"));
        assert!(error.contains(why), "{error}");
        // The engine keeps running with its linear evaluation.
        assert_eq!(depth_one_score(&mut s), linear);
    }
    s.quit("quit");
}

#[test]
fn a_network_set_before_its_variant_plays_when_the_variant_is_chosen() {
    // Cute Chess sends `EvalFile` before `UCI_Variant`.
    let dir = TempDir::new("network");
    let capa_net = temp_file(&dir, "capablanca-first.nnue", &material_network("capablanca"));
    let mut s = Engine::start(&["uci"]);
    s.send("uci");
    s.expect(5, "uciok", |l| l == "uciok");
    s.send("position fen 4k3/7p/8/8/3N4/8/PP6/4K3 w - - 0 1");
    let chess_linear = depth_one_score(&mut s);
    s.send(&format!("setoption name EvalFile value {}", capa_net.display()));
    let said = s.expect(5, "network line", |l| l.starts_with("info string"));
    assert!(said.ends_with(" plays capablanca caparandom relocation"), "{said}");
    // Chess keeps its evaluation.
    assert_eq!(depth_one_score(&mut s), chess_linear);
    s.send("setoption name UCI_Variant value capablanca");
    s.send("setoption name Evaluation value nnue");
    s.send("isready");
    let ready = s.expect(5, "readyok", |l| l == "readyok" || l.starts_with("info string error"));
    assert_eq!(ready, "readyok", "{}", s.transcript_tail());
    s.send("position fen 5k4/9p/10/10/4N5/10/PP8/5K4 w - - 0 1");
    let score = depth_one_score(&mut s);
    assert!((410..=430).contains(&score), "{score}\n{}", s.transcript_tail());
    s.quit("quit");
}

#[test]
fn a_network_beside_a_variant_file_loads_with_it_and_check_validates_it() {
    let dir = TempDir::new("beside");
    chess_var_named(&dir, "mychess");
    std::fs::write(dir.join("mychess.nnue"), material_network("chess")).expect("nnue");
    let mut s = Engine::start(&["--variants", dir.to_str().expect("utf-8"), "uci"]);
    s.send("uci");
    s.expect(5, "uciok", |l| l == "uciok");
    s.send("setoption name UCI_Variant value mychess");
    s.send("setoption name Evaluation value nnue");
    s.send("position fen 4k3/7p/8/8/3N4/8/PP6/4K3 w - - 0 1");
    let score = depth_one_score(&mut s);
    assert!((410..=430).contains(&score), "{score}\n{}", s.transcript_tail());
    s.quit("quit");

    let check = std::process::Command::new(env!("CARGO_BIN_EXE_menagerie"))
        .args(["--variants", dir.to_str().expect("utf-8"), "check"])
        .arg(dir.join("mychess.nnue"))
        .output()
        .expect("runs");
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr));
    // A damaged network beside a variant file: the variant does not load, one line says why.
    std::fs::write(dir.join("mychess.nnue"), b"menagerie-nnue 1\nhidden 1\n").expect("nnue");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_menagerie"))
        .args(["--variants", dir.to_str().expect("utf-8"), "variants"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("mychess.nnue"), "{stderr}");
}

/// `menagerie check FILE` as a process: its status and its stdout.
fn check(file: &std::path::Path) -> (bool, String) {
    let out =
        std::process::Command::new(env!("CARGO_BIN_EXE_menagerie")).arg("check").arg(file).output().expect("runs");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn every_shipped_network_names_commands_and_a_header_with_paths_is_warned_about() {
    let variants = concat!(env!("CARGO_MANIFEST_DIR"), "/variants");
    let mut shipped = 0;
    for entry in std::fs::read_dir(variants).expect("variants/") {
        let path = entry.expect("entry").path();
        if path.extension().is_some_and(|e| e == "nnue") {
            let (ok, stdout) = check(&path);
            assert!(ok && stdout.contains(": ok (") && !stdout.contains("warning"), "{}: {stdout}", path.display());
            assert!(stdout.contains("menagerie datagen") && stdout.contains("menagerie train"), "{stdout}");
            shipped += 1;
        }
    }
    assert!(shipped >= 5, "{shipped} networks shipped");

    // The same weights with a header that names this machine's files.
    let dir = TempDir::new("paths");
    let mut net = file::read(&material_network("chess")).expect("reads");
    net.header.data_command = "menagerie datagen --variant chess --games 10 --shard 3/8".to_string();
    net.header.train_command = "menagerie train --variant chess --data a.data --rate 0.001".to_string();
    let clean = temp_file(&dir, "clean.nnue", &file::write(&net));
    let (ok, stdout) = check(&clean);
    assert!(ok && !stdout.contains("warning"), "{stdout}");
    net.header.train_command =
        "menagerie train --variant chess --data /work/data/a.data /work/data/b.data --init nets/g6.nnue".to_string();
    let with_paths = temp_file(&dir, "paths.nnue", &file::write(&net));
    let (ok, stdout) = check(&with_paths);
    let warning = stdout.lines().find(|l| l.contains("warning")).unwrap_or_default();
    assert!(ok, "a warning is not an error: {stdout}");
    assert!(warning.contains("3 files") && warning.contains("/work/data/a.data"), "{stdout}");
}

/// The shipped evaluation of `fen` in `variant`, for the side to move.
fn shipped_eval(variant: &str, fen: &str) -> i32 {
    use menagerie::eval::catalogue::Catalogue;
    use menagerie::eval::EvalMode;
    let catalogue = Catalogue::builtin();
    let v = catalogue.get(variant).expect("ships");
    assert!(catalogue.network(variant).is_some(), "{variant} ships a network");
    let pos = menagerie::board::position::Position::from_fen(v.clone(), fen).expect(fen);
    catalogue.evaluator(&v, EvalMode::Full).evaluate(&pos)
}

#[test]
fn the_clockwork_network_values_men_in_hand_and_the_twins_conversions() {
    // After 1. e4 d5 2. exd5 Qxd5 the pawn Black took is in White's hand as a
    // non-capturing pawn (S): White is worth more with it than without it.
    let board = "rnb1kbnr/ppp1pppp/8/3q4/8/8/PPPP1PPP/RNBQKBNR";
    let with_twin = shipped_eval("clockwork", &format!("{board}[S] w KQkq - 0 3"));
    let empty = shipped_eval("clockwork", &format!("{board}[] w KQkq - 0 3"));
    assert!(with_twin > empty + 20, "S in hand {with_twin}, empty hand {empty}");
    // A captured non-capturing knight comes back as a knight: worth more than the twin.
    let knight = shipped_eval("clockwork", &format!("{board}[N] w KQkq - 0 3"));
    let nc_knight = shipped_eval("clockwork", &format!("{board}[O] w KQkq - 0 3"));
    assert!(knight > nc_knight + 30 && nc_knight > empty + 30, "N {knight}, O {nc_knight}, none {empty}");
    // The side to move sees it the same way: Black holding the twin is worth more to Black.
    let black_twin = shipped_eval("clockwork", &format!("{board}[s] b KQkq - 0 3"));
    let black_empty = shipped_eval("clockwork", &format!("{board}[] b KQkq - 0 3"));
    assert!(black_twin > black_empty + 20, "s in hand {black_twin}, empty {black_empty}");
}
