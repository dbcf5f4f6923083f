//! One refereed game between two engines. The rules core is the arbiter:
//! every move is checked, and the game ends by the variant's rules
//! (checkmate, stalemate, repetition, move rule), by time forfeit, illegal
//! move, resignation, disconnection, or adjudication after a move limit.
//! The rules core's game-end decision is the arbiter's.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::board::outcome::Outcome;
use crate::board::position::Position;
use crate::game::adjudicate::{Adjudicator, DrawRule, ResignRule, Verdict};
use crate::game::record::{make_recorded, GameRecord, SearchInfo, Termination};
use crate::game::tc::{Clock, TimeControl};
use crate::players::{MoveRequest, Player, PlayerError, Reply};
use crate::rules::piece::Color;
use crate::rules::variant::Variant;

/// Everything about a game besides the engines.
#[derive(Clone, Debug)]
pub struct GameSetup {
    /// The variant.
    pub variant: Arc<Variant>,
    /// Start FEN.
    pub start_fen: String,
    /// Opening moves in UCI text, played before the engines take over.
    pub opening: Vec<String>,
    /// Limits for White and Black.
    pub tc: [TimeControl; 2],
    /// How the referee times moves and adjudicates.
    pub referee: RefereeSettings,
}

/// How the referee times moves and adjudicates, the same for every game of a match.
#[derive(Clone, Copy, Debug)]
pub struct RefereeSettings {
    /// Extra time before a flag counts (and before untimed moves time out).
    pub margin: Duration,
    /// How long an engine may think on one move without a clock or movetime.
    pub move_timeout: Duration,
    /// Adjudicate a draw after this many moves per side (0 = never).
    pub max_moves: u32,
    /// Score-based draw adjudication.
    pub draw_rule: Option<DrawRule>,
    /// Score-based loss adjudication.
    pub resign_rule: Option<ResignRule>,
}

/// Which engines misbehaved and should be restarted before another game.
pub type Faults = [bool; 2];

fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// How a game ended: the result (None when unterminated), the
/// termination and the reason in words.
struct Ending {
    outcome: Option<Outcome>,
    termination: Termination,
    reason: String,
}

impl Ending {
    /// `loser` loses the game for `termination`.
    fn loss(loser: Color, termination: Termination, reason: String) -> Ending {
        Ending { outcome: Some(Outcome::win_for(!loser)), termination, reason }
    }
    /// A draw by adjudication.
    fn adjudicated_draw(reason: String) -> Ending {
        Ending { outcome: Some(Outcome::Draw), termination: Termination::Adjudication, reason }
    }
}

/// A record of a game about to start, without moves or result.
pub fn new_record(setup: &GameSetup, names: [&str; 2]) -> GameRecord {
    GameRecord {
        white: names[0].to_string(),
        black: names[1].to_string(),
        start_fen: setup.start_fen.clone(),
        moves: Vec::new(),
        outcome: None,
        termination: Termination::Unterminated,
        reason: String::new(),
        tc: setup.tc,
    }
}

/// Writes how the game ended into its record.
fn finish(record: &mut GameRecord, ending: Ending) {
    record.outcome = ending.outcome;
    record.termination = ending.termination;
    record.reason = ending.reason;
}

/// The colour that `players[index]` plays.
fn side_of(index: usize) -> Color {
    if index == 0 {
        Color::White
    } else {
        Color::Black
    }
}

/// Plays a game; `players[0]` is White. Never panics on engine output.
pub fn play_game(
    setup: &GameSetup,
    names: [&str; 2],
    players: [&mut Player; 2],
    stop: &AtomicBool,
) -> (GameRecord, Faults) {
    let mut record = new_record(setup, names);
    let mut faults = [false; 2];
    let mut pos = match play_opening(setup, &mut record) {
        Ok(p) => p,
        Err(reason) => {
            record.reason = reason;
            return (record, faults);
        }
    };
    let mut players = players;
    if let Err((index, ending)) = start_players(setup, &mut players, stop) {
        faults[index] = true;
        finish(&mut record, ending);
        return (record, faults);
    }
    let ending = play_moves(setup, &mut pos, &mut record, &mut players, stop, &mut faults);
    finish(&mut record, ending);
    let result = record.outcome.map_or("*", Outcome::pgn);
    for (i, player) in players.iter_mut().enumerate() {
        if !faults[i] {
            player.game_over(result, &record.reason);
        }
    }
    (record, faults)
}

/// The start position with the opening played and recorded (as `book`);
/// the error is the record's reason.
fn play_opening(setup: &GameSetup, record: &mut GameRecord) -> Result<Position, String> {
    let mut pos =
        Position::from_fen(Arc::clone(&setup.variant), &setup.start_fen).map_err(|e| format!("bad start FEN: {e}"))?;
    for text in &setup.opening {
        let m = pos.parse_move(text).map_err(|_| format!("illegal opening move {text}"))?;
        record.moves.push(make_recorded(&mut pos, m, "book".to_string()));
    }
    Ok(pos)
}

/// Tells both players a new game starts; the error names the player that
/// failed and how the game ends for it.
fn start_players(setup: &GameSetup, players: &mut [&mut Player; 2], stop: &AtomicBool) -> Result<(), (usize, Ending)> {
    for (i, player) in players.iter_mut().enumerate() {
        if let Err(e) = player.new_game(&setup.variant, &setup.start_fen, &setup.tc[i], stop) {
            let color = side_of(i);
            let reason = format!("{} could not start the game: {e}", side_name(color));
            let ending = match e {
                PlayerError::Stopped => Ending { outcome: None, termination: Termination::Unterminated, reason },
                PlayerError::Timeout => Ending::loss(color, Termination::TimeForfeit, reason),
                _ => Ending::loss(color, Termination::Abandoned, reason),
            };
            return Err((i, ending));
        }
    }
    Ok(())
}

/// The end the rules or the adjudication rules give the game before the
/// side to move plays, if any.
fn decided(pos: &mut Position, verdict: Option<Verdict>, setup: &GameSetup, plies: usize) -> Option<Ending> {
    if let Some(end) = pos.game_end() {
        return Some(Ending {
            outcome: Some(end.outcome()),
            termination: Termination::Normal,
            reason: end.to_string(),
        });
    }
    match verdict {
        Some(Verdict::Draw) => return Some(Ending::adjudicated_draw("Draw by adjudication".to_string())),
        Some(Verdict::Loses(side)) => {
            let loser = side_of(side);
            let reason = format!("{} wins by adjudication", side_name(!loser));
            return Some(Ending::loss(loser, Termination::Adjudication, reason));
        }
        None => {}
    }
    (setup.referee.max_moves > 0 && plies as u32 >= 2 * setup.referee.max_moves)
        .then(|| Ending::adjudicated_draw(format!("Draw by adjudication after {} moves", setup.referee.max_moves)))
}

/// How long the player of `index` may think: its clock, else its fixed
/// time per move, else the untimed move timeout.
fn move_budget(setup: &GameSetup, clock: &Clock, index: usize) -> Duration {
    if clock.is_timed() {
        Duration::from_millis(clock.left_ms.max(0) as u64)
    } else if let Some(t) = setup.tc[index].movetime {
        t
    } else {
        setup.referee.move_timeout
    }
}

/// How the game ends when the player of `us` could not answer.
fn failed_reply(error: PlayerError, us: Color) -> Ending {
    let name = side_name(us);
    match error {
        PlayerError::Stopped => {
            Ending { outcome: None, termination: Termination::Unterminated, reason: "Stopped".to_string() }
        }
        PlayerError::Timeout => Ending::loss(us, Termination::TimeForfeit, format!("{name} loses on time")),
        PlayerError::Disconnected(why) => {
            Ending::loss(us, Termination::Abandoned, format!("{name} disconnects ({why})"))
        }
        other => Ending::loss(us, Termination::Abandoned, format!("{name}: {other}")),
    }
}

/// The game after the opening: asks each player in turn, checks and plays
/// its move, until the rules, a clock, a fault or adjudication end it.
fn play_moves(
    setup: &GameSetup,
    pos: &mut Position,
    record: &mut GameRecord,
    players: &mut [&mut Player; 2],
    stop: &AtomicBool,
    faults: &mut Faults,
) -> Ending {
    let mut clocks = [Clock::new(&setup.tc[0]), Clock::new(&setup.tc[1])];
    let mut adjudicator = Adjudicator::new(setup.referee.draw_rule, setup.referee.resign_rule);
    let mut verdict: Option<Verdict> = None;
    let mut uci_moves: Vec<String> = record.moves.iter().map(|m| m.uci.clone()).collect();
    let start_ply = pos.ply_count();
    loop {
        if let Some(ending) = decided(pos, verdict, setup, pos.ply_count() - start_ply) {
            return ending;
        }
        let us = pos.side_to_move();
        let idx = us.index();
        let budget = move_budget(setup, &clocks[idx], idx);
        let started = Instant::now();
        let request = MoveRequest {
            start_fen: &setup.start_fen,
            moves: &uci_moves,
            white: us == Color::White,
            clocks: [&clocks[0], &clocks[1]],
            tc: &setup.tc[idx],
            deadline: started + budget + setup.referee.margin,
        };
        let reply = players[idx].play(&request, stop);
        let used = started.elapsed();
        let name = side_name(us);
        let (text, info) = match reply {
            Ok(Reply::Move(text, info)) => (text, info),
            Ok(Reply::Resign) => return Ending::loss(us, Termination::Normal, format!("{name} resigns")),
            Err(e) => {
                faults[idx] |= e != PlayerError::Stopped;
                return failed_reply(e, us);
            }
        };
        if !clocks[idx].charge(used, setup.referee.margin)
            || (setup.tc[idx].movetime.is_some() && !clocks[idx].is_timed() && used > budget + setup.referee.margin)
        {
            return Ending::loss(us, Termination::TimeForfeit, format!("{name} loses on time"));
        }
        let Ok(m) = pos.parse_move(&text) else {
            faults[idx] = true;
            return Ending::loss(us, Termination::IllegalMove, format!("{name} makes an illegal move: {text}"));
        };
        let played = make_recorded(pos, m, comment(&info, used));
        verdict = adjudicator.record(idx, played.number, &info);
        uci_moves.push(played.uci.clone());
        record.moves.push(played);
    }
}

fn comment(info: &SearchInfo, used: Duration) -> String {
    let eval = info.to_string();
    let secs = format!("{:.3}s", used.as_secs_f64());
    if eval.is_empty() {
        secs
    } else {
        format!("{eval} {secs}")
    }
}
