//! `menagerie analyse` (alias `analyze`): drives a UCI engine on a position
//! (a FEN and/or a move list) for a depth, time or node budget with MultiPV,
//! and prints the lines as a person reads them (score in pawns from White's
//! point of view, depth, the PV in SAN-like notation with the variant's
//! letters) or as JSON. The default engine is this program's own `uci`.

use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::{json, Value};

use super::player::uci::{parse_info, InfoLine, UciPlayer};
use super::player::{own_uci_command, PlayerError, PlayerProcess, PlayerSpec};
use crate::game::san::move_to_san;
use crate::piece::Color;
use crate::position::Position;
use crate::registry::Registry;
use crate::variant::Variant;

/// `menagerie analyse`: search a position with a UCI engine.
#[derive(Args, Debug)]
pub struct AnalyseArgs {
    /// Variant name.
    #[arg(long, default_value = "chess")]
    pub variant: String,
    /// Position (default: the variant's start).
    #[arg(long)]
    pub fen: Option<String>,
    /// Moves from the position, in UCI text separated by spaces.
    #[arg(long, default_value = "")]
    pub moves: String,
    /// Search depth.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Search time in milliseconds (default 2000 when no other limit is given).
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Node budget.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Number of lines.
    #[arg(long, default_value_t = 1)]
    pub multipv: u32,
    /// UCI engine command (default: this program with `uci`).
    #[arg(long)]
    pub engine: Option<String>,
    /// Engine option `NAME=VALUE` (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Give up after this many seconds.
    #[arg(long, default_value_t = 600)]
    pub timeout: u64,
}

/// Reads a UCI `info` line that carries a PV or a score (None otherwise),
/// as the line of its MultiPV slot (1 when the engine names none).
pub fn parse_info_line(line: &str) -> Option<InfoLine> {
    let mut info = InfoLine::default();
    let fields = parse_info(line, &mut info);
    info.multipv.get_or_insert(1);
    (fields && (info.score_cp.is_some() || info.mate.is_some() || !info.pv.is_empty())).then_some(info)
}

/// The PV as SAN with move numbers, stopping at the first move the rules reject.
fn pv_san(pos: &Position, pv: &[String]) -> Vec<String> {
    let mut p = pos.clone();
    let mut out = Vec::new();
    for text in pv {
        let Ok(m) = p.parse_move(text) else { break };
        out.push(move_to_san(&mut p, m));
        p.make(m);
    }
    out
}

fn numbered(pos: &Position, sans: &[String]) -> String {
    let mut p = pos.clone();
    let mut parts = Vec::new();
    let mut first = true;
    for san in sans {
        let n = p.state().fullmove;
        if p.side_to_move() == Color::White {
            parts.push(format!("{n}."));
        } else if first {
            parts.push(format!("{n}..."));
        }
        first = false;
        parts.push(san.clone());
        // Advance the copy to keep numbering right (SAN was made from legal moves).
        match crate::game::san::parse_san(&mut p, san) {
            Some(m) => p.make(m),
            None => break,
        }
    }
    parts.join(" ")
}

/// Score text in pawns from White's point of view (`+0.35`, `-M3`).
fn score_text(line: &InfoLine, stm: Color) -> String {
    let sign = if stm == Color::White { 1 } else { -1 };
    let bound = match line.bound.as_deref() {
        Some("lowerbound") => {
            if sign > 0 {
                ">="
            } else {
                "<="
            }
        }
        Some("upperbound") => {
            if sign > 0 {
                "<="
            } else {
                ">="
            }
        }
        _ => "",
    };
    match (line.mate, line.score_cp) {
        (Some(m), _) => {
            let m = m * sign;
            format!("{bound}{}M{}", if m >= 0 { "+" } else { "-" }, m.abs())
        }
        (None, Some(cp)) => format!("{bound}{:+.2}", (cp * sign) as f64 / 100.0),
        _ => "?".to_string(),
    }
}

fn analyse(args: &AnalyseArgs, registry: &Registry) -> Result<String, String> {
    let variant = registry
        .get(&args.variant)
        .ok_or_else(|| format!("unknown variant {:?} (try `menagerie variants`)", args.variant))?;
    let start_fen = args.fen.clone().unwrap_or_else(|| variant.start_fen.clone());
    let mut pos = Position::from_fen(Arc::clone(&variant), &start_fen).map_err(|e| format!("bad FEN: {e}"))?;
    let moves: Vec<String> = args.moves.split_whitespace().map(str::to_string).collect();
    for text in &moves {
        let m = pos.parse_move(text).map_err(|e| e.to_string())?;
        pos.make(m);
    }
    let stop = AtomicBool::new(false);
    let mut engine = start_engine(args, &variant, &start_fen, &stop)?;
    let position = UciPlayer::position_command(&variant.start_fen, &start_fen, &moves);
    engine.process.send(&position).map_err(|e| e.to_string())?;
    engine.process.send(&go_command(args)).map_err(|e| e.to_string())?;
    let deadline = Instant::now() + Duration::from_secs(args.timeout.max(1));
    let (best, lines) = read_lines(&mut engine.process, deadline, &stop)?;
    let _ = engine.process.send("quit");
    engine.process.shutdown(Duration::from_millis(500));
    Ok(if args.json { json_report(&pos, &best, &lines) } else { text_report(&pos, &best, &lines) })
}

/// Starts the engine (this program's `uci` unless `--engine` names one),
/// sets its options and MultiPV, and prepares a game of `variant`.
fn start_engine(
    args: &AnalyseArgs,
    variant: &Variant,
    start_fen: &str,
    stop: &AtomicBool,
) -> Result<UciPlayer, String> {
    let cmd = match &args.engine {
        Some(c) => c.clone(),
        None => own_uci_command()?,
    };
    let mut tokens = vec![format!("cmd={cmd}"), "name=engine".to_string()];
    tokens.extend(args.options.iter().map(|o| format!("option.{o}")));
    let spec = PlayerSpec::from_tokens(&tokens).map_err(|e| e.to_string())?;
    let process = PlayerProcess::spawn(&spec.name, &spec.cmd, None).map_err(|e| e.to_string())?;
    let hint = if args.engine.is_none() { " (this build may lack `menagerie uci`; pass --engine CMD)" } else { "" };
    let mut engine = UciPlayer::handshake(process, &spec, stop).map_err(|e| format!("engine: {e}{hint}"))?;
    engine.new_game(variant, start_fen, stop).map_err(|e| format!("engine: {e}"))?;
    if args.multipv > 1 {
        engine.process.send(&format!("setoption name MultiPV value {}", args.multipv)).map_err(|e| e.to_string())?;
        engine.sync(stop).map_err(|e| e.to_string())?;
    }
    Ok(engine)
}

/// The `go` command for the requested limits (2 seconds when none is given).
fn go_command(args: &AnalyseArgs) -> String {
    let mut go = String::from("go");
    let mut movetime = args.movetime;
    if args.depth.is_none() && args.nodes.is_none() && movetime.is_none() {
        movetime = Some(2000);
    }
    if let Some(d) = args.depth {
        go.push_str(&format!(" depth {d}"));
    }
    if let Some(n) = args.nodes {
        go.push_str(&format!(" nodes {n}"));
    }
    if let Some(t) = movetime {
        go.push_str(&format!(" movetime {t}"));
    }
    go
}

/// The lines an engine reported, as analyse shows them: the latest block
/// (the lines since the last multipv-1 line; an engine sends them best
/// first) and after it the lines of earlier blocks whose first move the
/// latest block does not show, each with its own depth: a search stopped
/// inside an iteration reports only the lines it finished at that depth.
#[derive(Debug, Default)]
struct ShownLines {
    latest: Vec<InfoLine>,
    earlier: Vec<InfoLine>,
}

impl ShownLines {
    fn add(&mut self, info: InfoLine) {
        let slot = self.latest.iter_mut().find(|l| l.multipv == info.multipv);
        if info.pv.is_empty() {
            // A score without a line: only the depth its slot reached.
            if let Some(l) = slot {
                l.depth = info.depth.max(l.depth);
                return;
            }
        }
        if info.multipv == Some(1) && !self.latest.is_empty() {
            self.earlier = self.lines();
            self.latest.clear();
        }
        match self.latest.iter_mut().find(|l| l.multipv == info.multipv) {
            Some(l) => *l = info,
            None => self.latest.push(info),
        }
    }

    /// The lines to show, numbered from 1: the latest block, then the
    /// earlier lines of other moves, up to as many lines as were shown.
    fn lines(&self) -> Vec<InfoLine> {
        let mut out = self.latest.clone();
        out.sort_by_key(|l| l.multipv);
        let slots = out.len().max(self.earlier.len());
        for line in &self.earlier {
            if out.len() >= slots {
                break;
            }
            if !out.iter().any(|l| l.pv.first() == line.pv.first()) {
                out.push(InfoLine { multipv: Some(out.len() as u32 + 1), ..line.clone() });
            }
        }
        out
    }
}

/// Reads the engine's reports until `bestmove` (asking it to stop at the
/// deadline): the best move and the lines to show ([`ShownLines`]).
fn read_lines(
    process: &mut PlayerProcess,
    deadline: Instant,
    stop: &AtomicBool,
) -> Result<(String, Vec<InfoLine>), String> {
    let mut lines = ShownLines::default();
    loop {
        let line = match process.read_line(deadline, stop) {
            Ok(l) => l,
            Err(PlayerError::Timeout) => {
                let _ = process.send("stop");
                match process.read_line(Instant::now() + Duration::from_secs(2), stop) {
                    Ok(l) => l,
                    Err(_) => return Err("engine did not finish in time".to_string()),
                }
            }
            Err(e) => return Err(format!("engine: {e}")),
        };
        if let Some(rest) = line.strip_prefix("bestmove") {
            return Ok((rest.split_whitespace().next().unwrap_or("(none)").to_string(), lines.lines()));
        }
        if let Some(info) = parse_info_line(&line) {
            lines.add(info);
        }
    }
}

/// The best move in SAN, if the rules accept it.
fn best_san(pos: &Position, best: &str) -> Option<String> {
    pv_san(pos, &[best.to_string()]).into_iter().next()
}

/// A JSON object with its keys in the order given (`json!` would sort
/// them); each value is JSON text.
fn json_object(fields: &[(&str, String)]) -> String {
    let fields: Vec<String> = fields.iter().map(|(key, value)| format!("{}:{value}", Value::from(*key))).collect();
    format!("{{{}}}", fields.join(","))
}

/// The analysis as one JSON object.
fn json_report(pos: &Position, best: &str, lines: &[InfoLine]) -> String {
    let lines: Vec<String> = lines
        .iter()
        .map(|l| {
            let score = match (l.mate, l.score_cp) {
                (Some(m), _) => json!({ "mate": m }),
                (None, Some(cp)) => json!({ "cp": cp }),
                _ => Value::Null,
            };
            json_object(&[
                ("multipv", json!(l.multipv.unwrap_or(1)).to_string()),
                ("depth", json!(l.depth.unwrap_or(0)).to_string()),
                ("seldepth", json!(l.seldepth).to_string()),
                ("score", score.to_string()),
                ("bound", json!(l.bound).to_string()),
                ("nodes", json!(l.nodes).to_string()),
                ("time_ms", json!(l.time_ms).to_string()),
                ("pv", json!(l.pv).to_string()),
                ("pv_san", json!(pv_san(pos, &l.pv)).to_string()),
            ])
        })
        .collect();
    let report = json_object(&[
        ("variant", json!(pos.variant().name).to_string()),
        ("fen", json!(pos.to_fen()).to_string()),
        ("bestmove", json!(best).to_string()),
        ("bestmove_san", json!(best_san(pos, best)).to_string()),
        ("lines", format!("[{}]", lines.join(","))),
    ]);
    format!("{report}\n")
}

/// The analysis as a person reads it.
fn text_report(pos: &Position, best: &str, lines: &[InfoLine]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} {}", pos.variant().name, pos.to_fen());
    for l in lines {
        let pv = numbered(pos, &pv_san(pos, &l.pv));
        let (multipv, depth) = (l.multipv.unwrap_or(1), l.depth.unwrap_or(0));
        let _ = writeln!(out, "{multipv:>2}. {:>7}  depth {depth:>2}  {pv}", score_text(l, pos.side_to_move()));
    }
    let _ = writeln!(out, "best move: {} ({best})", best_san(pos, best).as_deref().unwrap_or("?"));
    let _ = writeln!(out, "(scores in pawns from White's point of view)");
    out
}

/// Runs `menagerie analyse`.
pub fn run_analyse(args: &AnalyseArgs, registry: &Registry) -> ExitCode {
    match analyse(args, registry) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn info_lines() {
        let l = parse_info_line(
            "info depth 12 seldepth 17 multipv 2 score cp -35 upperbound nodes 1000 time 50 pv e2e4 e7e5",
        )
        .unwrap();
        assert_eq!((l.depth, l.seldepth, l.multipv, l.score_cp), (Some(12), Some(17), Some(2), Some(-35)));
        assert_eq!(l.bound.as_deref(), Some("upperbound"));
        assert_eq!((l.nodes, l.time_ms), (Some(1000), Some(50)));
        assert_eq!(l.pv, ["e2e4", "e7e5"]);
        assert!(parse_info_line("info string hello pv x").is_none());
        assert!(parse_info_line("info nodes 5").is_none());
        assert!(parse_info_line("info score").is_none());
        assert_eq!(json_object(&[("a\"b\n", json!("a\"b\n").to_string())]), r#"{"a\"b\n":"a\"b\n"}"#);
        let line = InfoLine { score_cp: Some(35), ..InfoLine::default() };
        assert_eq!(score_text(&line, Color::Black), "-0.35");
        let line = InfoLine { mate: Some(2), ..InfoLine::default() };
        assert_eq!(score_text(&line, Color::White), "+M2");
    }

    #[test]
    fn a_partial_block_comes_first_and_earlier_lines_of_other_moves_follow() {
        let mut shown = ShownLines::default();
        for text in [
            "info depth 9 multipv 1 score cp 40 pv a2a3",
            "info depth 9 multipv 2 score cp 30 pv b2b3",
            "info depth 9 multipv 3 score cp 20 pv c2c3",
            "info depth 10 multipv 1 score cp 35 pv b2b3 b7b6",
            "info depth 10 multipv 1 score cp 36",
        ] {
            shown.add(parse_info_line(text).unwrap());
        }
        let lines = shown.lines();
        let view: Vec<String> =
            lines.iter().map(|l| format!("{:?} {:?} {:?} {}", l.multipv, l.depth, l.score_cp, l.pv[0])).collect();
        assert_eq!(
            view,
            ["Some(1) Some(10) Some(35) b2b3", "Some(2) Some(9) Some(40) a2a3", "Some(3) Some(9) Some(20) c2c3"]
        );
        // A full block replaces everything before it.
        for text in ["info depth 10 multipv 2 score cp 30 pv c2c3", "info depth 10 multipv 3 score cp 10 pv d2d3"] {
            shown.add(parse_info_line(text).unwrap());
        }
        let lines = shown.lines();
        let heads: Vec<&str> = lines.iter().map(|l| l.pv[0].as_str()).collect();
        assert_eq!(heads, ["b2b3", "c2c3", "d2d3"]);
    }

    #[test]
    fn the_json_report_keeps_its_key_order_and_reads_back() {
        let registry = Registry::builtin();
        let pos = Position::startpos(registry.get("chess").unwrap()).unwrap();
        let line = parse_info_line("info depth 3 score mate -2 pv e2e4 zz").unwrap();
        let text = json_report(&pos, "e2e4", &[line]);
        assert!(text.starts_with("{\"variant\":\"chess\",\"fen\":") && text.ends_with("]}\n"), "{text}");
        let value: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["bestmove_san"], "e4");
        let line = &value["lines"][0];
        assert_eq!((line["multipv"].as_u64(), line["depth"].as_u64()), (Some(1), Some(3)));
        assert_eq!(line["score"], json!({ "mate": -2 }));
        assert!(line["seldepth"].is_null() && line["bound"].is_null());
        assert_eq!(line["pv"], json!(["e2e4", "zz"]));
        assert_eq!(line["pv_san"], json!(["e4"]));
    }
}
