//! SAN reader and writer agree in every shipped variant (random playouts,
//! fixed seeds): every legal move's SAN is unique in its position and reads
//! back as that move. Only the variant's pawn goes without a letter (Clash
//! 5's special pawn is `S`), and a SAN that fits two moves is refused as
//! ambiguous with both listed.

use std::collections::HashSet;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use menagerie::board::position::Position;
use menagerie::board::registry::Registry;
use menagerie::game::san::{move_to_san, parse_san, pawn_kind, SanError};
use menagerie::rules::moves::{Move, MoveKind, MoveList};

fn legal(pos: &mut Position) -> Vec<Move> {
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    list.iter().copied().collect()
}

/// Checks every legal move of `pos`; returns the SANs written.
fn check_position(name: &str, pos: &mut Position) -> Vec<(Move, String)> {
    let fen = pos.to_fen();
    let moves = legal(pos);
    let written: Vec<(Move, String)> = moves.iter().map(|&m| (m, move_to_san(pos, m))).collect();
    let mut seen = HashSet::new();
    for (m, san) in &written {
        let plain = san.trim_end_matches(['+', '#']);
        assert!(seen.insert(plain.to_string()), "{name}: {san} names two moves at {fen}");
        assert_eq!(parse_san(pos, san), Ok(*m), "{name}: {san} does not read back at {fen}");
        assert_eq!(parse_san(pos, plain), Ok(*m), "{name}: {plain} does not read back at {fen}");
        assert_eq!(pos.to_fen(), fen, "{name}: reading {san} changed the position");
    }
    written
}

#[test]
fn san_round_trips_over_random_playouts_in_every_variant() {
    let registry = Registry::builtin();
    let names = registry.names();
    assert_eq!(names.len(), 10, "{names:?}");
    let mut rng = StdRng::seed_from_u64(0x5a4);
    // Every kind of move (drops, castling, setup swaps and passes, en
    // passant, promotions) is read back somewhere.
    let mut kinds_seen = HashSet::new();
    for name in &names {
        let variant = registry.get(name).expect("listed");
        let pawn = pawn_kind(&variant).expect("every shipped variant has a pawn");
        let mut lettered_pawn_like = 0;
        for _ in 0..3 {
            let mut pos = Position::startpos(variant.clone()).expect("start FEN");
            for _ in 0..160 {
                let written = check_position(name, &mut pos);
                kinds_seen.extend(written.iter().map(|(m, _)| m.kind()));
                if written.is_empty() || pos.game_end().is_some() {
                    break;
                }
                for (m, san) in &written {
                    let cell = pos.cell(m.from());
                    if !matches!(
                        m.kind(),
                        MoveKind::Normal | MoveKind::DoublePush | MoveKind::EnPassant | MoveKind::Promotion
                    ) {
                        continue;
                    }
                    let letterless = san.starts_with(|c: char| c.is_ascii_lowercase());
                    let is_pawn = cell.kind() == pawn;
                    assert_eq!(letterless, is_pawn, "{name}: {san}: only the pawn goes without a letter");
                    if !is_pawn && !variant.promotions[cell.color()][cell.kind().index()].is_empty() {
                        lettered_pawn_like += 1;
                    }
                }
                let (m, _) = written[rng.gen_range(0..written.len())];
                pos.make(m);
            }
        }
        if name == "clash5" || name == "clockwork" {
            assert!(lettered_pawn_like > 0, "{name}: no move of a promoting man other than the pawn was seen");
        }
    }
    assert_eq!(kinds_seen.len(), 8, "kinds of move seen: {kinds_seen:?}");
}

fn play_san(pos: &mut Position, line: &str) {
    for san in line.split_whitespace() {
        let m = parse_san(pos, san).unwrap_or_else(|e| panic!("{san}: {e}"));
        pos.make(m);
    }
}

#[test]
fn clash5_special_pawn_and_pawn_reach_g8() {
    let registry = Registry::builtin();
    let mut pos = Position::startpos(registry.get("clash5").expect("ships")).expect("start");
    play_san(&mut pos, "e5 Nc8 Nc4 j7 Nh4");
    let pawn = parse_san(&mut pos, "g8").expect("the pawn's push");
    let special = parse_san(&mut pos, "Sg8").expect("the special pawn's step");
    assert_ne!(pawn, special);
    let letter = |pos: &Position, m: Move| pos.variant().pieces[pos.cell(m.from()).kind().index()].letter;
    assert_eq!((letter(&pos, pawn), pawn.from().to_string()), ('P', "g9".to_string()));
    assert_eq!((letter(&pos, special), special.from().to_string()), ('S', "f9".to_string()));
    assert_eq!(move_to_san(&mut pos, pawn), "g8");
    assert_eq!(move_to_san(&mut pos, special), "Sg8");
    assert_eq!(parse_san(&mut pos, "Pg8"), Ok(pawn), "the pawn's letter may be written");
    // Older SAN, as the engine wrote it before: still read.
    assert_eq!(parse_san(&mut pos, "fg8"), Ok(special));
    assert_eq!(parse_san(&mut pos, "gg8"), Ok(pawn));
    check_position("clash5", &mut pos);
}

#[test]
fn a_san_that_fits_two_moves_is_ambiguous() {
    let registry = Registry::builtin();
    let mut pos = Position::startpos(registry.get("chess").expect("ships")).expect("start");
    play_san(&mut pos, "Nf3 d5 d3 Nf6");
    let Err(SanError::Ambiguous { candidates, .. }) = parse_san(&mut pos, "Nd2") else { panic!("Nd2 is ambiguous") };
    let mut sorted = candidates.clone();
    sorted.sort();
    assert_eq!(sorted, ["Nbd2", "Nfd2"]);
    let message = parse_san(&mut pos, "Nd2").unwrap_err().to_string();
    assert!(message.starts_with("ambiguous move \"Nd2\": N") && message.contains(" or "), "{message}");
    assert_eq!(parse_san(&mut pos, "Nbd2").map(|m| m.from().to_string()), Ok("b1".to_string()));
    assert_eq!(parse_san(&mut pos, "Ng1d2").map(|m| m.from().to_string()), Err(SanError::Illegal("Ng1d2".into())));
    assert_eq!(parse_san(&mut pos, "Nf3d2").map(|m| m.from().to_string()), Ok("f3".to_string()));
    assert_eq!(parse_san(&mut pos, "zz9"), Err(SanError::NotAMove("zz9".into())));
    assert_eq!(parse_san(&mut pos, "Ke3"), Err(SanError::Illegal("Ke3".into())));
    // Chess SAN as ever, and UCI text still read.
    assert_eq!(parse_san(&mut pos, "e2e4"), parse_san(&mut pos, "e4"));
    let e4 = parse_san(&mut pos, "e4").expect("legal");
    assert_eq!(move_to_san(&mut pos, e4), "e4");
}

#[test]
fn clash5_special_pawns_sharing_a_square_are_ambiguous_unqualified() {
    // Random Clash 5 playouts until both special pawns of a side can step
    // to one square; `S` + that square must then list both.
    let registry = Registry::builtin();
    let variant = registry.get("clash5").expect("ships");
    let special = variant.kind_of_letter('S').expect("the special pawn is S");
    let mut rng = StdRng::seed_from_u64(5);
    for _ in 0..200 {
        let mut pos = Position::startpos(variant.clone()).expect("start");
        for _ in 0..80 {
            let moves = legal(&mut pos);
            if moves.is_empty() {
                break;
            }
            let steps: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| pos.cell(m.from()).is_piece() && pos.cell(m.from()).kind() == special)
                .filter(|m| m.kind() == MoveKind::Normal)
                .collect();
            for a in &steps {
                let pair: Vec<&Move> = steps.iter().filter(|b| b.to() == a.to()).collect();
                if pair.len() == 2 {
                    let text = format!("S{}", a.to());
                    let mut want: Vec<String> = pair.iter().map(|&&m| move_to_san(&mut pos, m)).collect();
                    want.sort();
                    match parse_san(&mut pos, &text) {
                        Err(SanError::Ambiguous { mut candidates, .. }) => {
                            candidates.sort();
                            assert_eq!(candidates, want);
                            return;
                        }
                        other => panic!("{text} at {}: {other:?}", pos.to_fen()),
                    }
                }
            }
            let m = moves[rng.gen_range(0..moves.len())];
            pos.make(m);
        }
    }
    panic!("no position with two special pawns stepping to one square was found");
}
