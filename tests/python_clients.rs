//! Runs `tests/python/test_clients.py` (python-chess as a UCI and an XBoard
//! client) when a Python with the `chess` package is available: the one named
//! by `MENAGERIE_PYTHON` (set by `.ci/run`), else `.venv/bin/python`.
//! Without one the test says so and passes.

use std::path::PathBuf;
use std::process::Command;

fn python() -> Option<PathBuf> {
    let candidate = std::env::var_os("MENAGERIE_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python"));
    let has_chess = Command::new(&candidate).args(["-c", "import chess.engine"]).output().ok()?.status.success();
    has_chess.then_some(candidate)
}

#[test]
fn python_chess_plays_and_analyses_over_uci_and_xboard() {
    let Some(python) = python() else {
        eprintln!("skipped: no Python with python-chess (set MENAGERIE_PYTHON or create .venv)");
        return;
    };
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/python/test_clients.py");
    let out = Command::new(python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_menagerie"))
        .output()
        .expect("run the python client test");
    assert!(
        out.status.success(),
        "python client test failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
