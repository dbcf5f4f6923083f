//! Criterion bench of a fixed-depth search from the Capablanca start position
//! and a Clash of Civilizations middlegame-like position, each from an empty
//! hash table.

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use menagerie::board::position::Position;
use menagerie::eval::catalogue::Catalogue;
use menagerie::eval::EvalMode;
use menagerie::search::tt::TranspositionTable;
use menagerie::search::{Limits, Search, SearchControl};

fn fixed_depth(c: &mut Criterion) {
    let catalogue = Catalogue::builtin();
    for (name, depth) in [("capablanca", 6), ("chess", 6), ("clash1", 5)] {
        let Some(variant) = catalogue.get(name) else { continue };
        let Ok(start) = Position::startpos(Arc::clone(&variant)) else { continue };
        let eval = catalogue.evaluator(&variant, EvalMode::Full);
        let limits = Limits { depth: Some(depth), multipv: 1, ..Limits::default() };
        let mut tt = TranspositionTable::new(16);
        c.bench_function(&format!("search {name} depth {depth}"), |b| {
            b.iter(|| {
                let mut pos = start.clone();
                tt.clear();
                let control = SearchControl::default();
                Search::new(&mut pos, &tt, &eval, &control, &limits).run(&mut |_| {}).nodes
            })
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = fixed_depth
}
criterion_main!(benches);
