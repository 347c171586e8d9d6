//! FSSS-Minimax (Rollout-based Game-tree Search Outprunes Traditional Alpha-beta (2012),
//! Algorithm 1): rollouts from the root that carry a top-down window `(alpha, beta)` and
//! maintain bottom-up bounds `[L, U]` per node. At each node the child with the largest
//! clipped upper bound is followed (leftmost on ties); its window's alpha becomes the
//! largest clipped upper bound of its siblings, and when that equals the chosen child's own
//! clipped upper bound it is lowered by epsilon, so the window never collapses to a point
//! before a leaf is reached. Negamax form: the rule for MAX nodes, applied to negated
//! children, is the paper's rule for MIN nodes.
//!
//! Epsilon must be smaller than any difference between leaf values: values are integers, so
//! windows are kept in half units (doubled) and epsilon is one half.
//!
//! The refinement: after a leaf, bounds change on a path upwards from it and stop changing
//! at some node; every ancestor of that node is unchanged, so the next rollout would walk
//! the same way down to it with the same window. Restarting there instead of at the root
//! saves the walk and cannot change which leaves are evaluated.

use super::bounds::{BoundStore, Bounds, load_key, save_key};
use super::stored::{Solved, TableSlot, deepen_with_table};
use crate::options::Declared;
use crate::search::{Backend, SearchRequest, SearchResult};
use crate::tree::{Expansion, GameTree};
use crate::value::{INFINITY, Value};

/// One node on the current rollout path.
struct Frame<N> {
    node: N,
    key: u64,
    ply: usize,
    /// The window in half units, from this node's side.
    alpha: i64,
    beta: i64,
    /// The children's keys, left to right.
    children: Vec<u64>,
}

/// FSSS-Minimax over one tree and one store.
pub struct Fsss<'a, S: ?Sized> {
    store: &'a mut S,
    poll: &'a mut dyn FnMut(u64) -> bool,
    restart: bool,
    stopped: bool,
    /// Rollouts (descents that ended at a leaf) so far.
    pub rollouts: u64,
}

impl<'a, S: BoundStore + ?Sized> Fsss<'a, S> {
    /// `restart`: resume each rollout at the deepest node whose bounds did not change.
    pub fn new(store: &'a mut S, restart: bool, poll: &'a mut dyn FnMut(u64) -> bool) -> Self {
        Fsss {
            store,
            poll,
            restart,
            stopped: false,
            rollouts: 0,
        }
    }

    /// The root's value, or `None` if stopped.
    pub fn solve<T: GameTree>(&mut self, tree: &mut T, root: &T::Node) -> Option<Value> {
        let half_inf = 2 * i64::from(INFINITY);
        let mut path: Vec<Frame<T::Node>> = vec![Frame {
            node: root.clone(),
            key: tree.key(root),
            ply: tree.ply(root),
            alpha: -half_inf,
            beta: half_inf,
            children: Vec::new(),
        }];
        let mut moves = Vec::new();
        loop {
            let top = &path[0];
            let root_bounds = load_key(&*self.store, top.key, top.ply);
            if root_bounds.is_closed() {
                return Some(root_bounds.lo);
            }
            // Descend from the last frame to a leaf.
            let mut leaf_reached = false;
            loop {
                if (self.poll)(tree.nodes()) {
                    self.stopped = true;
                    return None;
                }
                let frame = path.last_mut()?;
                match tree.expand(&frame.node, &mut moves) {
                    Expansion::Leaf(v) => {
                        save_key(self.store, frame.key, frame.ply, Bounds::exact(v));
                        self.rollouts += 1;
                        leaf_reached = true;
                        break;
                    }
                    Expansion::Inner => {}
                }
                frame.children.clear();
                let mut clipped = Vec::with_capacity(moves.len());
                for &m in &moves {
                    let child = tree.play(&frame.node, m);
                    let k = tree.key(&child);
                    frame.children.push(k);
                    let c = load_key(&*self.store, k, frame.ply + 1).negate();
                    // (L', U') clipped by the window, in half units.
                    let lo = (2 * i64::from(c.lo)).max(frame.alpha);
                    let hi = (2 * i64::from(c.hi)).min(frame.beta);
                    clipped.push((lo, hi, c.is_closed()));
                }
                let mut chosen = 0;
                for (i, c) in clipped.iter().enumerate() {
                    if c.1 > clipped[chosen].1 {
                        chosen = i;
                    }
                }
                let others = clipped
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| i != chosen)
                    .map(|(_, c)| c.1)
                    .max()
                    .unwrap_or(-half_inf);
                let mut alpha = frame.alpha.max(others);
                if alpha == clipped[chosen].1 {
                    alpha -= 1;
                }
                if clipped[chosen].2 {
                    // Only a table that lost entries gets here (the paper proves the path
                    // always ends at an unevaluated leaf): back up and try again.
                    break;
                }
                let child = tree.play(&frame.node, moves[chosen]);
                let (beta, ply) = (frame.beta, frame.ply);
                path.push(Frame {
                    key: tree.key(&child),
                    node: child,
                    ply: ply + 1,
                    alpha: -beta,
                    beta: -alpha,
                    children: Vec::new(),
                });
            }
            // Back the bounds up; find the deepest node whose bounds did not change.
            let mut resume = 0;
            let interior = path.len() - usize::from(leaf_reached);
            for i in (0..interior).rev() {
                let frame = &path[i];
                let old = load_key(&*self.store, frame.key, frame.ply);
                let mut b = Bounds {
                    lo: -INFINITY,
                    hi: -INFINITY,
                };
                for &k in &frame.children {
                    let c = load_key(&*self.store, k, frame.ply + 1).negate();
                    b.lo = b.lo.max(c.lo);
                    b.hi = b.hi.max(c.hi);
                }
                let b = b.intersect(old);
                if b == old && self.restart {
                    resume = i;
                    break;
                }
                save_key(self.store, frame.key, frame.ply, b);
            }
            path.truncate(resume + 1);
        }
    }

    /// True if the last run was aborted.
    pub fn stopped(&self) -> bool {
        self.stopped
    }
}

/// The restart refinement.
pub static FSSS_RESTART: Declared<bool> = Declared::check(
    "FSSS_Restart",
    false,
    "`fsss`: resume each rollout at the deepest node whose bounds did not change (same leaves, less walking)",
);

/// The `fsss` backend on the chess view under iterative deepening.
#[derive(Default)]
pub struct FsssBackend {
    table: TableSlot,
}

impl Backend for FsssBackend {
    fn search(&mut self, req: &SearchRequest<'_>) -> SearchResult {
        let restart = req.options.get(&FSSS_RESTART);
        deepen_with_table(&mut self.table, req, |table, tree, root, poll| {
            let value = Fsss::new(table, restart, poll).solve(tree, root)?;
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
