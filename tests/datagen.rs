//! Training data: records round-trip with every input of the position, a
//! damaged or foreign file is a one-line error, and shards made apart
//! concatenate into exactly the positions one run makes.

mod common;

use std::process::Command;
use std::sync::Arc;

use common::TempDir;
use menagerie::board::position::Position;
use menagerie::board::registry::Registry;
use menagerie::eval::nnue::data::{
    encode, write_block, DataError, DataHeader, DataSet, Item, PositionReader, Record, Records,
};
use menagerie::eval::nnue::games::{Filter, Game, PlyScore};
use menagerie::eval::nnue::FeatureSet;
use menagerie::rules::moves::MoveList;
use menagerie::rules::piece::{Cell, Color};
use menagerie::rules::variant::Variant;
use menagerie::rules::zobrist::SplitMix64;

/// Everything a record holds, comparable: side, score, result (in halves),
/// men (file, rank, man) and hand (man, count).
type Contents = (Color, i32, u32, Vec<(u8, u8, Cell)>, Vec<(Cell, u8)>);

fn contents(r: &Record) -> Contents {
    let men = r.men().map(|(sq, cell)| (sq.file(), sq.rank(), cell)).collect();
    ((r.side_to_move()), r.score(), (r.result() * 2.0) as u32, men, r.hand().collect())
}

/// Up to `plies` random legal moves of `v` from its start (`seed` picks
/// them); `each` sees the position after each move, with its ply (0-based).
fn random_game(v: &Arc<Variant>, seed: u64, plies: i32, mut each: impl FnMut(&Position, i32)) {
    let mut rng = SplitMix64(seed);
    let mut list = MoveList::new();
    let mut pos = Position::startpos(Arc::clone(v)).expect("start");
    for ply in 0..plies {
        pos.generate_legal(&mut list);
        if list.is_empty() || pos.game_end().is_some() {
            break;
        }
        pos.make(list[rng.below(list.len())]);
        each(&pos, ply);
    }
}

#[test]
fn records_hold_every_input_of_their_position() {
    for name in ["clockwork", "clash5", "relocation", "chess"] {
        let v = Registry::builtin().get(name).expect("ships");
        // The king mirror takes the record's king as the position's.
        let plain = FeatureSet::new(&v);
        let (mut positions, mut bytes) = (Vec::new(), Vec::new());
        random_game(&v, 9, 120, |pos, ply| {
            let (score, result) = (ply * 7 - 300, [0.0, 0.5, 1.0][ply as usize % 3]);
            encode(pos, score, result, &mut bytes);
            positions.push((pos.clone(), score, result));
        });
        let file = write_block(&DataHeader::new(&v, "test", positions.len()), &bytes);
        let set = DataSet::read(file, &v).expect("reads back");
        assert_eq!(set.len(), positions.len(), "{name}");
        for (i, (pos, score, result)) in positions.iter().enumerate() {
            let r = set.record(i);
            assert_eq!((r.side_to_move(), r.score(), r.result()), (pos.side_to_move(), *score, *result), "{name} {i}");
            let perspectives = Color::ALL.into_iter().map(|c| (plain, c));
            // King buckets (each rank its own) take the record's king as the position's too.
            let layout: Vec<u8> =
                (0..v.shape.ranks).flat_map(|r| vec![r; usize::from(v.shape.files.div_ceil(2))]).collect();
            let transformed = [plain.with_king_mirror(true), plain.with_king_buckets(&layout)];
            let transformed = transformed.into_iter().flat_map(|f| Color::ALL.map(|c| (f, c)));
            for (features, perspective) in perspectives.chain(transformed) {
                let (mut from_record, mut from_position) = (Vec::new(), Vec::new());
                r.active(&features, perspective, |f| from_record.push(f));
                features.active(pos, perspective, |f| from_position.push(f));
                from_record.sort_unstable();
                from_position.sort_unstable();
                assert_eq!(from_record, from_position, "{name}: {}", pos.to_fen());
            }
        }
    }
}

/// Self-play keeps a game's records before it has a result and sets it at
/// the end: the records are then those `encode` writes with that result. A
/// block may carry the settings that played it (the tuner's), and blocks
/// with and without settings concatenate.
#[test]
fn records_take_their_game_result_and_blocks_keep_their_settings() {
    for name in ["clockwork", "chess"] {
        let v = Registry::builtin().get(name).expect("ships");
        let (mut records, mut expected) = (Records::new(), Vec::new());
        random_game(&v, 4, 80, |pos, ply| {
            records.push(pos, ply * 3, 0.5);
            encode(pos, ply * 3, 1.0, &mut expected);
        });
        records.set_results(1.0);
        assert!(records.len() > 20, "{name}");
        assert_eq!(records.bytes(), &expected[..], "{name}");
        let with = write_block(&DataHeader::new(&v, "tune", records.len()).with_settings("--games 1"), records.bytes());
        let without = write_block(&DataHeader::new(&v, "datagen", records.len()), records.bytes());
        assert!(!String::from_utf8_lossy(&without).contains("settings"));
        let set = DataSet::read([with, without].concat(), &v).expect("reads");
        assert_eq!(set.len(), 2 * records.len());
        assert_eq!(set.headers[0].settings.as_deref(), Some("--games 1"));
        assert_eq!(set.headers[1].settings, None);
        assert!((0..set.len()).all(|i| set.record(i).result() == 1.0));
    }
}

#[test]
fn damaged_and_foreign_files_are_refused_in_one_line() {
    let chess = Registry::builtin().get("chess").expect("ships");
    let pos = Position::startpos(Arc::clone(&chess)).expect("start");
    let mut bytes = Vec::new();
    encode(&pos, 20, 0.5, &mut bytes);
    encode(&pos, 25, 1.0, &mut bytes);
    let file = write_block(&DataHeader::new(&chess, "test", 2), &bytes);

    let truncated = DataSet::read(file[..file.len() - 3].to_vec(), &chess).expect_err("truncated");
    assert!(matches!(truncated, DataError::BadRecord { .. }), "{truncated}");
    assert!(!truncated.to_string().contains('\n'));
    let garbage = DataSet::read(b"GIF89a".to_vec(), &chess).expect_err("not data");
    assert_eq!(garbage, DataError::BadMagic(0));
    let clash = Registry::builtin().get("clash1").expect("ships");
    let foreign = DataSet::read(file.clone(), &clash).expect_err("chess data is not clash data");
    assert!(foreign.to_string().contains("PNBRQK on 8x8"), "{foreign}");
    // A man of a kind the variant lacks.
    let mut bad = file.clone();
    let last_man = bad.len() - 2;
    bad[last_man] = 30;
    let kind = DataSet::read(bad, &chess);
    assert!(matches!(kind, Err(DataError::BadRecord { .. })), "{kind:?}");
}

fn datagen(dir: &std::path::Path, extra: &[&str], out: &str) -> Vec<u8> {
    let path = dir.join(out);
    let status = Command::new(env!("CARGO_BIN_EXE_menagerie"))
        .args(["datagen", "--variant", "chess", "--games", "4", "--nodes", "300", "--random-plies", "6"])
        .args(extra)
        .arg("--out")
        .arg(&path)
        .output()
        .expect("menagerie runs");
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    std::fs::read(&path).expect("written")
}

#[test]
fn shards_concatenate_into_the_positions_of_one_run() {
    let dir = TempDir::new("datagen");
    let whole = datagen(&dir, &["--threads", "2"], "whole.data");
    let mut joined = datagen(&dir, &["--shard", "0/2", "--threads", "1"], "a.data");
    joined.extend(datagen(&dir, &["--shard", "1/2", "--threads", "2"], "b.data"));
    let chess = Registry::builtin().get("chess").expect("ships");
    let (whole, joined) =
        (DataSet::read(whole, &chess).expect("whole"), DataSet::read(joined, &chess).expect("joined"));
    assert!(whole.len() > 50, "too few positions: {}", whole.len());
    assert_eq!(joined.headers.len(), 2);
    assert_eq!(whole.len(), joined.len());
    // Games are written as they end, so with threads in another order: compare game by game.
    let by_game = |set: &DataSet| {
        let mut all: Vec<(u64, Contents)> = (0..set.len()).map(|i| (set.group(i), contents(&set.record(i)))).collect();
        all.sort_by_key(|(group, _)| *group);
        all
    };
    assert_eq!(by_game(&whole), by_game(&joined));

    let refused = Command::new(env!("CARGO_BIN_EXE_menagerie"))
        .args(["datagen", "--variant", "chess", "--shard", "2/2"])
        .output()
        .expect("menagerie runs");
    assert!(!refused.status.success());
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains("shard 2/2"),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
}

fn join(dir: &std::path::Path, shards: &[&str], out: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_menagerie"))
        .args(["join", "--variant", "chess", "--out"])
        .arg(dir.join(out))
        .args(shards.iter().map(|shard| dir.join(shard)))
        .output()
        .expect("menagerie runs")
}

/// `join` makes the same bytes from shards (in any order, any threads) as
/// from one process's file, and refuses a set with a shard missing.
#[test]
fn joined_shards_are_the_bytes_of_a_joined_run() {
    let dir = TempDir::new("join");
    datagen(&dir, &["--threads", "2"], "whole.data");
    datagen(&dir, &["--shard", "0/3", "--threads", "1"], "a.data");
    datagen(&dir, &["--shard", "1/3", "--threads", "2"], "b.data");
    datagen(&dir, &["--shard", "2/3", "--threads", "1"], "c.data");
    for (files, out) in [(&["whole.data"][..], "whole-joined.data"), (&["c.data", "a.data", "b.data"], "joined.data")] {
        let done = join(&dir, files, out);
        assert!(done.status.success(), "{}", String::from_utf8_lossy(&done.stderr));
    }
    let read = |name: &str| std::fs::read(dir.join(name)).expect("written");
    let joined = read("joined.data");
    assert_eq!(joined, read("whole-joined.data"));
    let chess = Registry::builtin().get("chess").expect("ships");
    let (set, whole) =
        (DataSet::read(joined, &chess).expect("joined"), DataSet::read(read("whole.data"), &chess).expect("whole"));
    assert_eq!((set.headers.len(), set.games, set.len()), (1, 4, whole.len()));

    let missing = join(&dir, &["a.data", "c.data"], "partial.data");
    assert!(!missing.status.success());
    let error = String::from_utf8_lossy(&missing.stderr);
    assert!(error.contains("missing, the first is game 1"), "{error}");
}

/// The documented flow on a user's variant, in miniature: datagen, train,
/// check; a truncated network is a one-line error.
#[test]
fn datagen_train_and_check_a_user_variant() {
    let dir = TempDir::new("train");
    let variants = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/variants");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_menagerie")).arg("--variants").arg(variants).args(args).output().expect("runs")
    };
    let (data, net) = (dir.join("centaur.data"), dir.join("centaur.nnue"));
    let made = run(&[
        "datagen",
        "--variant",
        "centaur",
        "--games",
        "4",
        "--nodes",
        "200",
        "--out",
        data.to_str().expect("utf-8"),
    ]);
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    // `check` reads data files too: every record, and the command that made them.
    let checked = run(&["check", data.to_str().expect("utf-8")]);
    let text = String::from_utf8_lossy(&checked.stdout);
    assert!(checked.status.success() && text.contains("ok (data for centaur: "), "{text}");
    assert!(text.contains("positions in 1 block,") && text.contains("--games 4"), "{text}");
    let cut = dir.join("cut.data");
    let bytes = std::fs::read(&data).expect("written");
    std::fs::write(&cut, &bytes[..bytes.len() - 3]).expect("truncate");
    let broken = run(&["check", cut.to_str().expect("utf-8")]);
    let message = String::from_utf8_lossy(&broken.stderr);
    assert!(!broken.status.success() && message.trim().lines().count() == 1, "{message}");
    let trained = run(&[
        "train",
        "--variant",
        "centaur",
        "--data",
        data.to_str().expect("utf-8"),
        "--hidden",
        "8",
        "--epochs",
        "2",
        "--batch",
        "64",
        "--out",
        net.to_str().expect("utf-8"),
    ]);
    assert!(trained.status.success(), "{}", String::from_utf8_lossy(&trained.stderr));
    let checked = run(&["check", net.to_str().expect("utf-8")]);
    let text = String::from_utf8_lossy(&checked.stdout);
    assert!(checked.status.success() && text.contains("ok (network for centaur"), "{text}");
    assert!(text.contains("menagerie --variants") && text.contains("datagen"), "the header names the commands: {text}");

    // Training on from that network: its width comes along, and the header
    // keeps the commands of both runs.
    let more = dir.join("centaur-more.nnue");
    let train_on = |init: &str| {
        let data = data.to_str().expect("utf-8");
        let out = more.to_str().expect("utf-8");
        run(&["train", "--variant", "centaur", "--data", data, "--epochs", "1", "--init", init, "--out", out])
    };
    let continued = train_on(net.to_str().expect("utf-8"));
    assert!(continued.status.success(), "{}", String::from_utf8_lossy(&continued.stderr));
    let checked = run(&["check", more.to_str().expect("utf-8")]);
    let text = String::from_utf8_lossy(&checked.stdout);
    assert!(text.contains("8x2") && text.contains("--init") && text.contains("--hidden 8"), "{text}");
    // A network for another piece set is a one-line error.
    let foreign = train_on(concat!(env!("CARGO_MANIFEST_DIR"), "/variants/capablanca.nnue"));
    let message = String::from_utf8_lossy(&foreign.stderr);
    assert!(!foreign.status.success());
    assert!(message.contains("the network is for pieces") && message.trim().lines().count() == 1, "{message}");

    let bytes = std::fs::read(&net).expect("written");
    std::fs::write(&net, &bytes[..bytes.len() - 7]).expect("truncate");
    let broken = run(&["check", net.to_str().expect("utf-8")]);
    let message = String::from_utf8_lossy(&broken.stderr);
    assert!(!broken.status.success());
    assert!(message.contains("truncated") && message.trim().lines().count() == 1, "{message}");
}

#[test]
fn match_games_import_as_one_players_data() {
    let dir = TempDir::new("import");
    let exe = env!("CARGO_BIN_EXE_menagerie");
    let run = |args: &[&str]| Command::new(exe).args(args).output().expect("runs");
    let (pgn, data) = (dir.join("games.pgn"), dir.join("games.data"));
    let (pgn, data) = (pgn.to_str().expect("utf-8"), data.to_str().expect("utf-8"));
    let engine = format!("cmd={exe} uci");
    let played = run(&[
        "match",
        "--variant",
        "chess",
        "--engine",
        &engine,
        "name=a",
        "--engine",
        &engine,
        "name=b",
        "--games",
        "2",
        "--tc",
        "nodes=300",
        "--random-plies",
        "4",
        "--max-moves",
        "30",
        "--pgn",
        pgn,
    ]);
    assert!(played.status.success(), "{}", String::from_utf8_lossy(&played.stderr));
    let imported = run(&["import", "--variant", "chess", "--player", "a", "--pgn", pgn, "--out", data]);
    let said = String::from_utf8_lossy(&imported.stdout);
    assert!(imported.status.success() && said.starts_with("wrote 2 games ("), "{said}");
    // Player a moved about half the plies after the 4 random ones: each a scored ply.
    let scored: usize = said["wrote 2 games (".len()..].split(' ').next().and_then(|n| n.parse().ok()).expect("count");
    assert!((20..=62).contains(&scored), "{said}");
    let checked = run(&["check", data]);
    let text = String::from_utf8_lossy(&checked.stdout);
    assert!(
        checked.status.success() && text.contains("ok (data for chess: ") && text.contains("from 2 games"),
        "{text}"
    );
    // Refused in one line: an unknown variant, a player who played no game, a weight or scale out of range.
    for args in [
        vec!["import", "--variant", "nochess", "--player", "a", "--pgn", pgn],
        vec!["import", "--variant", "chess", "--player", "nobody", "--pgn", pgn, "--out", data],
        vec!["import", "--variant", "chess", "--player", "a", "--pgn", pgn, "--lambda", "2", "--out", data],
        vec!["import", "--variant", "chess", "--player", "a", "--pgn", pgn, "--score-percent", "0", "--out", data],
        vec!["import", "--variant", "chess", "--player", "a", "--pgn", pgn, "--score-percent", "NaN", "--out", data],
        vec!["import", "--variant", "chess", "--player", "a", "--pgn", "missing.pgn", "--out", data],
    ] {
        let refused = run(&args);
        let message = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success() && message.trim().lines().count() == 1, "{args:?}: {message}");
    }
}

/// The games of a data file, in order.
fn games_of(bytes: &[u8]) -> Vec<Game> {
    let v = Registry::builtin().get("chess").expect("chess");
    let mut games = Vec::new();
    PositionReader::new(&v, Filter::default())
        .read(bytes, &mut |item| {
            if let Item::Game(g) = item {
                games.push(g.clone());
            }
        })
        .expect("a valid data file");
    games
}

#[test]
fn rescore_scores_plies_keeps_the_games_and_resumes_as_an_unbroken_run() {
    let dir = TempDir::new("rescore");
    let exe = env!("CARGO_BIN_EXE_menagerie");
    let input = datagen(&dir, &["--threads", "2"], "played.data");
    let played = games_of(&input);
    assert_eq!(played.len(), 4);
    let path = |name: &str| dir.join(name).to_str().expect("utf-8").to_string();
    let rescore = |extra: &[&str], out: &str| {
        let output = Command::new(exe)
            .args([
                "rescore",
                "--variant",
                "chess",
                "--nodes",
                "200",
                "--data",
                &path("played.data"),
                "--out",
                &path(out),
            ])
            .args(extra)
            .output()
            .expect("runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        games_of(&std::fs::read(dir.join(out)).expect("written"))
    };
    let same_games = |a: &Game, b: &Game| {
        a.number == b.number
            && a.result == b.result
            && a.start == b.start
            && a.plies.iter().map(|p| p.index).eq(b.plies.iter().map(|p| p.index))
    };
    // Without --all: the six random opening plies gain a score, the searched plies keep theirs.
    let unscored = rescore(&["--threads", "2"], "unscored.data");
    assert_eq!(unscored.len(), played.len());
    for (before, after) in played.iter().zip(&unscored) {
        assert!(same_games(before, after));
        for (i, (b, a)) in before.plies.iter().zip(&after.plies).enumerate() {
            if i < 6 {
                assert_eq!(b.score, PlyScore::Random, "ply {i} of game {}", before.number);
                assert_ne!(a.score, PlyScore::Random, "ply {i} of game {}", before.number);
            } else {
                assert_eq!(a.score, b.score, "ply {i} of game {}", before.number);
            }
        }
    }
    // --all: every ply searched again; stopped after one game and resumed on
    // another thread count, the same games as an unbroken run.
    let whole = rescore(&["--all", "--threads", "2"], "all.data");
    // Its header names the commands that made the input too.
    let checked = Command::new(exe).args(["check", &path("all.data")]).output().expect("runs");
    let text = String::from_utf8_lossy(&checked.stdout);
    assert!(text.contains("(played.data being: menagerie datagen --variant chess --games 4"), "{text}");
    assert!(whole.iter().zip(&played).all(|(a, b)| same_games(a, b)));
    assert!(whole.iter().flat_map(|g| &g.plies).all(|p| p.score != PlyScore::Random));
    let first = rescore(&["--all", "--threads", "1", "--stop-after", "1"], "resumed.data");
    assert_eq!(first.len(), 1);
    assert_eq!(rescore(&["--all", "--threads", "1", "--resume"], "resumed.data"), whole);
    // Refused in one line: other settings to resume, an unknown variant, no nodes, a missing file.
    for args in [
        vec!["--variant", "chess", "--nodes", "300", "--all", "--resume"],
        vec!["--variant", "nochess", "--nodes", "200"],
        vec!["--variant", "chess", "--nodes", "0"],
    ] {
        let refused = Command::new(exe)
            .arg("rescore")
            .args(&args)
            .args(["--data", &path("played.data"), "--out", &path("resumed.data")])
            .output()
            .expect("runs");
        let message = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success() && message.trim().lines().count() == 1, "{args:?}: {message}");
    }
    let missing = Command::new(exe)
        .args(["rescore", "--variant", "chess", "--data", &path("missing.data"), "--out", &path("x.data")])
        .output()
        .expect("runs");
    let message = String::from_utf8_lossy(&missing.stderr);
    assert!(!missing.status.success() && message.trim().lines().count() == 1, "{message}");
}

#[test]
fn rescore_with_another_engine_scores_every_ply_scaled_and_resumes() {
    let dir = TempDir::new("rescore-engine");
    let exe = env!("CARGO_BIN_EXE_menagerie");
    let input = datagen(&dir, &["--threads", "2"], "played.data");
    let played = games_of(&input);
    let path = |name: &str| dir.join(name).to_str().expect("utf-8").to_string();
    // The teacher is this program over UCI, one thread, fixed nodes: deterministic.
    let engine = format!("cmd={exe} uci");
    let rescore = |extra: &[&str], out: &str| {
        let output = Command::new(exe)
            .args(["rescore", "--variant", "chess", "--nodes", "300", "--all", "--threads", "1"])
            .args(["--data", &path("played.data"), "--out", &path(out)])
            .args(["--engine", &engine, "name=teacher", "option.Threads=1"])
            .args(extra)
            .output()
            .expect("runs");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        games_of(&std::fs::read(dir.join(out)).expect("written"))
    };
    let whole = rescore(&[], "whole.data");
    assert_eq!(whole.len(), played.len());
    for (before, after) in played.iter().zip(&whole) {
        assert_eq!((before.number, before.result, &before.start), (after.number, after.result, &after.start));
        assert!(before.plies.iter().map(|p| p.index).eq(after.plies.iter().map(|p| p.index)));
        // Every ply scored, the random opening ones too.
        assert!(after.plies.iter().all(|p| p.score != PlyScore::Random), "game {}", after.number);
    }
    // The engine's scores are White's view, as this program's own rescore
    // writes them: where both searches call a ply clearly won for one
    // side, they agree on the side.
    let own = Command::new(exe)
        .args(["rescore", "--variant", "chess", "--nodes", "300", "--all", "--threads", "1"])
        .args(["--data", &path("played.data"), "--out", &path("own.data")])
        .output()
        .expect("runs");
    assert!(own.status.success(), "{}", String::from_utf8_lossy(&own.stderr));
    let own = games_of(&std::fs::read(dir.join("own.data")).expect("written"));
    let (mut clear, mut agree) = (0, 0);
    for (a, b) in whole.iter().flat_map(|g| &g.plies).zip(own.iter().flat_map(|g| &g.plies)) {
        if let (PlyScore::Cp(x), PlyScore::Cp(y)) = (a.score, b.score) {
            if x.abs() >= 150 && y.abs() >= 150 {
                clear += 1;
                agree += usize::from((x > 0) == (y > 0));
            }
        }
    }
    assert!(clear >= 5 && agree * 10 >= clear * 9, "{agree} of {clear} clear scores agree");
    // --score-percent 50: the same searches, every centipawn score halved.
    let halved = rescore(&["--score-percent", "50"], "halved.data");
    for (a, h) in whole.iter().flat_map(|g| &g.plies).zip(halved.iter().flat_map(|g| &g.plies)) {
        match (a.score, h.score) {
            (PlyScore::Cp(x), PlyScore::Cp(y)) => assert_eq!((f64::from(x) / 2.0).round() as i16, y),
            (x, y) => assert_eq!(x, y),
        }
    }
    // Stopped after one game and resumed: the unbroken run's games.
    assert_eq!(rescore(&["--stop-after", "1"], "resumed.data").len(), 1);
    assert_eq!(rescore(&["--resume"], "resumed.data"), whole);
    // Refused in one line: an engine that does not start, an engine
    // variant unknown, a scale out of range, an engine variant without an engine.
    for (args, out) in [
        (vec!["--engine", "cmd=/no/such/engine"], "none.data"),
        (vec!["--engine", &engine, "--engine-variant", "nochess"], "x.data"),
        (vec!["--engine", &engine, "--score-percent", "0"], "x.data"),
        (vec!["--engine-variant", "chess"], "x.data"),
    ] {
        let refused = Command::new(exe)
            .args(["rescore", "--variant", "chess", "--nodes", "300", "--threads", "1"])
            .args(["--data", &path("played.data"), "--out", &path(out)])
            .args(&args)
            .output()
            .expect("runs");
        let message = String::from_utf8_lossy(&refused.stderr);
        assert!(!refused.status.success() && message.trim().lines().count() == 1, "{args:?}: {message}");
    }
}
