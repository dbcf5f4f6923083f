//! `menagerie analyse` (alias `analyze`): drives a UCI engine on a position
//! (a FEN and/or a move list) for a depth, time or node budget with MultiPV,
//! and prints the lines as a person reads them (score in pawns from White's
//! point of view, depth, the PV in SAN-like notation with the variant's
//! letters) or as JSON. The default engine is this program's own `uci`.
//!
//! With `--pgn FILE` it analyses whole games move by move and writes them back
//! as annotated PGN ([`crate::engine::analysis::analyse_game`]); with `--epd FILE` it
//! runs a test suite ([`crate::engine::analysis::run_suite`]). Both search with
//! menagerie's engine in this process unless `--engine` names a UCI engine.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::{json, Value};

use crate::board::position::Position;
use crate::board::registry::Registry;
use crate::engine::analysis::{analyse_game, run_suite, InProcess, Searcher, SuiteResult};
use crate::eval::catalogue::Catalogue;
use crate::game::analysis::{analysis_json, annotated_pgn, MoveAnalysis, Probe, Thresholds};
use crate::game::epd::read_suite;
use crate::game::pgn::{read_pgn, replay};
use crate::game::san::{line_to_san, numbered_line};
use crate::players::uci::{parse_info, InfoLine, UciPlayer};
use crate::players::{own_uci_command, PlayerError, PlayerProcess, PlayerSpec};
use crate::rules::piece::Color;
use crate::rules::variant::Variant;
use crate::search::Limits;

/// Search time of one position when no limit is given.
const ONE_POSITION_MS: u64 = 2000;
/// Search time per position of `--pgn` and `--epd` when no limit is given.
const PER_POSITION_MS: u64 = 500;

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
    /// Analyse every game of this PGN file move by move and write it back annotated.
    #[arg(long, conflicts_with_all = ["fen", "moves", "epd", "multipv"])]
    pub pgn: Option<PathBuf>,
    /// With --pgn: only this game (1-based).
    #[arg(long, requires = "pgn")]
    pub game: Option<usize>,
    /// Run the test suite of this EPD file (`bm`/`am` operations) and count the solved positions.
    #[arg(long, conflicts_with_all = ["fen", "moves", "multipv"])]
    pub epd: Option<PathBuf>,
    /// With --pgn: write the annotated PGN to this file (and the summaries to standard output).
    #[arg(long)]
    pub output: Option<PathBuf>,
    /// Search depth.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Search time in milliseconds (when no other limit is given: 2000, or 500 per
    /// position with --pgn and --epd).
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

/// Score text in pawns from White's point of view (`+0.35`; a mate as PGN
/// and lichess write it, `#3`, `#-3`).
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
            format!("{bound}#{}", m * sign)
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
    engine.process.send(&go_command(&requested_limits(args, ONE_POSITION_MS))).map_err(|e| e.to_string())?;
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
    let hint = if args.engine.is_none() { " (this build may lack `menagerie uci`; pass --engine CMD)" } else { "" };
    let mut engine = spawn_engine(&cmd, &args.options, stop).map_err(|e| format!("{e}{hint}"))?;
    engine.new_game(variant, start_fen, stop).map_err(|e| format!("engine: {e}"))?;
    if args.multipv > 1 {
        engine.process.send(&format!("setoption name MultiPV value {}", args.multipv)).map_err(|e| e.to_string())?;
        engine.sync(stop).map_err(|e| e.to_string())?;
    }
    Ok(engine)
}

/// Starts the UCI engine `cmd` with the `NAME=VALUE` options and completes the handshake.
fn spawn_engine(cmd: &str, options: &[String], stop: &AtomicBool) -> Result<UciPlayer, String> {
    let mut tokens = vec![format!("cmd={cmd}"), "name=engine".to_string()];
    tokens.extend(options.iter().map(|o| format!("option.{o}")));
    let spec = PlayerSpec::from_tokens(&tokens).map_err(|e| e.to_string())?;
    let process = PlayerProcess::spawn(&spec.name, &spec.cmd, None).map_err(|e| e.to_string())?;
    UciPlayer::handshake(process, &spec, stop).map_err(|e| format!("engine: {e}"))
}

/// The `go` command for `limits`.
fn go_command(limits: &Limits) -> String {
    let mut go = String::from("go");
    for (word, value) in
        [("depth", limits.depth.map(u64::from)), ("nodes", limits.nodes), ("movetime", limits.movetime)]
    {
        if let Some(v) = value {
            go.push_str(&format!(" {word} {v}"));
        }
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
        let line = match process.read_line_or_interrupt(deadline, stop, "stop") {
            Ok(l) => l,
            Err(PlayerError::Timeout) => {
                // Asked to stop: the engine still owes its `bestmove`.
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
    line_to_san(pos, &[best.to_string()]).into_iter().next()
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
                ("pv_san", json!(line_to_san(pos, &l.pv)).to_string()),
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
        let pv = numbered_line(pos, &line_to_san(pos, &l.pv));
        let (multipv, depth) = (l.multipv.unwrap_or(1), l.depth.unwrap_or(0));
        let _ = writeln!(out, "{multipv:>2}. {:>7}  depth {depth:>2}  {pv}", score_text(l, pos.side_to_move()));
    }
    let _ = writeln!(out, "best move: {} ({best})", best_san(pos, best).as_deref().unwrap_or("?"));
    let _ = writeln!(out, "(scores in pawns from White's point of view)");
    out
}

/// Runs `menagerie analyse`: one position, the games of `--pgn` or the suite of `--epd`.
pub fn run_analyse(args: &AnalyseArgs, catalogue: &Catalogue) -> ExitCode {
    let answer = if args.pgn.is_some() {
        analyse_games(args, catalogue)
    } else if args.epd.is_some() {
        run_epd(args, catalogue)
    } else {
        analyse(args, catalogue.registry())
    };
    match answer {
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

/// The limits asked for, or `default_ms` milliseconds of search when none is given.
fn requested_limits(args: &AnalyseArgs, default_ms: u64) -> Limits {
    let mut limits = Limits { depth: args.depth, nodes: args.nodes, movetime: args.movetime, ..Limits::default() };
    if limits.depth.is_none() && limits.nodes.is_none() && limits.movetime.is_none() {
        limits.movetime = Some(default_ms);
    }
    limits
}

/// The limits as the annotation names them: `nodes=2000`, `depth=8 movetime=500ms`.
fn limits_text(limits: &Limits) -> String {
    let mut parts = Vec::new();
    if let Some(d) = limits.depth {
        parts.push(format!("depth={d}"));
    }
    if let Some(n) = limits.nodes {
        parts.push(format!("nodes={n}"));
    }
    if let Some(t) = limits.movetime {
        parts.push(format!("movetime={t}ms"));
    }
    parts.join(" ")
}

/// An external UCI engine (`--engine`) as a [`Searcher`], to the same limits.
struct UciSearcher {
    engine: UciPlayer,
    go: String,
    timeout: Duration,
    stop: AtomicBool,
}

impl UciSearcher {
    fn start(args: &AnalyseArgs, cmd: &str, limits: &Limits) -> Result<UciSearcher, String> {
        let stop = AtomicBool::new(false);
        let engine = spawn_engine(cmd, &args.options, &stop)?;
        Ok(UciSearcher { engine, go: go_command(limits), timeout: Duration::from_secs(args.timeout.max(1)), stop })
    }
}

impl Searcher for UciSearcher {
    fn new_game(&mut self, variant: &Arc<Variant>) -> Result<(), String> {
        self.engine.new_game(variant, &variant.start_fen, &self.stop).map_err(|e| format!("engine: {e}"))
    }

    fn search(&mut self, pos: &Position, start_fen: &str, moves: &[String]) -> Result<Probe, String> {
        let position = UciPlayer::position_command(&pos.variant().start_fen, start_fen, moves);
        self.engine.process.send(&position).map_err(|e| e.to_string())?;
        self.engine.process.send(&self.go).map_err(|e| e.to_string())?;
        let (best, lines) = read_lines(&mut self.engine.process, Instant::now() + self.timeout, &self.stop)?;
        let line = lines.into_iter().find(|l| l.multipv == Some(1)).unwrap_or_default();
        let best = (best != "(none)" && best != "0000").then_some(best);
        Ok(Probe { best, cp: line.score_cp, mate: line.mate, pv: line.pv, depth: line.depth.unwrap_or(0) })
    }
}

impl Drop for UciSearcher {
    fn drop(&mut self) {
        let _ = self.engine.process.send("quit");
        self.engine.process.shutdown(Duration::from_millis(500));
    }
}

/// The engine of `--pgn`/`--epd`: menagerie's own in this process, or `--engine`'s.
fn searcher(args: &AnalyseArgs, catalogue: &Catalogue, limits: &Limits) -> Result<(Box<dyn Searcher>, String), String> {
    match &args.engine {
        Some(cmd) => Ok((Box::new(UciSearcher::start(args, cmd, limits)?), cmd.clone())),
        None => {
            let engine = InProcess::new(catalogue.clone(), &args.options, limits.clone())?;
            Ok((Box::new(engine), "menagerie".to_string()))
        }
    }
}

/// Reads a file named on the command line as text.
fn read_text(path: &std::path::Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `--pgn`: every game (or `--game N`) analysed; the annotated PGN, or JSON.
fn analyse_games(args: &AnalyseArgs, catalogue: &Catalogue) -> Result<String, String> {
    let path = args.pgn.as_deref().unwrap_or(std::path::Path::new(""));
    let games = read_pgn(&read_text(path)?);
    if games.is_empty() {
        return Err(format!("no game in {}", path.display()));
    }
    let chosen: Vec<(usize, &crate::game::pgn::PgnGame)> = match args.game {
        Some(n) if n == 0 || n > games.len() => {
            return Err(format!("--game {n}: {} has games 1 to {}", path.display(), games.len()))
        }
        Some(n) => vec![(n, &games[n - 1])],
        None => games.iter().enumerate().map(|(i, g)| (i + 1, g)).collect(),
    };
    // Every game is checked before the first search.
    let replayed: Vec<_> = chosen
        .iter()
        .map(|(n, g)| replay(catalogue.registry(), g).map_err(|e| format!("game {n}: {e}")))
        .collect::<Result<_, _>>()?;
    let limits = requested_limits(args, PER_POSITION_MS);
    let (mut engine, name) = searcher(args, catalogue, &limits)?;
    let annotator = format!("{name} ({} per position)", limits_text(&limits));
    let show_progress = std::io::stderr().is_terminal();
    let (mut pgn, mut summaries, mut json_games) = (String::new(), String::new(), Vec::new());
    for ((n, game), replayed) in chosen.iter().zip(&replayed) {
        let mut progress = |done: usize, total: usize| {
            if show_progress {
                eprint!("\rgame {n}: position {done}/{total}");
            }
        };
        let analysis = analyse_game(engine.as_mut(), replayed, &Thresholds::LICHESS, &mut progress)
            .map_err(|e| format!("game {n}: {e}"))?;
        if show_progress {
            eprintln!();
        }
        let text = annotated_pgn(&game.tags, &game.result, &replayed.start, &analysis, &annotator, &game.clocks);
        let who = |tag: &str| game.tag(tag).unwrap_or("?").to_string();
        let _ = writeln!(
            summaries,
            "game {n}: {} - {} ({}, {} moves, {})\n  White: {}\n  Black: {}",
            who("White"),
            who("Black"),
            replayed.variant.name,
            full_moves(&analysis.moves),
            game.result,
            analysis.summary[0].text(),
            analysis.summary[1].text()
        );
        if args.json {
            let mut value = analysis_json(&analysis);
            value["game"] = json!(n);
            value["variant"] = json!(replayed.variant.name);
            value["start_fen"] = json!(replayed.start_fen());
            value["result"] = json!(game.result);
            value["tags"] =
                game.tags.iter().map(|(k, v)| (k.clone(), json!(v))).collect::<serde_json::Map<_, _>>().into();
            value["pgn"] = json!(text);
            json_games.push(value);
        }
        pgn.push_str(&text);
    }
    if let Some(out) = &args.output {
        std::fs::write(out, &pgn).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    }
    Ok(if args.json {
        format!("{}\n", json!({ "annotator": annotator, "games": json_games }))
    } else if args.output.is_some() {
        summaries
    } else {
        pgn
    })
}

/// How many moves a game has as people count them (a move is White's and
/// Black's turn), from its first move's number to its last's.
fn full_moves(moves: &[MoveAnalysis]) -> u32 {
    match (moves.first(), moves.last()) {
        (Some(first), Some(last)) => last.number - first.number + 1,
        _ => 0,
    }
}

/// `--epd`: each position searched once; solved / total and the failures.
fn run_epd(args: &AnalyseArgs, catalogue: &Catalogue) -> Result<String, String> {
    let path = args.epd.as_deref().unwrap_or(std::path::Path::new(""));
    let variant = catalogue
        .registry()
        .get(&args.variant)
        .ok_or_else(|| format!("unknown variant {:?} (try `menagerie variants`)", args.variant))?;
    let entries = read_suite(&variant, &read_text(path)?).map_err(|e| format!("{}: {e}", path.display()))?;
    let limits = requested_limits(args, PER_POSITION_MS);
    let (mut engine, _) = searcher(args, catalogue, &limits)?;
    let show_progress = std::io::stderr().is_terminal() && !args.json;
    let results = run_suite(engine.as_mut(), &entries, &mut |r| {
        if show_progress {
            eprintln!("{}", suite_line(r));
        }
    })?;
    let solved = results.iter().filter(|r| r.solved).count();
    if args.json {
        let rows: Vec<Value> = results
            .iter()
            .map(|r| json!({"id": r.id, "line": r.line, "played": r.played, "score": r.score, "wanted": r.wanted, "solved": r.solved}))
            .collect();
        let report = json!({"variant": variant.name, "limits": limits_text(&limits), "solved": solved, "total": results.len(), "results": rows});
        return Ok(format!("{report}\n"));
    }
    let mut out = String::new();
    for r in &results {
        let _ = writeln!(out, "{}", suite_line(r));
    }
    let _ =
        writeln!(out, "solved {solved} / {} ({}, {} per position)", results.len(), variant.name, limits_text(&limits));
    let failures: Vec<&SuiteResult> = results.iter().filter(|r| !r.solved).collect();
    if !failures.is_empty() {
        let _ = writeln!(out, "failures:");
        for r in failures {
            let _ = writeln!(
                out,
                "  line {} {:?}: played {}, wanted {}",
                r.line,
                r.id,
                r.played.as_deref().unwrap_or("nothing"),
                r.wanted
            );
        }
    }
    Ok(out)
}

/// One suite result as a line: `ok   line 3 "mate": Ra8# (#1; bm Ra8#)`.
fn suite_line(r: &SuiteResult) -> String {
    format!(
        "{:<4} line {} {:?}: {} ({}; {})",
        if r.solved { "ok" } else { "FAIL" },
        r.line,
        r.id,
        r.played.as_deref().unwrap_or("no move"),
        r.score,
        r.wanted
    )
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
        assert_eq!(score_text(&line, Color::White), "#2");
        assert_eq!(score_text(&line, Color::Black), "#-2");
    }

    #[test]
    fn the_go_command_names_each_limit() {
        let limits = Limits { depth: Some(8), nodes: Some(2000), movetime: Some(500), ..Limits::default() };
        assert_eq!(go_command(&limits), "go depth 8 nodes 2000 movetime 500");
        assert_eq!(go_command(&Limits { nodes: Some(7), ..Limits::default() }), "go nodes 7");
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
