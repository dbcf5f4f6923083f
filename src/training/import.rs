//! `menagerie import`: training data from the games of a match. The plies
//! of one player keep the score its search gave them (the `+0.35/12 0.41s`
//! comments `menagerie match` writes, as Cute Chess does); the other
//! side's plies are kept as moves without a score, so they are played
//! through but never become training positions. Games against a stronger
//! engine reach the positions self-play never shows: those where the
//! player's judgement is punished.

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;

use super::command_line;
use super::math::blended_target;
use crate::board::position::Position;
use crate::board::registry::Registry;
use crate::eval::catalogue::Catalogue;
use crate::eval::nnue::data::{header_text, DataHeader};
use crate::eval::nnue::games::{white_view, Game, PlyScore};
use crate::eval::nnue::network::OUTPUT_SCALE;
use crate::game::pgn::{read_pgn, PgnGame};
use crate::game::san::parse_san;
use crate::rules::piece::Color;
use crate::rules::variant::Variant;

/// `menagerie import` arguments.
#[derive(Args, Debug, Clone)]
pub struct ImportArgs {
    /// The variant the data is for; the games are replayed under its rules
    /// from their `FEN` tags (a `caparandom` match makes `relocation` data).
    #[arg(long)]
    pub variant: String,
    /// The player whose scores become the positions' scores (its name in
    /// the `White` and `Black` tags); games it did not play are left out.
    #[arg(long)]
    pub player: String,
    /// PGN files of `menagerie match` (or Cute Chess) games.
    #[arg(long, num_args = 1.., required = true)]
    pub pgn: Vec<PathBuf>,
    /// Where to write (default: NAME-import.data).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Weight of the game's result in the stored scores: each score becomes
    /// the one whose win chance is this blend of the result and the
    /// search's (as `train --lambda` does, but for these games alone, so
    /// they can be mixed with self-play in one run). 0 keeps the scores.
    #[arg(long, default_value_t = 0.0)]
    pub lambda: f64,
    /// The player's centipawn scores times this percentage, before the
    /// blend: another engine's scores brought to this engine's scale (a
    /// pawn of Fairy-Stockfish's is not a pawn of menagerie's network).
    /// Mates are kept as mates.
    #[arg(long, default_value_t = 100.0)]
    pub score_percent: f64,
}

/// How an imported player's scores become stored scores.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoreMapping {
    /// Weight of the game's result (`--lambda`).
    pub lambda: f64,
    /// Percentage applied to centipawn scores first (`--score-percent`).
    pub percent: f64,
}

impl ScoreMapping {
    /// The player's scores as they are.
    pub const KEEP: ScoreMapping = ScoreMapping { lambda: 0.0, percent: 100.0 };

    /// A centipawn score from White's view, scaled then blended with White's points.
    fn map(self, white_cp: i32, white_points: f64) -> i16 {
        blend_result(scaled_cp(white_cp, self.percent), white_points, self.lambda)
    }
}

/// Another engine's centipawns brought to this engine's scale
/// (`--score-percent`), rounded and bounded as stored scores are.
pub fn scaled_cp(cp: i32, percent: f64) -> i16 {
    (f64::from(cp) * percent / 100.0).round().clamp(-32_000.0, 32_000.0) as i16
}

/// `--score-percent` as `import` and `rescore --engine` take it: above 0, at most 1000.
pub fn check_score_percent(percent: f64) -> Result<(), String> {
    if percent > 0.0 && percent <= 1000.0 {
        Ok(())
    } else {
        Err(format!("--score-percent must be above 0 and at most 1000, not {percent}"))
    }
}

/// The score (centipawns, White's view) whose win chance
/// `sigmoid(score / 400)` is `lambda` of White's points and the rest of
/// `cp`'s: a game's result blended into a search's score.
pub fn blend_result(cp: i16, white_points: f64, lambda: f64) -> i16 {
    if lambda == 0.0 {
        return cp;
    }
    let scale = f64::from(OUTPUT_SCALE);
    let blended = blended_target(lambda, white_points, f64::from(cp) / scale).clamp(1e-6, 1.0 - 1e-6);
    (scale * (blended / (1.0 - blended)).ln()).round().clamp(-32_000.0, 32_000.0) as i16
}

/// What one PGN comment says of its move's search: a score in centipawns
/// (`+0.35/12 ...`) or a mate (`+M3/...`, `-M2/...`), from the mover's
/// view; None for anything else (`book`, a random opening ply, no score).
pub fn comment_score(comment: &str) -> Option<Mover> {
    let word = comment.split_whitespace().next()?;
    let score = word.split('/').next()?;
    let (sign, rest) = match score.as_bytes().first()? {
        b'+' => (1, &score[1..]),
        b'-' => (-1, &score[1..]),
        _ => return None,
    };
    if let Some(n) = rest.strip_prefix('M') {
        return n.parse::<i32>().ok().map(|n| Mover::Mate(sign * n));
    }
    let pawns: f64 = rest.parse().ok().filter(|p: &f64| p.is_finite())?;
    Some(Mover::Cp((sign as f64 * pawns * 100.0).round().clamp(-32_000.0, 32_000.0) as i32))
}

/// A search's score, from the mover's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mover {
    /// Centipawns.
    Cp(i32),
    /// Mate in this many moves (negative: being mated).
    Mate(i32),
}

/// What became of one PGN game.
#[derive(Debug, PartialEq)]
pub enum Imported {
    /// The game, and how many of its plies carry the player's score.
    Game(Game, usize),
    /// Not the player's game, or unfinished: left out.
    Skipped,
}

/// The start of a PGN game without a `FEN` tag: its `Variant`'s start
/// position (chess without the tag), as a FEN for `variant`; None when it
/// is `variant` itself. A `caparandom` game from the standard array thus
/// starts `relocation` data after the setup phase, where it began.
fn pgn_start(registry: &Registry, pgn: &PgnGame, variant: &Arc<Variant>) -> Result<Option<String>, String> {
    let played = pgn.variant(registry)?;
    if played.name == variant.name {
        return Ok(None);
    }
    let start = Position::startpos(played).map_err(|e| format!("bad start position: {e}"))?;
    Ok(Some(start.to_fen()))
}

/// One PGN game as a data game numbered `number`: replayed under
/// `variant` from its `FEN` tag, the player's plies scored from their
/// comments. The error names the move that does not replay.
pub fn import_game(
    registry: &Registry,
    variant: &Arc<Variant>,
    pgn: &PgnGame,
    player: &str,
    number: u32,
    mapping: ScoreMapping,
) -> Result<Imported, String> {
    let colour = match (pgn.tag("White"), pgn.tag("Black")) {
        (Some(w), _) if w == player => Color::White,
        (_, Some(b)) if b == player => Color::Black,
        _ => return Ok(Imported::Skipped),
    };
    let Some(points) = pgn.white_points() else { return Ok(Imported::Skipped) };
    let fen = match pgn.tag("FEN") {
        Some(f) => Some(f.to_string()),
        None => pgn_start(registry, pgn, variant)?,
    };
    let mut pos = match &fen {
        Some(f) => Position::from_fen(Arc::clone(variant), f),
        None => Position::startpos(Arc::clone(variant)),
    }
    .map_err(|e| format!("bad start position: {e}"))?;
    let mut game = Game::new(number, fen);
    let mut scored = 0;
    for (i, text) in pgn.moves.iter().enumerate() {
        let m = parse_san(&mut pos, text).map_err(|e| format!("ply {} ({text}) is {}", i + 1, e.reason()))?;
        let said = pgn.comments.get(i).cloned().flatten().and_then(|c| comment_score(&c));
        let score = match said {
            _ if pos.side_to_move() != colour || pos.in_setup() => PlyScore::Random,
            Some(Mover::Cp(cp)) => PlyScore::Cp(mapping.map(i32::from(white_view(&pos, cp)), points)),
            Some(Mover::Mate(n)) => PlyScore::mate(n),
            None => PlyScore::Random,
        };
        if !game.push(&mut pos, m, score) {
            return Err(format!("ply {} ({text}) cannot be stored", i + 1));
        }
        scored += usize::from(matches!(score, PlyScore::Cp(_)));
        pos.make(m);
    }
    game.set_result(points as f32);
    Ok(Imported::Game(game, scored))
}

/// Runs `menagerie import`: every game of the PGN files that the player
/// played and finished, in one game block.
pub fn run_import_command(args: &ImportArgs, catalogue: &Catalogue) -> Result<(), String> {
    let variant = catalogue.get(&args.variant).ok_or_else(|| format!("unknown variant '{}'", args.variant))?;
    if !(0.0..=1.0).contains(&args.lambda) {
        return Err(format!("--lambda must be between 0 and 1, not {}", args.lambda));
    }
    check_score_percent(args.score_percent)?;
    let mapping = ScoreMapping { lambda: args.lambda, percent: args.score_percent };
    let out = args.out.clone().unwrap_or_else(|| PathBuf::from(format!("{}-import.data", variant.name)));
    let mut bytes = Vec::new();
    let (mut games, mut skipped, mut scored) = (0u32, 0usize, 0usize);
    for path in &args.pgn {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        for (i, pgn) in read_pgn(&text).iter().enumerate() {
            match import_game(catalogue.registry(), &variant, pgn, &args.player, games, mapping)
                .map_err(|e| format!("{}: game {}: {e}", path.display(), i + 1))?
            {
                Imported::Game(game, n) => {
                    game.encode(&mut bytes);
                    games += 1;
                    scored += n;
                }
                Imported::Skipped => skipped += 1,
            }
        }
    }
    if games == 0 {
        return Err(format!("no finished game of '{}' in the PGN files", args.player));
    }
    let header = DataHeader::games(&variant, &command_line());
    let mut file = std::fs::File::create(&out).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    file.write_all(header_text(&header).as_bytes())
        .and_then(|()| file.write_all(&bytes))
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    println!(
        "wrote {games} games ({scored} plies scored by {}) to {}; left out {skipped} games (another player's, or unfinished)",
        args.player,
        out.display()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::nnue::games::Ply;

    fn chess() -> Arc<Variant> {
        Registry::builtin().get("chess").expect("chess")
    }

    #[test]
    fn comments_give_the_movers_score() {
        assert_eq!(comment_score("+0.35/12 0.41s"), Some(Mover::Cp(35)));
        assert_eq!(comment_score("-1.07/9 0.068s"), Some(Mover::Cp(-107)));
        assert_eq!(comment_score("+0.00/10"), Some(Mover::Cp(0)));
        assert_eq!(comment_score("+M4/19 0.019s"), Some(Mover::Mate(4)));
        assert_eq!(comment_score("-M1/4 0.001s"), Some(Mover::Mate(-1)));
        for text in ["book", "", "+", "+abc/3", "+inf/3", "0.35/12", "-Mx/2", "White mates"] {
            assert_eq!(comment_score(text), None, "{text:?}");
        }
    }

    #[test]
    fn a_blend_moves_the_score_toward_the_result() {
        for cp in [-500, -35, 0, 35, 900] {
            assert_eq!(blend_result(cp, 1.0, 0.0), cp, "lambda 0 keeps the score");
        }
        // Half a win and half of an even score: a win chance of 0.75, 400 ln 3.
        assert_eq!(blend_result(0, 1.0, 0.5), 439);
        assert_eq!(blend_result(0, 0.0, 0.5), -439);
        assert_eq!(blend_result(0, 0.5, 0.5), 0);
        // All result: a draw is 0, a win the largest score the clamp allows.
        assert_eq!(blend_result(300, 0.5, 1.0), 0);
        assert_eq!(blend_result(-300, 1.0, 1.0), 5526);
        // A blend toward the score's own side lifts it; toward the other lowers it.
        assert!(blend_result(200, 1.0, 0.3) > 200 && blend_result(200, 0.0, 0.3) < 200);
    }

    /// The plies a game keeps, as (ply, score kind) pairs.
    fn plies(game: &Game) -> Vec<PlyScore> {
        game.plies.iter().map(|p: &Ply| p.score).collect()
    }

    #[test]
    fn only_the_players_plies_carry_scores() {
        let text = "[White \"fsf\"]\n[Black \"menagerie\"]\n[Result \"0-1\"]\n\n\
                    1. e4 {book} e5 {book} 2. Nf3 {+0.40/12 0.1s} Nc6 {+0.50/11 0.1s} 3. Bc4 {+0.30/12 0.1s} \
                    d6 {-0.20/10 0.1s} 4. Ng5 {+1.00/13 0.1s} Qxg5 {+M3/20 0.1s} {Black wins} 0-1\n";
        let pgn = &read_pgn(text)[0];
        let Imported::Game(game, scored) =
            import_game(&Registry::builtin(), &chess(), pgn, "menagerie", 7, ScoreMapping::KEEP).expect("imports")
        else {
            panic!("skipped");
        };
        assert_eq!(game.number, 7);
        assert_eq!(game.white_points(), 0.0);
        assert_eq!(scored, 2, "Black's two centipawn scores");
        use PlyScore::{Cp, Mate, Random};
        // Black's +0.50 and -0.20 from White's view; White's plies and the book unscored.
        assert_eq!(plies(&game), [Random, Random, Random, Cp(-50), Random, Cp(20), Random, Mate(3)]);
        let mut seen = Vec::new();
        game.replay(&chess(), |pos, n, ply, m| seen.push((n, pos.move_to_uci(m, false), ply.score))).expect("replays");
        assert_eq!(seen[7].1, "d8g5", "the moves are the PGN's");

        let white = import_game(&Registry::builtin(), &chess(), pgn, "fsf", 0, ScoreMapping::KEEP).expect("imports");
        let Imported::Game(game, scored) = white else { panic!("skipped") };
        assert_eq!((scored, plies(&game)[2]), (3, Cp(40)), "White's scores are White's view");
    }

    #[test]
    fn the_result_is_blended_into_the_players_scores() {
        let text = "[White \"menagerie\"]\n[Black \"x\"]\n[Result \"1-0\"]\n\n1. e4 {+0.00/12 0.1s} e5 1-0\n";
        let pgn = &read_pgn(text)[0];
        let Imported::Game(game, _) = import_game(
            &Registry::builtin(),
            &chess(),
            pgn,
            "menagerie",
            0,
            ScoreMapping { lambda: 0.5, percent: 100.0 },
        )
        .expect("imports") else {
            panic!("skipped");
        };
        assert_eq!(plies(&game)[0], PlyScore::Cp(439));
    }

    #[test]
    fn another_engines_scores_are_scaled_before_the_blend() {
        let text = "[White \"fsf\"]\n[Black \"menagerie\"]\n[Result \"1/2-1/2\"]\n\n\
                    1. e4 {+1.00/12 0.1s} e5 {+0.50/9} 2. Nf3 {-0.31/12 0.1s} Nc6 3. Bb5 {+M2/20} 1/2-1/2\n";
        let pgn = &read_pgn(text)[0];
        let scaled = ScoreMapping { lambda: 0.0, percent: 64.0 };
        let Imported::Game(game, scored) =
            import_game(&Registry::builtin(), &chess(), pgn, "fsf", 0, scaled).expect("imports")
        else {
            panic!("skipped");
        };
        use PlyScore::{Cp, Mate, Random};
        assert_eq!(scored, 2);
        // 100 and -31 centipawns become 64 and -20 (-19.84 rounded); the mate stays a mate.
        assert_eq!(plies(&game), [Cp(64), Random, Cp(-20), Random, Mate(2)]);
        // Scaled first, then blended: in a won game at lambda 0.5, 64 centipawns
        // become 483 (half of sigmoid(64/400), half the win's 1.0); blending
        // the unscaled 100 first and scaling after would give 326.
        let won =
            &read_pgn("[White \"fsf\"]\n[Black \"menagerie\"]\n[Result \"1-0\"]\n\n1. e4 {+1.00/12 0.1s} e5 1-0\n")[0];
        let both = ScoreMapping { lambda: 0.5, percent: 64.0 };
        let Imported::Game(game, _) =
            import_game(&Registry::builtin(), &chess(), won, "fsf", 0, both).expect("imports")
        else {
            panic!("skipped");
        };
        assert_eq!(plies(&game)[0], Cp(483));
    }

    #[test]
    fn other_games_are_left_out_and_bad_moves_named() {
        let other = "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n";
        assert_eq!(
            import_game(&Registry::builtin(), &chess(), &read_pgn(other)[0], "menagerie", 0, ScoreMapping::KEEP),
            Ok(Imported::Skipped)
        );
        let unfinished = "[White \"menagerie\"]\n[Black \"b\"]\n[Result \"*\"]\n\n1. e4 {+0.10/5} *\n";
        assert_eq!(
            import_game(&Registry::builtin(), &chess(), &read_pgn(unfinished)[0], "menagerie", 0, ScoreMapping::KEEP),
            Ok(Imported::Skipped)
        );
        let bad = "[White \"menagerie\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Ke3 1-0\n";
        let error = import_game(&Registry::builtin(), &chess(), &read_pgn(bad)[0], "menagerie", 0, ScoreMapping::KEEP)
            .expect_err("illegal");
        assert!(error.starts_with("ply 3 (Ke3)"), "{error}");
        let fen = "[White \"menagerie\"]\n[Black \"b\"]\n[FEN \"8/8/8\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n";
        let error = import_game(&Registry::builtin(), &chess(), &read_pgn(fen)[0], "menagerie", 0, ScoreMapping::KEEP)
            .expect_err("bad FEN");
        assert!(error.starts_with("bad start position"), "{error}");
        let unknown = "[White \"menagerie\"]\n[Black \"b\"]\n[Variant \"nochess\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n";
        let error =
            import_game(&Registry::builtin(), &chess(), &read_pgn(unknown)[0], "menagerie", 0, ScoreMapping::KEEP);
        assert_eq!(error, Err("unknown variant \"nochess\"".to_string()));
    }

    #[test]
    fn a_game_without_fen_starts_where_its_variant_does() {
        // A caparandom match game from the standard array has no FEN tag; as
        // relocation data it starts after the setup phase, White to move.
        let registry = Registry::builtin();
        let relocation = registry.get("relocation").expect("relocation");
        let text = "[White \"menagerie\"]\n[Black \"b\"]\n[Variant \"caparandom\"]\n[Result \"1-0\"]\n\n\
                    1. h3 {+0.10/5} Nh6 2. Ci3 {+0.20/5} 1-0\n";
        let Imported::Game(game, scored) =
            import_game(&registry, &relocation, &read_pgn(text)[0], "menagerie", 0, ScoreMapping::KEEP)
                .expect("imports")
        else {
            panic!("skipped")
        };
        let capablanca = registry.get("capablanca").expect("capablanca");
        let start = Position::startpos(capablanca).expect("start").to_fen();
        assert_eq!((game.start.as_deref(), scored), (Some(start.as_str()), 2));
        let same = "[White \"menagerie\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. e4 {+0.10/5} 1-0\n";
        let Imported::Game(game, _) =
            import_game(&registry, &chess(), &read_pgn(same)[0], "menagerie", 0, ScoreMapping::KEEP).expect("imports")
        else {
            panic!("skipped")
        };
        assert_eq!(game.start, None, "a chess game as chess data starts at chess's start");
    }
}
