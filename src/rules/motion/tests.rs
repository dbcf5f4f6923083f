//! The attackers list on hand-made positions, and its agreement with the
//! attack test on positions of every shipped variant.

use std::sync::Arc;

use super::{Attacker, AttackerList};
use crate::board::position::Position;
use crate::board::registry::Registry;
use crate::rules::geometry::Square;
use crate::rules::moves::MoveList;
use crate::rules::piece::{Cell, Color};

fn position(variant: &str, fen: &str) -> Position {
    let v = Registry::builtin().get(variant).expect("variant ships");
    Position::from_fen(v, fen).expect("valid FEN")
}

fn sq(pos: &Position, name: &str) -> Square {
    pos.variant().shape.parse_square(name).expect("square on the board")
}

/// The attackers of `target` by `by`, as square names with their screens, sorted.
fn attackers(pos: &Position, target: &str, by: Color) -> Vec<String> {
    let mut out = AttackerList::new();
    pos.attackers(sq(pos, target), by, &mut out);
    let mut names: Vec<String> = out
        .iter()
        .map(|a| match a.screen {
            Some(screen) => format!("{}^{screen}", a.from),
            None => a.from.to_string(),
        })
        .collect();
    names.sort();
    names
}

fn man(pos: &Position, letter: char) -> Cell {
    let kind = pos.variant().kind_of_letter(letter).expect("letter of the variant");
    let color = if letter.is_ascii_uppercase() { Color::White } else { Color::Black };
    Cell::piece(color, kind)
}

#[test]
fn a_rook_behind_a_rook_attacks_once_the_front_one_leaves() {
    let mut pos = position("chess", "r3k3/8/8/8/R7/8/8/R3K3 w - - 0 1");
    assert_eq!(attackers(&pos, "a8", Color::White), ["a4"]);
    // SEE: the front rook takes on a8; the one behind now sees the square.
    let (a4, a8) = (sq(&pos, "a4"), sq(&pos, "a8"));
    let front = pos.cell(a4);
    pos.set_cell_raw(a4, Cell::EMPTY);
    pos.set_cell_raw(a8, front);
    assert_eq!(attackers(&pos, "a8", Color::White), ["a1"]);
    // The occupant of the square itself does not matter.
    pos.set_cell_raw(a8, Cell::EMPTY);
    assert_eq!(attackers(&pos, "a8", Color::White), ["a1"]);
    pos.set_cell_raw(a8, man(&pos, 'r'));
    pos.set_cell_raw(a4, front);
    assert_eq!(pos.hash(), pos.compute_hash(), "raw edits, once undone, leave the position as it was");
}

#[test]
fn pawns_attack_by_their_capture_steps_towards_the_enemy() {
    let pos = position("chess", "4k3/8/8/4p3/4P3/8/8/4K3 w - - 0 1");
    assert_eq!(attackers(&pos, "d5", Color::White), ["e4"]);
    assert_eq!(attackers(&pos, "f5", Color::White), ["e4"]);
    assert!(attackers(&pos, "d3", Color::White).is_empty());
    assert!(attackers(&pos, "e5", Color::White).is_empty(), "a push is not a capture");
    assert_eq!(attackers(&pos, "d4", Color::Black), ["e5"]);
    assert_eq!(attackers(&pos, "f4", Color::Black), ["e5"]);
    assert!(attackers(&pos, "d6", Color::Black).is_empty());
}

#[test]
fn a_cannon_attacks_only_over_exactly_one_screen() {
    let mut pos = position("clash1", "k9/10/4r5/10/10/10/10/10/10/4H4K w - - 0 1");
    assert!(attackers(&pos, "e8", Color::White).is_empty(), "no screen");
    let e4 = sq(&pos, "e4");
    pos.set_cell_raw(e4, man(&pos, 'P'));
    assert_eq!(attackers(&pos, "e8", Color::White), ["e1^e4"], "a screen arrives");
    pos.set_cell_raw(sq(&pos, "e6"), man(&pos, 'p'));
    assert!(attackers(&pos, "e8", Color::White).is_empty(), "two screens");
    pos.set_cell_raw(e4, Cell::EMPTY);
    assert_eq!(attackers(&pos, "e8", Color::White), ["e1^e6"], "an enemy man screens too");
    pos.set_cell_raw(sq(&pos, "e6"), Cell::EMPTY);
    assert!(attackers(&pos, "e8", Color::White).is_empty(), "the screen leaves");
    assert!(!pos.attacked_by(sq(&pos, "e8"), Color::White));
}

#[test]
fn leo_and_monk_hop_over_any_man() {
    let pos = position("clash4", "k9/10/10/10/10/10/10/2P1p5/1L1O5K/10 w - - 0 1");
    assert_eq!(attackers(&pos, "d4", Color::White), ["b2^c3", "c3"]);
    assert_eq!(attackers(&pos, "e5", Color::White), ["b2^c3"]);
    assert_eq!(attackers(&pos, "f4", Color::White), ["d2^e3"]);
    assert_eq!(attackers(&pos, "e2", Color::White), ["b2^d2"]);
    assert!(attackers(&pos, "c3", Color::White).is_empty(), "an adjacent man is a screen, not a target");
    assert_eq!(attackers(&pos, "d2", Color::Black), ["e3"]);
}

#[test]
fn a_giraffe_turns_its_corner_then_rides_at_least_three_squares() {
    let mut pos = position("clash1", "9k/10/10/10/10/10/10/10/10/1G7K w - - 0 1");
    assert_eq!(attackers(&pos, "c5", Color::White), ["b1"]);
    assert_eq!(attackers(&pos, "a5", Color::White), ["b1"]);
    assert_eq!(attackers(&pos, "c10", Color::White), ["b1"]);
    assert_eq!(attackers(&pos, "f2", Color::White), ["b1"]);
    assert!(attackers(&pos, "c4", Color::White).is_empty(), "second leg too short");
    assert!(attackers(&pos, "c2", Color::White).is_empty(), "the corner is not a target");
    pos.set_cell_raw(sq(&pos, "c3"), man(&pos, 'p'));
    assert!(attackers(&pos, "c5", Color::White).is_empty(), "path blocked");
    assert_eq!(attackers(&pos, "a5", Color::White), ["b1"]);
    pos.set_cell_raw(sq(&pos, "a2"), man(&pos, 'p'));
    assert!(attackers(&pos, "a5", Color::White).is_empty(), "corner blocked");
}

#[test]
fn a_lame_leaper_is_blocked_next_to_itself() {
    let mut registry = Registry::builtin();
    let text = "name lame-horse\ninherit chess\npiece H horse 300 nN\n";
    let v = registry.load_text("lame-horse.var", text).expect("valid variant");
    let mut pos = Position::from_fen(v, "4k3/8/8/8/8/8/8/1H5K w - - 0 1").expect("valid FEN");
    for target in ["a3", "c3", "d2"] {
        assert_eq!(attackers(&pos, target, Color::White), ["b1"], "{target}");
    }
    // A man on b2 blocks the long leaps up the board, not the one along it.
    pos.set_cell_raw(sq(&pos, "b2"), man(&pos, 'p'));
    assert!(attackers(&pos, "a3", Color::White).is_empty());
    assert!(attackers(&pos, "c3", Color::White).is_empty());
    assert_eq!(attackers(&pos, "d2", Color::White), ["b1"]);
}

#[test]
fn men_that_cannot_capture_attack_nothing() {
    // Clockwork's non-capturing queen, rook, bishop, pawn and knight around e5.
    let pos = position("clockwork", "k7/8/3TU3/4n3/3CS3/5O2/8/4K3[] w - - 0 1");
    assert!(attackers(&pos, "e5", Color::White).is_empty());
    assert!(!pos.attacked_by(sq(&pos, "e5"), Color::White));
    // The same squares with capturing men attack.
    let pos = position("clockwork", "k7/8/3QR3/4n3/3BP3/5N2/8/4K3[] w - - 0 1");
    assert_eq!(attackers(&pos, "e5", Color::White), ["d4", "d6", "e6", "f3"]);
}

#[test]
fn attackers_agree_with_the_attack_test_in_every_variant() {
    let registry = Registry::builtin();
    for name in registry.names() {
        let v = registry.get(&name).expect("listed");
        let Ok(mut pos) = Position::startpos(Arc::clone(&v)) else { continue };
        let mut list = MoveList::new();
        let mut out = AttackerList::new();
        for ply in 0..40 {
            for &target in pos.squares() {
                for by in Color::ALL {
                    pos.attackers(target, by, &mut out);
                    assert_eq!(pos.attacked_by(target, by), !out.is_empty(), "{name} ply {ply} {target}");
                    for (i, &Attacker { from, screen }) in out.iter().enumerate() {
                        assert!(pos.cell(from).is_color(by), "{name} {target}: {from}");
                        assert!(screen.is_none_or(|s| pos.cell(s).is_piece()), "{name} {target}: screen");
                        assert!(out[..i].iter().all(|a| a.from != from), "{name} {target}: {from} twice");
                    }
                }
            }
            pos.generate_legal(&mut list);
            if list.is_empty() {
                break;
            }
            pos.make(list[(7 * ply + 3) % list.len()]);
        }
    }
}
