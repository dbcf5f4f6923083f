//! Fan-out of server-sent events: every open `/api/events` stream holds a
//! receiver, and the search thread and the handlers broadcast to all of them.
//! Kept apart from the session's lock, so that a search callback never waits
//! for a handler that is itself waiting for the search to stop.

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Mutex, PoisonError};

/// Most event streams open at once (each holds a thread).
pub const MAX_STREAMS: usize = 32;

/// The open event streams.
#[derive(Default)]
pub struct Hub {
    streams: Mutex<Vec<Sender<String>>>,
}

impl Hub {
    /// A new stream, or None when [`MAX_STREAMS`] are open.
    pub fn subscribe(&self) -> Option<Receiver<String>> {
        let mut streams = self.streams.lock().unwrap_or_else(PoisonError::into_inner);
        if streams.len() >= MAX_STREAMS {
            // Streams whose page has gone are only noticed on the next send.
            streams.retain(|s| s.send(String::new()).is_ok());
            if streams.len() >= MAX_STREAMS {
                return None;
            }
        }
        let (tx, rx) = mpsc::channel();
        streams.push(tx);
        Some(rx)
    }

    /// Sends one event (`event:` name and `data:` JSON line) to every stream,
    /// forgetting streams that have closed.
    pub fn broadcast(&self, event: &str, data: &serde_json::Value) {
        let text = format!("event: {event}\ndata: {data}\n\n");
        let mut streams = self.streams.lock().unwrap_or_else(PoisonError::into_inner);
        streams.retain(|s| s.send(text.clone()).is_ok());
    }

    /// Number of open streams.
    pub fn len(&self) -> usize {
        self.streams.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// True when no stream is open.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_reaches_open_streams_and_drops_closed_ones() {
        let hub = Hub::default();
        let a = hub.subscribe().expect("room");
        let b = hub.subscribe().expect("room");
        drop(b);
        hub.broadcast("state", &serde_json::json!({"version": 3}));
        assert_eq!(a.try_recv().as_deref(), Ok("event: state\ndata: {\"version\":3}\n\n"));
        assert_eq!(hub.len(), 1);
        let held: Vec<_> = (1..MAX_STREAMS).filter_map(|_| hub.subscribe()).collect();
        assert_eq!(held.len(), MAX_STREAMS - 1);
        assert!(hub.subscribe().is_none(), "the cap holds while every page listens");
        drop(held);
        assert!(hub.subscribe().is_some(), "closed streams free their places");
    }
}
