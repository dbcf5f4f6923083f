//! Players: the engines of a match or `play`, run as child processes (called
//! players so as not to be confused with this program's own [`Engine`]). The
//! command-line description ([`PlayerSpec`]), the process with a reader
//! thread and deadline-bounded line reads ([`PlayerProcess`]), and the
//! protocol-neutral [`Player`] that the game loop drives, implemented for UCI
//! ([`uci`]) and XBoard/CECP ([`xboard`]), the two [`WireProtocol`]s.
//!
//! Never panics on engine output.
//!
//! [`Engine`]: crate::engine::Engine

pub mod random_engine;
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

use crate::game::record::SearchInfo;
use crate::game::tc::{Clock, TimeControl};
use crate::rules::variant::Variant;

/// The protocol a player speaks over its pipes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WireProtocol {
    /// The Universal Chess Interface.
    Uci,
    /// The Chess Engine Communication Protocol (XBoard/WinBoard), version 2.
    Xboard,
}

impl FromStr for WireProtocol {
    type Err = PlayerSpecError;
    fn from_str(s: &str) -> Result<WireProtocol, PlayerSpecError> {
        match s.to_ascii_lowercase().as_str() {
            "uci" => Ok(WireProtocol::Uci),
            "xboard" | "cecp" | "winboard" => Ok(WireProtocol::Xboard),
            _ => Err(PlayerSpecError::Protocol(s.to_string())),
        }
    }
}

/// How to start and configure one engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerSpec {
    /// Display name (PGN `White`/`Black`).
    pub name: String,
    /// Shell command line (run with `sh -c`).
    pub cmd: String,
    /// Working directory, if not the current one.
    pub dir: Option<String>,
    /// The protocol it speaks.
    pub proto: WireProtocol,
    /// Engine options in order (`option.Hash=16` gives `("Hash", "16")`).
    pub options: Vec<(String, String)>,
    /// This engine's own limits (`tc=...`), overriding the match's.
    pub tc: Option<TimeControl>,
}

/// Why an engine description could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlayerSpecError {
    /// A token without `=`.
    #[error("engine setting {0:?} is not key=value")]
    NotKeyValue(String),
    /// An unknown key.
    #[error("unknown engine setting {0:?} (use cmd=, proto=, name=, dir=, tc=, option.NAME=)")]
    UnknownKey(String),
    /// An unknown protocol.
    #[error("unknown protocol {0:?} (use uci or xboard)")]
    Protocol(String),
    /// No `cmd=`.
    #[error("engine has no cmd=")]
    NoCommand,
    /// A bad `tc=`.
    #[error("engine {0}")]
    TimeControl(String),
}

/// The shell command that runs this program's own UCI engine.
pub fn own_uci_command() -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this program: {e}"))?;
    Ok(format!("'{}' uci", exe.display().to_string().replace('\'', "'\\''")))
}

impl PlayerSpec {
    /// Reads `key=value` tokens: `cmd=`, `proto=`, `name=`, `dir=`, `tc=`, `option.NAME=`.
    ///
    /// ```
    /// use menagerie::players::{PlayerSpec, WireProtocol};
    /// let e = PlayerSpec::from_tokens(&["cmd=fairymax", "proto=xboard", "option.Hash=16"]).unwrap();
    /// assert_eq!(e.proto, WireProtocol::Xboard);
    /// assert_eq!(e.name, "fairymax");
    /// assert_eq!(e.options, vec![("Hash".to_string(), "16".to_string())]);
    /// ```
    pub fn from_tokens<S: AsRef<str>>(tokens: &[S]) -> Result<PlayerSpec, PlayerSpecError> {
        let mut spec = PlayerSpec {
            name: String::new(),
            cmd: String::new(),
            dir: None,
            proto: WireProtocol::Uci,
            options: Vec::new(),
            tc: None,
        };
        for token in tokens {
            let token = token.as_ref();
            let (key, value) = token.split_once('=').ok_or_else(|| PlayerSpecError::NotKeyValue(token.to_string()))?;
            match key {
                "cmd" => spec.cmd = value.to_string(),
                "name" => spec.name = value.to_string(),
                "dir" => spec.dir = Some(value.to_string()),
                "proto" => spec.proto = value.parse()?,
                "tc" => spec.tc = Some(value.parse().map_err(|e| PlayerSpecError::TimeControl(format!("{e}")))?),
                _ => match key.strip_prefix("option.") {
                    Some(opt) if !opt.is_empty() => spec.options.push((opt.to_string(), value.to_string())),
                    _ => return Err(PlayerSpecError::UnknownKey(key.to_string())),
                },
            }
        }
        if spec.cmd.trim().is_empty() {
            return Err(PlayerSpecError::NoCommand);
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
pub enum PlayerError {
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
    /// The engine does not play what the game needs (the message names it).
    #[error("{0}")]
    Refused(String),
}

/// A running engine process: stdin for commands, a reader thread that
/// forwards stdout line by line, and the child to reap or kill.
pub struct PlayerProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    name: String,
    /// The command line it was started with.
    cmd: String,
    /// True once it has written a line.
    heard: bool,
    /// Print every line sent and received on stderr.
    pub debug: bool,
}

impl PlayerProcess {
    /// Starts `cmd` with `sh -c` in its own process group, so that a Ctrl-C
    /// in the terminal reaches only the match runner, which then ends it.
    pub fn spawn(name: &str, cmd: &str, dir: Option<&str>) -> Result<PlayerProcess, PlayerError> {
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
        let mut child = command.spawn().map_err(|e| PlayerError::Start(format!("{cmd:?}: {e}")))?;
        let stdout = child.stdout.take().ok_or_else(|| PlayerError::Start(format!("{cmd:?}: no stdout")))?;
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
            return Err(PlayerError::Start(format!("reader thread: {e}")));
        }
        Ok(PlayerProcess {
            child,
            stdin,
            lines: rx,
            name: name.to_string(),
            cmd: cmd.to_string(),
            heard: false,
            debug: false,
        })
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) -> Result<(), PlayerError> {
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

    fn disconnected(&mut self) -> PlayerError {
        // Give a dying process a moment so that its exit status can be told.
        for _ in 0..20 {
            if let Ok(Some(status)) = self.child.try_wait() {
                // The shell's answer for a program it could not find or run,
                // from a process that never said a word.
                let program = program_of(&self.cmd);
                return match status.code() {
                    Some(127) if !self.heard => PlayerError::Start(format!("{program}: command not found")),
                    Some(126) if !self.heard => PlayerError::Start(format!("{program}: not an executable program")),
                    _ => PlayerError::Disconnected(status.to_string()),
                };
            }
            thread::sleep(Duration::from_millis(5));
        }
        PlayerError::Disconnected("output closed".to_string())
    }

    /// Reads one line, waiting until `deadline` (polling `stop`).
    pub fn read_line(&mut self, deadline: Instant, stop: &AtomicBool) -> Result<String, PlayerError> {
        loop {
            if stop.load(Ordering::Relaxed) {
                return Err(PlayerError::Stopped);
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(PlayerError::Timeout);
            }
            let slice = (deadline - now).min(Duration::from_millis(50));
            match self.lines.recv_timeout(slice) {
                Ok(line) => {
                    self.heard = true;
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

    /// Reads one line as [`read_line`](Self::read_line) does; at the deadline
    /// it first sends `interrupt` (the protocol's word to stop thinking, so a
    /// late answer does not run into the next request) and then gives up.
    pub fn read_line_or_interrupt(
        &mut self,
        deadline: Instant,
        stop: &AtomicBool,
        interrupt: &str,
    ) -> Result<String, PlayerError> {
        let line = self.read_line(deadline, stop);
        if matches!(line, Err(PlayerError::Timeout)) {
            let _ = self.send(interrupt);
        }
        line
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

impl Drop for PlayerProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

impl fmt::Debug for PlayerProcess {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PlayerProcess({})", self.name)
    }
}

/// The program a shell command line runs: its first word, unquoted.
fn program_of(cmd: &str) -> String {
    let word = cmd.split_whitespace().next().unwrap_or(cmd);
    word.trim_matches(['\'', '"']).to_string()
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
pub enum Player {
    /// A UCI engine.
    Uci(uci::UciPlayer),
    /// An XBoard engine.
    Xboard(xboard::XboardPlayer),
}

impl Player {
    /// Starts the engine and completes the protocol handshake.
    pub fn start(spec: &PlayerSpec, stop: &AtomicBool, debug: bool) -> Result<Player, PlayerError> {
        let mut process = PlayerProcess::spawn(&spec.name, &spec.cmd, spec.dir.as_deref())?;
        process.debug = debug;
        match spec.proto {
            WireProtocol::Uci => uci::UciPlayer::handshake(process, spec, stop).map(Player::Uci),
            WireProtocol::Xboard => xboard::XboardPlayer::handshake(process, spec, stop).map(Player::Xboard),
        }
    }

    /// Prepares a new game of `variant` from `start_fen`.
    pub fn new_game(
        &mut self,
        variant: &Variant,
        start_fen: &str,
        tc: &TimeControl,
        stop: &AtomicBool,
    ) -> Result<(), PlayerError> {
        match self {
            Player::Uci(e) => e.new_game(variant, start_fen, stop),
            Player::Xboard(e) => e.new_game(variant, start_fen, tc, stop),
        }
    }

    /// Asks for a move and waits for it until the request's deadline.
    pub fn play(&mut self, request: &MoveRequest<'_>, stop: &AtomicBool) -> Result<Reply, PlayerError> {
        match self {
            Player::Uci(e) => e.play(request, stop),
            Player::Xboard(e) => e.play(request, stop),
        }
    }

    /// Tells the engine the game is over (`result` is `1-0`, `0-1`, `1/2-1/2` or `*`).
    pub fn game_over(&mut self, result: &str, reason: &str) {
        match self {
            Player::Uci(_) => {}
            Player::Xboard(e) => e.game_over(result, reason),
        }
    }

    /// Sends the protocol's quit command and ends the process.
    pub fn quit(mut self) {
        let process = match &mut self {
            Player::Uci(e) => &mut e.process,
            Player::Xboard(e) => &mut e.process,
        };
        let _ = process.send("quit");
        process.shutdown(Duration::from_millis(500));
    }

    /// The underlying process (for direct protocol use, e.g. analysis).
    pub fn process(&mut self) -> &mut PlayerProcess {
        match self {
            Player::Uci(e) => &mut e.process,
            Player::Xboard(e) => &mut e.process,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_parsing() {
        let e = PlayerSpec::from_tokens(&["cmd=/usr/games/fairymax -x", "name=FM"]).unwrap();
        assert_eq!(e.cmd, "/usr/games/fairymax -x");
        assert_eq!(e.name, "FM");
        assert_eq!(e.proto, WireProtocol::Uci);
        let e = PlayerSpec::from_tokens(&["cmd=/usr/games/fairymax"]).unwrap();
        assert_eq!(e.name, "fairymax");
        assert!(PlayerSpec::from_tokens(&["name=x"]).is_err());
        assert!(PlayerSpec::from_tokens(&["cmd=x", "proto=ucci"]).is_err());
        assert!(PlayerSpec::from_tokens(&["cmd=x", "bogus"]).is_err());
        assert!(PlayerSpec::from_tokens(&["cmd=x", "option.=1"]).is_err());
        assert!(PlayerSpec::from_tokens(&["cmd=x", "tc=bad"]).is_err());
        let e = PlayerSpec::from_tokens(&["cmd=x", "tc=st=0.5"]).unwrap();
        assert_eq!(e.tc.and_then(|t| t.movetime), Some(Duration::from_millis(500)));
    }

    #[test]
    fn process_roundtrip_and_exit() {
        let stop = AtomicBool::new(false);
        let mut p = PlayerProcess::spawn("cat", "cat", None).unwrap();
        p.send("hello").unwrap();
        let line = p.read_line(Instant::now() + Duration::from_secs(5), &stop).unwrap();
        assert_eq!(line, "hello");
        assert_eq!(p.read_line(Instant::now() + Duration::from_millis(100), &stop), Err(PlayerError::Timeout));
        p.shutdown(Duration::from_secs(2));
        let mut p = PlayerProcess::spawn("exit", "sh -c 'exit 3'", None).unwrap();
        let r = p.read_line(Instant::now() + Duration::from_secs(5), &stop);
        assert!(matches!(r, Err(PlayerError::Disconnected(_))), "{r:?}");
        let mut p = PlayerProcess::spawn("none", "'menagerie-no-such-engine' uci", None).unwrap();
        let r = p.read_line(Instant::now() + Duration::from_secs(5), &stop).unwrap_err().to_string();
        assert_eq!(r, "cannot start menagerie-no-such-engine: command not found");
        // An engine that talked, then exits 127 itself, just disconnected.
        let mut p = PlayerProcess::spawn("talks", "sh -c 'echo hello; exit 127'", None).unwrap();
        assert_eq!(p.read_line(Instant::now() + Duration::from_secs(5), &stop), Ok("hello".to_string()));
        let r = p.read_line(Instant::now() + Duration::from_secs(5), &stop);
        assert!(matches!(r, Err(PlayerError::Disconnected(_))), "{r:?}");
    }
}
