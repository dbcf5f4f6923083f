//! The trainer: it fits a synthetic target (material balance, which the
//! inputs can express exactly) to a stated loss, gives the same network for
//! a seed whatever the number of threads, and writes a network the engine
//! reads back.

mod common;

use std::sync::Arc;

use menagerie::board::position::Position;
use menagerie::board::registry::Registry;
use menagerie::eval::nnue::data::{encode, write_block, DataHeader, DataSet};
use menagerie::eval::nnue::network::Activation;
use menagerie::eval::nnue::{check_fits, evaluate_float, file};
use menagerie::rules::moves::MoveList;
use menagerie::rules::piece::Color;
use menagerie::rules::zobrist::SplitMix64;
use menagerie::training::train::{train, TrainPlan};

/// Positions of random chess games scored by material alone (White's view,
/// pawn 100, knight and bishop 300, rook 500, queen 900).
fn material_data(games: u64) -> (Vec<Position>, DataSet) {
    let v = Registry::builtin().get("chess").expect("ships");
    let value = |letter: char| match letter.to_ascii_uppercase() {
        'P' => 100,
        'N' | 'B' => 300,
        'R' => 500,
        'Q' => 900,
        _ => 0,
    };
    let mut list = MoveList::new();
    let (mut positions, mut bytes) = (Vec::new(), Vec::new());
    for game in 0..games {
        let mut rng = SplitMix64(100 + game);
        let mut pos = Position::startpos(Arc::clone(&v)).expect("start");
        for _ in 0..60 {
            pos.generate_legal(&mut list);
            if list.is_empty() {
                break;
            }
            pos.make(list[rng.below(list.len())]);
            let mut score = 0;
            for &sq in pos.squares() {
                let cell = pos.cell(sq);
                if cell.is_piece() {
                    let sign = if cell.color() == Color::White { 1 } else { -1 };
                    score += sign * value(v.pieces[cell.kind().index()].letter);
                }
            }
            encode(&pos, score, 0.5, &mut bytes);
            positions.push(pos.clone());
        }
    }
    let file = write_block(&DataHeader::new(&v, "material", positions.len()), &bytes);
    (positions, DataSet::read(file, &v).expect("reads"))
}

/// The bytes of [`material_data`]'s set, as one record block.
fn material_file(games: u64) -> Vec<u8> {
    let v = Registry::builtin().get("chess").expect("ships");
    let (_, data) = material_data(games);
    let bytes: Vec<u8> = (0..data.len()).flat_map(|i| data.record(i).as_bytes().to_vec()).collect();
    write_block(&DataHeader::new(&v, "material", data.len()), &bytes)
}

/// King buckets for chess: the first rank's a-b and c-d, the second rank, the rest.
fn chess_layout() -> Vec<u8> {
    let mut layout = vec![0, 0, 1, 1, 2, 2, 2, 2];
    layout.extend([3; 24]);
    layout
}

fn plan(threads: usize) -> TrainPlan {
    TrainPlan {
        hidden: 16,
        activation: Activation::ClippedRelu,
        epochs: 30,
        batch: 256,
        rate: 0.01,
        final_rate: 0.001,
        lambda: 0.0,
        validation: 0.1,
        threads,
        seed: 3,
        shuffle: 1 << 20,
        mirror: false,
        king_mirror: false,
        king_buckets: Vec::new(),
        weight_decay: 0.0,
        init: None,
        outputs: (1, 0),
    }
}

/// The loss is squared error in win probability: 0.0005 is an error of about
/// 0.022, some 15 cp near equality. A constant guess scores near 0.02 here.
#[test]
fn the_trainer_fits_material_to_a_stated_loss() {
    let (_, data) = material_data(600);
    let v = Registry::builtin().get("chess").expect("ships");
    let mut reports = Vec::new();
    let net = train(&v, &data, &plan(2), |r| reports.push(r), |_, _, _| {});
    let (first, last) = (reports[0], *reports.last().expect("epochs ran"));
    assert_eq!(reports.len(), 30);
    assert!(last.validation_loss < 0.0005, "validation loss {}", last.validation_loss);
    assert!(last.validation_loss < first.validation_loss / 4.0, "{first:?} -> {last:?}");
    // The network itself now counts material: a queen up is worth about 900 cp.
    let queen_up =
        Position::from_fen(Arc::clone(&v), "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").expect("valid");
    let score = evaluate_float(&net, &queen_up);
    assert!((600.0..1200.0).contains(&score), "queen up scores {score}");
}

#[test]
fn a_seed_gives_the_same_network_whatever_the_threads() {
    let (_, data) = material_data(10);
    let v = Registry::builtin().get("chess").expect("ships");
    let short = TrainPlan { epochs: 2, ..plan(1) };
    let one = train(&v, &data, &short, |_| {}, |_, _, _| {});
    let three = train(&v, &data, &TrainPlan { threads: 3, ..short.clone() }, |_| {}, |_, _, _| {});
    assert_eq!(one, three);
    let other_seed = train(&v, &data, &TrainPlan { seed: 4, ..short }, |_| {}, |_, _, _| {});
    assert_ne!(one, other_seed);
}

#[test]
fn a_trained_network_is_written_and_read_back() {
    let (positions, data) = material_data(4);
    let v = Registry::builtin().get("chess").expect("ships");
    let float = train(&v, &data, &TrainPlan { epochs: 1, ..plan(2) }, |_| {}, |_, _, _| {});
    let net = file::read(&file::write(&float.quantize())).expect("reads back");
    assert!(check_fits(&net, &v).is_ok());
    // Quantized and float agree on the training positions (the stated bound of the network tests).
    for pos in positions.iter().take(50) {
        let (f, q) = (evaluate_float(&float, pos), menagerie::eval::nnue::evaluate_fresh(&net, pos) as f32);
        assert!((f - q).abs() <= 12.0, "{f} vs {q} at {}", pos.to_fen());
    }
}

/// `--mirror` trains on each position with its files reversed: a record's
/// mirrored inputs are exactly those of the mirrored position, with the
/// king mirror too (whose king is then the mirrored position's).
#[test]
fn mirrored_records_are_the_positions_with_files_reversed() {
    let v = Registry::builtin().get("chess").expect("ships");
    let plain = menagerie::eval::nnue::FeatureSet::new(&v);
    let (positions, data) = material_data(3);
    assert_eq!(positions.len(), data.len());
    for (i, pos) in positions.iter().enumerate() {
        let fen = pos.to_fen();
        let mut fields = fen.split(' ');
        let board: Vec<String> =
            fields.next().expect("board").split('/').map(|rank| rank.chars().rev().collect()).collect();
        let side = fields.next().expect("side");
        let mirrored_fen = format!("{} {side} - - 0 1", board.join("/"));
        let mirrored = Position::from_fen(Arc::clone(&v), &mirrored_fen).expect("the mirror is a position");
        // A record read back is the position (castling, en passant and clocks are not kept).
        let board_and_side: Vec<&str> = fen.split(' ').take(2).collect();
        let record = data.record(i);
        let back = record.position(&v, false).expect("a position");
        assert_eq!(back.to_fen(), format!("{} - - 0 1", board_and_side.join(" ")));
        assert_eq!(record.position(&v, true).expect("the mirror is a position").to_fen(), mirrored.to_fen());
        let bucketed = plain.with_king_buckets(&chess_layout());
        for (features, perspective) in [plain, plain.with_king_mirror(true), bucketed]
            .into_iter()
            .flat_map(|f| [(f, Color::White), (f, Color::Black)])
        {
            let (mut from_record, mut from_position) = (Vec::new(), Vec::new());
            data.record(i).active_mirrored(&features, perspective, true, |f| from_record.push(f));
            features.active(&mirrored, perspective, |f| from_position.push(f));
            from_record.sort_unstable();
            from_position.sort_unstable();
            assert_eq!(from_record, from_position, "{fen} mirrored is {mirrored_fen}");
        }
    }
}

/// On a base, the network learns what the base misses: the material-only
/// evaluation counts knights and bishops as the variant file does (320,
/// 330), the target as 300; the trained network on that base ends below
/// the base's own loss, and the file says it plays added to the base.
#[test]
fn a_network_on_a_linear_base_learns_what_the_base_misses() {
    use menagerie::eval::Evaluator;
    use menagerie::training::train::{linear_loss, train_on_base};
    let (positions, data) = material_data(300);
    let v = Registry::builtin().get("chess").expect("ships");
    let base = Evaluator::material_only(&v);
    let plan = TrainPlan { epochs: 10, ..plan(2) };
    let base_loss = linear_loss(&data, &plan, &base);
    let mut reports = Vec::new();
    let float = train_on_base(&v, &data, &plan, Some(&base), |r| reports.push(r), |_, _, _| {});
    let best = reports.iter().map(|r| r.validation_loss).fold(f64::INFINITY, f64::min);
    assert!(base_loss > 0.0 && best < base_loss * 0.8, "network on the base {best}, base alone {base_loss}");
    let net = file::read(&file::write(&float.quantize())).expect("reads back");
    assert!(net.header.linear_base);
    // Played on the base: the evaluator adds the base to the network.
    let played = base.clone().with_network(Arc::new(net.clone()));
    for pos in positions.iter().take(20) {
        assert_eq!(played.evaluate(pos), base.linear(pos) + menagerie::eval::nnue::evaluate_fresh(&net, pos));
    }
}

/// `--init`: a run starts from the given network. A float network read back
/// from its file quantizes to the same file; with a vanishing step size the
/// run ends where it started, while a random start with the same plan does
/// not; the same weights king-mirrored or in king buckets score as each other.
#[test]
fn a_run_can_start_from_a_trained_network() {
    let (positions, data) = material_data(10);
    let v = Registry::builtin().get("chess").expect("ships");
    let first = train(&v, &data, &TrainPlan { epochs: 2, ..plan(2) }, |_| {}, |_, _, _| {}).quantize();
    let read = file::read(&file::write(&first)).expect("reads back");
    assert_eq!(read.dequantize().quantize(), first);
    let still = TrainPlan { epochs: 1, rate: 1e-12, final_rate: 1e-12, ..plan(2) };
    let resumed = train(&v, &data, &TrainPlan { init: Some(read.dequantize()), ..still.clone() }, |_| {}, |_, _, _| {});
    assert_eq!(resumed.quantize(), first);
    let fresh = train(&v, &data, &still, |_| {}, |_, _, _| {});
    assert_ne!(fresh.quantize(), first);
    // The run decides the inputs' transform: the same weights, now king-mirrored, score otherwise.
    let turned = TrainPlan { init: Some(read.dequantize()), king_mirror: true, ..still.clone() };
    let turned = train(&v, &data, &turned, |_| {}, |_, _, _| {}).quantize();
    assert!(turned.header.king_mirror && !first.header.king_mirror);
    assert_eq!((&turned.hidden_weights, &turned.output_weights), (&first.hidden_weights, &first.output_weights));
    let start = Position::startpos(Arc::clone(&v)).expect("start");
    let fresh_score = menagerie::eval::nnue::evaluate_fresh;
    assert_ne!(fresh_score(&turned, &start), fresh_score(&first, &start), "kings on e1 and e8 turn both mirrors");
    // Into king buckets: each bucket starts as a copy of the network's rows, so the run starts
    // from (and, with no step, ends at) its king-mirrored scores, on every position.
    let bucketed = TrainPlan { init: Some(read.dequantize()), king_buckets: chess_layout(), ..still.clone() };
    let bucketed = train(&v, &data, &bucketed, |_| {}, |_, _, _| {}).quantize();
    assert_eq!((bucketed.inputs, bucketed.header.king_buckets.clone()), (4 * first.inputs, chess_layout()));
    assert!(positions.len() > 100);
    for pos in &positions {
        assert_eq!(fresh_score(&bucketed, pos), fresh_score(&turned, pos), "{}", pos.to_fen());
    }
    // Continuing with a real step size goes on lowering the loss from where the first run stopped.
    let mut losses = Vec::new();
    train(
        &v,
        &data,
        &TrainPlan { epochs: 1, init: Some(read.dequantize()), ..plan(2) },
        |r| losses.push(r),
        |_, _, _| {},
    );
    let mut first_losses = Vec::new();
    train(&v, &data, &TrainPlan { epochs: 1, ..plan(2) }, |r| first_losses.push(r), |_, _, _| {});
    assert!(losses[0].validation_loss < first_losses[0].validation_loss, "{losses:?} vs {first_losses:?}");
}

/// `menagerie train` reads its files as a stream: two files train the
/// network their concatenation does in memory, and a shuffle buffer far
/// smaller than the data still gives a seed's network whatever the threads.
#[test]
fn files_read_as_a_stream_train_the_network_the_data_set_does() {
    use menagerie::training::source::DataFiles;
    let dir = common::TempDir::new("stream");
    let v = Registry::builtin().get("chess").expect("ships");
    let bytes = material_file(10);
    let (a, b) = (dir.join("a.data"), dir.join("b.data"));
    std::fs::write(&a, &bytes).expect("written");
    std::fs::write(&b, &bytes).expect("written");
    let in_memory = DataSet::read([&bytes[..], &bytes[..]].concat(), &v).expect("reads");
    let files = DataFiles { paths: vec![a, b], variant: Arc::clone(&v), filter: Default::default() };
    let short = TrainPlan { epochs: 2, ..plan(2) };
    let mut reports = (Vec::new(), Vec::new());
    let streamed = train(&v, &files, &short, |r| reports.0.push(r), |_, _, _| {});
    assert_eq!(streamed, train(&v, &in_memory, &short, |r| reports.1.push(r), |_, _, _| {}));
    assert_eq!(reports.0, reports.1);
    assert!(reports.0[0].validation_loss > 0.0, "some games are held out");
    let small = TrainPlan { shuffle: 50, ..short.clone() };
    let one = train(&v, &files, &TrainPlan { threads: 1, ..small.clone() }, |_| {}, |_, _, _| {});
    assert_eq!(one, train(&v, &files, &TrainPlan { threads: 3, ..small }, |_| {}, |_, _, _| {}));
    assert_ne!(one, streamed, "the buffer's size changes the order");
}

/// A run's state kept between epochs (through a checkpoint's bytes) goes
/// on to the very state of the unbroken run: weights, Adam's moments and
/// steps, the shuffle's generator, the best epoch. Losing Adam's state or
/// the generator would show: each gives another network. With king
/// buckets as without.
#[test]
fn a_state_saved_between_epochs_goes_on_to_the_unbroken_run() {
    use menagerie::training::checkpoint;
    use menagerie::training::math::Adam;
    use menagerie::training::train::{parameter_count, train_from, TrainState, ADAM_EPSILON};
    let (_, data) = material_data(10);
    let v = Registry::builtin().get("chess").expect("ships");
    // A buffer smaller than the data: the order depends on the generator.
    let mirrored = TrainPlan { epochs: 4, shuffle: 60, mirror: true, ..plan(2) };
    // King buckets: their layout goes through the checkpoint too.
    let bucketed = TrainPlan { mirror: false, king_buckets: chess_layout(), ..mirrored.clone() };
    for plan in [mirrored, bucketed] {
        let run = |start: TrainState, stop: usize| {
            let mut reports = Vec::new();
            let end = train_from(
                &v,
                &data,
                &plan,
                None,
                start,
                |r, _| {
                    reports.push(r);
                    r.epoch < stop
                },
                |_, _, _| {},
            );
            (end, reports)
        };
        let (unbroken, all) = run(TrainState::new(&v, &plan, false), usize::MAX);
        assert_eq!(all.len(), 4);
        assert_eq!(unbroken.net.header.king_buckets, plan.king_buckets);
        let (stopped, first) = run(TrainState::new(&v, &plan, false), 2);
        assert_eq!((stopped.epoch, first.len()), (2, 2));
        let settings = vec![("--seed".to_string(), "3".to_string())];
        let saved = checkpoint::read(&checkpoint::write(&settings, &stopped), &v).expect("reads back");
        assert_eq!((&saved.settings, &saved.state), (&settings, &stopped));
        let (resumed, rest) = run(saved.state.clone(), usize::MAX);
        assert_eq!(rest, all[2..], "only the missing epochs ran, with the unbroken run's losses");
        assert_eq!(resumed, unbroken);
        assert_eq!(resumed.network().quantize(), unbroken.clone().network().quantize());
        let fresh_adam = Adam::new(parameter_count(&stopped.net), ADAM_EPSILON);
        let (forgetful, _) = run(TrainState { adam: fresh_adam, ..saved.state.clone() }, usize::MAX);
        assert_ne!(forgetful.net, unbroken.net, "Adam's state matters");
        let (reseeded, _) = run(TrainState { rng: plan.seed + 1, ..saved.state }, usize::MAX);
        assert_ne!(reseeded.net, unbroken.net, "the generator's state matters");
    }
}

/// `d.data` in `dir`: `games` short chess games of `menagerie datagen`.
fn chess_games(dir: &std::path::Path, games: &str) -> std::path::PathBuf {
    let data = dir.join("d.data");
    let made = std::process::Command::new(env!("CARGO_BIN_EXE_menagerie"))
        .args(["datagen", "--variant", "chess", "--games", games, "--nodes", "300", "--random-plies", "6", "--out"])
        .arg(&data)
        .output()
        .expect("runs");
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    data
}

/// One line of `train`'s epoch report without its time: `epoch N: losses`.
fn epoch_lines(stderr: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(stderr);
    let lines = text.split(['\r', '\n']).map(str::trim).filter(|l| l.starts_with("epoch "));
    lines.map(|l| l.split("  (").next().unwrap_or(l).to_string()).collect()
}

/// `menagerie train --resume`: a run stopped after an epoch, resumed (on
/// other threads) and stopped again, then resumed to the end, writes the
/// unbroken run's network byte for byte, header included, running each
/// epoch once; a resume with other settings and a cut checkpoint are
/// one-line errors; `--init` takes a checkpoint.
#[test]
fn a_stopped_run_resumes_to_the_unbroken_runs_bytes() {
    use std::process::Command;
    let dir = common::TempDir::new("resume");
    let data = chess_games(&dir, "6");
    let bin = env!("CARGO_BIN_EXE_menagerie");
    let train = |cwd: &std::path::Path, extra: &[&str]| {
        let out = Command::new(bin)
            .current_dir(cwd)
            .args(["train", "--variant", "chess", "--data", data.to_str().expect("utf-8"), "--hidden", "8"])
            .args(["--epochs", "4", "--batch", "64", "--shuffle-buffer", "100", "--out", "net.nnue"])
            .args(extra)
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        (out.status.success(), stderr, epoch_lines(&out.stderr))
    };
    let (whole, parts) = (dir.join("whole"), dir.join("parts"));
    std::fs::create_dir_all(&whole).expect("made");
    std::fs::create_dir_all(&parts).expect("made");
    let (ok, stderr, unbroken) = train(&whole, &["--threads", "1"]);
    assert!(ok && unbroken.len() == 4, "{stderr}");
    let (ok, stderr, mut epochs) = train(&parts, &["--threads", "1", "--stop-after-epochs", "1"]);
    assert!(ok && !parts.join("net.nnue").exists(), "{stderr}");
    let checkpoint = parts.join("net.nnue.ckpt");
    let saved = std::fs::read(&checkpoint).expect("written after the epoch");

    let (ok, refused, _) = train(&parts, &["--resume", "--rate", "0.01"]);
    assert!(!ok && refused.trim().lines().count() == 1, "{refused}");
    assert!(refused.contains("cannot resume: made with --rate 0.003, not --rate 0.01"), "{refused}");
    let cut = parts.join("cut.ckpt");
    std::fs::write(&cut, &saved[..saved.len() / 2]).expect("written");
    let (ok, message, _) = train(&parts, &["--resume", "--checkpoint", cut.to_str().expect("utf-8")]);
    assert!(!ok && message.trim().lines().count() == 1, "{message}");
    assert!(message.contains(&format!("byte {}: truncated", saved.len() / 2)), "{message}");
    assert_eq!(std::fs::read(&checkpoint).expect("kept"), saved, "refused runs leave the checkpoint alone");

    for extra in [&["--threads", "2", "--resume", "--stop-after-epochs", "2"][..], &["--resume"]] {
        let (ok, stderr, more) = train(&parts, extra);
        assert!(ok && stderr.contains("resuming from net.nnue.ckpt after epoch"), "{stderr}");
        epochs.extend(more);
    }
    assert_eq!(epochs, unbroken, "each epoch ran once, as in the unbroken run");
    let network = std::fs::read(whole.join("net.nnue")).expect("written");
    assert_eq!(std::fs::read(parts.join("net.nnue")).expect("written"), network);
    assert_eq!(
        std::fs::read(&checkpoint).expect("written"),
        std::fs::read(whole.join("net.nnue.ckpt")).expect("written")
    );

    // `--init` a checkpoint: its network and Adam's state go on, on new data.
    let (ok, stderr, _) = train(&dir, &["--init", "parts/net.nnue.ckpt"]);
    assert!(ok, "{stderr}");
    let net = file::read(&std::fs::read(dir.join("net.nnue")).expect("written")).expect("reads");
    assert!(
        net.header.train_command.contains("--init net.nnue.ckpt (net.nnue.ckpt being: data: menagerie datagen")
            && !net.header.train_command.contains("parts/"),
        "{:?}",
        net.header
    );

    // `--king-mirror`: a network without it may start one with it; the
    // header says so and names the flag; a resume without it, and
    // `--mirror` with it, are refused in one line.
    let (ok, refused, _) = train(&parts, &["--resume", "--king-mirror"]);
    assert!(!ok && refused.trim().lines().count() == 1, "{refused}");
    assert!(refused.contains("cannot resume: made with nothing, not --king-mirror yes"), "{refused}");
    let (ok, refused, _) = train(&dir, &["--mirror", "--king-mirror"]);
    assert!(!ok && refused.trim().lines().count() == 1 && refused.contains("--mirror"), "{refused}");
    let (ok, stderr, _) = train(&dir, &["--init", "parts/net.nnue", "--king-mirror", "--stop-after-epochs", "1"]);
    assert!(ok && stderr.contains("king mirror"), "{stderr}");
    let (ok, stderr, _) = train(&dir, &["--init", "parts/net.nnue", "--king-mirror", "--resume"]);
    assert!(ok && stderr.contains("resuming from net.nnue.ckpt after epoch 1"), "{stderr}");
    let net = file::read(&std::fs::read(dir.join("net.nnue")).expect("written")).expect("reads");
    assert!(net.header.king_mirror && net.header.train_command.contains(" --king-mirror"), "{:?}", net.header);

    // `--king-buckets LIST`: a malformed list, and `--mirror` with it, are
    // refused in one line; a plain network starts a bucketed run, which
    // resumes only with the same layout and writes it to the header.
    let layout: Vec<String> = chess_layout().iter().map(u8::to_string).collect();
    let (layout, other) = (layout.join(","), layout.join(",").replacen("0,0,1,1", "0,1,1,1", 1));
    let (ok, refused, _) = train(&dir, &["--king-buckets", "0,1,1"]);
    assert!(!ok && refused.trim().lines().count() == 1, "{refused}");
    assert!(refused.contains("--king-buckets: 3 entries, the 8x8 board's left half has 32"), "{refused}");
    let (ok, refused, _) = train(&dir, &["--mirror", "--king-buckets", &layout]);
    assert!(!ok && refused.trim().lines().count() == 1 && refused.contains("--mirror"), "{refused}");
    let (ok, stderr, _) =
        train(&dir, &["--init", "parts/net.nnue", "--king-buckets", &layout, "--stop-after-epochs", "1"]);
    assert!(ok && stderr.contains("king mirror, 4 king buckets"), "{stderr}");
    let (ok, refused, _) = train(&dir, &["--init", "parts/net.nnue", "--king-buckets", &other, "--resume"]);
    assert!(!ok && refused.trim().lines().count() == 1, "{refused}");
    assert!(refused.contains(&format!("cannot resume: made with --king-buckets {layout}, not --king-buckets {other}")));
    let (ok, stderr, _) = train(&dir, &["--init", "parts/net.nnue", "--king-buckets", &layout, "--resume"]);
    assert!(ok && stderr.contains("resuming from net.nnue.ckpt after epoch 1"), "{stderr}");
    let net = file::read(&std::fs::read(dir.join("net.nnue")).expect("written")).expect("reads");
    assert!(check_fits(&net, &Registry::builtin().get("chess").expect("ships")).is_ok());
    assert_eq!((net.header.king_buckets.clone(), net.inputs), (chess_layout(), 4 * 768), "{:?}", net.header);
    assert!(net.header.king_mirror && net.header.train_command.contains(&format!(" --king-buckets {layout}")));

    // A whole-board layout (64 numbers: the first rank, the rest) needs no
    // king mirror, so `--mirror` is allowed with it and the header has none.
    let board = dir.join("wholeboard");
    std::fs::create_dir_all(&board).expect("made");
    let whole_layout = std::iter::repeat_n("0", 8).chain(std::iter::repeat_n("1", 56)).collect::<Vec<_>>().join(",");
    let (ok, stderr, _) = train(
        &board,
        &["--init", "../parts/net.nnue", "--mirror", "--king-buckets", &whole_layout, "--stop-after-epochs", "1"],
    );
    assert!(ok && stderr.contains("2 king buckets over the whole board"), "{stderr}");
    let (ok, refused, _) = train(&board, &["--init", "../net.nnue", "--king-buckets", &whole_layout]);
    assert!(!ok && refused.trim().lines().count() == 1 && refused.contains("other extent"), "{refused}");
}

/// `--hidden` above an `--init` network's width widens it (the header says
/// the new width; the run starts from the source's scores, which the
/// library's test checks position by position); a narrower one, and
/// widening a checkpoint (its optimiser state has the old shape), are
/// one-line errors.
#[test]
fn init_with_more_hidden_neurons_widens_the_network() {
    use std::process::Command;
    let dir = common::TempDir::new("widen");
    let data = chess_games(&dir, "4");
    let bin = env!("CARGO_BIN_EXE_menagerie");
    let train = |out: &str, extra: &[&str]| {
        let run = Command::new(bin)
            .current_dir(&dir)
            .args(["train", "--variant", "chess", "--data", data.to_str().expect("utf-8"), "--threads", "1"])
            .args(["--epochs", "1", "--batch", "64", "--shuffle-buffer", "100", "--out", out])
            .args(extra)
            .output()
            .expect("runs");
        (run.status.success(), String::from_utf8_lossy(&run.stderr).to_string())
    };
    let (ok, stderr) = train("narrow.nnue", &["--hidden", "8"]);
    assert!(ok, "{stderr}");
    let (ok, stderr) = train("wide.nnue", &["--init", "narrow.nnue", "--hidden", "24"]);
    assert!(ok && stderr.contains("24x2"), "{stderr}");
    let wide = file::read(&std::fs::read(dir.join("wide.nnue")).expect("written")).expect("reads");
    assert_eq!((wide.header.hidden, wide.hidden_bias.len()), (24, 24));
    assert!(check_fits(&wide, &Registry::builtin().get("chess").expect("ships")).is_ok());
    // Trained, the new neurons have found a use: their output weights moved from zero.
    assert!(wide.output_weights[8..24].iter().any(|&w| w != 0), "{:?}", &wide.output_weights[..24]);
    // Without --hidden, the --init network's width.
    let (ok, stderr) = train("same.nnue", &["--init", "narrow.nnue"]);
    assert!(ok && stderr.contains("8x2"), "{stderr}");
    for (extra, message) in [
        (&["--init", "wide.nnue", "--hidden", "16"][..], "--hidden 16 is narrower than the --init network's 24"),
        (&["--init", "narrow.nnue.ckpt", "--hidden", "16"][..], "--hidden 16 from a checkpoint of 8 hidden"),
    ] {
        let (ok, refused) = train("refused.nnue", extra);
        assert!(!ok && refused.trim().lines().count() == 1 && refused.contains(message), "{refused}");
    }
    assert!(!dir.join("refused.nnue").exists());
}

/// `--outputs`: a single-output network given output buckets starts as
/// it was (every bucket a copy of its output, so the same scores), and
/// trained on, its buckets learn apart and fit the data.
#[test]
fn output_buckets_start_from_a_single_output_and_learn_apart() {
    let (positions, data) = material_data(10);
    let v = Registry::builtin().get("chess").expect("ships");
    let first = train(&v, &data, &TrainPlan { epochs: 2, ..plan(2) }, |_| {}, |_, _, _| {});
    let still = TrainPlan { epochs: 1, rate: 1e-12, final_rate: 1e-12, init: Some(first.clone()), ..plan(2) };
    let copied = train(&v, &data, &TrainPlan { outputs: (4, 32), ..still }, |_| {}, |_, _, _| {});
    assert_eq!((copied.header.outputs, copied.header.outputs_men, copied.output_bias.len()), (4, 32, 4));
    for pos in positions.iter().take(30) {
        assert!((evaluate_float(&copied, pos) - evaluate_float(&first, pos)).abs() < 0.01);
    }
    let (mut losses, mut single) = (Vec::new(), Vec::new());
    let bucketed = train(
        &v,
        &data,
        &TrainPlan { epochs: 3, outputs: (4, 32), ..plan(2) },
        |r| losses.push(r.validation_loss),
        |_, _, _| {},
    );
    train(&v, &data, &TrainPlan { epochs: 3, ..plan(2) }, |r| single.push(r.validation_loss), |_, _, _| {});
    let h = 2 * bucketed.header.hidden;
    let moved = (1..4).filter(|&b| bucketed.output_weights[b * h..(b + 1) * h] != bucketed.output_weights[..h]).count();
    assert!(moved > 0, "the buckets trained apart");
    // Material data is learnt about as well with buckets as without.
    let (b, s) = (losses[2], single[2]);
    assert!(b < 0.02 && b < s * 1.5, "bucketed {losses:?}, single {single:?}");
    let file = file::read(&file::write(&bucketed.quantize())).expect("reads back");
    assert!(check_fits(&file, &v).is_ok() && file.header.outputs == 4);
}
