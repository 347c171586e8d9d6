//! The rollout family of Pruning Game Tree by Rollouts (2015) (Algorithm 4): keep `[lo,
//! hi]` per node; while the root is open, walk one path from the root, passing down the
//! window `[a, b]` clipped by each child's stored bounds, choose among the children whose
//! clipped window is non-empty with a *selection policy*, evaluate the leaf at the end, and
//! recompute the bounds of every node on the way back up from all its children.
//!
//! Any policy computes the exact value and never evaluates a leaf twice (Theorem 1). The
//! leftmost policy reproduces `alphabeta2` leaf for leaf (Theorem 2), the
//! largest-upper-bound policy reproduces MT-SSS* on `alphabeta2` (Theorem 3); the random
//! and UCT-guided policies are the paper's examples of new members of the family.
//!
//! Negamax form: "upper bound for MAX" (the root's player) is the child's clipped upper
//! bound at MAX nodes and the negated clipped lower bound at MIN nodes, which is how the
//! MT-SSS* policy is stated in the paper.

use std::collections::HashMap;

use super::bounds::{BoundStore, Bounds, load_key, save_key};
use super::stored::{Solved, TableSlot, deepen_with_table};
use crate::options::Declared;
use crate::search::{Backend, SearchRequest, SearchResult};
use crate::tree::{Expansion, GameTree, Rng};
use crate::value::{INFINITY, Value};

/// How a rollout chooses among the candidate children.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// The leftmost candidate: `alphabeta2` as rollouts.
    Left,
    /// The leftmost candidate with the largest upper bound for MAX: MT-SSS* as rollouts.
    Sss,
    /// A uniformly random candidate (seeded).
    Random,
    /// The largest upper bound for MAX first; ties broken by the UCT score (mean rollout
    /// outcome plus an exploration term), so early rollouts follow UCT, later ones SSS*.
    Uct,
}

/// Exploration constant of the UCT tie-break, for outcomes squashed into (-1, 1).
pub const UCT_C: f64 = 0.4;

/// Squashes a value into (-1, 1) for the UCT statistics: `v / (|v| + 400)`, so a pawn is
/// worth 0.2 and a queen 0.7.
fn squash(v: Value) -> f64 {
    let v = f64::from(v);
    v / (v.abs() + 400.0)
}

/// Visits and summed outcomes of one node, from its side to move.
#[derive(Debug, Clone, Copy, Default)]
struct Stats {
    visits: u32,
    sum: f64,
}

/// A candidate child during one step of a rollout.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    index: usize,
    /// The clipped window `[a_c, b_c]`, from the parent's side.
    window: Bounds,
}

/// Rollouts over one tree and one store.
pub struct Rollouts<'a, M, S: ?Sized> {
    store: &'a mut S,
    poll: &'a mut dyn FnMut(u64) -> bool,
    policy: Policy,
    rng: Rng,
    stats: HashMap<u64, Stats>,
    max_stats: usize,
    buffers: Vec<Vec<M>>,
    keys: Vec<Vec<u64>>,
    stopped: bool,
    /// Rollouts run so far.
    pub rollouts: u64,
}

impl<'a, M: Copy, S: BoundStore + ?Sized> Rollouts<'a, M, S> {
    /// `seed` drives the random policy; `max_stats` bounds the UCT statistics' entries.
    pub fn new(
        store: &'a mut S,
        policy: Policy,
        seed: u64,
        max_stats: usize,
        poll: &'a mut dyn FnMut(u64) -> bool,
    ) -> Self {
        Rollouts {
            store,
            poll,
            policy,
            rng: Rng::new(seed),
            stats: HashMap::new(),
            max_stats,
            buffers: Vec::new(),
            keys: Vec::new(),
            stopped: false,
            rollouts: 0,
        }
    }

    /// Rolls out until the root's bounds meet; its value, or `None` if stopped.
    pub fn solve<T: GameTree<Move = M>>(&mut self, tree: &mut T, root: &T::Node) -> Option<Value> {
        let key = tree.key(root);
        let ply = tree.ply(root);
        loop {
            let b = load_key(&*self.store, key, ply);
            if b.is_closed() {
                return Some(b.lo);
            }
            self.rollouts += 1;
            self.rollout(tree, root, b, ply, 0);
            if self.stopped {
                return None;
            }
        }
    }

    /// One rollout below `node` with window `w`; returns the outcome (the evaluated leaf's
    /// value from `node`'s side), if a leaf was reached.
    fn rollout<T: GameTree<Move = M>>(
        &mut self,
        tree: &mut T,
        node: &T::Node,
        w: Bounds,
        ply: usize,
        depth: usize,
    ) -> Option<Value> {
        if self.stopped || (self.poll)(tree.nodes()) {
            self.stopped = true;
            return None;
        }
        let key = tree.key(node);
        if self.buffers.len() <= depth {
            self.buffers.resize_with(depth + 1, Vec::new);
            self.keys.resize_with(depth + 1, Vec::new);
        }
        let mut children = std::mem::take(&mut self.buffers[depth]);
        if let Expansion::Leaf(v) = tree.expand(node, &mut children) {
            self.buffers[depth] = children;
            save_key(self.store, key, ply, Bounds::exact(v));
            return Some(v);
        }
        let mut keys = std::mem::take(&mut self.keys[depth]);
        keys.clear();
        let mut candidates = Vec::with_capacity(children.len());
        for (index, &m) in children.iter().enumerate() {
            let child = tree.play(node, m);
            let child_key = tree.key(&child);
            keys.push(child_key);
            let c = load_key(&*self.store, child_key, ply + 1).negate();
            let window = Bounds {
                lo: w.lo.max(c.lo),
                hi: w.hi.min(c.hi),
            };
            if window.lo < window.hi {
                candidates.push(Candidate { index, window });
            }
        }
        let mut outcome = None;
        if !candidates.is_empty() {
            let chosen = self.select(&candidates, &keys, key, depth.is_multiple_of(2));
            let child = tree.play(node, children[chosen.index]);
            let child_window = chosen.window.negate();
            outcome = self
                .rollout(tree, &child, child_window, ply + 1, depth + 1)
                .map(|v| -v);
        }
        // Coherent storage: the node's bounds are those its children's bounds imply. The
        // intersection with what was stored only matters for a table that lost entries.
        let mut b = Bounds {
            lo: -INFINITY,
            hi: -INFINITY,
        };
        for &k in &keys {
            let c = load_key(&*self.store, k, ply + 1).negate();
            b.lo = b.lo.max(c.lo);
            b.hi = b.hi.max(c.hi);
        }
        let b = b.intersect(load_key(&*self.store, key, ply));
        save_key(self.store, key, ply, b);
        if self.policy == Policy::Uct
            && let Some(v) = outcome
        {
            self.record(key, v);
        }
        self.buffers[depth] = children;
        self.keys[depth] = keys;
        outcome
    }

    fn select(
        &mut self,
        candidates: &[Candidate],
        keys: &[u64],
        key: u64,
        max_node: bool,
    ) -> Candidate {
        // The upper bound for MAX, whichever side moves here.
        let max_upper = |c: &Candidate| {
            if max_node { c.window.hi } else { -c.window.lo }
        };
        match self.policy {
            Policy::Left => candidates[0],
            Policy::Sss => leftmost_max_by(candidates, |c| max_upper(c) as f64),
            Policy::Random => candidates[self.rng.below(candidates.len())],
            Policy::Uct => {
                let top = candidates.iter().map(max_upper).max().unwrap_or_default();
                let tied: Vec<Candidate> = candidates
                    .iter()
                    .copied()
                    .filter(|c| max_upper(c) == top)
                    .collect();
                let parent = self.stats.get(&key).copied().unwrap_or_default();
                let ln_n = f64::from(parent.visits.max(1)).ln();
                leftmost_max_by(&tied, |c| {
                    let s = self.stats.get(&keys[c.index]).copied().unwrap_or_default();
                    if s.visits == 0 {
                        f64::INFINITY
                    } else {
                        let n = f64::from(s.visits);
                        -s.sum / n + UCT_C * (ln_n / n).sqrt()
                    }
                })
            }
        }
    }

    fn record(&mut self, key: u64, outcome: Value) {
        if self.stats.len() >= self.max_stats && !self.stats.contains_key(&key) {
            return;
        }
        let s = self.stats.entry(key).or_default();
        s.visits += 1;
        s.sum += squash(outcome);
    }
}

/// The leftmost element with the largest score.
fn leftmost_max_by(items: &[Candidate], score: impl Fn(&Candidate) -> f64) -> Candidate {
    let mut best = items[0];
    let mut best_score = score(&best);
    for c in &items[1..] {
        let s = score(c);
        if s > best_score {
            best = *c;
            best_score = s;
        }
    }
    best
}

/// The random policy's seed.
pub static ROLLOUT_SEED: Declared<i64> = Declared::spin(
    "RolloutSeed",
    1,
    0,
    i32::MAX as i64,
    "`rollout-random`: seed of the random selection policy",
);

/// A rollout backend on the chess view under iterative deepening.
pub struct RolloutBackend {
    policy: Policy,
    table: TableSlot,
}

impl RolloutBackend {
    pub fn new(policy: Policy) -> Self {
        RolloutBackend {
            policy,
            table: TableSlot::default(),
        }
    }
}

impl Backend for RolloutBackend {
    fn search(&mut self, req: &SearchRequest<'_>) -> SearchResult {
        let seed = req.options.get(&ROLLOUT_SEED) as u64;
        let policy = self.policy;
        deepen_with_table(&mut self.table, req, |table, tree, root, poll| {
            // The UCT statistics get as many entries as a quarter of the table has slots.
            let max_stats = (table.megabytes().max(1) << 20) / 64;
            let value = Rollouts::new(table, policy, seed, max_stats, poll).solve(tree, root)?;
            Some(Solved { value, best: None })
        })
    }

    fn new_game(&mut self) {
        self.table.tidy();
    }

    fn between_searches(&mut self) {
        self.table.tidy();
    }
}
