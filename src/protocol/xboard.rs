//! The XBoard / CECP v2 loop. The engine plays a side, thinks
//! when that side is to move and not in force mode, and answers with
//! `move X`. Illegal moves get `Illegal move: X`, unknown commands
//! `Error (unknown command): X`; harmless commands are accepted silently.
//!
//! XBoard numbers the ranks of 10-rank boards from 0 (`a0`..`j9`) where UCI
//! and our FENs number them from 1, so move text is translated both ways.
//! XBoard cannot play Relocation's setup phase (it refuses a king moving
//! onto its own man), so `variant relocation` starts after it; a `setboard`
//! array starts there too. Variants whose captured men go back to their
//! owner's hand (Clockwork) are not offered: XBoard's holdings give them to
//! the capturer.

use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

use super::{send, Event, Output, Protocol};
use crate::board::notation::{uci_to_xboard, xboard_to_uci};
use crate::board::outcome::GameEnd;
use crate::engine::options::{self, OptionId, OptionKind, OptionSpec, OptionValue, MAX_HASH_MIB};
use crate::engine::{Engine, EngineEvent};
use crate::rules::moves::MoveKind;
use crate::rules::piece::{Color, PieceKind};
use crate::rules::variant::Variant;
use crate::search::{Limits, Score};

/// How long a variant definition waits for a `setboard` after `variant`.
const DEFINITION_HOLD: Duration = Duration::from_millis(200);

/// XBoard's piece types, in the order of its piece-to-char table.
const XBOARD_PIECE_ORDER: &str = "PNBRQFEACWMOHIJGDVLSUK";

/// The move text XBoard uses for a UCI move of `variant`.
fn to_xboard(variant: &Variant, uci: &str) -> String {
    uci_to_xboard(variant.shape, uci)
}

/// The UCI text of a move written by XBoard.
fn from_xboard(variant: &Variant, text: &str) -> String {
    xboard_to_uci(variant.shape, text)
}

/// The name XBoard knows a variant by: its parent when the parent is just
/// another name for it (`normal` for chess), else its own name.
fn xboard_name(engine: &Engine, variant: &Variant) -> String {
    match &variant.xboard_parent {
        Some(p) if engine.registry().get(p).is_some_and(|v| v.name == variant.name) => p.clone(),
        _ => variant.name.clone(),
    }
}

/// Betza in XBoard's dialect (XBetza), atom by atom:
/// - a doubled atom (`NN`, a rider) gets the range suffix `0`, because
///   XBoard reads `NN` as a plain knight;
/// - a king or queen atom with direction modifiers is split into its
///   orthogonal and diagonal atoms (`fK` is `fWfF`), because XBoard reads
///   directions on K and Q in another system;
/// - for a man that takes en passant (`takes_en_passant`), capture-only
///   atoms get `e` (`fcF` is `fceF`), else XBoard refuses every e.p. capture.
fn xboard_betza(betza: &str, takes_en_passant: bool) -> String {
    let text: String = betza.split_whitespace().collect();
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let start = i;
        while i < chars.len() && chars[i].is_ascii_lowercase() {
            i += 1;
        }
        let mut modifiers: String = chars[start..i].iter().collect();
        let Some(&atom) = chars.get(i) else {
            out.push_str(&modifiers);
            break;
        };
        i += 1;
        let rider = chars.get(i) == Some(&atom);
        if rider {
            i += 1;
        }
        let mut range = String::new();
        while i < chars.len() && chars[i].is_ascii_digit() {
            range.push(chars[i]);
            i += 1;
        }
        if rider {
            range = "0".to_string();
        }
        if takes_en_passant && modifiers.contains('c') && !modifiers.contains('m') && !modifiers.contains('e') {
            modifiers = modifiers.replacen('c', "ce", 1);
        }
        let directed = modifiers.chars().any(|c| "fblrvs".contains(c));
        match atom {
            'K' | 'Q' if directed => {
                let (straight, diagonal) = if atom == 'K' { ('W', 'F') } else { ('R', 'B') };
                out.push_str(&format!("{modifiers}{straight}{range}{modifiers}{diagonal}{range}"));
            }
            _ => out.push_str(&format!("{modifiers}{atom}{range}")),
        }
    }
    out
}

/// XBoard's piece-to-char table for `v`: each piece gets XBoard's type with
/// the same letter, else a free type; `None` when the types run out.
/// XBoard's move generator lets only its Pawn and Lance types promote (on
/// the last rank, to the queen when the engine names no piece), so a man
/// that promotes goes on one of those two, and no other piece may.
fn piece_to_char(v: &Variant) -> Option<Vec<char>> {
    let order: Vec<char> = XBOARD_PIECE_ORDER.chars().collect();
    let promoting_slot = |i: usize| order[i] == 'P' || order[i] == 'L';
    let promotes = |k: usize| v.promotes(PieceKind(k as u8));
    let mut table = vec!['.'; order.len()];
    let mut unplaced = Vec::new();
    for (k, p) in v.pieces.iter().enumerate() {
        match order.iter().position(|&c| c == p.letter) {
            Some(i) if table[i] == '.' && promoting_slot(i) == promotes(k) => table[i] = p.letter,
            _ => unplaced.push(k),
        }
    }
    for k in unplaced {
        // XBoard's last type is the king; never give it to another piece.
        // Promoting men prefer the promoting types; only they may take them.
        let allowed = |i: usize| table[i] == '.' && (promotes(k) || !promoting_slot(i));
        let free = (0..order.len() - 1)
            .find(|&i| allowed(i) && promoting_slot(i) == promotes(k))
            .or_else(|| (0..order.len() - 1).find(|&i| allowed(i)))?;
        table[free] = v.pieces[k].letter;
    }
    Some(table)
}

/// `setup` and `piece` lines describing an engine-defined variant, or
/// nothing for variants XBoard knows itself.
fn variant_definition(engine: &Engine) -> Vec<String> {
    let v = engine.variant();
    let parent = v.xboard_parent.clone().unwrap_or_else(|| "fairy".to_string());
    if xboard_name(engine, v) == parent {
        return Vec::new();
    }
    let Some(table) = piece_to_char(v) else {
        return Vec::new();
    };
    let white: String = table.iter().collect();
    let black = white.to_ascii_lowercase();
    let pocket = if v.hands { v.pieces.len() } else { 0 };
    // The game's start: the variant's, or after a setup phase XBoard cannot play.
    let fen = engine.position().to_fen();
    let start = fen.split_whitespace().take(6).collect::<Vec<_>>().join(" ");
    let mut lines =
        vec![format!("setup ({white}{black}) {}x{}+{pocket}_{parent} {start}", v.shape.files, v.shape.ranks)];
    for (k, p) in v.pieces.iter().enumerate() {
        let takes_en_passant = v.is_en_passant_kind(PieceKind(k as u8));
        let mut betza = p.xboard_betza.clone().unwrap_or_else(|| xboard_betza(&p.betza, takes_en_passant));
        // XBoard castles its Chess960-style parents itself (king to the c or
        // the second-to-last file); the `O` atom would add a second castling.
        let castles_itself = matches!(parent.as_str(), "caparandom" | "fischerandom");
        if v.royal.is_some_and(|r| r.index() == k) && !castles_itself {
            if let Some(c) = &v.castling {
                betza.push_str(&format!("O{}", (c.king_files[1] as i32 - c.king_files[0] as i32) / 2));
            }
        }
        lines.push(format!("piece {}& {betza}", p.letter));
    }
    lines
}

/// The options offered as `feature option`, in order. The others have CECP
/// commands of their own (`variant`, `memory`, `cores`, `hard`/`easy`) or
/// mean nothing in CECP (`UCI_Chess960`, `UCI_AnalyseMode`).
const XBOARD_OPTIONS: [OptionId; 9] = [
    OptionId::MultiPv,
    OptionId::MoveOverhead,
    OptionId::ClearHash,
    OptionId::Evaluation,
    OptionId::EvalFile,
    OptionId::VariantPath,
    OptionId::SkillLevel,
    OptionId::LimitStrength,
    OptionId::Elo,
];

/// The `feature option="..."` line of one option, with its current value
/// (None for a type CECP cannot express).
fn option_feature(engine: &Engine, spec: &OptionSpec) -> Option<String> {
    let value = engine.option_value(spec.id);
    let control = match (spec.kind, value) {
        (OptionKind::Spin { min, max, .. }, OptionValue::Number(n)) => format!("-spin {n} {min} {max}"),
        (OptionKind::Check { .. }, OptionValue::Flag(on)) => format!("-check {}", u8::from(on)),
        (OptionKind::Combo { choices, .. }, OptionValue::Choice(current)) => {
            // CECP marks the current choice with `*`.
            let marked: Vec<String> =
                choices.iter().map(|&c| if c == current { format!("*{c}") } else { c.to_string() }).collect();
            format!("-combo {}", marked.join(" /// "))
        }
        (OptionKind::Button, _) => "-button".to_string(),
        (OptionKind::Path, OptionValue::Text(path)) => format!("-path {}", if path.is_empty() { "." } else { &path }),
        (OptionKind::File, OptionValue::Text(path)) => format!("-file {path}"),
        _ => return None,
    };
    Some(format!("feature option=\"{} {control}\"", spec.name))
}

/// Why the engine is searching.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Purpose {
    /// Thinking about its own move: play the result.
    Move,
    /// Analysis: only report.
    Analyze,
}

/// What an XBoard session remembers between commands: modes, the side the
/// engine plays, the time control, the running search and held-back pongs.
struct SessionState {
    force: bool,
    engine_side: Color,
    post: bool,
    analyzing: bool,
    next_search: u64,
    searching: Option<(u64, Purpose)>,
    /// Moves per time control (0 = all), base and increment in ms.
    mps: u32,
    base_ms: u64,
    inc_ms: u64,
    st_ms: Option<u64>,
    /// `nps N`: think in nodes, N of them per second of clock (0 = off).
    nps: u64,
    sd: Option<u32>,
    time_ms: Option<u64>,
    otim_ms: Option<u64>,
    /// `pong` replies held back until the move being thought about is sent
    /// (CECP: a ping received on our move is answered after the move).
    pending_pongs: Vec<String>,
    /// `variant` switched to a variant XBoard learns from `setup`/`piece`
    /// lines, not sent yet: a `setboard` right after it gives the start.
    definition_pending: bool,
    /// `pong` replies held back with the definition, sent after it.
    definition_pongs: Vec<String>,
}

impl SessionState {
    fn new() -> SessionState {
        SessionState {
            force: false,
            engine_side: Color::Black,
            post: false,
            analyzing: false,
            next_search: 1,
            searching: None,
            mps: 0,
            base_ms: 0,
            inc_ms: 0,
            st_ms: None,
            nps: 0,
            sd: None,
            time_ms: None,
            otim_ms: None,
            pending_pongs: Vec::new(),
            definition_pending: false,
            definition_pongs: Vec::new(),
        }
    }
}

struct Session<'a> {
    engine: &'a mut Engine,
    tx: &'a Sender<Event>,
    out: &'a Output,
    st: SessionState,
}

/// The CECP result line for a game the rules have ended.
fn result_line(end: GameEnd) -> &'static str {
    match end {
        GameEnd::Checkmate { winner: Color::Black } => "0-1 {Black mates}",
        GameEnd::Checkmate { winner: Color::White } => "1-0 {White mates}",
        GameEnd::Stalemate => "1/2-1/2 {Stalemate}",
        GameEnd::Repetition { .. } => "1/2-1/2 {Draw by repetition}",
        GameEnd::MoveRule { .. } => "1/2-1/2 {Draw by move rule}",
        GameEnd::DeadPosition => "1/2-1/2 {Dead position}",
    }
}

fn seconds_to_ms(text: &str) -> Option<u64> {
    let secs: f64 = text.parse().ok()?;
    (secs.is_finite() && secs >= 0.0).then_some((secs * 1000.0) as u64)
}

impl Session<'_> {
    fn send(&self, line: &str) {
        send(self.out, line);
    }

    fn error(&self, reason: &str, command: &str) {
        self.send(&format!("Error ({reason}): {command}"));
    }

    /// Stops any search; its late report will be ignored.
    fn cancel(&mut self) {
        self.st.searching = None;
        self.engine.stop_and_wait();
        self.flush_pongs();
    }

    fn flush_pongs(&mut self) {
        for pong in std::mem::take(&mut self.st.pending_pongs) {
            self.send(&pong);
        }
    }

    fn features(&self) {
        // Hands here go back to the captured man's owner (Clockwork); XBoard's
        // holdings give captures to the capturer, so such variants are not offered.
        let names: Vec<String> =
            self.engine.registry().variants().filter(|v| !v.hands).map(|v| xboard_name(self.engine, v)).collect();
        self.send("feature done=0");
        self.send(&format!(
            "feature ping=1 setboard=1 playother=1 san=0 usermove=1 time=1 draw=0 sigint=0 sigterm=0 reuse=1 \
             analyze=1 colors=0 ics=0 name=0 pause=0 nps=1 debug=1 memory=1 smp=1 exclude=0 \
             myname=\"menagerie {}\" variants=\"{}\"",
            env!("CARGO_PKG_VERSION"),
            names.join(",")
        ));
        for id in XBOARD_OPTIONS {
            if let Some(line) = option_feature(self.engine, options::spec(id)) {
                self.send(&line);
            }
        }
        self.send("feature done=1");
    }

    fn limits(&mut self) -> Limits {
        let mut limits = Limits { depth: self.st.sd, ..Limits::default() };
        if self.st.nps > 0 {
            // Time becomes a node count: the fixed time per move, else a
            // thirtieth of the clock plus the increment.
            let ms = match (self.st.st_ms, self.st.time_ms.or((self.st.base_ms > 0).then_some(self.st.base_ms))) {
                (Some(st), _) => st,
                (None, Some(t)) => t / 30 + self.st.inc_ms,
                (None, None) => 1000,
            };
            limits.nodes = Some((ms.saturating_mul(self.st.nps) / 1000).max(1));
            return limits;
        }
        if let Some(st) = self.st.st_ms {
            limits.movetime = Some(st);
            return limits;
        }
        let own = self.st.time_ms.or((self.st.base_ms > 0).then_some(self.st.base_ms));
        match own {
            Some(t) => {
                let inc = Some(self.st.inc_ms);
                match self.st.engine_side {
                    Color::White => (limits.wtime, limits.winc) = (Some(t), inc),
                    Color::Black => (limits.btime, limits.binc) = (Some(t), inc),
                }
                if self.st.mps > 0 {
                    let done = (self.engine.position().state().fullmove as u32).saturating_sub(1);
                    limits.movestogo = Some(self.st.mps - done % self.st.mps);
                }
            }
            None if limits.depth.is_none() => limits.movetime = Some(5000),
            None => {}
        }
        let _ = self.st.otim_ms;
        limits
    }

    /// Starts a search for `purpose`; its events come back on the channel.
    fn start(&mut self, purpose: Purpose) {
        self.cancel();
        let id = self.st.next_search;
        self.st.next_search += 1;
        let limits =
            if purpose == Purpose::Analyze { Limits { infinite: true, ..Limits::default() } } else { self.limits() };
        let tx = self.tx.clone();
        match self.engine.go(limits, move |e| {
            let _ = tx.send(Event::Search(id, e));
        }) {
            Ok(()) => self.st.searching = Some((id, purpose)),
            Err(e) => self.send(&format!("Error ({e}): go")),
        }
    }

    /// Thinks if it is the engine's turn, or restarts analysis.
    fn maybe_think(&mut self) {
        if self.st.analyzing {
            self.start(Purpose::Analyze);
        } else if !self.st.force
            && self.engine.position().side_to_move() == self.st.engine_side
            && self.engine.game_end().is_none()
        {
            self.start(Purpose::Move);
        }
    }

    fn announce_result(&mut self) -> bool {
        match self.engine.game_end() {
            Some(r) => {
                self.send(result_line(r));
                true
            }
            None => false,
        }
    }

    fn user_move(&mut self, text: &str) {
        self.cancel();
        let uci = from_xboard(self.engine.variant(), text);
        let played = if matches!(uci.as_str(), "O-O" | "O-O-O" | "0-0" | "0-0-0") {
            let king_side = uci.len() == 3;
            let castle = self
                .engine
                .legal_moves()
                .into_iter()
                .find(|m| m.kind() == MoveKind::Castle && (m.to().file() > m.from().file()) == king_side);
            match castle {
                Some(m) => {
                    self.engine.play_move(m);
                    true
                }
                None => false,
            }
        } else {
            self.engine.play(&uci).is_ok()
        };
        if !played {
            self.send(&format!("Illegal move: {text}"));
            return;
        }
        if !self.st.analyzing && self.announce_result() {
            return;
        }
        self.maybe_think();
    }

    fn search_event(&mut self, id: u64, event: EngineEvent) {
        let Some((current, purpose)) = self.st.searching else { return };
        if current != id {
            return;
        }
        let variant = std::sync::Arc::clone(self.engine.variant());
        match event {
            EngineEvent::Info { info, pv } => {
                if self.st.post || purpose == Purpose::Analyze {
                    let score = match info.score {
                        Score::Cp(cp) => cp,
                        Score::Mate(n) if n > 0 => 100_000 + n,
                        Score::Mate(n) => -100_000 + n,
                    };
                    let pv: Vec<String> = pv.iter().map(|m| to_xboard(&variant, m)).collect();
                    self.send(&format!(
                        "{} {} {} {} {}",
                        info.depth,
                        score,
                        info.time_ms / 10,
                        info.nodes,
                        pv.join(" ")
                    ));
                }
            }
            EngineEvent::CurrMove { .. } => {}
            EngineEvent::BestMove { best, best_text, .. } => {
                self.st.searching = None;
                self.engine.wait();
                if purpose != Purpose::Move {
                    return;
                }
                match (best, best_text) {
                    (Some(m), Some(text)) => {
                        self.engine.play_move(m);
                        self.send(&format!("move {}", to_xboard(&variant, &text)));
                        self.flush_pongs();
                        if self.announce_result() {
                            return;
                        }
                        // A setup phase may give the engine two choices in a row.
                        self.maybe_think();
                    }
                    _ => {
                        self.announce_result();
                        self.flush_pongs();
                    }
                }
            }
        }
    }

    /// Handles one command; false means quit.
    fn command(&mut self, line: &str) -> bool {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, args)) = tokens.split_first() else { return true };
        let arg = args.first().copied().unwrap_or("");
        // Commands that set up a game wait with the definition; the rest
        // need it first. `setboard` sends it after taking the position.
        const SETTING_UP: &[&str] = &[
            "level", "st", "sd", "time", "otim", "nps", "post", "nopost", "hard", "easy", "ping", "force", "memory",
            "cores", "option", "random", "computer", "accepted", "rejected", "name", "rating", "ics", "setboard",
        ];
        if matches!(cmd, "new" | "variant") {
            // The held-back definition describes a variant no longer chosen;
            // sending it would make XBoard's board that variant's start.
            self.st.definition_pending = false;
        }
        if !SETTING_UP.contains(&cmd) {
            self.send_definition();
        }
        match cmd {
            "xboard" | "accepted" | "rejected" | "random" | "computer" | "name" | "rating" | "ics" | "draw"
            | "hard" | "easy" | "pause" | "resume" | "hint" | "bk" | "otim_" | "exclude" | "include" | "."
            | "debug" => {}
            "protover" => self.features(),
            "new" => self.new_game(),
            "variant" => self.variant(arg, line),
            "force" => {
                self.cancel();
                self.st.force = true;
            }
            "go" => {
                self.st.force = false;
                self.st.engine_side = self.engine.position().side_to_move();
                // A finished game (e.g. a mate set up with `setboard`) gets its result.
                if !self.announce_result() {
                    self.maybe_think();
                }
            }
            "playother" => {
                self.cancel();
                self.st.force = false;
                self.st.engine_side = !self.engine.position().side_to_move();
            }
            "white" | "black" => {
                // Protocol version 1: set the side to move's colour, engine plays the other.
                self.cancel();
                self.st.engine_side = if cmd == "white" { Color::Black } else { Color::White };
            }
            "usermove" => self.user_move(arg),
            "setboard" => {
                self.set_board(&args.join(" "));
                self.send_definition();
            }
            "level" | "st" | "sd" | "time" | "otim" | "nps" => self.time_control(cmd, args, line),
            "?" => self.engine.stop(),
            "ping" => self.ping(arg),
            "undo" => self.take_back(1, line),
            "remove" => self.take_back(2, line),
            "result" => {
                self.cancel();
                self.st.force = true;
            }
            "post" => self.st.post = true,
            "nopost" => self.st.post = false,
            "analyze" => {
                self.st.analyzing = true;
                self.maybe_think();
            }
            "exit" => {
                self.st.analyzing = false;
                self.cancel();
            }
            "memory" => self.memory(arg, line),
            "cores" => {
                if self.engine.set_option("Threads", arg).is_err() {
                    self.error("bad core count", line);
                }
            }
            "option" => {
                let rest = args.join(" ");
                let (name, value) = rest.split_once('=').unwrap_or((rest.as_str(), ""));
                if let Err(e) = self.engine.set_option(name.trim(), value.trim()) {
                    self.error(&e.to_string(), line);
                }
            }
            "quit" => return false,
            _ => self.bare_word(cmd, args),
        }
        true
    }

    /// The time-control commands: `level`, `st`, `sd`, `time`, `otim`, `nps`.
    fn time_control(&mut self, cmd: &str, args: &[&str], line: &str) {
        let arg = args.first().copied().unwrap_or("");
        match cmd {
            "level" => match parse_level(args) {
                Some((mps, base_ms, inc_ms)) => {
                    (self.st.mps, self.st.base_ms, self.st.inc_ms, self.st.st_ms) = (mps, base_ms, inc_ms, None)
                }
                None => self.error("bad level", line),
            },
            "st" => match seconds_to_ms(arg) {
                Some(ms) => self.st.st_ms = Some(ms),
                None => self.error("bad time", line),
            },
            "sd" => match arg.parse::<u32>() {
                Ok(d) if d > 0 => self.st.sd = Some(d),
                _ => self.error("bad depth", line),
            },
            "time" | "otim" => match arg.parse::<i64>() {
                Ok(cs) => {
                    let ms = Some((cs.max(0) as u64) * 10);
                    if cmd == "time" {
                        self.st.time_ms = ms;
                    } else {
                        self.st.otim_ms = ms;
                    }
                }
                Err(_) => self.error("bad time", line),
            },
            "nps" => match arg.parse::<u64>() {
                Ok(n) => self.st.nps = n,
                Err(_) => self.error("bad nps", line),
            },
            _ => {}
        }
    }

    /// `new`: orthodox chess from the start, the engine playing Black, no
    /// depth or time limits carried over.
    fn new_game(&mut self) {
        self.cancel();
        // `new` means orthodox chess; `variant` may follow. Chess always ships.
        let _ = self.engine.set_variant("chess");
        self.engine.new_game();
        self.st.force = false;
        self.st.engine_side = Color::Black;
        self.st.sd = None;
        self.st.st_ms = None;
        self.st.time_ms = None;
        self.st.otim_ms = None;
        if self.st.analyzing {
            self.maybe_think();
        }
    }

    /// `variant NAME`: switches and describes it when XBoard does not know
    /// it. XBoard cannot play a setup phase (Relocation's swaps: it refuses a
    /// king moving onto its own man), so the game starts after it, from the
    /// array both sides keep; `setboard` gives any other array.
    fn variant(&mut self, name: &str, line: &str) {
        self.cancel();
        match self.engine.set_variant(name) {
            Ok(_) => {
                let mut pos = self.engine.position().clone();
                while pos.in_setup() {
                    let Ok(pass) = pos.parse_move("0000") else { break };
                    pos.make(pass);
                }
                if pos.to_fen() != self.engine.position().to_fen() {
                    // The position comes from the variant's own start: it loads.
                    let _ = self.engine.set_position(Some(&pos.to_fen()), &[]);
                }
                self.st.definition_pending = true;
            }
            Err(e) => self.error(&e.to_string(), line),
        }
    }

    /// Sends the `setup` and `piece` lines `variant` held back. XBoard
    /// takes the first engine's `setup` position as the game's start (also
    /// over a position it loaded itself, when the board changes), and sends
    /// `setboard` right after `variant`: so a `setboard` first (a Relocation
    /// array loaded into XBoard) makes that position the start.
    fn send_definition(&mut self) {
        if std::mem::take(&mut self.st.definition_pending) {
            for l in variant_definition(self.engine) {
                self.send(&l);
            }
        }
        for pong in std::mem::take(&mut self.st.definition_pongs) {
            self.send(&pong);
        }
    }

    fn set_board(&mut self, fen: &str) {
        self.cancel();
        match self.engine.set_position(Some(fen), &[]) {
            Ok(()) => {
                if self.st.analyzing {
                    self.maybe_think();
                }
            }
            Err(e) => self.send(&format!("tellusererror Illegal position: {e}")),
        }
    }

    /// `ping N`: answered at once, or after the move being thought about.
    fn ping(&mut self, arg: &str) {
        let pong = format!("pong {arg}");
        if self.st.definition_pending {
            // The definition comes first: XBoard takes `pong` as "all done".
            self.st.definition_pongs.push(pong);
        } else if matches!(self.st.searching, Some((_, Purpose::Move))) {
            self.st.pending_pongs.push(pong);
        } else {
            self.send(&pong);
        }
    }

    /// `undo` (one move) or `remove` (two).
    fn take_back(&mut self, moves: usize, line: &str) {
        self.cancel();
        for _ in 0..moves {
            if self.engine.undo().is_err() {
                self.error("no move to undo", line);
                break;
            }
        }
        if self.st.analyzing {
            self.maybe_think();
        }
    }

    /// `memory MIB`: the hash size, clamped to what the engine accepts.
    fn memory(&mut self, arg: &str, line: &str) {
        match arg.parse::<usize>() {
            Ok(mib) => {
                if let Err(e) = self.engine.set_hash(mib.clamp(1, MAX_HASH_MIB as usize)) {
                    self.error(&e.to_string(), line);
                }
            }
            Err(_) => self.error("bad memory size", line),
        }
    }

    /// A word no command owns: a move (without `usermove` a move arrives
    /// bare) or an unknown command.
    fn bare_word(&mut self, cmd: &str, args: &[&str]) {
        let uci = from_xboard(self.engine.variant(), cmd);
        let looks_like_move = args.is_empty()
            && (crate::board::notation::MoveText::parse(&uci, self.engine.variant().shape).is_ok()
                || matches!(cmd, "O-O" | "O-O-O" | "0-0" | "0-0-0"));
        if looks_like_move {
            self.user_move(cmd);
        } else {
            self.error("unknown command", &super::quote(cmd));
        }
    }
}

/// `level MPS BASE INC` arguments, BASE as minutes or minutes:seconds and
/// INC in seconds: moves per session and base and increment in ms.
fn parse_level(args: &[&str]) -> Option<(u32, u64, u64)> {
    let [mps, base, inc] = args else { return None };
    let base_ms = match base.split_once(':') {
        // Seconds may carry a fraction (`0:00.5`), as the match runner sends sub-second bases.
        Some((m, s)) => m.parse::<u64>().ok().zip(seconds_to_ms(s)).map(|(m, s)| m * 60_000 + s),
        None => base.parse::<f64>().ok().filter(|x| x.is_finite() && *x >= 0.0).map(|m| (m * 60_000.0) as u64),
    }?;
    Some((mps.parse().ok()?, base_ms, seconds_to_ms(inc)?))
}

/// Runs XBoard until `quit` or end of input.
pub fn run(engine: &mut Engine, rx: &Receiver<Event>, tx: &Sender<Event>, out: &Output) -> Option<Protocol> {
    let mut session = Session { engine, tx, out, st: SessionState::new() };
    loop {
        // A held-back variant definition goes out once XBoard's burst of
        // commands after `variant` is over (no `setboard` among them).
        let event = if session.st.definition_pending {
            match rx.recv_timeout(DEFINITION_HOLD) {
                Ok(event) => event,
                Err(RecvTimeoutError::Timeout) => {
                    session.send_definition();
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        } else {
            match rx.recv() {
                Ok(event) => event,
                Err(_) => break,
            }
        };
        match event {
            Event::Line(line) => {
                if !session.command(&line) {
                    break;
                }
            }
            Event::Eof => break,
            Event::Search(id, e) => session.search_event(id, e),
        }
    }
    session.cancel();
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn riders_are_written_with_a_range() {
        assert_eq!(xboard_betza("NN", false), "N0");
        assert_eq!(xboard_betza("mRcpR", false), "mRcpR");
        assert_eq!(xboard_betza("KAD", false), "KAD");
    }

    #[test]
    fn pawns_that_take_en_passant_say_so() {
        assert_eq!(xboard_betza("fmW fcF ifmnD", true), "fmWfceFifmnD");
        assert_eq!(xboard_betza("fmW fcF ifmnD", false), "fmWfcFifmnD");
        // A man without a capture-only move has nothing to mark.
        assert_eq!(xboard_betza("fmW ifmnD", true), "fmWifmnD");
    }

    #[test]
    fn directed_kings_and_queens_are_split() {
        assert_eq!(xboard_betza("fK", false), "fWfF");
        assert_eq!(xboard_betza("fmQ", false), "fmRfmB");
        assert_eq!(xboard_betza("K", false), "K");
    }

    #[test]
    fn only_promoting_men_get_xboards_promoting_types() {
        let engine = Engine::new();
        let table = |name: &str| -> String {
            let v = engine.registry().get(name).expect("variant ships");
            piece_to_char(&v).expect("types suffice").into_iter().collect()
        };
        // The leo (L) does not promote: not on XBoard's Lance, which would.
        assert_eq!(table("clash2"), "PNBRQFLAC.M....G....UK");
        // The special pawn (S) promotes: on the Lance.
        assert_eq!(table("clash5"), "PNBRQF.AC.MO..J...S..K");
        assert_eq!(table("clash1"), "PNBRQF.AC.M.H..G....UK");
    }

    #[test]
    fn level_reads_minutes_and_seconds() {
        assert_eq!(parse_level(&["40", "0:30", "0"]), Some((40, 30_000, 0)));
        assert_eq!(parse_level(&["40", "0:00.5", "0"]), Some((40, 500, 0)));
        assert_eq!(parse_level(&["0", "5", "0.1"]), Some((0, 300_000, 100)));
        assert_eq!(parse_level(&["0", "0.5", "2"]), Some((0, 30_000, 2000)));
        assert_eq!(parse_level(&["0", "1:x", "2"]), None);
    }

    #[test]
    fn option_features_at_start() {
        let engine = Engine::new();
        let lines: Vec<String> =
            XBOARD_OPTIONS.iter().filter_map(|&id| option_feature(&engine, options::spec(id))).collect();
        assert_eq!(
            lines,
            [
                "feature option=\"MultiPV -spin 1 1 256\"",
                "feature option=\"Move Overhead -spin 10 0 10000\"",
                "feature option=\"Clear Hash -button\"",
                "feature option=\"Evaluation -combo *full /// nnue /// linear /// hand /// material\"",
                "feature option=\"EvalFile -file \"",
                "feature option=\"VariantPath -path .\"",
                "feature option=\"Skill Level -spin 20 0 20\"",
                "feature option=\"UCI_LimitStrength -check 0\"",
                "feature option=\"UCI_Elo -spin 2500 500 2500\"",
            ]
        );
    }
}
