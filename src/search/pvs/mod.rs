//! `pvs`, the default backend: iterative deepening over principal variation search (the
//! null-window refinement of alpha-beta; see "Alpha–beta pruning") with aspiration
//! windows, a transposition table, quiescence search, and the usual selectivity —
//! null-move pruning, reverse futility pruning, late-move reductions, check extension.
//! Several threads search the same tree and share only the table (Lazy SMP); the main
//! thread's result is played.
//!
//! The table and the move-ordering memory belong to the backend: no other backend reads
//! them. `Hash` sizes the table when the options are applied ([`Backend::configure`]).

mod ordering;
pub mod params;
mod qsearch;
mod search;
pub mod tt;

use ordering::Heuristics;
use search::Worker;
use tt::TranspositionTable;

use super::{Backend, ConfigError, SearchRequest, SearchResult, hash_mb, threads};
use crate::options::Options;

/// The `pvs` backend. Keeps its table and move-ordering memory between the moves of a game.
pub struct Pvs {
    heuristics: Vec<Heuristics>,
    tt: TranspositionTable,
}

impl Default for Pvs {
    /// A backend with the smallest table; [`Backend::configure`] gives it its size.
    fn default() -> Self {
        Pvs {
            heuristics: Vec::new(),
            tt: TranspositionTable::minimal(),
        }
    }
}

impl Backend for Pvs {
    fn search(&mut self, req: &SearchRequest<'_>) -> SearchResult {
        self.heuristics
            .resize_with(threads(req.options), Heuristics::default);
        for h in &mut self.heuristics {
            h.age();
        }
        self.tt.new_search();
        let tt = &self.tt;
        let (main, helpers) = self.heuristics.split_at_mut(1);
        let mut result = SearchResult::default();
        crossbeam::scope(|scope| {
            for (i, heuristics) in helpers.iter_mut().enumerate() {
                scope.spawn(move |_| {
                    Worker::new(req, tt, heuristics, i + 1).iterate();
                });
            }
            result = Worker::new(req, tt, &mut main[0], 0).iterate();
            // Helpers stop with the main thread.
            req.control.finish();
        })
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
        result.nodes = req.control.nodes();
        result
    }

    fn new_game(&mut self) {
        self.tt.clear();
        for h in &mut self.heuristics {
            h.clear();
        }
    }

    fn configure(&mut self, options: &Options) -> Result<(), ConfigError> {
        let mb = hash_mb(options);
        if self.tt.size_mb() != mb {
            self.tt = TranspositionTable::new(mb)
                .map_err(|e| ConfigError(format!("{e}; Hash unchanged")))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
