//! The process harness the protocol tests share: the built binary with piped
//! input, its output lines on a channel (read by a thread, so a test can wait
//! with a deadline), its stderr collected, and a transcript of both
//! directions for failure messages. Also [`require_tool`], the one rule for
//! tests that need an outside tool (python-chess, Fairy-Max, Chromium);
//! [`TempDir`], a scratch directory per test; and the hang guard
//! ([`HANG_SECS`], [`output_or_hang`]): tests bound their work by nodes or
//! depth and leave speed to the benchmarks, so a deadline only catches a hang.

// Each test crate uses the part of the harness it needs.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long a test waits for work whose length is the engine's own business
/// (a search to a depth or a node count) before it calls the engine hung:
/// far beyond what the work takes, so that a loaded machine is not a failure.
pub const HANG_SECS: u64 = 60;

/// Runs `command` to its end, as [`Command::output`] does, unless it runs
/// past [`HANG_SECS`]: then it is killed and the test fails, naming `what`.
pub fn output_or_hang(command: &mut Command, what: &str) -> Output {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {what}: {e}"));
    wait_or_hang(child, what)
}

/// Waits for `child` to exit and collects its piped output, unless it runs
/// past [`HANG_SECS`]: then it is killed and the test fails, naming `what`.
pub fn wait_or_hang(mut child: Child, what: &str) -> Output {
    let stdout = read_all(child.stdout.take());
    let stderr = read_all(child.stderr.take());
    let deadline = Instant::now() + Duration::from_secs(HANG_SECS);
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break status;
        }
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: no exit within {HANG_SECS} s: it hangs");
        }
        thread::sleep(Duration::from_millis(20));
    };
    let collect = |h: JoinHandle<Vec<u8>>| h.join().unwrap_or_default();
    Output { status, stdout: collect(stdout), stderr: collect(stderr) }
}

/// Reads a pipe to its end on a thread of its own (so that a full pipe never
/// blocks the child while the caller waits for it).
fn read_all(pipe: Option<impl Read + Send + 'static>) -> JoinHandle<Vec<u8>> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

/// A scratch directory of one test under the system temp dir, named
/// `menagerie-NAME-PID-N` so that tests running in parallel, and other runs,
/// never share one; it is removed with its contents when dropped, also when
/// the test fails. Derefs to its [`Path`].
pub struct TempDir {
    path: PathBuf,
}

impl TempDir {
    /// Makes a new, empty directory; `name` says which test it is for.
    pub fn new(name: &str) -> TempDir {
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let n = MADE.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("menagerie-{name}-{}-{n}", std::process::id()));
        // A killed run of the same process id may have left one behind.
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap_or_else(|e| panic!("cannot make {}: {e}", path.display()));
        TempDir { path }
    }
}

impl Deref for TempDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.path
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Whether this is a CI run (`CI=true`), where no test may skip.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// The outside tool a test needs: `found` is the tool (a path, a started
/// browser) or why it is not there. Under `CI=true` a missing tool fails the
/// test with a message naming it, so CI cannot pass by skipping; elsewhere the
/// test prints `SKIPPED` with the reason and the caller returns.
pub fn require_tool<T>(tool: &str, found: Result<T, String>) -> Option<T> {
    match found {
        Ok(tool) => Some(tool),
        Err(why) if in_ci() => panic!("{tool} is required under CI=true: {why}"),
        Err(why) => {
            eprintln!("SKIPPED: {tool}: {why} (under CI=true this fails)");
            None
        }
    }
}

/// Transcript lines shown when a test fails.
const TAIL: usize = 80;

/// A running `menagerie` process.
pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Option<JoinHandle<String>>,
    transcript: Vec<String>,
}

impl Engine {
    /// Starts the built binary with `args`.
    pub fn start(args: &[&str]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_menagerie"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start menagerie");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let mut stderr = child.stderr.take().expect("stderr is piped");
        let (tx, lines) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = thread::spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        Engine { child, stdin, lines, stderr: Some(stderr), transcript: Vec::new() }
    }

    /// The process id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The last lines of the transcript (`> ` sent, `< ` received).
    pub fn transcript_tail(&self) -> String {
        self.transcript[self.transcript.len().saturating_sub(TAIL)..].join("\n")
    }

    /// Sends one line; fails the test if the engine no longer reads.
    pub fn send(&mut self, line: &str) {
        self.transcript.push(format!("> {line}"));
        let stdin = self.stdin.as_mut().expect("input is open");
        let alive = writeln!(stdin, "{line}").and_then(|_| stdin.flush());
        assert!(alive.is_ok(), "engine died; transcript:\n{}", self.transcript_tail());
    }

    /// Reads lines until one satisfies `done` and returns every line read,
    /// that one last. Fails the test after `secs` seconds, or on a line that
    /// reports a panic.
    pub fn read_until(&mut self, secs: u64, what: &str, done: impl Fn(&str) -> bool) -> Vec<String> {
        self.read_until_or_fail(secs, &format!("no {what} within {secs} s"), done)
    }

    /// [`Engine::read_until`] for an answer that takes the engine as long as
    /// its work does (a search to a depth, a node count, `stop`): only a hang
    /// fails the test, after [`HANG_SECS`].
    pub fn read_until_or_hang(&mut self, what: &str, done: impl Fn(&str) -> bool) -> Vec<String> {
        self.read_until_or_fail(HANG_SECS, &format!("no {what} within {HANG_SECS} s: the engine hangs"), done)
    }

    /// [`Engine::read_until`], failing with `failure` after `secs` seconds.
    fn read_until_or_fail(&mut self, secs: u64, failure: &str, done: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(secs);
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(line) = self.lines.recv_timeout(left) else {
                if let Ok(path) = std::env::var("FUZZ_TRANSCRIPT") {
                    let _ = std::fs::write(path, self.transcript.join("\n"));
                }
                panic!("{failure}; transcript:\n{}", self.transcript_tail());
            };
            self.transcript.push(format!("< {line}"));
            assert!(!line.contains("panicked"), "engine panicked; transcript:\n{}", self.transcript_tail());
            let finished = done(&line);
            seen.push(line);
            if finished {
                return seen;
            }
        }
    }

    /// The first line that satisfies `pred` within `secs` seconds.
    pub fn expect(&mut self, secs: u64, what: &str, pred: impl Fn(&str) -> bool) -> String {
        self.read_until(secs, what, pred).pop().unwrap_or_default()
    }

    /// The first line that starts with `prefix` within `secs` seconds.
    pub fn expect_prefix(&mut self, secs: u64, prefix: &str) -> String {
        self.expect(secs, prefix, |l| l.starts_with(prefix))
    }

    /// Sends `command` (e.g. `quit`) and then [`Engine::close`]s.
    pub fn quit(mut self, command: &str) -> Vec<String> {
        self.send(command);
        self.close()
    }

    /// Ends the input (which means quit) and waits for the engine to exit
    /// successfully, without a panic on stderr. Returns the output lines not
    /// read before.
    pub fn close(mut self) -> Vec<String> {
        drop(self.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut rest = Vec::new();
        loop {
            match self.lines.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(line) => rest.push(line),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    panic!("engine did not exit after its input ended; transcript:\n{}", self.transcript_tail())
                }
            }
        }
        let status = loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                break status;
            }
            assert!(Instant::now() < deadline, "engine did not exit; transcript:\n{}", self.transcript_tail());
            thread::sleep(Duration::from_millis(10));
        };
        let stderr = self.stderr.take().and_then(|h| h.join().ok()).unwrap_or_default();
        assert!(!stderr.contains("panicked"), "engine panicked: {stderr}");
        assert!(status.success(), "exit status {status}; stderr: {stderr}");
        rest
    }
}

impl Drop for Engine {
    /// A test that fails half-way leaves no engine behind.
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
