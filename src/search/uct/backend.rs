//! The UCT family as engine backends: `uct`, `ucth`, `uctmaxh` and `uct-hybrid`
//! (Understanding Sampling-Based Adversarial Search Methods (2012) §3.1–3.2, §4.4). This file is the engine side
//! — options, threads, limits, reports, tree reuse, the hand-over to `pvs`; the tree
//! search itself is in [`super::search`].
//!
//! Threads (`UCT_Parallel`): with `tree`, all threads search one shared tree with virtual
//! loss ([`super::parallel`]); with `root`, each thread grows its own tree (its share of
//! `TreeMemory`) with its own move-order salt and random stream, and at the end the root
//! children's visits are summed by move. One thread always searches its own tree: the
//! same search either way, without atomics.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use shakmaty::Move;

use super::arena::{Arena, Proof};
use super::parallel::{SLOT_BLOCK, SharedSearcher, SharedView};
use super::playout::{LeafEstimate, Scale};
use super::policy::to_cp;
use super::search::{Backup, Config, RootMove, Searcher, TreeSearch};
use super::shared::SharedArena;
use super::{
    HYBRID_THRESHOLD, PLAYOUT_CAP, TREE_MEMORY, UCT_C, UCT_PARALLEL, UCT_QUIESCENCE, UCT_SOLVER,
};
use crate::options::Options;
use crate::search::control::{Finally, Poller, contained};
use crate::search::info::Info;
use crate::search::pvs::Pvs;
use crate::search::{Backend, ConfigError, SearchRequest, SearchResult, threads};
use crate::tree::chess::Estimate;
use crate::tree::{ChessNode, ChessTree};
use crate::value::{Bound, MAX_PLY, Value, mate_in, mated_in};

/// Which member of the family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    /// Random playouts, average backups.
    Uct,
    /// Evaluator at the new leaf, average backups.
    Ucth,
    /// Evaluator at the new leaf, minimax backups.
    UctMaxH,
    /// UCTMAX-H until terminal nodes become common, then `pvs`.
    Hybrid,
}

/// Iterations between looks at the clock when no node limit is set: a playout of a few
/// hundred plies takes ~50 µs, so 16 of them keep `stop` well inside 10 ms.
const CLOCK_INTERVAL: u64 = 16;
/// Time between two progress reports.
const REPORT_EVERY: Duration = Duration::from_secs(1);
/// The hybrid judges the terminal share only over at least this many new nodes.
const HYBRID_MIN_NODES: u64 = 256;

/// `go depth N` ends when the tree is N plies deep or after this many iterations times
/// 2^(N−1), whichever comes first: the tree's depth grows with the logarithm of the
/// iterations, and slowest with random playouts, so depth alone would not bound the time
/// the way it does for the other backends (depth 7 on a middlegame took over a minute).
const ITERATIONS_PER_DEPTH: u64 = 1000;

/// The iteration budget of `go depth depth` (each thread).
pub fn depth_iterations(depth: usize) -> u64 {
    ITERATIONS_PER_DEPTH << depth.clamp(1, 40).saturating_sub(1)
}

/// The settings a tree was grown under: a kept tree is reused only under the same.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Settings {
    config: Config,
    /// How the chess view values a node for the heuristic estimate.
    estimate: Estimate,
}

/// A tree kept for the next `go` of the same game.
struct Saved<A> {
    arena: A,
    /// The game's keys when the tree's root was the current position.
    keys: Vec<u64>,
    settings: Settings,
}

type SavedTree = Saved<Arena<Move>>;

/// Legal moves in a chess position, at most.
const MAX_MOVES: usize = 218;

/// Room the shared tree needs: the root and one child per legal move, so that the search
/// can try every root move.
const MIN_SHARED_NODES: usize = MAX_MOVES + 1;

/// Slots a thread's own tree needs for the same (root parallelism): the root, the runs
/// its children outgrow on the way (1, 2, 4, ... 128 slots) and the last run of 218.
const MIN_SLOTS_PER_THREAD: usize = 1 + (MAX_MOVES.next_power_of_two() - 1) + MAX_MOVES;

/// The smallest `TreeMemory`, in MB, for `threads` threads: each thread's own tree holds
/// [`MIN_SLOTS_PER_THREAD`] slots (root parallelism), or the shared tree holds
/// [`MIN_SHARED_NODES`] nodes plus the block of slots each thread takes for its new
/// nodes (tree parallelism).
pub fn min_tree_memory_mb(threads: usize, shared: bool) -> usize {
    let bytes = if shared {
        (MIN_SHARED_NODES + threads * SLOT_BLOCK) * SharedArena::<Move>::node_size()
    } else {
        threads * MIN_SLOTS_PER_THREAD * Arena::<Move>::node_size()
    };
    bytes.div_ceil(1 << 20).max(1)
}

/// Whether this search shares one tree between its threads.
fn shares_tree(options: &Options) -> bool {
    threads(options) > 1 && options.get(&UCT_PARALLEL) == "tree"
}

/// A UCT-family backend.
pub struct UctBackend {
    variant: Variant,
    /// One tree per thread, from the last search in root parallelism (or with one thread).
    saved: Vec<Option<SavedTree>>,
    /// The shared tree of the last search in tree parallelism.
    shared: Option<Saved<SharedArena<Move>>>,
    pvs: Pvs,
}

impl UctBackend {
    pub fn new(variant: Variant) -> Self {
        UctBackend {
            variant,
            saved: Vec::new(),
            shared: None,
            pvs: Pvs::default(),
        }
    }

    /// Visits at the root of the kept shared tree, or else of the main thread's kept tree
    /// (tests of tree reuse).
    pub fn kept_root_visits(&self) -> Option<u32> {
        if let Some(saved) = &self.shared {
            return (!saved.arena.is_empty()).then(|| saved.arena.node(0).visits());
        }
        let saved = self.saved.first()?.as_ref()?;
        (!saved.arena.is_empty()).then(|| saved.arena[0].visits)
    }

    fn settings(&self, req: &SearchRequest<'_>) -> Settings {
        let o = req.options;
        let backup = match self.variant {
            Variant::Uct | Variant::Ucth => Backup::Average,
            Variant::UctMaxH | Variant::Hybrid => Backup::Minimax,
        };
        let leaf = match self.variant {
            Variant::Uct => LeafEstimate::Playout(o.get(&PLAYOUT_CAP) as u32),
            _ => LeafEstimate::Heuristic,
        };
        let estimate = if o.get(&UCT_QUIESCENCE) {
            Estimate::Quiescence
        } else {
            Estimate::Static
        };
        let config = Config {
            c: o.get(&UCT_C) as f32,
            backup,
            // `go mate N` asks for a proof: it turns the solver on.
            solver: o.get(&UCT_SOLVER) || req.limits.mate.is_some(),
            leaf,
            scale: Scale::Centipawns,
        };
        Settings { config, estimate }
    }

    /// The kept tree of thread `t` if it fits this search, re-rooted at the current
    /// position; otherwise an empty arena.
    fn take_tree(
        &mut self,
        t: usize,
        req: &SearchRequest<'_>,
        settings: Settings,
        bytes: usize,
    ) -> Arena<Move> {
        let fresh = || Arena::with_memory(bytes);
        let Some(saved) = self.saved.get_mut(t).and_then(Option::take) else {
            return fresh();
        };
        let fits = saved.arena.max_nodes() == fresh().max_nodes() && !saved.arena.is_empty();
        let tree = &saved.arena;
        match current_node(&saved, req, settings, fits, |n, m| tree.child_by_move(n, m)) {
            Some(0) => saved.arena,
            Some(node) => saved.arena.extract(node),
            None => fresh(),
        }
    }

    /// The kept shared tree if it fits this search, re-rooted at the current position;
    /// otherwise an empty arena.
    fn take_shared(
        &mut self,
        req: &SearchRequest<'_>,
        settings: Settings,
        bytes: usize,
    ) -> SharedArena<Move> {
        let fresh = || SharedArena::with_memory(bytes);
        let Some(saved) = self.shared.take() else {
            return fresh();
        };
        let fits = saved.arena.max_nodes() == fresh().max_nodes() && !saved.arena.is_empty();
        let tree = &saved.arena;
        match current_node(&saved, req, settings, fits, |n, m| tree.child_by_move(n, m)) {
            Some(0) => saved.arena,
            Some(node) => saved.arena.extract(node),
            None => fresh(),
        }
    }
}

/// The node of a kept tree for the current position: the moves played since its root,
/// followed down the tree. `None` when the tree does not fit this search (other
/// settings, `searchmoves`, another game, a move not in the tree).
fn current_node<A>(
    saved: &Saved<A>,
    req: &SearchRequest<'_>,
    settings: Settings,
    fits: bool,
    child_by_move: impl Fn(u32, Move) -> Option<u32>,
) -> Option<u32> {
    let keys = req.game.keys();
    let fits = fits
        && saved.settings == settings
        && req.limits.searchmoves.is_empty()
        && keys.len() >= saved.keys.len()
        && keys[..saved.keys.len()] == saved.keys[..];
    if !fits {
        return None;
    }
    let mut node = 0;
    for &m in &req.game.moves()[saved.keys.len() - 1..] {
        node = child_by_move(node, m)?;
    }
    Some(node)
}

impl UctBackend {
    /// Root parallelism (and one thread): each thread searches a tree of its own.
    /// Returns the merged result and whether the hybrid hands over to `pvs`.
    fn search_own_trees(
        &mut self,
        req: &SearchRequest<'_>,
        settings: Settings,
        threads: usize,
        total_bytes: usize,
    ) -> (SearchResult, bool) {
        let bytes = total_bytes / threads;
        // Trees of threads that no longer exist would hold memory outside the budget.
        self.shared = None;
        self.saved.truncate(threads);
        self.saved.resize_with(threads, || None);
        let mut arenas: Vec<Arena<Move>> = (0..threads)
            .map(|t| self.take_tree(t, req, settings, bytes))
            .collect();
        let threshold = self.threshold(req);
        let helper_arenas = arenas.split_off(1.min(arenas.len()));
        let main_arena = arenas.pop().unwrap_or_else(|| Arena::with_memory(bytes));
        let done = AtomicBool::new(false);
        let mut searchers: Vec<Searcher<ChessTree<'_>>> = Vec::with_capacity(threads);
        let mut switched = false;
        crossbeam::scope(|scope| {
            let done = &done;
            // The helpers stop when the main thread's search ends, however it ends.
            let helpers_stop = Finally(|| done.store(true, Ordering::Relaxed));
            let handles: Vec<_> = helper_arenas
                .into_iter()
                .enumerate()
                .map(|(i, arena)| {
                    scope.spawn(move |_| {
                        contained("uct", || {
                            let searcher = Searcher::new(arena, settings.config, i as u64 + 2);
                            let mut w = Worker::new(req, searcher, settings, i + 1, total_bytes);
                            w.run(done, None);
                            w.searcher
                        })
                    })
                })
                .collect();
            let searcher = Searcher::new(main_arena, settings.config, 1);
            let mut w = Worker::new(req, searcher, settings, 0, total_bytes);
            switched = w.run(done, threshold);
            drop(helpers_stop);
            searchers.push(w.searcher);
            // A helper that panicked left no tree: the others' are merged without it.
            for h in handles {
                match h.join() {
                    Ok(s) => searchers.extend(s),
                    Err(e) => std::panic::resume_unwind(e),
                }
            }
        })
        .unwrap_or_else(|e| std::panic::resume_unwind(e));

        let result = merge(&searchers);
        let keys = req.game.keys().to_vec();
        for (t, s) in searchers.into_iter().enumerate() {
            self.saved[t] = Some(Saved {
                arena: s.into_arena(),
                keys: keys.clone(),
                settings,
            });
        }
        (result, switched)
    }

    /// Tree parallelism: all threads search one shared tree.
    fn search_shared_tree(
        &mut self,
        req: &SearchRequest<'_>,
        settings: Settings,
        threads: usize,
        total_bytes: usize,
    ) -> (SearchResult, bool) {
        self.saved.clear();
        let arena = self.take_shared(req, settings, total_bytes);
        let threshold = self.threshold(req);
        let done = AtomicBool::new(false);
        let mut depth = 0;
        let mut switched = false;
        let mut intact = true;
        crossbeam::scope(|scope| {
            let (done, arena) = (&done, &arena);
            // The helpers stop when the main thread's search ends, however it ends.
            let helpers_stop = Finally(|| done.store(true, Ordering::Relaxed));
            let searcher = SharedSearcher::new(arena, settings.config, 1);
            let mut main = Worker::new(req, searcher, settings, 0, total_bytes);
            // A root without a move is not searched (nor reported), as in `run`.
            let terminal = main.prepare();
            if terminal {
                done.store(true, Ordering::Relaxed);
            }
            let handles: Vec<_> = (1..threads)
                .map(|i| {
                    scope.spawn(move |_| {
                        contained("uct", || {
                            let searcher =
                                SharedSearcher::new(arena, settings.config, i as u64 + 1);
                            let mut w = Worker::new(req, searcher, settings, i, total_bytes);
                            w.prepared = true;
                            w.run(done, None);
                            w.searcher.max_depth
                        })
                    })
                })
                .collect();
            if !terminal {
                switched = main.run(done, threshold);
            }
            drop(helpers_stop);
            depth = main.searcher.max_depth;
            for h in handles {
                match h.join() {
                    Ok(Some(d)) => depth = depth.max(d),
                    Ok(None) => intact = false,
                    Err(e) => std::panic::resume_unwind(e),
                }
            }
        })
        .unwrap_or_else(|e| std::panic::resume_unwind(e));

        let view = SharedView {
            arena: &arena,
            average: settings.config.backup == Backup::Average,
        };
        let best = view.best_move();
        let result = SearchResult {
            best,
            ponder: best.and_then(|m| view.reply_to(m)),
            value: score(view.root_proof(), view.root_value()),
            depth: depth as u32,
            ..SearchResult::default()
        };
        // A helper that panicked mid-descent left its virtual losses in the tree: this
        // move's answer stands, but the next search starts a fresh tree.
        self.shared = intact.then(|| Saved {
            arena,
            keys: req.game.keys().to_vec(),
            settings,
        });
        (result, switched)
    }

    /// `HybridThreshold` for the hybrid, `None` for the others.
    fn threshold(&self, req: &SearchRequest<'_>) -> Option<f32> {
        (self.variant == Variant::Hybrid).then(|| req.options.get(&HYBRID_THRESHOLD) as f32)
    }
}

impl Backend for UctBackend {
    fn search(&mut self, req: &SearchRequest<'_>) -> SearchResult {
        let legal = req.game.position().legal_moves();
        let settings = self.settings(req);
        let threads = threads(req.options);
        let total_bytes = (req.options.get(&TREE_MEMORY).max(1) as usize) << 20;
        let (mut result, switched) = if shares_tree(req.options) {
            self.search_shared_tree(req, settings, threads, total_bytes)
        } else {
            self.search_own_trees(req, settings, threads, total_bytes)
        };
        result.best = result.best.or_else(|| legal.first().copied());
        if switched {
            // Thesis §4.4: minimax for the rest of the move, on whatever time is left.
            result = self.pvs.search(req);
        }
        result.nodes = req.control.nodes();
        result
    }

    fn new_game(&mut self) {
        self.saved.clear();
        self.shared = None;
        self.pvs.new_game();
    }

    fn configure(&mut self, options: &Options) -> Result<(), ConfigError> {
        let (threads, shared) = (threads(options), shares_tree(options));
        let min = min_tree_memory_mb(threads, shared);
        let mb = options.get(&TREE_MEMORY).max(1) as usize;
        if mb < min {
            let (mode, room) = if shared {
                (
                    "tree",
                    format!("{MIN_SHARED_NODES} nodes, and {SLOT_BLOCK} slots per thread"),
                )
            } else {
                ("root", format!("{MIN_SLOTS_PER_THREAD} slots per thread"))
            };
            return Err(ConfigError(format!(
                "TreeMemory {mb} MB is too small for {threads} threads with UCT_Parallel {mode}: the minimum is {min} MB ({room})"
            )));
        }
        // Only the hybrid hands over to `pvs`; the others never size its table.
        if self.variant == Variant::Hybrid {
            self.pvs.configure(options)?;
        }
        Ok(())
    }
}

/// The score a tree reports: a mate once proven, else the root value as centipawns.
fn score(proof: Option<(bool, u8)>, root_value: f32) -> Value {
    match proof {
        Some((true, plies)) => mate_in(plies as usize),
        Some((false, plies)) => mated_in(plies as usize),
        None => to_cp(root_value),
    }
}

/// The result over all threads' trees: root visits summed by move (a proven win in any
/// tree is played at once), the score and depth of the main thread's tree.
fn merge(searchers: &[Searcher<ChessTree<'_>>]) -> SearchResult {
    let Some(main) = searchers.first() else {
        return SearchResult::default();
    };
    let mut result = SearchResult {
        value: score(main.root_proof(), main.root_value()),
        depth: main.max_depth as u32,
        ..SearchResult::default()
    };
    if searchers.len() == 1 {
        let pv = main.pv(2);
        result.best = pv.first().copied();
        result.ponder = pv.get(1).copied();
        return result;
    }
    let all: Vec<RootMove<Move>> = searchers.iter().flat_map(|s| s.root_moves()).collect();
    let won = all
        .iter()
        .filter(|m| m.proof == Proof::Win)
        .min_by_key(|m| m.plies)
        .map(|m| m.mv);
    // (not lost, visits, visit-weighted value) per move.
    let mut totals: Vec<(Move, bool, u64, f64)> = Vec::new();
    for m in &all {
        let i = match totals.iter().position(|t| t.0 == m.mv) {
            Some(i) => i,
            None => {
                totals.push((m.mv, true, 0, 0.0));
                totals.len() - 1
            }
        };
        let t = &mut totals[i];
        t.1 &= m.proof != Proof::Loss;
        t.2 += u64::from(m.visits);
        t.3 += f64::from(m.value) * f64::from(m.visits);
    }
    let key = |t: &(Move, bool, u64, f64)| (t.1, t.2, t.3 / t.2.max(1) as f64);
    result.best = won.or_else(|| {
        totals
            .iter()
            .max_by(|a, b| {
                let (ka, kb) = (key(a), key(b));
                (ka.0, ka.1).cmp(&(kb.0, kb.1)).then(ka.2.total_cmp(&kb.2))
            })
            .map(|t| t.0)
    });
    result.ponder = result.best.and_then(|m| main.reply_to(m));
    result
}

/// One search thread: its tree (its own, or its handle on the shared one), its view of
/// chess, its share of the control.
struct Worker<'a, S> {
    id: usize,
    req: &'a SearchRequest<'a>,
    searcher: S,
    chess: ChessTree<'a>,
    root: ChessNode,
    poller: Poller<'a>,
    total_bytes: usize,
    /// The tree's root is prepared (the shared tree's by the main thread, before the
    /// others start).
    prepared: bool,
    /// Nodes in the tree when the search started.
    start_nodes: usize,
}

impl<'a, S: TreeSearch<ChessTree<'a>>> Worker<'a, S> {
    fn new(
        req: &'a SearchRequest<'a>,
        searcher: S,
        settings: Settings,
        id: usize,
        total_bytes: usize,
    ) -> Self {
        let mut chess = ChessTree::new(req.game, req.eval);
        chess.restrict_root(&req.limits.searchmoves);
        chess.set_sampling(settings.estimate);
        Worker {
            id,
            req,
            start_nodes: searcher.usage().0,
            searcher,
            root: chess.unbounded_root(),
            chess,
            poller: Poller::new(req.control, id == 0),
            total_bytes,
            prepared: false,
        }
    }

    /// Prepares the tree's root; true when the root has no move to search.
    fn prepare(&mut self) -> bool {
        self.prepared = true;
        self.searcher
            .prepare(&mut self.chess, &self.root, placeholder_move())
            .is_some()
    }

    /// Iterates until a limit, `stop`, or (main thread) a reason of its own to stop.
    /// Returns true when the hybrid decided to hand over to `pvs`.
    fn run(&mut self, done: &AtomicBool, threshold: Option<f32>) -> bool {
        let main = self.id == 0;
        let control = self.req.control;
        let limits = self.req.limits;
        if !self.prepared && self.prepare() {
            return false;
        }
        let node_limited = control.node_limit().is_some();
        let forced = limits.answers_at_once(self.req.game.position().legal_moves().len());
        let depth_limit = limits.depth.map(|d| d.max(1) as usize);
        let depth_budget = depth_limit.map_or(u64::MAX, depth_iterations);
        let mut iterations = 0u64;
        let mut last_report = Instant::now();
        let mut told_full = false;
        let mut switched = false;
        loop {
            if done.load(Ordering::Relaxed) {
                break;
            }
            self.searcher.iterate(&mut self.chess, &self.root);
            iterations += 1;
            let at_check = iterations.is_multiple_of(CLOCK_INTERVAL);
            let stop = if node_limited {
                self.poller.poll(iterations)
            } else if at_check {
                self.poller.flush(iterations) || (main && control.soft_limit_reached())
            } else {
                control.stopped()
            };
            if stop || !main {
                if stop {
                    break;
                }
                continue;
            }
            if self.searcher.full() && !told_full {
                told_full = true;
                let (nodes, _, reserved) = self.searcher.usage();
                self.req.sink.message(&format!(
                    "uct: TreeMemory full at {nodes} nodes ({:.1} MB): new nodes only in freed slots, iterating inside the tree",
                    mb(reserved)
                ));
            }
            let deep_enough = depth_limit.is_some_and(|d| self.searcher.max_depth() >= d);
            if forced || deep_enough || iterations >= depth_budget {
                break;
            }
            if !at_check {
                continue;
            }
            if self.searcher.root_proof().is_some() {
                break;
            }
            // Thesis §4.4: the ratio of terminal to non-terminal nodes (0.003 there). With
            // a shared tree, over the nodes this thread added: a sample of the same tree.
            let (added, terminal) = self.searcher.added();
            if let Some(th) = threshold
                && added >= HYBRID_MIN_NODES
                && terminal as f32 >= th * (added - terminal) as f32
            {
                self.req.sink.message(&format!(
                    "uct-hybrid: {terminal} terminal and {} other new nodes (ratio {:.4} >= HybridThreshold {th}), switching to pvs",
                    added - terminal,
                    terminal as f32 / (added - terminal).max(1) as f32,
                ));
                switched = true;
                break;
            }
            if last_report.elapsed() >= REPORT_EVERY {
                last_report = Instant::now();
                self.report(false);
            }
        }
        self.poller.flush(iterations);
        if main {
            done.store(true, Ordering::Relaxed);
            if !switched {
                self.report(true);
            }
        }
        switched
    }

    fn report(&mut self, last: bool) {
        let control = self.req.control;
        let s = &self.searcher;
        let pv = self.req.game.position().uci_line(&s.pv(MAX_PLY));
        let depth = s.max_depth().max(1) as u32;
        let (nodes, hashfull, reserved) = s.usage();
        self.req.sink.info(&Info {
            depth,
            multipv: 1,
            seldepth: depth,
            score: score(s.root_proof(), s.root_value()),
            bound: Bound::Exact,
            nodes: control.nodes(),
            time: control.elapsed(),
            hashfull: Some(hashfull),
            tbhits: None,
            pv,
            wdl: None,
        });
        if last {
            self.req.sink.message(&format!(
                "uct tree: {nodes} nodes ({} new), {:.1} MB of TreeMemory {} MB",
                nodes.saturating_sub(self.start_nodes),
                mb(reserved),
                self.total_bytes >> 20
            ));
        }
    }
}

fn mb(bytes: usize) -> f64 {
    bytes as f64 / (1 << 20) as f64
}

/// The root node's move field is never read; any move fills it.
fn placeholder_move() -> Move {
    Move::Put {
        role: shakmaty::Role::Pawn,
        to: shakmaty::Square::A1,
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{CastlingMode, Chess, Position as _};

    use super::super::parallel::audit::audit;
    use super::*;
    use crate::board::{Game, Position};
    use crate::search::info::Silent;
    use crate::search::testing::{options, quick};
    use crate::search::{Limits, THREADS};

    fn search(backend: &mut UctBackend, game: &Game, iterations: u64) -> SearchResult {
        quick(backend, game, &Limits::nodes(iterations))
    }

    #[test]
    fn the_minimum_per_thread_holds_a_child_for_every_move() {
        use super::super::arena::Node;
        let bytes = MIN_SLOTS_PER_THREAD * Arena::<u32>::node_size();
        let mut arena = Arena::with_memory(bytes);
        let root = arena.set_root(Node::new(0u32));
        arena[root].moves = MAX_MOVES as u16;
        for m in 1..=MAX_MOVES as u32 {
            assert!(arena.add_child(root, Node::new(m)).is_some(), "move {m}");
        }
        // Not a slot to spare: one slot less and the last run does not fit.
        let mut arena = Arena::with_memory(bytes - Arena::<u32>::node_size());
        let root = arena.set_root(Node::new(0u32));
        arena[root].moves = MAX_MOVES as u16;
        let added = (1..=MAX_MOVES as u32)
            .take_while(|&m| arena.add_child(root, Node::new(m)).is_some())
            .count();
        assert_eq!(added, 128);
    }

    #[test]
    fn tree_reuse_keeps_the_played_subtree() {
        for variant in [Variant::Uct, Variant::Ucth, Variant::UctMaxH] {
            let mut backend = UctBackend::new(variant);
            let mut game = Game::new(crate::board::Position::startpos());
            let first = search(&mut backend, &game, 20_000);
            assert_eq!(first.nodes, 20_000);
            assert_eq!(backend.kept_root_visits(), Some(20_000));
            // The subtree after our move and the expected reply.
            let (Some(ours), Some(reply)) = (first.best, first.ponder) else {
                panic!("no pv");
            };
            let kept = {
                let tree = &backend.saved[0].as_ref().unwrap().arena;
                let a = tree.child_by_move(0, ours).unwrap();
                tree[tree.child_by_move(a, reply).unwrap()].visits
            };
            assert!(kept > 10, "{variant:?}: {kept}");
            game.push(ours);
            game.push(reply);
            search(&mut backend, &game, 1_000);
            assert_eq!(
                backend.kept_root_visits(),
                Some(kept + 1_000),
                "{variant:?}"
            );
            // A position the tree does not lead to starts afresh, as does a new game.
            let other = Game::new(crate::board::Position::startpos());
            search(&mut backend, &other, 500);
            assert_eq!(backend.kept_root_visits(), Some(500));
            backend.new_game();
            assert_eq!(backend.kept_root_visits(), None);
        }
    }

    fn uct_options(settings: &[(&str, &str)]) -> Options {
        let decls = [
            &THREADS.decl,
            &TREE_MEMORY.decl,
            &UCT_SOLVER.decl,
            &UCT_PARALLEL.decl,
        ];
        options(&decls, settings)
    }

    fn search_with(
        backend: &mut UctBackend,
        game: &Game,
        iterations: u64,
        options: &Options,
    ) -> SearchResult {
        let limits = Limits::nodes(iterations);
        crate::search::testing::search(backend, game, &limits, options, &Silent)
    }

    #[test]
    fn a_panicking_helper_leaves_the_main_threads_result_standing() {
        use crate::search::testing::with_broken_helpers;
        let game = Game::new(Position::startpos());
        for mode in ["root", "tree"] {
            let opts = uct_options(&[("Threads", "3"), ("UCT_Parallel", mode)]);
            // UCTH evaluates every node it adds, so a helper panics at its first iteration.
            let mut backend = UctBackend::new(Variant::Ucth);
            let limits = Limits::movetime(200);
            let (r, panicked) = with_broken_helpers(&mut backend, &game, &limits, &opts);
            assert!(panicked > 0, "{mode}: no helper ran");
            assert!(
                r.best
                    .is_some_and(|m| game.position().legal_moves().contains(&m)),
                "{mode}"
            );
            // The trees of the helpers that panicked are gone; a shared tree may hold
            // their virtual losses, and is not kept.
            if mode == "root" {
                assert_eq!(backend.saved.iter().flatten().count(), 3 - panicked);
            } else {
                assert!(backend.shared.is_none());
            }
        }
    }

    #[test]
    fn the_shared_tree_is_reused_after_the_moves_played() {
        for variant in [Variant::Uct, Variant::Ucth, Variant::UctMaxH] {
            let opts = uct_options(&[("Threads", "2"), ("UCT_Parallel", "tree")]);
            let mut backend = UctBackend::new(variant);
            let mut game = Game::new(Position::startpos());
            let first = search_with(&mut backend, &game, 20_000, &opts);
            // Every iteration of both threads passed through the one root.
            assert_eq!(backend.kept_root_visits(), Some(first.nodes as u32));
            assert!(backend.saved.is_empty(), "{variant:?}: no per-thread trees");
            let (Some(ours), Some(reply)) = (first.best, first.ponder) else {
                panic!("no pv");
            };
            let kept = {
                let tree = &backend.shared.as_ref().unwrap().arena;
                let a = tree.child_by_move(0, ours).unwrap();
                tree.node(tree.child_by_move(a, reply).unwrap()).visits()
            };
            assert!(kept > 10, "{variant:?}: {kept}");
            game.push(ours);
            game.push(reply);
            let second = search_with(&mut backend, &game, 1_000, &opts);
            assert_eq!(
                backend.kept_root_visits(),
                Some(kept + second.nodes as u32),
                "{variant:?}"
            );
            // Root parallelism starts afresh, and drops the shared tree.
            let root = uct_options(&[("Threads", "2"), ("UCT_Parallel", "root")]);
            search_with(&mut backend, &game, 500, &root);
            assert!(backend.shared.is_none(), "{variant:?}");
        }
    }

    /// Every move in a tree is legal where it is played (a torn write would not be).
    fn shared_moves_legal(arena: &SharedArena<Move>, id: u32, pos: &Chess) {
        for c in arena.children(id) {
            let m = arena.node(c).mv().unwrap();
            assert!(pos.legal_moves().contains(&m), "{m:?}");
            let mut next = pos.clone();
            next.play_unchecked(m);
            shared_moves_legal(arena, c, &next);
        }
    }

    fn own_moves_legal(arena: &Arena<Move>, id: u32, pos: &Chess) {
        for c in arena.children(id) {
            let m = arena[c].mv;
            assert!(pos.legal_moves().contains(&m), "{m:?}");
            let mut next = pos.clone();
            next.play_unchecked(m);
            own_moves_legal(arena, c, &next);
        }
    }

    /// Many short searches, 1 to 8 threads, both modes, every backend of the family, the
    /// solver on and off, fresh and reused trees; after each, the trees are checked.
    #[test]
    fn many_short_searches_leave_consistent_trees() {
        let fens = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            // Mate in one (Qxf7#).
            "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
            // WAC.001: mate in two.
            "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
            "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        ];
        let variants = [
            Variant::Uct,
            Variant::Ucth,
            Variant::UctMaxH,
            Variant::Hybrid,
        ];
        let mut backends: Vec<UctBackend> = variants.iter().map(|&v| UctBackend::new(v)).collect();
        let mut game = Game::new(Position::startpos());
        for i in 0..200usize {
            let threads = 1 + i % 8;
            let mode = if (i / 8) % 2 == 0 { "tree" } else { "root" };
            let variant = (i / 16) % 4;
            let solver = if i % 3 == 0 { "true" } else { "false" };
            let t = threads.to_string();
            let opts = uct_options(&[
                ("Threads", &t),
                ("UCT_Parallel", mode),
                ("UCT_Solver", solver),
                ("TreeMemory", "16"),
            ]);
            // Every third search continues the last game, so that trees are reused.
            let reused = i % 3 == 2 && game.end().is_none();
            if !reused {
                let fen = fens[i % fens.len()];
                game = Game::new(Position::from_fen(fen, CastlingMode::Standard).unwrap());
            }
            let backend = &mut backends[variant];
            let iterations = 200 + (i as u64 * 37) % 1500;
            let r = search_with(backend, &game, iterations, &opts);
            let pos = game.position().chess().clone();
            let what = format!(
                "search {i}: {threads} threads, {mode}, {:?}",
                variants[variant]
            );
            let best = r.best.unwrap_or_else(|| panic!("{what}: no move"));
            // The budget is every thread's: each may finish the iteration it is in.
            if variants[variant] != Variant::Hybrid {
                assert!(
                    r.nodes <= iterations + threads as u64,
                    "{what}: {}",
                    r.nodes
                );
            }
            assert!(pos.legal_moves().contains(&best), "{what}: {best:?}");
            let counted = variants[variant] != Variant::Hybrid && !reused;
            if let Some(saved) = &backend.shared {
                assert!(threads > 1 && mode == "tree", "{what}");
                let arena = &saved.arena;
                audit(arena, &saved.settings.config).unwrap_or_else(|e| panic!("{what}: {e}"));
                shared_moves_legal(arena, 0, &pos);
                if counted {
                    assert_eq!(u64::from(arena.node(0).visits()), r.nodes, "{what}");
                }
            } else {
                let trees: Vec<&Arena<Move>> =
                    backend.saved.iter().flatten().map(|s| &s.arena).collect();
                assert_eq!(trees.len(), threads, "{what}");
                for arena in &trees {
                    own_moves_legal(arena, 0, &pos);
                }
                let visits: u64 = trees.iter().map(|a| u64::from(a[0].visits)).sum();
                if counted {
                    assert_eq!(visits, r.nodes, "{what}");
                }
            }
            if let Some(ponder) = r.ponder {
                let mut after = pos.clone();
                after.play_unchecked(best);
                assert!(after.legal_moves().contains(&ponder), "{what}: ponder");
            }
            game.push(best);
            if let Some(p) = r.ponder
                && game.end().is_none()
            {
                game.push(p);
            }
        }
    }
}
