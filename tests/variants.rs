//! Variant files: every shipped file loads, and each class of broken file is
//! rejected with its line, column and an exact message, leaving the registry
//! as it was.

use menagerie::board::registry::Registry;

const BASE: &str = "name t\nboard 8x8\nstart 4k3/8/8/8/8/8/8/4K3 w - - 0 1\npiece K king 0 K\nroyal K\n";

fn first_error(text: &str) -> String {
    let reg = Registry::builtin();
    match reg.parse_text("t.var", text) {
        Ok(_) => panic!("should fail:\n{text}"),
        Err(errors) => errors.first().map(|e| e.to_string()).unwrap_or_default(),
    }
}

#[test]
fn shipped_variants_all_load() {
    let reg = Registry::builtin();
    let names = reg.names();
    for want in ["chess", "capablanca", "relocation", "clockwork", "clash1", "clash2", "clash3", "clash4", "clash5"] {
        assert!(names.iter().any(|n| n == want), "{want} missing from {names:?}");
    }
    assert!(reg.parse_text("t.var", BASE).is_ok());
}

#[test]
fn unknown_directive() {
    assert_eq!(
        first_error(&format!("{BASE}castle-everything now\n")),
        "t.var:6:1: unknown directive \"castle-everything\""
    );
}

#[test]
fn bad_betza_letter_names_its_column() {
    assert_eq!(
        first_error(&format!("{BASE}piece X thing 300 fmW  cFY\n")),
        "t.var:6:26: bad Betza \"fmW cFY\": unknown Betza letter 'Y'"
    );
}

#[test]
fn board_sizes_outside_1_to_10() {
    assert_eq!(
        first_error(&BASE.replace("board 8x8", "board 0x8")),
        "t.var:2:7: board 0x8: files and ranks must each be between 1 and 10"
    );
    assert_eq!(
        first_error(&BASE.replace("board 8x8", "board 17x8")),
        "t.var:2:7: board 17x8: files and ranks must each be between 1 and 10"
    );
}

#[test]
fn start_fen_must_match_the_board() {
    assert_eq!(
        first_error(&BASE.replace("board 8x8", "board 10x8")),
        "t.var:3:7: bad start FEN: FEN rank 8 has 8 squares, the board has 10 files"
    );
}

#[test]
fn missing_king_in_start_position() {
    assert_eq!(
        first_error(&BASE.replace("4k3/8", "8/8")),
        "t.var:3:7: bad start FEN: black must have exactly one king (found 0)"
    );
}

#[test]
fn missing_royal_directive() {
    assert_eq!(first_error(&BASE.replace("royal K\n", "")), "t.var: missing 'royal' (the piece to checkmate)");
}

#[test]
fn unknown_piece_letter_in_a_directive() {
    assert_eq!(first_error(&format!("{BASE}promote P to Q\n")), "t.var:6:9: unknown piece letter 'P'");
}

#[test]
fn bad_betza_ranges_and_modifiers() {
    assert_eq!(
        first_error(&format!("{BASE}piece X thing 300 W..3\n")),
        "t.var:6:20: bad Betza \"W..3\": a range needs a number before '..'"
    );
    assert_eq!(
        first_error(&format!("{BASE}piece X thing 300 pN\n")),
        "t.var:6:19: bad Betza \"pN\": 'p' (hopper) needs a rider such as R, B, Q or WW"
    );
}

#[test]
fn a_failed_load_keeps_the_registry() {
    let mut reg = Registry::builtin();
    let before = reg.names();
    assert!(reg.load_text("x.var", "name chess\nboard 8x8\n").is_err());
    assert_eq!(reg.names(), before);
    assert_eq!(reg.get("chess").expect("chess").pieces.len(), 6);
}

#[test]
fn inherit_and_override() {
    let mut reg = Registry::builtin();
    let v = reg
        .load_text("mini.var", "name minicapa\ninherit capablanca\npromote P to Q\ndescription test\n")
        .expect("loads");
    assert_eq!(v.shape.files, 10);
    let pawn = v.kind_of_letter('P').expect("pawn");
    let queen = v.kind_of_letter('Q').expect("queen");
    assert_eq!(v.promotions.0[0][pawn.index()], vec![queen], "the later promote replaces the inherited one");
    assert_eq!(v.description, "test");
    assert!(reg.get("minicapa").is_some());
}

/// Found by the long fuzz run: a directive missing its piece letter panicked.
#[test]
fn directive_without_its_piece_letter() {
    assert_eq!(first_error(&format!("{BASE}succession\n")), "t.var:6:1: 'succession' needs a piece letter");
    assert_eq!(
        first_error(&format!("{BASE}setup-opposite-colours\n")),
        "t.var:6:1: 'setup-opposite-colours' needs a piece letter"
    );
}

/// A variant whose positions could overflow the move list is refused: 20
/// kinds in hand on a 10x10 board allow some 2 000 drops.
#[test]
fn too_many_moves_for_the_move_list() {
    let letters = "ABCDEFGHIJLMNOPQRSTU";
    let mut text = format!("name t\nboard 10x10\nstart 4k5/10/10/10/10/10/10/10/10/4K5[{letters}] w - - 0 1\n");
    text.push_str("piece K king 0 K\nroyal K\nhand\n");
    for letter in letters.chars() {
        text.push_str(&format!("piece {letter} stepper 100 W\n"));
    }
    assert_eq!(
        first_error(&text),
        "t.var:3:7: too many moves: a position could have up to 2188, a move list holds 2048"
    );
}

/// A FEN with more men than any game of the variant reaches is refused the
/// same way: fifty maharajas (queen + knight) could have over 2 000 moves.
#[test]
fn too_many_moves_in_a_fen() {
    let clash1 = Registry::builtin().get("clash1").expect("clash1 ships");
    let crowd = "MMMMMMMMMM/".repeat(5);
    let fen = format!("k9/10/{crowd}10/10/9K b - - 0 1");
    let error = menagerie::board::position::Position::from_fen(clash1.clone(), &fen).expect_err("too many men");
    assert!(error.to_string().starts_with("too many moves: a position could have up to "), "{error}");
    let fewer = format!("k9/10/{}10/10/10/10/10/9K b - - 0 1", "MMMMMMMMMM/".repeat(2));
    assert!(menagerie::board::position::Position::from_fen(clash1, &fewer).is_ok());
}

#[test]
fn dead_position_rules_and_their_errors() {
    let with_minors = format!("{BASE}piece N knight 300 N\npiece B bishop 300 B\n");
    let reg = Registry::builtin();
    let v = reg.parse_text("t.var", &format!("{with_minors}dead K v K\ndead KB* v KB*  same-colour\n")).expect("loads");
    assert_eq!(v.end.dead.len(), 2);
    let bishop = v.kind_of_letter('B').expect("bishop");
    let rule = &v.end.dead[1];
    assert!(rule.same_colour);
    assert_eq!(rule.sides[0].counts[bishop.index()], 0);
    assert_eq!(rule.sides[0].more, 1 << bishop.0);
    for (line, error) in [
        ("dead KX v K", "t.var:8:7: unknown piece letter 'X'"),
        ("dead K v Kb", "t.var:8:11: expected upper-case piece letters, found 'b'"),
        ("dead *K v K", "t.var:8:6: '*' follows a piece letter (KB*: a king and any number of B)"),
        ("dead KB K", "t.var:8:9: expected 'v' between the two sides, found \"K\""),
        ("dead KB v", "t.var:8:9: usage: dead MEN v MEN [same-colour] (e.g. dead KB v K), or dead none"),
        ("dead", "t.var:8:1: usage: dead MEN v MEN [same-colour] (e.g. dead KB v K), or dead none"),
        ("dead KB v K same-color", "t.var:8:13: expected 'same-colour' or the end of the line, found \"same-color\""),
        (
            "dead KB v K same-colour now",
            "t.var:8:25: usage: dead MEN v MEN [same-colour] (e.g. dead KB v K), or dead none",
        ),
        ("dead B v K", "t.var:8:6: each side of a dead position has one royal piece: K exactly once"),
        ("dead KB v KK*", "t.var:8:11: each side of a dead position has one royal piece: K exactly once"),
    ] {
        assert_eq!(first_error(&format!("{with_minors}{line}\n")), error, "{line}");
    }
}

#[test]
fn dead_none_drops_the_inherited_rules() {
    let reg = Registry::builtin();
    assert_eq!(reg.get("chess").expect("chess").end.dead.len(), 3);
    assert_eq!(reg.get("capablanca").expect("capablanca").end.dead.len(), 3, "inherited from chess");
    assert!(reg.get("clockwork").expect("clockwork").end.dead.is_empty(), "clockwork says dead none");
    let v = reg.parse_text("t.var", "name t\ninherit chess\ndead none\ndead KN v K\n").expect("loads");
    assert_eq!(v.end.dead.len(), 1);
    let knight = v.kind_of_letter('N').expect("knight");
    assert_eq!(v.end.dead[0].sides[0].counts[knight.index()], 1);
}
