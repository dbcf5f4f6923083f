//! The 144 relocation arrays file (docs/rules.md#capablanca-relocation):
//! every array has perft(1) = 28 and the perft(2) Fairy-Stockfish gives for
//! it (784 for 131 arrays; 13 arrays have a pin after the first move and
//! fewer), and the set equals the positions our setup moves reach after both
//! choices.

use std::collections::{BTreeMap, BTreeSet};

use menagerie::board::perft::perft;
use menagerie::board::position::Position;
use menagerie::board::registry::Registry;
use menagerie::rules::moves::MoveList;

fn arrays() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/variants/relocation-arrays.epd");
    std::fs::read_to_string(path)
        .expect("arrays file")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

fn reference_perft2() -> BTreeMap<String, u64> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/relocation-arrays-perft2.csv");
    std::fs::read_to_string(path)
        .expect("reference file")
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split_once(';'))
        .map(|(fen, n)| (fen.to_string(), n.parse().expect("number")))
        .collect()
}

#[test]
fn every_array_has_28_moves_and_the_reference_perft2() {
    let reg = Registry::builtin();
    let list = arrays();
    assert_eq!(list.len(), 144);
    assert_eq!(list.iter().collect::<BTreeSet<_>>().len(), 144, "duplicates");
    let reference = reference_perft2();
    assert_eq!(reference.len(), 144);
    assert_eq!(reference.values().filter(|&&n| n == 784).count(), 131);
    for name in ["relocation", "capablanca"] {
        let v = reg.get(name).expect("variant");
        for fen in &list {
            let mut pos = Position::from_fen(v.clone(), fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
            assert_eq!(perft(&mut pos, 1), 28, "{name} {fen}");
            assert_eq!(Some(&perft(&mut pos, 2)), reference.get(fen), "{name} {fen}");
        }
    }
}

#[test]
fn setup_moves_reach_exactly_the_144_arrays() {
    let reg = Registry::builtin();
    let mut pos = Position::startpos(reg.get("relocation").expect("variant")).expect("start");
    let mut reached = BTreeSet::new();
    let mut first = MoveList::new();
    pos.generate_legal(&mut first);
    for &b in &first {
        pos.make(b);
        let mut second = MoveList::new();
        pos.generate_legal(&mut second);
        for &w in &second {
            pos.make(w);
            assert!(!pos.in_setup());
            // Drop the 7th field: the file holds 6-field FENs.
            let fen = pos.to_fen();
            reached.insert(fen.rsplit_once(' ').map(|(a, _)| a.to_string()).unwrap_or(fen));
            pos.unmake(w);
        }
        pos.unmake(b);
    }
    let expected: BTreeSet<String> = arrays().into_iter().collect();
    assert_eq!(reached, expected);
}
