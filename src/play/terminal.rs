//! `menagerie play`: a game in the terminal against menagerie's own engine
//! (this program's `uci`, as a child process), another engine command (UCI or
//! XBoard), or with `--random` the random mover. The board is drawn in
//! text with the variant's letters and hands (each man in hand named);
//! moves are typed as SAN or UCI text, and a bad one is answered in one line
//! with its reason (not a move, not legal here, ambiguous with the
//! candidates). Commands: `help`, `moves` (the legal moves in SAN), `undo`
//! (the last pair of moves), `flip`, `hint` (menagerie's engine's move),
//! `legend` (the pieces in words, [`crate::rules::variant::describe`]),
//! `board`, `quit`. After each move the engine's evaluation and the clocks
//! are shown; the clocks run as lichess runs them (each side's from its
//! first move). The rules core's game-end decision ends the game.

use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;

use super::figures::BoardStyle;
use crate::board::position::Position;
use crate::board::registry::Registry;
use crate::engine::analysis::{InProcess, Searcher};
use crate::eval::catalogue::Catalogue;
use crate::game::analysis::Eval;
use crate::game::flag::flag_outcome;
use crate::game::openings::SplitMix64;
use crate::game::san::{move_to_san, parse_san, SanError};
use crate::game::tc::{Clock, GameClock, TimeControl};
use crate::players::random_engine::random_move;
use crate::players::{own_uci_command, MoveRequest, Player, PlayerError, PlayerSpec, Reply};
use crate::rules::moves::{Move, MoveList};
use crate::rules::piece::{Color, PieceKind};
use crate::rules::variant::describe::{display_name, legend};
use crate::rules::variant::Variant;
use crate::search::Limits;

/// How long `hint` lets menagerie's engine think, in milliseconds.
const HINT_MS: u64 = 1000;

/// The answer to `help`, one line.
const HELP: &str = "Type a move in SAN (e4, Nf3, O-O, P@e4) or UCI text (e2e4); commands: moves (the legal moves), undo (take back your last move and the reply), flip (turn the board), hint (the engine's move), legend (the pieces), board (draw it again), quit.";

/// `menagerie play`: play against an engine in the terminal.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Variant name.
    #[arg(long, default_value = "chess")]
    pub variant: String,
    /// Start position (default: the variant's).
    #[arg(long)]
    pub fen: Option<String>,
    /// Engine command (default: this program's own engine).
    #[arg(long, conflicts_with = "random")]
    pub engine: Option<String>,
    /// Play against a random mover instead of an engine.
    #[arg(long)]
    pub random: bool,
    /// The engine's protocol: uci or xboard.
    #[arg(long, default_value = "uci")]
    pub proto: String,
    /// Engine option `NAME=VALUE` (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    /// The colour you play: white or black.
    #[arg(long, default_value = "white")]
    pub color: String,
    /// The engine's limits (as for `match`; also `movetime=MS`); default
    /// `st=1` when no limit is given.
    #[arg(long)]
    pub tc: Option<String>,
    /// The engine's time per move in milliseconds (as `analyse` takes it; replaces `--tc`'s).
    #[arg(long)]
    pub movetime: Option<u64>,
    /// The engine's search depth per move (as `analyse` takes it).
    #[arg(long)]
    pub depth: Option<u32>,
    /// The engine's node budget per move (as `analyse` takes it).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Seed of the random mover (with --random).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Draw the men as Unicode chess figures (coloured on a terminal
    /// without NO_COLOR); the default on a terminal, not in a pipe.
    #[arg(long, conflicts_with = "ascii")]
    pub unicode: bool,
    /// Draw the men as the variant's letters (the default in a pipe).
    #[arg(long)]
    pub ascii: bool,
}

/// The board as text: ranks from the top (from the bottom when `flipped`,
/// Black's side then nearest), the variant's letters, `.` for an empty
/// square, file letters below, and the hands when the variant has them.
pub fn draw_board(pos: &Position, flipped: bool) -> String {
    draw_board_in(pos, flipped, BoardStyle::Ascii)
}

/// [`draw_board`] with the men drawn in `style` (letters, or figures).
pub fn draw_board_in(pos: &Position, flipped: bool, style: BoardStyle) -> String {
    let v = pos.variant();
    let shape = v.shape;
    let mut out = String::new();
    let ranks: Vec<u8> = if flipped { (0..shape.ranks).collect() } else { (0..shape.ranks).rev().collect() };
    let files: Vec<u8> = if flipped { (0..shape.files).rev().collect() } else { (0..shape.files).collect() };
    for &rank in &ranks {
        out.push_str(&format!("{:>2} ", rank + 1));
        for &file in &files {
            let c = shape.square(file, rank).map(|sq| pos.cell(sq));
            let man = c
                .filter(|cell| cell.is_piece())
                .map(|cell| (v.cell_letter(cell), v.pieces[cell.kind().index()].name.as_str(), cell.color()));
            // a1 is dark.
            out.push_str(&style.square(man, (file + rank) % 2 == 1));
        }
        out.push('\n');
    }
    out.push_str("   ");
    for &file in &files {
        out.push((b'a' + file) as char);
        out.push(' ');
    }
    out.push('\n');
    if v.hands {
        for color in Color::ALL {
            let held: Vec<String> = (0..v.kind_count())
                .filter_map(|k| {
                    let count = pos.hand_count(color, PieceKind(k as u8));
                    let piece = &v.pieces[k];
                    let times = if count > 1 { format!(" x{count}") } else { String::new() };
                    (count > 0).then(|| format!("{} ({}){times}", piece.letter, display_name(&piece.name)))
                })
                .collect();
            let hand = if held.is_empty() { "-".to_string() } else { held.join(", ") };
            out.push_str(&format!("{} hand: {hand}\n", color.name()));
        }
    }
    let phase = if pos.in_setup() { " (setup phase)" } else { "" };
    out.push_str(&format!("{} to move{phase}; FEN {}\n", pos.side_to_move().name(), pos.to_fen()));
    out
}

/// The variant's pieces: letter, name, how each moves and what its rules
/// add, in words generated from the variant file.
pub fn legend_text(v: &Variant) -> String {
    let mut out = format!("Pieces of {} (White's letters; Black's are lower case):\n", v.name);
    for piece in legend(v) {
        out.push_str(&format!("{}  {}\n   {}\n", piece.letter, piece.name, piece.moves));
        for note in &piece.notes {
            out.push_str(&format!("   {note}\n"));
        }
    }
    out
}

/// The legal moves in SAN, sorted, on one line.
fn legal_moves_text(pos: &mut Position) -> String {
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    let mut moves: Vec<String> = list.iter().map(|&m| move_to_san(pos, m)).collect();
    moves.sort();
    format!("{} legal moves: {}", moves.len(), moves.join(" "))
}

/// A move as people write it, with its number: `1. e4`, `1... e5`.
fn numbered(pos: &Position, san: &str) -> String {
    let dots = if pos.side_to_move() == Color::White { "." } else { "..." };
    format!("{}{dots} {san}", pos.state().fullmove)
}

/// A clock reading: `4:59`, and tenths under ten seconds (`0:09.3`).
fn clock_text(ms: i64) -> String {
    let ms = ms.max(0);
    let tenths = ms / 100;
    let text = format!("{}:{:02}", tenths / 600, (tenths / 10) % 60);
    if ms < 10_000 {
        format!("{text}.{}", tenths % 10)
    } else {
        text
    }
}

/// Why a typed move was refused, in one line: `Rd1: ambiguous: Rad1 or Rhd1`.
fn refusal(text: &str, error: &SanError) -> String {
    match error {
        SanError::NotAMove(_) => format!("{text}: not a move (help lists the commands)"),
        SanError::Illegal(_) => format!("{text}: not legal here (moves lists the legal ones)"),
        SanError::Ambiguous { candidates, .. } => format!("{text}: ambiguous: {}", candidates.join(" or ")),
    }
}

/// The checked settings of a `menagerie play` game.
struct PlaySetup {
    variant: Arc<Variant>,
    human: Color,
    tc: TimeControl,
    fen: String,
}

impl PlaySetup {
    fn new(args: &PlayArgs, registry: &Registry) -> Result<PlaySetup, String> {
        let Some(variant) = registry.get(&args.variant) else {
            return Err(format!("unknown variant {:?} (try `menagerie variants`)", args.variant));
        };
        let human = match args.color.as_str() {
            "white" | "w" => Color::White,
            "black" | "b" => Color::Black,
            other => return Err(format!("unknown colour {other:?} (white or black)")),
        };
        let limited = args.movetime.is_some() || args.depth.is_some() || args.nodes.is_some();
        let text = args.tc.as_deref().unwrap_or(if limited { "inf" } else { "st=1" });
        let mut tc: TimeControl = text.parse().map_err(|e| format!("{e}"))?;
        if let Some(ms) = args.movetime {
            tc.movetime = Some(Duration::from_millis(ms.max(1)));
        }
        tc.depth = args.depth.or(tc.depth);
        tc.nodes = args.nodes.or(tc.nodes);
        let fen = args.fen.clone().unwrap_or_else(|| variant.start_fen.clone());
        Ok(PlaySetup { variant, human, tc, fen })
    }
}

/// Who plays against the human: an engine process or the random mover.
enum Opponent {
    Engine(Box<Player>),
    Random(SplitMix64),
}

impl Opponent {
    /// Starts `--engine` (default: this program's own engine) with its
    /// options for a game of `setup`, or with `--random` the random mover.
    fn start(args: &PlayArgs, setup: &PlaySetup, stop: &AtomicBool) -> Result<Opponent, String> {
        if args.random {
            return Ok(Opponent::Random(SplitMix64(args.seed)));
        }
        let (cmd, proto) = match &args.engine {
            Some(cmd) => (cmd.clone(), args.proto.as_str()),
            None => (own_uci_command()?, "uci"),
        };
        let mut tokens = vec![format!("cmd={cmd}"), format!("proto={proto}")];
        tokens.extend(args.options.iter().map(|o| format!("option.{o}")));
        let spec = PlayerSpec::from_tokens(&tokens).map_err(|e| e.to_string())?;
        Player::start(&spec, stop, false)
            .and_then(|mut e| e.new_game(&setup.variant, &setup.fen, &setup.tc, stop).map(|_| e))
            .map(|e| Opponent::Engine(Box::new(e)))
            .map_err(|e| format!("engine: {e}"))
    }

    /// Who the human plays against, for the greeting.
    fn describe(args: &PlayArgs, tc: &TimeControl) -> String {
        match &args.engine {
            _ if args.random => format!("a random mover (seed {})", args.seed),
            Some(cmd) => format!("{cmd} ({}, {tc})", args.proto),
            None => format!("menagerie's engine ({tc})"),
        }
    }

    /// The opponent's answer in the game `moves` from `setup`'s FEN reached,
    /// on `clock` when the game has one.
    fn reply(
        &mut self,
        setup: &PlaySetup,
        pos: &mut Position,
        moves: &[String],
        clock: Option<&GameClock>,
        stop: &AtomicBool,
    ) -> Result<Reply, PlayerError> {
        match self {
            Opponent::Engine(e) => {
                let now = Instant::now();
                let full = Clock::new(&setup.tc);
                let [white, black] = Color::ALL.map(|c| clock.map_or(full, |g| g.clock(c, now)));
                let left = clock.map(|g| g.left_ms(pos.side_to_move(), now).max(0) as u64);
                let budget = match (setup.tc.movetime, left) {
                    (Some(t), _) => t,
                    (None, Some(ms)) => Duration::from_millis(ms),
                    (None, None) => Duration::from_secs(60),
                };
                let request = MoveRequest {
                    start_fen: &setup.fen,
                    moves,
                    white: pos.side_to_move() == Color::White,
                    clocks: [&white, &black],
                    tc: &setup.tc,
                    deadline: now + budget + Duration::from_secs(5),
                };
                e.play(&request, stop)
            }
            Opponent::Random(rng) => {
                Ok(random_move(pos, rng).map_or(Reply::Resign, |m| Reply::Move(m, Default::default())))
            }
        }
    }

    fn game_over(&mut self, result: &str, reason: &str) {
        if let Opponent::Engine(e) = self {
            e.game_over(result, reason);
        }
    }

    fn quit(self) {
        if let Opponent::Engine(e) = self {
            e.quit();
        }
    }
}

/// What a line typed at the prompt asks for.
#[derive(Debug, PartialEq, Eq)]
enum Command {
    Move(String),
    Help,
    Moves,
    Legend,
    Undo,
    Flip,
    Hint,
    Board,
    Quit,
    Nothing,
}

impl Command {
    fn read(line: &str) -> Command {
        match line.trim() {
            "" => Command::Nothing,
            "help" | "?" => Command::Help,
            "moves" => Command::Moves,
            "legend" => Command::Legend,
            "undo" | "takeback" => Command::Undo,
            "flip" => Command::Flip,
            "hint" => Command::Hint,
            "board" => Command::Board,
            "quit" | "exit" => Command::Quit,
            text => Command::Move(text.to_string()),
        }
    }
}

/// The game at the terminal: the position, the moves played (UCI text),
/// which way the board is drawn, the clocks, and the engine that gives hints.
struct Game<'a> {
    setup: &'a PlaySetup,
    catalogue: &'a Catalogue,
    start: Position,
    pos: Position,
    moves: Vec<String>,
    flipped: bool,
    style: BoardStyle,
    clock: Option<GameClock>,
    hints: Option<InProcess>,
}

impl Game<'_> {
    /// Plays `m` for the side to move: its clock is charged; the line that
    /// says so (`You play 1. e4 (e2e4)`), or None when its flag had fallen.
    fn play(&mut self, m: Move, who: &str) -> Option<String> {
        let side = self.pos.side_to_move();
        if let Some(clock) = &mut self.clock {
            if !clock.moved(side, Instant::now()) {
                return None;
            }
        }
        let uci = self.pos.move_to_uci(m, false);
        let san = move_to_san(&mut self.pos, m);
        let san = numbered(&self.pos, &san);
        self.moves.push(uci.clone());
        self.pos.make(m);
        Some(format!("{who} {san} ({uci})"))
    }

    /// `White 4:59, Black 5:00`, or nothing without a clock.
    fn clocks(&self) -> Option<String> {
        let clock = self.clock.as_ref()?;
        let now = Instant::now();
        let [white, black] = Color::ALL.map(|c| clock_text(clock.left_ms(c, now)));
        Some(format!("White {white}, Black {black}"))
    }

    /// Takes back the human's last move and the engine's reply to it (at the
    /// human's turn); the position is replayed from the start.
    fn undo(&mut self, human: Color) -> String {
        // A game the engine opened keeps its first move.
        let opened = usize::from(self.start.side_to_move() != human);
        if self.moves.len() < 2 + opened {
            return "nothing to take back".to_string();
        }
        let keep = self.moves.len() - 2;
        let mut pos = self.start.clone();
        let mut taken = Vec::new();
        for (i, text) in self.moves.iter().enumerate() {
            let Ok(m) = pos.parse_move(text) else { return "cannot replay the game".to_string() };
            if i == keep {
                self.pos = pos.clone();
            }
            if i >= keep {
                let san = move_to_san(&mut pos, m);
                taken.push(numbered(&pos, &san));
            }
            pos.make(m);
        }
        self.moves.truncate(keep);
        format!("took back {}", taken.join(" "))
    }

    /// menagerie's engine's move for the side to move, with its evaluation.
    fn hint(&mut self) -> String {
        if self.hints.is_none() {
            let limits = Limits { movetime: Some(HINT_MS), ..Limits::default() };
            match InProcess::new(self.catalogue.clone(), &[], limits) {
                Ok(mut engine) => {
                    if let Err(e) = engine.new_game(&self.setup.variant) {
                        return format!("no hint: {e}");
                    }
                    self.hints = Some(engine);
                }
                Err(e) => return format!("no hint: {e}"),
            }
        }
        let Some(engine) = self.hints.as_mut() else { return "no hint".to_string() };
        let probe = match engine.search(&self.pos, &self.setup.fen, &self.moves) {
            Ok(p) => p,
            Err(e) => return format!("no hint: {e}"),
        };
        let Some(best) = probe.best.as_deref() else { return "no hint: no legal move".to_string() };
        let san = self.pos.parse_move(best).map(|m| move_to_san(&mut self.pos, m)).unwrap_or_default();
        let eval = Eval::from_side(probe.cp, probe.mate, self.pos.side_to_move())
            .map_or(String::new(), |e| format!(", eval {}", e.display()));
        format!("hint: {san} ({best}){eval} at depth {}", probe.depth)
    }
}

/// The engine's evaluation from its reply, in White's view: `eval +0.35 at depth 12`.
fn eval_text(info: &crate::game::record::SearchInfo, mover: Color) -> Option<String> {
    let eval = Eval::from_side(info.score_cp, info.mate, mover)?;
    let depth = info.depth.map_or(String::new(), |d| format!(" at depth {d}"));
    Some(format!("eval {}{depth}", eval.display()))
}

/// Runs `menagerie play` on stdin/stdout.
pub fn run_play(args: &PlayArgs, catalogue: &Catalogue) -> ExitCode {
    let fail = |m: String| {
        eprintln!("error: {m}");
        ExitCode::FAILURE
    };
    let setup = match PlaySetup::new(args, catalogue.registry()) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let pos = match Position::from_fen(Arc::clone(&setup.variant), &setup.fen) {
        Ok(p) => p,
        Err(e) => return fail(format!("bad FEN: {e}")),
    };
    let stop = AtomicBool::new(false);
    let mut opponent = match Opponent::start(args, &setup, &stop) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    let clock = GameClock::start(setup.tc, pos.side_to_move(), Instant::now());
    let human = setup.human;
    let flipped = human == Color::Black;
    let style = BoardStyle::choose(args.unicode, args.ascii);
    let mut game = Game {
        setup: &setup,
        catalogue,
        start: pos.clone(),
        pos,
        moves: Vec::new(),
        flipped,
        style,
        clock,
        hints: None,
    };
    let mut input = std::io::stdin().lock().lines();
    println!("{}", setup.variant.description);
    println!(
        "You play {} against {}. Type moves in SAN (e4, Nf3, O-O) or UCI text (e2e4, a9a10q, P@e4); help lists the commands.",
        human.name(),
        Opponent::describe(args, &setup.tc)
    );
    println!("\n{}", draw_board_in(&game.pos, game.flipped, game.style));
    loop {
        if let Some(end) = game.pos.game_end() {
            let result = end.outcome().pgn();
            println!("{end} ({result})");
            opponent.game_over(result, &end.to_string());
            break;
        }
        let side = game.pos.side_to_move();
        let line = if side == human {
            print!("Your move: ");
            let _ = std::io::stdout().flush();
            let Some(Ok(line)) = input.next() else { break };
            let text = match Command::read(&line) {
                Command::Move(text) => text,
                Command::Nothing => continue,
                Command::Quit => break,
                Command::Help => {
                    println!("{HELP}");
                    continue;
                }
                Command::Moves => {
                    println!("{}", legal_moves_text(&mut game.pos));
                    continue;
                }
                Command::Legend => {
                    print!("{}", legend_text(game.pos.variant()));
                    continue;
                }
                Command::Hint => {
                    println!("{}", game.hint());
                    continue;
                }
                Command::Undo => {
                    println!("{}", game.undo(human));
                    println!("\n{}", draw_board_in(&game.pos, game.flipped, game.style));
                    continue;
                }
                Command::Flip | Command::Board => {
                    game.flipped ^= Command::read(&line) == Command::Flip;
                    println!("\n{}", draw_board_in(&game.pos, game.flipped, game.style));
                    continue;
                }
            };
            let m = match parse_san(&mut game.pos, &text) {
                Ok(m) => m,
                Err(e) => {
                    println!("{}", refusal(&text, &e));
                    continue;
                }
            };
            game.play(m, "You play")
        } else {
            let text = match opponent.reply(&setup, &mut game.pos, &game.moves, game.clock.as_ref(), &stop) {
                Ok(Reply::Move(m, info)) => Some((m, info)),
                Ok(Reply::Resign) => {
                    println!("The engine resigns.");
                    break;
                }
                Err(e) => {
                    println!("The engine failed: {e}");
                    break;
                }
            };
            let Some((text, info)) = text else { break };
            let m = match game.pos.parse_move(&text) {
                Ok(m) => m,
                Err(e) => {
                    println!("The engine played an illegal move: {e}");
                    break;
                }
            };
            game.play(m, "Engine plays").map(|l| match eval_text(&info, side) {
                Some(eval) => format!("{l}; {eval} (White's view)"),
                None => l,
            })
        };
        let Some(line) = line else {
            let result = flag_outcome(side, &game.pos).pgn();
            println!("{}'s flag fell ({result})", if side == Color::White { "White" } else { "Black" });
            opponent.game_over(result, "time forfeit");
            break;
        };
        match game.clocks() {
            Some(clocks) => println!("{line}; {clocks}"),
            None => println!("{line}"),
        }
        println!("\n{}", draw_board_in(&game.pos, game.flipped, game.style));
    }
    opponent.quit();
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hands_and_legend_name_the_men() {
        let reg = Registry::builtin();
        let v = reg.get("clockwork").unwrap();
        let pos = Position::from_fen(Arc::clone(&v), "4k3/8/8/8/8/8/8/4K3[TSSqc] w - - 0 1").unwrap();
        let board = draw_board(&pos, false);
        assert!(board.contains("white hand: T (nc queen), S (nc pawn) x2\n"), "{board}");
        assert!(board.contains("black hand: Q (queen), C (nc bishop)\n"), "{board}");
        let text = legend_text(&v);
        for piece in &v.pieces {
            assert!(text.contains(&format!("{}  {}\n", piece.letter, display_name(&piece.name))), "{text}");
        }
        assert!(text.contains("U  nc rook\n   Slides any distance orthogonally; never captures.\n"), "{text}");
        assert!(text.contains("turned into the rook (R)"), "{text}");
    }
}
