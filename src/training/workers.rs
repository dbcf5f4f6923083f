//! A job's items (games to play, games to score) spread over search
//! threads: each thread takes the next item until none is left, with a
//! transposition table of its own, while the calling thread redraws a
//! progress line. Self-play and `rescore` both run this way.

use std::io::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::search::smp::spawn_search_thread;
use crate::search::tt::TranspositionTable;

/// Each thread's transposition table, in MiB (the item's work clears it
/// where a game must not see the one before).
const TABLE_MIB: usize = 16;

/// Runs `work(item, table)` for every item in `0..items` on up to `threads`
/// search threads named `name N` (fewer when the system refuses more; the
/// calling thread, without the progress line, when it refuses all). Each
/// thread has a table of [`TABLE_MIB`]; `work` returns what its item adds
/// to the job's tally (positions kept, plies searched). While the threads
/// run, stderr shows `line(done, tally, eta_seconds)`, redrawn every half
/// second. Returns the tally.
pub fn on_search_threads(
    name: &str,
    threads: usize,
    items: usize,
    work: impl Fn(usize, &mut TranspositionTable) -> usize + Sync,
    line: impl Fn(usize, usize, f64) -> String,
) -> usize {
    let (next, done, tally) = (AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0));
    let worker = || {
        let mut tt = TranspositionTable::new(TABLE_MIB);
        while let Some(item) = Some(next.fetch_add(1, Ordering::Relaxed)).filter(|&i| i < items) {
            tally.fetch_add(work(item, &mut tt), Ordering::Relaxed);
            done.fetch_add(1, Ordering::Relaxed);
        }
    };
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.max(1))
            .map_while(|number| spawn_search_thread(scope, format!("{name} {number}"), worker).ok())
            .collect();
        if workers.is_empty() {
            worker();
            return;
        }
        let start = Instant::now();
        while !workers.iter().all(|w| w.is_finished()) {
            std::thread::sleep(Duration::from_millis(500));
            let finished = done.load(Ordering::Relaxed);
            let elapsed = start.elapsed().as_secs_f64();
            let eta = if finished > 0 { elapsed / finished as f64 * (items - finished) as f64 } else { 0.0 };
            eprint!("\r{}   ", line(finished, tally.load(Ordering::Relaxed), eta));
            let _ = std::io::stderr().flush();
        }
        eprintln!();
    });
    tally.into_inner()
}
