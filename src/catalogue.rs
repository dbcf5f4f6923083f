//! The engine's catalogue: every loaded variant paired with its evaluation
//! data, the tuned weights of its `NAME.eval` file (and, later, its network).
//! The rules know nothing of evaluation; this is where the two meet, above
//! both, so that the engine, `bench` and `tune` ask one place for a variant's
//! evaluator.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::eval::{parse_eval_file, EvalMode, Evaluator, Layout, TunedWeights};
use crate::registry::Registry;
use crate::variant::{Variant, VariantError, VariantErrorKind};

/// The shipped variants' tuned evaluation weights (`menagerie tune`), by variant name.
pub const SHIPPED_EVAL: &[(&str, &str)] = &[
    ("chess", include_str!("../variants/chess.eval")),
    ("capablanca", include_str!("../variants/capablanca.eval")),
    ("relocation", include_str!("../variants/relocation.eval")),
    ("caparandom", include_str!("../variants/caparandom.eval")),
    ("clockwork", include_str!("../variants/clockwork.eval")),
    ("clash1", include_str!("../variants/clash1.eval")),
    ("clash2", include_str!("../variants/clash2.eval")),
    ("clash3", include_str!("../variants/clash3.eval")),
    ("clash4", include_str!("../variants/clash4.eval")),
    ("clash5", include_str!("../variants/clash5.eval")),
];

/// The variants and, by variant name, their tuned weights.
#[derive(Clone, Default)]
pub struct Catalogue {
    registry: Registry,
    weights: BTreeMap<String, Arc<TunedWeights>>,
}

impl Catalogue {
    /// The shipped variants with their shipped weights. Shipped files are
    /// tested, so none is expected to fail; a weights file that did would
    /// leave its variant on the derived weights.
    pub fn builtin() -> Catalogue {
        Catalogue::with_shipped_weights(Registry::builtin())
    }

    /// `registry` with the shipped weights of the variants it has.
    pub fn with_shipped_weights(registry: Registry) -> Catalogue {
        let mut catalogue = Catalogue { registry, weights: BTreeMap::new() };
        for (name, text) in SHIPPED_EVAL {
            if let Some(variant) = catalogue.registry.get(name) {
                if let Ok(tuned) = read_weights(&variant, &format!("{name}.eval"), text) {
                    catalogue.weights.insert(variant.name.clone(), Arc::new(tuned));
                }
            }
        }
        catalogue
    }

    /// The variants.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Looks a variant up by name or GUI alias (as [`Registry::get`]).
    pub fn get(&self, name: &str) -> Option<Arc<Variant>> {
        self.registry.get(name)
    }

    /// The tuned weights of the variant named `name`, if it has them.
    pub fn weights(&self, name: &str) -> Option<&Arc<TunedWeights>> {
        self.weights.get(name)
    }

    /// The evaluator of `variant` with the weights `mode` names: the full
    /// evaluation uses the variant's tuned weights where it has them.
    pub fn evaluator(&self, variant: &Arc<Variant>, mode: EvalMode) -> Evaluator {
        Evaluator::with_mode(variant, mode, self.weights(&variant.name).map(|w| &**w))
    }

    /// Adds a variant from its text and, if given, its `.eval` file (name and
    /// text); replaces one of the same name. On error nothing changes.
    pub fn load_text_with_eval(
        &mut self,
        file: &str,
        text: &str,
        eval: Option<(String, String)>,
    ) -> Result<Arc<Variant>, Vec<VariantError>> {
        let mut registry = self.registry.clone();
        let variant = registry.load_text(file, text)?;
        let tuned = match eval {
            Some((eval_file, eval_text)) => Some(read_weights(&variant, &eval_file, &eval_text)?),
            None => None,
        };
        self.commit(registry, [(variant.name.clone(), tuned)]);
        Ok(variant)
    }

    /// Loads one `.var` file and the `.eval` file beside it, if any.
    pub fn load_file(&mut self, path: &Path) -> Result<Arc<Variant>, Vec<VariantError>> {
        let names = self.load_path(path)?;
        let name = names.first().cloned().unwrap_or_default();
        self.get(&name).ok_or_else(Vec::new)
    }

    /// Loads every `.var` file of a directory (or a single file), each with
    /// the `.eval` file beside it: `NAME.eval` for the variant's name, or the
    /// `.var` file's own stem with `.eval`. Returns the names loaded; on
    /// error nothing changes.
    pub fn load_path(&mut self, path: &Path) -> Result<Vec<String>, Vec<VariantError>> {
        let mut registry = self.registry.clone();
        let loaded = registry.load_path(path)?;
        let mut found = Vec::with_capacity(loaded.len());
        for (name, file) in &loaded {
            let tuned = match eval_beside(name, file) {
                Some((eval_file, eval_text)) => {
                    let variant = registry.get(name).ok_or_else(Vec::new)?;
                    Some(read_weights(&variant, &eval_file, &eval_text)?)
                }
                None => None,
            };
            found.push((name.clone(), tuned));
        }
        self.commit(registry, found);
        Ok(loaded.into_iter().map(|(name, _)| name).collect())
    }

    /// Takes `registry` and the weights read for the variants just loaded
    /// (a reloaded variant without an `.eval` file loses its old weights).
    fn commit(&mut self, registry: Registry, loaded: impl IntoIterator<Item = (String, Option<TunedWeights>)>) {
        self.registry = registry;
        for (name, tuned) in loaded {
            match tuned {
                Some(tuned) => self.weights.insert(name, Arc::new(tuned)),
                None => self.weights.remove(&name),
            };
        }
    }
}

/// Reads an `.eval` text against `variant`'s weight layout.
fn read_weights(variant: &Variant, file: &str, text: &str) -> Result<TunedWeights, Vec<VariantError>> {
    parse_eval_file(file, text, &Layout::new(variant)).map_err(|e| {
        vec![VariantError {
            file: e.file,
            line: e.line,
            column: 1,
            kind: VariantErrorKind::BadEval,
            message: e.message,
        }]
    })
}

/// The `.eval` file beside the `.var` file `var_file` of the variant `name`.
fn eval_beside(name: &str, var_file: &Path) -> Option<(String, String)> {
    let stem = var_file.file_stem().map(|s| s.to_string_lossy().to_string());
    [Some(name.to_string()), stem].into_iter().flatten().find_map(|n| {
        let candidate: PathBuf = var_file.with_file_name(format!("{n}.eval"));
        let text = std::fs::read_to_string(&candidate).ok()?;
        Some((candidate.display().to_string(), text))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::SHIPPED;

    #[test]
    fn every_shipped_variant_loads_its_tuned_weights() {
        let catalogue = Catalogue::builtin();
        assert_eq!(catalogue.registry().names().len(), SHIPPED.len(), "a shipped variant failed to load");
        for (name, _) in SHIPPED_EVAL {
            let v = catalogue.get(name).expect("variant loads");
            let tuned = catalogue.weights(name).expect("weights loaded");
            // Every weight of the layout is in the file.
            assert_eq!(tuned.entries.len(), 2 * Layout::new(&v).len(), "{name}");
            let (full, hand) = (catalogue.evaluator(&v, EvalMode::Full), Evaluator::hand(&v));
            assert_ne!(full.weights(), hand.weights(), "{name}: tuned weights differ from the derived ones");
        }
    }
}
