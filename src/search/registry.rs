//! The backend registry: one list from which the `Search` UCI option, the CLI's backend
//! names, `engines/engines.json` and the README table are all derived.

use std::sync::LazyLock;

use super::pvs::Pvs;
use super::pvs::skill::{ELO, LIMIT_STRENGTH};
use super::research::alphabeta::AlphaBeta;
use super::research::fsss::{FSSS_RESTART, FsssBackend};
use super::research::mt::{DriverKind, MT_ALPHABETA, MTD_STEP, MtBackend};
use super::research::rollout::{Policy, ROLLOUT_SEED, RolloutBackend};
use super::uct::{HYBRID_OPTIONS, UCT_OPTIONS, UCTH_OPTIONS, UctBackend, Variant};
use super::{Backend, MULTIPV};
use crate::options::OptionDecl;

static MT_OPTIONS: &[&OptionDecl] = &[&MT_ALPHABETA.decl];
static STEP_OPTIONS: &[&OptionDecl] = &[&MT_ALPHABETA.decl, &MTD_STEP.decl];
static ROLLOUT_OPTIONS: &[&OptionDecl] = &[&ROLLOUT_SEED.decl];
static FSSS_OPTIONS: &[&OptionDecl] = &[&FSSS_RESTART.decl];
static PVS_OPTIONS: &[&OptionDecl] = &[&MULTIPV.decl, &LIMIT_STRENGTH.decl, &ELO.decl];

/// A selectable backend.
pub struct BackendInfo {
    /// The UCI `Search` value and CLI name.
    pub name: &'static str,
    /// One line for `uci` users and the README.
    pub description: &'static str,
    /// Options only this backend reads (declared beside its code).
    pub options: &'static [&'static OptionDecl],
    pub make: fn() -> Box<dyn Backend>,
}

/// Every backend, the default first.
pub static BACKENDS: &[BackendInfo] = &[
    BackendInfo {
        name: "pvs",
        description: "iterative-deepening PVS: aspiration windows, shared TT, null move, LMR, Lazy SMP",
        options: PVS_OPTIONS,
        make: || Box::new(Pvs::default()),
    },
    BackendInfo {
        name: "alphabeta",
        description: "plain fail-soft alpha-beta with iterative deepening and quiescence, no TT",
        options: &[],
        make: || Box::new(AlphaBeta),
    },
    BackendInfo {
        name: "mtdf",
        description: "MTD(f): null-window memory-enhanced tests from the previous iteration's value",
        options: MT_OPTIONS,
        make: || Box::new(MtBackend::new(DriverKind::F)),
    },
    BackendInfo {
        name: "sss",
        description: "MT-SSS* (MTD(+INF), SSS-2): null-window tests at the upper bound",
        options: MT_OPTIONS,
        make: || Box::new(MtBackend::new(DriverKind::Sss)),
    },
    BackendInfo {
        name: "dual",
        description: "MT-DUAL* (MTD(-INF)): null-window tests at the lower bound",
        options: MT_OPTIONS,
        make: || Box::new(MtBackend::new(DriverKind::Dual)),
    },
    BackendInfo {
        name: "mtd-step",
        description: "stepwise MTD (SSS-4): tests MtdStep below the upper bound",
        options: STEP_OPTIONS,
        make: || Box::new(MtBackend::new(DriverKind::Step)),
    },
    BackendInfo {
        name: "rollout-ab",
        description: "rollout family, leftmost candidate: alphabeta2 as rollouts",
        options: &[],
        make: || Box::new(RolloutBackend::new(Policy::Left)),
    },
    BackendInfo {
        name: "rollout-sss",
        description: "rollout family, largest upper bound: MT-SSS* as rollouts",
        options: &[],
        make: || Box::new(RolloutBackend::new(Policy::Sss)),
    },
    BackendInfo {
        name: "rollout-random",
        description: "rollout family, seeded random candidate",
        options: ROLLOUT_OPTIONS,
        make: || Box::new(RolloutBackend::new(Policy::Random)),
    },
    BackendInfo {
        name: "rollout-uct",
        description: "rollout family, largest upper bound with ties broken by UCT score",
        options: &[],
        make: || Box::new(RolloutBackend::new(Policy::Uct)),
    },
    BackendInfo {
        name: "fsss",
        description: "FSSS-Minimax: best-first rollouts with top-down windows and bottom-up bounds",
        options: FSSS_OPTIONS,
        make: || Box::new(FsssBackend::default()),
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
