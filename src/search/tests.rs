use std::sync::Arc;

use super::root::{sort_lines, RootMove};
use super::*;
use crate::eval::EvalMode;
use crate::rules::geometry::Square;
use crate::rules::moves::{MoveKind, MoveList};
use crate::rules::piece::PieceKind;

/// A shipped variant's position from `fen` and its full evaluation.
fn position_and_eval(variant: &str, fen: &str) -> (Position, Evaluator) {
    let reg = crate::eval::catalogue::Catalogue::builtin();
    let v = reg.get(variant).expect("variant ships");
    let pos = Position::from_fen(Arc::clone(&v), fen).expect("valid FEN");
    (pos, reg.evaluator(&v, EvalMode::Full))
}

/// Searches `fen` with the full evaluation, passing the events on.
fn search_reporting(
    variant: &str,
    fen: &str,
    limits: Limits,
    on_event: &mut dyn FnMut(SearchEvent),
) -> (SearchResult, Position) {
    let (mut pos, eval) = position_and_eval(variant, fen);
    let tt = TranspositionTable::new(4);
    let control = SearchControl::default();
    let result = Search::new(&mut pos, &tt, &eval, &control, &limits).run(on_event);
    (result, pos)
}

fn search(variant: &str, fen: &str, limits: Limits) -> (SearchResult, Position) {
    search_reporting(variant, fen, limits, &mut |_| {})
}

/// A search with a network in every variant: `Evaluator::evaluate_with` checks
/// each incremental evaluation against a fresh one under test, so this
/// walks make, unmake, null moves, drops, swaps and succession through
/// thousands of nodes each.
#[test]
fn searches_with_a_network_in_every_variant_keep_the_accumulators_exact() {
    searches_keep_the_accumulators_exact(DEFAULT_PARAMS, 4000);
}

/// The same with every refinement that is off by default switched on:
/// ProbCut and razoring make and search moves of their own.
#[test]
fn searches_with_every_refinement_on_keep_the_accumulators_exact() {
    let mut params = DEFAULT_PARAMS;
    for (name, value) in [
        ("lmr_captures", 1),
        ("razor_margin", 300),
        ("probcut_margin", 200),
        ("improving_fallback", 1),
        ("rfp_blend", 1),
        ("tt_cut_history", 2),
        ("lmr_tt_capture", 1),
        ("lmr_shallower", 1),
        ("lmr_cutoff_count", 1),
        ("capture_futility_margin", 100),
        ("capture_history_prune", 1),
        ("root_eval", 1),
        ("fail_low_bonus", 2),
        ("early_move_malus", 1),
        ("continuation_ply4", 1),
        ("tt_pv_reduction", 1),
        ("lmr_non_pv", 1),
        ("cont_history_prune", 5),
        ("capture_order_divisor", 2),
        ("lmr_singular_quiet", 1),
        ("lmr_parent_moves", 13),
        ("lmr_extend", 1),
        ("qs_checks", 1),
    ] {
        params.set(name, value).expect(name);
    }
    searches_keep_the_accumulators_exact(params, 12_000);
}

fn searches_keep_the_accumulators_exact(params: SearchParams, nodes: u64) {
    let reg = crate::eval::catalogue::Catalogue::builtin();
    for name in reg.registry().names() {
        let v = reg.get(&name).expect("listed");
        let net =
            crate::eval::nnue::FloatNetwork::random(&v, 16, crate::eval::nnue::Activation::SquaredClippedRelu, 21);
        let eval = reg.evaluator(&v, EvalMode::Linear).with_network(Arc::new(net.quantize()));
        let mut pos = Position::startpos(Arc::clone(&v)).expect("start");
        let mut rng = crate::rules::zobrist::SplitMix64(name.len() as u64);
        crate::game::openings::play_random_plies(&mut pos, 6, &mut rng);
        let fen = pos.to_fen();
        let tt = TranspositionTable::new(4);
        let control = SearchControl::default();
        let limits = Limits { nodes: Some(nodes), params, ..Limits::default() };
        let result = Search::new(&mut pos, &tt, &eval, &control, &limits).run(&mut |_| {});
        assert!(result.best.is_some(), "{name}: no move from {fen}");
        assert!(result.nodes >= nodes, "{name}: only {} nodes", result.nodes);
        assert_eq!(pos.to_fen(), fen, "{name}: the search restores the position");
    }
}

#[test]
fn finds_mate_in_one() {
    let limits = Limits { depth: Some(3), ..Limits::default() };
    let (r, pos) = search("chess", "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1", limits);
    assert_eq!(r.best.map(|m| pos.move_to_uci(m, false)), Some("a1a8".to_string()));
    assert_eq!(r.score, Score::Mate(1));
}

#[test]
fn takes_a_hanging_queen() {
    let limits = Limits { depth: Some(4), ..Limits::default() };
    let (r, pos) = search("chess", "4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1", limits);
    assert_eq!(r.best.map(|m| pos.move_to_uci(m, false)), Some("d2d5".to_string()));
}

#[test]
fn no_legal_move_gives_no_best_move() {
    let (r, _) = search("chess", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", Limits { depth: Some(2), ..Limits::default() });
    assert!(r.best.is_none());
}

#[test]
fn search_restores_the_position() {
    let fen = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1";
    let (r, pos) = search("capablanca", fen, Limits { depth: Some(4), ..Limits::default() });
    assert!(r.best.is_some());
    assert_eq!(pos.to_fen(), fen);
    assert_eq!(pos.hash(), pos.compute_hash());
}

#[test]
fn a_side_moving_twice_keeps_its_point_of_view() {
    // Relocation: White makes the last setup choice and then moves first,
    // so after White's choice White is to move again. At depth 1 the root
    // score must be the best evaluation White can reach, not the worst.
    let fen = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1 S";
    let reg = crate::eval::catalogue::Catalogue::builtin();
    let v = reg.get("relocation").expect("relocation ships");
    let eval = reg.evaluator(&v, EvalMode::Full);
    let mut pos = Position::from_fen(Arc::clone(&v), fen).expect("valid FEN");
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    let best = list
        .iter()
        .map(|&m| {
            pos.make(m);
            let score = eval.evaluate(&pos);
            pos.unmake(m);
            score
        })
        .max();
    let (r, _) = search("relocation", fen, Limits { depth: Some(1), ..Limits::default() });
    assert_eq!(Some(r.score), best.map(Score::Cp));
}

#[test]
fn depth_one_ends_where_every_man_attacks_another() {
    // Dozens of mutual queen captures: quiescence must stay bounded.
    let fen = "kqqqqqqq/qqqqqqqq/qqqqqqqq/qqqqqqqq/QQQQQQQQ/QQQQQQQQ/QQQQQQQQ/QQQQQQQK w - - 0 1";
    let (r, _) = search("chess", fen, Limits { depth: Some(1), ..Limits::default() });
    assert!(r.best.is_some());
    assert_eq!(r.depth, 1);
    assert!(r.nodes < 1_000_000, "{} nodes", r.nodes);
}

/// The lines a MultiPV search reports, in blocks of one depth each, and its result.
fn multipv_blocks(variant: &str, fen: &str, depth: u32, lines: usize) -> (Vec<Vec<PvInfo>>, SearchResult) {
    let limits = Limits { depth: Some(depth), multipv: lines, ..Limits::default() };
    let mut blocks: Vec<Vec<PvInfo>> = Vec::new();
    let (result, _) = search_reporting(variant, fen, limits, &mut |event| {
        if let SearchEvent::Pv(info) = event {
            match blocks.last_mut() {
                Some(block) if block[0].depth == info.depth => block.push(info),
                _ => blocks.push(vec![info]),
            }
        }
    });
    (blocks, result)
}

#[test]
fn multipv_lines_come_best_first_in_every_iteration() {
    // Found by experiment: from the start position, searched line by
    // line, a later line outscores an earlier one at several depths, and
    // the lines change places from one iteration to the next.
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let (blocks, result) = multipv_blocks("chess", fen, 7, 3);
    assert_eq!(blocks.len(), 7, "one block per depth");
    for block in &blocks {
        let numbers: Vec<usize> = block.iter().map(|l| l.multipv).collect();
        assert_eq!(numbers, [1, 2, 3], "depth {}", block[0].depth);
        let scores: Vec<i32> = block.iter().map(|l| l.raw_score).collect();
        assert!(scores.windows(2).all(|w| w[0] >= w[1]), "depth {}: {scores:?}", block[0].depth);
    }
    let last = blocks.last().expect("a block");
    assert_eq!(result.best, last[0].pv.first().copied(), "bestmove is line 1's move");
    assert_eq!(result.score, last[0].score);
    // The fixture is one where the order changes: some two moves shown
    // at consecutive depths swap places.
    let swapped = blocks.windows(2).any(|w| {
        let heads = |block: &[PvInfo]| block.iter().map(|l| l.pv[0]).collect::<Vec<Move>>();
        let (before, after) = (heads(&w[0]), heads(&w[1]));
        let common = |a: &[Move], b: &[Move]| a.iter().copied().filter(|m| b.contains(m)).collect::<Vec<Move>>();
        common(&before, &after) != common(&after, &before)
    });
    assert!(swapped, "the fixture no longer reorders its lines");
}

#[test]
fn sorting_lines_is_stable_for_equal_scores() {
    let line = |from: u8, score: i32| RootMove {
        mv: Move::new(Square(from), Square(from + 1), MoveKind::Normal, PieceKind(0)),
        score,
        previous: -INFINITE,
        seldepth: 0,
        nodes: 0,
        pv: Vec::new(),
    };
    let mut lines = vec![line(40, 5), line(50, 20), line(60, 5), line(70, 20)];
    sort_lines(&mut lines);
    let order: Vec<(u8, i32)> = lines.iter().map(|l| (l.mv.from().0, l.score)).collect();
    assert_eq!(order, [(50, 20), (70, 20), (40, 5), (60, 5)]);
}

#[test]
fn dead_positions_score_as_draws() {
    // K+B v K: every position below the root is dead, whatever the bishop is worth.
    let depth = Limits { depth: Some(5), ..Limits::default() };
    let (r, _) = search("chess", "4k3/8/8/8/8/8/8/B3K3 w - - 0 1", depth.clone());
    assert_eq!(r.score, Score::Cp(0));
    // Taking the last pawn with the knight leaves K+N v K: a draw, not a knight up.
    let (r, pos) = search("chess", "4k3/8/8/8/8/2N5/p7/4K3 w - - 0 1", depth.clone());
    assert_eq!(r.best.map(|m| pos.move_to_uci(m, false)).as_deref(), Some("c3a2"));
    assert_eq!(r.score, Score::Cp(0));
    // The archbishop mates alone: K+A v K plays on, and is won.
    let (r, _) = search("capablanca", "4k5/10/10/10/10/10/10/A3K5 w - - 0 1", depth);
    assert!(
        matches!(r.score, Score::Cp(cp) if cp > 500) || matches!(r.score, Score::Mate(n) if n > 0),
        "{:?}",
        r.score
    );
}

#[test]
fn node_limit_is_respected() {
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let (r, _) = search("chess", fen, Limits { nodes: Some(5000), ..Limits::default() });
    assert!(r.nodes < 5000 + 2000, "{}", r.nodes);
    assert!(r.best.is_some());
}

/// Searches the Capablanca start to a fixed depth with these correction
/// weights: the node count, the move, and how many entries each correction
/// table (pawns, pieces) learnt.
fn search_with_correction(pawns: i32, pieces: i32) -> (u64, Option<Move>, (usize, usize)) {
    let reg = crate::eval::catalogue::Catalogue::builtin();
    let v = reg.get("capablanca").expect("variant ships");
    let mut pos = Position::startpos(Arc::clone(&v)).expect("start");
    let eval = reg.evaluator(&v, EvalMode::Full);
    let tt = TranspositionTable::new(4);
    let control = SearchControl::default();
    let mut params = DEFAULT_PARAMS;
    params.correction_weight = pawns;
    params.piece_correction_weight = pieces;
    let limits = Limits { depth: Some(7), params, ..Limits::default() };
    let mut search = Search::new(&mut pos, &tt, &eval, &control, &limits);
    let result = search.run(&mut |_| {});
    let learnt = search.into_histories().correction.nonzero_entries();
    (result.nodes, result.best, learnt)
}

#[test]
fn correction_weights_zero_leave_the_tables_untouched_and_others_change_the_search() {
    let (off_nodes, off_best, off_learnt) = search_with_correction(0, 0);
    assert!(off_best.is_some());
    assert_eq!(off_learnt, (0, 0), "weight 0 learns nothing");
    let (pawn_nodes, pawn_best, pawn_learnt) = search_with_correction(100, 0);
    assert!(pawn_best.is_some());
    assert!(pawn_learnt.0 > 10, "the pawn table learnt only {} entries", pawn_learnt.0);
    assert_eq!(pawn_learnt.1, 0, "the piece table at weight 0 learnt");
    // With both on, the second table learns too (its own count: comparing
    // totals of two different trees depended on the network).
    let (both_nodes, _, both_learnt) = search_with_correction(100, 100);
    assert!(both_learnt.0 > 10, "the pawn table learnt only {} entries", both_learnt.0);
    assert!(both_learnt.1 > 10, "the second table learnt only {} entries", both_learnt.1);
    // The corrected evaluation prunes differently.
    assert_ne!(pawn_nodes, off_nodes);
    assert_ne!(both_nodes, off_nodes);
}

/// Nodes of a fixed-depth search of `fen` with the margins named set to their values.
fn nodes_with(variant: &str, fen: &str, depth: u32, settings: &[(&str, i64)]) -> u64 {
    let mut params = DEFAULT_PARAMS;
    for &(name, value) in settings {
        params.set(name, value).expect(name);
    }
    let limits = Limits { depth: Some(depth), params, ..Limits::default() };
    let (r, mut pos) = search(variant, fen, limits);
    let mut legal = MoveList::new();
    pos.generate_legal(&mut legal);
    assert!(r.best.is_some_and(|m| legal.contains(&m)), "{settings:?}: no legal best move");
    r.nodes
}

#[test]
fn each_refinement_changes_the_search_when_switched_on() {
    // A middlegame with captures, checks and quiet moves: every refinement
    // below has something to act on within a few plies.
    let fen = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R1BQK2R w KQ - 0 9";
    let depth = 8;
    let base = nodes_with("chess", fen, depth, &[]);
    let switched_on = [
        ("history_bonus_max", 400),
        ("history_bonus_linear", 0),
        ("rfp_blend", 1),
        ("improving_fallback", 1),
        ("razor_margin", 300),
        ("probcut_margin", 200),
        ("lmr_captures", 1),
        ("tt_cut_history", 1),
        ("tt_cut_history", 2),
        ("lmr_tt_capture", 1),
        ("lmr_shallower", 1),
        ("lmr_cutoff_count", 1),
        ("capture_futility_margin", 100),
        ("capture_history_prune", 1),
        ("fail_low_bonus", 1),
        ("fail_low_bonus", 2),
        ("early_move_malus", 1),
        ("continuation_ply4", 1),
        ("tt_pv_reduction", 1),
        ("lmr_non_pv", 1),
        ("cont_history_prune", 5),
        ("capture_order_divisor", 2),
        ("lmr_singular_quiet", 1),
        ("lmr_parent_moves", 13),
        ("qs_checks", 1),
        // On by default: switched off.
        ("lmr_deeper_margin", 0),
        ("lmr_research_history", 0),
        ("root_eval", 0),
        ("keep_quiet_checks", 0),
        ("threat_order", 0),
    ];
    for (name, value) in switched_on {
        let nodes = nodes_with("chess", fen, depth, &[(name, value)]);
        assert_ne!(nodes, base, "{name}={value} searched the same tree");
    }
    // A reduction below -1 needs more history than this search learns at
    // the default divisor: `lmr_extend` is seen with a smaller one.
    let strong_history = ("lmr_history_divisor", 1000);
    let base = nodes_with("chess", fen, depth, &[strong_history]);
    assert_ne!(nodes_with("chess", fen, depth, &[strong_history, ("lmr_extend", 1)]), base, "lmr_extend=1");
}

/// The selective depth is counted as Stockfish counts it, at the nodes of
/// the principal variation: quiescence's capture chains do not count, so a
/// depth-1 search reports 1 even where every man can be taken.
#[test]
fn seldepth_counts_principal_variation_nodes_only() {
    // Queens, rooks and knights en prise on both sides: quiescence goes deep.
    let fen = "r3k2r/ppp2ppp/2n5/3qN3/3Qn3/2N5/PPP2PPP/R3K2R w KQkq - 0 1";
    let mut seen = Vec::new();
    let limits = Limits { depth: Some(6), ..Limits::default() };
    search_reporting("chess", fen, limits, &mut |event| {
        if let SearchEvent::Pv(info) = event {
            seen.push((info.depth, info.seldepth));
        }
    });
    assert!(seen.contains(&(1, 1)), "{seen:?}");
    for &(depth, seldepth) in &seen {
        // Extensions may take the principal variation deeper, never shallower.
        assert!((depth..=3 * depth).contains(&seldepth), "{seen:?}");
    }
}

/// Quiescence from `fen` (full window, its first ply) with `qs_checks` set to `value`.
fn qsearch_with_checks(variant: &str, fen: &str, value: i64) -> i32 {
    let (mut pos, eval) = position_and_eval(variant, fen);
    let tt = TranspositionTable::new(1);
    let control = SearchControl::default();
    let mut params = DEFAULT_PARAMS;
    params.set("qs_checks", value).expect("qs_checks");
    let limits = Limits { params, ..Limits::default() };
    let before = pos.to_fen();
    let score = Search::new(&mut pos, &tt, &eval, &control, &limits).qsearch(-INFINITE, INFINITE, 0, 0);
    assert_eq!(pos.to_fen(), before, "quiescence left the position changed");
    score
}

/// A back-rank mate by a quiet rook move: quiescence sees it only with
/// `qs_checks`. With the rook's check square guarded, the check loses the
/// rook by static exchange and is not searched.
#[test]
fn quiescence_finds_a_quiet_mating_check_only_with_qs_checks() {
    let mate = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
    assert_eq!(qsearch_with_checks("chess", mate, 1), MATE - 1);
    assert!(qsearch_with_checks("chess", mate, 0) < MATE_BOUND);
    // A black knight on b6 guards a8: Ra8+ Nxa8 loses the rook.
    let guarded = "6k1/5ppp/1n6/8/8/8/8/R5K1 w - - 0 1";
    assert!(qsearch_with_checks("chess", guarded, 1) < MATE_BOUND);
    // A Capablanca archbishop's knight leap mates a king boxed in by its own men.
    let archbishop = "4rbk2r/4pppp1p/10/7A2/10/10/10/4K5 w - - 0 1";
    assert_eq!(qsearch_with_checks("capablanca", archbishop, 1), MATE - 1);
    assert!(qsearch_with_checks("capablanca", archbishop, 0) < MATE_BOUND);
}
