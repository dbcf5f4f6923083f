//! Weaker play on request (`Skill Level`, or `UCI_LimitStrength` with
//! `UCI_Elo`), after Stockfish's handicap. Below level 20 the search gets a
//! node budget that grows with the level (and, at the lowest levels, a depth
//! cap), it searches at least [`CANDIDATES`] lines, and the move played is
//! chosen among them: a worse one more often the lower the level, but never
//! one whose score falls further behind the best than the level allows, so
//! that a level-5 engine does not throw its queen away. Level 20 is the full
//! engine, untouched. The engine applies it, from the numbers its options hold.

use rand::Rng;

use crate::search::{Limits, PvInfo};

/// `Skill Level` of the full-strength engine.
pub const MAX_SKILL_LEVEL: u64 = 20;
/// `UCI_Elo` of `Skill Level` 0 (see [`level_for_elo`] for the scale).
pub const MIN_ELO: u64 = 500;
/// `UCI_Elo` of the full-strength engine.
pub const MAX_ELO: u64 = 2500;

/// Lines searched to choose from when weakened.
pub const CANDIDATES: usize = 4;
/// Node budget per move at level 0 (depth 1 is always finished, whatever the budget).
const BASE_NODES: f64 = 64.0;
/// The budget doubles every this many levels: 64 nodes at level 0, about
/// 860 at 5, 11 600 at 10, 155 000 at 15 and 1.2 million at 19.
const LEVELS_PER_DOUBLING: f64 = 4.0 / 3.0;
/// Below this level the search depth is capped at the level plus one
/// (nodes are cheap in simple endings, where a budget alone goes deep).
const DEPTH_CAPPED_BELOW: f64 = 10.0;
/// `UCI_Elo` points per level: `MIN_ELO` is level 0 and `MAX_ELO` level 20.
const ELO_PER_LEVEL: f64 = (MAX_ELO - MIN_ELO) as f64 / MAX_SKILL_LEVEL as f64;
/// Largest score spread (centipawns) the random part of a choice scales with.
const PAWN: i64 = 100;

/// A weakened engine's strength: a level in `0.0..20.0` (fractional when it
/// comes from `UCI_Elo`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Skill {
    level: f64,
}

impl Skill {
    /// The handicap asked for: `UCI_Elo` when strength is limited by Elo
    /// (`elo` is Some), else `Skill Level`; None at full strength (level 20).
    pub fn requested(skill_level: u64, elo: Option<u64>) -> Option<Skill> {
        let level = elo.map_or(skill_level as f64, level_for_elo);
        Skill::at_level(level)
    }

    /// The handicap of `level` (clamped to 0 at the bottom); None at 20 or above.
    pub fn at_level(level: f64) -> Option<Skill> {
        (level < MAX_SKILL_LEVEL as f64).then_some(Skill { level: level.max(0.0) })
    }

    /// The level, 0.0 up to (not including) 20.0.
    pub fn level(&self) -> f64 {
        self.level
    }

    /// Nodes a move may use (beyond depth 1).
    pub fn node_budget(&self) -> u64 {
        (BASE_NODES * (self.level / LEVELS_PER_DOUBLING).exp2()) as u64
    }

    /// Deepest iteration, at the lowest levels.
    pub fn depth_cap(&self) -> Option<u32> {
        (self.level < DEPTH_CAPPED_BELOW).then_some(1 + self.level as u32)
    }

    /// Adds the handicap to the GUI's limits: they still apply, whichever
    /// ends the search first.
    pub fn restrict(&self, limits: &mut Limits) {
        limits.skill_nodes = Some(self.node_budget());
        if let Some(cap) = self.depth_cap() {
            limits.depth = Some(limits.depth.map_or(cap, |d| d.min(cap)));
        }
        limits.multipv = limits.multipv.max(CANDIDATES);
    }

    /// The line to play among `candidates` (any order; None when empty).
    ///
    /// Each candidate's merit is `-gap × (8 + 2·level) + spread × r`, with
    /// `gap` its score's distance below the best candidate's, `spread` the
    /// distance from the best to the worst candidate (at most a pawn) and
    /// `r` uniform in `0 .. 120 − 2·level`; the highest merit is played. A
    /// candidate therefore beats the best only when its gap is below
    /// `spread × (120 − 2·level) / (8 + 2·level)`: 15 pawns at level 0, 9.7 at
    /// level 2, 6 at level 5, 3.6 at 10 and 1.8 at 19. The first term is
    /// Stockfish's deterministic push written as what it keeps of the gap.
    pub fn choose<'l, R: Rng>(&self, candidates: &[&'l PvInfo], rng: &mut R) -> Option<&'l PvInfo> {
        let top = candidates.iter().map(|c| c.raw_score).max()?;
        let bottom = candidates.iter().map(|c| c.raw_score).min()?;
        let spread = (i64::from(top) - i64::from(bottom)).min(PAWN) as f64;
        let weakness = 120.0 - 2.0 * self.level;
        let keep = 128.0 - weakness;
        let mut best: Option<(f64, &PvInfo)> = None;
        for &line in candidates {
            let gap = (i64::from(top) - i64::from(line.raw_score)) as f64;
            let merit = -gap * keep + spread * rng.gen_range(0.0..weakness);
            if best.is_none_or(|(b, _)| merit > b) {
                best = Some((merit, line));
            }
        }
        best.map(|(_, line)| line)
    }
}

/// The (fractional) level of a `UCI_Elo` value: linear, 100 points a level,
/// from `MIN_ELO` (level 0) to `MAX_ELO` (level 20, full strength).
pub fn level_for_elo(elo: u64) -> f64 {
    (elo.clamp(MIN_ELO, MAX_ELO) - MIN_ELO) as f64 / ELO_PER_LEVEL
}

/// The lines a search reported, the latest one per root move, to choose from.
#[derive(Clone, Debug, Default)]
pub struct Candidates {
    lines: Vec<PvInfo>,
}

impl Candidates {
    /// Takes a reported line; it replaces the earlier line of its move, and
    /// a new iteration's first line drops lines two iterations old.
    pub fn add(&mut self, info: &PvInfo) {
        if info.multipv == 1 {
            self.lines.retain(|l| l.depth + 1 >= info.depth);
        }
        self.lines.retain(|l| l.pv.first() != info.pv.first());
        self.lines.push(info.clone());
    }

    /// Up to `count` lines, those of the deepest iteration first (an
    /// unfinished iteration is completed from the one before).
    pub fn deepest(&self, count: usize) -> Vec<&PvInfo> {
        let mut lines: Vec<&PvInfo> = self.lines.iter().collect();
        lines.sort_by_key(|l| (std::cmp::Reverse(l.depth), std::cmp::Reverse(l.raw_score)));
        lines.truncate(count);
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::moves::Move;
    use crate::search::Score;
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    fn line(depth: u32, multipv: usize, score: i32, mv: Move) -> PvInfo {
        PvInfo {
            depth,
            seldepth: depth,
            multipv,
            score: Score::Cp(score),
            raw_score: score,
            nodes: 0,
            time_ms: 0,
            nps: 0,
            hashfull: 0,
            pv: vec![mv],
        }
    }

    fn moves(n: usize) -> Vec<Move> {
        let registry = crate::board::registry::Registry::builtin();
        let variant = registry.get("chess").expect("chess ships");
        let mut pos = crate::board::position::Position::startpos(variant).expect("start");
        let mut list = crate::rules::moves::MoveList::new();
        pos.generate_legal(&mut list);
        list.iter().copied().take(n).collect()
    }

    /// How often (of 1000 seeds) each of the lines with these scores is chosen at `level`.
    fn choices(level: f64, scores: &[i32]) -> Vec<usize> {
        let mv = moves(scores.len());
        let lines: Vec<PvInfo> = scores.iter().enumerate().map(|(i, &s)| line(5, i + 1, s, mv[i])).collect();
        let refs: Vec<&PvInfo> = lines.iter().collect();
        let skill = Skill::at_level(level).expect("below 20");
        let mut counts = vec![0; scores.len()];
        for seed in 0..1000 {
            let chosen = skill.choose(&refs, &mut StdRng::seed_from_u64(seed)).expect("a line");
            counts[lines.iter().position(|l| std::ptr::eq(l, chosen)).expect("one of them")] += 1;
        }
        counts
    }

    #[test]
    fn a_lost_queen_is_chosen_only_at_the_lowest_levels() {
        for level in 3..20 {
            assert_eq!(choices(level as f64, &[40, 30, 20, -860])[3], 0, "level {level}");
        }
        assert!(choices(0.0, &[40, 30, 20, -860])[3] > 0);
    }

    #[test]
    fn lower_levels_play_the_best_line_less_often() {
        let scores = [50, 20, 0, -60];
        let best: Vec<usize> = [0.0, 5.0, 10.0, 15.0, 19.0].iter().map(|&l| choices(l, &scores)[0]).collect();
        assert!(best.windows(2).all(|w| w[0] < w[1]), "{best:?}");
        // Level 0 plays the best of four lines about as often as the second; 19 mostly the best.
        assert!(best[0] < 350 && best[4] > 500, "{best:?}");
    }

    #[test]
    fn budgets_and_depth_caps_grow_with_the_level() {
        let skills: Vec<Skill> = (0..20).map(|l| Skill::at_level(l as f64).expect("below 20")).collect();
        assert!(skills.windows(2).all(|w| w[0].node_budget() < w[1].node_budget()));
        assert_eq!(skills[0].node_budget(), 64);
        assert_eq!(skills[0].depth_cap(), Some(1));
        assert_eq!(skills[9].depth_cap(), Some(10));
        assert_eq!(skills[10].depth_cap(), None);
        assert!(Skill::at_level(20.0).is_none());
        let mut limits = Limits { depth: Some(3), multipv: 2, nodes: Some(1000), ..Limits::default() };
        skills[5].restrict(&mut limits);
        assert_eq!((limits.depth, limits.multipv, limits.nodes), (Some(3), CANDIDATES, Some(1000)));
        assert_eq!(limits.skill_nodes, Some(skills[5].node_budget()));
    }

    #[test]
    fn elo_maps_monotonically_onto_the_levels() {
        let levels: Vec<f64> = (MIN_ELO..=MAX_ELO).step_by(50).map(level_for_elo).collect();
        assert!(levels.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(level_for_elo(MIN_ELO), 0.0);
        assert_eq!(level_for_elo(MAX_ELO), MAX_SKILL_LEVEL as f64);
        assert_eq!(Skill::requested(3, Some(MAX_ELO)), None);
        assert_eq!(Skill::requested(3, Some(1500)).map(|s| s.level()), Some(10.0));
        assert_eq!(Skill::requested(MAX_SKILL_LEVEL, None), None);
    }

    #[test]
    fn candidates_keep_the_latest_line_per_move_and_the_deepest_first() {
        let mv = moves(5);
        let mut c = Candidates::default();
        for (i, score) in [30, 20, 10, 0].into_iter().enumerate() {
            c.add(&line(4, i + 1, score, mv[i]));
        }
        // Depth 5 stopped after two lines, with a new best move.
        c.add(&line(5, 1, 25, mv[1]));
        c.add(&line(5, 2, 15, mv[0]));
        let deepest: Vec<(u32, i32)> = c.deepest(4).iter().map(|l| (l.depth, l.raw_score)).collect();
        assert_eq!(deepest, [(5, 25), (5, 15), (4, 10), (4, 0)]);
        c.add(&line(6, 1, 12, mv[4]));
        c.add(&line(7, 1, 11, mv[4]));
        let deepest: Vec<(u32, i32)> = c.deepest(4).iter().map(|l| (l.depth, l.raw_score)).collect();
        assert_eq!(deepest, [(7, 11)]);
    }
}
