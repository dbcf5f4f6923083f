//! The XBoard (CECP v2) side of [`Player`](super::Player): `protover 2`
//! features, `new`/`variant`/`force`/`setboard`, `level`/`st`/`sd`/`nps`,
//! `time`/`otim`, `usermove`, `go`, and `move` replies. The engine is kept in
//! force mode until its first turn; later the opponent's move starts its search.

use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use super::{MoveRequest, PlayerError, PlayerProcess, PlayerSpec, Reply};
use crate::board::notation::{uci_to_xboard, xboard_to_uci};
use crate::game::record::SearchInfo;
use crate::game::tc::{ClockControl, TimeControl};
use crate::rules::geometry::BoardShape;
use crate::rules::variant::Variant;

/// How long to wait for `feature done=1` (the spec asks GUIs for two seconds).
const FEATURE_WAIT: Duration = Duration::from_secs(2);
/// How long an engine that said `done=0` may take.
const FEATURE_WAIT_LONG: Duration = Duration::from_secs(30);

/// The features an XBoard engine announced.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Features {
    /// `ping=1`.
    pub ping: bool,
    /// `setboard=1`.
    pub setboard: bool,
    /// `usermove=1`.
    pub usermove: bool,
    /// `nps=1` (default on).
    pub nps: bool,
    /// `memory=1`.
    pub memory: bool,
    /// `smp=1`.
    pub smp: bool,
    /// `variants="..."`.
    pub variants: Vec<String>,
    /// `myname="..."`.
    pub myname: Option<String>,
}

/// Splits `feature a=1 b="x y"` into pairs.
pub fn parse_features(line: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let rest = line.trim_start().strip_prefix("feature").unwrap_or("");
    let mut chars = rest.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        let mut name = String::new();
        while let Some(&c) = chars.peek() {
            if c == '=' || c.is_whitespace() {
                break;
            }
            name.push(c);
            chars.next();
        }
        if name.is_empty() {
            break;
        }
        if chars.peek() != Some(&'=') {
            continue;
        }
        chars.next();
        let mut value = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            for c in chars.by_ref() {
                if c == '"' {
                    break;
                }
                value.push(c);
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() {
                    break;
                }
                value.push(c);
                chars.next();
            }
        }
        out.push((name, value));
    }
    out
}

/// What `new_game` sends to choose the variant.
enum VariantRequest {
    /// No `variant` command: XBoard's `normal` chess.
    Plain,
    /// `variant NAME`, a name the engine offers.
    Name(String),
    /// `variant NAME` for a name the engine does not list; its answer decides.
    Ask(String),
}

/// The XBoard parent of `variant` where an engine plays the variant by the
/// parent's rules (from the start position the runner sets up): never for
/// a variant with hands (XBoard's holdings give captures to the capturer,
/// Clockwork gives them back to their owner), nor `fairy` (XBoard's name for
/// whatever game the engine defines itself).
fn stand_in(variant: &Variant) -> Option<&str> {
    variant.xboard_parent.as_deref().filter(|p| !variant.hands && *p != "fairy")
}

/// True for an engine's line that refuses the command before it
/// (`Error (...)`, `Illegal ...`, `tellusererror`, "not supported"...).
fn refuses(line: &str) -> bool {
    let line = line.trim().to_ascii_lowercase();
    ["error", "illegal", "tellusererror"].iter().any(|p| line.starts_with(p))
        || ["not supported", "unsupported", "unknown variant"].iter().any(|p| line.contains(p))
}

/// An XBoard engine after the feature exchange.
#[derive(Debug)]
pub struct XboardPlayer {
    pub(crate) process: PlayerProcess,
    /// The name the match gives it.
    name: String,
    /// What the engine supports.
    pub features: Features,
    user_options: Vec<(String, String)>,
    forced: bool,
    /// Moves of the current game the engine has been told about (or played).
    known: usize,
    ping_id: u32,
    /// Board of the current game (XBoard numbers the ranks of 10-rank boards from 0).
    shape: BoardShape,
}

impl XboardPlayer {
    /// `xboard`, `protover 2`, and the features up to `done=1`.
    pub fn handshake(
        mut process: PlayerProcess,
        spec: &PlayerSpec,
        stop: &AtomicBool,
    ) -> Result<XboardPlayer, PlayerError> {
        process.send("xboard")?;
        process.send("protover 2")?;
        let mut features = Features { nps: true, ..Features::default() };
        let mut deadline = Instant::now() + FEATURE_WAIT;
        loop {
            let line = match process.read_line(deadline, stop) {
                Ok(l) => l,
                // An engine without `done=1` is taken as it is after the wait.
                Err(PlayerError::Timeout) => break,
                Err(e) => return Err(e),
            };
            if !line.trim_start().starts_with("feature") {
                continue;
            }
            let mut done = false;
            for (name, value) in parse_features(&line) {
                let on = value == "1";
                let mut accept = true;
                match name.as_str() {
                    "ping" => features.ping = on,
                    "setboard" => features.setboard = on,
                    "usermove" => features.usermove = on,
                    "nps" => features.nps = on,
                    "memory" => features.memory = on,
                    "smp" => features.smp = on,
                    "variants" => features.variants = value.split(',').map(|v| v.trim().to_string()).collect(),
                    "myname" => features.myname = Some(value.clone()),
                    // Moves are read as coordinates only.
                    "san" => accept = !on,
                    "done" => {
                        if on {
                            done = true;
                        } else {
                            deadline = Instant::now() + FEATURE_WAIT_LONG;
                        }
                    }
                    _ => {}
                }
                if name != "done" {
                    process.send(&format!("{} {name}", if accept { "accepted" } else { "rejected" }))?;
                }
            }
            if done {
                break;
            }
        }
        Ok(XboardPlayer {
            process,
            name: spec.name.clone(),
            features,
            user_options: spec.options.clone(),
            forced: true,
            known: 0,
            ping_id: 0,
            shape: BoardShape { files: 8, ranks: 8 },
        })
    }

    /// `ping N` until `pong N` (when the engine supports it).
    fn sync(&mut self, stop: &AtomicBool) -> Result<(), PlayerError> {
        if !self.features.ping {
            return Ok(());
        }
        self.ping(stop, |_| false).map(|_| ())
    }

    /// Sends `ping N` and reads up to `pong N`; a line for which `halt` says
    /// true ends the wait early and is returned.
    fn ping(&mut self, stop: &AtomicBool, mut halt: impl FnMut(&str) -> bool) -> Result<Option<String>, PlayerError> {
        self.ping_id += 1;
        let id = self.ping_id;
        self.process.send(&format!("ping {id}"))?;
        let deadline = Instant::now() + FEATURE_WAIT_LONG;
        loop {
            let line = self.process.read_line(deadline, stop)?;
            let mut t = line.split_whitespace();
            if t.next() == Some("pong") && t.next() == Some(&id.to_string()) {
                return Ok(None);
            }
            if halt(&line) {
                return Ok(Some(line));
            }
        }
    }

    /// How to ask for a game of `variant`: by its own name when the engine
    /// offers it (or offers no list); by its XBoard parent when the parent
    /// stands in for it ([`stand_in`]) and is offered; else by its own name
    /// anyway, to be confirmed, since an engine may play variants it does
    /// not list (menagerie's own lists no variant with hands, for XBoard's
    /// sake, and plays Clockwork).
    fn variant_request(&self, variant: &Variant) -> Result<VariantRequest, PlayerError> {
        let offered = |n: &str| self.features.variants.iter().any(|v| v == n);
        if variant.name == "chess" {
            return Ok(VariantRequest::Plain);
        }
        if self.features.variants.is_empty() || offered(&variant.name) {
            return Ok(VariantRequest::Name(variant.name.clone()));
        }
        match stand_in(variant) {
            Some("normal") => return Ok(VariantRequest::Plain),
            Some(parent) if offered(parent) => return Ok(VariantRequest::Name(parent.to_string())),
            _ => {}
        }
        if !self.features.ping {
            // Without `ping` there is no telling when an answer is complete.
            return Err(self.refusal(&variant.name, None));
        }
        Ok(VariantRequest::Ask(variant.name.clone()))
    }

    /// The error for an engine that does not play `name`.
    fn refusal(&self, name: &str, answer: Option<&str>) -> PlayerError {
        let said = answer.map_or(String::new(), |a| format!("; it answered {a:?}"));
        PlayerError::Refused(format!(
            "{} does not offer variant {name} (it offers: {}){said}",
            self.name,
            self.features.variants.join(", ")
        ))
    }

    /// After `variant NAME` for a variant the engine does not list: `ping`,
    /// and a refusal among the lines before `pong` is the engine's no.
    fn confirm_variant(&mut self, name: &str, stop: &AtomicBool) -> Result<(), PlayerError> {
        match self.ping(stop, refuses)? {
            None => Ok(()),
            Some(line) => Err(self.refusal(name, Some(line.trim()))),
        }
    }

    /// `new`, `variant`, options, `force`, `setboard`, time control, `post`.
    pub fn new_game(
        &mut self,
        variant: &Variant,
        start_fen: &str,
        tc: &TimeControl,
        stop: &AtomicBool,
    ) -> Result<(), PlayerError> {
        let request = self.variant_request(variant)?;
        self.process.send("new")?;
        self.shape = variant.shape;
        match &request {
            VariantRequest::Plain => {}
            VariantRequest::Name(name) => self.process.send(&format!("variant {name}"))?,
            VariantRequest::Ask(name) => {
                self.process.send(&format!("variant {name}"))?;
                self.confirm_variant(name, stop)?;
            }
        }
        self.process.send("force")?;
        let options = self.user_options.clone();
        for (name, value) in &options {
            match name.as_str() {
                "Hash" if self.features.memory => self.process.send(&format!("memory {value}"))?,
                "Threads" if self.features.smp => self.process.send(&format!("cores {value}"))?,
                _ => self.process.send(&format!("option {name}={value}"))?,
            }
        }
        // A variant with a setup phase starts after it in XBoard engines
        // (`variant relocation` in menagerie): a game that plays it is set up.
        if start_fen != variant.start_fen || variant.setup.is_some() {
            if !self.features.setboard {
                return Err(PlayerError::Protocol("engine lacks setboard, cannot start from a FEN".to_string()));
            }
            self.process.send(&format!("setboard {start_fen}"))?;
        }
        if let Some(c) = tc.clock {
            self.process.send(&level_line(&c))?;
        }
        if let Some(t) = tc.movetime {
            // CECP says whole seconds; a fraction is sent as given (many engines accept it).
            let secs = t.as_secs_f64();
            let text = if secs.fract() == 0.0 { format!("{}", secs as u64) } else { format!("{secs}") };
            self.process.send(&format!("st {text}"))?;
        }
        if let Some(d) = tc.depth {
            self.process.send(&format!("sd {d}"))?;
        }
        if let Some(n) = tc.nodes {
            // CECP has no node limit: "nps N" with one second per move gives N nodes.
            // An engine without `nps` gets one second per move instead.
            if self.features.nps {
                self.process.send(&format!("nps {n}"))?;
            }
            if tc.movetime.is_none() && tc.clock.is_none() {
                self.process.send("st 1")?;
            }
        }
        self.process.send("post")?;
        self.process.send("easy")?;
        self.forced = true;
        self.known = 0;
        self.sync(stop)
    }

    fn send_move(&mut self, text: &str) -> Result<(), PlayerError> {
        let text = uci_to_xboard(self.shape, text);
        if self.features.usermove {
            self.process.send(&format!("usermove {text}"))
        } else {
            self.process.send(&text)
        }
    }

    /// Sends the clocks and the moves the engine lacks, then waits for `move`.
    pub fn play(&mut self, request: &MoveRequest<'_>, stop: &AtomicBool) -> Result<Reply, PlayerError> {
        self.process.drain();
        if request.tc.clock.is_some() {
            let [white, black] = request.clocks;
            let (own, other) = if request.white { (white, black) } else { (black, white) };
            self.process.send(&format!("time {}", own.left_ms.max(0) / 10))?;
            self.process.send(&format!("otim {}", other.left_ms.max(0) / 10))?;
        }
        let missing: Vec<String> = request.moves.iter().skip(self.known).cloned().collect();
        // Usually the opponent's one move starts the search. When a side moves
        // twice in a row (a setup phase) or the engine is in force mode, the
        // moves are entered in force mode and `go` starts the search.
        if !self.forced && missing.len() != 1 {
            self.process.send("force")?;
            self.forced = true;
        }
        for m in &missing {
            self.send_move(m)?;
        }
        if self.forced {
            self.process.send("go")?;
            self.forced = false;
        }
        self.known = request.moves.len();
        let mut info = SearchInfo::default();
        loop {
            let line = self.process.read_line_or_interrupt(request.deadline, stop, "force")?;
            let trimmed = line.trim();
            let mut tokens = trimmed.split_whitespace();
            let first = tokens.next().unwrap_or("");
            if first == "move" {
                return match tokens.next() {
                    Some(m) => {
                        self.known += 1;
                        Ok(Reply::Move(xboard_to_uci(self.shape, m), info))
                    }
                    None => Err(PlayerError::Protocol(format!("empty move: {line:?}"))),
                };
            }
            if first == "resign" || trimmed.contains("{resign") || trimmed.contains("resigns}") {
                return Ok(Reply::Resign);
            }
            if first.starts_with("Illegal") || first == "Error" || first.starts_with("Error") {
                return Err(PlayerError::Protocol(format!("engine rejected our command: {trimmed}")));
            }
            // Thinking output: depth score time nodes pv...
            let numbers: Vec<i64> =
                trimmed.split_whitespace().take(2).map_while(|t| t.trim_end_matches(['.', '&']).parse().ok()).collect();
            if numbers.len() == 2 {
                info.depth = u32::try_from(numbers[0]).ok();
                let score = numbers[1];
                // XBoard mate scores: 100000 + N plies (and the negated form).
                if score.abs() >= 99_000 {
                    let plies = 100_000 - score.abs();
                    let moves = ((plies + 1) / 2).max(1) as i32;
                    info.mate = Some(if score > 0 { moves } else { -moves });
                    info.score_cp = None;
                } else {
                    info.score_cp = i32::try_from(score).ok();
                    info.mate = None;
                }
            }
        }
    }

    /// `result R {reason}` and back to force mode.
    pub fn game_over(&mut self, result: &str, reason: &str) {
        let _ = self.process.send(&format!("result {result} {{{reason}}}"));
        let _ = self.process.send("force");
        self.forced = true;
    }
}

/// CECP `level MPS BASE INC`: BASE in minutes, or `min:sec` when it is not
/// whole minutes; a base with a fraction of a second keeps it after the
/// seconds (`0:00.5`), which XBoard engines that read whole seconds round down.
fn level_line(c: &ClockControl) -> String {
    let ms = c.base.as_millis();
    let (minutes, seconds_ms) = (ms / 60_000, ms % 60_000);
    let base = match (seconds_ms / 1000, seconds_ms % 1000) {
        (0, 0) => format!("{minutes}"),
        (s, 0) => format!("{minutes}:{s:02}"),
        (s, frac) => format!("{minutes}:{s:02}.{}", format!("{frac:03}").trim_end_matches('0')),
    };
    format!("level {} {base} {}", c.moves, c.increment.as_secs_f64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_lines_keep_fractions_of_the_base() {
        let level = |moves, base_ms, inc_ms| {
            level_line(&ClockControl {
                moves,
                base: Duration::from_millis(base_ms),
                increment: Duration::from_millis(inc_ms),
            })
        };
        assert_eq!(level(40, 500, 0), "level 40 0:00.5 0");
        assert_eq!(level(40, 30_000, 0), "level 40 0:30 0");
        assert_eq!(level(0, 300_000, 100), "level 0 5 0.1");
        assert_eq!(level(0, 90_250, 1000), "level 0 1:30.25 1");
    }

    #[test]
    fn features() {
        let f = parse_features(
            r#"feature ping=1 setboard=1 variants="normal,capablanca,gothic" myname="Fairy-Max 5.0b" done=1"#,
        );
        assert_eq!(f.len(), 5);
        assert_eq!(f[2], ("variants".to_string(), "normal,capablanca,gothic".to_string()));
        assert_eq!(f[3].1, "Fairy-Max 5.0b");
        assert_eq!(parse_features("feature"), vec![]);
        assert_eq!(parse_features(r#"feature a="unterminated"#), vec![("a".to_string(), "unterminated".to_string())]);
        assert_eq!(parse_features("feature x y=2"), vec![("y".to_string(), "2".to_string())]);
    }

    #[test]
    fn refusals_and_stand_ins() {
        for line in ["telluser variant clockwork not supported", "Error (unsupported variant): clockwork", "Illegal"] {
            assert!(refuses(line), "{line}");
        }
        for line in ["pong 1", "setup (PNBRQ) 8x8+5_crazyhouse", "telluser hello", "# variant clockwork"] {
            assert!(!refuses(line), "{line}");
        }
        let registry = crate::board::registry::Registry::builtin();
        let parent = |name: &str| stand_in(&registry.get(name).expect("a shipped variant")).map(str::to_string);
        assert_eq!(parent("relocation").as_deref(), Some("caparandom"));
        assert_eq!(parent("chess").as_deref(), Some("normal"));
        assert_eq!(parent("clockwork"), None, "crazyhouse gives captures to the capturer");
        assert_eq!(parent("clash1"), None, "fairy is the engine's own game");
    }
}
