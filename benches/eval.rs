//! Criterion bench of the evaluations per node: the tuned linear evaluation
//! against the network's incremental one (a move's changes pushed, then the
//! accumulator brought up to date and the output computed, as the search
//! does), at two widths, over the positions of a fixed random game.

use std::sync::Arc;

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use menagerie::board::position::Position;
use menagerie::eval::catalogue::Catalogue;
use menagerie::eval::nnue::network::{Activation, FloatNetwork};
use menagerie::eval::nnue::AccumulatorStack;
use menagerie::eval::EvalMode;
use menagerie::rules::moves::{Move, MoveList};
use menagerie::rules::zobrist::SplitMix64;

/// The start position and 60 plies of a seeded random game from it.
fn game(start: &Position) -> Vec<Move> {
    let (mut pos, mut list, mut rng) = (start.clone(), MoveList::new(), SplitMix64(17));
    let mut moves = Vec::new();
    for _ in 0..60 {
        pos.generate_legal(&mut list);
        if list.is_empty() {
            break;
        }
        let m = list[rng.below(list.len())];
        pos.make(m);
        moves.push(m);
    }
    moves
}

fn evaluations(c: &mut Criterion) {
    let catalogue = Catalogue::builtin();
    for name in ["capablanca", "clockwork", "clash1"] {
        let Some(variant) = catalogue.get(name) else { continue };
        let Ok(start) = Position::startpos(Arc::clone(&variant)) else { continue };
        let moves = game(&start);
        let eval = catalogue.evaluator(&variant, EvalMode::Linear);
        c.bench_function(&format!("{name}: linear, {} positions", moves.len()), |b| {
            b.iter(|| {
                let mut pos = start.clone();
                let mut sum = 0;
                for &m in &moves {
                    pos.make(m);
                    sum += eval.evaluate(&pos);
                }
                black_box(sum)
            })
        });
        for hidden in [128, 256] {
            let net = FloatNetwork::random(&variant, hidden, Activation::SquaredClippedRelu, 5).quantize();
            let features = eval.features();
            let mut stack = AccumulatorStack::new(&net, moves.len() + 1);
            c.bench_function(&format!("{name}: network {hidden}x2, {} positions", moves.len()), |b| {
                b.iter(|| {
                    let mut pos = start.clone();
                    stack.reset(&net, features, &pos);
                    let mut sum = 0;
                    for (ply, &m) in moves.iter().enumerate() {
                        pos.make(m);
                        stack.push(ply + 1, pos.last_changes(), features.views(&pos));
                        sum += stack.evaluate(&net, features, ply + 1, &pos);
                    }
                    black_box(sum)
                })
            });
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = evaluations
}
criterion_main!(benches);
