//! The UCT family's experiments as library functions (the CLI only prints them):
//! - thesis §5.2: iterations until the root value of a tree with critical levels stays at
//!   or above τ = 0.7 (the τ-convergence point), for UCT and UCTMAX-H;
//! - thesis §4.3: the value UCT gives one root move of a chess position, iteration by
//!   iteration (for trap moves, which UCT rates nearly as high as the best move).

use shakmaty::Move;

use super::arena::Arena;
use super::domain::{ChessDomain, LeafEstimate, TreeDomain};
use super::playout::Rng;
use super::search::{Config, ROOT, Searcher};
use crate::board::{Evaluator, Game};
use crate::tree::critical::CriticalTree;

/// The τ-convergence point of one search: the first iteration from which the root value
/// stays at or above `tau` until `max_iterations`; `None` if it is below at the end.
pub fn convergence_point(
    tree: CriticalTree,
    config: Config,
    tau: f32,
    max_iterations: u64,
    seed: u64,
) -> Option<u64> {
    let root = tree.root();
    let mut domain = TreeDomain::new(tree, root, 1.0);
    let bytes = (max_iterations as usize + 2) * Arena::<u32>::node_size();
    let mut s = Searcher::new(Arena::with_memory(bytes), config, seed);
    s.prepare(&mut domain, 0);
    let mut last_below = 0;
    for t in 1..=max_iterations {
        s.iterate(&mut domain);
        if s.root_value() < tau {
            last_below = t;
        }
    }
    (last_below < max_iterations).then_some(last_below + 1)
}

/// One row of a move's trace.
#[derive(Debug, Clone, PartialEq)]
pub struct TraceRow {
    pub iteration: u64,
    /// The traced move: visits and value for the side to move (0 visits: not tried yet).
    pub visits: u32,
    pub value: f32,
    /// The most visited root move at this point, with its visits and value.
    pub best: Option<Move>,
    pub best_visits: u32,
    pub best_value: f32,
    /// The root's value for the side to move.
    pub root_value: f32,
}

/// How to run a traced search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TraceSpec {
    pub leaf: LeafEstimate,
    pub config: Config,
    pub memory_bytes: usize,
    pub iterations: u64,
    /// Record a row every this many iterations.
    pub every: u64,
}

/// Runs one single-threaded UCT-family search on `game`'s position and records the
/// statistics of the root move `traced` every `spec.every` iterations.
pub fn trace_move(
    game: &Game,
    eval: &dyn Evaluator,
    traced: Move,
    spec: &TraceSpec,
) -> Vec<TraceRow> {
    let (iterations, every) = (spec.iterations, spec.every);
    let mut domain = ChessDomain::new(game, eval, spec.leaf);
    let mut s = Searcher::new(Arena::with_memory(spec.memory_bytes), spec.config, 1);
    let mut rows = Vec::new();
    if s.prepare(&mut domain, traced).is_some() {
        return rows;
    }
    let every = every.max(1);
    for t in 1..=iterations {
        s.iterate(&mut domain);
        if t.is_multiple_of(every) || t == iterations {
            let stats = |mv: Move| {
                s.arena
                    .child_by_move(ROOT, mv)
                    .map_or((0, 0.0), |c| (s.arena[c].visits, s.arena[c].value))
            };
            let (visits, value) = stats(traced);
            let best = s.best_move();
            let (best_visits, best_value) = best.map_or((0, 0.0), stats);
            rows.push(TraceRow {
                iteration: t,
                visits,
                value,
                best,
                best_visits,
                best_value,
                root_value: s.root_value(),
            });
        }
    }
    rows
}

/// The median of some values (`None` for none).
pub fn median(values: &mut [u64]) -> Option<u64> {
    values.sort_unstable();
    values.get(values.len() / 2).copied()
}

/// A seed per run, well mixed.
pub fn run_seed(base: u64, run: u64) -> u64 {
    Rng::new(base ^ run.wrapping_mul(0x9E37_79B9_7F4A_7C15)).next_u64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::uct::search::Backup;

    #[test]
    fn uct_converges_on_a_shallow_critical_tree_and_later_on_a_deeper_one() {
        let cfg = Config {
            c: 0.4,
            backup: Backup::Average,
            solver: false,
        };
        let shallow = CriticalTree::new(10, &[0, 2], 1).unwrap();
        let deep = CriticalTree::new(10, &[0, 8], 1).unwrap();
        let a = convergence_point(shallow, cfg, 0.7, 100_000, 1).unwrap();
        let b = convergence_point(deep, cfg, 0.7, 100_000, 1).unwrap();
        assert!(a < b, "{a} vs {b}");
    }
}
