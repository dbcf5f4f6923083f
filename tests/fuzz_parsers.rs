//! Fixed-seed mutation fuzzing of every text parser of the rules core: FEN,
//! move text and variant files. Nothing may panic; whatever parses must
//! round-trip. `FUZZ_ITERATIONS` (default 20 000 per parser) sets the count;
//! the `--ignored` run does 1 000 000.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use menagerie::board::notation::MoveText;
use menagerie::board::position::Position;
use menagerie::board::registry::Registry;
use menagerie::rules::moves::MoveList;

const ALPHABET: &[u8] = b"0123456789/[]~-_ abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ@.,#:\t";

fn mutate(rng: &mut StdRng, text: &str) -> String {
    let mut bytes: Vec<u8> = text.as_bytes().to_vec();
    for _ in 0..rng.gen_range(1..4) {
        let len = bytes.len();
        match rng.gen_range(0..7) {
            0 if len > 0 => {
                bytes.truncate(rng.gen_range(0..len));
            }
            1 if len > 0 => {
                let i = rng.gen_range(0..len);
                bytes[i] = ALPHABET[rng.gen_range(0..ALPHABET.len())];
            }
            2 => {
                let i = rng.gen_range(0..=len);
                bytes.insert(i, ALPHABET[rng.gen_range(0..ALPHABET.len())]);
            }
            3 if len > 0 => {
                bytes.remove(rng.gen_range(0..len));
            }
            4 => {
                let i = rng.gen_range(0..=len);
                let digits = rng.gen_range(0..100_000u32).to_string();
                bytes.splice(i..i, digits.bytes());
            }
            5 => {
                let i = rng.gen_range(0..=len);
                bytes.splice(i..i, "é€\u{0}".bytes());
            }
            _ if len > 1 => {
                let (a, b) = (rng.gen_range(0..len), rng.gen_range(0..len));
                bytes.swap(a, b);
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn iterations(default: usize) -> usize {
    std::env::var("FUZZ_ITERATIONS").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn corpus(reg: &Registry) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for v in reg.variants() {
        out.push((v.name.clone(), v.start_fen.clone()));
    }
    out.push(("clockwork".into(), "3nkr2/1pNSpp1b/1p1sq3/7p/rT1N1cPp/8/PPPPPP2/R1BB1KR1[QqSsTt] b - - 0 1".into()));
    out.push(("relocation".into(), "rnakqbbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1 S".into()));
    out.push(("chess".into(), "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1".into()));
    out.push(("clash1".into(), "4k5/10/10/10/10/3pP5/10/10/10/4K5 b - e4 0 1".into()));
    out
}

fn fuzz_fen(n: usize) {
    let reg = Registry::builtin();
    let corpus = corpus(&reg);
    let mut rng = StdRng::seed_from_u64(7);
    let mut accepted = 0;
    for _ in 0..n {
        let (name, fen) = &corpus[rng.gen_range(0..corpus.len())];
        // Parse the mutant in a random variant too: wrong-variant FENs must fail cleanly.
        let variant = if rng.gen_bool(0.8) { reg.get(name) } else { reg.variants().nth(rng.gen_range(0..9)).cloned() };
        let Some(variant) = variant else { continue };
        let text = mutate(&mut rng, fen);
        if let Ok(mut pos) = Position::from_fen(variant.clone(), &text) {
            accepted += 1;
            let out = pos.to_fen();
            let again = Position::from_fen(variant, &out).expect("our own FEN parses");
            assert_eq!(again.to_fen(), out, "FEN round trip of {text:?}");
            // Every accepted position supports move generation.
            let mut list = MoveList::new();
            pos.generate_legal(&mut list);
        }
    }
    assert!(accepted > 0, "no mutant parsed at all: the fuzzer is not exercising the accept path");
}

fn fuzz_moves(n: usize) {
    let reg = Registry::builtin();
    let mut rng = StdRng::seed_from_u64(8);
    let seeds = ["e2e4", "a9a10q", "P@e4", "0000", "@@@@", "f8d8", "e1g1", "j10j9", "S@h1", "b7b8t"];
    let mut positions: Vec<Position> = reg.variants().map(|v| Position::startpos(v.clone()).expect("start")).collect();
    for _ in 0..n {
        let seed = seeds[rng.gen_range(0..seeds.len())];
        let text = mutate(&mut rng, seed);
        let pos = &mut positions[rng.gen_range(0..9)];
        let shape = pos.variant().shape;
        if let Ok(parsed) = MoveText::parse(&text, shape) {
            assert_eq!(MoveText::parse(&parsed.to_string(), shape), Ok(parsed), "{text:?}");
        }
        if let Ok(m) = pos.parse_move(&text) {
            let fen = pos.to_fen();
            pos.make(m);
            pos.unmake(m);
            assert_eq!(pos.to_fen(), fen);
        }
    }
}

fn fuzz_variant_files(n: usize) {
    let mut reg = Registry::builtin();
    let names = reg.names();
    let texts: Vec<String> = menagerie::board::registry::SHIPPED.iter().map(|(_, t)| t.to_string()).collect();
    let mut rng = StdRng::seed_from_u64(9);
    for i in 0..n {
        let base = &texts[rng.gen_range(0..texts.len())];
        // Mutate one line so that most of the file stays meaningful.
        let mut lines: Vec<String> = base.lines().map(str::to_string).collect();
        let li = rng.gen_range(0..lines.len());
        lines[li] = mutate(&mut rng, &lines[li]);
        let text = lines.join("\n").replace("name ", &format!("name fuzz{i} "));
        if let Ok(v) = reg.load_text("fuzz.var", &text) {
            let mut pos = Position::startpos(v).expect("a loaded variant's start position parses");
            let mut list = MoveList::new();
            pos.generate_legal(&mut list);
        }
    }
    // Shipped variants are untouched by whatever the fuzzer loaded.
    for name in names {
        assert!(reg.get(&name).is_some());
    }
}

#[test]
fn fen_parser_survives_mutations() {
    fuzz_fen(iterations(20_000));
}

#[test]
fn move_parser_survives_mutations() {
    fuzz_moves(iterations(20_000));
}

#[test]
fn variant_parser_survives_mutations() {
    fuzz_variant_files(iterations(3_000));
}

#[test]
#[ignore = "long fuzz run (10^6 inputs per parser)"]
fn long_fuzz_run() {
    fuzz_fen(1_000_000);
    fuzz_moves(1_000_000);
    fuzz_variant_files(100_000);
}
