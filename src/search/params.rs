//! The search's pruning, reduction and extension margins, named in one place
//! so that they can be read, logged and tuned.
//!
//! Depths are in plies and scores in centipawns. [`SearchParams::default`]
//! holds the values the engine plays with; `Bench` counts nodes with them.
//! The struct is plain integers: the search copies it once and reads it per
//! node without allocating.

/// Every margin the search prunes, reduces and extends by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchParams {
    /// Reverse futility: deepest remaining depth at which it applies.
    pub rfp_max_depth: i32,
    /// Reverse futility: margin above beta per ply of depth.
    pub rfp_margin: i32,
    /// Null move: shallowest depth at which it is tried.
    pub nmp_min_depth: i32,
    /// Null move: the static evaluation must reach beta less this per ply of depth...
    pub nmp_eval_per_depth: i32,
    /// ...plus this.
    pub nmp_eval_base: i32,
    /// Null move: the reduction's fixed part.
    pub nmp_reduction: i32,
    /// Null move: one more ply of reduction per this many plies of depth.
    pub nmp_depth_divisor: i32,
    /// Null move: one more ply of reduction per this much evaluation above beta...
    pub nmp_eval_divisor: i32,
    /// ...up to this many plies.
    pub nmp_eval_max: i32,
    /// Null move: from this depth on a cutoff is verified by a reduced search.
    pub nmp_verify_depth: i32,
    /// Internal iterative reduction: shallowest depth at which a node without
    /// a table move is searched one ply less.
    pub iir_min_depth: i32,
    /// Late-move pruning: the rest of the quiet moves are pruned after
    /// `(this + depth^2) / 2` of them, or `this + depth^2` when improving.
    pub lmp_base: i32,
    /// Futility: deepest reduced depth at which a quiet move is pruned.
    pub futility_max_depth: i32,
    /// Futility: margin above the static evaluation...
    pub futility_base: i32,
    /// ...plus this per ply of reduced depth.
    pub futility_per_depth: i32,
    /// History pruning: deepest reduced depth at which it applies.
    pub history_max_depth: i32,
    /// History pruning: a quiet move whose history is below minus this per
    /// ply of depth is pruned.
    pub history_margin: i32,
    /// Exchange pruning: deepest depth at which it applies.
    pub see_max_depth: i32,
    /// Exchange pruning: a quiet move may lose this times depth squared.
    pub see_quiet_margin: i32,
    /// Exchange pruning: a capture may lose this times depth.
    pub see_capture_margin: i32,
    /// Singular extension: shallowest depth at which the table move is tested.
    pub singular_min_depth: i32,
    /// Singular extension: the table entry may be this many plies shallower.
    pub singular_tt_depth_margin: i32,
    /// Singular extension: the test's beta is the table score less this per ply of depth.
    pub singular_beta_per_depth: i32,
    /// Singular extension: failing the test by this much extends two plies.
    pub double_extension_margin: i32,
    /// Double extensions allowed on one path from the root.
    pub max_double_extensions: u8,
    /// Check extension: shallowest remaining depth at which a check is extended.
    pub check_extension_min_depth: i32,
    /// Check extension: 1 extends only checks that do not lose material by
    /// static exchange, 0 every check.
    pub check_extension_safe_only: i32,
    /// Late-move reductions: shallowest depth at which moves are reduced.
    pub lmr_min_depth: i32,
    /// Late-move reductions: moves tried before reductions start.
    pub lmr_min_moves: usize,
    /// Late-move reductions: one ply less reduction per this much history.
    pub lmr_history_divisor: i32,
    /// Late-move reduction table: `base + ln(depth) * ln(moves) / divisor`,
    /// base in hundredths.
    pub lmr_base_percent: u32,
    /// Late-move reduction table: the divisor, in hundredths.
    pub lmr_divisor_percent: u32,
    /// Aspiration windows: shallowest iteration searched with a window.
    pub aspiration_min_depth: i32,
    /// Aspiration windows: the first half-width, doubled on every failure.
    pub aspiration_delta: i32,
    /// Aspiration windows: past this half-width the window opens fully.
    pub aspiration_max_delta: i32,
    /// Quiescence delta pruning: a capture must lift the evaluation to
    /// alpha with this to spare.
    pub qs_delta_margin: i32,
    /// Quiescence plies in which evasions of check are searched.
    pub qs_evasion_depth: u32,
    /// Quiescence plies after which the static evaluation is final: a hard
    /// bound for positions where dozens of men attack each other.
    pub qs_max_depth: u32,
    /// Captures searched per quiescence node before only recaptures remain.
    pub qs_move_limit: u32,
    /// Quiescence plies after which only one recapture on the last move's
    /// square is searched.
    pub qs_recapture_depth: u32,
    /// Correction history: how much of the evaluation error learnt per side
    /// to move and pawn structure is added to the static evaluation that
    /// prunes (reverse futility, null move, futility, improving, stand
    /// pat), in percent; 0 turns the table off (nothing read or learnt).
    pub correction_weight: i32,
    /// Correction history keyed by the other men (every man but the pawns,
    /// with hands and castling rights), in percent like
    /// `correction_weight`; 0 turns it off.
    pub piece_correction_weight: i32,
    /// History bonus of a cutoff at `depth`: this times depth squared...
    pub history_bonus_quadratic: i32,
    /// ...plus this times depth...
    pub history_bonus_linear: i32,
    /// ...up to this.
    pub history_bonus_max: i32,
    /// Reverse futility: 0 returns the evaluation, 1 the mean of the
    /// evaluation and beta.
    pub rfp_blend: i32,
    /// Improving, when the evaluation two plies back is unknown (in check):
    /// 0 counts the node as improving, 1 compares with four plies back
    /// (not improving when that is unknown too).
    pub improving_fallback: i32,
    /// Razoring: a node whose static evaluation is this much per ply of
    /// depth below alpha is settled by quiescence when that fails low (0: off).
    pub razor_margin: i32,
    /// Razoring: deepest remaining depth at which it applies.
    pub razor_max_depth: i32,
    /// ProbCut: a capture that beats beta plus this with a reduced search
    /// cuts the node (0: off).
    pub probcut_margin: i32,
    /// ProbCut: shallowest depth at which it is tried.
    pub probcut_min_depth: i32,
    /// Late-move reductions of captures and promotions: 0 only quiet moves
    /// are reduced, 1 late tactical moves too (one ply less than a quiet
    /// move, less again when they keep material or have a good history).
    pub lmr_captures: i32,
    /// Late-move reductions of captures: one ply less per this much capture history.
    pub lmr_capture_history_divisor: i32,
    /// Table cutoffs with a quiet table move at non-PV nodes: 0 teach
    /// nothing, 1 reward the move as its fail high would, 2 also punish
    /// the opponent's early quiet move (first two of its node) that allowed it.
    pub tt_cut_history: i32,
    /// Exchange pruning of quiet moves: 0 by `see_quiet_margin` times the
    /// depth squared up to `see_max_depth`; 1 at any depth by
    /// `(see_quiet_margin - lmr_depth)` times the reduced depth squared, as
    /// Stockfish prunes (the reduced depth at most 18).
    pub see_quiet_lmr: i32,
    /// Late-move reductions at the root: 0 every root move is searched to
    /// the full depth, 1 late quiet ones are reduced as at a PV node.
    pub root_lmr: i32,
    /// Double extensions: 0 at any node, 1 only at non-PV nodes (as
    /// Stockfish extends).
    pub double_extension_non_pv: i32,
    /// Late-move reductions: plies more at an expected cut node.
    pub lmr_cut_node: i32,
    /// Late-move reductions: plies more for a quiet move when the table
    /// move is a capture or promotion (Stockfish's `ttCapture`).
    pub lmr_tt_capture: i32,
    /// Late-move reductions: a reduced move that beats alpha by more than
    /// this plus two per ply of depth is searched again one ply deeper
    /// (Stockfish's `doDeeper`; 0: off).
    pub lmr_deeper_margin: i32,
    /// Late-move reductions: a reduced move that beats alpha but not the
    /// node's best score by a ply's worth (the new depth in centipawns) is
    /// searched again one ply shallower (Stockfish's `doShallower`; 0: off).
    pub lmr_shallower: i32,
    /// Late-move reductions: plies more when the opponent's replies to this
    /// node's earlier moves failed high more than three times (Stockfish's
    /// `cutoffCnt`; 0: off).
    pub lmr_cutoff_count: i32,
    /// Late-move reductions: 1 teaches the continuation histories whether a
    /// reduced quiet move that beat alpha held at full depth (Stockfish's
    /// update after the re-search; 0: off).
    pub lmr_research_history: i32,
    /// Futility of captures: a capture (never the node's first move) whose victim's
    /// value plus this margin per ply of reduced depth, plus this, cannot
    /// lift the static evaluation to alpha is pruned, reduced depth below
    /// 7 (Stockfish's capture futility; 0: off).
    pub capture_futility_margin: i32,
    /// Capture-history pruning (Fairy-Stockfish's): 1 prunes a capture
    /// (never the node's first move) whose reduced depth is 0 and whose
    /// capture history is negative, where the node may prune; 0 off.
    pub capture_history_prune: i32,
    /// History of the move that led to a node that failed low (Stockfish's
    /// prior countermove bonus): 0 off; 1 its continuation histories gain a
    /// cutoff's bonus (depth 3 or more, or a PV node); 2 the quiet history
    /// too, half as much.
    pub fail_low_bonus: i32,
    /// 1: at every fail high, the opponent's quiet move among the first two
    /// of its node that allowed it loses continuation history (as
    /// `tt_cut_history` 2 does at table cutoffs; Stockfish's early-move
    /// penalty); 0 off.
    pub early_move_malus: i32,
    /// 1: quiet moves are also scored, reduced and taught by the
    /// continuation history of the move four plies back (their own side's
    /// move before last); 0 one and two plies back only.
    pub continuation_ply4: i32,
    /// Late-move reductions: plies less at a node that is or was on a
    /// principal variation, as the table remembers (Stockfish's `ttPv`; 0 off).
    pub tt_pv_reduction: i32,
    /// 1 (the default): the root's frame gets its static evaluation (out of
    /// check and setup), so nodes two plies down compare with it for
    /// `improving`, as Fairy-Stockfish's do; 0: it has none, and every such
    /// node counts as improving.
    pub root_eval: i32,
    /// Late-move reductions: plies more at every non-PV node (Fairy-Stockfish
    /// adds one there while the root's best move stays put, nearly always;
    /// 0 off).
    pub lmr_non_pv: i32,
    /// Continuation-history pruning (Fairy-Stockfish's): a quiet move whose
    /// one- and two-ply continuation histories are both negative is pruned
    /// when its reduced depth is below this (0 off).
    pub cont_history_prune: i32,
    /// 1 (the default): a quiet move that gives check escapes futility,
    /// history and continuation-history pruning (not late-move or exchange
    /// pruning), as in Fairy-Stockfish; 0: checks are pruned like any
    /// quiet move.
    pub keep_quiet_checks: i32,
    /// Capture ordering: the capture history is added to the victim's
    /// value (times 16) divided by this (8: at most about 1.3 pawns' worth;
    /// Fairy-Stockfish weighs its capture history several times more; 0
    /// orders by the men alone).
    pub capture_order_divisor: i32,
    /// Late-move reductions: one ply less for every later move of a node
    /// whose table move, a quiet one, was singularly extended
    /// (Stockfish's `singularQuietLMR`; 0 off).
    pub lmr_singular_quiet: i32,
    /// Late-move reductions: one ply less when the parent node had tried
    /// more than this many moves before the one that led here (Stockfish's
    /// `(ss-1)->moveCount > 13`; 0 off).
    pub lmr_parent_moves: i32,
    /// Late-move reductions: 1 lets one of a node's first five moves whose
    /// reduction comes out below -1 (a very good history) be searched one
    /// ply deeper than the others (Stockfish's clamp to `newDepth + 1`); 0
    /// off.
    pub lmr_extend: i32,
    /// 1: quiescence's first ply also searches the quiet moves that give
    /// check and lose no material by static exchange (Fairy-Stockfish's
    /// `DEPTH_QS_CHECKS`); 0 captures and promotions only.
    pub qs_checks: i32,
    /// Quiet-move ordering by threats (Stockfish's escape bonus and en-prise
    /// malus): a move that takes a man out of an attack by a cheaper enemy
    /// man to a square no cheaper one attacks scores this much higher, one
    /// that puts a man where a cheaper one attacks it this much lower (8000:
    /// about half a full history entry); 0 off. Variants with hands leave
    /// it out (it lost in Clockwork).
    pub threat_order: i32,
    /// Time management: the share of the soft limit (after its stability
    /// scale), in percent, past which no new iteration starts.
    pub time_percent: i32,
}

/// The values the engine plays with.
pub const DEFAULT_PARAMS: SearchParams = SearchParams {
    rfp_max_depth: 8,
    rfp_margin: 80,
    nmp_min_depth: 3,
    nmp_eval_per_depth: 20,
    nmp_eval_base: 160,
    nmp_reduction: 3,
    nmp_depth_divisor: 3,
    nmp_eval_divisor: 200,
    nmp_eval_max: 3,
    nmp_verify_depth: 12,
    iir_min_depth: 4,
    lmp_base: 3,
    futility_max_depth: 7,
    futility_base: 50,
    futility_per_depth: 50,
    history_max_depth: 3,
    history_margin: 3000,
    see_max_depth: 6,
    see_quiet_margin: 60,
    see_capture_margin: 120,
    singular_min_depth: 7,
    singular_tt_depth_margin: 3,
    singular_beta_per_depth: 2,
    double_extension_margin: 24,
    max_double_extensions: 6,
    check_extension_min_depth: 7,
    check_extension_safe_only: 0,
    lmr_min_depth: 3,
    lmr_min_moves: 3,
    lmr_history_divisor: 8192,
    lmr_base_percent: 75,
    lmr_divisor_percent: 225,
    aspiration_min_depth: 5,
    aspiration_delta: 20,
    aspiration_max_delta: 1000,
    qs_delta_margin: 200,
    qs_evasion_depth: 2,
    qs_max_depth: 24,
    qs_move_limit: 3,
    qs_recapture_depth: 6,
    correction_weight: 100,
    piece_correction_weight: 100,
    history_bonus_quadratic: 16,
    history_bonus_linear: 32,
    history_bonus_max: 1600,
    rfp_blend: 0,
    improving_fallback: 0,
    razor_margin: 0,
    razor_max_depth: 3,
    probcut_margin: 0,
    probcut_min_depth: 5,
    lmr_captures: 0,
    lmr_capture_history_divisor: 4096,
    tt_cut_history: 0,
    see_quiet_lmr: 0,
    root_lmr: 0,
    double_extension_non_pv: 0,
    lmr_cut_node: 1,
    lmr_tt_capture: 0,
    lmr_deeper_margin: 50,
    lmr_shallower: 0,
    lmr_cutoff_count: 0,
    lmr_research_history: 1,
    capture_futility_margin: 0,
    capture_history_prune: 0,
    fail_low_bonus: 0,
    early_move_malus: 0,
    continuation_ply4: 0,
    tt_pv_reduction: 0,
    root_eval: 1,
    lmr_non_pv: 0,
    cont_history_prune: 0,
    keep_quiet_checks: 1,
    capture_order_divisor: 8,
    lmr_singular_quiet: 0,
    lmr_parent_moves: 0,
    lmr_extend: 0,
    qs_checks: 0,
    threat_order: 8000,
    time_percent: 100,
};

/// Every margin by name, for `SearchParams::get` and `set`: the field list
/// written once, so that a new margin is tunable as soon as it is declared.
macro_rules! by_name {
    ($($field:ident),* $(,)?) => {
        impl SearchParams {
            /// The names of the margins, as `setoption name search.NAME` takes them.
            pub const NAMES: &'static [&'static str] = &[$(stringify!($field)),*];

            /// The margin called `name`.
            pub fn get(&self, name: &str) -> Option<i64> {
                match name {
                    $(stringify!($field) => Some(self.$field as i64),)*
                    _ => None,
                }
            }

            /// Sets the margin called `name`; an unknown name or a value out
            /// of the field's range is an error.
            pub fn set(&mut self, name: &str, value: i64) -> Result<(), String> {
                match name {
                    $(stringify!($field) => {
                        self.$field = value
                            .try_into()
                            .map_err(|_| format!("{value} is out of range for search.{name}"))?;
                    })*
                    _ => return Err(format!("unknown search margin {name:?}")),
                }
                Ok(())
            }
        }
    };
}

by_name!(
    rfp_max_depth,
    rfp_margin,
    nmp_min_depth,
    nmp_eval_per_depth,
    nmp_eval_base,
    nmp_reduction,
    nmp_depth_divisor,
    nmp_eval_divisor,
    nmp_eval_max,
    nmp_verify_depth,
    iir_min_depth,
    lmp_base,
    futility_max_depth,
    futility_base,
    futility_per_depth,
    history_max_depth,
    history_margin,
    see_max_depth,
    see_quiet_margin,
    see_capture_margin,
    singular_min_depth,
    singular_tt_depth_margin,
    singular_beta_per_depth,
    double_extension_margin,
    max_double_extensions,
    check_extension_min_depth,
    check_extension_safe_only,
    lmr_min_depth,
    lmr_min_moves,
    lmr_history_divisor,
    lmr_base_percent,
    lmr_divisor_percent,
    aspiration_min_depth,
    aspiration_delta,
    aspiration_max_delta,
    qs_delta_margin,
    qs_evasion_depth,
    qs_max_depth,
    qs_move_limit,
    qs_recapture_depth,
    correction_weight,
    piece_correction_weight,
    history_bonus_quadratic,
    history_bonus_linear,
    history_bonus_max,
    rfp_blend,
    improving_fallback,
    razor_margin,
    razor_max_depth,
    probcut_margin,
    probcut_min_depth,
    lmr_captures,
    lmr_capture_history_divisor,
    tt_cut_history,
    see_quiet_lmr,
    root_lmr,
    double_extension_non_pv,
    lmr_cut_node,
    lmr_tt_capture,
    lmr_deeper_margin,
    lmr_shallower,
    lmr_cutoff_count,
    lmr_research_history,
    capture_futility_margin,
    capture_history_prune,
    fail_low_bonus,
    early_move_malus,
    continuation_ply4,
    tt_pv_reduction,
    root_eval,
    lmr_non_pv,
    cont_history_prune,
    keep_quiet_checks,
    capture_order_divisor,
    lmr_singular_quiet,
    lmr_parent_moves,
    lmr_extend,
    qs_checks,
    threat_order,
    time_percent,
);

impl Default for SearchParams {
    fn default() -> SearchParams {
        DEFAULT_PARAMS
    }
}

impl SearchParams {
    /// The late-move reduction table, by depth and move number (both capped at 63).
    pub fn lmr_table(&self) -> Box<[[u8; 64]; 64]> {
        // Hundredths to f64 are exact for the defaults (0.75, 2.25).
        let base = f64::from(self.lmr_base_percent) / 100.0;
        let divisor = f64::from(self.lmr_divisor_percent) / 100.0;
        let mut lmr = Box::new([[0u8; 64]; 64]);
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (m, r) in row.iter_mut().enumerate().skip(1) {
                *r = (base + (d as f64).ln() * (m as f64).ln() / divisor) as u8;
            }
        }
        lmr
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reduction_table_is_the_one_of_the_literal_constants() {
        let table = DEFAULT_PARAMS.lmr_table();
        for d in 1..64 {
            for m in 1..64 {
                let literal = (0.75 + (d as f64).ln() * (m as f64).ln() / 2.25) as u8;
                assert_eq!(table[d][m], literal, "depth {d} move {m}");
            }
        }
        assert_eq!(table[0], [0; 64]);
    }

    #[test]
    fn every_margin_is_reached_by_its_name() {
        assert_eq!(SearchParams::NAMES.len(), 80);
        for name in SearchParams::NAMES {
            let mut params = DEFAULT_PARAMS;
            let value = DEFAULT_PARAMS.get(name).expect(name) + 1;
            params.set(name, value).expect(name);
            assert_eq!(params.get(name), Some(value), "{name}");
            assert_ne!(params, DEFAULT_PARAMS, "{name} changed nothing");
            for other in SearchParams::NAMES.iter().filter(|&o| o != name) {
                assert_eq!(params.get(other), DEFAULT_PARAMS.get(other), "{name} changed {other}");
            }
        }
        let mut params = DEFAULT_PARAMS;
        assert!(params.set("max_double_extensions", 300).is_err());
        assert!(params.set("lmr_min_moves", -1).is_err());
        assert!(params.set("no_such_margin", 1).is_err());
        assert_eq!(params, DEFAULT_PARAMS);
    }
}
