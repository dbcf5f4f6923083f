//! The engine's options, declared once: name, type, default and bounds or
//! choices ([`OPTIONS`]). `Engine::set_option` checks values against this
//! table, and both protocols print it (UCI `option name ...`, XBoard
//! `feature option="..."`). [`EngineOptions`] holds the values the engine
//! keeps.

use crate::eval::EvalMode;
use crate::search::SearchParams;

/// Largest `Hash` value accepted, in MiB.
pub const MAX_HASH_MIB: u64 = 32_768;
/// Largest `MultiPV` value accepted.
pub const MAX_MULTIPV: u64 = 256;

/// Which setting an option changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionId {
    /// The variant being played.
    Variant,
    /// Transposition table size in MiB.
    Hash,
    /// Empties the transposition table.
    ClearHash,
    /// Search threads: the main search plus helpers sharing the hash table (Lazy SMP).
    Threads,
    /// Lines to report.
    MultiPv,
    /// The GUI may ask us to ponder.
    Ponder,
    /// Milliseconds kept back per move for communication delays.
    MoveOverhead,
    /// Castling written as king-takes-rook.
    Chess960,
    /// Full evaluation (the network where the variant has one), the linear
    /// one, or material only.
    Evaluation,
    /// A network file for the variant played (empty: the loaded one).
    EvalFile,
    /// Analysis mode (accepted; the search is the same).
    AnalyseMode,
    /// A file or directory of extra variants to load.
    VariantPath,
    /// Playing strength from 0 (weakest) to 20 (full strength).
    SkillLevel,
    /// Play at the strength `UCI_Elo` asks for instead of `Skill Level`.
    LimitStrength,
    /// The strength asked for when `UCI_LimitStrength` is on.
    Elo,
}

/// The type of an option's value, with its default and bounds or choices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// A whole number in `min..=max`.
    Spin {
        /// Value at start.
        default: u64,
        /// Smallest value accepted.
        min: u64,
        /// Largest value accepted.
        max: u64,
    },
    /// On or off (`true`/`false`, `on`/`off` or `1`/`0`).
    Check {
        /// Value at start.
        default: bool,
    },
    /// One of `choices`, case-insensitive.
    Combo {
        /// Value at start.
        default: &'static str,
        /// The values accepted.
        choices: &'static [&'static str],
    },
    /// One of the loaded variants' names; its current value is the variant played.
    Variant,
    /// An action without a value.
    Button,
    /// A file or directory; empty (or UCI's `<empty>`) means none.
    Path,
    /// A file (XBoard offers a file chooser); empty means none.
    File,
}

/// One option: its name as GUIs show it and its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OptionSpec {
    /// What it changes.
    pub id: OptionId,
    /// The name GUIs use (matched case-insensitively).
    pub name: &'static str,
    /// Its type, default and bounds or choices.
    pub kind: OptionKind,
}

/// Every option, in the order UCI lists them.
pub const OPTIONS: [OptionSpec; 15] = [
    OptionSpec { id: OptionId::Variant, name: "UCI_Variant", kind: OptionKind::Variant },
    OptionSpec { id: OptionId::Hash, name: "Hash", kind: OptionKind::Spin { default: 16, min: 1, max: MAX_HASH_MIB } },
    OptionSpec { id: OptionId::ClearHash, name: "Clear Hash", kind: OptionKind::Button },
    OptionSpec { id: OptionId::Threads, name: "Threads", kind: OptionKind::Spin { default: 1, min: 1, max: 1024 } },
    OptionSpec {
        id: OptionId::MultiPv,
        name: "MultiPV",
        kind: OptionKind::Spin { default: 1, min: 1, max: MAX_MULTIPV },
    },
    OptionSpec { id: OptionId::Ponder, name: "Ponder", kind: OptionKind::Check { default: false } },
    OptionSpec {
        id: OptionId::MoveOverhead,
        name: "Move Overhead",
        kind: OptionKind::Spin { default: 10, min: 0, max: 10_000 },
    },
    OptionSpec { id: OptionId::Chess960, name: "UCI_Chess960", kind: OptionKind::Check { default: false } },
    OptionSpec {
        id: OptionId::Evaluation,
        name: "Evaluation",
        kind: OptionKind::Combo {
            default: FULL_EVALUATION,
            choices: &[FULL_EVALUATION, NNUE_EVALUATION, LINEAR_EVALUATION, HAND_EVALUATION, MATERIAL_EVALUATION],
        },
    },
    OptionSpec { id: OptionId::EvalFile, name: "EvalFile", kind: OptionKind::File },
    OptionSpec { id: OptionId::AnalyseMode, name: "UCI_AnalyseMode", kind: OptionKind::Check { default: false } },
    OptionSpec { id: OptionId::VariantPath, name: "VariantPath", kind: OptionKind::Path },
    OptionSpec {
        id: OptionId::SkillLevel,
        name: "Skill Level",
        kind: OptionKind::Spin { default: MAX_SKILL_LEVEL, min: 0, max: MAX_SKILL_LEVEL },
    },
    OptionSpec { id: OptionId::LimitStrength, name: "UCI_LimitStrength", kind: OptionKind::Check { default: false } },
    OptionSpec {
        id: OptionId::Elo,
        name: "UCI_Elo",
        kind: OptionKind::Spin { default: MAX_ELO, min: MIN_ELO, max: MAX_ELO },
    },
];

use crate::search::skill::{MAX_ELO, MAX_SKILL_LEVEL, MIN_ELO};

/// `Evaluation` choice: the full evaluation, the network where the variant has one.
const FULL_EVALUATION: &str = "full";
/// `Evaluation` choice: the network (an error where the variant has none).
const NNUE_EVALUATION: &str = "nnue";
/// `Evaluation` choice: the tuned linear evaluation, whatever the network.
const LINEAR_EVALUATION: &str = "linear";
/// `Evaluation` choice: the weights derived from the variant file, ignoring its `.eval` file.
const HAND_EVALUATION: &str = "hand";
/// `Evaluation` choice: material only, the weak baseline of strength tests.
const MATERIAL_EVALUATION: &str = "material";

/// The option called `name` (case-insensitive), if there is one.
pub fn find(name: &str) -> Option<&'static OptionSpec> {
    OPTIONS.iter().find(|o| o.name.eq_ignore_ascii_case(name.trim()))
}

/// The table's entry for `id`.
pub fn spec(id: OptionId) -> &'static OptionSpec {
    // Every id has exactly one entry (tested below), so the fallback is never taken.
    OPTIONS.iter().find(|o| o.id == id).unwrap_or(&OPTIONS[0])
}

/// A value an option accepted, or holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionValue {
    /// A spin value.
    Number(u64),
    /// A check value.
    Flag(bool),
    /// A combo choice, as the table spells it.
    Choice(&'static str),
    /// A variant name or a path (empty = none).
    Text(String),
    /// A button press.
    Press,
}

impl OptionSpec {
    /// Reads `text` as this option's value; None when it does not fit the
    /// type, the bounds or the choices.
    pub fn parse(&self, text: &str) -> Option<OptionValue> {
        let text = text.trim();
        match self.kind {
            OptionKind::Spin { .. } => {
                text.parse::<u64>().ok().filter(|&n| self.allows_number(n)).map(OptionValue::Number)
            }
            OptionKind::Check { .. } => match text.to_ascii_lowercase().as_str() {
                "true" | "1" | "on" => Some(OptionValue::Flag(true)),
                "false" | "0" | "off" => Some(OptionValue::Flag(false)),
                _ => None,
            },
            OptionKind::Combo { choices, .. } => {
                choices.iter().find(|c| c.eq_ignore_ascii_case(text)).map(|&c| OptionValue::Choice(c))
            }
            OptionKind::Variant => Some(OptionValue::Text(text.to_string())),
            OptionKind::Button => Some(OptionValue::Press),
            OptionKind::Path | OptionKind::File if text == "<empty>" => Some(OptionValue::Text(String::new())),
            OptionKind::Path | OptionKind::File => Some(OptionValue::Text(text.to_string())),
        }
    }

    /// True when this is a spin option and `n` lies within its bounds.
    pub fn allows_number(&self, n: u64) -> bool {
        matches!(self.kind, OptionKind::Spin { min, max, .. } if (min..=max).contains(&n))
    }

    /// The value at start (an empty text for the variant and path, which
    /// the engine fills in).
    pub fn default_value(&self) -> OptionValue {
        match self.kind {
            OptionKind::Spin { default, .. } => OptionValue::Number(default),
            OptionKind::Check { default } => OptionValue::Flag(default),
            OptionKind::Combo { default, .. } => OptionValue::Choice(default),
            OptionKind::Variant | OptionKind::Path | OptionKind::File => OptionValue::Text(String::new()),
            OptionKind::Button => OptionValue::Press,
        }
    }
}

/// The option values the engine keeps as settings (the variant, the hash
/// table's contents and the variant path live elsewhere).
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// Transposition table size in MiB.
    pub hash_mib: usize,
    /// Lines to report.
    pub multipv: usize,
    /// Milliseconds kept back per move for communication delays.
    pub move_overhead: u64,
    /// Write castling as king-takes-rook.
    pub chess960: bool,
    /// Search threads: the main search plus `threads - 1` helpers.
    pub threads: usize,
    /// The GUI may ask us to ponder.
    pub ponder: bool,
    /// Analysis mode (accepted; the search is the same).
    pub analyse_mode: bool,
    /// Which evaluation weights to use.
    pub evaluation: EvalMode,
    /// Playing strength, 0..=20 (20: full strength).
    pub skill_level: u64,
    /// Play at `elo` instead of `skill_level`.
    pub limit_strength: bool,
    /// The strength asked for when `limit_strength` is on.
    pub elo: u64,
    /// The search's margins: the engine's own unless set by the unlisted
    /// `search.NAME` options (tuning and experiments, see [`SEARCH_PREFIX`]).
    pub search: SearchParams,
}

/// Prefix of the unlisted options that set one search margin each,
/// `setoption name search.rfp_margin value 90`: a tuner can play one build
/// against itself with other margins. GUIs never see them.
pub const SEARCH_PREFIX: &str = "search.";

impl EngineOptions {
    /// The value of option `id`, if it is kept here.
    pub fn get(&self, id: OptionId) -> Option<OptionValue> {
        Some(match id {
            OptionId::Hash => OptionValue::Number(self.hash_mib as u64),
            OptionId::Threads => OptionValue::Number(self.threads as u64),
            OptionId::MultiPv => OptionValue::Number(self.multipv as u64),
            OptionId::MoveOverhead => OptionValue::Number(self.move_overhead),
            OptionId::Ponder => OptionValue::Flag(self.ponder),
            OptionId::Chess960 => OptionValue::Flag(self.chess960),
            OptionId::AnalyseMode => OptionValue::Flag(self.analyse_mode),
            OptionId::Evaluation => OptionValue::Choice(match self.evaluation {
                EvalMode::Full => FULL_EVALUATION,
                EvalMode::Nnue => NNUE_EVALUATION,
                EvalMode::Linear => LINEAR_EVALUATION,
                EvalMode::Hand => HAND_EVALUATION,
                EvalMode::Material => MATERIAL_EVALUATION,
            }),
            OptionId::SkillLevel => OptionValue::Number(self.skill_level),
            OptionId::LimitStrength => OptionValue::Flag(self.limit_strength),
            OptionId::Elo => OptionValue::Number(self.elo),
            OptionId::Variant | OptionId::ClearHash | OptionId::VariantPath | OptionId::EvalFile => return None,
        })
    }

    /// Stores a value [`OptionSpec::parse`] accepted for `id`; values of
    /// options not kept here, or of another type, are ignored.
    pub fn set(&mut self, id: OptionId, value: &OptionValue) {
        match (id, value) {
            (OptionId::Hash, &OptionValue::Number(n)) => self.hash_mib = n as usize,
            (OptionId::Threads, &OptionValue::Number(n)) => self.threads = n as usize,
            (OptionId::MultiPv, &OptionValue::Number(n)) => self.multipv = n as usize,
            (OptionId::MoveOverhead, &OptionValue::Number(n)) => self.move_overhead = n,
            (OptionId::Ponder, &OptionValue::Flag(on)) => self.ponder = on,
            (OptionId::Chess960, &OptionValue::Flag(on)) => self.chess960 = on,
            (OptionId::AnalyseMode, &OptionValue::Flag(on)) => self.analyse_mode = on,
            (OptionId::SkillLevel, &OptionValue::Number(n)) => self.skill_level = n,
            (OptionId::LimitStrength, &OptionValue::Flag(on)) => self.limit_strength = on,
            (OptionId::Elo, &OptionValue::Number(n)) => self.elo = n,
            (OptionId::Evaluation, &OptionValue::Choice(choice)) => {
                self.evaluation = match choice {
                    MATERIAL_EVALUATION => EvalMode::Material,
                    HAND_EVALUATION => EvalMode::Hand,
                    NNUE_EVALUATION => EvalMode::Nnue,
                    LINEAR_EVALUATION => EvalMode::Linear,
                    _ => EvalMode::Full,
                }
            }
            _ => {}
        }
    }
}

impl Default for EngineOptions {
    /// Every option at the table's default.
    fn default() -> Self {
        let mut options = EngineOptions {
            hash_mib: 0,
            multipv: 0,
            move_overhead: 0,
            chess960: false,
            threads: 0,
            ponder: false,
            analyse_mode: false,
            evaluation: EvalMode::Full,
            skill_level: 0,
            limit_strength: false,
            elo: 0,
            search: SearchParams::default(),
        };
        for spec in &OPTIONS {
            options.set(spec.id, &spec.default_value());
        }
        options
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_has_one_entry_and_kept_values_start_at_the_default() {
        let defaults = EngineOptions::default();
        for spec in &OPTIONS {
            assert_eq!(OPTIONS.iter().filter(|o| o.id == spec.id).count(), 1, "{}", spec.name);
            assert_eq!(super::spec(spec.id), spec);
            if let Some(value) = defaults.get(spec.id) {
                assert_eq!(value, spec.default_value(), "{}", spec.name);
            }
        }
        assert_eq!(defaults.hash_mib, 16);
        assert_eq!(defaults.move_overhead, 10);
    }

    #[test]
    fn values_are_checked_against_the_table() {
        let hash = find("hash").expect("Hash");
        assert_eq!(hash.parse(" 64 "), Some(OptionValue::Number(64)));
        assert_eq!(hash.parse("0"), None);
        assert_eq!(hash.parse("-5"), None);
        assert_eq!(hash.parse("99999999999"), None);
        let ponder = find("Ponder").expect("Ponder");
        assert_eq!(ponder.parse("ON"), Some(OptionValue::Flag(true)));
        assert_eq!(ponder.parse("maybe"), None);
        let eval = find("evaluation").expect("Evaluation");
        assert_eq!(eval.parse("Material"), Some(OptionValue::Choice("material")));
        assert_eq!(eval.parse("hand"), Some(OptionValue::Choice("hand")));
        assert_eq!(eval.parse("clever"), None);
        assert_eq!(find("VariantPath").and_then(|p| p.parse("<empty>")), Some(OptionValue::Text(String::new())));
        assert!(find("NoSuchOption").is_none());
    }
}
