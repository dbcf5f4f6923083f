//! perft and divide: count the leaves of the legal move tree.

use crate::rules::moves::MoveList;

/// Deepest perft accepted: the recursion keeps one move list per ply on the
/// stack, and nothing deeper finishes in a lifetime anyway.
pub const MAX_PERFT_DEPTH: u32 = 32;
use crate::board::position::Position;

/// Number of leaf nodes `depth` plies deep (the last ply is counted, not played).
pub fn perft(pos: &mut Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    if depth == 1 {
        return list.len() as u64;
    }
    let mut nodes = 0;
    for &m in &list {
        pos.make(m);
        nodes += perft(pos, depth - 1);
        pos.unmake(m);
    }
    nodes
}

/// perft split by first move: `(uci text, nodes)` in generation order.
pub fn divide(pos: &mut Position, depth: u32, chess960: bool) -> Vec<(String, u64)> {
    let mut list = MoveList::new();
    pos.generate_legal(&mut list);
    let mut out = Vec::with_capacity(list.len());
    for &m in &list {
        let text = pos.move_to_uci(m, chess960);
        pos.make(m);
        let n = if depth <= 1 { 1 } else { perft(pos, depth - 1) };
        pos.unmake(m);
        out.push((text, n));
    }
    out
}
