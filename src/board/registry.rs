//! The variant registry: shipped `.var` files embedded in the binary, plus
//! files loaded at run time (`--variants DIR`, `VariantPath`). A variant is
//! added only once its start position is a legal position of it, so the
//! registry sits above positions and FEN.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::board::fen::FenError;
use crate::board::position::Position;
use crate::rules::piece::{ByColor, Color, PieceKind, MAX_KINDS};
use crate::rules::variant::parse::parse_spec;
use crate::rules::variant::{Variant, VariantError, VariantErrorKind};

/// The variant files shipped with the engine, embedded at compile time.
pub const SHIPPED: &[(&str, &str)] = &[
    ("chess.var", include_str!("../../variants/chess.var")),
    ("capablanca.var", include_str!("../../variants/capablanca.var")),
    ("relocation.var", include_str!("../../variants/relocation.var")),
    ("caparandom.var", include_str!("../../variants/caparandom.var")),
    ("clockwork.var", include_str!("../../variants/clockwork.var")),
    ("clash1.var", include_str!("../../variants/clash1.var")),
    ("clash2.var", include_str!("../../variants/clash2.var")),
    ("clash3.var", include_str!("../../variants/clash3.var")),
    ("clash4.var", include_str!("../../variants/clash4.var")),
    ("clash5.var", include_str!("../../variants/clash5.var")),
];

/// Names GUIs use for our variants.
const ALIASES: &[(&str, &str)] = &[("normal", "chess"), ("standard", "chess"), ("fischerandom", "chess")];

/// Loaded variants by name, with the source text of each (for `inherit`).
#[derive(Clone, Default)]
pub struct Registry {
    variants: BTreeMap<String, Arc<Variant>>,
    sources: BTreeMap<String, (String, String)>,
}

impl Registry {
    /// The shipped variants. Shipped files are tested, so none is expected to fail;
    /// one that did would simply be missing.
    pub fn builtin() -> Registry {
        let mut reg = Registry::default();
        for (file, text) in SHIPPED {
            let _ = reg.load_text(file, text);
        }
        reg
    }

    /// Looks a variant up by name or GUI alias (case-insensitive).
    pub fn get(&self, name: &str) -> Option<Arc<Variant>> {
        let lower = name.to_ascii_lowercase();
        let name = ALIASES.iter().find(|(a, _)| *a == lower).map_or(lower.as_str(), |(_, n)| n);
        self.variants.get(name).cloned()
    }

    /// Names of all loaded variants, sorted.
    pub fn names(&self) -> Vec<String> {
        self.variants.keys().cloned().collect()
    }

    /// All loaded variants, sorted by name.
    pub fn variants(&self) -> impl Iterator<Item = &Arc<Variant>> {
        self.variants.values()
    }

    /// Parses a variant without adding it. The start position is parsed
    /// with the built variant; it supplies the initial ranks that no
    /// `initial` directive gives and the men the move-count bound counts.
    pub fn parse_text(&self, file: &str, text: &str) -> Result<Variant, Vec<VariantError>> {
        let sources = &self.sources;
        let resolve = |name: &str| sources.get(name).cloned();
        let spec = parse_spec(file, text, &resolve)?;
        let (start_file, start_line, start_col) = spec.start_position.clone();
        let start_error = |kind, message| {
            vec![VariantError { file: start_file.clone(), line: start_line, column: start_col, kind, message }]
        };
        let explicit: Vec<(Color, PieceKind)> = spec.initial.iter().map(|&(color, kind, _)| (color, kind)).collect();
        let variant = Arc::new(Variant::build(spec));
        let start = match Position::startpos(Arc::clone(&variant)) {
            Ok(start) => start,
            Err(e @ FenError::TooManyMoves { .. }) => {
                return Err(start_error(VariantErrorKind::TooManyMoves, e.to_string()))
            }
            Err(e) => return Err(start_error(VariantErrorKind::BadStart, format!("bad start FEN: {e}"))),
        };
        let standing = ranks_where_men_stand(&start);
        drop(start);
        let mut variant = Arc::try_unwrap(variant).map_err(|_| Vec::new())?;
        for color in Color::ALL {
            for k in 0..variant.kind_count() {
                if !explicit.contains(&(color, PieceKind(k as u8))) {
                    variant.initial_ranks[color][k] = standing[color][k];
                }
            }
        }
        Ok(variant)
    }

    /// Parses and adds a variant; replaces one of the same name. On error the
    /// registry is unchanged.
    pub fn load_text(&mut self, file: &str, text: &str) -> Result<Arc<Variant>, Vec<VariantError>> {
        let variant = Arc::new(self.parse_text(file, text)?);
        self.sources.insert(variant.name.clone(), (file.to_string(), text.to_string()));
        self.variants.insert(variant.name.clone(), Arc::clone(&variant));
        Ok(variant)
    }

    /// Loads one `.var` file.
    pub fn load_file(&mut self, path: &Path) -> Result<Arc<Variant>, Vec<VariantError>> {
        let file = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|e| {
            vec![VariantError {
                file: file.clone(),
                line: 0,
                column: 0,
                kind: VariantErrorKind::Unreadable,
                message: format!("cannot read: {e}"),
            }]
        })?;
        self.load_text(&file, &text)
    }

    /// Loads every `.var` file of a directory (or a single file). Files that
    /// inherit from others in the same directory are retried until all settle.
    /// Returns each loaded variant's name with the file it came from.
    pub fn load_path(&mut self, path: &Path) -> Result<Vec<(String, PathBuf)>, Vec<VariantError>> {
        if path.is_file() {
            return self.load_file(path).map(|v| vec![(v.name.clone(), path.to_path_buf())]);
        }
        let entries = std::fs::read_dir(path).map_err(|e| {
            vec![VariantError {
                file: path.display().to_string(),
                line: 0,
                column: 0,
                kind: VariantErrorKind::Unreadable,
                message: format!("cannot read: {e}"),
            }]
        })?;
        let mut pending: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "var"))
            .collect();
        pending.sort();
        let mut loaded = Vec::new();
        loop {
            let mut errors = Vec::new();
            let mut progress = false;
            let mut still = Vec::new();
            for p in pending {
                match self.load_file(&p) {
                    Ok(v) => {
                        loaded.push((v.name.clone(), p.clone()));
                        progress = true;
                    }
                    Err(e) => {
                        errors.extend(e);
                        still.push(p);
                    }
                }
            }
            pending = still;
            if pending.is_empty() {
                return Ok(loaded);
            }
            if !progress {
                return Err(errors);
            }
        }
    }
}

/// Per colour and kind, the absolute ranks (a bit set) where its men stand
/// in `start`: by default the ranks from which `i` (initial-only) moves apply.
fn ranks_where_men_stand(start: &Position) -> ByColor<[u16; MAX_KINDS]> {
    let mut ranks = ByColor([[0u16; MAX_KINDS]; 2]);
    for &sq in start.squares() {
        let cell = start.cell(sq);
        if cell.is_piece() {
            ranks[cell.color()][cell.kind().index()] |= 1 << sq.rank();
        }
    }
    ranks
}
