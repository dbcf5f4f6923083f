//! The engine's catalogue: every loaded variant paired with its evaluation
//! data, the tuned weights of its `NAME.eval` file and its network
//! (`NAME.nnue`), where it has them.
//! The rules know nothing of evaluation; this is where the two meet, above
//! both, so that the engine, `bench` and `tune` ask one place for a variant's
//! evaluator.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::board::registry::Registry;
use crate::eval::nnue::{check_fits, Network};
use crate::eval::{parse_eval_file, EvalMode, Evaluator, Layout, TunedWeights};
use crate::rules::variant::{Variant, VariantError, VariantErrorKind};

/// The shipped variants' tuned evaluation weights (`menagerie tune`), by variant name.
pub const SHIPPED_EVAL: &[(&str, &str)] = &[
    ("chess", include_str!("../../variants/chess.eval")),
    ("capablanca", include_str!("../../variants/capablanca.eval")),
    ("relocation", include_str!("../../variants/relocation.eval")),
    ("caparandom", include_str!("../../variants/caparandom.eval")),
    ("clockwork", include_str!("../../variants/clockwork.eval")),
    ("clash1", include_str!("../../variants/clash1.eval")),
    ("clash2", include_str!("../../variants/clash2.eval")),
    ("clash3", include_str!("../../variants/clash3.eval")),
    ("clash4", include_str!("../../variants/clash4.eval")),
    ("clash5", include_str!("../../variants/clash5.eval")),
];

/// The shipped networks (`menagerie train`), each with the variants it
/// plays (one network serves variants of the same pieces and board).
pub const SHIPPED_NNUE: &[(&[&str], &[u8])] = &[
    (&["capablanca", "caparandom", "relocation"], include_bytes!("../../variants/capablanca.nnue")),
    (&["clockwork"], include_bytes!("../../variants/clockwork.nnue")),
    (&["clash1"], include_bytes!("../../variants/clash1.nnue")),
    (&["clash2"], include_bytes!("../../variants/clash2.nnue")),
    (&["clash3"], include_bytes!("../../variants/clash3.nnue")),
    (&["clash4"], include_bytes!("../../variants/clash4.nnue")),
    (&["clash5"], include_bytes!("../../variants/clash5.nnue")),
    (&["chess"], include_bytes!("../../variants/chess.nnue")),
];

/// The shipped networks once read, by their index in [`SHIPPED_NNUE`]. Each
/// is read the first time a variant asks for it, once per process, so an
/// engine holds only the networks of the variants it plays (`None`: the
/// bytes did not read, which the shipped-network tests rule out).
static SHIPPED_NETWORKS: [OnceLock<Option<Arc<Network>>>; SHIPPED_NNUE.len()] =
    [const { OnceLock::new() }; SHIPPED_NNUE.len()];

/// The shipped network at `index` of [`SHIPPED_NNUE`], read on first use.
fn shipped_network(index: usize) -> Option<&'static Arc<Network>> {
    let (_, bytes) = SHIPPED_NNUE[index];
    SHIPPED_NETWORKS[index].get_or_init(|| crate::eval::nnue::file::read(bytes).ok().map(Arc::new)).as_ref()
}

/// Where a variant's network comes from.
#[derive(Clone)]
enum NetworkSource {
    /// The shipped network at this index of [`SHIPPED_NNUE`], read when first asked for.
    Shipped(usize),
    /// A network read from a file (`.nnue` beside the variant, `EvalFile`).
    Loaded(Arc<Network>),
}

/// The variants and, by variant name, their tuned weights and networks.
#[derive(Clone, Default)]
pub struct Catalogue {
    registry: Registry,
    weights: BTreeMap<String, Arc<TunedWeights>>,
    networks: BTreeMap<String, NetworkSource>,
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
        let mut catalogue = Catalogue { registry, weights: BTreeMap::new(), networks: BTreeMap::new() };
        for (name, text) in SHIPPED_EVAL {
            if let Some(variant) = catalogue.registry.get(name) {
                if let Ok(tuned) = read_weights(&variant, &format!("{name}.eval"), text) {
                    catalogue.weights.insert(variant.name.clone(), Arc::new(tuned));
                }
            }
        }
        for (index, (names, _)) in SHIPPED_NNUE.iter().enumerate() {
            for name in *names {
                if let Some(variant) = catalogue.registry.get(name) {
                    catalogue.networks.insert(variant.name.clone(), NetworkSource::Shipped(index));
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

    /// The network of the variant named `name`, if it has one. A shipped
    /// network is read on the first call and serves the variant only if it
    /// fits it.
    pub fn network(&self, name: &str) -> Option<&Arc<Network>> {
        match self.networks.get(name)? {
            NetworkSource::Loaded(net) => Some(net),
            NetworkSource::Shipped(index) => {
                let net = shipped_network(*index)?;
                let variant = self.registry.get(name)?;
                check_fits(net, &variant).is_ok().then_some(net)
            }
        }
    }

    /// Gives the variant named `name` the network `net` (`EvalFile`), or
    /// takes its network away (`None`). A network that does not fit the
    /// variant is refused and nothing changes.
    pub fn set_network(&mut self, name: &str, net: Option<Arc<Network>>) -> Result<(), String> {
        let variant = self.get(name).ok_or_else(|| format!("unknown variant '{name}'"))?;
        match net {
            Some(net) => {
                check_fits(&net, &variant).map_err(|e| e.to_string())?;
                self.networks.insert(variant.name.clone(), NetworkSource::Loaded(net));
            }
            None => {
                self.networks.remove(&variant.name);
            }
        }
        Ok(())
    }

    /// The evaluator of `variant` with the weights `mode` names: the full
    /// evaluation uses the variant's network where it has one, and its tuned
    /// weights where it has them.
    pub fn evaluator(&self, variant: &Arc<Variant>, mode: EvalMode) -> Evaluator {
        let linear = Evaluator::with_mode(variant, mode, self.weights(&variant.name).map(|w| &**w));
        match (mode, self.network(&variant.name)) {
            (EvalMode::Full | EvalMode::Nnue, Some(net)) => linear.with_network(Arc::clone(net)),
            _ => linear,
        }
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
        self.commit(registry, [(variant.name.clone(), tuned, None)]);
        Ok(variant)
    }

    /// Loads one `.var` file and the `.eval` file beside it, if any.
    pub fn load_file(&mut self, path: &Path) -> Result<Arc<Variant>, Vec<VariantError>> {
        let names = self.load_path(path)?;
        let name = names.first().cloned().unwrap_or_default();
        self.get(&name).ok_or_else(Vec::new)
    }

    /// Loads every `.var` file of a directory (or a single file), each with
    /// the `.eval` and `.nnue` files beside it: `NAME.eval` for the variant's
    /// name, or the `.var` file's own stem with `.eval` (and so for `.nnue`).
    /// Returns the names loaded; on error nothing changes.
    pub fn load_path(&mut self, path: &Path) -> Result<Vec<String>, Vec<VariantError>> {
        let mut registry = self.registry.clone();
        let loaded = registry.load_path(path)?;
        let mut found = Vec::with_capacity(loaded.len());
        for (name, file) in &loaded {
            let variant = registry.get(name).ok_or_else(Vec::new)?;
            let tuned = match eval_beside(name, file) {
                Some((eval_file, eval_text)) => Some(read_weights(&variant, &eval_file, &eval_text)?),
                None => None,
            };
            let net = match network_beside(name, file) {
                Some((net_file, bytes)) => Some(read_network(&variant, &net_file, &bytes)?),
                None => None,
            };
            found.push((name.clone(), tuned, net));
        }
        self.commit(registry, found);
        Ok(loaded.into_iter().map(|(name, _)| name).collect())
    }

    /// Takes `registry` and the weights and networks read for the variants
    /// just loaded (a reloaded variant without an `.eval` or `.nnue` file
    /// loses its old ones).
    fn commit(
        &mut self,
        registry: Registry,
        loaded: impl IntoIterator<Item = (String, Option<TunedWeights>, Option<Network>)>,
    ) {
        self.registry = registry;
        for (name, tuned, net) in loaded {
            match tuned {
                Some(tuned) => self.weights.insert(name.clone(), Arc::new(tuned)),
                None => self.weights.remove(&name),
            };
            match net {
                Some(net) => self.networks.insert(name, NetworkSource::Loaded(Arc::new(net))),
                None => self.networks.remove(&name),
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

/// Reads a `.nnue` file's bytes and checks that the network fits `variant`.
fn read_network(variant: &Variant, file: &str, bytes: &[u8]) -> Result<Network, Vec<VariantError>> {
    crate::eval::nnue::file::read(bytes)
        .and_then(|net| check_fits(&net, variant).map(|()| net))
        .map_err(|e| vec![VariantError::whole_file(file, VariantErrorKind::BadNetwork, e.to_string())])
}

/// The `.eval` file beside the `.var` file `var_file` of the variant `name`.
fn eval_beside(name: &str, var_file: &Path) -> Option<(String, String)> {
    beside(name, var_file, "eval", |path| std::fs::read_to_string(path).ok())
}

/// The `.nnue` file beside the `.var` file `var_file` of the variant `name`.
fn network_beside(name: &str, var_file: &Path) -> Option<(String, Vec<u8>)> {
    beside(name, var_file, "nnue", |path| std::fs::read(path).ok())
}

/// The file `NAME.EXTENSION` beside `var_file`, for the variant's name or
/// the `.var` file's own stem, read by `read`.
fn beside<T>(name: &str, var_file: &Path, extension: &str, read: impl Fn(&Path) -> Option<T>) -> Option<(String, T)> {
    let stem = var_file.file_stem().map(|s| s.to_string_lossy().to_string());
    [Some(name.to_string()), stem].into_iter().flatten().find_map(|n| {
        let candidate: PathBuf = var_file.with_file_name(format!("{n}.{extension}"));
        let contents = read(&candidate)?;
        Some((candidate.display().to_string(), contents))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::registry::SHIPPED;

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

    #[test]
    fn every_shipped_network_plays_each_variant_it_names() {
        let catalogue = Catalogue::builtin();
        for (names, bytes) in SHIPPED_NNUE {
            let net = crate::eval::nnue::file::read(bytes).expect("a shipped network reads");
            for name in *names {
                let v = catalogue.get(name).expect("the variant ships");
                assert!(check_fits(&net, &v).is_ok(), "{name}");
                assert_eq!(catalogue.network(name).map(|n| &**n), Some(&net), "{name}: its network is loaded");
                // `full` plays with it, `linear` without.
                assert!(catalogue.evaluator(&v, EvalMode::Full).network().is_some(), "{name}");
                assert!(catalogue.evaluator(&v, EvalMode::Linear).network().is_none(), "{name}");
            }
        }
        // Variants without a network keep the linear evaluation under `full`.
        for name in catalogue.registry().names() {
            if !SHIPPED_NNUE.iter().any(|(names, _)| names.contains(&name.as_str())) {
                let v = catalogue.get(&name).expect("listed");
                assert!(catalogue.evaluator(&v, EvalMode::Full).network().is_none(), "{name}");
            }
        }
    }

    #[test]
    fn a_shipped_network_is_read_once_and_shared() {
        // Catalogues (one per engine, one per `bench` run) and the variants
        // of one network share one copy: an engine holds each network once.
        let (first, second) = (Catalogue::builtin(), Catalogue::builtin());
        let capablanca = first.network("capablanca").expect("ships a network");
        for name in ["capablanca", "relocation", "caparandom"] {
            let net = second.network(name).expect("ships a network");
            assert!(Arc::ptr_eq(capablanca, net), "{name}: one copy");
        }
        let chess = first.network("chess").expect("ships a network");
        assert!(!Arc::ptr_eq(capablanca, chess), "each network its own");
        // A clone asks the same copies.
        assert!(Arc::ptr_eq(first.clone().network("chess").expect("ships"), chess));
    }
}
