//! Game blocks: a game round-trips move by move and score by score in
//! every kind of variant (setup moves, drops, successions), the filters
//! pick positions when the data is read, a damaged game names its byte, and
//! datagen writes games as they end: a stopped run keeps them and
//! `--resume` completes it to what one run makes.

mod common;

use std::process::Command;
use std::sync::Arc;

use common::TempDir;
use menagerie::board::position::Position;
use menagerie::board::registry::Registry;
use menagerie::eval::nnue::data::{encode, header_text, DataError, DataHeader, DataSet, Item, PositionReader};
use menagerie::eval::nnue::games::{Filter, Game, PlyScore};
use menagerie::rules::moves::MoveList;
use menagerie::rules::variant::Variant;
use menagerie::rules::zobrist::SplitMix64;

/// A random playout of `v` as a game (scores made up from the ply, some
/// plies random, some mates) and the positions before each ply.
fn playout(v: &Arc<Variant>, seed: u64, plies: usize) -> (Game, Vec<Position>) {
    let mut rng = SplitMix64(seed);
    let mut list = MoveList::new();
    let mut pos = Position::startpos(Arc::clone(v)).expect("start");
    let mut game = Game::new(seed as u32, None);
    let mut before = Vec::new();
    for ply in 0..plies {
        pos.generate_legal(&mut list);
        if list.is_empty() || pos.game_end().is_some() {
            break;
        }
        let m = list[rng.below(list.len())];
        let score = match ply % 7 {
            0 => PlyScore::Random,
            3 => PlyScore::Mate(ply as i16 - 20),
            _ => PlyScore::Cp(ply as i16 * 13 - 400),
        };
        before.push(pos.clone());
        assert!(game.push(&mut pos, m, score));
        pos.make(m);
    }
    game.set_result([0.0, 0.5, 1.0][seed as usize % 3]);
    (game, before)
}

/// Every game and every position a reader gives for `bytes`.
fn read_all(bytes: &[u8], v: &Arc<Variant>, filter: Filter) -> Result<(Vec<Game>, Vec<Vec<u8>>), DataError> {
    let (mut games, mut records) = (Vec::new(), Vec::new());
    PositionReader::new(v, filter).read(bytes, &mut |item| match item {
        Item::Game(game) => games.push(game.clone()),
        Item::Position(record, _) => records.push(record.as_bytes().to_vec()),
        Item::Block(_) => {}
    })?;
    Ok((games, records))
}

#[test]
fn games_round_trip_in_every_kind_of_variant() {
    for name in ["relocation", "clockwork", "clash5", "chess", "capablanca"] {
        let v = Registry::builtin().get(name).expect("ships");
        let mut bytes = header_text(&DataHeader::games(&v, "test")).into_bytes();
        let mut played = Vec::new();
        for seed in 1..4 {
            let (game, before) = playout(&v, seed, 150);
            assert!(game.plies.len() > 20, "{name}: {} plies", game.plies.len());
            game.encode(&mut bytes);
            played.push((game, before));
        }
        let all = Filter { quiet: false, ..Filter::default() };
        let (games, records) = read_all(&bytes, &v, all).expect("reads back");
        assert_eq!(games, played.iter().map(|(g, _)| g.clone()).collect::<Vec<_>>(), "{name}");
        // The positions are those played, with their scores: every scored
        // ply outside a setup, none of the random or mate plies.
        let mut expected = Vec::new();
        for (game, before) in &played {
            for (ply, pos) in game.plies.iter().zip(before) {
                if let (PlyScore::Cp(cp), false) = (ply.score, pos.in_setup()) {
                    let mut record = Vec::new();
                    encode(pos, i32::from(cp), game.white_points(), &mut record);
                    expected.push(record);
                }
            }
        }
        assert!(!expected.is_empty());
        assert_eq!(records, expected, "{name}");
        // The default filter keeps fewer: the quiet ones.
        let quiet = read_all(&bytes, &v, Filter::default()).expect("reads").1;
        assert!(quiet.len() < records.len() && !quiet.is_empty(), "{name}: {} of {}", quiet.len(), records.len());
        let bounded = Filter { quiet: false, min_ply: 10, max_score: 300 };
        let (_, few) = read_all(&bytes, &v, bounded).expect("reads");
        assert!(few.len() < records.len() && !few.is_empty(), "{name}");
    }
    // Relocation's setup moves are plies like any other.
    let relocation = Registry::builtin().get("relocation").expect("ships");
    let (_, before) = playout(&relocation, 1, 10);
    assert!(before[0].in_setup());
}

#[test]
fn a_damaged_game_names_its_byte() {
    let v = Registry::builtin().get("chess").expect("ships");
    let mut bytes = header_text(&DataHeader::games(&v, "test")).into_bytes();
    let header_len = bytes.len();
    let (first, _) = playout(&v, 1, 40);
    first.encode(&mut bytes);
    let second_at = bytes.len();
    let (second, _) = playout(&v, 2, 40);
    second.encode(&mut bytes);
    assert!(DataSet::read(bytes.clone(), &v).is_ok());

    let cut = DataSet::read(bytes[..bytes.len() - 1].to_vec(), &v).expect_err("cut");
    assert_eq!(cut, DataError::BadGame { offset: second_at, message: "ends early".to_string() });
    // Ply 5 of the first game (8 fixed bytes, no FEN, 2 bytes of count, 4 a ply) names a move that is not there.
    let mut bad = bytes.clone();
    let ply_at = header_len + 8 + 2 + 5 * 4;
    bad[ply_at..ply_at + 2].copy_from_slice(&0x3000u16.to_le_bytes());
    let error = DataSet::read(bad, &v).expect_err("bad move");
    assert!(matches!(error, DataError::BadGame { offset, .. } if offset == ply_at), "{error}");
    assert!(error.to_string().starts_with(&format!("byte {ply_at}: bad game: move index 12288 of ")), "{error}");
    let mut junk = bytes.clone();
    junk[second_at] = 0;
    let error = DataSet::read(junk, &v).expect_err("junk");
    assert!(error.to_string().starts_with(&format!("byte {second_at}: bad game")), "{error}");
    let header = String::from_utf8_lossy(&bytes[..header_len]).replace("board 8x8\n", "");
    let error = DataSet::read(header.into_bytes(), &v).expect_err("no board");
    assert_eq!(error.to_string(), "byte 0: bad header: no \"board\" line");
}

fn menagerie(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_menagerie")).args(args).output().expect("menagerie runs")
}

/// The games of a data file, in number order.
fn games_of(path: &std::path::Path) -> Vec<Game> {
    let v = Registry::builtin().get("chess").expect("ships");
    let bytes = std::fs::read(path).expect("written");
    let mut games = read_all(&bytes, &v, Filter::default()).expect("reads").0;
    games.sort_by_key(|g| g.number);
    games
}

#[test]
fn a_stopped_datagen_keeps_its_games_and_resume_completes_it() {
    let dir = TempDir::new("resume");
    let run = |out: &str, extra: &[&str]| {
        let out = dir.join(out);
        let mut args = vec!["datagen", "--variant", "chess", "--games", "5", "--nodes", "300", "--random-plies", "6"];
        args.extend_from_slice(&["--out", out.to_str().expect("utf-8")]);
        args.extend_from_slice(extra);
        let made = menagerie(&args);
        assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
        out
    };
    let whole = games_of(&run("whole.data", &["--threads", "2"]));
    assert_eq!(whole.iter().map(|g| g.number).collect::<Vec<_>>(), [0, 1, 2, 3, 4]);

    // Stopped after two games: the file holds them, as one run made them.
    let part = run("part.data", &["--threads", "1", "--stop-after", "2"]);
    assert_eq!(games_of(&part), whole[..2]);
    // Killed while writing the third: the cut game is dropped, and the resumed run plays it again.
    let bytes = std::fs::read(&part).expect("written");
    let mut third = Vec::new();
    whole[2].encode(&mut third);
    std::fs::write(&part, [&bytes[..], &third[..third.len() / 2]].concat()).expect("cut");
    run("part.data", &["--threads", "2", "--resume"]);
    assert_eq!(games_of(&part), whole);
    let checked = menagerie(&["check", part.to_str().expect("utf-8")]);
    let text = String::from_utf8_lossy(&checked.stdout);
    assert!(checked.status.success() && text.contains("from 5 games"), "{text}");

    // A resumed run must be the same run.
    let other = menagerie(&[
        "datagen",
        "--variant",
        "chess",
        "--games",
        "5",
        "--nodes",
        "301",
        "--resume",
        "--out",
        part.to_str().expect("utf-8"),
    ]);
    let message = String::from_utf8_lossy(&other.stderr);
    assert!(!other.status.success() && message.contains("cannot resume: made with"), "{message}");
}
