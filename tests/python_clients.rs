//! Runs `tests/python/test_clients.py` (python-chess as a UCI and an XBoard
//! client) when a Python with the `chess` package is available: the one named
//! by `MENAGERIE_PYTHON` (set by `.ci/run`), else `.venv/bin/python`.
//! Without one the test fails under `CI=true` and skips (saying so) elsewhere.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::require_tool;

fn python() -> Result<PathBuf, String> {
    let candidate = std::env::var_os("MENAGERIE_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python"));
    let missing = || {
        format!(
            "no `import chess.engine` in {} (set MENAGERIE_PYTHON, or: python3 -m venv .venv && .venv/bin/pip install chess)",
            candidate.display()
        )
    };
    match Command::new(&candidate).args(["-c", "import chess.engine"]).output() {
        Ok(out) if out.status.success() => Ok(candidate),
        _ => Err(missing()),
    }
}

#[test]
fn python_chess_plays_and_analyses_over_uci_and_xboard() {
    let Some(python) = require_tool("python-chess", python()) else { return };
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
