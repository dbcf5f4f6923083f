//! Engines as child processes: the command-line description ([`EngineSpec`]),
//! the process with a reader thread and deadline-bounded line reads
//! ([`EngineProcess`]), and the protocol-neutral [`Engine`] that the game loop
//! drives, implemented for UCI ([`uci`]) and XBoard/CECP ([`xboard`]).
//! Uses variant and the time control module; never panics on engine output.

pub mod uci;
pub mod xboard;

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use crate::tournament::tc::{Clock, TimeControl};
use crate::variant::Variant;

/// The protocol an engine speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// The Universal Chess Interface.
    Uci,
    /// The Chess Engine Communication Protocol (XBoard/WinBoard), version 2.
    Xboard,
}

impl FromStr for Protocol {
    type Err = EngineSpecError;
    fn from_str(s: &str) -> Result<Protocol, EngineSpecError> {
        match s.to_ascii_lowercase().as_str() {
            "uci" => Ok(Protocol::Uci),
            "xboard" | "cecp" | "winboard" => Ok(Protocol::Xboard),
            _ => Err(EngineSpecError::Protocol(s.to_string())),
        }
    }
}

/// How to start and configure one engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// Display name (PGN `White`/`Black`).
    pub name: String,
    /// Shell command line (run with `sh -c`).
    pub cmd: String,
    /// Working directory, if not the current one.
    pub dir: Option<String>,
    /// Protocol.
    pub proto: Protocol,
    /// Engine options in order (`option.Hash=16` gives `("Hash", "16")`).
    pub options: Vec<(String, String)>,
}

/// Why an engine description could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineSpecError {
    /// A token without `=`.
    #[error("engine setting {0:?} is not key=value")]
    NotKeyValue(String),
    /// An unknown key.
    #[error("unknown engine setting {0:?} (use cmd=, proto=, name=, dir=, option.NAME=)")]
    UnknownKey(String),
    /// An unknown protocol.
    #[error("unknown protocol {0:?} (use uci or xboard)")]
    Protocol(String),
    /// No `cmd=`.
    #[error("engine has no cmd=")]
    NoCommand,
}

impl EngineSpec {
    /// Reads `key=value` tokens: `cmd=`, `proto=`, `name=`, `dir=`, `option.NAME=`.
    ///
    /// ```
    /// use menagerie::tournament::engine::{EngineSpec, Protocol};
    /// let e = EngineSpec::from_tokens(&["cmd=fairymax", "proto=xboard", "option.Hash=16"]).unwrap();
    /// assert_eq!(e.proto, Protocol::Xboard);
    /// assert_eq!(e.name, "fairymax");
    /// assert_eq!(e.options, vec![("Hash".to_string(), "16".to_string())]);
    /// ```
    pub fn from_tokens<S: AsRef<str>>(tokens: &[S]) -> Result<EngineSpec, EngineSpecError> {
        let mut spec = EngineSpec {
            name: String::new(),
            cmd: String::new(),
            dir: None,
            proto: Protocol::Uci,
            options: Vec::new(),
        };
        for token in tokens {
            let token = token.as_ref();
            let (key, value) = token.split_once('=').ok_or_else(|| EngineSpecError::NotKeyValue(token.to_string()))?;
            match key {
                "cmd" => spec.cmd = value.to_string(),
                "name" => spec.name = value.to_string(),
                "dir" => spec.dir = Some(value.to_string()),
                "proto" => spec.proto = value.parse()?,
                _ => match key.strip_prefix("option.") {
                    Some(opt) if !opt.is_empty() => spec.options.push((opt.to_string(), value.to_string())),
                    _ => return Err(EngineSpecError::UnknownKey(key.to_string())),
                },
            }
        }
        if spec.cmd.trim().is_empty() {
            return Err(EngineSpecError::NoCommand);
        }
        if spec.name.is_empty() {
            // The program's file name, without its directory or arguments.
            let program = spec.cmd.split_whitespace().next().unwrap_or("engine");
            spec.name = program.rsplit('/').next().unwrap_or(program).to_string();
        }
        Ok(spec)
    }
}

/// What went wrong while talking to an engine.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EngineError {
    /// The command could not be started.
    #[error("cannot start {0}")]
    Start(String),
    /// The process exited or closed its output.
    #[error("engine disconnected ({0})")]
    Disconnected(String),
    /// No answer before the deadline.
    #[error("engine did not answer in time")]
    Timeout,
    /// The match is being stopped.
    #[error("stopped")]
    Stopped,
    /// The engine said something that breaks the protocol.
    #[error("protocol error: {0}")]
    Protocol(String),
}

/// A running engine process: stdin for commands, a reader thread that
/// forwards stdout line by line, and the child to reap or kill.
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    name: String,
    /// Print every line sent and received on stderr.
    pub debug: bool,
}

impl EngineProcess {
    /// Starts `cmd` with `sh -c` in its own process group, so that a Ctrl-C
    /// in the terminal reaches only the match runner, which then ends it.
    pub fn spawn(name: &str, cmd: &str, dir: Option<&str>) -> Result<EngineProcess, EngineError> {
        let mut command = Command::new("sh");
        command.arg("-c").arg(format!("exec {cmd}"));
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        if let Some(d) = dir {
            command.current_dir(d);
        }
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command.spawn().map_err(|e| EngineError::Start(format!("{cmd:?}: {e}")))?;
        let stdout = child.stdout.take().ok_or_else(|| EngineError::Start(format!("{cmd:?}: no stdout")))?;
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        let spawned = thread::Builder::new().name(format!("{name}-reader")).spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        // Engines may write any bytes; decode leniently.
                        let line = String::from_utf8_lossy(&buf).trim_end_matches(['\r', '\n']).to_string();
                        if tx.send(line).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        if let Err(e) = spawned {
            let _ = child.kill();
            let _ = child.wait();
            return Err(EngineError::Start(format!("reader thread: {e}")));
        }
        Ok(EngineProcess { child, stdin, lines: rx, name: name.to_string(), debug: false })
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        if self.debug {
            eprintln!("{} < {line}", self.name);
        }
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(self.disconnected());
        };
        if writeln!(stdin, "{line}").and_then(|_| stdin.flush()).is_err() {
            return Err(self.disconnected());
        }
        Ok(())
    }

    fn disconnected(&mut self) -> EngineError {
        // Give a dying process a moment so that its exit status can be told.
        for _ in 0..20 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return EngineError::Disconnected(status.to_string());
            }
            thread::sleep(Duration::from_millis(5));
        }
        EngineError::Disconnected("output closed".to_string())
    }

    /// Reads one line, waiting until `deadline` (polling `stop`).
    pub fn read_line(&mut self, deadline: Instant, stop: &AtomicBool) -> Result<String, EngineError> {
        loop {
            if stop.load(Ordering::Relaxed) {
                return Err(EngineError::Stopped);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(EngineError::Timeout);
            }
            let slice = (deadline - now).min(Duration::from_millis(50));
            match self.lines.recv_timeout(slice) {
                Ok(line) => {
                    if self.debug {
                        eprintln!("{} > {line}", self.name);
                    }
                    return Ok(line);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err(self.disconnected()),
            }
        }
    }

    /// Discards lines already received.
    pub fn drain(&mut self) {
        while self.lines.try_recv().is_ok() {}
    }

    /// Closes stdin, waits up to `grace` for the process to exit, then kills it.
    pub fn shutdown(&mut self, grace: Duration) {
        self.stdin = None;
        let until = Instant::now() + grace;
        while Instant::now() < until {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

impl fmt::Debug for EngineProcess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EngineProcess({})", self.name)
    }
}

/// What an engine reported about its choice.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchInfo {
    /// Score in centipawns from the engine's point of view.
    pub score_cp: Option<i32>,
    /// Mate in this many moves (negative: being mated).
    pub mate: Option<i32>,
    /// Depth reached.
    pub depth: Option<u32>,
}

impl fmt::Display for SearchInfo {
    /// `+0.35/12` as cutechess writes engine evaluations into PGN comments.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.mate, self.score_cp) {
            (Some(m), _) if m >= 0 => write!(f, "+M{m}")?,
            (Some(m), _) => write!(f, "-M{}", -m)?,
            (None, Some(cp)) => write!(f, "{:+.2}", cp as f64 / 100.0)?,
            (None, None) => {}
        }
        if let Some(d) = self.depth {
            write!(f, "/{d}")?;
        }
        Ok(())
    }
}

/// An engine's answer to "your move".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// A move as text (not yet checked).
    Move(String, SearchInfo),
    /// The engine gave up.
    Resign,
}

/// What the game loop needs to ask for a move.
pub struct MoveRequest<'a> {
    /// The game's start FEN.
    pub start_fen: &'a str,
    /// All moves from the start, in UCI text.
    pub moves: &'a [String],
    /// True when the engine plays White.
    pub white: bool,
    /// White's and Black's clocks.
    pub clocks: [&'a Clock; 2],
    /// Limits.
    pub tc: &'a TimeControl,
    /// Give up waiting after this instant.
    pub deadline: Instant,
}

/// A started engine speaking one of the protocols.
#[derive(Debug)]
pub enum Engine {
    /// A UCI engine.
    Uci(uci::UciEngine),
    /// An XBoard engine.
    Xboard(xboard::XboardEngine),
}

impl Engine {
    /// Starts the engine and completes the protocol handshake.
    pub fn start(spec: &EngineSpec, stop: &AtomicBool, debug: bool) -> Result<Engine, EngineError> {
        let mut process = EngineProcess::spawn(&spec.name, &spec.cmd, spec.dir.as_deref())?;
        process.debug = debug;
        match spec.proto {
            Protocol::Uci => uci::UciEngine::handshake(process, spec, stop).map(Engine::Uci),
            Protocol::Xboard => xboard::XboardEngine::handshake(process, spec, stop).map(Engine::Xboard),
        }
    }

    /// Prepares a new game of `variant` from `start_fen`.
    pub fn new_game(
        &mut self,
        variant: &Variant,
        start_fen: &str,
        tc: &TimeControl,
        stop: &AtomicBool,
    ) -> Result<(), EngineError> {
        match self {
            Engine::Uci(e) => e.new_game(variant, start_fen, stop),
            Engine::Xboard(e) => e.new_game(variant, start_fen, tc, stop),
        }
    }

    /// Asks for a move and waits for it until the request's deadline.
    pub fn play(&mut self, request: &MoveRequest<'_>, stop: &AtomicBool) -> Result<Reply, EngineError> {
        match self {
            Engine::Uci(e) => e.play(request, stop),
            Engine::Xboard(e) => e.play(request, stop),
        }
    }

    /// Tells the engine the game is over (`result` is `1-0`, `0-1`, `1/2-1/2` or `*`).
    pub fn game_over(&mut self, result: &str, reason: &str) {
        match self {
            Engine::Uci(_) => {}
            Engine::Xboard(e) => e.game_over(result, reason),
        }
    }

    /// Sends the protocol's quit command and ends the process.
    pub fn quit(mut self) {
        let process = match &mut self {
            Engine::Uci(e) => &mut e.process,
            Engine::Xboard(e) => &mut e.process,
        };
        let _ = process.send("quit");
        process.shutdown(Duration::from_millis(500));
    }

    /// The underlying process (for direct protocol use, e.g. analysis).
    pub fn process(&mut self) -> &mut EngineProcess {
        match self {
            Engine::Uci(e) => &mut e.process,
            Engine::Xboard(e) => &mut e.process,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_parsing() {
        let e = EngineSpec::from_tokens(&["cmd=/usr/games/fairymax -x", "name=FM"]).unwrap();
        assert_eq!(e.cmd, "/usr/games/fairymax -x");
        assert_eq!(e.name, "FM");
        assert_eq!(e.proto, Protocol::Uci);
        let e = EngineSpec::from_tokens(&["cmd=/usr/games/fairymax"]).unwrap();
        assert_eq!(e.name, "fairymax");
        assert!(EngineSpec::from_tokens(&["name=x"]).is_err());
        assert!(EngineSpec::from_tokens(&["cmd=x", "proto=ucci"]).is_err());
        assert!(EngineSpec::from_tokens(&["cmd=x", "bogus"]).is_err());
        assert!(EngineSpec::from_tokens(&["cmd=x", "option.=1"]).is_err());
    }

    #[test]
    fn process_roundtrip_and_exit() {
        let stop = AtomicBool::new(false);
        let mut p = EngineProcess::spawn("cat", "cat", None).unwrap();
        p.send("hello").unwrap();
        let line = p.read_line(Instant::now() + Duration::from_secs(5), &stop).unwrap();
        assert_eq!(line, "hello");
        assert_eq!(p.read_line(Instant::now() + Duration::from_millis(100), &stop), Err(EngineError::Timeout));
        p.shutdown(Duration::from_secs(2));
        let mut p = EngineProcess::spawn("exit", "exit 3", None).unwrap();
        let r = p.read_line(Instant::now() + Duration::from_secs(5), &stop);
        assert!(matches!(r, Err(EngineError::Disconnected(_))), "{r:?}");
    }
}
