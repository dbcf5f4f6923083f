//! The accumulators: for each perspective, the hidden layer's sums before
//! the activation. A move changes only the rows of the men it lifted and put
//! down ([`Position::last_changes`]), so an accumulator follows a game by
//! subtracting and adding those rows; a fresh computation sums every active
//! row. The two must always agree (tested after every move of random games).
//!
//! With the king mirror or king buckets ([`FeatureSet::view`]) a
//! perspective whose king crosses the middle of the board, or moves into
//! another bucket, sees every man somewhere else: its half is then computed
//! afresh from the position instead.

use super::features::{FeatureSet, View};
use super::network::Network;
use crate::board::position::{Change, Changes, Place, Position};
use crate::rules::piece::Color;

/// Both perspectives' sums of one position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accumulator {
    /// White's perspective, then Black's: `hidden` sums each.
    sums: Vec<i32>,
    hidden: usize,
    /// How each perspective sees the board (king mirror and bucket), White's first.
    views: [View; 2],
}

impl Accumulator {
    /// An accumulator for `net` (all zeros until [`Accumulator::refresh`]).
    pub fn new(net: &Network) -> Accumulator {
        Accumulator { sums: vec![0; 2 * net.hidden()], hidden: net.hidden(), views: [View::default(); 2] }
    }

    /// The sums of one perspective.
    #[inline]
    pub fn perspective(&self, color: Color) -> &[i32] {
        let h = self.hidden;
        &self.sums[color.index() * h..(color.index() + 1) * h]
    }

    /// Computes both perspectives from scratch.
    pub fn refresh(&mut self, net: &Network, features: &FeatureSet, pos: &Position) {
        refresh_sums(&mut self.sums, net, features, pos);
        self.views = features.views(pos);
    }

    /// Follows the move that made `pos` ([`Position::last_changes`]):
    /// subtracts the rows of the men it lifted, adds those of the men it put
    /// down; a perspective whose view it changed (its king mirror turned or
    /// its king changed bucket) is computed afresh.
    #[inline]
    pub fn update(&mut self, net: &Network, features: &FeatureSet, pos: &Position) {
        let now = features.views(pos);
        let h = self.hidden;
        for color in Color::ALL {
            let c = color.index();
            let half = &mut self.sums[c * h..(c + 1) * h];
            if now[c] == self.views[c] {
                apply_perspective(half, net, features, color, now[c], pos.last_changes());
            } else {
                refresh_perspective(half, net, features, pos, color);
            }
        }
        self.views = now;
    }

    /// The network's score of the position, in centipawns for `side_to_move`,
    /// with `men` men on the board (which choose the output bucket).
    #[inline]
    pub fn evaluate(&self, net: &Network, side_to_move: Color, men: usize) -> i32 {
        let bucket = net.header.output_bucket(men);
        net.output(self.perspective(side_to_move), self.perspective(!side_to_move), bucket)
    }
}

/// The men on the board of `pos` (output buckets count them).
pub fn board_men(pos: &Position) -> usize {
    pos.squares().iter().filter(|&&sq| !pos.cell(sq).is_empty()).count()
}

/// How a move's changes change the men on the board.
#[inline]
fn men_change(changes: &[Change]) -> i32 {
    changes.iter().filter(|c| matches!(c.place, Place::Board(_))).map(|c| if c.added { 1 } else { -1 }).sum()
}

/// Both perspectives' sums (`2 * hidden`, White's first) of `pos`, from scratch.
fn refresh_sums(sums: &mut [i32], net: &Network, features: &FeatureSet, pos: &Position) {
    let h = net.hidden();
    for color in Color::ALL {
        refresh_perspective(&mut sums[color.index() * h..(color.index() + 1) * h], net, features, pos, color);
    }
}

/// One perspective's sums (`hidden`) of `pos`, from scratch.
fn refresh_perspective(half: &mut [i32], net: &Network, features: &FeatureSet, pos: &Position, color: Color) {
    start_from_biases(half, net);
    features.active(pos, color, |i| add_row(half, net.row(i)));
}

/// One perspective's sums with no input yet: the hidden biases.
fn start_from_biases(half: &mut [i32], net: &Network) {
    for (s, &b) in half.iter_mut().zip(&net.hidden_bias) {
        *s = i32::from(b);
    }
}

/// One perspective's sums after a move that leaves its view as it was
/// (`view`): the rows of the men it lifted subtracted, those of the men it
/// put down added.
#[inline(always)]
fn apply_perspective(
    half: &mut [i32],
    net: &Network,
    features: &FeatureSet,
    color: Color,
    view: View,
    changes: &[Change],
) {
    for c in changes {
        let row = net.row(features.index(color, view, c.cell, c.place));
        if c.added {
            add_row(half, row);
        } else {
            sub_row(half, row);
        }
    }
}

#[inline(always)]
fn add_row(sums: &mut [i32], row: &[i16]) {
    for (s, &w) in sums.iter_mut().zip(row) {
        *s += i32::from(w);
    }
}

#[inline(always)]
fn sub_row(sums: &mut [i32], row: &[i16]) {
    for (s, &w) in sums.iter_mut().zip(row) {
        *s -= i32::from(w);
    }
}

/// The accumulators of a search, one per ply, brought up to date lazily: a
/// move only records what it changed ([`AccumulatorStack::push`]), and an
/// evaluation applies the changes from the nearest computed ply up
/// ([`AccumulatorStack::evaluate`]), so nodes cut off before their
/// evaluation cost nothing. Unmaking a move is stepping back a ply. Every
/// buffer is allocated once, up front.
///
/// With the king mirror (and king buckets) each perspective is brought up
/// to date on its own: where its view changed between the nearest computed
/// ply and the one evaluated, its half is computed afresh from the position
/// there, and the plies between stay uncomputed for it.
#[derive(Clone, Debug)]
pub struct AccumulatorStack {
    /// `plies` accumulators of `2 * hidden` sums (White's perspective, then Black's).
    sums: Vec<i32>,
    /// The changes that lead to each ply from the one before.
    changes: Vec<Changes>,
    /// Whether each ply's sums are up to date, per perspective (White's first).
    computed: Vec<[bool; 2]>,
    /// How each ply's perspectives see the board (king mirror and bucket).
    views: Vec<[View; 2]>,
    /// The men on the board at each ply (kept at every push: output buckets need it).
    men: Vec<i32>,
    hidden: usize,
    /// The last sums computed afresh for each perspective and view.
    refreshes: RefreshCache,
}

impl AccumulatorStack {
    /// A stack of `plies` accumulators for `net`.
    pub fn new(net: &Network, plies: usize) -> AccumulatorStack {
        let plies = plies.max(1);
        AccumulatorStack {
            sums: vec![0; plies * 2 * net.hidden()],
            changes: vec![Changes::new(); plies],
            computed: vec![[false; 2]; plies],
            views: vec![[View::default(); 2]; plies],
            men: vec![0; plies],
            hidden: net.hidden(),
            refreshes: RefreshCache::default(),
        }
    }

    /// Computes ply 0 from `pos` (the root of a search), and forgets the
    /// refreshes of earlier searches (their network may have been another).
    pub fn reset(&mut self, net: &Network, features: &FeatureSet, pos: &Position) {
        self.refreshes.clear(features, self.hidden);
        refresh_sums(&mut self.sums[..2 * self.hidden], net, features, pos);
        self.computed[0] = [true; 2];
        self.views[0] = features.views(pos);
        self.men[0] = board_men(pos) as i32;
    }

    /// Records that ply `ply` follows ply `ply - 1` by `changes` (a null
    /// move changes nothing), its perspectives' views being `views`
    /// ([`FeatureSet::views`] of the position there). `ply` must be at
    /// least 1 and below the `plies` the stack was made with.
    #[inline]
    pub fn push(&mut self, ply: usize, changes: &[Change], views: [View; 2]) {
        let slot = &mut self.changes[ply];
        slot.clear();
        slot.try_extend_from_slice(changes).expect("a move changes at most MAX_CHANGES cells");
        self.computed[ply] = [false; 2];
        self.views[ply] = views;
        self.men[ply] = self.men[ply - 1] + men_change(changes);
    }

    /// Refreshes since the last reset that started from sums computed
    /// before for the same view ([`RefreshCache`]).
    pub fn reused_refreshes(&self) -> usize {
        self.refreshes.reused
    }

    /// The network's score of `pos`, the position at ply `ply`, for its
    /// side to move, in centipawns.
    #[inline]
    pub fn evaluate(&mut self, net: &Network, features: &FeatureSet, ply: usize, pos: &Position) -> i32 {
        if features.views_vary() {
            for color in Color::ALL {
                self.bring_perspective_up_to_date(net, features, ply, pos, color);
            }
        } else {
            self.bring_up_to_date(net, features, ply);
        }
        let (h, base) = (self.hidden, ply * 2 * self.hidden);
        let (white, black) = self.sums[base..base + 2 * h].split_at(h);
        let bucket = net.header.output_bucket(self.men[ply].max(0) as usize);
        match pos.side_to_move() {
            Color::White => net.output(white, black, bucket),
            Color::Black => net.output(black, white, bucket),
        }
    }

    /// Without the king mirror: both perspectives from the nearest computed
    /// ply up, together (no perspective is ever computed without the other).
    /// Its own path for speed: one walk back, and the mirror known off where
    /// the rows are chosen; going through the per-perspective walk instead
    /// cost about 4 % nodes a second in Capablanca (paired runs).
    fn bring_up_to_date(&mut self, net: &Network, features: &FeatureSet, ply: usize) {
        // Ply 0 is computed by `reset`; a stack never reset starts from zeros.
        let mut from = ply;
        while from > 0 && !self.computed[from][0] {
            from -= 1;
        }
        let (h, width) = (self.hidden, 2 * self.hidden);
        for p in from + 1..=ply {
            let (done, rest) = self.sums.split_at_mut(p * width);
            let next = &mut rest[..width];
            next.copy_from_slice(&done[(p - 1) * width..]);
            for color in Color::ALL {
                let half = &mut next[color.index() * h..(color.index() + 1) * h];
                apply_perspective(half, net, features, color, View::default(), &self.changes[p]);
            }
            self.computed[p] = [true; 2];
        }
    }

    /// With the king mirror: `color`'s half from its nearest computed ply up
    /// where its view stays the same all the way, else afresh from `pos`.
    fn bring_perspective_up_to_date(
        &mut self,
        net: &Network,
        features: &FeatureSet,
        ply: usize,
        pos: &Position,
        color: Color,
    ) {
        let c = color.index();
        let mut from = ply;
        while from > 0 && !self.computed[from][c] {
            from -= 1;
        }
        let (h, width) = (self.hidden, 2 * self.hidden);
        let view = self.views[ply][c];
        if self.views[from..ply].iter().any(|v| v[c] != view) {
            let half = &mut self.sums[ply * width + c * h..][..h];
            self.refreshes.refresh(half, net, features, pos, color, view);
            self.computed[ply][c] = true;
            return;
        }
        for p in from + 1..=ply {
            let (done, rest) = self.sums.split_at_mut(p * width);
            let next = &mut rest[c * h..(c + 1) * h];
            next.copy_from_slice(&done[(p - 1) * width + c * h..][..h]);
            apply_perspective(next, net, features, color, view, &self.changes[p]);
            self.computed[p][c] = true;
        }
    }
}

/// The refreshes of a search (Stockfish's accumulator cache, after
/// Koivisto's "Finny tables"): for each perspective and view, the sums last
/// computed afresh and the inputs they hold. A perspective whose king
/// changes bucket starts from the sums its new view had last time and
/// applies only the inputs that changed since, a few rows instead of one
/// per man. Allocated when a search starts ([`RefreshCache::clear`]).
#[derive(Clone, Debug, Default)]
struct RefreshCache {
    /// `hidden` sums per entry; an entry per (perspective, mirror, bucket).
    sums: Vec<i32>,
    /// The inputs each entry's sums hold, as a bit set of `words` words
    /// over one bucket's inputs.
    held: Vec<u64>,
    /// Whether each entry has been computed since the last clear.
    valid: Vec<bool>,
    /// The inputs of the position being refreshed (same layout as one entry of `held`).
    now: Vec<u64>,
    words: usize,
    buckets: usize,
    hidden: usize,
    /// Refreshes that started from an entry computed before (for the tests).
    reused: usize,
}

impl RefreshCache {
    /// Empties the cache and sizes it for `features` and `hidden` sums.
    fn clear(&mut self, features: &FeatureSet, hidden: usize) {
        let (buckets, words) = (features.buckets().max(1), features.base_len().div_ceil(64));
        let entries = 2 * 2 * buckets;
        self.sums.resize(entries * hidden, 0);
        self.held.resize(entries * words, 0);
        self.now.resize(words, 0);
        self.valid.clear();
        self.valid.resize(entries, false);
        self.reused = 0;
        (self.words, self.buckets, self.hidden) = (words, buckets, hidden);
    }

    /// Writes `color`'s sums of `pos` (whose view for `color` is `view`)
    /// into `half`: the entry of that view brought to `pos` by the inputs
    /// that differ, or computed from the biases up the first time.
    fn refresh(
        &mut self,
        half: &mut [i32],
        net: &Network,
        features: &FeatureSet,
        pos: &Position,
        color: Color,
        view: View,
    ) {
        let bucket = usize::from(view.bucket);
        if bucket >= self.buckets || self.hidden != half.len() {
            // Not sized for this network (no reset yet): no cache.
            refresh_perspective(half, net, features, pos, color);
            return;
        }
        let entry = (color.index() * 2 + usize::from(view.flipped)) * self.buckets + bucket;
        let (h, words, offset) = (self.hidden, self.words, bucket * features.base_len());
        let sums = &mut self.sums[entry * h..][..h];
        let held = &mut self.held[entry * words..][..words];
        if !self.valid[entry] {
            start_from_biases(sums, net);
            held.fill(0);
            self.valid[entry] = true;
        } else {
            self.reused += 1;
        }
        let now = &mut self.now;
        now.fill(0);
        features.active(pos, color, |i| {
            let bit = i - offset;
            now[bit / 64] |= 1 << (bit % 64);
        });
        for (w, (&is, was)) in now.iter().zip(held.iter_mut()).enumerate() {
            let (mut added, mut removed) = (is & !*was, *was & !is);
            while added != 0 {
                add_row(sums, net.row(offset + w * 64 + added.trailing_zeros() as usize));
                added &= added - 1;
            }
            while removed != 0 {
                sub_row(sums, net.row(offset + w * 64 + removed.trailing_zeros() as usize));
                removed &= removed - 1;
            }
            *was = is;
        }
        half.copy_from_slice(sums);
    }
}
