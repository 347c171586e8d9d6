//! `alphabeta`: plain fail-soft negamax alpha-beta (Alpha–beta pruning; Pruning Game Tree
//! by Rollouts (2015) Algorithm 1 without storage) — no transposition table, no pruning
//! beyond alpha-beta itself. The research baseline every other backend's leaf counts are
//! compared with.

use crate::search::deepening::{Iteration, deepen};
use crate::search::{Backend, SearchRequest, SearchResult};
use crate::tree::{Expansion, GameTree};
use crate::value::{INFINITY, Value};

/// Plain alpha-beta over any game tree, with the principal variation kept.
pub struct AlphaBetaSearch<'p, M> {
    buffers: Vec<Vec<M>>,
    pv: Vec<Vec<M>>,
    poll: &'p mut dyn FnMut(u64) -> bool,
    stopped: bool,
}

impl<'p, M: Copy> AlphaBetaSearch<'p, M> {
    /// `poll` is called with the tree's node count at every node; true aborts the search.
    pub fn new(poll: &'p mut dyn FnMut(u64) -> bool) -> Self {
        AlphaBetaSearch {
            buffers: Vec::new(),
            pv: Vec::new(),
            poll,
            stopped: false,
        }
    }

    /// The negamax value of `root` within `(alpha, beta)` (fail-soft).
    pub fn run<T: GameTree<Move = M>>(
        &mut self,
        tree: &mut T,
        root: &T::Node,
        alpha: Value,
        beta: Value,
    ) -> Value {
        self.search(tree, root, alpha, beta, 0)
    }

    /// True if the last run was aborted by the poll function (its value is meaningless).
    pub fn stopped(&self) -> bool {
        self.stopped
    }

    /// The principal variation of the last run.
    pub fn pv(&self) -> &[M] {
        self.pv.first().map_or(&[], Vec::as_slice)
    }

    fn search<T: GameTree<Move = M>>(
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
        if self.buffers.len() <= ply {
            self.buffers.resize_with(ply + 1, Vec::new);
            self.pv.resize_with(ply + 2, Vec::new);
        }
        self.pv[ply].clear();
        let mut children = std::mem::take(&mut self.buffers[ply]);
        if let Expansion::Leaf(v) = tree.expand(node, &mut children) {
            self.buffers[ply] = children;
            return v;
        }
        let mut best = -INFINITY;
        for &m in &children {
            let child = tree.play(node, m);
            let v = -self.search(tree, &child, -beta, -alpha.max(best), ply + 1);
            if self.stopped {
                break;
            }
            if v > best {
                best = v;
                let (head, tail) = self.pv.split_at_mut(ply + 1);
                head[ply].clear();
                head[ply].push(m);
                head[ply].extend_from_slice(&tail[0]);
                if best >= beta {
                    break;
                }
            }
        }
        self.buffers[ply] = children;
        best
    }
}

/// The `alphabeta` backend: [`AlphaBetaSearch`] on the chess view under iterative deepening.
#[derive(Default)]
pub struct AlphaBeta;

impl Backend for AlphaBeta {
    fn search(&mut self, req: &SearchRequest<'_>) -> SearchResult {
        deepen(req, |tree, depth, poll| {
            let root = tree.root(depth);
            let mut search = AlphaBetaSearch::new(poll);
            let value = search.run(tree, &root, -INFINITY, INFINITY);
            (!search.stopped()).then(|| Iteration {
                value,
                pv: search.pv().to_vec(),
                hashfull: None,
            })
        })
    }
}
