//! The UCT family (Understanding Sampling-Based Adversarial Search Methods (2012) §2.4,
//! §3.1–3.2, §4.4): Monte-Carlo tree search with UCB1 selection, as four backends — `uct`
//! (random playouts, average backups), `ucth` (the evaluator at new leaves), `uctmaxh`
//! (minimax backups) and `uct-hybrid` (UCTMAX-H, then `pvs` once terminal positions are
//! common). The tree search itself is written against the game-tree interface, so the
//! experiments run it on synthetic trees too.
//!
//! Values are in [-1, 1] for the side to move; the centipawn mapping is in [`policy`].

pub mod arena;
pub mod backend;
pub mod parallel;
pub mod playout;
pub mod policy;
pub mod search;
pub mod shared;

pub use backend::{UctBackend, Variant};

use crate::options::{Declared, OptionDecl};

pub static UCT_C: Declared<f64> = Declared::float(
    "UCT_C",
    0.4,
    0.0,
    10.0,
    "UCB1 exploration constant for values in [-1, 1] (0.4 is the best for chess in Ramanujan 2012)",
);
pub static PLAYOUT_CAP: Declared<i64> = Declared::spin(
    "PlayoutCap",
    200,
    1,
    10_000,
    "plies after which a random playout stops and counts as a draw",
);
pub static TREE_MEMORY: Declared<i64> = Declared::spin(
    "TreeMemory",
    256,
    1,
    65_536,
    "MB for the UCT tree (all threads); when full, nodes are added only in freed slots",
);
pub static UCT_SOLVER: Declared<bool> = Declared::check(
    "UCT_Solver",
    false,
    "propagate proven wins and losses (mates) through the UCT tree",
);
pub static UCT_QUIESCENCE: Declared<bool> = Declared::check(
    "UCT_Quiescence",
    false,
    "value new UCTH/UCTMAX-H leaves by quiescence search instead of the static evaluator",
);
pub static HYBRID_THRESHOLD: Declared<f64> = Declared::float(
    "HybridThreshold",
    0.003,
    0.0,
    1000.0,
    "ratio of terminal to other new UCT nodes at which uct-hybrid switches to pvs (0.003 in Ramanujan 2012)",
);

/// The shared tree is the default because it played the better games on the only machine
/// measured so far (2 cores, `ucth`, 2 threads against 1 and against root parallelism;
/// the README has the figures), although root parallelism iterates faster there:
/// provisional until the 16-core measurements.
pub static UCT_PARALLEL: Declared<&'static str> = Declared::combo(
    "UCT_Parallel",
    "tree",
    &["tree", "root"],
    "with Threads > 1: one tree shared by all threads with virtual loss (tree), or one tree per thread merged by move (root)",
);

/// Options of `uct`.
pub static UCT_OPTIONS: &[&OptionDecl] = &[
    &UCT_C.decl,
    &PLAYOUT_CAP.decl,
    &TREE_MEMORY.decl,
    &UCT_SOLVER.decl,
    &UCT_PARALLEL.decl,
];
/// Options of `ucth` and `uctmaxh`.
pub static UCTH_OPTIONS: &[&OptionDecl] = &[
    &UCT_C.decl,
    &TREE_MEMORY.decl,
    &UCT_SOLVER.decl,
    &UCT_QUIESCENCE.decl,
    &UCT_PARALLEL.decl,
];
/// Options of `uct-hybrid`.
pub static HYBRID_OPTIONS: &[&OptionDecl] = &[
    &UCT_C.decl,
    &TREE_MEMORY.decl,
    &UCT_SOLVER.decl,
    &UCT_QUIESCENCE.decl,
    &HYBRID_THRESHOLD.decl,
    &UCT_PARALLEL.decl,
];
