//! The MT family (Solution Trees as a Basis for Game Tree Search (1994), "SSS-2", "SSS-0",
//! "SSS-4"; Pruning Game Tree by Rollouts (2015), Algorithms 1, 2 and 5): the root value
//! found by repeated null-window *memory-enhanced tests* — alpha-beta calls that read and
//! write bounds in a shared store — until the root's bounds meet.
//!
//! Two test procedures: the classic single-bound storage-enhanced alpha-beta (Algorithm 1)
//! and the double-bound `alphabeta2` (Algorithm 5), which narrows its window by the node's
//! stored bounds and backs up a bound *pair*. Four drivers choose where to test: MT-SSS*
//! tests at the upper bound, MT-DUAL* at the lower bound, MTD(f) at a guess (the previous
//! iteration's value), and the stepwise SSS-4 a step below the upper bound.
//!
//! Everything is negamax: bounds are from the side to move at each node, a child's bounds
//! seen from its parent are negated and swapped.

use super::bounds::{BoundStore, Bounds, load_key, save_key};
use super::stored::{Solved, TableSlot, deepen_with_table};
use crate::options::{Declared, Options};
use crate::search::{Backend, SearchRequest, SearchResult};
use crate::tree::{Expansion, GameTree};
use crate::value::{INFINITY, Value};

/// Which alpha-beta the tests run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestProcedure {
    /// *Pruning Game Tree by Rollouts* (2015), Algorithm 1: one value returned, one bound
    /// stored per call.
    Classic,
    /// *Pruning Game Tree by Rollouts* (2015), Algorithm 5 (`alphabeta2`): window narrowed
    /// by stored bounds, pairs backed up.
    Double,
}

/// Where the next null-window test is placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driver {
    /// MT-SSS* = MTD(+INF) = SSS-2: test at the upper bound.
    Sss,
    /// MT-DUAL* = MTD(-INF): test just above the lower bound.
    Dual,
    /// MTD(f) = SSS-0: start at a first guess, then follow the returned bounds.
    F(Value),
    /// SSS-4: like SSS-2 but `step - 1` below the upper bound, never below the lower bound.
    Step(Value),
}

/// Memory-enhanced test searches over one tree and one store.
pub struct MtSearch<'a, M, S: ?Sized> {
    store: &'a mut S,
    poll: &'a mut dyn FnMut(u64) -> bool,
    procedure: TestProcedure,
    buffers: Vec<Vec<M>>,
    stopped: bool,
    /// The best root move of the last test (the child that set its value).
    root_best: Option<M>,
    /// Null-window tests run so far.
    pub tests: u32,
}

/// What a complete MT run found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MtOutcome<M> {
    pub value: Value,
    /// The root move whose test proved the value (`None` if the root is a leaf).
    pub best: Option<M>,
}

impl<'a, M: Copy, S: BoundStore + ?Sized> MtSearch<'a, M, S> {
    /// `poll` is called with the tree's node count at every node; true aborts.
    pub fn new(
        store: &'a mut S,
        procedure: TestProcedure,
        poll: &'a mut dyn FnMut(u64) -> bool,
    ) -> Self {
        MtSearch {
            store,
            poll,
            procedure,
            buffers: Vec::new(),
            stopped: false,
            root_best: None,
            tests: 0,
        }
    }

    /// True if the last run was aborted.
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// Runs a driver until the root's bounds meet; `None` if stopped.
    pub fn solve<T: GameTree<Move = M>>(
        &mut self,
        tree: &mut T,
        root: &T::Node,
        driver: Driver,
    ) -> Option<MtOutcome<M>> {
        let mut bounds = Bounds::OPEN;
        let mut best = None;
        let mut guess = match driver {
            Driver::F(g) => g,
            _ => 0,
        };
        while bounds.lo < bounds.hi {
            let gamma = match driver {
                Driver::Sss => bounds.hi,
                Driver::Dual => bounds.lo + 1,
                Driver::F(_) => guess.clamp(bounds.lo + 1, bounds.hi),
                Driver::Step(step) => (bounds.hi - (step.max(1) - 1)).max(bounds.lo + 1),
            };
            let (result, raised) = self.test(tree, root, gamma);
            if self.stopped {
                return None;
            }
            if raised {
                best = self.root_best;
            }
            let before = bounds;
            bounds.lo = bounds.lo.max(result.lo);
            bounds.hi = bounds.hi.min(result.hi);
            guess = if result.lo >= gamma {
                result.lo
            } else {
                result.hi
            };
            if bounds == before {
                // Cannot happen on a consistent tree; on chess, path-dependent draws can
                // make stored bounds disagree. Never loop: take what is known.
                log::warn!("MT test at {gamma} made no progress; bounds {before:?}");
                break;
            }
        }
        Some(MtOutcome {
            value: bounds.lo.max(-INFINITY + 1).min(bounds.hi),
            best,
        })
    }

    /// One null-window test `(gamma - 1, gamma)` at the root: the new root bounds, and
    /// whether it proved a lower bound (a fail high).
    pub fn test<T: GameTree<Move = M>>(
        &mut self,
        tree: &mut T,
        root: &T::Node,
        gamma: Value,
    ) -> (Bounds, bool) {
        self.tests += 1;
        self.root_best = None;
        match self.procedure {
            TestProcedure::Classic => {
                let g = self.classic(tree, root, gamma - 1, gamma, 0);
                if g >= gamma {
                    (
                        Bounds {
                            lo: g,
                            hi: INFINITY,
                        },
                        true,
                    )
                } else {
                    (
                        Bounds {
                            lo: -INFINITY,
                            hi: g,
                        },
                        false,
                    )
                }
            }
            TestProcedure::Double => {
                let b = self.double(tree, root, gamma - 1, gamma, 0);
                (b, b.lo >= gamma)
            }
        }
    }

    /// *Pruning Game Tree by Rollouts* (2015), Algorithm 1 in negamax form: fail-soft
    /// alpha-beta that returns at once when a stored bound already decides, and stores
    /// `hi = g` on a fail low, `lo = g` on a fail high.
    pub fn classic<T: GameTree<Move = M>>(
        &mut self,
        tree: &mut T,
        node: &T::Node,
        alpha: Value,
        beta: Value,
        ply: usize,
    ) -> Value {
        if self.stopped || (self.poll)(tree.nodes()) {
            self.stopped = true;
            return 0;
        }
        let key = tree.key(node);
        let mut stored = load_key(&*self.store, key, ply);
        if stored.lo >= beta {
            return stored.lo;
        }
        if stored.hi <= alpha {
            return stored.hi;
        }
        let mut children = self.buffer(ply);
        let g = match tree.expand(node, &mut children) {
            Expansion::Leaf(v) => v,
            Expansion::Inner => {
                let mut g = -INFINITY;
                let mut a = alpha;
                let mut best = None;
                for &m in &children {
                    let child = tree.play(node, m);
                    let v = -self.classic(tree, &child, -beta, -a, ply + 1);
                    if self.stopped {
                        break;
                    }
                    if v > g {
                        g = v;
                        best = Some(m);
                    }
                    a = a.max(g);
                    if g >= beta {
                        break;
                    }
                }
                if ply == 0 {
                    self.root_best = best;
                }
                g
            }
        };
        self.buffers[ply] = children;
        if self.stopped {
            return 0;
        }
        if g < beta {
            stored.hi = g;
        }
        if g > alpha {
            stored.lo = g;
        }
        if stored.lo > stored.hi {
            // A stale bound from another path (chess only): the fresh result wins.
            stored = Bounds::exact(g);
        }
        save_key(self.store, key, ply, stored);
        g
    }

    /// *Pruning Game Tree by Rollouts* (2015), Algorithm 5 (`alphabeta2`) in negamax form:
    /// the window is first narrowed by the stored bounds (an empty window returns them
    /// untouched), every child is visited with the narrowed window (children whose window
    /// is empty return at once), and the node's bound pair is the max of its children's
    /// negated pairs.
    pub fn double<T: GameTree<Move = M>>(
        &mut self,
        tree: &mut T,
        node: &T::Node,
        alpha: Value,
        beta: Value,
        ply: usize,
    ) -> Bounds {
        if self.stopped || (self.poll)(tree.nodes()) {
            self.stopped = true;
            return Bounds::OPEN;
        }
        let key = tree.key(node);
        let stored = load_key(&*self.store, key, ply);
        let mut a = alpha.max(stored.lo);
        let b = beta.min(stored.hi);
        if a >= b {
            return stored;
        }
        let mut children = self.buffer(ply);
        let g = match tree.expand(node, &mut children) {
            Expansion::Leaf(v) => Bounds::exact(v),
            Expansion::Inner => {
                let mut g = Bounds {
                    lo: -INFINITY,
                    hi: -INFINITY,
                };
                let mut best: Option<(Value, M)> = None;
                for &m in &children {
                    let child = tree.play(node, m);
                    let c = self.double(tree, &child, -b, -a, ply + 1).negate();
                    if self.stopped {
                        break;
                    }
                    g.lo = g.lo.max(c.lo);
                    g.hi = g.hi.max(c.hi);
                    a = a.max(c.lo);
                    if best.is_none_or(|(lo, _)| c.lo > lo) {
                        best = Some((c.lo, m));
                    }
                }
                if ply == 0 {
                    self.root_best = best.map(|(_, m)| m);
                }
                g
            }
        };
        self.buffers[ply] = children;
        if self.stopped {
            return Bounds::OPEN;
        }
        save_key(self.store, key, ply, g);
        g
    }

    fn buffer(&mut self, ply: usize) -> Vec<M> {
        if self.buffers.len() <= ply {
            self.buffers.resize_with(ply + 1, Vec::new);
        }
        std::mem::take(&mut self.buffers[ply])
    }
}

/// The MT backends' switch between the two test procedures.
pub static MT_ALPHABETA: Declared<&str> = Declared::combo(
    "MT_AlphaBeta",
    "alphabeta2",
    &["alphabeta2", "classic"],
    "MT backends: the test procedure, double-bound alphabeta2 (Pruning Game Tree by Rollouts, Alg. 5) or classic single-bound (Alg. 1)",
);

/// How far below the upper bound `mtd-step` places each test.
pub static MTD_STEP: Declared<i64> = Declared::spin(
    "MtdStep",
    20,
    1,
    10000,
    "`mtd-step`: how far below the upper bound each test is placed (1 = MT-SSS*)",
);

/// Reads the test procedure option.
pub fn procedure_option(options: &Options) -> TestProcedure {
    if options.get(&MT_ALPHABETA) == "classic" {
        TestProcedure::Classic
    } else {
        TestProcedure::Double
    }
}

/// The driver a backend uses; MTD(f)'s guess is filled in per iteration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DriverKind {
    F,
    Sss,
    Dual,
    Step,
}

/// An MT backend on the chess view: the driver under iterative deepening, with a bound
/// table sized by `Hash`.
pub struct MtBackend {
    kind: DriverKind,
    table: TableSlot,
}

impl MtBackend {
    pub fn new(kind: DriverKind) -> Self {
        MtBackend {
            kind,
            table: TableSlot::default(),
        }
    }
}

impl Backend for MtBackend {
    fn search(&mut self, req: &SearchRequest<'_>) -> SearchResult {
        let procedure = procedure_option(req.options);
        let step = req.options.get(&MTD_STEP) as Value;
        let kind = self.kind;
        let mut guess = 0;
        deepen_with_table(&mut self.table, req, |table, tree, root, poll| {
            let driver = match kind {
                DriverKind::F => Driver::F(guess),
                DriverKind::Sss => Driver::Sss,
                DriverKind::Dual => Driver::Dual,
                DriverKind::Step => Driver::Step(step),
            };
            let outcome = MtSearch::new(table, procedure, poll).solve(tree, root, driver)?;
            guess = outcome.value;
            Some(Solved {
                value: outcome.value,
                best: outcome.best,
            })
        })
    }

    fn new_game(&mut self) {
        self.table.tidy();
    }

    fn between_searches(&mut self) {
        self.table.tidy();
    }
}
