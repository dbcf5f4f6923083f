//! `menagerie play`: a game in the terminal against an engine command (UCI or
//! XBoard) or, without one, against the random mover. The board is drawn in
//! text with the variant's letters and hands; moves are typed as UCI text.
//! Uses the engine adapters, the game's rule adjudication and the rules core.

use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;

use super::openings::SplitMix64;
use super::player::{MoveRequest, Player, PlayerSpec, Reply};
use super::random_engine::random_move;
use super::san::move_to_san;
use super::tc::{Clock, TimeControl};
use crate::moves::MoveList;
use crate::piece::{Color, PieceKind};
use crate::position::Position;
use crate::variant::Registry;

/// `menagerie play`: play against an engine in the terminal.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// Variant name.
    #[arg(long, default_value = "chess")]
    pub variant: String,
    /// Start position (default: the variant's).
    #[arg(long)]
    pub fen: Option<String>,
    /// Engine command (default: a random mover).
    #[arg(long)]
    pub engine: Option<String>,
    /// The engine's protocol: uci or xboard.
    #[arg(long, default_value = "uci")]
    pub proto: String,
    /// Engine option `NAME=VALUE` (repeatable).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    /// The colour you play: white or black.
    #[arg(long, default_value = "white")]
    pub color: String,
    /// The engine's limits (as for `match`).
    #[arg(long, default_value = "st=1")]
    pub tc: String,
    /// Seed of the random mover.
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
            let mut hand = String::new();
            for k in 0..v.kind_count() {
                let kind = PieceKind(k as u8);
                for _ in 0..pos.hand_count(color, kind) {
                    hand.push(v.pieces[k].letter);
                }
            }
            out.push_str(&format!("{} hand: {}\n", color.name(), if hand.is_empty() { "-" } else { &hand }));
        }
    }
    let phase = if pos.in_setup() { " (setup phase)" } else { "" };
    out.push_str(&format!("{} to move{phase}; FEN {}\n", pos.side_to_move().name(), pos.to_fen()));
    out
}

fn legal_moves_text(pos: &mut Position) -> String {
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    let moves: Vec<String> = list.iter().map(|&m| pos.move_to_uci(m, false)).collect();
    moves.join(" ")
}

/// Runs `menagerie play` on stdin/stdout.
pub fn run_play(args: &PlayArgs, registry: &Registry) -> ExitCode {
    let fail = |m: String| {
        eprintln!("error: {m}");
        ExitCode::FAILURE
    };
    let Some(variant) = registry.get(&args.variant) else {
        return fail(format!("unknown variant {:?} (try `menagerie variants`)", args.variant));
    };
    let human = match args.color.as_str() {
        "white" | "w" => Color::White,
        "black" | "b" => Color::Black,
        other => return fail(format!("unknown colour {other:?} (white or black)")),
    };
    let tc: TimeControl = match args.tc.parse() {
        Ok(t) => t,
        Err(e) => return fail(format!("{e}")),
    };
    let fen = args.fen.clone().unwrap_or_else(|| variant.start_fen.clone());
    let mut pos = match Position::from_fen(Arc::clone(&variant), &fen) {
        Ok(p) => p,
        Err(e) => return fail(format!("bad FEN: {e}")),
    };
    let stop = AtomicBool::new(false);
    let mut engine = match &args.engine {
        Some(cmd) => {
            let mut tokens = vec![format!("cmd={cmd}"), format!("proto={}", args.proto)];
            tokens.extend(args.options.iter().map(|o| format!("option.{o}")));
            let spec = match PlayerSpec::from_tokens(&tokens) {
                Ok(s) => s,
                Err(e) => return fail(e.to_string()),
            };
            let started =
                Player::start(&spec, &stop, false).and_then(|mut e| e.new_game(&variant, &fen, &tc, &stop).map(|_| e));
            match started {
                Ok(e) => Some(e),
                Err(e) => return fail(format!("engine: {e}")),
            }
        }
        None => None,
    };
    let mut rng = SplitMix64(args.seed);
    let mut moves: Vec<String> = Vec::new();
    let clocks = [Clock::new(&tc), Clock::new(&tc)];
    let stdin = std::io::stdin();
    let mut input = stdin.lock().lines();
    let mut out = std::io::stdout();
    println!("{}", variant.description);
    println!(
        "You play {}. Type moves as UCI text (e2e4, a9a10q, P@e4); `moves` lists them, `quit` ends.",
        human.name()
    );
    loop {
        println!("\n{}", draw_board(&pos));
        if let Some(end) = pos.game_end() {
            let result = end.outcome().pgn();
            println!("{end} ({result})");
            if let Some(e) = engine.as_mut() {
                e.game_over(result, &end.to_string());
            }
            break;
        }
        let us = pos.side_to_move();
        let text = if us == human {
            print!("Your move: ");
            let _ = out.flush();
            let Some(Ok(line)) = input.next() else { break };
            let line = line.trim().to_string();
            match line.as_str() {
                "" => continue,
                "quit" | "exit" => break,
                "moves" => {
                    println!("{}", legal_moves_text(&mut pos));
                    continue;
                }
                _ => line,
            }
        } else {
            let reply = match engine.as_mut() {
                Some(e) => {
                    let budget = tc.movetime.unwrap_or(Duration::from_secs(60)) + Duration::from_secs(5);
                    let request = MoveRequest {
                        start_fen: &fen,
                        moves: &moves,
                        white: us == Color::White,
                        clocks: [&clocks[0], &clocks[1]],
                        tc: &tc,
                        deadline: Instant::now() + budget,
                    };
                    e.play(&request, &stop)
                }
                None => {
                    Ok(random_move(&mut pos, &mut rng).map_or(Reply::Resign, |m| Reply::Move(m, Default::default())))
                }
            };
            match reply {
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
        match pos.parse_move(&text) {
            Ok(m) => {
                let san = move_to_san(&mut pos, m);
                let who = if us == human { "You play" } else { "Engine plays" };
                println!("{who} {san} ({})", pos.move_to_uci(m, false));
                moves.push(pos.move_to_uci(m, false));
                pos.make(m);
            }
            Err(e) if us == human => println!("{e}; legal moves: {}", legal_moves_text(&mut pos)),
            Err(e) => {
                println!("The engine played an illegal move: {e}");
                break;
            }
        }
    }
    if let Some(e) = engine {
        e.quit();
    }
    ExitCode::SUCCESS
}
