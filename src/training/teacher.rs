//! Another engine as `rescore`'s teacher: each ply's position sent to a UCI
//! engine (`position fen START moves ...`, `go nodes N`) and its last
//! reported score kept, scaled to this engine's units. A stronger engine's
//! deeper search makes better targets than its moves alone: `rescore
//! --engine` scores any position of the data, both sides' plies, where an
//! imported match only has the scores its player printed.
//!
//! Each scoring thread borrows an engine from a pool (started on first
//! need) for a whole game, and gives it back; the engines quit when the
//! pool is dropped.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::import::scaled_cp;
use crate::board::position::Position;
use crate::eval::nnue::games::{white_view, Game, PlyScore};
use crate::game::tc::{Clock, TimeControl};
use crate::players::{MoveRequest, Player, PlayerError, PlayerSpec, Reply};
use crate::rules::moves::MoveList;
use crate::rules::piece::Color;
use crate::rules::variant::Variant;

/// How long one ply's search may take before the engine counts as hung.
const PLY_DEADLINE: Duration = Duration::from_secs(120);

/// A UCI engine that scores plies, and the pool of its running copies.
pub struct Teacher {
    spec: PlayerSpec,
    /// The variant the engine is told (`UCI_Variant`): the data's, or the
    /// name the engine knows it by (`relocation` data is `caparandom`
    /// once the setup is over).
    variant: Arc<Variant>,
    tc: TimeControl,
    /// The engine's centipawns times this percentage are stored.
    percent: f64,
    idle: Mutex<Vec<Player>>,
    stop: AtomicBool,
}

impl Teacher {
    /// A teacher that searches `nodes` a ply; nothing starts before the first game.
    pub fn new(spec: PlayerSpec, variant: Arc<Variant>, nodes: u64, percent: f64) -> Teacher {
        let tc = TimeControl { nodes: Some(nodes), ..TimeControl::default() };
        Teacher { spec, variant, tc, percent, idle: Mutex::new(Vec::new()), stop: AtomicBool::new(false) }
    }

    /// `game` with its plies scored by the engine (every one with `all`,
    /// else those without a score; never a setup ply), and the plies
    /// scored; an error when the engine fails (the game is then not done).
    pub fn score_game(&self, data_variant: &Arc<Variant>, game: &Game, all: bool) -> Result<(Game, usize), String> {
        let mut scored = game.clone();
        let Ok(mut pos) = game.start_position(data_variant) else { return Ok((scored, 0)) };
        let mut player = self.borrow()?;
        let clock = Clock::new(&self.tc);
        let mut list = MoveList::new();
        // The engine's game starts where the setup ends: it may not know the setup moves.
        let mut start: Option<String> = None;
        let mut moves: Vec<String> = Vec::new();
        let mut searched = 0;
        for ply in &mut scored.plies {
            pos.generate_legal(&mut list);
            let Some(&m) = list.get(usize::from(ply.index)) else { break };
            if !pos.in_setup() {
                if start.is_none() {
                    let fen = pos.to_fen();
                    player.new_game(&self.variant, &fen, &self.tc, &self.stop).map_err(|e| self.failed(&e))?;
                    start = Some(fen);
                }
                if all || ply.score == PlyScore::Random {
                    let request = MoveRequest {
                        start_fen: start.as_deref().unwrap_or_default(),
                        moves: &moves,
                        white: pos.side_to_move() == Color::White,
                        clocks: [&clock, &clock],
                        tc: &self.tc,
                        deadline: Instant::now() + PLY_DEADLINE,
                    };
                    match player.play(&request, &self.stop).map_err(|e| self.failed(&e))? {
                        Reply::Move(_, info) => {
                            if let Some(score) = self.ply_score(&pos, info.score_cp, info.mate) {
                                ply.score = score;
                                searched += 1;
                            }
                        }
                        Reply::Resign => {}
                    }
                }
                moves.push(pos.move_to_uci(m, false));
            }
            pos.make(m);
        }
        self.give_back(player);
        Ok((scored, searched))
    }

    /// The engine's report (mover's view) as a stored score: centipawns
    /// scaled and seen from White, a mate kept as the engine's distance.
    fn ply_score(&self, pos: &Position, cp: Option<i32>, mate: Option<i32>) -> Option<PlyScore> {
        match (mate, cp) {
            (Some(n), _) => Some(PlyScore::mate(n)),
            (None, Some(cp)) => Some(PlyScore::Cp(white_view(pos, i32::from(scaled_cp(cp, self.percent))))),
            (None, None) => None,
        }
    }

    fn failed(&self, error: &PlayerError) -> String {
        format!("the engine {} failed: {error}", self.spec.name)
    }

    /// Starts one engine now, so that a command that does not run is an
    /// error before any game is scored.
    pub fn start(&self) -> Result<(), String> {
        let player = self.borrow()?;
        self.give_back(player);
        Ok(())
    }

    /// An idle engine, or a new one.
    fn borrow(&self) -> Result<Player, String> {
        if let Some(player) = self.idle.lock().ok().and_then(|mut idle| idle.pop()) {
            return Ok(player);
        }
        Player::start(&self.spec, &self.stop, false)
            .map_err(|e| format!("cannot start the engine {} ({}): {e}", self.spec.name, self.spec.cmd))
    }

    fn give_back(&self, player: Player) {
        if let Ok(mut idle) = self.idle.lock() {
            idle.push(player);
        }
    }
}

impl Drop for Teacher {
    fn drop(&mut self) {
        if let Ok(idle) = self.idle.get_mut() {
            for player in idle.drain(..) {
                player.quit();
            }
        }
    }
}
