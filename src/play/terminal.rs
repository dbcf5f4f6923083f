//! `menagerie play`: a game in the terminal against menagerie's own engine
//! (this program's `uci`, as a child process), another engine command (UCI or
//! XBoard), or with `--random` the random mover. The board is drawn in
//! text with the variant's letters and hands (each man in hand named);
//! moves are typed as UCI text, and `legend` lists the variant's pieces with
//! how they move in words ([`crate::rules::variant::describe`]). The rules core's
//! game-end decision ends the game.

use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;

use crate::board::position::Position;
use crate::board::registry::Registry;
use crate::game::openings::SplitMix64;
use crate::game::san::{move_to_san, parse_san, SanError};
use crate::game::tc::{Clock, TimeControl};
use crate::players::random_engine::random_move;
use crate::players::{own_uci_command, MoveRequest, Player, PlayerError, PlayerSpec, Reply};
use crate::rules::moves::MoveList;
use crate::rules::piece::{Color, PieceKind};
use crate::rules::variant::describe::{display_name, legend};
use crate::rules::variant::Variant;

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
}

/// The board as text: ranks from the top, the variant's letters, `.` for an
/// empty square, file letters below, and the hands when the variant has them.
pub fn draw_board(pos: &Position) -> String {
    let v = pos.variant();
    let shape = v.shape;
    let mut out = String::new();
    for rank in (0..shape.ranks).rev() {
        out.push_str(&format!("{:>2} ", rank + 1));
        for file in 0..shape.files {
            let c = shape.square(file, rank).map(|sq| pos.cell(sq));
            match c {
                Some(cell) if cell.is_piece() => out.push(v.cell_letter(cell)),
                _ => out.push('.'),
            }
            out.push(' ');
        }
        out.push('\n');
    }
    out.push_str("   ");
    for file in 0..shape.files {
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

fn legal_moves_text(pos: &mut Position) -> String {
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    let moves: Vec<String> = list.iter().map(|&m| pos.move_to_uci(m, false)).collect();
    moves.join(" ")
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

    /// The opponent's answer in the game `moves` from `setup`'s FEN reached.
    fn reply(
        &mut self,
        setup: &PlaySetup,
        pos: &mut Position,
        moves: &[String],
        stop: &AtomicBool,
    ) -> Result<Reply, PlayerError> {
        match self {
            Opponent::Engine(e) => {
                let budget = setup.tc.movetime.unwrap_or(Duration::from_secs(60)) + Duration::from_secs(5);
                let clock = Clock::new(&setup.tc);
                let request = MoveRequest {
                    start_fen: &setup.fen,
                    moves,
                    white: pos.side_to_move() == Color::White,
                    clocks: [&clock, &clock],
                    tc: &setup.tc,
                    deadline: Instant::now() + budget,
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

/// What the human's input asks for.
enum HumanTurn {
    /// A move to check and play.
    Move(String),
    /// Nothing to play: show the board again.
    Again,
    /// `quit`, `exit` or end of input.
    Stop,
}

/// Reads the human's next line (`moves` lists the legal moves).
fn human_turn(input: &mut impl Iterator<Item = std::io::Result<String>>, pos: &mut Position) -> HumanTurn {
    print!("Your move: ");
    let _ = std::io::stdout().flush();
    let Some(Ok(line)) = input.next() else { return HumanTurn::Stop };
    match line.trim() {
        "" => HumanTurn::Again,
        "quit" | "exit" => HumanTurn::Stop,
        "moves" => {
            println!("{}", legal_moves_text(pos));
            HumanTurn::Again
        }
        "legend" => {
            print!("{}", legend_text(pos.variant()));
            HumanTurn::Again
        }
        text => HumanTurn::Move(text.to_string()),
    }
}

/// Plays `text` for the side to move and records it; false when the game
/// cannot go on (the engine played an illegal move). A human's move is read
/// as UCI text, else as SAN (as the board takes it); an illegal one is
/// answered with the legal moves.
fn play_text(pos: &mut Position, moves: &mut Vec<String>, text: &str, human: bool) -> bool {
    let parsed = match pos.parse_move(text) {
        Err(e) if human => parse_san(pos, text).map_err(|san| match san {
            SanError::Ambiguous { .. } => san.to_string(),
            _ => format!("{e}, nor a legal move in SAN"),
        }),
        other => other.map_err(|e| e.to_string()),
    };
    match parsed {
        Ok(m) => {
            let san = move_to_san(pos, m);
            let who = if human { "You play" } else { "Engine plays" };
            println!("{who} {san} ({})", pos.move_to_uci(m, false));
            moves.push(pos.move_to_uci(m, false));
            pos.make(m);
            true
        }
        Err(e) if human => {
            println!("{e}; legal moves: {}", legal_moves_text(pos));
            true
        }
        Err(e) => {
            println!("The engine played an illegal move: {e}");
            false
        }
    }
}

/// Runs `menagerie play` on stdin/stdout.
pub fn run_play(args: &PlayArgs, registry: &Registry) -> ExitCode {
    let fail = |m: String| {
        eprintln!("error: {m}");
        ExitCode::FAILURE
    };
    let setup = match PlaySetup::new(args, registry) {
        Ok(s) => s,
        Err(e) => return fail(e),
    };
    let mut pos = match Position::from_fen(Arc::clone(&setup.variant), &setup.fen) {
        Ok(p) => p,
        Err(e) => return fail(format!("bad FEN: {e}")),
    };
    let stop = AtomicBool::new(false);
    let mut opponent = match Opponent::start(args, &setup, &stop) {
        Ok(o) => o,
        Err(e) => return fail(e),
    };
    let mut moves: Vec<String> = Vec::new();
    let mut input = std::io::stdin().lock().lines();
    println!("{}", setup.variant.description);
    println!(
        "You play {} against {}. Type moves as UCI text (e2e4, a9a10q, P@e4) or SAN (e4, Nf3, O-O); `moves` lists them, `legend` names the pieces, `quit` ends.",
        setup.human.name(),
        Opponent::describe(args, &setup.tc)
    );
    loop {
        println!("\n{}", draw_board(&pos));
        if let Some(end) = pos.game_end() {
            let result = end.outcome().pgn();
            println!("{end} ({result})");
            opponent.game_over(result, &end.to_string());
            break;
        }
        let human = pos.side_to_move() == setup.human;
        let text = if human {
            match human_turn(&mut input, &mut pos) {
                HumanTurn::Move(text) => text,
                HumanTurn::Again => continue,
                HumanTurn::Stop => break,
            }
        } else {
            match opponent.reply(&setup, &mut pos, &moves, &stop) {
                Ok(Reply::Move(m, _)) => m,
                Ok(Reply::Resign) => {
                    println!("The engine resigns.");
                    break;
                }
                Err(e) => {
                    println!("The engine failed: {e}");
                    break;
                }
            }
        };
        if !play_text(&mut pos, &mut moves, &text, human) {
            break;
        }
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
        let board = draw_board(&pos);
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
