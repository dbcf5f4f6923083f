//! Criterion benches of the hot paths: legal move generation, the check
//! test of every move, and perft in each family of variants (the `perft`
//! subcommand gives the nodes/second figure).

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use menagerie::board::perft::perft;
use menagerie::board::position::Position;
use menagerie::board::registry::Registry;
use menagerie::rules::moves::MoveList;

fn positions() -> Vec<(&'static str, &'static str)> {
    vec![
        ("chess", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
        ("capablanca", "1nabqkbcn1/p1ppppppp1/1r6r1/1p6p1/3PP5/2N4N2/PPP2PPPPP/R1ABQKBC1R w KQ - 0 5"),
        ("clockwork", "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R[Ssp] w KQkq - 4 4"),
        ("clash1", "hrfbkmbfrh/g8g/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBUQKUBNR/3A2C3 w - - 0 1"),
        ("clash4", "l1ofkmfo1l/gh6hg/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBAQKABNR/3C2C3 b - - 0 1"),
    ]
}

fn bench_movegen(c: &mut Criterion) {
    let reg = Registry::builtin();
    for (name, fen) in positions() {
        let variant = reg.get(name).expect("shipped variant");
        let mut pos = Position::from_fen(variant, fen).expect("bench FEN");
        c.bench_function(&format!("legal_moves/{name}"), |b| {
            b.iter(|| {
                let mut list = MoveList::new();
                pos.generate_legal(&mut list);
                black_box(list.len())
            })
        });
    }
}

/// `gives_check` for every pseudo-legal move of a position: the bare-board
/// test, the same after the node's check candidates (computed each time)
/// have ruled most moves out, and playing each move and taking it back.
fn bench_gives_check(c: &mut Criterion) {
    let reg = Registry::builtin();
    for (name, fen) in positions() {
        let variant = reg.get(name).expect("shipped variant");
        let mut pos = Position::from_fen(variant, fen).expect("bench FEN");
        let mut list = MoveList::new();
        pos.generate_pseudo(&mut list);
        c.bench_function(&format!("gives_check/{name}"), |b| {
            b.iter(|| list.iter().filter(|&&m| pos.gives_check(m)).count())
        });
        c.bench_function(&format!("gives_check_among/{name}"), |b| {
            b.iter(|| {
                let candidates = pos.check_candidates().expect("a king");
                list.iter().filter(|&&m| pos.gives_check_among(m, &candidates)).count()
            })
        });
        c.bench_function(&format!("gives_check_played/{name}"), |b| {
            b.iter(|| list.iter().filter(|&&m| pos.gives_check_played(m)).count())
        });
    }
}

fn bench_perft(c: &mut Criterion) {
    let reg = Registry::builtin();
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (name, depth) in [("chess", 4), ("capablanca", 4), ("relocation", 4), ("clockwork", 3), ("clash1", 3)] {
        let mut pos = Position::startpos(reg.get(name).expect("shipped variant")).expect("start");
        group.bench_function(format!("{name}/d{depth}"), |b| b.iter(|| black_box(perft(&mut pos, depth))));
    }
    group.finish();
}

criterion_group!(benches, bench_movegen, bench_gives_check, bench_perft);
criterion_main!(benches);
