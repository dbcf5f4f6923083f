//! A game analysed move by move from an engine's assessments of its positions:
//! the score after every move (White's view), the loss of each move against
//! the engine's best (in centipawns and in winning chances), the marks
//! `?!`/`?`/`??`, a summary per side, and the annotated PGN (`[%eval]`
//! comments as lichess writes them, the better line as a variation) and JSON.
//! Pure computation: the searching is done above, by whoever fills the
//! [`Probe`]s (the in-process engine or an external one).
//!
//! The marks follow lichess: a move's loss is the drop of the mover's winning
//! chances, `2 / (1 + exp(-0.00368208 * cp)) - 1` (cp clamped to ±1000, a mate
//! counted as ±1000), from the best move's score to the played move's;
//! at least 0.1 is an inaccuracy, 0.2 a mistake, 0.3 a blunder (5, 10 and 15
//! points of winning percentage). A move the engine itself chose is never
//! marked.
//!
//! Each move's accuracy and each side's game accuracy follow lichess too
//! ([`super::accuracy`]), from the same drops of winning chances.

use serde_json::{json, Value};

use super::accuracy::{game_accuracy, move_accuracy};
use super::san::{line_to_san, move_to_san, numbered_line};
use crate::board::position::Position;
use crate::rules::moves::Move;
use crate::rules::piece::Color;

/// What an engine said about one position: its best move and line (UCI
/// text) and the score from the side to move's point of view.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Probe {
    /// The best move, None when the engine gave none.
    pub best: Option<String>,
    /// Score in centipawns (side to move's view).
    pub cp: Option<i32>,
    /// Mate in this many moves (negative: being mated).
    pub mate: Option<i32>,
    /// The principal variation, starting with the best move.
    pub pv: Vec<String>,
    /// Depth reached.
    pub depth: u32,
}

/// A position's value from White's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Eval {
    /// Centipawns (positive: White is better).
    Cp(i32),
    /// Mate in this many moves (positive: White mates, negative: Black mates).
    Mate(i32),
    /// The game is over by the rules: won by this side.
    Won(Color),
    /// The game is over by the rules: a draw.
    Drawn,
}

/// How much of the engine's line a move's analysis keeps (the variation after a marked move).
const VARIATION_MOVES: usize = 8;

/// Scores beyond this many centipawns count as this many (lichess's cap).
pub const CP_CAP: i32 = 1000;

impl Eval {
    /// The value of a score given from `side`'s (the side to move's) point of
    /// view; None without a score.
    pub fn from_side(cp: Option<i32>, mate: Option<i32>, side: Color) -> Option<Eval> {
        let sign = if side == Color::White { 1 } else { -1 };
        match (mate, cp) {
            (Some(m), _) => Some(Eval::Mate(m * sign)),
            (None, Some(cp)) => Some(Eval::Cp(cp * sign)),
            (None, None) => None,
        }
    }

    /// Centipawns from `pov`'s point of view, clamped to ±[`CP_CAP`] (a mate
    /// or a won game counts as the cap).
    pub fn centipawns(self, pov: Color) -> i32 {
        let white = match self {
            Eval::Cp(cp) => cp.clamp(-CP_CAP, CP_CAP),
            Eval::Mate(m) if m >= 0 => CP_CAP,
            Eval::Mate(_) => -CP_CAP,
            Eval::Won(Color::White) => CP_CAP,
            Eval::Won(Color::Black) => -CP_CAP,
            Eval::Drawn => 0,
        };
        if pov == Color::White {
            white
        } else {
            -white
        }
    }

    /// Winning chances from `pov`'s point of view, -1 (lost) to 1 (won).
    pub fn chances(self, pov: Color) -> f64 {
        match self {
            Eval::Won(c) => {
                if c == pov {
                    1.0
                } else {
                    -1.0
                }
            }
            _ => {
                let cp = f64::from(self.centipawns(pov));
                2.0 / (1.0 + (-0.003_682_08 * cp).exp()) - 1.0
            }
        }
    }

    /// lichess's Win% from `pov`'s point of view, 0 to 100 (50 + 50 × chances).
    pub fn win_percent(self, pov: Color) -> f64 {
        50.0 + 50.0 * self.chances(pov)
    }

    /// The `[%eval]` text: `0.35`, `-1.20`, `#3`, `#-2`; a draw by the rules
    /// is `0.00`, and a game won by the rules has none.
    pub fn pgn_text(self) -> Option<String> {
        match self {
            Eval::Cp(cp) => Some(format!("{:.2}", f64::from(cp) / 100.0)),
            Eval::Mate(m) => Some(format!("#{m}")),
            Eval::Drawn => Some("0.00".to_string()),
            Eval::Won(_) => None,
        }
    }

    /// The score as a person reads it: `+0.35`, `-1.20`, `#3`, `#-2`,
    /// `1-0`, `0-1`, `1/2`.
    pub fn display(self) -> String {
        match self {
            Eval::Cp(cp) => format!("{:+.2}", f64::from(cp) / 100.0),
            Eval::Mate(m) => format!("#{m}"),
            Eval::Won(Color::White) => "1-0".to_string(),
            Eval::Won(Color::Black) => "0-1".to_string(),
            Eval::Drawn => "1/2".to_string(),
        }
    }

    /// As JSON: `{"cp": 35}`, `{"mate": -2}`, `{"result": "1-0"}`.
    pub fn json(self) -> Value {
        match self {
            Eval::Cp(cp) => json!({ "cp": cp }),
            Eval::Mate(m) => json!({ "mate": m }),
            Eval::Won(Color::White) => json!({ "result": "1-0" }),
            Eval::Won(Color::Black) => json!({ "result": "0-1" }),
            Eval::Drawn => json!({ "result": "1/2-1/2" }),
        }
    }
}

/// How bad a move was.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mark {
    /// `?!`
    Inaccuracy,
    /// `?`
    Mistake,
    /// `??`
    Blunder,
}

impl Mark {
    /// The PGN suffix.
    pub fn symbol(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "?!",
            Mark::Mistake => "?",
            Mark::Blunder => "??",
        }
    }
    /// The word.
    pub fn name(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "Inaccuracy",
            Mark::Mistake => "Mistake",
            Mark::Blunder => "Blunder",
        }
    }
}

/// The least drop of winning chances (on the -1..1 scale) for each mark.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// `?!`
    pub inaccuracy: f64,
    /// `?`
    pub mistake: f64,
    /// `??`
    pub blunder: f64,
}

impl Thresholds {
    /// lichess's: 0.1, 0.2, 0.3.
    pub const LICHESS: Thresholds = Thresholds { inaccuracy: 0.1, mistake: 0.2, blunder: 0.3 };

    /// The mark a drop of `drop` winning chances earns.
    pub fn mark(&self, drop: f64) -> Option<Mark> {
        if drop >= self.blunder {
            Some(Mark::Blunder)
        } else if drop >= self.mistake {
            Some(Mark::Mistake)
        } else if drop >= self.inaccuracy {
            Some(Mark::Inaccuracy)
        } else {
            None
        }
    }
}

/// One position as assessed: its value (White's view) and, when an engine
/// searched it, the best move and line.
#[derive(Clone, Debug, PartialEq)]
pub struct Assessment {
    /// The position's value.
    pub eval: Eval,
    /// The engine's best move (UCI text), if it searched.
    pub best: Option<String>,
    /// The engine's line (UCI text), starting with `best`.
    pub line: Vec<String>,
}

impl Assessment {
    /// The assessment of a searched position (`side` to move); None when the
    /// probe has no score.
    pub fn from_probe(probe: &Probe, side: Color) -> Option<Assessment> {
        let eval = Eval::from_side(probe.cp, probe.mate, side)?;
        let mut line = probe.pv.clone();
        if let Some(best) = &probe.best {
            if line.first() != Some(best) {
                line = vec![best.clone()];
            }
        }
        Some(Assessment { eval, best: probe.best.clone(), line })
    }
}

/// One move of the game, analysed.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveAnalysis {
    /// 1-based ply.
    pub ply: usize,
    /// Full-move number.
    pub number: u32,
    /// True for White's moves.
    pub white: bool,
    /// SAN as played.
    pub san: String,
    /// UCI text.
    pub uci: String,
    /// The value before the move (the best move's), White's view.
    pub before: Eval,
    /// The value after the move, White's view.
    pub after: Eval,
    /// The engine's best move in the position before, as SAN.
    pub best_san: Option<String>,
    /// The engine's best move as UCI text.
    pub best_uci: Option<String>,
    /// The engine's line from the position before, as SAN.
    pub line_san: Vec<String>,
    /// Centipawns lost against the best move (capped values, never negative).
    pub loss_cp: i32,
    /// Winning chances lost (0 to 2).
    pub chance_loss: f64,
    /// The move's accuracy as lichess computes it, 0 to 100.
    pub accuracy: f64,
    /// The mark, if the move earns one.
    pub mark: Option<Mark>,
}

/// What one side's moves came to.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SideSummary {
    /// Moves analysed.
    pub moves: usize,
    /// Average centipawn loss.
    pub acpl: f64,
    /// The game accuracy as lichess computes it, 0 to 100 (None without moves).
    pub accuracy: Option<f64>,
    /// `?!` count.
    pub inaccuracies: usize,
    /// `?` count.
    pub mistakes: usize,
    /// `??` count.
    pub blunders: usize,
}

impl SideSummary {
    /// `accuracy 87%, average centipawn loss 24, 1 inaccuracy, 0 mistakes, 1 blunder`.
    pub fn text(&self) -> String {
        let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let accuracy = self.accuracy.map_or(String::new(), |a| format!("accuracy {a:.0}%, "));
        format!(
            "{accuracy}average centipawn loss {:.0}, {}, {}, {}",
            self.acpl,
            plural(self.inaccuracies, "inaccuracy", "inaccuracies"),
            plural(self.mistakes, "mistake", "mistakes"),
            plural(self.blunders, "blunder", "blunders")
        )
    }

    fn json(&self) -> Value {
        json!({
            "moves": self.moves,
            "acpl": (self.acpl * 10.0).round() / 10.0,
            "accuracy": self.accuracy.map(|a| (a * 10.0).round() / 10.0),
            "inaccuracies": self.inaccuracies,
            "mistakes": self.mistakes,
            "blunders": self.blunders,
        })
    }
}

/// A whole game, analysed.
#[derive(Clone, Debug, PartialEq)]
pub struct GameAnalysis {
    /// Every move in order.
    pub moves: Vec<MoveAnalysis>,
    /// White's and Black's summaries.
    pub summary: [SideSummary; 2],
    /// The value of the start position.
    pub start: Eval,
}

/// Analyses the game `moves` from `start`, given the assessment of each of its
/// positions (`assessments[i]` before move `i`, one more at the end).
pub fn analyse_moves(
    start: &Position,
    moves: &[Move],
    assessments: &[Assessment],
    thresholds: &Thresholds,
) -> GameAnalysis {
    let mut pos = start.clone();
    let mut analysed = Vec::with_capacity(moves.len());
    let mut totals = [(0usize, 0i64, [0usize; 3]); 2];
    for (i, &m) in moves.iter().enumerate() {
        let (Some(before), Some(after)) = (assessments.get(i), assessments.get(i + 1)) else { break };
        let mover = pos.side_to_move();
        let uci = pos.move_to_uci(m, false);
        let san = move_to_san(&mut pos, m);
        let number = u32::from(pos.state().fullmove);
        let engine_choice = before.best.as_deref() == Some(uci.as_str());
        let (loss_cp, chance_loss) = if engine_choice {
            (0, 0.0)
        } else {
            let cp = (before.eval.centipawns(mover) - after.eval.centipawns(mover)).max(0);
            (cp, (before.eval.chances(mover) - after.eval.chances(mover)).max(0.0))
        };
        let mark = thresholds.mark(chance_loss);
        // The drop in Win% is 50 times the drop in chances (a best move drops nothing).
        let accuracy = move_accuracy(50.0 * chance_loss, 0.0);
        let line = line_to_san(&pos, &before.line[..before.line.len().min(VARIATION_MOVES)]);
        let side = usize::from(mover == Color::Black);
        totals[side].0 += 1;
        totals[side].1 += i64::from(loss_cp);
        if let Some(mark) = mark {
            totals[side].2[mark as usize] += 1;
        }
        analysed.push(MoveAnalysis {
            ply: i + 1,
            number,
            white: mover == Color::White,
            san,
            uci,
            before: before.eval,
            after: after.eval,
            best_san: line.first().cloned(),
            best_uci: before.best.clone(),
            line_san: line,
            loss_cp,
            chance_loss,
            accuracy,
            mark,
        });
        pos.make(m);
    }
    let wins: Vec<f64> =
        assessments.iter().take(analysed.len() + 1).map(|a| a.eval.win_percent(Color::White)).collect();
    let accuracies: Vec<f64> = analysed.iter().map(|m| m.accuracy).collect();
    let accuracy = game_accuracy(&wins, &accuracies, start.side_to_move() == Color::White);
    let summary = [0, 1].map(|side| {
        let (moves, loss, marks) = totals[side];
        SideSummary {
            moves,
            acpl: if moves == 0 { 0.0 } else { loss as f64 / moves as f64 },
            accuracy: accuracy[side],
            inaccuracies: marks[0],
            mistakes: marks[1],
            blunders: marks[2],
        }
    });
    GameAnalysis { moves: analysed, summary, start: assessments.first().map_or(Eval::Cp(0), |v| v.eval) }
}

fn quote(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

fn comment(text: &str) -> String {
    format!("{{{}}}", text.replace('}', ")"))
}

/// The game as annotated PGN: `tags` (with `Annotator` set to `annotator`),
/// a first comment with both summaries, after every move its mark and
/// `{[%eval …]}` (with the game's own `[%clk …]` where `clocks` has one for
/// that move, as lichess writes both), and after each marked move what it
/// lost and the engine's line as a variation.
pub fn annotated_pgn(
    tags: &[(String, String)],
    result: &str,
    start: &Position,
    analysis: &GameAnalysis,
    annotator: &str,
    clocks: &[Option<String>],
) -> String {
    let mut out = String::new();
    let mut have_result = false;
    for (name, value) in tags {
        if name == "Annotator" {
            continue;
        }
        let value = if name == "Result" {
            have_result = true;
            result
        } else {
            value
        };
        out.push_str(&format!("[{name} \"{}\"]\n", quote(value)));
    }
    if !have_result {
        out.push_str(&format!("[Result \"{}\"]\n", quote(result)));
    }
    out.push_str(&format!("[Annotator \"{}\"]\n\n", quote(annotator)));
    let [white, black] = &analysis.summary;
    let mut tokens = vec![comment(&format!("{annotator}. White: {}. Black: {}.", white.text(), black.text()))];
    let mut pos = start.clone();
    for (i, mv) in analysis.moves.iter().enumerate() {
        // Every move is followed by a comment, so Black's moves carry their number too.
        tokens.push(format!("{}{}", mv.number, if mv.white { "." } else { "..." }));
        tokens.push(format!("{}{}", mv.san, mv.mark.map_or("", Mark::symbol)));
        let eval = mv.after.pgn_text().map(|text| format!("[%eval {text}]"));
        let clock = clocks.get(i).cloned().flatten().map(|time| format!("[%clk {time}]"));
        let commands: Vec<String> = eval.into_iter().chain(clock).collect();
        if !commands.is_empty() {
            tokens.push(format!("{{{}}}", commands.join(" ")));
        }
        if let Some(mark) = mv.mark {
            let best = mv.best_san.as_deref().map_or(String::new(), |b| format!(" {b} was best."));
            tokens.push(comment(&format!(
                "{} ({} -> {}).{best}",
                mark.name(),
                mv.before.display(),
                mv.after.display()
            )));
            if !mv.line_san.is_empty() {
                // The variation replaces the move played: numbered from the position before it.
                tokens.push(format!("({})", numbered_line(&pos, &mv.line_san)));
            }
        }
        let Ok(m) = pos.parse_move(&mv.uci) else { break };
        pos.make(m);
    }
    tokens.push(result.to_string());
    super::pgn::push_movetext(&mut out, &tokens);
    out
}

/// The analysed moves and summaries as JSON (scores from White's view).
pub fn analysis_json(analysis: &GameAnalysis) -> Value {
    let moves: Vec<Value> = analysis
        .moves
        .iter()
        .map(|m| {
            json!({
                "ply": m.ply,
                "number": m.number,
                "white": m.white,
                "san": m.san,
                "uci": m.uci,
                "eval": m.after.json(),
                "eval_text": m.after.display(),
                "best": m.best_uci,
                "best_san": m.best_san,
                "line_san": m.line_san,
                "loss_cp": m.loss_cp,
                "chance_loss": (m.chance_loss * 1000.0).round() / 1000.0,
                "accuracy": (m.accuracy * 10.0).round() / 10.0,
                "white_chances": (m.after.chances(Color::White) * 1000.0).round() / 1000.0,
                "mark": m.mark.map(Mark::symbol),
            })
        })
        .collect();
    json!({
        "start_eval": analysis.start.json(),
        "start_white_chances": (analysis.start.chances(Color::White) * 1000.0).round() / 1000.0,
        "moves": moves,
        "summary": {"white": analysis.summary[0].json(), "black": analysis.summary[1].json()},
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::registry::Registry;

    #[test]
    fn evals_chances_and_marks() {
        assert_eq!(Eval::from_side(Some(35), None, Color::Black), Some(Eval::Cp(-35)));
        assert_eq!(Eval::from_side(Some(1), Some(-2), Color::Black), Some(Eval::Mate(2)));
        assert_eq!(Eval::from_side(None, None, Color::White), None);
        assert_eq!(Eval::Cp(35).pgn_text().as_deref(), Some("0.35"));
        assert_eq!(Eval::Cp(-120).pgn_text().as_deref(), Some("-1.20"));
        assert_eq!(Eval::Mate(-3).pgn_text().as_deref(), Some("#-3"));
        assert_eq!(Eval::Won(Color::White).pgn_text(), None);
        assert_eq!(Eval::Cp(5000).centipawns(Color::Black), -CP_CAP);
        assert!((Eval::Cp(0).chances(Color::White)).abs() < 1e-9);
        assert!(Eval::Cp(300).chances(Color::White) > 0.5 && Eval::Cp(300).chances(Color::Black) < -0.5);
        assert_eq!(Eval::Won(Color::Black).chances(Color::Black), 1.0);
        let t = Thresholds::LICHESS;
        assert_eq!(
            (t.mark(0.05), t.mark(0.1), t.mark(0.25), t.mark(0.9)),
            (None, Some(Mark::Inaccuracy), Some(Mark::Mistake), Some(Mark::Blunder))
        );
    }

    #[test]
    fn a_big_loss_is_a_blunder_and_the_pgn_reads_back() {
        let reg = Registry::builtin();
        let start = Position::startpos(reg.get("chess").unwrap()).unwrap();
        let mut pos = start.clone();
        let moves: Vec<Move> = ["e2e4", "b8c6"]
            .iter()
            .map(|t| {
                let m = pos.parse_move(t).unwrap();
                pos.make(m);
                m
            })
            .collect();
        let v = |cp: i32, best: &str| Assessment {
            eval: Eval::Cp(cp),
            best: Some(best.to_string()),
            line: vec![best.to_string()],
        };
        // e4 is the engine's move; Nc6 is found to lose 8.65 pawns (the engine wanted e5).
        let assessments = [v(30, "e2e4"), v(35, "e7e5"), v(900, "e4e5")];
        let analysis = analyse_moves(&start, &moves, &assessments, &Thresholds::LICHESS);
        assert_eq!(analysis.moves[0].mark, None);
        assert_eq!(analysis.moves[1].mark, Some(Mark::Blunder));
        assert_eq!(analysis.moves[1].loss_cp, 865);
        assert_eq!(analysis.moves[1].best_san.as_deref(), Some("e5"));
        assert_eq!(analysis.summary[1].blunders, 1);
        // e4 was the engine's own move: 100. Nc6 dropped Black's Win% from
        // 50 + 50 x chances(-35) = 46.78 to that of -900, 3.51: by 43.27, so
        // 103.17 x exp(-1.8843) = 103.17 x 0.1519 = 15.68, - 3.17 + 1 = 13.51;
        // alone, it is Black's game accuracy.
        assert_eq!(analysis.summary[0].accuracy, Some(100.0));
        let black = analysis.summary[1].accuracy.unwrap();
        assert!((black - 13.51).abs() < 0.01 && (black - analysis.moves[1].accuracy).abs() < 1e-9, "{black}");
        assert!(analysis.summary[0].text().starts_with("accuracy 100%, average centipawn loss 0"));
        let tags = vec![("Event".to_string(), "t".to_string()), ("Result".to_string(), "*".to_string())];
        let pgn = annotated_pgn(&tags, "*", &start, &analysis, "menagerie", &[]);
        assert!(pgn.contains("1. e4 {[%eval 0.35]} 1... Nc6?? {[%eval 9.00]}"), "{pgn}");
        // The game's own clocks are kept beside the evaluations.
        let clocked = annotated_pgn(&tags, "*", &start, &analysis, "menagerie", &[Some("0:04:59".to_string())]);
        assert!(clocked.contains("1. e4 {[%eval 0.35] [%clk 0:04:59]} 1... Nc6?? {[%eval 9.00]}"), "{clocked}");
        assert_eq!(crate::game::pgn::read_pgn(&clocked)[0].clocks, [Some("0:04:59".to_string())]);
        assert!(pgn.contains("(1... e5)"), "{pgn}");
        let back = crate::game::pgn::read_pgn(&pgn);
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].moves, ["e4", "Nc6??"]);
        assert_eq!(back[0].tag("Annotator"), Some("menagerie"));
        let value = analysis_json(&analysis);
        assert_eq!(value["moves"][1]["mark"], "??");
        assert_eq!(value["summary"]["black"]["blunders"], 1);
    }
}
