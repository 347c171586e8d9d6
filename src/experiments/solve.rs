//! The research algorithms as one-shot solvers of any game tree: compute the root's exact
//! value with unlimited storage and nothing else. This is what the property tests and the
//! `trees` experiments run; the chess backends wrap the same code in iterative deepening.

use crate::search::research::alphabeta::AlphaBetaSearch;
use crate::search::research::bounds::MapBounds;
use crate::search::research::fsss::Fsss;
use crate::search::research::mt::{Driver, MtSearch, TestProcedure};
use crate::search::research::rollout::{Policy, Rollouts};
use crate::tree::GameTree;
use crate::value::{INFINITY, Value};

/// One algorithm with its settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// Plain fail-soft alpha-beta, no storage.
    AlphaBeta,
    /// One full-window pass of the double-bound `alphabeta2` on empty storage.
    AlphaBeta2,
    /// An MT driver on a test procedure.
    Mt(Driver, TestProcedure),
    /// A rollout policy (the seed matters for the random policy only).
    Rollout(Policy, u64),
    /// FSSS-Minimax, with or without the restart refinement.
    Fsss { restart: bool },
}

/// The names `trees` accepts, one per algorithm.
pub const NAMES: &[&str] = &[
    "alphabeta",
    "alphabeta2",
    "sss",
    "sss-classic",
    "dual",
    "dual-classic",
    "mtdf",
    "mtdf-classic",
    "mtd-step",
    "rollout-ab",
    "rollout-sss",
    "rollout-random",
    "rollout-uct",
    "fsss",
    "fsss-restart",
];

impl Algorithm {
    /// Parses one of [`NAMES`]; MTD(f) starts from 0 and `mtd-step` steps by `step`.
    pub fn parse(name: &str, seed: u64, step: Value) -> Option<Self> {
        use Algorithm::*;
        use TestProcedure::*;
        Some(match name {
            "alphabeta" => AlphaBeta,
            "alphabeta2" => AlphaBeta2,
            "sss" => Mt(Driver::Sss, Double),
            "sss-classic" => Mt(Driver::Sss, Classic),
            "dual" => Mt(Driver::Dual, Double),
            "dual-classic" => Mt(Driver::Dual, Classic),
            "mtdf" => Mt(Driver::F(0), Double),
            "mtdf-classic" => Mt(Driver::F(0), Classic),
            "mtd-step" => Mt(Driver::Step(step), Double),
            "rollout-ab" => Rollout(Policy::Left, seed),
            "rollout-sss" => Rollout(Policy::Sss, seed),
            "rollout-random" => Rollout(Policy::Random, seed),
            "rollout-uct" => Rollout(Policy::Uct, seed),
            "fsss" => Fsss { restart: false },
            "fsss-restart" => Fsss { restart: true },
            _ => return None,
        })
    }
}

/// Solves `root` exactly with `algorithm`, leaving its bounds in `store`.
pub fn solve<T: GameTree>(
    algorithm: Algorithm,
    tree: &mut T,
    root: &T::Node,
    store: &mut MapBounds,
) -> Value {
    let mut never = |_: u64| false;
    match algorithm {
        Algorithm::AlphaBeta => {
            AlphaBetaSearch::new(&mut never).run(tree, root, -INFINITY, INFINITY)
        }
        Algorithm::AlphaBeta2 => {
            let mut s = MtSearch::new(store, TestProcedure::Double, &mut never);
            s.double(tree, root, -INFINITY, INFINITY, tree.ply(root)).lo
        }
        Algorithm::Mt(driver, procedure) => {
            let mut s = MtSearch::new(store, procedure, &mut never);
            s.solve(tree, root, driver).map_or(0, |o| o.value)
        }
        Algorithm::Rollout(policy, seed) => {
            Rollouts::new(store, policy, seed, usize::MAX, &mut never)
                .solve(tree, root)
                .unwrap_or_default()
        }
        Algorithm::Fsss { restart } => Fsss::new(store, restart, &mut never)
            .solve(tree, root)
            .unwrap_or_default(),
    }
}
