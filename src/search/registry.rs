//! The backend registry: one list from which the `Search` UCI option, the CLI's backend
//! names, `engines/engines.json` and the README table are all derived.

use std::sync::LazyLock;

use super::Backend;
use super::alphabeta::AlphaBeta;
use super::pvs::Pvs;
use super::uct::{HYBRID_OPTIONS, UCT_OPTIONS, UCTH_OPTIONS, UctBackend, Variant};
use crate::options::OptionDecl;

/// A selectable backend.
pub struct BackendInfo {
    /// The UCI `Search` value and CLI name.
    pub name: &'static str,
    /// One line for `uci` users and the README.
    pub description: &'static str,
    /// Options only this backend reads.
    pub options: &'static [OptionDecl],
    pub make: fn() -> Box<dyn Backend>,
}

/// Every backend, the default first.
pub static BACKENDS: &[BackendInfo] = &[
    BackendInfo {
        name: "pvs",
        description: "iterative-deepening PVS: aspiration windows, shared TT, null move, LMR, Lazy SMP",
        options: &[],
        make: || Box::new(Pvs::default()),
    },
    BackendInfo {
        name: "alphabeta",
        description: "plain fail-soft alpha-beta with iterative deepening and quiescence, no TT",
        options: &[],
        make: || Box::new(AlphaBeta),
    },
    BackendInfo {
        name: "uct",
        description: "UCT: UCB1 selection, one new node per iteration, random playouts, average backups",
        options: UCT_OPTIONS,
        make: || Box::new(UctBackend::new(Variant::Uct)),
    },
    BackendInfo {
        name: "ucth",
        description: "UCTH: UCT with the evaluator (tanh(cp/400)) at new leaves instead of playouts",
        options: UCTH_OPTIONS,
        make: || Box::new(UctBackend::new(Variant::Ucth)),
    },
    BackendInfo {
        name: "uctmaxh",
        description: "UCTMAX-H: UCTH with minimax instead of average backups",
        options: UCTH_OPTIONS,
        make: || Box::new(UctBackend::new(Variant::UctMaxH)),
    },
    BackendInfo {
        name: "uct-hybrid",
        description: "UCTMAX-H until terminal nodes pass HybridThreshold of the tree, then pvs for the rest of the move",
        options: HYBRID_OPTIONS,
        make: || Box::new(UctBackend::new(Variant::Hybrid)),
    },
];

/// The default backend's name.
pub const DEFAULT_BACKEND: &str = "pvs";

/// The backend names in registry order.
pub fn names() -> &'static [&'static str] {
    static NAMES: LazyLock<Vec<&'static str>> =
        LazyLock::new(|| BACKENDS.iter().map(|b| b.name).collect());
    &NAMES
}

/// Looks a backend up by name (case-insensitive).
pub fn find(name: &str) -> Option<&'static BackendInfo> {
    BACKENDS
        .iter()
        .find(|b| b.name.eq_ignore_ascii_case(name.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_backend_is_registered_first() {
        assert_eq!(BACKENDS[0].name, DEFAULT_BACKEND);
        assert!(find("PVS").is_some());
        assert!(find("nope").is_none());
        let mut sorted = names().to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), BACKENDS.len(), "backend names are unique");
    }
}
