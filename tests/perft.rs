//! The data-driven rules suite: every `tests/data/perft/*.perft` file, found
//! by listing the directory (a new file joins the suite by being there).
//!
//! Format (one directive per line, `#` comments):
//! `variant NAME` (sticky), `id NAME` (starts an entry), `fen FEN|startpos`,
//! `perft DEPTH NODES`, `legal MOVE...`, `illegal MOVE...`,
//! `after MOVE FEN` (FEN after playing MOVE), `check yes|no`.
//! Perft entries above `PERFT_MAX_NODES` (default 5 000 000) are skipped in
//! normal runs; `cargo test --release -- --ignored` runs them all.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread;

use menagerie::board::perft::{divide, perft};
use menagerie::board::position::Position;
use menagerie::board::registry::Registry;
use menagerie::rules::variant::Variant;

struct Entry {
    file: String,
    variant: Arc<Variant>,
    id: String,
    fen: String,
    lines: Vec<(usize, Vec<String>)>,
}

/// Every `.perft` file of `tests/data/perft/`, sorted.
fn suites() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/perft");
    let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "perft"))
        .collect();
    files.sort();
    files
}

fn load(path: &Path) -> Vec<Entry> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let file = path.file_name().map_or(String::new(), |f| f.to_string_lossy().into_owned());
    let file = file.as_str();
    let registry = Registry::builtin();
    let mut variant = None;
    let mut entries: Vec<Entry> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        let Some(first) = words.first() else { continue };
        let rest = words[1..].join(" ");
        match first.as_str() {
            "variant" => {
                variant = Some(registry.get(&rest).unwrap_or_else(|| panic!("{file}:{}: unknown variant", n + 1)))
            }
            "id" => entries.push(Entry {
                file: file.to_string(),
                variant: variant.clone().unwrap_or_else(|| panic!("{file}:{}: id before variant", n + 1)),
                id: rest,
                fen: String::new(),
                lines: Vec::new(),
            }),
            "fen" => entries.last_mut().expect("fen before id").fen = rest,
            _ => entries.last_mut().expect("directive before id").lines.push((n + 1, words)),
        }
    }
    entries
}

fn position(e: &Entry) -> Position {
    let fen = if e.fen == "startpos" { e.variant.start_fen.clone() } else { e.fen.clone() };
    Position::from_fen(Arc::clone(&e.variant), &fen).unwrap_or_else(|err| panic!("{} {}: bad FEN: {err}", e.file, e.id))
}

fn max_nodes() -> u64 {
    std::env::var("PERFT_MAX_NODES").ok().and_then(|v| v.parse().ok()).unwrap_or(5_000_000)
}

/// Runs every entry of a file; returns the number of checks made and the failures.
fn run(path: &Path, cap: u64) -> (usize, Vec<String>) {
    let mut checks = 0;
    let mut failures = Vec::new();
    for e in load(path) {
        let file = e.file.as_str();
        if e.lines.is_empty() {
            failures.push(format!("{file} {}: an entry without checks", e.id));
        }
        let mut pos = position(&e);
        let fen_before = pos.to_fen();
        for (line, words) in &e.lines {
            let at = format!("{file}:{line} {}", e.id);
            match words[0].as_str() {
                "perft" => {
                    let depth: u32 = words[1].parse().expect("depth");
                    let want: u64 = words[2].parse().expect("nodes");
                    if want > cap {
                        continue;
                    }
                    let got = perft(&mut pos, depth);
                    if got != want {
                        let rows = divide(&mut pos, depth, false);
                        let listing: Vec<String> = rows.iter().map(|(m, n)| format!("{m}: {n}")).collect();
                        failures.push(format!("{at}: perft {depth} = {got}, expected {want}\n{}", listing.join("\n")));
                    }
                }
                "legal" => {
                    for m in &words[1..] {
                        if let Err(err) = pos.parse_move(m) {
                            failures.push(format!("{at}: {m} should be legal: {err}"));
                        }
                    }
                }
                "illegal" => {
                    for m in &words[1..] {
                        if pos.parse_move(m).is_ok() {
                            failures.push(format!("{at}: {m} should be illegal"));
                        }
                    }
                }
                "after" => match pos.parse_move(&words[1]) {
                    Ok(m) => {
                        pos.make(m);
                        let got = pos.to_fen();
                        let want = words[2..].join(" ");
                        if got != want {
                            failures.push(format!("{at}: after {} got\n  {got}\nexpected\n  {want}", words[1]));
                        }
                        assert_eq!(pos.hash(), pos.compute_hash(), "{at}: incremental hash");
                        pos.unmake(m);
                    }
                    Err(err) => failures.push(format!("{at}: {err}")),
                },
                "check" => {
                    let want = words[1] == "yes";
                    if pos.in_check() != want {
                        failures.push(format!("{at}: in_check should be {want}"));
                    }
                }
                other => panic!("{at}: unknown directive {other:?}"),
            }
            checks += 1;
            assert_eq!(pos.to_fen(), fen_before, "{at}: position changed by the check");
        }
    }
    (checks, failures)
}

/// Runs every suite (one thread each) and fails with all their failures.
fn run_all(cap: u64) {
    let files = suites();
    assert!(files.len() >= 5, "perft suites missing: {files:?}");
    let results: Vec<(&PathBuf, (usize, Vec<String>))> = thread::scope(|scope| {
        let runs: Vec<_> = files.iter().map(|path| (path, scope.spawn(move || run(path, cap)))).collect();
        runs.into_iter()
            .map(|(path, run)| (path, run.join().unwrap_or_else(|e| std::panic::resume_unwind(e))))
            .collect()
    });
    let mut failures = Vec::new();
    for (path, (checks, file_failures)) in results {
        assert!(checks > 0, "{}: no checks", path.display());
        failures.extend(file_failures);
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_suite() {
    run_all(max_nodes());
}

#[test]
#[ignore = "deep perft: minutes; run with --ignored"]
fn deep_perft_all_suites() {
    run_all(u64::MAX);
}
