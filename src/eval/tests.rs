use std::sync::Arc;

use super::linear::{sign, TERM_GROUPS};
use super::*;
use crate::board::registry::Registry;
use crate::rules::moves::MoveList;

#[test]
fn start_positions_are_balanced() {
    let reg = crate::eval::catalogue::Catalogue::builtin();
    for name in reg.registry().names() {
        let Some(v) = reg.get(&name) else { continue };
        let ev = reg.evaluator(&v, EvalMode::Full);
        let Ok(pos) = Position::startpos(Arc::clone(&v)) else {
            continue;
        };
        // Everything but the tempo is taken back at the start, also
        // where the armies differ (Clash).
        let tempo = ev.weights()[ev.layout().tempo].mg;
        assert_eq!(ev.linear(&pos), tempo, "{name}");
    }
}

#[test]
fn mop_up_drives_the_lone_king_to_the_edge_and_brings_ours_closer() {
    let reg = crate::eval::catalogue::Catalogue::builtin();
    let v = reg.get("chess").expect("chess ships");
    let ev = reg.evaluator(&v, EvalMode::Full);
    let score = |fen: &str| ev.evaluate(&Position::from_fen(Arc::clone(&v), fen).expect("valid FEN"));
    let edge = ev.weights()[ev.layout().mopup_edge];
    let close = ev.weights()[ev.layout().mopup_close];
    assert!(edge.eg > 0 && close.eg > 0);
    // The black king on e5 (centre) and on h5 (edge), the white king far.
    let centre = score("8/8/8/4k3/8/8/8/R6K w - - 0 1");
    let side = score("8/8/8/7k/8/8/8/R6K w - - 0 1");
    assert!(side > centre, "edge {side} centre {centre}");
    // The white king next to the black one, or far from it.
    let near = score("8/8/8/7k/8/6K1/8/R7 w - - 0 1");
    assert!(near > side, "near {near} far {side}");
    // A black knight can capture: no mop-up, so only the ordinary terms move.
    let mops_up = |fen: &str| {
        let t = ev.trace(&Position::from_fen(Arc::clone(&v), fen).expect("valid FEN"));
        t.terms.iter().any(|&(p, _, _)| p as usize == ev.layout().mopup_edge)
    };
    assert!(mops_up("8/8/8/7k/8/8/8/R6K w - - 0 1"));
    assert!(!mops_up("8/8/8/6nk/8/8/8/R6K w - - 0 1"));
}

#[test]
fn extra_queen_is_good() {
    let reg = crate::eval::catalogue::Catalogue::builtin();
    let v = reg.get("chess").expect("chess ships");
    let ev = reg.evaluator(&v, EvalMode::Full);
    let pos = Position::from_fen(Arc::clone(&v), "rnb1kbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
        .expect("valid FEN");
    assert!(ev.evaluate(&pos) > 700);
}

#[test]
fn knights_prefer_the_centre() {
    let reg = crate::eval::catalogue::Catalogue::builtin();
    let v = reg.get("chess").expect("chess ships");
    let ev = reg.evaluator(&v, EvalMode::Full);
    let centre = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/3N4/8/8/4K3 w - - 0 1").expect("valid");
    let corner = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/8/N3K3 w - - 0 1").expect("valid");
    assert!(ev.evaluate(&centre) > ev.evaluate(&corner));
}

#[test]
fn material_only_counts_men_and_hands_and_nothing_else() {
    let reg = Registry::builtin();
    let v = reg.get("clockwork").expect("clockwork ships");
    let ev = Evaluator::material_only(&v);
    assert!(ev.is_material_only());
    let n = ev.value(v.kind_of_letter('N').expect("knight"));
    // A centralised and a cornered knight score alike: no piece-square terms.
    let centre = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/3N4/8/8/4K3 w - - 0 1").expect("valid");
    let corner = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/8/N3K3 b - - 0 1").expect("valid");
    assert_eq!(ev.evaluate(&centre), n);
    assert_eq!(ev.evaluate(&corner), -n);
    // A knight in White's hand counts the same as one on the board.
    let hand = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/8/4K3[N] w - - 0 1").expect("valid");
    assert_eq!(ev.evaluate(&hand), n);
}

#[test]
fn army_balance_fades_with_the_pieces() {
    let reg = crate::eval::catalogue::Catalogue::builtin();
    let v = reg.get("clash5").expect("clash5 ships");
    let (full, material) = (reg.evaluator(&v, EvalMode::Full), Evaluator::material_only(&v));
    let start = Position::startpos(Arc::clone(&v)).expect("start");
    // White's army is worth over ten pawns more by the file's values...
    assert!(material.evaluate(&start) > 1000);
    // ...which the full evaluation takes back at the start...
    assert!(full.evaluate(&start).abs() < 250, "{}", full.evaluate(&start));
    // ...but not once the pieces are gone: a lone extra pawn is still an extra pawn.
    let ending = Position::from_fen(Arc::clone(&v), "4k5/10/10/10/10/10/4P5/10/10/5K4 w - - 0 1").expect("valid");
    assert!(full.evaluate(&ending) > 50, "{}", full.evaluate(&ending));
}

/// Positions of every shipped variant from a fixed pseudo-random walk.
fn walk_positions(v: &Arc<Variant>, games: u64) -> Vec<Position> {
    let mut out = Vec::new();
    let mut list = MoveList::new();
    for game in 0..games {
        let Ok(mut pos) = Position::startpos(Arc::clone(v)) else { return out };
        let mut seed = game.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        for _ in 0..120 {
            pos.generate_legal(&mut list);
            if list.is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            pos.make(list[(seed % list.len() as u64) as usize]);
            out.push(Position::from_fen(Arc::clone(v), &pos.to_fen()).expect("own FEN"));
        }
    }
    out
}

#[test]
fn trace_and_fast_path_agree_in_every_variant() {
    let reg = Registry::builtin();
    for name in reg.names() {
        let v = reg.get(&name).expect("listed");
        let hand = Evaluator::hand(&v);
        // Odd weights too, so that no feature hides behind a zero weight.
        let odd: Vec<Weight> = (0..hand.layout().len())
            .map(|i| Weight { mg: (i as i32 * 7) % 23 - 9, eg: (i as i32 * 5) % 19 - 7 })
            .collect();
        for ev in [hand.clone(), hand.clone().with_weights(odd)] {
            for pos in walk_positions(&v, 4) {
                let fast = ev.evaluate(&pos) * sign(pos.side_to_move());
                let traced = ev.trace(&pos).score(ev.weights());
                assert!((fast as f64 - traced).abs() <= 2.0, "{name} {}: fast {fast} traced {traced}", pos.to_fen());
            }
        }
    }
}

#[test]
fn eval_report_adds_up_in_every_variant() {
    let reg = crate::eval::catalogue::Catalogue::builtin();
    for name in reg.registry().names() {
        let v = reg.get(&name).expect("listed");
        let ev = reg.evaluator(&v, EvalMode::Full);
        for pos in walk_positions(&v, 2) {
            // The groups share out the whole linear score, every family in one group.
            let trace = ev.trace(&pos);
            let groups: f64 = trace.by_group(ev.weights(), ev.layout()).iter().map(|(_, cp)| cp).sum();
            assert!((groups - trace.score(ev.weights())).abs() < 1e-6, "{name} {}", pos.to_fen());
            // The last line is the score the search uses, from White's side, in pawns.
            let report = ev.report(&pos);
            let fin = report.last().expect("a final line");
            let white = ev.evaluate(&pos) * sign(pos.side_to_move());
            let want = format!("{:+.2}", white as f64 / 100.0);
            assert!(
                fin.starts_with("Final evaluation") && fin.contains(&format!(" {want} (white side)")),
                "{name}: {fin} {want}"
            );
        }
    }
    let layout = Layout::new(&reg.get("clash5").expect("clash5 ships"));
    for p in 0..layout.len() {
        let family = layout.family(p);
        let homes = TERM_GROUPS.iter().filter(|(_, families)| families.contains(&family)).count();
        assert_eq!(homes, 1, "{family}");
    }
}

#[test]
fn a_side_that_can_capture_nothing_cannot_win() {
    let reg = crate::eval::catalogue::Catalogue::builtin();
    let v = reg.get("clockwork").expect("clockwork ships");
    let ev = reg.evaluator(&v, EvalMode::Full);
    // White is a rook up in non-capturing men only (U: NC rook, S: NC pawns).
    let nc = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/SSS5/U3K3 w - - 0 1").expect("valid");
    let real = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/PPP5/R3K3 w - - 0 1").expect("valid");
    let (nc, real) = (ev.evaluate(&nc), ev.evaluate(&real));
    assert!(real > 400, "{real}");
    assert!(nc < real / 4, "non-capturing {nc} against capturing {real}");
}
