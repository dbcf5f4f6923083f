//! The UCI loop. Errors are reported on stdout
//! as `info string error: ...`, so that GUIs and logs show them, and the
//! previous state is kept.

use std::sync::mpsc::Receiver;

use super::{send, Event, Output, Protocol};
use crate::board::perft::MAX_PERFT_DEPTH;
use crate::engine::options::{self, OptionId, OptionKind, OptionSpec, OptionValue, OPTIONS};
use crate::engine::{Engine, EngineError, EngineEvent};
use crate::search::{Limits, PvInfo, Score};

/// Why a UCI command failed.
#[derive(Debug, thiserror::Error)]
pub enum UciError {
    /// The engine refused.
    #[error("{0}")]
    Engine(#[from] EngineError),
    /// A command nobody knows.
    #[error("unknown command {0:?}")]
    UnknownCommand(String),
    /// A command with missing or malformed arguments.
    #[error("bad {command} command: {reason}")]
    Syntax {
        /// The command.
        command: &'static str,
        /// What is wrong.
        reason: String,
    },
}

fn syntax(command: &'static str, reason: impl Into<String>) -> UciError {
    UciError::Syntax { command, reason: reason.into() }
}

/// The `uci` answer: identity, options, `uciok`.
fn identify(engine: &Engine, out: &Output) {
    send(out, &format!("id name menagerie {}", env!("CARGO_PKG_VERSION")));
    send(out, "id author the menagerie developers");
    for spec in &OPTIONS {
        send(out, &option_line(engine, spec));
    }
    send(out, "uciok");
}

/// The `option name ...` line of one option, with its current value as the default.
fn option_line(engine: &Engine, spec: &OptionSpec) -> String {
    let value = match engine.option_value(spec.id) {
        OptionValue::Number(n) => n.to_string(),
        OptionValue::Flag(on) => on.to_string(),
        OptionValue::Choice(choice) => choice.to_string(),
        OptionValue::Text(text) if text.is_empty() => "<empty>".to_string(),
        OptionValue::Text(text) => text,
        OptionValue::Press => String::new(),
    };
    let vars = |choices: Vec<String>| choices.iter().map(|c| format!(" var {c}")).collect::<String>();
    let kind = match spec.kind {
        OptionKind::Spin { min, max, .. } => format!("spin default {value} min {min} max {max}"),
        OptionKind::Check { .. } => format!("check default {value}"),
        OptionKind::Combo { choices, .. } => {
            format!("combo default {value}{}", vars(choices.iter().map(|c| c.to_string()).collect()))
        }
        OptionKind::Variant => format!("combo default {value}{}", vars(engine.registry().names())),
        OptionKind::Button => "button".to_string(),
        OptionKind::Path | OptionKind::File => format!("string default {value}"),
    };
    format!("option name {} type {kind}", spec.name)
}

/// `info string variant NAME files F ranks R startpos FEN`: lets a client
/// learn the board without knowing the variant.
pub fn variant_line(engine: &Engine) -> String {
    let v = engine.variant();
    format!("info string variant {} files {} ranks {} startpos {}", v.name, v.shape.files, v.shape.ranks, v.start_fen)
}

fn set_option(engine: &mut Engine, args: &[&str], out: &Output) -> Result<(), UciError> {
    // setoption name NAME... [value VALUE...]; names and values may contain spaces.
    // Words before `name` are not understood: skipped.
    let Some(rest) = args.iter().position(|&t| t == "name").map(|i| &args[i + 1..]) else {
        return Err(syntax("setoption", "expected 'name'"));
    };
    let split = rest.iter().position(|&t| t == "value");
    let (name, value) = match split {
        Some(i) => (rest[..i].join(" "), rest[i + 1..].join(" ")),
        None => (rest.join(" "), String::new()),
    };
    if name.is_empty() {
        return Err(syntax("setoption", "missing option name"));
    }
    let eval_file =
        options::find(&name).filter(|spec| spec.id == OptionId::EvalFile).and_then(|spec| spec.parse(&value));
    if let Some(OptionValue::Text(path)) = eval_file {
        if !path.is_empty() {
            // Said in a line because the network may serve other variants than the one played.
            let variants = engine.load_network(std::path::Path::new(&path))?;
            send(out, &format!("info string network {path} plays {}", variants.join(" ")));
            return Ok(());
        }
    }
    engine.set_option(&name, &value)?;
    let Some(spec) = options::find(&name) else { return Ok(()) };
    match (spec.id, spec.parse(&value)) {
        (OptionId::Variant, _) => send(out, &variant_line(engine)),
        (OptionId::VariantPath, Some(OptionValue::Text(path))) if !path.is_empty() => {
            send(out, &format!("info string variants loaded: {}", engine.registry().names().join(" ")));
        }
        _ => {}
    }
    Ok(())
}

fn position(engine: &mut Engine, args: &[&str]) -> Result<(), UciError> {
    let moves_at = args.iter().position(|&t| t == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    // Words not understood before `startpos`/`fen` and after `startpos` are skipped.
    let kind = setup.iter().position(|&t| t == "startpos" || t == "fen").map(|i| (setup[i], &setup[i + 1..]));
    match kind {
        Some(("startpos", _)) => engine.set_position(None, moves)?,
        Some(("fen", fen)) if !fen.is_empty() => engine.set_position(Some(&fen.join(" ")), moves)?,
        _ => return Err(syntax("position", "expected 'startpos' or 'fen FEN'")),
    }
    Ok(())
}

/// Reads the value after `what`. GUIs sometimes send negative clock times
/// when a flag falls: those read as 0.
fn number<T: std::str::FromStr>(tokens: &mut std::slice::Iter<'_, &str>, what: &str) -> Result<T, String> {
    let Some(text) = tokens.as_slice().first().filter(|t| !is_go_keyword(t)) else {
        return Err(format!("missing value after {what}"));
    };
    tokens.next();
    let digits = text.strip_prefix('-').filter(|d| !d.is_empty() && d.chars().all(|c| c.is_ascii_digit()));
    let parsed = if digits.is_some() { "0".parse() } else { text.parse() };
    parsed.map_err(|_| format!("bad value {text:?} for {what}"))
}

/// Formats an `info` line.
pub fn info_line(info: &PvInfo, pv: &[String]) -> String {
    let score = match info.score {
        Score::Cp(cp) => format!("cp {cp}"),
        Score::Mate(n) => format!("mate {n}"),
    };
    format!(
        "info depth {} seldepth {} multipv {} score {} nodes {} nps {} hashfull {} time {} pv {}",
        info.depth,
        info.seldepth,
        info.multipv,
        score,
        info.nodes,
        info.nps,
        info.hashfull,
        info.time_ms,
        pv.join(" ")
    )
}

/// `go`: as the UCI specification asks, what is not understood (an unknown
/// word, a malformed value, an illegal search move) is reported and ignored,
/// and the search still starts, so that every `go` ends in `bestmove`.
fn go(engine: &mut Engine, args: &[&str], out: &Output) -> Result<(), UciError> {
    let mut limits = Limits::default();
    let mut tokens = args.iter();
    let mut search_moves = Vec::new();
    let mut ignored = Vec::new();
    let mut unknown: Vec<&str> = Vec::new();
    while let Some(&token) = tokens.next() {
        let set = match token {
            "perft" => {
                let depth: u32 = number(&mut tokens, "perft").map_err(|reason| syntax("go", reason))?;
                if !(1..=MAX_PERFT_DEPTH).contains(&depth) {
                    return Err(syntax("go", format!("perft depth must be 1 to {MAX_PERFT_DEPTH}, not {depth}")));
                }
                perft(engine, depth, out);
                return Ok(());
            }
            "depth" => number(&mut tokens, token).map(|n| limits.depth = Some(n)),
            "nodes" => number(&mut tokens, token).map(|n| limits.nodes = Some(n)),
            "movetime" => number(&mut tokens, token).map(|n| limits.movetime = Some(n)),
            "wtime" => number(&mut tokens, token).map(|n| limits.wtime = Some(n)),
            "btime" => number(&mut tokens, token).map(|n| limits.btime = Some(n)),
            "winc" => number(&mut tokens, token).map(|n| limits.winc = Some(n)),
            "binc" => number(&mut tokens, token).map(|n| limits.binc = Some(n)),
            "movestogo" => number(&mut tokens, token).map(|n| limits.movestogo = Some(n)),
            "mate" => number(&mut tokens, token).map(|n| limits.mate = Some(n)),
            "infinite" => {
                limits.infinite = true;
                Ok(())
            }
            "ponder" => {
                limits.ponder = true;
                Ok(())
            }
            "searchmoves" => {
                // Every following token that is not a keyword is a move.
                while let Some(&m) = tokens.as_slice().first().filter(|t| !is_go_keyword(t)) {
                    tokens.next();
                    search_moves.push(m);
                }
                Ok(())
            }
            other => {
                unknown.push(other);
                continue;
            }
        };
        ignored.extend(take_unknown(&mut unknown));
        ignored.extend(set.err());
    }
    ignored.extend(take_unknown(&mut unknown));
    for text in search_moves {
        match engine.parse_moves(&[text]) {
            Ok(m) => limits.search_moves.extend(m),
            Err(e) => ignored.push(format!("searchmoves: {e}")),
        }
    }
    for reason in ignored {
        send(out, &format!("info string error: bad go command: {reason} (ignored)"));
    }
    let out = out.clone();
    engine.go(limits, move |event| match event {
        EngineEvent::Info { info, pv } => send(&out, &info_line(&info, &pv)),
        EngineEvent::CurrMove { depth, mv, number } => {
            send(&out, &format!("info depth {depth} currmove {mv} currmovenumber {number}"));
        }
        EngineEvent::BestMove { best_text, ponder_text, .. } => {
            let line = match (best_text, ponder_text) {
                (Some(b), Some(p)) => format!("bestmove {b} ponder {p}"),
                (Some(b), None) => format!("bestmove {b}"),
                (None, _) => "bestmove 0000".to_string(),
            };
            send(&out, &line);
        }
    })?;
    Ok(())
}

/// The run of words not understood so far, as one message (and empties it).
fn take_unknown(unknown: &mut Vec<&str>) -> Option<String> {
    let words = std::mem::take(unknown);
    (!words.is_empty()).then(|| format!("unknown parameter {:?}", words.join(" ")))
}

/// `go perft DEPTH`: moves with their counts, then the total.
fn perft(engine: &mut Engine, depth: u32, out: &Output) {
    let rows = engine.perft(depth);
    for (m, n) in &rows {
        send(out, &format!("{m}: {n}"));
    }
    let total: u64 = rows.iter().map(|r| r.1).sum();
    send(out, "");
    send(out, &format!("Nodes searched: {total}"));
    send(out, "");
}

fn is_go_keyword(t: &str) -> bool {
    matches!(
        t,
        "depth"
            | "nodes"
            | "movetime"
            | "wtime"
            | "btime"
            | "winc"
            | "binc"
            | "movestogo"
            | "mate"
            | "infinite"
            | "ponder"
            | "perft"
            | "searchmoves"
    )
}

/// What to do after a command.
enum Flow {
    Continue,
    Quit,
    Switch(Protocol),
}

/// The commands this loop knows.
const COMMANDS: [&str; 14] = [
    "uci",
    "isready",
    "ucinewgame",
    "setoption",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
    "d",
    "eval",
    "xboard",
    "debug",
    "register",
];

fn command(engine: &mut Engine, line: &str, first: bool, out: &Output) -> Result<Flow, UciError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    if tokens.is_empty() {
        return Ok(Flow::Continue);
    }
    // UCI: words not understood are skipped and the rest of the line is read
    // ("joho isready" answers readyok); a line with no command is an error.
    let Some(at) = tokens.iter().position(|t| COMMANDS.contains(t)) else {
        return Err(UciError::UnknownCommand(super::quote(line.trim())));
    };
    let (cmd, args) = (tokens[at], &tokens[at + 1..]);
    let first = first && at == 0;
    match cmd {
        "uci" => identify(engine, out),
        "isready" => send(out, "readyok"),
        "ucinewgame" => engine.new_game(),
        "setoption" => set_option(engine, args, out)?,
        "position" => position(engine, args)?,
        "go" => go(engine, args, out)?,
        "stop" => engine.stop(),
        "ponderhit" => engine.ponderhit(),
        "quit" => return Ok(Flow::Quit),
        "d" => {
            for l in engine.board_text().lines() {
                send(out, l);
            }
        }
        "eval" => {
            for l in engine.eval_text().lines() {
                send(out, l);
            }
        }
        "xboard" if first => return Ok(Flow::Switch(Protocol::Xboard)),
        // Accepted and ignored, as the UCI specification asks (and `xboard`
        // after the first command).
        _ => {}
    }
    Ok(Flow::Continue)
}

/// Runs UCI until `quit` or end of input; returns the protocol to switch to, if any.
pub fn run(engine: &mut Engine, rx: &Receiver<Event>, out: &Output) -> Option<Protocol> {
    let mut first = true;
    while let Ok(event) = rx.recv() {
        let line = match event {
            Event::Line(l) => l,
            Event::Eof => return None,
            // Search reports are printed by the search thread itself.
            Event::Search(..) => continue,
        };
        let result = command(engine, &line, first, out);
        if !line.trim().is_empty() {
            first = false;
        }
        match result {
            Ok(Flow::Continue) => {}
            Ok(Flow::Quit) => return None,
            Ok(Flow::Switch(p)) => return Some(p),
            Err(e) => send(out, &format!("info string error: {e}")),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_lines_at_start() {
        let engine = Engine::new();
        let lines: Vec<String> = OPTIONS.iter().map(|spec| option_line(&engine, spec)).collect();
        let vars: String = engine.registry().names().iter().map(|n| format!(" var {n}")).collect();
        assert_eq!(
            lines,
            [
                format!("option name UCI_Variant type combo default chess{vars}").as_str(),
                "option name Hash type spin default 16 min 1 max 32768",
                "option name Clear Hash type button",
                "option name Threads type spin default 1 min 1 max 1024",
                "option name MultiPV type spin default 1 min 1 max 256",
                "option name Ponder type check default false",
                "option name Move Overhead type spin default 10 min 0 max 10000",
                "option name UCI_Chess960 type check default false",
                "option name Evaluation type combo default full var full var nnue var linear var hand var material",
                "option name EvalFile type string default <empty>",
                "option name UCI_AnalyseMode type check default false",
                "option name VariantPath type string default <empty>",
                "option name Skill Level type spin default 20 min 0 max 20",
                "option name UCI_LimitStrength type check default false",
                "option name UCI_Elo type spin default 2500 min 500 max 2500",
            ]
        );
    }
}
