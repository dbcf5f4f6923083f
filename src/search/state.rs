//! What the search keeps per ply and per node, and the steps every node
//! takes: make a move (with the network's accumulators), evaluate, test
//! for a draw, and record a new best move with its line.

use arrayvec::ArrayVec;

use crate::board::position::NO_SQUARE;
use crate::rules::geometry::Square;
use crate::rules::moves::{Move, MoveKind};
use crate::rules::piece::{Cell, PieceKind};
use crate::search::correction::{CorrectionKeys, CorrectionWeights};
use crate::search::history::{PieceTo, QuietRows};
use crate::search::tt::{Bound, TtHit};

use super::{from_tt, Search, INFINITE, MATE_BOUND};

/// What the search keeps per ply.
#[derive(Clone, Copy)]
pub(super) struct Frame {
    /// Static evaluation with the learnt correction (-INFINITE in check).
    pub(super) static_eval: i32,
    /// The evaluation itself, without correction (what the table keeps).
    pub(super) raw_eval: i32,
    pub(super) killers: [Option<Move>; 2],
    /// The move left out by a singular-extension search of this node.
    pub(super) excluded: Option<Move>,
    /// The man and destination of the move made from this ply (None: null move).
    pub(super) moved: Option<PieceTo>,
    /// Destination of that move (NO_SQUARE: none).
    pub(super) moved_to: Square,
    /// Double extensions on the path from the root to this ply.
    pub(super) double_extensions: u8,
    /// Whether the side to move at this ply is in check, when the parent
    /// already tested it (set only while the parent's move is on the
    /// board, see [`Search::in_check_at`]).
    pub(super) check: Option<bool>,
    /// The man and the move made from this ply when it is quiet (for
    /// `fail_low_bonus`, `early_move_malus` and `tt_cut_history`; None after
    /// a capture, a promotion or a null move).
    pub(super) last_quiet: Option<(Cell, Move)>,
    /// That move is among the node's first two (the early-move penalty's).
    pub(super) early: bool,
    /// The node at this ply is or was on a principal variation (kept for
    /// its singular search, which probes no table).
    pub(super) tt_pv: bool,
    /// Fail highs of the nodes at this ply since the grandparent's node
    /// began (for `lmr_cutoff_count`).
    pub(super) cutoffs: u8,
    /// Moves the node at this ply has tried, the one being searched
    /// included (for `lmr_parent_moves`; 0 before its move loop).
    pub(super) move_count: usize,
    /// The node's table move is quiet and was singularly extended (for
    /// `lmr_singular_quiet`).
    pub(super) singular_quiet: bool,
}

pub(super) const EMPTY_FRAME: Frame = Frame {
    static_eval: -INFINITE,
    raw_eval: -INFINITE,
    killers: [None; 2],
    excluded: None,
    moved: None,
    moved_to: NO_SQUARE,
    double_extensions: 0,
    check: None,
    last_quiet: None,
    early: false,
    tt_pv: false,
    cutoffs: 0,
    move_count: 0,
    singular_quiet: false,
};

/// Frames before the root, so `ply - 4` needs no bounds test.
pub(super) const FRAME_OFFSET: usize = 4;

/// The best score of a node so far, its move, and the window's raised lower bound.
pub(super) struct NodeBest {
    pub(super) score: i32,
    pub(super) mv: Option<Move>,
    pub(super) alpha: i32,
    pub(super) original_alpha: i32,
}

impl NodeBest {
    /// How the node's score bounds its true value, for the table.
    pub(super) fn bound(&self, beta: i32) -> Bound {
        if self.score >= beta {
            Bound::Lower
        } else if self.alpha > self.original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }
}

/// What the move loop of a node reads of the node, fixed before its first move.
#[derive(Clone, Copy)]
pub(super) struct NodeInfo {
    /// Remaining depth (after internal iterative reduction).
    pub(super) depth: i32,
    pub(super) ply: usize,
    pub(super) beta: i32,
    pub(super) pv_node: bool,
    /// Expected to fail high.
    pub(super) cut_node: bool,
    pub(super) in_check: bool,
    pub(super) in_setup: bool,
    /// The static evaluation rose since our previous move.
    pub(super) improving: bool,
    /// The static evaluation with the learnt correction: what prunes.
    pub(super) static_eval: i32,
    /// The evaluation without it: what the table keeps and the correction learns from.
    pub(super) raw_eval: i32,
    /// The move a singular-extension search of this node leaves out.
    pub(super) excluded: Option<Move>,
    pub(super) tt_hit: Option<TtHit>,
    pub(super) tt_move: Option<Move>,
    /// The table move is a capture or promotion (known only with `lmr_tt_capture` on).
    pub(super) tt_tactical: bool,
    /// A PV node, or the table says the position was on a principal variation.
    pub(super) tt_pv: bool,
    pub(super) hash: u64,
}

impl NodeInfo {
    /// A better guess than the static evaluation: the table's bound on the
    /// score, where it is tighter.
    #[inline]
    pub(super) fn refined_eval(&self) -> i32 {
        let mut eval = self.static_eval;
        if let Some(hit) = self.tt_hit {
            let score = from_tt(hit.score, self.ply);
            let tighter = if score > eval { Bound::Lower } else { Bound::Upper };
            if !self.in_check && score.abs() < MATE_BOUND && (hit.bound == tighter || hit.bound == Bound::Exact) {
                eval = score;
            }
        }
        eval
    }

    /// Whether moves may be pruned here: not at the root, a PV node, in check
    /// or in setup, and only once a move has a score above being mated.
    #[inline]
    pub(super) fn may_prune(&self, node: &NodeBest) -> bool {
        self.ply > 0 && !self.pv_node && !self.in_check && !self.in_setup && node.score > -MATE_BOUND
    }
}

/// What pruning, extension and reduction read of one move of the loop.
pub(super) struct MoveInfo {
    pub(super) m: Move,
    pub(super) mover: Cell,
    /// The kind it captures.
    pub(super) victim: Option<PieceKind>,
    /// Neither a capture nor a promotion.
    pub(super) quiet: bool,
    /// History score of a quiet move; capture history of a capture when
    /// `lmr_captures` reduces them; else 0.
    pub(super) history: i32,
    pub(super) is_killer: bool,
    /// The reduction table's entry for this depth and move number.
    pub(super) base_reduction: i32,
}

impl MoveInfo {
    /// The depth a late-move reduction would leave this move at a node of
    /// `depth` (the table's reduction only, at least 0): what the pruning
    /// margins near the leaves are measured by.
    #[inline]
    pub(super) fn lmr_depth(&self, depth: i32) -> i32 {
        (depth - 1 - self.base_reduction).max(0)
    }
}

/// What the pruning of a quiet move decided.
pub(super) enum Prune {
    Keep,
    Skip,
    /// Skip this and every later quiet move (late-move pruning).
    SkipQuiets,
}

/// What trying one move of the loop did.
pub(super) enum Step {
    /// Searched, skipped or pruned: go on with the next move.
    Next,
    /// Late-move pruning: no quiet move after this one is tried.
    DropQuiets,
    /// It failed high: the loop ends.
    Cutoff,
    /// The node ends with this score (multi-cut, or the search stopped).
    End(i32),
}

/// How far the move loop has got with scoring the quiet moves.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum QuietStage {
    /// None scored: the captures and promotions go first.
    Pending,
    /// The killers and the counter move scored, the others not yet.
    Refutations,
    /// All scored.
    Scored,
}

/// The running state of a node's move loop.
pub(super) struct MoveLoop {
    pub(super) tried: Tried,
    pub(super) node: NodeBest,
    /// Legal moves met so far.
    pub(super) legal: usize,
    /// Late-move pruning has dropped the quiet moves.
    pub(super) skip_quiets: bool,
    /// Every move handed to the loop is known legal (setup, succession).
    pub(super) all_legal: bool,
    /// The node's rows of the quiet and continuation histories.
    pub(super) rows: QuietRows,
}

/// The moves a node searched before its best, to punish in the histories.
pub(super) struct Tried {
    pub(super) quiets: ArrayVec<(Move, Cell), 64>,
    pub(super) captures: ArrayVec<(Move, Cell, PieceKind), 32>,
}

impl Tried {
    /// Notes a searched move that did not fail high (promotions are neither list's).
    #[inline]
    pub(super) fn push(&mut self, mv: &MoveInfo) {
        if mv.quiet {
            let _ = self.quiets.try_push((mv.m, mv.mover));
        } else if let Some(v) = mv.victim {
            let _ = self.captures.try_push((mv.m, mv.mover, v));
        }
    }
}

impl Search<'_> {
    #[inline]
    pub(super) fn frame(&self, ply: usize) -> &Frame {
        &self.stack[ply + FRAME_OFFSET]
    }

    #[inline]
    pub(super) fn frame_mut(&mut self, ply: usize) -> &mut Frame {
        &mut self.stack[ply + FRAME_OFFSET]
    }

    /// The man a move lifts (or drops) in the current position.
    #[inline]
    pub(super) fn mover(&self, m: Move) -> Cell {
        if m.kind() == MoveKind::Drop {
            Cell::piece(self.pos.side_to_move(), m.piece())
        } else {
            self.pos.cell(m.from())
        }
    }

    #[inline]
    fn is_capture(&self, m: Move) -> bool {
        self.pos.victim_square(m).is_some()
    }

    /// A capture or a promotion: what quiescence searches.
    #[inline]
    pub(super) fn is_tactical(&self, m: Move) -> bool {
        self.is_capture(m) || m.kind() == MoveKind::Promotion
    }

    /// Is the side to move at `ply` in check (never during setup)? The
    /// parent's answer when it gave one, else tested now.
    #[inline]
    pub(super) fn in_check_at(&self, ply: usize, in_setup: bool) -> bool {
        match self.frame(ply).check {
            Some(check) => {
                debug_assert_eq!(check, !in_setup && self.pos.in_check(), "a stale check status");
                check
            }
            None => !in_setup && self.pos.in_check(),
        }
    }

    pub(super) fn is_draw(&self) -> bool {
        self.pos.is_rule_draw()
    }

    /// Records a new best move at `ply`: its line is the move and the child's line.
    fn update_pv(&mut self, ply: usize, m: Move) {
        self.pv[ply][ply] = Some(m);
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        for j in ply + 1..child_len {
            self.pv[ply][j] = self.pv[ply + 1][j];
        }
        self.pv_len[ply] = child_len;
    }

    /// Takes a searched move's score into the node: a new best, a raised alpha
    /// (with the principal variation), and true when it fails high.
    #[inline]
    pub(super) fn record(&mut self, ply: usize, m: Move, score: i32, node: &mut NodeBest, beta: i32) -> bool {
        if score > node.score {
            node.score = score;
            if score > node.alpha {
                node.alpha = score;
                node.mv = Some(m);
                self.update_pv(ply, m);
                return score >= beta;
            }
        }
        false
    }

    /// Makes a move and records it in the stack for the children's continuation keys.
    #[inline]
    pub(super) fn make(&mut self, ply: usize, m: Move, mover: Cell) {
        let key = self.histories.piece_to(mover, m.to());
        let frame = self.frame_mut(ply);
        frame.moved = Some(key);
        frame.moved_to = m.to();
        self.pos.make(m);
        self.tt.prefetch(self.pos.hash());
        if let Some(stack) = &mut self.nnue {
            stack.push(ply + 1, self.pos.last_changes(), self.eval.features().views(self.pos));
        }
    }

    /// The weights of the correction tables.
    #[inline]
    fn correction_weights(&self) -> CorrectionWeights {
        CorrectionWeights { pawns: self.params.correction_weight, pieces: self.params.piece_correction_weight }
    }

    /// The current position's keys in the correction tables.
    #[inline]
    fn correction_keys(&self) -> CorrectionKeys {
        let pawns = self.pos.pawn_key();
        // The hash without the pawns: the other men, hands and rights.
        CorrectionKeys { side: self.pos.side_to_move(), pawns, pieces: self.pos.hash() ^ pawns }
    }

    /// `raw` (the evaluation of the current position; -INFINITE in check)
    /// with the learnt correction, kept off mate scores.
    #[inline]
    pub(super) fn corrected_eval(&self, raw: i32) -> i32 {
        let weights = self.correction_weights();
        if raw == -INFINITE || weights.off() {
            return raw;
        }
        self.histories.correction.apply(raw, &self.correction_keys(), &weights, MATE_BOUND - 1)
    }

    /// Teaches the correction tables what the search of the current position
    /// found: `score` with `bound` at `depth`, where the evaluation said `raw`.
    #[inline]
    pub(super) fn learn_correction(&mut self, raw: i32, score: i32, bound: Bound, depth: i32) {
        let weights = self.correction_weights();
        if weights.off() || raw == -INFINITE || score.abs() >= MATE_BOUND {
            return;
        }
        let keys = self.correction_keys();
        self.histories.correction.update(raw, score, bound, depth, &keys, &weights);
    }

    /// The static evaluation of the position at `ply`, for the side to move
    /// (a network reads the accumulators kept move by move).
    #[inline]
    pub(super) fn evaluate(&mut self, ply: usize) -> i32 {
        self.eval.evaluate_with(self.pos, self.nnue.as_mut().map(|stack| (stack, ply)))
    }
}
