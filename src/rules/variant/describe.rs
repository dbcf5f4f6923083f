//! A variant's pieces in words, for people: how each man moves, written from
//! its compiled move rules (so a user's own variant is described too), and
//! what the variant's rules say about it (royalty, promotion, en passant,
//! castling, hands and drops, setup swaps, succession). The terminal's
//! `legend` and the board's legend both read it.

use super::Variant;
use crate::rules::motion::{Mode, Motion, MoveRule, UNLIMITED};
use crate::rules::piece::{Color, PieceKind};

/// One line of a variant's legend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PieceLegend {
    /// White's letter.
    pub letter: char,
    /// The name as people read it (`nc rook` for `nc-rook`).
    pub name: String,
    /// How it moves, one sentence or a few.
    pub moves: String,
    /// What the variant's rules add, each a sentence.
    pub notes: Vec<String>,
}

/// A piece name as people read it: the file's name with `-` and `_` as spaces.
pub fn display_name(name: &str) -> String {
    name.replace(['-', '_'], " ")
}

/// The legend of every piece of `v`, in declaration order.
pub fn legend(v: &Variant) -> Vec<PieceLegend> {
    (0..v.kind_count()).map(|k| describe_piece(v, PieceKind(k as u8))).collect()
}

/// The legend line of one kind.
pub fn describe_piece(v: &Variant, kind: PieceKind) -> PieceLegend {
    let def = &v.pieces[kind.index()];
    PieceLegend {
        letter: def.letter,
        name: display_name(&def.name),
        moves: describe_rules(&def.rules),
        notes: notes(v, kind),
    }
}

/// How a leap is repeated, with what the words need to know.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Leap,
    Lame,
    Ride(u8, u8),
    Hop,
    Bent { second: (u8, u8), min: u8, max: u8 },
}

/// Rules that read as one clause: the same atom, motion, mode and initial
/// condition, in a set of directions.
#[derive(Clone, Debug)]
struct Group {
    atom: (u8, u8),
    kind: Kind,
    mode: Mode,
    initial: bool,
    dirs: Vec<(i8, i8)>,
}

/// All symmetric images of an atom.
fn images(atom: (u8, u8)) -> Vec<(i8, i8)> {
    let (a, b) = (atom.0 as i8, atom.1 as i8);
    let mut out: Vec<(i8, i8)> = Vec::new();
    for (x, y) in [(a, b), (b, a)] {
        for (sx, sy) in [(1, 1), (1, -1), (-1, 1), (-1, -1)] {
            let d = (x * sx, y * sy);
            if !out.contains(&d) {
                out.push(d);
            }
        }
    }
    out
}

fn atom_of(dx: i8, dy: i8) -> (u8, u8) {
    let (a, b) = (dx.unsigned_abs(), dy.unsigned_abs());
    (a.max(b), a.min(b))
}

fn groups(rules: &[MoveRule]) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for r in rules {
        let kind = match r.motion {
            Motion::Leap => Kind::Leap,
            Motion::Lame { .. } => Kind::Lame,
            Motion::Ride { min, max } => Kind::Ride(min, max),
            Motion::Hop => Kind::Hop,
            Motion::Bent { second, min, max } => Kind::Bent { second: atom_of(second.0, second.1), min, max },
        };
        let atom = atom_of(r.dx, r.dy);
        match out
            .iter_mut()
            .find(|g| g.atom == atom && g.kind == kind && g.mode == r.mode && g.initial == r.initial_only)
        {
            Some(g) => {
                if !g.dirs.contains(&(r.dx, r.dy)) {
                    g.dirs.push((r.dx, r.dy));
                }
            }
            None => out.push(Group { atom, kind, mode: r.mode, initial: r.initial_only, dirs: vec![(r.dx, r.dy)] }),
        }
    }
    out
}

/// The directions of a group in words: `orthogonally`, `diagonally forward`,
/// `straight forward or sideways`; `None` when the set is every direction of
/// an oblique leap (a knight's: nothing to say).
fn directions(atom: (u8, u8), dirs: &[(i8, i8)]) -> Option<String> {
    let all = images(atom);
    let set = |pred: &dyn Fn((i8, i8)) -> bool| -> Vec<(i8, i8)> { all.iter().copied().filter(|&d| pred(d)).collect() };
    let same = |a: &[(i8, i8)], b: &[(i8, i8)]| a.len() == b.len() && a.iter().all(|d| b.contains(d));
    let orth = atom.1 == 0;
    let diag = atom.0 == atom.1;
    if same(dirs, &all) {
        return if orth {
            Some("orthogonally".to_string())
        } else if diag {
            Some("diagonally".to_string())
        } else {
            None
        };
    }
    // One part per side of the board: forward, sideways, backward.
    let mut parts: Vec<String> = Vec::new();
    for (word, sign) in [("forward", 1), ("sideways", 0), ("backward", -1)] {
        let here: Vec<(i8, i8)> = dirs.iter().copied().filter(|&d| d.1.signum() == sign).collect();
        if here.is_empty() {
            continue;
        }
        let whole = set(&|d: (i8, i8)| d.1.signum() == sign);
        let text = if same(&here, &whole) {
            match (word, orth, diag) {
                ("sideways", _, _) => "sideways".to_string(),
                (w, true, _) => format!("straight {w}"),
                (w, _, true) => format!("diagonally {w}"),
                (w, _, _) => w.to_string(),
            }
        } else {
            let named: Vec<String> = here
                .iter()
                .map(|&(dx, dy)| {
                    let side = if dx < 0 {
                        "left"
                    } else if dx > 0 {
                        "right"
                    } else {
                        ""
                    };
                    match (word, side) {
                        ("sideways", s) => format!("to the {s}"),
                        (w, "") => format!("straight {w}"),
                        (w, s) if diag => format!("diagonally {w} to the {s}"),
                        (w, s) => format!("{w} to the {s} ({dx:+},{dy:+})"),
                    }
                })
                .collect();
            named.join(" or ")
        };
        parts.push(text);
    }
    Some(parts.join(" or "))
}

fn number_word(n: u8) -> String {
    match n {
        1 => "one".to_string(),
        2 => "two".to_string(),
        3 => "three".to_string(),
        4 => "four".to_string(),
        5 => "five".to_string(),
        n => n.to_string(),
    }
}

/// A named oblique leap: `like a knight (two squares one way, one the other)`.
fn oblique(atom: (u8, u8)) -> String {
    let name = match atom {
        (2, 1) => "a knight",
        (3, 1) => "a camel",
        (3, 2) => "a zebra",
        (4, 1) => "a giraffe (4,1)",
        _ => "",
    };
    let shape = format!("{} squares one way, {} the other", number_word(atom.0), number_word(atom.1));
    if name.is_empty() {
        format!("({shape})")
    } else {
        format!("like {name} ({shape})")
    }
}

/// The number of squares a ride covers: `any distance`, `1 to 3 squares`,
/// `3 or more squares`.
fn ride_range(min: u8, max: u8) -> String {
    match (min, max) {
        (1, UNLIMITED) => "any distance".to_string(),
        (m, UNLIMITED) => format!("{m} or more squares"),
        (1, 1) => "one square".to_string(),
        (m, n) if m == n => format!("exactly {m} squares"),
        (1, n) => format!("up to {n} squares"),
        (m, n) => format!("{m} to {n} squares"),
    }
}

/// A clause's verb (third person) and its gerund, and the rest of the clause.
fn clause(g: &Group, dirs: Option<String>) -> (&'static str, &'static str, String) {
    let dir = dirs.map_or(String::new(), |d| format!(" {d}"));
    let step = g.atom.0 == 1;
    match g.kind {
        Kind::Leap if step => ("steps", "stepping", format!("one square{dir}")),
        Kind::Leap if g.atom.1 == 0 || g.atom.0 == g.atom.1 => {
            ("jumps", "jumping", format!("{} squares{dir}, over anything between", number_word(g.atom.0)))
        }
        Kind::Leap => ("jumps", "jumping", format!("{}{dir}, over anything between", oblique(g.atom))),
        Kind::Lame if g.atom.1 == 0 || g.atom.0 == g.atom.1 => {
            ("moves", "moving", format!("{} squares{dir} if the square between is empty", number_word(g.atom.0)))
        }
        Kind::Lame => ("moves", "moving", format!("{}{dir} if the first square on its way is empty", oblique(g.atom))),
        Kind::Ride(min, max) if step => ("slides", "sliding", format!("{}{dir}", ride_range(min, max))),
        Kind::Ride(min, max) => {
            let n = match (min, max) {
                (1, UNLIMITED) => "any number of".to_string(),
                (m, n) => ride_range(m, n).replace(" squares", "").replace("square", "").trim().to_string(),
            };
            let leap = if g.atom.1 == 0 || g.atom.0 == g.atom.1 {
                format!("{}-square leaps", number_word(g.atom.0))
            } else {
                format!("leaps {}", oblique(g.atom))
            };
            ("rides", "riding", format!("{n} {leap}{dir} in one straight line"))
        }
        Kind::Hop if g.mode == Mode::Quiet => {
            ("hops", "hopping", format!("over one man{dir} to any empty square beyond it"))
        }
        Kind::Hop => ("hops", "hopping", format!("over one man{dir} (the screen) onto the first man beyond it")),
        Kind::Bent { second, min, max } => {
            let first =
                if g.atom == (1, 1) { "one square diagonally".to_string() } else { format!("one leap {:?}", g.atom) };
            let leg = if second.1 == 0 { "straight outward" } else { "outward" };
            ("moves", "moving", format!("{first} to an empty square, then {} {leg}", ride_range(min, max)))
        }
    }
}

/// How a man with these rules moves, in words: `Slides any distance
/// orthogonally.`, `Steps one square straight forward without capturing;
/// captures by stepping one square diagonally forward; …`.
pub fn describe_rules(rules: &[MoveRule]) -> String {
    let mut groups = groups(rules);
    // Orthogonal and diagonal twins read as one: a king, a queen, a fil's jumps.
    let mut merged: Vec<(Group, Option<String>)> = Vec::new();
    while !groups.is_empty() {
        let g = groups.remove(0);
        let twin = groups.iter().position(|o| {
            o.mode == g.mode
                && o.initial == g.initial
                && o.kind == g.kind
                && o.atom.0 == g.atom.0
                && ((g.atom.1 == 0 && o.atom.1 == o.atom.0) || (o.atom.1 == 0 && g.atom.1 == g.atom.0))
        });
        let text = directions(g.atom, &g.dirs);
        match twin {
            Some(i) => {
                let o = groups.remove(i);
                let other = directions(o.atom, &o.dirs);
                let both = match (text.as_deref(), other.as_deref()) {
                    (Some("orthogonally"), Some("diagonally")) | (Some("diagonally"), Some("orthogonally")) => {
                        "in any direction".to_string()
                    }
                    (a, b) => {
                        let (orth, diag) = if g.atom.1 == 0 { (a, b) } else { (b, a) };
                        format!("{} or {}", orth.unwrap_or(""), diag.unwrap_or(""))
                    }
                };
                merged.push((Group { dirs: [g.dirs, o.dirs].concat(), ..g }, Some(both)));
            }
            None => merged.push((g, text)),
        }
    }
    let captures = merged.iter().any(|(g, _)| g.mode != Mode::Quiet);
    let quiet_only = merged.iter().all(|(g, _)| g.mode == Mode::Quiet);
    let mut clauses: Vec<String> = Vec::new();
    for (g, dirs) in &merged {
        let (verb, gerund, rest) = clause(g, dirs.clone());
        let initial = if g.initial { ", only from its initial rank" } else { "" };
        let text = match g.mode {
            Mode::Capture => format!("captures by {gerund} {rest}{initial}"),
            Mode::Quiet if captures && g.kind != Kind::Hop => format!("{verb} {rest}{initial}, without capturing"),
            _ => format!("{verb} {rest}{initial}"),
        };
        clauses.push(text);
    }
    let mut text = clauses.join("; ");
    if quiet_only {
        text.push_str("; never captures");
    }
    if let Some(first) = text.get(..1) {
        text = first.to_uppercase() + &text[1..];
    }
    text.push('.');
    text
}

fn ordinal(n: u8) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, r) if r != 11 => "st",
        (2, r) if r != 12 => "nd",
        (3, r) if r != 13 => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The relative rank (1-based, from `color`'s side) of absolute rank index `rank`.
fn relative_rank(v: &Variant, color: Color, rank: u8) -> u8 {
    match color {
        Color::White => rank + 1,
        Color::Black => v.shape.ranks - rank,
    }
}

fn names(v: &Variant, kinds: impl Iterator<Item = PieceKind>) -> String {
    let list: Vec<String> = kinds.map(|k| display_name(&v.pieces[k.index()].name)).collect();
    match list.len() {
        0 => String::new(),
        1 => list[0].clone(),
        n => format!("{} or {}", list[..n - 1].join(", "), list[n - 1]),
    }
}

fn kinds_in(v: &Variant, mask: u32) -> impl Iterator<Item = PieceKind> + '_ {
    (0..v.kind_count() as u8).filter(move |k| mask >> k & 1 != 0).map(PieceKind)
}

/// What the variant's rules say about `kind`, each a sentence.
fn notes(v: &Variant, kind: PieceKind) -> Vec<String> {
    let mut out = Vec::new();
    let k = kind.index();
    if v.royal == Some(kind) {
        out.push("Royal: it must never be left in check; checkmating it wins.".to_string());
    }
    if let Some(c) = &v.castling {
        if v.royal == Some(kind) {
            out.push(format!("Castles with the {}.", display_name(&v.pieces[c.rook.index()].name)));
        } else if c.rook == kind {
            out.push("Castles with the king.".to_string());
        }
    }
    if v.is_en_passant_kind(kind) {
        out.push("Takes en passant, and can be taken so after a double step.".to_string());
    }
    let promo = |color: Color| -> Option<String> {
        let choices = v.promotions[color].get(k).filter(|p| !p.is_empty())?;
        let rank = relative_rank(v, color, v.promotion_rank[color]);
        let last = if rank == v.shape.ranks { " (its last)".to_string() } else { String::new() };
        Some(format!("on its {} rank{last} to {}", ordinal(rank), names(v, choices.iter().copied())))
    };
    match (promo(Color::White), promo(Color::Black)) {
        (Some(w), Some(b)) if w == b => out.push(format!("Promotes {w}.")),
        (w, b) => {
            if let Some(w) = w {
                out.push(format!("For White it promotes {w}."));
            }
            if let Some(b) = b {
                out.push(format!("For Black it promotes {b}."));
            }
        }
    }
    if v.hands {
        let back = v.capture_to_hand[k];
        if back == kind {
            out.push("Captured, it goes to its owner's hand.".to_string());
        } else {
            let name = display_name(&v.pieces[back.index()].name);
            out.push(format!(
                "Captured, it goes back to its owner's hand, turned into the {name} ({}).",
                v.pieces[back.index()].letter
            ));
        }
        let forbidden: Vec<u8> = (0..v.shape.ranks)
            .filter(|&r| v.drop_forbidden[Color::White][k] >> r & 1 != 0)
            .map(|r| relative_rank(v, Color::White, r))
            .collect();
        let ranks: Vec<String> = forbidden.iter().map(|&r| ordinal(r)).collect();
        match ranks.len() {
            0 => out.push("From the hand it may be dropped on any empty square.".to_string()),
            _ => out.push(format!(
                "From the hand it may be dropped on any empty square but its {} rank.",
                ranks.join(" or ")
            )),
        }
    }
    if let Some(setup) = &v.setup {
        if setup.movers >> kind.0 & 1 != 0 {
            let partners = kinds_in(v, setup.partners).filter(|&p| p != kind);
            out.push(format!("Before play it may swap places with its own {} (the setup phase).", names(v, partners)));
        }
    }
    if v.succession == Some(kind) {
        let king = v.royal.map_or_else(|| "king".to_string(), |r| display_name(&v.pieces[r.index()].name));
        out.push(format!(
            "Succession: a {king} that would be checkmated may swap places with it while it is not attacked."
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::registry::Registry;

    fn moves(variant: &str, letter: char) -> String {
        let reg = Registry::builtin();
        let v = reg.get(variant).unwrap();
        let kind = v.kind_of_letter(letter).unwrap();
        describe_piece(&v, kind).moves
    }

    #[test]
    fn the_shipped_pieces_in_words() {
        assert_eq!(moves("chess", 'K'), "Steps one square in any direction.");
        assert_eq!(moves("chess", 'Q'), "Slides any distance in any direction.");
        assert_eq!(moves("chess", 'R'), "Slides any distance orthogonally.");
        assert_eq!(moves("chess", 'B'), "Slides any distance diagonally.");
        assert_eq!(
            moves("chess", 'N'),
            "Jumps like a knight (two squares one way, one the other), over anything between."
        );
        assert_eq!(
            moves("chess", 'P'),
            "Steps one square straight forward, without capturing; captures by stepping one square diagonally \
             forward; moves two squares straight forward if the square between is empty, only from its initial \
             rank, without capturing."
        );
        assert_eq!(moves("clockwork", 'U'), "Slides any distance orthogonally; never captures.");
        assert_eq!(
            moves("clash1", 'H'),
            "Slides any distance orthogonally, without capturing; captures by hopping over one man orthogonally \
             (the screen) onto the first man beyond it."
        );
        assert_eq!(
            moves("clash1", 'F'),
            "Steps one square in any direction; jumps two squares in any direction, over anything between."
        );
        assert_eq!(
            moves("clash1", 'U'),
            "Rides any number of leaps like a knight (two squares one way, one the other) in one straight line."
        );
        assert_eq!(
            moves("clash1", 'G'),
            "Moves one square diagonally to an empty square, then 3 or more squares straight outward."
        );
        assert_eq!(moves("clash5", 'S'), "Steps one square straight forward or diagonally forward.");
        assert!(moves("clash1", 'M').starts_with("Slides any distance in any direction; jumps like a knight"));
    }

    #[test]
    fn the_variant_rules_in_notes() {
        let reg = Registry::builtin();
        let v = reg.get("clockwork").unwrap();
        let pawn = describe_piece(&v, v.kind_of_letter('P').unwrap());
        assert!(
            pawn.notes.contains(&"Promotes on its 8th rank (its last) to queen, rook, bishop or knight.".to_string()),
            "{pawn:?}"
        );
        assert!(
            pawn.notes
                .contains(&"Captured, it goes back to its owner's hand, turned into the nc pawn (S).".to_string()),
            "{pawn:?}"
        );
        assert!(pawn.notes.iter().any(|n| n.ends_with("any empty square but its 8th rank.")), "{pawn:?}");
        let v = reg.get("clash5").unwrap();
        let joker = describe_piece(&v, v.kind_of_letter('J').unwrap());
        assert_eq!(joker.name, "joker");
        assert!(joker.notes[0].starts_with("Succession: a king that would be checkmated"), "{joker:?}");
        let v = reg.get("relocation").unwrap();
        let king = describe_piece(&v, v.kind_of_letter('K').unwrap());
        assert!(king.notes.iter().any(|n| n.contains("swap places with its own")), "{king:?}");
        assert_eq!(display_name("special-pawn"), "special pawn");
    }

    #[test]
    fn unusual_rules_still_read() {
        let rules = crate::rules::betza::parse("fN bW2 ifrF W2..4 [F-W3..] DD").unwrap();
        let text = describe_rules(&rules);
        assert!(text.starts_with(char::is_uppercase) && text.ends_with('.'), "{text}");
        assert!(text.contains("forward"), "{text}");
        assert!(text.contains("2 to 4 squares"), "{text}");
    }
}
