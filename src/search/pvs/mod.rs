//! `pvs`, the default backend: iterative deepening over principal variation search (the
//! null-window refinement of alpha-beta; see "Alpha–beta pruning") with aspiration
//! windows, a transposition table, quiescence search, and the usual selectivity —
//! null-move pruning, reverse futility pruning, razoring, late-move reductions, check
//! extension.
//! Several threads search the same tree and share the table (Lazy SMP); the main
//! thread's result is played unless a helper completed a deeper iteration at no lower
//! value (`threads`).
//!
//! The table and the move-ordering memory belong to the backend: no other backend reads
//! them. `Hash` sizes the table when the options are applied ([`Backend::configure`]).

mod huge_pages;
mod ordering;
pub mod params;
mod qsearch;
mod search;
pub mod skill;
mod threads;
pub mod tt;

use ordering::Heuristics;
use search::Worker;
use threads::Threads;
use tt::TranspositionTable;

use super::control::{Finally, contained};
use super::{Backend, ConfigError, SearchRequest, SearchResult, hash_mb, multipv, threads};
use crate::options::Options;
use crate::search::info::Info;
use crate::tree::rng::Rng;
use crate::value::Bound;
use skill::{SKILL_LINES, Skill};

/// The `pvs` backend. Keeps its table and move-ordering memory between the moves of a game.
pub struct Pvs {
    heuristics: Vec<Heuristics>,
    /// The histories have been aged since the last search (see [`Pvs::age`]).
    aged: bool,
    tt: TranspositionTable,
    /// The limited-strength choices; seeded from the clock, so two games differ.
    rng: Rng,
}

impl Default for Pvs {
    /// A backend with the smallest table; [`Backend::configure`] gives it its size.
    fn default() -> Self {
        Pvs {
            heuristics: Vec::new(),
            aged: true,
            tt: TranspositionTable::minimal(),
            rng: Rng::new(clock_seed()),
        }
    }
}

impl Backend for Pvs {
    fn search(&mut self, req: &SearchRequest<'_>) -> SearchResult {
        let skill = Skill::from_options(req.options);
        // A weaker player thinks alone: one thread, so the node budget means the same
        // strength on every machine.
        let threads = if skill.is_some() {
            1
        } else {
            threads(req.options)
        };
        self.age();
        self.aged = false;
        self.heuristics.resize_with(threads, Heuristics::touched);
        self.tt.new_search();
        let tt = &self.tt;
        let lines = multipv(req.options).max(skill.map_or(1, |_| SKILL_LINES));
        let node_cap = skill.map_or(u64::MAX, |s| s.nodes);
        let (main, helpers) = self.heuristics.split_at_mut(1);
        let board = Threads::new(threads);
        let board = &board;
        let mut result = SearchResult::default();
        crossbeam::scope(|scope| {
            // Helpers stop with the main thread.
            let _helpers_stop = Finally(|| req.control.finish());
            for (i, heuristics) in helpers.iter_mut().enumerate() {
                scope.spawn(move |_| {
                    contained("pvs", || {
                        Worker::new(req, tt, board, heuristics, i + 1, 1, u64::MAX).iterate()
                    });
                });
            }
            let mut worker = Worker::new(req, tt, board, &mut main[0], 0, lines, node_cap);
            result = worker.iterate();
            if let Some(skill) = skill {
                let values: Vec<_> = worker.lines().iter().map(|l| l.value).collect();
                let pick = skill.choose(&values, &mut self.rng);
                log::debug!("pvs: skill chose line {pick} of {values:?}");
                if let Some(line) = worker.lines().get(pick) {
                    result.value = line.value;
                    result.best = line.pv.first().copied();
                    result.ponder = line.pv.get(1).copied();
                }
            }
        })
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
        if lines == 1 {
            self.play_deeper_helper(req, board, &mut result);
        }
        result.nodes = req.control.nodes();
        result
    }

    fn new_game(&mut self) {
        self.tt.clear();
        for h in &mut self.heuristics {
            h.clear();
        }
        self.aged = true;
    }

    fn between_searches(&mut self) {
        self.age();
    }

    fn configure(&mut self, options: &Options) -> Result<(), ConfigError> {
        let mb = hash_mb(options);
        if self.tt.size_mb() != mb {
            self.tt = TranspositionTable::new(mb)
                .map_err(|e| ConfigError(format!("{e}; Hash unchanged")))?;
        }
        // Each thread's move-ordering memory is made now, between searches, rather than
        // by the first search that needs it, on the clock.
        self.heuristics
            .resize_with(threads(options), Heuristics::touched);
        Ok(())
    }
}

impl Pvs {
    /// Damps the histories of the last search, once between two searches. A pass over
    /// megabytes of tables (a fifth of a millisecond here), so the engine runs it after
    /// `bestmove` rather than on the next move's clock; a search that finds it not done
    /// does it first. Fresh and cleared tables need none.
    fn age(&mut self) {
        if !self.aged {
            for h in &mut self.heuristics {
                h.age();
            }
            self.aged = true;
        }
    }

    /// Plays a helper's deeper (or mating) iteration in place of the main thread's
    /// result, and reports its line so the GUI shows what is played.
    fn play_deeper_helper(
        &self,
        req: &SearchRequest<'_>,
        board: &Threads,
        result: &mut SearchResult,
    ) {
        let Some(f) = board.better_than(result.depth as i32, result.value) else {
            return;
        };
        log::debug!(
            "pvs: playing a helper's depth {} over the main thread's {}",
            f.depth,
            result.depth
        );
        result.best = f.line.pv.first().copied();
        result.ponder = f.line.pv.get(1).copied();
        result.value = f.line.value;
        result.depth = f.depth as u32;
        req.sink.info(&Info {
            depth: result.depth,
            multipv: 1,
            seldepth: f.seldepth,
            score: f.line.value,
            bound: Bound::Exact,
            nodes: req.control.nodes(),
            time: req.control.elapsed(),
            hashfull: Some(self.tt.hashfull()),
            tbhits: req.tablebases.map(|_| req.control.tb_hits()),
            pv: req.game.position().uci_line(&f.line.pv),
            wdl: None,
        });
    }
}

/// A seed that differs from run to run.
fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

#[cfg(test)]
mod tests;
