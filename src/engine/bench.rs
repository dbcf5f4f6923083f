//! The `bench` command's workload: fixed positions of every loaded variant,
//! each searched to a fixed depth from an empty hash table, so the node count
//! is a deterministic signature of the search.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::board::position::Position;
use crate::board::registry::Registry;
use crate::eval::catalogue::Catalogue;
use crate::eval::EvalMode;
use crate::rules::moves::MoveList;
use crate::rules::variant::Variant;
use crate::search::tt::TranspositionTable;
use crate::search::{Limits, Search, SearchControl};

/// Default search depth of `bench`.
pub const DEFAULT_DEPTH: u32 = 8;
/// Plies of the fixed walk that leads to each variant's second position.
const WALK_PLIES: usize = 8;

/// The bench positions: each variant's start position and the position after
/// a fixed walk through its legal moves (move number `(7 * ply + 3) mod n`).
pub fn positions(registry: &Registry) -> Vec<(Arc<Variant>, String)> {
    let mut out = Vec::new();
    for name in registry.names() {
        let Some(v) = registry.get(&name) else { continue };
        let Ok(mut pos) = Position::startpos(Arc::clone(&v)) else { continue };
        out.push((Arc::clone(&v), pos.to_fen()));
        let mut list = MoveList::new();
        for ply in 0..WALK_PLIES {
            pos.generate_legal(&mut list);
            if list.is_empty() {
                break;
            }
            pos.make(list[(7 * ply + 3) % list.len()]);
        }
        out.push((v, pos.to_fen()));
    }
    out
}

/// Totals of a bench run.
#[derive(Clone, Copy, Debug)]
pub struct BenchTotals {
    /// Nodes over all positions.
    pub nodes: u64,
    /// Wall time of the searches.
    pub time: Duration,
}

/// Searches every bench position to `depth`; `report` receives one line per position.
pub fn run(catalogue: &Catalogue, depth: u32, hash_mib: usize, mut report: impl FnMut(&str)) -> BenchTotals {
    let mut tt = TranspositionTable::new(hash_mib);
    let limits = Limits { depth: Some(depth), multipv: 1, ..Limits::default() };
    let mut nodes = 0;
    let mut time = Duration::ZERO;
    let list = positions(catalogue.registry());
    for (i, (variant, fen)) in list.iter().enumerate() {
        let Ok(mut pos) = Position::from_fen(Arc::clone(variant), fen) else { continue };
        let eval = catalogue.evaluator(variant, EvalMode::Full);
        tt.clear();
        // A fresh control per position: its node count is per search.
        let control = SearchControl::default();
        let start = Instant::now();
        let result = Search::new(&mut pos, &tt, &eval, &control, &limits).run(&mut |_| {});
        time += start.elapsed();
        nodes += result.nodes;
        let best = result.best.map_or_else(|| "0000".to_string(), |m| pos.move_to_uci(m, false));
        report(&format!(
            "position {}/{} {} {fen}: best {best} nodes {}",
            i + 1,
            list.len(),
            variant.name,
            result.nodes
        ));
    }
    BenchTotals { nodes, time }
}
