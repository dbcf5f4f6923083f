//! The network's promises: incremental accumulators equal fresh ones after
//! every move of random games in every shipped variant (drops, conversions,
//! succession, swaps, castling, promotions, en passant included); the float
//! and quantized outputs agree within a stated bound; files round-trip and a
//! damaged or foreign one is refused. The king mirror's and king buckets'
//! networks are held to the same promises (their kings crossing the middle
//! and moving between buckets included).

use std::sync::Arc;

use super::*;
use crate::board::position::Place;
use crate::board::registry::Registry;
use crate::eval::nnue::network::{OUTPUT_SCALE, QA, QB};
use crate::rules::moves::{MoveKind, MoveList};
use crate::rules::piece::{Cell, Color, PieceKind};
use crate::rules::zobrist::SplitMix64;

/// How a test network's inputs are transformed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Inputs {
    Plain,
    KingMirror,
    KingBuckets,
    /// King buckets over the whole board ([`whole_layout`]), without the king mirror.
    WholeBuckets,
}

impl Inputs {
    const ALL: [Inputs; 4] = [Inputs::Plain, Inputs::KingMirror, Inputs::KingBuckets, Inputs::WholeBuckets];
}

/// A whole-board king bucket layout for `v`'s board (no king mirror): the
/// king's rank from its side (1, 2, 3 and beyond) times the third of the
/// files it stands on: 9 buckets.
fn whole_layout(v: &Variant) -> Vec<u8> {
    let files = v.shape.files;
    (0..v.shape.ranks).flat_map(|rank| (0..files).map(move |file| rank.min(2) * 3 + file * 3 / files)).collect()
}

/// A king bucket layout for `v`'s board that kings cross often: the king's
/// rank from its side (1, 2, 3, 4 and beyond) times the outer or inner part
/// of the left half (a-b or c-d on 8 files, a-b or c-e on 10): 8 buckets.
fn test_layout(v: &Variant) -> Vec<u8> {
    let half = v.shape.files.div_ceil(2);
    (0..v.shape.ranks).flat_map(|rank| (0..half).map(move |file| rank.min(3) * 2 + u8::from(file >= 2))).collect()
}

/// Every hidden weight of `net` drawn anew: each bucket's rows its own (a
/// copy would hide a wrong bucket).
fn redraw_hidden_weights(mut net: FloatNetwork, seed: u64) -> FloatNetwork {
    let mut rng = SplitMix64(seed);
    for w in &mut net.hidden_weights {
        *w = ((rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * 0.1;
    }
    net
}

/// A random network for `v` with the plain inputs, the king mirror or king buckets ([`test_layout`]).
fn random_network(v: &Variant, hidden: usize, activation: Activation, seed: u64, inputs: Inputs) -> FloatNetwork {
    let mut net = FloatNetwork::random(v, hidden, activation, seed);
    match inputs {
        Inputs::Plain => {}
        Inputs::KingMirror => net.header.king_mirror = true,
        Inputs::KingBuckets => net = redraw_hidden_weights(net.with_king_buckets(&test_layout(v)), seed ^ 0xb0c4e7),
        Inputs::WholeBuckets => net = redraw_hidden_weights(net.with_king_buckets(&whole_layout(v)), seed ^ 0x3a7e11),
    }
    net
}

/// Every builtin variant with each kind of inputs.
fn variants_and_inputs() -> Vec<(String, Inputs)> {
    Registry::builtin().names().into_iter().flat_map(|n| Inputs::ALL.map(|inputs| (n.clone(), inputs))).collect()
}

/// Random legal games of `variant`, calling `visit` after every move with the
/// position and the move's kind.
fn random_games(variant: &str, games: u64, plies: usize, mut visit: impl FnMut(&Position, MoveKind)) {
    let v = Registry::builtin().get(variant).expect("variant ships");
    let mut list = MoveList::new();
    for game in 0..games {
        let mut rng = SplitMix64(0x5eed ^ game);
        let mut pos = Position::startpos(Arc::clone(&v)).expect("start position");
        for _ in 0..plies {
            pos.generate_legal(&mut list);
            if list.is_empty() || pos.game_end().is_some() {
                break;
            }
            let m = list[rng.below(list.len())];
            pos.make(m);
            visit(&pos, m.kind());
        }
    }
}

/// Follows `games` random games of `variant` with an accumulator updated
/// move by move and asserts after every move that it equals one computed
/// fresh; `visit` then sees the position, the move's kind and whether the
/// move opened a new game.
fn assert_incremental_equals_fresh(
    variant: &str,
    net: &Network,
    games: u64,
    mut visit: impl FnMut(&Position, MoveKind, bool),
) {
    let v = Registry::builtin().get(variant).expect("variant ships");
    let features = net.header.features(&v);
    let start = Position::startpos(Arc::clone(&v)).expect("start");
    let mut acc = Accumulator::new(net);
    let mut fresh = Accumulator::new(net);
    let mut first_move = true;
    random_games(variant, games, 160, |pos, kind| {
        let new_game = first_move || pos.ply_count() == 1;
        if new_game {
            // A new game: start the followed accumulator from the start position.
            acc.refresh(net, &features, &start);
            first_move = false;
        }
        acc.update(net, &features, pos);
        fresh.refresh(net, &features, pos);
        assert_eq!(acc, fresh, "{variant}: after a {kind:?} move, {}", pos.to_fen());
        visit(pos, kind, new_game);
    });
}

#[test]
fn incremental_accumulators_equal_fresh_ones_in_every_variant() {
    for (name, inputs) in variants_and_inputs() {
        let v = Registry::builtin().get(&name).expect("listed");
        let net = random_network(&v, 32, Activation::SquaredClippedRelu, 7, inputs).quantize();
        let features = net.header.features(&v);
        let start = Position::startpos(Arc::clone(&v)).expect("start");
        let mut kinds_seen = std::collections::BTreeSet::new();
        let (mut hand_changes, mut mirror_turns, mut bucket_moves) = (0, 0, 0);
        let mut before = features.views(&start);
        assert_incremental_equals_fresh(&name, &net, 12, |pos, kind, new_game| {
            if new_game {
                before = features.views(&start);
            }
            kinds_seen.insert(format!("{kind:?}"));
            hand_changes += pos.last_changes().iter().filter(|c| matches!(c.place, Place::Hand(_))).count();
            let after = features.views(pos);
            mirror_turns += usize::from(after != before);
            // A king moving to another bucket on its half: a refresh the mirror alone would not take.
            bucket_moves += (0..2).filter(|&c| after[c].flipped == before[c].flipped && after[c] != before[c]).count();
            before = after;
        });
        // The playouts exercise what the variant has.
        if v.hands {
            assert!(hand_changes > 0 && kinds_seen.contains("Drop"), "{name}: no drops in the playouts");
        }
        if v.setup.is_some() {
            assert!(kinds_seen.contains("Swap"), "{name}: no setup swaps in the playouts");
        }
        // Kings cross the middle: the refresh of one perspective is taken.
        if inputs != Inputs::Plain && v.royal.is_some() {
            assert!(mirror_turns > 10, "{name} {inputs:?}: the view changed only {mirror_turns} times");
        } else {
            assert_eq!(mirror_turns, 0, "{name}: no king mirror, no turns");
        }
        if matches!(inputs, Inputs::KingBuckets | Inputs::WholeBuckets) && v.royal.is_some() {
            assert!(bucket_moves > 10, "{name}: a king changed bucket on its half only {bucket_moves} times");
        } else {
            assert_eq!(bucket_moves, 0, "{name} {inputs:?}: no buckets, no bucket moves");
        }
    }
}

/// The shipped networks themselves (their widths, activations and bases, as
/// `variants/*.nnue` holds them): incremental equals fresh after every move
/// of random games in each variant they play.
#[test]
fn every_shipped_network_follows_random_games_incrementally() {
    let catalogue = crate::eval::catalogue::Catalogue::builtin();
    let mut checked = 0;
    for name in Registry::builtin().names() {
        let Some(net) = catalogue.network(&name) else { continue };
        let mut moves = 0;
        assert_incremental_equals_fresh(&name, net, 6, |_, _, _| moves += 1);
        assert!(moves > 100, "{name}: only {moves} moves played");
        checked += 1;
    }
    assert_eq!(checked, Registry::builtin().names().len(), "every builtin variant ships a network");
}

#[test]
fn king_succession_and_castling_are_followed() {
    // Clash 5: the king steps onto the joker (a swap of two men); chess: castling.
    for (variant, fen, mv) in [
        ("clash5", "k9/10/10/10/10/9j/10/10/1R8/R4K4 b - - 0 1", "a10j5"),
        ("chess", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1h1"),
        ("chess", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2", "e5d6"),
        ("clockwork", "4k3/8/8/8/8/8/8/4K3[Tt] w - - 0 1", "T@e4"),
        // The king crosses the middle: d1 to e1 turns White's king mirror.
        ("chess", "4k3/8/8/8/8/8/8/3K4 w - - 0 1", "d1e1"),
        // The king changes bucket on its half: up a rank; castling from e1 (d1 seen mirrored) to g1 (b1).
        ("chess", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", "e1e2"),
        ("chess", "4k3/8/8/8/8/8/8/4K2R w K - 0 1", "e1h1"),
        // Clash 5's succession from White's side: the mated king on a1 takes the joker's j6.
        ("clash5", "r4k4/1r8/10/10/9J/10/10/10/10/K9 w - - 0 1", "a1j6"),
    ] {
        for inputs in Inputs::ALL {
            let v = Registry::builtin().get(variant).expect("ships");
            let net = random_network(&v, 16, Activation::ClippedRelu, 3, inputs).quantize();
            let features = net.header.features(&v);
            let mut pos = Position::from_fen(Arc::clone(&v), fen).expect("valid FEN");
            let mut acc = Accumulator::new(&net);
            acc.refresh(&net, &features, &pos);
            let before = features.views(&pos);
            let m = pos.parse_move(mv).expect("legal move");
            pos.make(m);
            assert!(!pos.last_changes().is_empty(), "{variant} {mv}: no changes recorded");
            acc.update(&net, &features, &pos);
            let mut fresh = Accumulator::new(&net);
            fresh.refresh(&net, &features, &pos);
            assert_eq!(acc, fresh, "{variant} {mv}, {inputs:?}");
            if inputs == Inputs::KingBuckets && ["e1e2", "e1h1"].contains(&mv) {
                let white = (before[0], features.views(&pos)[0]);
                assert!(white.0.flipped == white.1.flipped && white.0.bucket != white.1.bucket, "{mv}: {white:?}");
            }
        }
    }
}

/// The king mirror does what it says: with White's king on the right half
/// (g1), White's inputs are those of the board with the files reversed
/// (king b1); with the king on the left half (d1) nothing is reversed.
/// Black's perspective follows its own king (e8: the right half of 8 files).
#[test]
fn the_king_mirror_reverses_the_files_of_a_king_on_the_right_half() {
    let v = Registry::builtin().get("chess").expect("ships");
    let plain = FeatureSet::new(&v);
    let mirrored = plain.with_king_mirror(true);
    let inputs = |features: &FeatureSet, fen: &str, perspective: Color| {
        let pos = Position::from_fen(Arc::clone(&v), fen).expect("valid FEN");
        let mut active = Vec::new();
        features.active(&pos, perspective, |i| active.push(i));
        active.sort_unstable();
        active
    };
    let white_pawn = Cell::piece(Color::White, PieceKind(0));
    let index_of = |features: &FeatureSet, flipped: bool, square: &str| {
        let view = View { flipped, bucket: 0 };
        features.index(Color::White, view, white_pawn, Place::Board(v.shape.parse_square(square).expect("square")))
    };
    // A pawn on h2 with the king on g1 is, for White, a pawn on a2 with the
    // king on b1 (and Black's king on d8 one on e8).
    let (g1, b1, d1) =
        ("3k4/8/8/8/8/8/7P/6K1 w - - 0 1", "4k3/8/8/8/8/8/P7/1K6 w - - 0 1", "3k4/8/8/8/8/8/7P/3K4 w - - 0 1");
    assert_eq!(inputs(&mirrored, g1, Color::White), inputs(&mirrored, b1, Color::White));
    assert_eq!(inputs(&mirrored, g1, Color::White), inputs(&plain, b1, Color::White));
    assert!(inputs(&mirrored, g1, Color::White).contains(&index_of(&plain, false, "a2")));
    assert_eq!(index_of(&mirrored, true, "h2"), index_of(&plain, false, "a2"));
    // The king on d1 stands on the left half: nothing changes.
    assert_eq!(inputs(&mirrored, d1, Color::White), inputs(&plain, d1, Color::White));
    assert!(inputs(&mirrored, d1, Color::White).contains(&index_of(&plain, false, "h2")));
    // Black's king on d8 (left half): Black's inputs are the plain ones; on e8 they are reversed.
    assert_eq!(inputs(&mirrored, g1, Color::Black), inputs(&plain, g1, Color::Black));
    let e8 = "4k3/8/8/8/8/8/7P/6K1 w - - 0 1";
    let e8_reversed = "3k4/8/8/8/8/8/P7/1K6 w - - 0 1";
    assert_eq!(inputs(&mirrored, e8, Color::Black), inputs(&plain, e8_reversed, Color::Black));
    assert_ne!(inputs(&mirrored, e8, Color::Black), inputs(&plain, e8, Color::Black));
    // Off, the flag changes nothing; the network's header turns it on.
    assert_eq!(FeatureSet::new(&v), plain);
    assert_eq!(plain.view(Color::White, v.shape.parse_square("h1")), View::default());
    let net = random_network(&v, 4, Activation::ClippedRelu, 1, Inputs::KingMirror);
    assert_eq!(net.header.features(&v), mirrored);
}

/// Quantization rounds each weight by at most half a step (1/510 of a unit
/// in the hidden layer, 1/256 in the output): over random games the outputs
/// of a 64-neuron network differ by 2 to 4 cp on average and never by more
/// than 12 cp (measured worst: 10.5 cp, Clockwork, clipped ReLU).
#[test]
fn float_and_quantized_outputs_agree_within_twelve_centipawns() {
    const BOUND: f32 = 12.0;
    const MEAN_BOUND: f32 = 5.0;
    for (variant, activation, outputs) in [
        ("capablanca", Activation::SquaredClippedRelu, 1),
        ("clockwork", Activation::ClippedRelu, 1),
        ("clash1", Activation::SquaredClippedRelu, 1),
        ("chess", Activation::ClippedRelu, 1),
        ("capablanca", Activation::SquaredClippedRelu, 8),
    ] {
        let v = Registry::builtin().get(variant).expect("ships");
        let float = bucketed(FloatNetwork::random(&v, 64, activation, 11), outputs, 40);
        let quantized = float.quantize();
        let (mut worst, mut total, mut count) = (0.0f32, 0.0f32, 0);
        random_games(variant, 4, 80, |pos, _| {
            let (f, q) = (evaluate_float(&float, pos), evaluate_fresh(&quantized, pos) as f32);
            worst = worst.max((f - q).abs());
            total += (f - q).abs();
            count += 1;
        });
        assert!(count > 100, "{variant}: too few positions");
        assert!(worst <= BOUND, "{variant}: float and quantized differ by {worst} cp");
        assert!(total / count as f32 <= MEAN_BOUND, "{variant}: mean difference {} cp", total / count as f32);
    }
}

/// The output summed in 32-bit runs equals the sum taken in 64 bits all
/// the way, for the shipped networks and for the largest weights an `i16`
/// holds (runs of one product: no sum of two may be taken in 32 bits).
#[test]
fn the_output_in_runs_equals_a_64_bit_sum() {
    let reference = |net: &Network, us: &[i32], them: &[i32]| -> i32 {
        let h = net.hidden();
        let activation = |x: i32| -> i64 {
            let c = i64::from(x.clamp(0, QA));
            match net.header.activation {
                Activation::ClippedRelu => c,
                Activation::SquaredClippedRelu => c * c,
            }
        };
        let mut sum: i64 = 0;
        for (i, (&a, &b)) in us.iter().zip(them).enumerate() {
            sum +=
                activation(a) * i64::from(net.output_weights[i]) + activation(b) * i64::from(net.output_weights[h + i]);
        }
        if net.header.activation == Activation::SquaredClippedRelu {
            sum /= i64::from(QA);
        }
        let out = (sum + i64::from(net.output_bias[0])) * i64::from(OUTPUT_SCALE) / i64::from(QA * QB);
        out.clamp(i64::from(i32::MIN / 2), i64::from(i32::MAX / 2)) as i32
    };
    let chess = Registry::builtin().get("chess").expect("ships");
    let mut nets: Vec<Network> = crate::eval::catalogue::SHIPPED_NNUE
        .iter()
        .map(|(_, bytes)| file::read(bytes).expect("a shipped network reads"))
        .collect();
    for activation in [Activation::ClippedRelu, Activation::SquaredClippedRelu] {
        let net = random_network(&chess, 64, activation, 3, Inputs::Plain).quantize();
        let extreme = |w: i16| {
            let weights = vec![w; net.output_weights.len()];
            Network::new(
                net.header.clone(),
                net.inputs,
                net.hidden_weights.clone(),
                net.hidden_bias.clone(),
                weights,
                net.output_bias.clone(),
            )
        };
        nets.extend([net.clone(), extreme(i16::MAX), extreme(i16::MIN)]);
    }
    let mut rng = SplitMix64(0x0a7);
    for net in &nets {
        let h = net.hidden();
        for _ in 0..200 {
            // Sums below 0, inside 0..=QA and above it; every fourth draw at QA.
            let mut draw = || if rng.below(4) == 0 { QA } else { rng.below(3 * QA as usize) as i32 - QA / 2 };
            let us: Vec<i32> = (0..h).map(|_| draw()).collect();
            let them: Vec<i32> = (0..h).map(|_| draw()).collect();
            assert_eq!(net.output(&us, &them, 0), reference(net, &us, &them), "{}", net.header.variant);
        }
    }
}

/// `net` with `outputs` output buckets over `men` men, each bucket's
/// output made different from the others (a copy would hide a wrong bucket).
fn bucketed(net: FloatNetwork, outputs: usize, men: usize) -> FloatNetwork {
    let mut net = net.with_output_buckets(outputs, men);
    let per_bucket = 2 * net.header.hidden;
    for (i, w) in net.output_weights.iter_mut().enumerate() {
        *w *= 1.0 - 0.02 * (i / per_bucket) as f32;
    }
    for (b, bias) in net.output_bias.iter_mut().enumerate() {
        *bias += 0.02 * b as f32;
    }
    net
}

#[test]
fn output_buckets_split_the_men_evenly() {
    let v = Registry::builtin().get("capablanca").expect("ships");
    let net = FloatNetwork::random(&v, 8, Activation::SquaredClippedRelu, 3);
    assert_eq!((1..=40).map(|men| net.header.output_bucket(men)).collect::<Vec<_>>(), vec![0; 40]);
    let net = net.with_output_buckets(8, 40);
    let buckets: Vec<usize> = (0..=42).map(|men| net.header.output_bucket(men)).collect();
    // Five men a bucket: 1-5 in the first, 36-40 (and more) in the last.
    assert_eq!(&buckets[..7], &[0, 0, 0, 0, 0, 0, 1]);
    assert_eq!(&buckets[35..], &[6, 7, 7, 7, 7, 7, 7, 7]);
    assert!(buckets.windows(2).all(|w| w[1] == w[0] || w[1] == w[0] + 1));
    // Until trained, every bucket scores as the single output did.
    let single = FloatNetwork::random(&v, 8, Activation::SquaredClippedRelu, 3);
    let pos = Position::from_fen(Arc::clone(&v), "4k5/10/10/10/10/10/10/4K4R w - - 0 1").expect("fen");
    assert_eq!(evaluate_float(&single, &pos), evaluate_float(&net, &pos));
    assert_eq!(evaluate_fresh(&single.quantize(), &pos), evaluate_fresh(&net.quantize(), &pos));
    // A bucketed network scores the few men of this position with its first bucket.
    let mut first_only = net.clone();
    first_only.output_bias[0] += 0.5;
    assert!((evaluate_float(&first_only, &pos) - evaluate_float(&net, &pos) - 200.0).abs() < 0.01);
    let start = Position::startpos(Arc::clone(&v)).expect("start");
    assert_eq!(evaluate_float(&first_only, &start), evaluate_float(&net, &start));
}

#[test]
fn files_round_trip_and_damage_is_refused() {
    let v = Registry::builtin().get("capablanca").expect("ships");
    let mut float = FloatNetwork::random(&v, 24, Activation::SquaredClippedRelu, 5);
    float.header.data_command = "menagerie datagen --variant capablanca".to_string();
    float.header.train_command = "menagerie train --variant capablanca".to_string();
    let net = float.quantize();
    let bytes = file::write(&net);
    let back = file::read(&bytes).expect("reads back");
    assert_eq!(back, net);
    assert!(check_fits(&back, &v).is_ok());
    assert!(!String::from_utf8_lossy(&bytes).contains("\noutputs "), "one output: no outputs line");

    // With output buckets: the `outputs` line, every bucket's weights and bias.
    let buckets = bucketed(float.clone(), 8, 40).quantize();
    let bucket_bytes = file::write(&buckets);
    assert!(String::from_utf8_lossy(&bucket_bytes).contains("\noutputs 8 40\n"));
    assert_eq!(file::read(&bucket_bytes).expect("reads back"), buckets);
    assert_eq!(bucket_bytes.len() - bytes.len(), 7 * (2 * 2 * 24 + 4) + "outputs 8 40\n".len());
    for bad in ["outputs 1 40", "outputs 8", "outputs 99 40", "outputs 8 0", "outputs x 40"] {
        let text = String::from_utf8_lossy(&bucket_bytes).replace("outputs 8 40", bad);
        assert!(matches!(file::read(text.as_bytes()), Err(NetworkError::BadHeader(_))), "{bad}");
    }
    let cut = file::read(&bucket_bytes[..bucket_bytes.len() - 4]);
    assert!(matches!(cut, Err(NetworkError::Truncated { .. })), "{cut:?}");

    // The king mirror: a `transform` line after `inputs`; an unknown transform is one line of error.
    let mut mirrored = float.clone();
    mirrored.header.king_mirror = true;
    let mirrored = mirrored.quantize();
    let mirrored_bytes = file::write(&mirrored);
    assert!(String::from_utf8_lossy(&mirrored_bytes).contains("\ninputs 1280\ntransform king-mirror\n"));
    assert_eq!(file::read(&mirrored_bytes).expect("reads back"), mirrored);
    assert!(!String::from_utf8_lossy(&bytes).contains("\ntransform "), "plain inputs: no transform line");
    // (Bytes, not text: the weights are not UTF-8.)
    let line_at = mirrored_bytes.windows(9).position(|w| w == b"transform").expect("the transform line");
    let none = [&mirrored_bytes[..line_at], b"transform none", &mirrored_bytes[line_at + 21..]].concat();
    assert_eq!(file::read(&none).expect("reads"), net);
    for bad in ["transform king-mirrors", "transform", "transform horizontal"] {
        let text = String::from_utf8_lossy(&mirrored_bytes).replace("transform king-mirror", bad);
        let e = file::read(text.as_bytes()).expect_err(bad);
        assert!(matches!(e, NetworkError::BadHeader(_)) && e.to_string().lines().count() == 1, "{bad}: {e}");
    }

    let truncated = file::read(&bytes[..bytes.len() - 10]);
    assert!(matches!(truncated, Err(NetworkError::Truncated { .. })), "{truncated:?}");
    let mut longer = bytes.clone();
    longer.push(0);
    assert_eq!(file::read(&longer), Err(NetworkError::TrailingBytes(1)));
    assert_eq!(file::read(b"PK\x03\x04 a zip file"), Err(NetworkError::BadMagic));
    let text = String::from_utf8_lossy(&bytes).replace("hidden 24", "hidden x");
    assert!(matches!(file::read(text.as_bytes()), Err(NetworkError::BadHeader(_))));

    // A network for another piece set or board is refused with both named.
    let chess = Registry::builtin().get("chess").expect("ships");
    let refusal = check_fits(&back, &chess).expect_err("capablanca's network does not fit chess");
    assert!(refusal.to_string().contains("PNBRQKAC") || refusal.to_string().contains("10x8"), "{refusal}");
}

#[test]
fn black_sees_the_mirrored_board() {
    // The start position is symmetric: both perspectives see the same inputs.
    let v = Registry::builtin().get("chess").expect("ships");
    let pos = Position::startpos(Arc::clone(&v)).expect("start");
    let features = FeatureSet::new(&v);
    let (mut white, mut black) = (Vec::new(), Vec::new());
    features.active(&pos, Color::White, |i| white.push(i));
    features.active(&pos, Color::Black, |i| black.push(i));
    white.sort_unstable();
    black.sort_unstable();
    assert_eq!(white, black);
    assert_eq!(white.len(), 32);
}

/// The search's stack: moves and null moves pushed, evaluations asked at
/// random depths (so several plies are brought up to date at once), and
/// moves taken back; every evaluation equals a fresh computation.
#[test]
fn the_accumulator_stack_follows_makes_unmakes_and_null_moves() {
    const PLIES: usize = 12;
    for (name, inputs) in variants_and_inputs() {
        let v = Registry::builtin().get(&name).expect("listed");
        // Output buckets (one or two men each): the stack must count the men too.
        let float = random_network(&v, 32, Activation::SquaredClippedRelu, 9, inputs);
        let net = bucketed(float, 32, 48).quantize();
        let features = net.header.features(&v);
        // Evaluations where a perspective's view differs from the nearest computed ply's: refreshes.
        let mut turned = 0;
        let mut stack = AccumulatorStack::new(&net, PLIES + 1);
        let mut rng = SplitMix64(0xacc ^ name.len() as u64);
        let mut list = MoveList::new();
        let (mut checked, mut lazy_steps) = (0, 0);
        for game in 0..6 {
            let mut pos = Position::startpos(Arc::clone(&v)).expect("start");
            stack.reset(&net, &features, &pos);
            let mut last_evaluated = features.views(&pos);
            // None marks a null move.
            let mut line: Vec<Option<crate::rules::moves::Move>> = Vec::new();
            let mut since_eval = 0;
            for _ in 0..300 {
                let ply = line.len();
                let deeper = ply < PLIES && rng.below(3) != 0;
                if deeper {
                    pos.generate_legal(&mut list);
                    let null_ok = !pos.in_setup() && !pos.in_check() && rng.below(8) == 0;
                    if null_ok {
                        pos.make_null();
                        stack.push(ply + 1, &[], features.views(&pos));
                        line.push(None);
                    } else if list.is_empty() || pos.game_end().is_some() {
                        continue;
                    } else {
                        let m = list[rng.below(list.len())];
                        pos.make(m);
                        stack.push(ply + 1, pos.last_changes(), features.views(&pos));
                        line.push(Some(m));
                    }
                    since_eval += 1;
                } else if let Some(last) = line.pop() {
                    match last {
                        Some(m) => pos.unmake(m),
                        None => pos.unmake_null(),
                    }
                    since_eval = since_eval.min(line.len());
                }
                if rng.below(2) == 0 {
                    let ply = line.len();
                    turned += usize::from(features.views(&pos) != last_evaluated);
                    last_evaluated = features.views(&pos);
                    let got = stack.evaluate(&net, &features, ply, &pos);
                    assert_eq!(got, evaluate_fresh(&net, &pos), "{name} game {game} ply {ply}: {}", pos.to_fen());
                    lazy_steps += usize::from(since_eval > 1);
                    since_eval = 0;
                    checked += 1;
                }
            }
        }
        assert!(checked > 300, "{name}: only {checked} evaluations checked");
        assert!(lazy_steps > 10, "{name}: the lazy path (several plies at once) was hardly taken");
        if inputs != Inputs::Plain && v.royal.is_some() {
            assert!(turned > 2, "{name} {inputs:?}: the view changed between evaluations only {turned} times");
        }
    }
}

/// A king walking back and forth between two buckets, men moving and
/// captured in between: each refresh after the first for a view starts from
/// what that view held before and applies only what changed, and every
/// evaluation equals a fresh computation.
#[test]
fn a_refresh_starts_from_the_sums_its_view_held_before() {
    let v = Registry::builtin().get("chess").expect("ships");
    let net = random_network(&v, 32, Activation::SquaredClippedRelu, 11, Inputs::WholeBuckets).quantize();
    let features = net.header.features(&v);
    let fen = "r3k2r/ppp2ppp/2n5/3pp3/3PP3/2N5/PPP2PPP/R3K2R w - - 0 1";
    let mut pos = Position::from_fen(Arc::clone(&v), fen).expect("fen");
    let mut stack = AccumulatorStack::new(&net, 40);
    stack.reset(&net, &features, &pos);
    // Kings step up a rank and back (another bucket each time: the layout
    // counts the king's rank), while a pawn and a knight are taken between.
    let moves = [
        "e1e2", "e8e7", "e2e1", "e7e8", "d4e5", "c6e5", "e1e2", "e8e7", "e2e1", "e7e8", "c3d5", "e5c4", "e1e2", "c4b2",
        "e2e1", "e8d7", "e1e2", "d7e8",
    ];
    for (ply, text) in moves.iter().enumerate() {
        let m = pos.parse_move(text).unwrap_or_else(|e| panic!("{text}: {e}"));
        pos.make(m);
        stack.push(ply + 1, pos.last_changes(), features.views(&pos));
        let got = stack.evaluate(&net, &features, ply + 1, &pos);
        assert_eq!(got, evaluate_fresh(&net, &pos), "after {text}: {}", pos.to_fen());
    }
    // White's king came back to a bucket 5 times, Black's 4.
    assert_eq!(stack.reused_refreshes(), 9, "{} refreshes reused", stack.reused_refreshes());
}

/// The evaluator reads the king mirror from its network's header: its
/// search stack (pushed with the evaluator's inputs) agrees with a fresh
/// computation, which `Evaluator::evaluate_with` asserts under test.
#[test]
fn an_evaluator_takes_the_king_mirror_from_its_network() {
    let v = Registry::builtin().get("chess").expect("ships");
    let net = Arc::new(random_network(&v, 16, Activation::SquaredClippedRelu, 5, Inputs::KingMirror).quantize());
    let eval = crate::eval::Evaluator::hand(&v).with_network(Arc::clone(&net));
    assert_eq!(*eval.features(), FeatureSet::new(&v).with_king_mirror(true));
    assert!(!crate::eval::Evaluator::hand(&v).features().king_mirror());
    let start = Position::startpos(Arc::clone(&v)).expect("start");
    let mut stack = AccumulatorStack::new(&net, 101);
    let mut evaluated = 0;
    random_games("chess", 3, 100, |pos, _| {
        let ply = pos.ply_count();
        if ply == 1 {
            stack.reset(&net, eval.features(), &start);
        }
        stack.push(ply, pos.last_changes(), eval.features().views(pos));
        if ply % 3 == 0 {
            eval.evaluate_with(pos, Some((&mut stack, ply)));
            evaluated += 1;
        }
    });
    assert!(evaluated > 50, "only {evaluated} evaluations");
}

/// Capablanca's example layout of `docs/nnue.md`: on the first rank a-b and
/// c-e, then the second rank, then the rest (4 buckets).
fn capablanca_layout() -> Vec<u8> {
    let mut layout = vec![0, 0, 1, 1, 1];
    layout.extend([2; 5]);
    layout.extend([3; 30]);
    layout
}

/// King buckets do what they say: a perspective's inputs are the
/// king-mirrored ones offset by its king's bucket times the base inputs,
/// hands included; ranks count from the perspective's own side, and a
/// king on the right half takes the bucket of its mirrored square.
#[test]
fn king_buckets_offset_every_input_by_the_kings_bucket() {
    let inputs = |features: &FeatureSet, pos: &Position, perspective: Color| {
        let mut active = Vec::new();
        features.active(pos, perspective, |i| active.push(i));
        active.sort_unstable();
        active
    };
    for (variant, fen, white_bucket, black_bucket) in [
        // White's king on c1 (the inner part of rank 1), Black's on e8 (mirrored d8: inner, rank 1 from its side).
        ("chess", "4k3/8/8/8/8/8/7P/2K5 w - - 0 1", 1, 1),
        // White's king on g3 (mirrored b3: outer, rank 3), Black's on a5 (rank 4 from its side).
        ("chess", "8/8/8/k7/8/6K1/7P/8 w - - 0 1", 4, 6),
        // Hands: every hand input moves with the bucket too.
        ("clockwork", "4k3/8/8/8/8/8/8/1K6[TTnq] w - - 0 1", 0, 1),
        ("capablanca", "5k4/10/10/10/10/10/2P7/1K8 w - - 0 1", 0, 1),
    ] {
        let v = Registry::builtin().get(variant).expect("ships");
        let layout = test_layout(&v);
        let mirrored = FeatureSet::new(&v).with_king_mirror(true);
        let bucketed = FeatureSet::new(&v).with_king_buckets(&layout);
        assert!(bucketed.king_mirror() && bucketed.buckets() == 8 && bucketed.len() == 8 * mirrored.len());
        assert_eq!(bucketed.base_len(), FeatureSet::new(&v).len());
        assert_eq!(FeatureSet::new(&v).with_king_buckets(&[]), FeatureSet::new(&v), "an empty layout: no buckets");
        let pos = Position::from_fen(Arc::clone(&v), fen).expect("valid FEN");
        for (perspective, bucket) in [(Color::White, white_bucket), (Color::Black, black_bucket)] {
            let view = bucketed.view_of(&pos, perspective);
            assert_eq!(view.bucket, bucket, "{variant} {fen} {perspective:?}");
            assert_eq!(view.flipped, mirrored.view_of(&pos, perspective).flipped);
            let offset: Vec<usize> = inputs(&mirrored, &pos, perspective)
                .iter()
                .map(|i| i + usize::from(bucket) * bucketed.base_len())
                .collect();
            assert_eq!(inputs(&bucketed, &pos, perspective), offset, "{variant} {fen} {perspective:?}");
            assert!(offset.iter().all(|&i| i < bucketed.len()));
        }
        // No king on the board: bucket 0, not flipped.
        assert_eq!(bucketed.view(Color::White, None), View::default());
        // The network's header gives the same inputs.
        let net = FloatNetwork::random(&v, 4, Activation::ClippedRelu, 1).with_king_buckets(&layout);
        assert_eq!(net.header.features(&v), bucketed);
        assert_eq!((net.inputs, net.hidden_weights.len()), (bucketed.len(), bucketed.len() * 4));
    }
}

/// `king-buckets` round-trips through a file (with the `transform` line the
/// buckets imply); a malformed layout is one line of error, and one that
/// does not fit the variant, or an input count that does not match, is refused.
#[test]
fn king_buckets_round_trip_and_a_malformed_layout_is_one_line_of_error() {
    let v = Registry::builtin().get("capablanca").expect("ships");
    let layout = capablanca_layout();
    let float = FloatNetwork::random(&v, 8, Activation::SquaredClippedRelu, 5).with_king_buckets(&layout);
    let net = redraw_hidden_weights(float, 6).quantize();
    let bytes = file::write(&net);
    let line = format!("king-buckets 0,0,1,1,1,2,2,2,2,2,{}", vec!["3"; 30].join(","));
    assert!(String::from_utf8_lossy(&bytes).contains(&format!("\ninputs 5120\ntransform king-mirror\n{line}\n")));
    let back = file::read(&bytes).expect("reads back");
    assert_eq!(back, net);
    assert!(check_fits(&back, &v).is_ok());
    assert_eq!(back.header.features(&v), FeatureSet::new(&v).with_king_buckets(&layout));
    let pos = Position::from_fen(Arc::clone(&v), "5k4/10/10/10/10/10/2P7/3K6 w - - 0 1").expect("fen");
    assert_eq!(evaluate_fresh(&back, &pos), evaluate_fresh(&net, &pos));
    // A whole-board layout (80 numbers) round-trips without the transform line.
    let whole_layout = whole_layout(&v);
    let whole = FloatNetwork::random(&v, 8, Activation::SquaredClippedRelu, 5).with_king_buckets(&whole_layout);
    let whole = redraw_hidden_weights(whole, 7).quantize();
    let whole_bytes = file::write(&whole);
    let whole_text = String::from_utf8_lossy(&whole_bytes).to_string();
    assert!(
        whole_text.contains("\ninputs 11520\nking-buckets 0,0,0,0,1,1,1,2,2,2,3,") && !whole_text.contains("transform")
    );
    let whole_back = file::read(&whole_bytes).expect("reads back");
    assert_eq!(whole_back, whole);
    assert!(check_fits(&whole_back, &v).is_ok() && !whole_back.header.features(&v).king_mirror());
    assert_eq!(evaluate_fresh(&whole_back, &pos), evaluate_fresh(&whole, &pos));

    let text = String::from_utf8_lossy(&bytes).to_string();
    let short = line.trim_end_matches(",3").to_string() + ",3".repeat(29).as_str();
    let cases = [
        (short, "39 entries, the 10x8 board's left half has 40 (5 files x 8 ranks)"),
        (format!("{line},3"), "41 entries"),
        (line.replacen(",1,", ",x,", 1), "entry 3 'x' is not a bucket number (0 to 99)"),
        (line.replacen("0,", "-1,", 1), "entry 1 '-1' is not"),
        (line.replacen(",1,", ",300,", 1), "entry 3 '300' is not"),
        (line.replace(",3", ",4"), "no square has bucket 3"),
        ("king-buckets".to_string(), "entry 1 '' is not"),
        (line.replacen(',', ";", 1), "entry 1 '0;0' is not"),
    ];
    for (bad, why) in &cases {
        let e = file::read(text.replace(&line, bad).as_bytes()).expect_err(bad);
        assert!(matches!(e, NetworkError::BadHeader(_)), "{bad}: {e}");
        assert!(e.to_string().lines().count() == 1 && e.to_string().contains(why), "{bad}: {e}");
    }
    // The layout fits the header's board, not chess's; other inputs than its buckets give are refused.
    let chess = Registry::builtin().get("chess").expect("ships");
    assert!(check_fits(&back, &chess).is_err());
    let mut fewer = back.clone();
    fewer.header.king_buckets = vec![0; 40];
    let e = check_fits(&fewer, &v).expect_err("one bucket's inputs, four buckets' rows");
    assert!(e.to_string().contains("5120 inputs") && e.to_string().lines().count() == 1, "{e}");
    let mut wrong = back.clone();
    wrong.header.king_buckets.pop();
    let e = check_fits(&wrong, &v).expect_err("39 entries");
    assert!(e.to_string().contains("king-buckets: 39 entries") && e.to_string().lines().count() == 1, "{e}");
}

/// `train --init` into king buckets: every bucket a copy of the source's
/// rows, so the bucketed network scores every position of random games
/// exactly as the king-mirrored source does (float and quantized); a plain
/// source scores as itself with the king mirror. Into a layout that refines
/// the source's buckets, it scores as the source too.
#[test]
fn a_network_expanded_into_king_buckets_scores_as_its_source() {
    for variant in ["chess", "capablanca", "clockwork", "clash5"] {
        let v = Registry::builtin().get(variant).expect("ships");
        let layout = test_layout(&v);
        let mirrored = random_network(&v, 16, Activation::SquaredClippedRelu, 21, Inputs::KingMirror);
        let plain = random_network(&v, 16, Activation::SquaredClippedRelu, 21, Inputs::Plain);
        // Two buckets (the first rank, the rest), each its own rows; the test layout splits both.
        let coarse: Vec<u8> = layout.iter().map(|&b| u8::from(b >= 2)).collect();
        let two = redraw_hidden_weights(mirrored.clone().with_king_buckets(&coarse), 22);
        for (source, expected) in [(&mirrored, &mirrored), (&plain, &mirrored), (&two, &two)] {
            let expanded = source.clone().with_king_buckets(&layout);
            assert_eq!((expanded.inputs, expanded.header.king_bucket_count()), (8 * plain.inputs, 8));
            assert!(expanded.header.king_mirror);
            let (expanded_q, expected_q) = (expanded.quantize(), expected.quantize());
            let mut compared = 0;
            random_games(variant, 3, 120, |pos, _| {
                assert_eq!(
                    evaluate_float(&expanded, pos),
                    evaluate_float(expected, pos),
                    "{variant}: {}",
                    pos.to_fen()
                );
                assert_eq!(evaluate_fresh(&expanded_q, pos), evaluate_fresh(&expected_q, pos));
                compared += 1;
            });
            assert!(compared > 100, "{variant}: {compared} positions");
        }
        // A whole-board layout needs no king mirror: the plain network
        // expanded into it scores exactly as the plain network.
        let whole = plain.clone().with_king_buckets(&whole_layout(&v));
        assert!(!whole.header.king_mirror && !whole.header.buckets_mirror());
        assert_eq!(whole.header.king_bucket_count(), 9);
        let (whole_q, plain_q) = (whole.quantize(), plain.quantize());
        let mut compared = 0;
        random_games(variant, 3, 120, |pos, _| {
            assert_eq!(evaluate_float(&whole, pos), evaluate_float(&plain, pos), "{variant}: {}", pos.to_fen());
            assert_eq!(evaluate_fresh(&whole_q, pos), evaluate_fresh(&plain_q, pos));
            compared += 1;
        });
        assert!(compared > 100, "{variant}: {compared} positions");
        // The same layout again changes nothing; the two-bucket network is not the one-bucket one.
        assert_eq!(two.clone().with_king_buckets(&coarse), two);
        let start = Position::startpos(Arc::clone(&v)).expect("start");
        assert_ne!(evaluate_float(&two, &start), evaluate_float(&mirrored, &start));
    }
}

/// A network widened with new neurons scores every position of random
/// games as its source did, float and quantized alike, whatever its inputs
/// and output buckets; the new neurons' input weights are drawn (so they
/// have activations to learn from), their output weights are zero.
#[test]
fn a_widened_network_scores_as_its_source() {
    for (variant, inputs) in
        [("capablanca", Inputs::WholeBuckets), ("clockwork", Inputs::KingMirror), ("chess", Inputs::Plain)]
    {
        let v = Registry::builtin().get(variant).expect("ships");
        let source = bucketed(random_network(&v, 16, Activation::SquaredClippedRelu, 31, inputs), 4, 32);
        let wide = source.clone().with_hidden(40, 32);
        assert_eq!((wide.header.hidden, wide.hidden_bias.len()), (40, 40));
        assert_eq!((wide.hidden_weights.len(), wide.output_weights.len()), (40 * source.inputs, 4 * 2 * 40));
        // Each input row: the source's 16 weights, then 24 new ones, not all zero.
        for (row, old) in wide.hidden_weights.chunks_exact(40).zip(source.hidden_weights.chunks_exact(16)) {
            assert_eq!(&row[..16], old);
            assert!(row[16..].iter().any(|&w| w != 0.0) && row[16..].iter().all(|w| w.abs() <= 0.1));
        }
        for (half, old) in wide.output_weights.chunks_exact(40).zip(source.output_weights.chunks_exact(16)) {
            assert_eq!((&half[..16], half[16..].iter().all(|&w| w == 0.0)), (old, true));
        }
        let (wide_q, source_q) = (wide.quantize(), source.quantize());
        let mut compared = 0;
        random_games(variant, 3, 120, |pos, _| {
            assert_eq!(evaluate_float(&wide, pos), evaluate_float(&source, pos), "{variant}: {}", pos.to_fen());
            assert_eq!(evaluate_fresh(&wide_q, pos), evaluate_fresh(&source_q, pos), "{variant}: {}", pos.to_fen());
            compared += 1;
        });
        assert!(compared > 100, "{variant}: {compared} positions");
        // No wider: the network as it was.
        assert_eq!(source.clone().with_hidden(16, 32), source);
        assert_eq!(source.clone().with_hidden(8, 32), source);
    }
}
