//! Text protocols over the engine: UCI and XBoard/CECP v2.
//!
//! Both are thin line loops. A reader thread turns the input into
//! [`Event::Line`]s on a channel; the same channel carries search events,
//! so a loop never blocks on input while a search wants to report. Nothing
//! here panics on input: every error becomes a protocol error line and the
//! previous state is kept. End of input means quit.

pub mod uci;
pub mod xboard;

use std::io::{BufRead, Write};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;

use crate::engine::{Engine, EngineEvent};

/// Where protocol lines go; shared with the search thread.
pub type Output = Arc<Mutex<dyn Write + Send>>;

/// Something the protocol loop must handle.
#[derive(Debug)]
pub enum Event {
    /// One input line (without the line end).
    Line(String),
    /// The input is closed.
    Eof,
    /// A report of the search with this id.
    Search(u64, EngineEvent),
}

/// Which protocol a loop speaks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Protocol {
    /// Universal Chess Interface.
    Uci,
    /// XBoard / CECP version 2.
    Xboard,
}

/// Longest piece of input quoted back in an error message.
const QUOTE_LIMIT: usize = 80;

/// The input as quoted in an error message: cut after [`QUOTE_LIMIT`]
/// characters (with `...`) so that a huge line gives a short answer.
pub fn quote(input: &str) -> String {
    match input.char_indices().nth(QUOTE_LIMIT) {
        Some((cut, _)) => format!("{}...", &input[..cut]),
        None => input.to_string(),
    }
}

/// Writes one line and flushes it (errors such as a closed pipe are ignored:
/// the input side will see end of file and quit).
pub fn send(out: &Output, line: &str) {
    let mut w = out.lock().unwrap_or_else(PoisonError::into_inner);
    let _ = writeln!(w, "{line}");
    let _ = w.flush();
}

/// Starts a thread that reads `input` line by line into `tx`. Invalid UTF-8
/// is replaced, not fatal.
pub fn spawn_reader<R: BufRead + Send + 'static>(mut input: R, tx: Sender<Event>) {
    let fallback = tx.clone();
    let spawned = thread::Builder::new().name("input".to_string()).spawn(move || {
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match input.read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => {
                    let _ = tx.send(Event::Eof);
                    return;
                }
                Ok(_) => {
                    let line = String::from_utf8_lossy(&buf).trim_end_matches(['\n', '\r']).to_string();
                    if tx.send(Event::Line(line)).is_err() {
                        return;
                    }
                }
            }
        }
    });
    if spawned.is_err() {
        // Without a reader there is no input: behave as at end of input.
        let _ = fallback.send(Event::Eof);
    }
}

/// Runs a protocol session until `quit` or end of input. A UCI session whose
/// first command is `xboard` continues as an XBoard session.
pub fn run<R: BufRead + Send + 'static>(engine: &mut Engine, input: R, out: Output, protocol: Protocol) {
    let (tx, rx): (Sender<Event>, Receiver<Event>) = mpsc::channel();
    spawn_reader(input, tx.clone());
    let mut protocol = protocol;
    loop {
        let next = match protocol {
            Protocol::Uci => uci::run(engine, &rx, &out),
            Protocol::Xboard => xboard::run(engine, &rx, &tx, &out),
        };
        match next {
            Some(p) => protocol = p,
            None => break,
        }
    }
    engine.stop_and_wait();
}
