//! Self-play for the tuner: games at a fixed node count from seeded random
//! openings, keeping quiet positions with the game's result and the search's
//! score (uses search,
//! eval, tt, position).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::eval::Evaluator;
use crate::moves::MoveList;
use crate::position::Position;
use crate::search::{Histories, Limits, Score, Search, SearchControl};
use crate::tt::TranspositionTable;
use crate::variant::Variant;

/// A position and how its game ended: 1 White won, 0.5 drawn, 0 Black won.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The position.
    pub fen: String,
    /// White's points from the game.
    pub result: f32,
    /// The search's score of the position, White's view, in centipawns.
    pub score: i32,
}

/// How to play the games.
#[derive(Clone, Debug)]
pub struct SelfPlay {
    /// Number of games.
    pub games: usize,
    /// Nodes per move.
    pub nodes: u64,
    /// Games played at once.
    pub threads: usize,
    /// Seed of the random openings (game `i` uses a seed derived from it and `i`).
    pub seed: u64,
    /// Random legal moves that open each game.
    pub random_plies: usize,
}

/// Plies after which a game is scored as a draw.
const MAX_PLIES: usize = 400;
/// A score this large for [`WIN_PLIES`] plies in a row ends the game as a win.
const WIN_SCORE: i32 = 1000;
const WIN_PLIES: usize = 4;
/// A score this small for [`DRAW_PLIES`] plies in a row, after [`DRAW_AFTER`] plies, ends it as a draw.
const DRAW_SCORE: i32 = 10;
const DRAW_PLIES: usize = 12;
const DRAW_AFTER: usize = 120;
/// Hash per game in MiB.
const HASH_MIB: usize = 16;

/// Progress of a run: games finished and positions kept so far.
#[derive(Debug, Default)]
pub struct Progress {
    /// Games finished.
    pub games: AtomicUsize,
    /// Positions kept.
    pub positions: AtomicUsize,
}

/// Plays `plan.games` games of `variant` with `eval`, on `plan.threads`
/// threads, and returns the kept positions in game order (the same seed
/// gives the same samples, whatever the number of threads).
pub fn generate(variant: &Arc<Variant>, eval: &Evaluator, plan: &SelfPlay, progress: &Progress) -> Vec<Sample> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Vec<Sample>>> = Mutex::new(vec![Vec::new(); plan.games]);
    std::thread::scope(|scope| {
        for _ in 0..plan.threads.max(1) {
            scope.spawn(|| {
                let mut tt = TranspositionTable::new(HASH_MIB);
                loop {
                    let game = next.fetch_add(1, Ordering::Relaxed);
                    if game >= plan.games {
                        break;
                    }
                    let samples = play_game(variant, eval, &mut tt, plan, game);
                    progress.positions.fetch_add(samples.len(), Ordering::Relaxed);
                    progress.games.fetch_add(1, Ordering::Relaxed);
                    if let Ok(mut results) = results.lock() {
                        results[game] = samples;
                    }
                }
            });
        }
    });
    results.into_inner().unwrap_or_default().into_iter().flatten().collect()
}

/// Game number `game`: a random opening, then a search per move.
fn play_game(
    variant: &Arc<Variant>,
    eval: &Evaluator,
    tt: &mut TranspositionTable,
    plan: &SelfPlay,
    game: usize,
) -> Vec<Sample> {
    let mut rng = StdRng::seed_from_u64(plan.seed ^ (game as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let Some(mut pos) = random_opening(variant, plan.random_plies, &mut rng) else { return Vec::new() };
    tt.clear();
    let limits = Limits { nodes: Some(plan.nodes), multipv: 1, ..Limits::default() };
    let mut histories = Histories::new(variant.shape, variant.kind_count());
    let mut kept = Vec::new();
    let (mut winning, mut quiet) = (0usize, 0usize);
    let mut last_white_score = 0i32;
    let result = loop {
        if let Some(end) = pos.game_end() {
            break end.outcome().white_points() as f32;
        }
        if pos.ply_count() >= MAX_PLIES {
            break 0.5;
        }
        let control = SearchControl::default();
        let mut search = Search::with_histories(&mut pos, &*tt, eval, &control, &limits, histories);
        let found = search.run(&mut |_| {});
        histories = search.into_histories();
        let Some(best) = found.best else { break 0.5 };
        let white = if pos.side_to_move() == crate::piece::Color::White { 1 } else { -1 };
        let cp = match found.score {
            Score::Cp(cp) => cp,
            Score::Mate(n) => {
                if n > 0 {
                    30_000
                } else {
                    -30_000
                }
            }
        };
        if matches!(found.score, Score::Cp(_))
            && !pos.in_setup()
            && !pos.in_check()
            && pos.victim_square(best).is_none()
        {
            kept.push((pos.to_fen(), cp * white));
        }
        // Adjudication: a clear win for several plies, or a long dead level.
        winning =
            if cp.abs() >= WIN_SCORE && (cp * white).signum() == last_white_score.signum() { winning + 1 } else { 0 };
        last_white_score = cp * white;
        quiet = if cp.abs() <= DRAW_SCORE && pos.ply_count() >= DRAW_AFTER { quiet + 1 } else { 0 };
        if winning >= WIN_PLIES {
            break if last_white_score > 0 { 1.0 } else { 0.0 };
        }
        if quiet >= DRAW_PLIES {
            break 0.5;
        }
        pos.make(best);
    };
    kept.into_iter().map(|(fen, score)| Sample { fen, result, score }).collect()
}

/// The start position after `plies` random legal moves (setup choices
/// included); None when every try ends the game first.
fn random_opening(variant: &Arc<Variant>, plies: usize, rng: &mut StdRng) -> Option<Position> {
    let mut list = MoveList::new();
    'tries: for _ in 0..16 {
        let mut pos = Position::startpos(Arc::clone(variant)).ok()?;
        for _ in 0..plies {
            pos.generate_legal(&mut list);
            if list.is_empty() {
                continue 'tries;
            }
            pos.make(list[rng.gen_range(0..list.len())]);
        }
        pos.generate_legal(&mut list);
        if !list.is_empty() {
            return Some(pos);
        }
    }
    None
}
