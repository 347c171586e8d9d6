//! The UCT family (thesis §2.4, §3.1–3.2, §4.4; ALGORITHMS.md "UCT family"): Monte-Carlo
//! tree search with UCB1 selection, as four backends — `uct` (random playouts, average
//! backups), `ucth` (the evaluator at new leaves), `uctmaxh` (minimax backups) and
//! `uct-hybrid` (UCTMAX-H, then `pvs` once terminal positions are common) — plus the
//! experiments of thesis §4.3 (a move's value over iterations) and §5.2 (critical levels).
//!
//! Values are in [-1, 1] for the side to move; the centipawn mapping is in [`policy`].

pub mod arena;
pub mod backend;
pub mod domain;
pub mod experiment;
pub mod playout;
pub mod policy;
pub mod search;

pub use backend::{UctBackend, Variant};

use crate::options::{OptionDecl, OptionKind};

pub const OPT_C: &str = "UCT_C";
pub const OPT_PLAYOUT_CAP: &str = "PlayoutCap";
pub const OPT_MEMORY: &str = "TreeMemory";
pub const OPT_SOLVER: &str = "UCT_Solver";
pub const OPT_QUIESCENCE: &str = "UCT_Quiescence";
pub const OPT_THRESHOLD: &str = "HybridThreshold";

const C: OptionDecl = OptionDecl {
    name: OPT_C,
    kind: OptionKind::Float {
        default: 0.4,
        min: 0.0,
        max: 10.0,
    },
    help: "UCB1 exploration constant for values in [-1, 1] (thesis: 0.4 for chess)",
};
const PLAYOUT_CAP: OptionDecl = OptionDecl {
    name: OPT_PLAYOUT_CAP,
    kind: OptionKind::Spin {
        default: 200,
        min: 1,
        max: 10_000,
    },
    help: "plies after which a random playout stops and counts as a draw",
};
const MEMORY: OptionDecl = OptionDecl {
    name: OPT_MEMORY,
    kind: OptionKind::Spin {
        default: 256,
        min: 1,
        max: 65_536,
    },
    help: "MB for the UCT tree (all threads); when full, no new nodes are added",
};
const SOLVER: OptionDecl = OptionDecl {
    name: OPT_SOLVER,
    kind: OptionKind::Check { default: false },
    help: "propagate proven wins and losses (mates) through the UCT tree",
};
const QUIESCENCE: OptionDecl = OptionDecl {
    name: OPT_QUIESCENCE,
    kind: OptionKind::Check { default: false },
    help: "value new UCTH/UCTMAX-H leaves by quiescence search instead of the static evaluator",
};
const THRESHOLD: OptionDecl = OptionDecl {
    name: OPT_THRESHOLD,
    kind: OptionKind::Float {
        default: 0.003,
        min: 0.0,
        max: 1000.0,
    },
    help: "ratio of terminal to other new UCT nodes at which uct-hybrid switches to pvs (thesis: 0.003)",
};

/// Options of `uct`.
pub static UCT_OPTIONS: &[OptionDecl] = &[C, PLAYOUT_CAP, MEMORY, SOLVER];
/// Options of `ucth` and `uctmaxh`.
pub static UCTH_OPTIONS: &[OptionDecl] = &[C, MEMORY, SOLVER, QUIESCENCE];
/// Options of `uct-hybrid`.
pub static HYBRID_OPTIONS: &[OptionDecl] = &[C, MEMORY, SOLVER, QUIESCENCE, THRESHOLD];
