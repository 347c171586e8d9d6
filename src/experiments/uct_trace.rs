//! A move's value over iterations (Understanding Sampling-Based Adversarial Search Methods
//! (2012) §4.3): how a UCT-family search values one root move of a chess position as the
//! iterations go by — UCT rates moves into traps nearly as high as the best move.

use shakmaty::Move;

use crate::board::{Evaluator, Game};
use crate::search::uct::arena::Arena;
use crate::search::uct::search::{Config, ROOT, Searcher};
use crate::tree::ChessTree;
use crate::tree::chess::Estimate;

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
    pub config: Config,
    /// How the chess view values a node when the config asks for the heuristic.
    pub estimate: Estimate,
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
    let mut tree = ChessTree::new(game, eval);
    tree.set_sampling(spec.estimate);
    let root = tree.unbounded_root();
    let mut s = Searcher::new(Arena::with_memory(spec.memory_bytes), spec.config, 1);
    let mut rows = Vec::new();
    if s.prepare(&mut tree, &root, traced).is_some() {
        return rows;
    }
    let every = spec.every.max(1);
    for t in 1..=spec.iterations {
        s.iterate(&mut tree, &root);
        if t.is_multiple_of(every) || t == spec.iterations {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Material, Position};
    use crate::search::uct::playout::{LeafEstimate, Scale};
    use crate::search::uct::search::Backup;
    use shakmaty::CastlingMode;

    #[test]
    fn uct_finds_the_mate_below_a_level_1_trap_and_avoids_the_move() {
        // After 1.f3 e5, 2.g4?? allows Qh4#.
        let fen = "rnbqkbnr/pppp1ppp/8/4p3/8/5P2/PPPPP1PP/RNBQKBNR w KQkq - 0 2";
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let trap = pos.parse_uci("g2g4").unwrap();
        let spec = TraceSpec {
            config: Config {
                c: 0.4,
                backup: Backup::Average,
                solver: false,
                leaf: LeafEstimate::Playout(200),
                scale: Scale::Centipawns,
            },
            estimate: Estimate::Static,
            memory_bytes: 16 << 20,
            iterations: 5_000,
            every: 1_000,
        };
        let rows = trace_move(&Game::new(pos), &Material, trap, &spec);
        assert_eq!(rows.len(), 5);
        let last = rows.last().unwrap();
        assert_eq!(last.iteration, 5_000);
        assert!(last.value < 0.0, "{last:?}");
        assert!(last.visits < last.best_visits / 4, "{last:?}");
        assert_ne!(last.best, Some(trap));
    }
}
