//! Random-playout property tests over every shipped variant (fixed seeds):
//! unmake restores FEN and hash exactly, the incremental hash and pawn key
//! equal fresh ones (and so does the count of men behind the dead-position test), FEN and
//! move text round-trip, no legal move leaves the mover's king attacked, the
//! quiescence generator lists exactly the pseudo-legal captures and
//! promotions, and in drop variants each side keeps 16 men (board + hand).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use menagerie::board::position::{Place, Position};
use menagerie::board::registry::Registry;
use menagerie::rules::moves::{MoveKind, MoveList};
use menagerie::rules::piece::{Cell, Color, PieceKind};

fn men(pos: &Position, color: Color) -> usize {
    let board = pos.squares().iter().filter(|&&sq| pos.cell(sq).is_color(color)).count();
    let hand: usize = (0..pos.variant().kind_count()).map(|k| pos.hand_count(color, PieceKind(k as u8)) as usize).sum();
    board + hand
}

/// A pawn is a man of a kind that promotes (what the pawn key covers).
fn is_pawn(pos: &Position, cell: Cell) -> bool {
    let v = pos.variant();
    cell.is_piece() && Color::ALL.iter().any(|&c| !v.promotions[c][cell.kind().index()].is_empty())
}

fn playouts(name: &str, games: usize, max_plies: usize, seed: u64) {
    let registry = Registry::builtin();
    let variant = registry.get(name).expect("shipped variant");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut plies = 0;
    let mut pawn_changes = 0;
    let mut key_changes = 0;
    for _ in 0..games {
        let mut pos = Position::startpos(variant.clone()).expect("start FEN");
        let start_men = [men(&pos, Color::White), men(&pos, Color::Black)];
        for _ in 0..max_plies {
            let fen = pos.to_fen();
            let hash = pos.hash();
            assert_eq!(hash, pos.compute_hash(), "{name}: incremental hash differs at {fen}");
            let pawn_key = pos.pawn_key();
            assert_eq!(pawn_key, pos.compute_pawn_key(), "{name}: incremental pawn key differs at {fen}");
            // FEN round trip.
            let reparsed = Position::from_fen(variant.clone(), &fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
            assert_eq!(reparsed.to_fen(), fen);
            assert_eq!(reparsed.hash(), hash, "{name}: hash of reparsed FEN differs at {fen}");
            assert_eq!(reparsed.pawn_key(), pawn_key, "{name}: pawn key of reparsed FEN differs at {fen}");
            // The incremental count behind the dead-position test agrees with a fresh one.
            assert_eq!(reparsed.state().live_men, pos.state().live_men, "{name}: live men differ at {fen}");
            assert_eq!(reparsed.is_dead(), pos.is_dead(), "{name}: dead test differs at {fen}");

            let mut list = MoveList::new();
            pos.generate_legal(&mut list);
            // Legal moves agree with a slow filter of pseudo-legal moves.
            let mut pseudo = MoveList::new();
            pos.generate_pseudo(&mut pseudo);
            for &m in &list {
                let us = pos.side_to_move();
                let text = pos.move_to_uci(m, false);
                assert_eq!(pos.parse_move(&text), Ok(m), "{name}: move text {text} does not round-trip at {fen}");
                pos.make(m);
                if !pos.in_setup() || m.kind() == MoveKind::Swap {
                    assert!(!pos.king_attacked(us), "{name}: {text} leaves the king attacked at {fen}");
                }
                assert_eq!(pos.hash(), pos.compute_hash(), "{name}: hash after {text} at {fen}");
                assert_eq!(pos.pawn_key(), pos.compute_pawn_key(), "{name}: pawn key after {text} at {fen}");
                let pawn_move =
                    pos.last_changes().iter().any(|c| is_pawn(&pos, c.cell) && matches!(c.place, Place::Board(_)));
                pawn_changes += usize::from(pawn_move);
                key_changes += usize::from(pos.pawn_key() != pawn_key);
                if !pawn_move {
                    assert_eq!(pos.pawn_key(), pawn_key, "{name}: {text} moved no pawn but changed the key at {fen}");
                }
                pos.unmake(m);
                assert_eq!(pos.to_fen(), fen, "{name}: unmake {text} did not restore the FEN");
                assert_eq!(pos.hash(), hash, "{name}: unmake {text} did not restore the hash");
                assert_eq!(pos.pawn_key(), pawn_key, "{name}: unmake {text} did not restore the pawn key");
            }
            // The quiescence generator lists exactly the captures and
            // promotions among the pseudo-legal moves, in the same order.
            let mut tactical = MoveList::new();
            pos.generate_tactical(&mut tactical);
            let expected: Vec<_> = if pos.in_setup() {
                Vec::new()
            } else {
                pseudo
                    .iter()
                    .copied()
                    .filter(|&m| pos.victim_square(m).is_some() || m.kind() == MoveKind::Promotion)
                    .collect()
            };
            assert_eq!(tactical.to_vec(), expected, "{name}: tactical moves differ at {fen}");
            if !pos.in_setup() && variant.succession.is_none() {
                for &m in &pseudo {
                    if !list.contains(&m) {
                        let us = pos.side_to_move();
                        pos.make(m);
                        let attacked = pos.king_attacked(us);
                        pos.unmake(m);
                        assert!(attacked, "{name}: pseudo-legal move dropped although legal at {fen}");
                    }
                }
            }
            if variant.hands {
                assert_eq!([men(&pos, Color::White), men(&pos, Color::Black)], start_men, "{name}: men count at {fen}");
            }
            if list.is_empty() {
                break;
            }
            let m = list[rng.gen_range(0..list.len())];
            pos.make(m);
            plies += 1;
        }
    }
    assert!(plies > games * 10, "{name}: playouts too short ({plies} plies)");
    assert!(pawn_changes > games, "{name}: too few moves touched a pawn ({pawn_changes})");
    assert!(key_changes > games, "{name}: too few moves changed the pawn key ({key_changes})");
}

#[test]
fn chess_playouts() {
    playouts("chess", 30, 200, 1);
}

#[test]
fn capablanca_playouts() {
    playouts("capablanca", 30, 200, 2);
}

#[test]
fn relocation_playouts() {
    playouts("relocation", 30, 150, 3);
}

#[test]
fn clockwork_playouts_with_drops() {
    playouts("clockwork", 30, 200, 4);
}

#[test]
fn clash_playouts_every_episode() {
    for (i, name) in ["clash1", "clash2", "clash3", "clash4", "clash5"].iter().enumerate() {
        playouts(name, 12, 200, 10 + i as u64);
    }
}

/// `gives_check` by hand: a Capablanca archbishop on d1 checks the king on
/// e8 from a4 and h5 (its diagonals through d7 and f7) and from nowhere else
/// it can reach; the king's own moves never check. The position is restored.
#[test]
fn gives_check_finds_the_archbishops_two_checks() {
    let registry = Registry::builtin();
    let variant = registry.get("capablanca").expect("shipped variant");
    let mut pos = Position::from_fen(variant.clone(), "4k5/10/10/10/10/10/10/3AK5 w - - 0 1").expect("FEN");
    let (fen, hash) = (pos.to_fen(), pos.hash());
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    let mut checks: Vec<String> = Vec::new();
    for &m in &list {
        if pos.gives_check(m) {
            checks.push(pos.move_to_uci(m, false));
        }
        assert_eq!((pos.to_fen(), pos.hash()), (fen.clone(), hash));
    }
    checks.sort();
    assert_eq!(checks, ["d1a4", "d1h5"]);
}

/// A check by a new screen, by hand: in Clash Episode 1 a black cannon on
/// e9 faces the white king on e1 down an empty file. The black fil on d5
/// checks by stepping onto the file (e4, e5, e6), where it becomes the
/// cannon's screen; no other move checks. Both tests agree.
#[test]
fn gives_check_finds_the_screens_that_make_a_cannon_check() {
    let registry = Registry::builtin();
    let variant = registry.get("clash1").expect("shipped variant");
    let mut pos = Position::from_fen(variant.clone(), "k9/4h5/10/10/10/3f6/10/10/10/4K5 b - - 0 1").expect("FEN");
    let candidates = pos.check_candidates().expect("White has a king");
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    let mut checks: Vec<String> = Vec::new();
    for &m in &list {
        let check = pos.gives_check(m);
        assert_eq!(pos.gives_check_among(m, &candidates), check, "{}", pos.move_to_uci(m, false));
        if check {
            checks.push(pos.move_to_uci(m, false));
        }
    }
    checks.sort();
    assert_eq!(checks, ["d5e4", "d5e5", "d5e6"]);
}

/// `gives_check` (quiet moves and drops tried on the bare board), and
/// `gives_check_among` a node's check candidates, agree with the position
/// after the move is really played, for every
/// pseudo-legal move over random playouts in every shipped variant, and
/// leaves the position as it was; every variant meets checks.
#[test]
fn gives_check_agrees_with_the_move_played() {
    let registry = Registry::builtin();
    let mut rng = StdRng::seed_from_u64(77);
    for name in registry.names() {
        let variant = registry.get(&name).expect("listed variant");
        let mut checks = 0;
        for _ in 0..4 {
            let mut pos = Position::startpos(variant.clone()).expect("start FEN");
            for _ in 0..80 {
                let mut legal = MoveList::new();
                pos.generate_legal(&mut legal);
                if legal.is_empty() {
                    break;
                }
                let mut pseudo = MoveList::new();
                pos.generate_pseudo(&mut pseudo);
                let (fen, hash) = (pos.to_fen(), pos.hash());
                let candidates = pos.check_candidates();
                for &m in legal.iter().chain(pseudo.iter()) {
                    let predicted = pos.gives_check(m);
                    let among = candidates.as_ref().is_some_and(|c| pos.gives_check_among(m, c));
                    assert_eq!((pos.to_fen(), pos.hash()), (fen.clone(), hash), "{name}: {fen}");
                    pos.make(m);
                    let actual = !pos.in_setup() && pos.in_check();
                    pos.unmake(m);
                    let uci = pos.move_to_uci(m, false);
                    assert_eq!(predicted, actual, "{name}: {fen} {uci}");
                    assert_eq!(among, actual, "{name}: {fen} {uci} (among the candidates)");
                    checks += usize::from(actual);
                }
                let m = legal[rng.gen_range(0..legal.len())];
                pos.make(m);
            }
        }
        assert!(checks > 0, "{name}: the playouts met no check at all");
    }
}
