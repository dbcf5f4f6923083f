//! `menagerie analyse` (alias `analyze`): drives a UCI engine on a position
//! (a FEN and/or a move list) for a depth, time or node budget with MultiPV,
//! and prints the lines as a person reads them (score in pawns from White's
//! point of view, depth, the PV in SAN-like notation with the variant's
//! letters) or as JSON. The default engine is this program's own `uci`.
//! Uses the UCI adapter, SAN and the rules core.

use std::fmt::Write as _;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;

use super::player::uci::UciPlayer;
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

/// One principal variation as the engine last reported it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Line {
    /// MultiPV index (1 = best).
    pub multipv: u32,
    /// Depth.
    pub depth: u32,
    /// Selective depth.
    pub seldepth: Option<u32>,
    /// Centipawns from the side to move's point of view.
    pub cp: Option<i32>,
    /// Mate in moves from the side to move's point of view.
    pub mate: Option<i32>,
    /// `lowerbound` / `upperbound`, if the score is a bound.
    pub bound: Option<String>,
    /// Nodes searched.
    pub nodes: Option<u64>,
    /// Milliseconds used.
    pub time_ms: Option<u64>,
    /// The PV in UCI text.
    pub pv: Vec<String>,
}

/// Reads a UCI `info` line that carries a PV or a score (None otherwise).
pub fn parse_info_line(line: &str) -> Option<Line> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.first() != Some(&"info") {
        return None;
    }
    let mut out = Line { multipv: 1, ..Line::default() };
    let mut seen_score = false;
    let mut i = 1;
    let num = |i: usize| tokens.get(i).and_then(|t| t.parse::<u64>().ok());
    while i < tokens.len() {
        match tokens[i] {
            "string" => return None,
            "depth" => out.depth = num(i + 1).unwrap_or(0) as u32,
            "seldepth" => out.seldepth = num(i + 1).map(|n| n as u32),
            "multipv" => out.multipv = num(i + 1).unwrap_or(1) as u32,
            "nodes" => out.nodes = num(i + 1),
            "time" => out.time_ms = num(i + 1),
            "score" => {
                let value = tokens.get(i + 2).and_then(|t| t.parse::<i32>().ok());
                match tokens.get(i + 1) {
                    Some(&"cp") => out.cp = value,
                    Some(&"mate") => out.mate = value,
                    _ => {}
                }
                seen_score = value.is_some();
                if let Some(&b) = tokens.get(i + 3).filter(|t| **t == "lowerbound" || **t == "upperbound") {
                    out.bound = Some(b.to_string());
                    i += 1;
                }
                i += 3;
                continue;
            }
            "pv" => {
                out.pv = tokens[i + 1..].iter().map(|t| t.to_string()).collect();
                break;
            }
            _ => {
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    (seen_score || !out.pv.is_empty()).then_some(out)
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
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
fn score_text(line: &Line, stm: Color) -> String {
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
    match (line.mate, line.cp) {
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
    let (best, mut lines) = read_lines(&mut engine.process, deadline, &stop)?;
    let _ = engine.process.send("quit");
    engine.process.shutdown(Duration::from_millis(500));
    lines.sort_by_key(|l| l.multipv);
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

/// Reads the engine's reports until `bestmove` (asking it to stop at the
/// deadline): the best move and the latest line of each MultiPV slot.
fn read_lines(
    process: &mut PlayerProcess,
    deadline: Instant,
    stop: &AtomicBool,
) -> Result<(String, Vec<Line>), String> {
    let mut lines: Vec<Line> = Vec::new();
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
            return Ok((rest.split_whitespace().next().unwrap_or("(none)").to_string(), lines));
        }
        if let Some(info) = parse_info_line(&line) {
            // Keep the latest full report for each MultiPV slot.
            match lines.iter_mut().find(|l| l.multipv == info.multipv) {
                Some(l) if info.pv.is_empty() => {
                    l.depth = info.depth.max(l.depth);
                }
                Some(l) => *l = info,
                None => lines.push(info),
            }
        }
    }
}

/// The best move in SAN, if the rules accept it.
fn best_san(pos: &Position, best: &str) -> Option<String> {
    pv_san(pos, &[best.to_string()]).into_iter().next()
}

/// The analysis as one JSON object.
fn json_report(pos: &Position, best: &str, lines: &[Line]) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "{{\"variant\":{},\"fen\":{},\"bestmove\":{},\"bestmove_san\":{},\"lines\":[",
        json_string(&pos.variant().name),
        json_string(&pos.to_fen()),
        json_string(best),
        best_san(pos, best).as_deref().map_or("null".to_string(), json_string)
    );
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let score = match (l.mate, l.cp) {
            (Some(m), _) => format!("{{\"mate\":{m}}}"),
            (None, Some(cp)) => format!("{{\"cp\":{cp}}}"),
            _ => "null".to_string(),
        };
        let opt = |v: Option<u64>| v.map_or("null".to_string(), |n| n.to_string());
        let list = |v: &[String]| v.iter().map(|s| json_string(s)).collect::<Vec<_>>().join(",");
        let _ = write!(
            out,
            "{{\"multipv\":{},\"depth\":{},\"seldepth\":{},\"score\":{score},\"bound\":{},\"nodes\":{},\"time_ms\":{},\"pv\":[{}],\"pv_san\":[{}]}}",
            l.multipv,
            l.depth,
            opt(l.seldepth.map(u64::from)),
            l.bound.as_deref().map_or("null".to_string(), json_string),
            opt(l.nodes),
            opt(l.time_ms),
            list(&l.pv),
            list(&pv_san(pos, &l.pv)),
        );
    }
    out.push_str("]}\n");
    out
}

/// The analysis as a person reads it.
fn text_report(pos: &Position, best: &str, lines: &[Line]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} {}", pos.variant().name, pos.to_fen());
    for l in lines {
        let pv = numbered(pos, &pv_san(pos, &l.pv));
        let _ = writeln!(out, "{:>2}. {:>7}  depth {:>2}  {pv}", l.multipv, score_text(l, pos.side_to_move()), l.depth);
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
        assert_eq!((l.depth, l.seldepth, l.multipv, l.cp), (12, Some(17), 2, Some(-35)));
        assert_eq!(l.bound.as_deref(), Some("upperbound"));
        assert_eq!((l.nodes, l.time_ms), (Some(1000), Some(50)));
        assert_eq!(l.pv, ["e2e4", "e7e5"]);
        assert!(parse_info_line("info string hello pv x").is_none());
        assert!(parse_info_line("info nodes 5").is_none());
        assert!(parse_info_line("info score").is_none());
        assert_eq!(json_string("a\"b\n"), "\"a\\\"b\\u000a\"");
        let line = Line { cp: Some(35), ..Line::default() };
        assert_eq!(score_text(&line, Color::Black), "-0.35");
        let line = Line { mate: Some(2), ..Line::default() };
        assert_eq!(score_text(&line, Color::White), "+M2");
    }
}
