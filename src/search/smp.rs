//! One search on several threads (Lazy SMP): the main search runs on the
//! caller's thread, helpers beside it search the same root with their own
//! position and history tables, and all share the transposition table, the
//! stop flag and the node count. Only the main search reports, watches the
//! clock and gives the result. Every thread started for a search starts
//! here, on a stack large enough for it ([`spawn_search_thread`],
//! [`spawn_search`]).

use std::io;
use std::sync::atomic::Ordering;
use std::thread::{self, JoinHandle, Scope, ScopedJoinHandle};

use crate::board::position::Position;
use crate::eval::Evaluator;
use crate::search::tt::TranspositionTable;
use crate::search::{Histories, Limits, Search, SearchControl, SearchEvent, SearchResult};

/// Stack of each search thread: move lists live on the stack, one per ply.
pub const SEARCH_STACK_BYTES: usize = 64 << 20;

/// A named thread with the stack of a search.
fn search_thread(name: String) -> thread::Builder {
    thread::Builder::new().name(name).stack_size(SEARCH_STACK_BYTES)
}

/// Starts `f` on a new thread of `scope` named `name`, with the stack of a
/// search ([`SEARCH_STACK_BYTES`]); an error when the system refuses one.
pub fn spawn_search_thread<'scope, 'env, F, T>(
    scope: &'scope Scope<'scope, 'env>,
    name: String,
    f: F,
) -> io::Result<ScopedJoinHandle<'scope, T>>
where
    F: FnOnce() -> T + Send + 'scope,
    T: Send + 'scope,
{
    search_thread(name).spawn_scoped(scope, f)
}

/// Starts `f` on a new detached thread named `name`, with the stack of a
/// search; an error when the system refuses one.
pub fn spawn_search<F, T>(name: String, f: F) -> io::Result<JoinHandle<T>>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    search_thread(name).spawn(f)
}

/// Ends the helpers when the main search is over, even by a panic (else
/// joining them would wait for an infinite search forever).
struct StopHelpersOnDrop<'c>(&'c SearchControl);

impl Drop for StopHelpersOnDrop<'_> {
    fn drop(&mut self) {
        self.0.helpers_stop.store(true, Ordering::SeqCst);
    }
}

/// Searches `pos` on this thread with `threads - 1` helper threads beside it
/// (fewer when the system refuses more) and returns the main search's result
/// once every helper has ended, counting the nodes of all threads. `control`
/// must be fresh: its node count becomes the result's. `histories` holds the
/// threads' history tables from earlier searches of the game (empty: fresh
/// ones); the tables of this search are put back into it.
#[allow(clippy::too_many_arguments)]
pub fn search_with_helpers(
    pos: &mut Position,
    tt: &TranspositionTable,
    eval: &Evaluator,
    control: &SearchControl,
    limits: &Limits,
    threads: usize,
    histories: &mut Vec<Histories>,
    on_event: &mut dyn FnMut(SearchEvent),
) -> SearchResult {
    let (shape, kinds) = (pos.variant().shape, pos.variant().kind_count());
    let mut take_tables = || histories.pop().unwrap_or_else(|| Histories::new(shape, kinds));
    let main_tables = take_tables();
    let helper_tables: Vec<Histories> = (1..threads).map(|_| take_tables()).collect();
    thread::scope(|scope| {
        let mut helpers = Vec::with_capacity(threads.saturating_sub(1));
        for (number, tables) in (1..threads).zip(helper_tables) {
            let mut helper_pos = pos.clone();
            let spawned = spawn_search_thread(scope, format!("helper {number}"), move || {
                let mut search =
                    Search::with_histories(&mut helper_pos, tt, eval, control, limits, tables).as_helper(number);
                search.run(&mut |_| {});
                search.into_histories()
            });
            match spawned {
                Ok(handle) => helpers.push(handle),
                // Fewer threads than asked for still search.
                Err(_) => break,
            }
        }
        let mut result = {
            let _stop_helpers = StopHelpersOnDrop(control);
            let mut search = Search::with_histories(pos, tt, eval, control, limits, main_tables);
            let result = search.run(on_event);
            histories.push(search.into_histories());
            result
        };
        for helper in helpers {
            // A helper that panicked has only left part of the table unfilled
            // (and its history tables are lost: the next search makes new ones).
            if let Ok(tables) = helper.join() {
                histories.push(tables);
            }
        }
        result.nodes = control.nodes.load(Ordering::SeqCst);
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::EvalMode;
    use std::sync::{mpsc, Arc};
    use std::time::Duration;

    fn search(threads: usize, limits: Limits) -> (SearchResult, Position) {
        let catalogue = crate::eval::catalogue::Catalogue::builtin();
        let variant = catalogue.get("capablanca").expect("capablanca ships");
        let mut pos = Position::startpos(Arc::clone(&variant)).expect("start position");
        let tt = TranspositionTable::new(16);
        let control = SearchControl::default();
        let eval = catalogue.evaluator(&variant, EvalMode::Full);
        // The test thread's stack may be small; search on a big one.
        let result = spawn_search("test search".to_string(), move || {
            let result =
                search_with_helpers(&mut pos, &tt, &eval, &control, &limits, threads, &mut Vec::new(), &mut |_| {});
            (result, pos)
        })
        .expect("thread starts")
        .join();
        result.expect("no panic")
    }

    #[test]
    fn three_threads_finish_the_depth_and_restore_the_position() {
        let (r, pos) = search(3, Limits { depth: Some(7), multipv: 1, ..Limits::default() });
        assert!(r.best.is_some());
        assert_eq!(r.depth, 7);
        assert_eq!(pos.hash(), pos.compute_hash());
        assert_eq!(pos.to_fen(), Position::startpos(Arc::clone(pos.variant())).expect("start").to_fen());
    }

    #[test]
    fn a_helper_counts_its_nodes_and_ends_on_helpers_stop() {
        let catalogue = crate::eval::catalogue::Catalogue::builtin();
        let variant = catalogue.get("chess").expect("chess ships");
        let mut pos = Position::startpos(Arc::clone(&variant)).expect("start position");
        let (tt, control, eval) =
            (TranspositionTable::new(16), SearchControl::default(), catalogue.evaluator(&variant, EvalMode::Full));
        let limits = Limits { infinite: true, multipv: 1, ..Limits::default() };
        let (tx, rx) = mpsc::channel();
        thread::scope(|scope| {
            let (tt, control, eval, limits) = (&tt, &control, &eval, &limits);
            spawn_search_thread(scope, "test helper".to_string(), move || {
                Search::new(&mut pos, tt, eval, control, limits).as_helper(1).run(&mut |_| {});
                let _ = tx.send(());
            })
            .expect("thread starts");
            thread::sleep(Duration::from_millis(100));
            let ran_on = rx.try_recv().is_err();
            control.helpers_stop.store(true, Ordering::SeqCst);
            let ended = rx.recv_timeout(Duration::from_secs(5)).is_ok();
            // Whatever happened, end it so the scope can join.
            control.stop.store(true, Ordering::SeqCst);
            assert!(ran_on, "an infinite helper searches until told to stop");
            assert!(ended, "a helper ends on helpers_stop");
        });
        assert!(control.nodes.load(Ordering::SeqCst) > 0);
    }

    #[test]
    fn the_node_limit_counts_every_thread() {
        let limit = 60_000;
        let (r, _) = search(2, Limits { nodes: Some(limit), multipv: 1, ..Limits::default() });
        assert!(r.best.is_some());
        assert!((limit..limit + 8_000).contains(&r.nodes), "{} nodes", r.nodes);
    }
}
