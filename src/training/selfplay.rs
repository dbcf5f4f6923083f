//! Self-play for the tuner and for datagen: games at a fixed node count
//! from seeded random openings, each kept whole with the search's score of
//! every ply ([`crate::eval::nnue::games`]) and handed over as it ends.

use std::sync::{Arc, Mutex};

use crate::board::position::Position;
use crate::eval::nnue::games::{white_view, Filter, Game, PlyScore};
use crate::eval::Evaluator;
use crate::game::adjudicate::{Adjudicator, DrawRule, ResignRule, Verdict};
use crate::game::openings::{play_random_plies, SplitMix64};
use crate::game::record::SearchInfo;
use crate::rules::variant::Variant;
use crate::search::tt::TranspositionTable;
use crate::search::{Histories, Limits, Score, Search, SearchControl};

use super::workers::on_search_threads;

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
    /// The number of the first game: games `first_game..first_game + games`
    /// are played, so disjoint ranges (shards) make disjoint games.
    pub first_game: usize,
}

/// Plies after which a game is scored as a draw.
const MAX_PLIES: usize = 400;
/// A score this large for [`WIN_PLIES`] plies in a row, both engines agreeing
/// on the winner, ends the game as a win.
const WIN_SCORE: i32 = 1000;
const WIN_PLIES: u32 = 4;
/// A score this small for [`DRAW_PLIES`] plies in a row, after [`DRAW_AFTER`] plies, ends it as a draw.
const DRAW_SCORE: i32 = 10;
const DRAW_PLIES: u32 = 12;
const DRAW_AFTER: u32 = 120;

impl SelfPlay {
    /// The numbers of the plan's games.
    pub fn numbers(&self) -> Vec<usize> {
        (self.first_game..self.first_game + self.games).collect()
    }
}

/// Plays the plan's games and returns them in game order.
pub fn generate_all(variant: &Arc<Variant>, eval: &Evaluator, plan: &SelfPlay) -> Vec<Game> {
    let games = Mutex::new(Vec::new());
    generate_with_progress(variant, eval, plan, &plan.numbers(), &|game| {
        if let Ok(mut games) = games.lock() {
            games.push(game);
        }
    });
    let mut games = games.into_inner().unwrap_or_default();
    games.sort_by_key(|game| game.number);
    games
}

/// The adjudication of self-play games, from the constants above; scores
/// count from [`DRAW_AFTER`] plies into the game (move numbers are given as
/// `ply / 2 + 1`).
fn adjudicator() -> Adjudicator {
    Adjudicator::new(
        Some(DrawRule { movenumber: DRAW_AFTER / 2 + 1, movecount: DRAW_PLIES / 2, score: DRAW_SCORE }),
        Some(ResignRule { movecount: WIN_PLIES / 2, score: WIN_SCORE, twosided: true }),
    )
}

/// Game number `game`: a random opening, then a search per move.
fn play_game(
    variant: &Arc<Variant>,
    eval: &Evaluator,
    tt: &mut TranspositionTable,
    plan: &SelfPlay,
    number: usize,
) -> (Game, usize) {
    // Each game its own stream, not a shifted copy of its neighbour's.
    let mut rng = SplitMix64(SplitMix64(plan.seed ^ (number as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64());
    let mut game = Game::new(number as u32, None);
    let Ok(mut pos) = Position::startpos(Arc::clone(variant)) else { return (game, 0) };
    let mut opening = pos.clone();
    for text in play_random_plies(&mut pos, plan.random_plies, &mut rng) {
        let recorded = opening.parse_move(&text).is_ok_and(|m| {
            let pushed = game.push(&mut opening, m, PlyScore::Random);
            opening.make(m);
            pushed
        });
        if !recorded {
            // Not expected: then the game starts after its opening instead.
            game = Game::new(number as u32, Some(pos.to_fen()));
            break;
        }
    }
    tt.clear();
    let limits = Limits { nodes: Some(plan.nodes), multipv: 1, ..Limits::default() };
    let mut histories = Histories::new(variant.shape, variant.kind_count());
    let mut adjudicator = adjudicator();
    let (filter, mut kept) = (Filter::default(), 0);
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
        let mover = if pos.side_to_move() == crate::rules::piece::Color::White { 0 } else { 1 };
        let (info, score) = match found.score {
            Score::Cp(cp) => {
                (SearchInfo { score_cp: Some(cp), ..SearchInfo::default() }, PlyScore::Cp(white_view(&pos, cp)))
            }
            Score::Mate(n) => (SearchInfo { mate: Some(n), ..SearchInfo::default() }, PlyScore::Mate(n as i16)),
        };
        let ply = game.plies.len();
        if !game.push(&mut pos, best, score) {
            break 0.5;
        }
        if filter.keep(&pos, ply, &game.plies[ply], best).is_some() {
            kept += 1;
        }
        // Adjudication: a clear win for several plies, or a long dead level.
        match adjudicator.record(mover, (pos.ply_count() / 2 + 1) as u32, &info) {
            Some(Verdict::Loses(loser)) => break if loser == 1 { 1.0 } else { 0.0 },
            Some(Verdict::Draw) => break 0.5,
            None => {}
        }
        pos.make(best);
    };
    game.set_result(result);
    (game, kept)
}

/// Plays the games numbered `numbers` of `variant` with `eval`, on
/// `plan.threads` threads (fewer when the system refuses more; this thread
/// when it refuses all), handing each game to `each` as it ends (in the
/// order they end), with a progress line on stderr (games, positions,
/// ETA); returns the positions kept (by the default filter). A game's
/// number alone decides it: the same seed gives the same games, whatever
/// the threads and whichever games are played.
pub fn generate_with_progress(
    variant: &Arc<Variant>,
    eval: &Evaluator,
    plan: &SelfPlay,
    numbers: &[usize],
    each: &(dyn Fn(Game) + Sync),
) -> usize {
    let total = numbers.len();
    let play = |item: usize, tt: &mut TranspositionTable| {
        let (game, kept) = play_game(variant, eval, tt, plan, numbers[item]);
        each(game);
        kept
    };
    let line = |done: usize, positions: usize, eta: f64| {
        let width = 30;
        let filled = done * width / total.max(1);
        let bar = format!("{}{}", "#".repeat(filled), " ".repeat(width - filled));
        format!("[{bar}] games {done}/{total}  positions {positions}  ETA {eta:.0}s")
    };
    on_search_threads("self-play", plan.threads, total, play, line)
}
