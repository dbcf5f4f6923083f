//! `Position::is_pseudo_legal` against the generator, over random playouts
//! in every shipped variant (fixed seeds): at each position it accepts every
//! generated pseudo-legal move, and for moves taken from other positions of
//! any playout or variant (what a transposition-table collision delivers),
//! for king successions and for corrupted bit patterns it answers exactly
//! whether the move is in the generated list.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use menagerie::board::position::Position;
use menagerie::board::registry::Registry;
use menagerie::rules::moves::{Move, MoveList};

const GAMES: usize = 20;
const MAX_PLIES: usize = 120;
/// Foreign moves asked about at each position.
const FOREIGN: usize = 200;
/// Corrupted moves asked about at each position.
const CORRUPT: usize = 60;

/// Random playouts of every variant: the positions met and every move
/// (pseudo-legal or legal) generated on the way.
fn collect(rng: &mut StdRng) -> (Vec<(String, Position)>, Vec<Move>) {
    let registry = Registry::builtin();
    let mut positions = Vec::new();
    let mut pool = Vec::new();
    for name in registry.names() {
        let variant = registry.get(&name).expect("listed variant");
        for _ in 0..GAMES {
            let mut pos = Position::startpos(variant.clone()).expect("start FEN");
            for _ in 0..MAX_PLIES {
                let mut pseudo = MoveList::new();
                pos.generate_pseudo(&mut pseudo);
                let mut legal = MoveList::new();
                pos.generate_legal(&mut legal);
                pool.extend(pseudo.iter().copied());
                pool.extend(legal.iter().copied());
                positions.push((name.clone(), pos.clone()));
                if legal.is_empty() {
                    break;
                }
                pos.make(legal[rng.gen_range(0..legal.len())]);
            }
        }
    }
    pool.sort_by_key(|m| m.bits());
    pool.dedup();
    (positions, pool)
}

/// `m` with its bits disturbed: one flipped bit, a new kind or piece field,
/// or any nonzero pattern.
fn corrupt(m: Move, rng: &mut StdRng) -> Option<Move> {
    let bits = m.bits();
    let changed = match rng.gen_range(0..4) {
        0 => bits ^ 1 << rng.gen_range(0..32),
        1 => bits & !(7 << 16) | rng.gen_range(0..8u32) << 16,
        2 => bits & !(31 << 20) | rng.gen_range(0..32u32) << 20,
        _ => rng.gen(),
    };
    Move::from_bits(changed)
}

#[test]
fn is_pseudo_legal_agrees_with_the_generator() {
    let mut rng = StdRng::seed_from_u64(0x5eed_91c4);
    let (positions, pool) = collect(&mut rng);
    assert!(pool.len() > 1000, "too few moves collected: {}", pool.len());
    let mut accepted_foreign = 0;
    let mut rejected = 0;
    for (name, pos) in &positions {
        let fen = pos.to_fen();
        let mut pseudo = MoveList::new();
        pos.generate_pseudo(&mut pseudo);
        let mut legal = pos.clone();
        let mut legal_list = MoveList::new();
        legal.generate_legal(&mut legal_list);
        let check = |m: Move| {
            let expected = pseudo.contains(&m);
            assert_eq!(pos.is_pseudo_legal(m), expected, "{name}: {m:?} (bits {:#x}) at {fen}", m.bits());
            expected
        };
        for &m in pseudo.iter().chain(&legal_list) {
            check(m);
        }
        for _ in 0..FOREIGN {
            if check(pool[rng.gen_range(0..pool.len())]) {
                accepted_foreign += 1;
            } else {
                rejected += 1;
            }
        }
        for _ in 0..CORRUPT {
            let base = if pseudo.is_empty() {
                pool[rng.gen_range(0..pool.len())]
            } else {
                pseudo[rng.gen_range(0..pseudo.len())]
            };
            if let Some(m) = corrupt(base, &mut rng) {
                if !check(m) {
                    rejected += 1;
                }
            }
        }
    }
    // Both answers must have been exercised on foreign moves.
    assert!(accepted_foreign > 100 && rejected > 1000, "accepted {accepted_foreign}, rejected {rejected}");
}
