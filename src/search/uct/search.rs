//! One UCT tree and its iterations (Understanding Sampling-Based Adversarial Search Methods
//! (2012) §2.4, §3.1–3.2; Pruning Game Tree by Rollouts (2015) Algorithm 3), written
//! against the game-tree interface so that chess and the synthetic trees share it. An
//! iteration:
//! 1. select from the root by UCB1 while every move of the node is in the tree;
//! 2. add one new node — the next untried move, in an order fixed per position — and value
//!    it: exactly when terminal, otherwise by a playout or the tree's heuristic;
//! 3. back the value up the path: the mean (UCT, UCTH) or the minimax of the children
//!    (UCTMAX-H, §3.2.5); with the solver, proven wins and losses propagate as well.
//!
//! When the arena is full, step 2 is skipped: the iteration descends into a child already
//! in the tree, or re-estimates a childless leaf, so the search goes on in bounded memory.

use std::marker::PhantomData;

use super::arena::{Arena, NONE, Node, Proof};
use super::playout::{self, LeafEstimate, Scale};
use super::policy;
use crate::tree::{Expansion, GameTree, Rng};

/// How values are backed up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backup {
    /// Each node's value is the mean of the values backed up through it (UCT, UCTH).
    Average,
    /// Each node's value is the best of its children's for its side to move (UCTMAX-H).
    Minimax,
}

/// The parameters of one tree search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// The UCB1 exploration constant.
    pub c: f32,
    pub backup: Backup,
    /// Propagate proven wins and losses (`UCT_Solver`).
    pub solver: bool,
    /// How new nodes are valued.
    pub leaf: LeafEstimate,
    /// How the tree's values map onto [-1, 1].
    pub scale: Scale,
}

/// Statistics of one root move.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RootMove<M> {
    pub mv: M,
    pub visits: u32,
    /// From the root's side to move.
    pub value: f32,
    pub proof: Proof,
    pub plies: u8,
}

/// A UCT tree being searched.
pub struct Searcher<T: GameTree> {
    pub arena: Arena<T::Move>,
    cfg: Config,
    rng: Rng,
    /// Mixed into the per-position move order so that threads try moves in other orders.
    salt: u64,
    path: Vec<u32>,
    moves: Vec<T::Move>,
    /// Deepest node reached from the root.
    pub max_depth: usize,
    /// Nodes added by this search, and how many of them were terminal.
    pub added: u64,
    pub terminals: u64,
    /// The arena refused a node at least once.
    pub full: bool,
    tree: PhantomData<fn(&mut T)>,
}

/// The root is always node 0.
pub const ROOT: u32 = 0;

impl<T: GameTree> Searcher<T> {
    /// A search over `arena`: empty, or a reused subtree rooted at node 0.
    pub fn new(arena: Arena<T::Move>, cfg: Config, seed: u64) -> Self {
        Searcher {
            arena,
            cfg,
            rng: Rng::new(seed),
            salt: seed.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            path: Vec::with_capacity(256),
            moves: Vec::with_capacity(256),
            max_depth: 0,
            added: 0,
            terminals: 0,
            full: false,
            tree: PhantomData,
        }
    }

    /// Makes node 0 the tree's node for `root`: creates it, or refreshes a reused root
    /// (a repetition that made it a terminal inside the old tree need not be one now).
    /// Returns the root's terminal value if the root has no move.
    pub fn prepare(&mut self, tree: &mut T, root: &T::Node, root_move: T::Move) -> Option<f32> {
        if self.arena.is_empty() {
            self.arena.set_root(Node::new(root_move));
        }
        let terminal = match tree.expand(root, &mut self.moves) {
            Expansion::Leaf(v) => Some(self.cfg.scale.exact(v)),
            Expansion::Inner => None,
        };
        let root = &mut self.arena[ROOT];
        root.terminal = false;
        root.proof = Proof::Unknown;
        root.moves = self.moves.len().min(u16::MAX as usize) as u16;
        if terminal.is_some() {
            root.moves = 0;
        }
        terminal
    }

    /// One iteration from `root` (the node [`prepare`](Self::prepare) was given).
    pub fn iterate(&mut self, tree: &mut T, root: &T::Node) {
        self.path.clear();
        self.path.push(ROOT);
        let mut state = root.clone();
        let mut node = ROOT;
        let mut ply = 0;
        // The value of the last node of the path for its side to move.
        let leaf = loop {
            let n = self.arena[node];
            if n.is_settled() {
                break -n.value;
            }
            if n.expanded < n.moves {
                match self.next_move(tree, &state, n.expanded as usize) {
                    Some(mv) => match self.arena.add_child(node, Node::new(mv)) {
                        Some(child) => {
                            ply += 1;
                            let state = tree.play(&state, mv);
                            self.path.push(child);
                            break self.value_new_node(tree, child, &state);
                        }
                        None => {
                            self.full = true;
                            if n.first_child == NONE {
                                break self.estimate(tree, &state);
                            }
                        }
                    },
                    // Fewer moves than recorded (a reused root under other rules): treat
                    // the node as fully expanded.
                    None => self.arena[node].moves = n.expanded,
                }
            }
            let Some(child) = policy::select(&self.arena, node, self.cfg.c, self.cfg.solver) else {
                break self.estimate(tree, &state);
            };
            ply += 1;
            state = tree.play(&state, self.arena[child].mv);
            self.path.push(child);
            node = child;
        };
        self.max_depth = self.max_depth.max(ply);
        self.backup(leaf);
    }

    fn estimate(&mut self, tree: &mut T, state: &T::Node) -> f32 {
        playout::estimate(tree, state, self.cfg.leaf, self.cfg.scale, &mut self.rng)
    }

    /// The `k`-th move of the node at `state` in its fixed order: a shuffle seeded by the
    /// position's identity (not its remaining depth), so the order survives tree reuse and
    /// needs no storage.
    fn next_move(&mut self, tree: &mut T, state: &T::Node, k: usize) -> Option<T::Move> {
        if tree.expand(state, &mut self.moves) != Expansion::Inner {
            return None;
        }
        let len = self.moves.len();
        if k >= len {
            return None;
        }
        let mut order = Rng::new(tree.id(state) ^ self.salt);
        for i in 0..=k {
            let j = i + order.below(len - i);
            self.moves.swap(i, j);
        }
        Some(self.moves[k])
    }

    /// Values a node just added; returns the value for its side to move.
    fn value_new_node(&mut self, tree: &mut T, id: u32, state: &T::Node) -> f32 {
        self.added += 1;
        let terminal = match tree.expand(state, &mut self.moves) {
            Expansion::Leaf(v) => Some(self.cfg.scale.exact(v)),
            Expansion::Inner => None,
        };
        let node = &mut self.arena[id];
        match terminal {
            Some(v) => {
                self.terminals += 1;
                node.terminal = true;
                node.value = -v;
                node.plies = 1;
                node.proof = if v <= -1.0 {
                    Proof::Win
                } else if v >= 1.0 {
                    Proof::Loss
                } else {
                    Proof::Unknown
                };
                v
            }
            None => {
                node.moves = self.moves.len().min(u16::MAX as usize) as u16;
                if self.cfg.solver && tree.wins_at_once(state, &self.moves) {
                    // The side to move here mates next move: the move into the node loses.
                    node.proof = Proof::Loss;
                    node.plies = 2;
                    node.value = -1.0;
                    return 1.0;
                }
                self.estimate(tree, state)
            }
        }
    }

    fn backup(&mut self, leaf: f32) {
        // From the point of view of the player who moved into the last node.
        let mut v = -leaf;
        for i in (0..self.path.len()).rev() {
            let id = self.path[i];
            let node = &mut self.arena[id];
            node.visits = node.visits.saturating_add(1);
            node.sum += f64::from(v);
            v = -v;
            if node.is_settled() {
                continue;
            }
            let mean = (node.sum / f64::from(node.visits)) as f32;
            let leafy = node.first_child == NONE;
            let value = match self.cfg.backup {
                Backup::Minimax if !leafy => -self
                    .arena
                    .children(id)
                    .map(|c| self.arena[c].value)
                    .fold(f32::NEG_INFINITY, f32::max),
                _ => mean,
            };
            self.arena[id].value = value;
            if self.cfg.solver {
                self.prove(id);
            }
        }
    }

    /// Solver step: a node is lost for the player who moved into it when one child wins
    /// for its side to move, and won when every move is in the tree and every one loses.
    fn prove(&mut self, id: u32) {
        let n = self.arena[id];
        let mut win_plies = None;
        let mut all_lost = n.moves > 0 && n.expanded == n.moves;
        let mut longest = 0u8;
        for c in self.arena.children(id) {
            let ch = &self.arena[c];
            match ch.proof {
                Proof::Win => win_plies = Some(win_plies.map_or(ch.plies, |p: u8| p.min(ch.plies))),
                Proof::Loss => longest = longest.max(ch.plies),
                Proof::Unknown => all_lost = false,
            }
        }
        let node = &mut self.arena[id];
        if let Some(p) = win_plies {
            node.proof = Proof::Loss;
            node.plies = p.saturating_add(1);
            node.value = -1.0;
        } else if all_lost {
            node.proof = Proof::Win;
            node.plies = longest.saturating_add(1);
            node.value = 1.0;
        }
    }

    /// The root's value for its side to move.
    pub fn root_value(&self) -> f32 {
        -self.arena[ROOT].value
    }

    /// What is proven at the root, from its side to move: `Some((true, plies))` is a forced
    /// win with mate in `plies` plies, `Some((false, plies))` a forced loss.
    pub fn root_proof(&self) -> Option<(bool, u8)> {
        let root = &self.arena[ROOT];
        if let Some(c) = policy::final_choice(&self.arena, ROOT)
            && self.arena[c].proof == Proof::Win
        {
            return Some((true, self.arena[c].plies));
        }
        match root.proof {
            Proof::Loss => Some((true, root.plies.saturating_sub(1))),
            Proof::Win => Some((false, root.plies.saturating_sub(1))),
            Proof::Unknown => None,
        }
    }

    /// The root's children in the tree.
    pub fn root_moves(&self) -> Vec<RootMove<T::Move>> {
        self.arena
            .children(ROOT)
            .map(|c| {
                let n = &self.arena[c];
                RootMove {
                    mv: n.mv,
                    visits: n.visits,
                    value: n.value,
                    proof: n.proof,
                    plies: n.plies,
                }
            })
            .collect()
    }

    /// The move to play (see [`policy::final_choice`]).
    pub fn best_move(&self) -> Option<T::Move> {
        policy::final_choice(&self.arena, ROOT).map(|c| self.arena[c].mv)
    }

    /// The expected reply to the root move `mv` (the most visited child below it).
    pub fn reply_to(&self, mv: T::Move) -> Option<T::Move> {
        let child = self.arena.child_by_move(ROOT, mv)?;
        policy::final_choice(&self.arena, child).map(|c| self.arena[c].mv)
    }

    /// The principal variation: the most visited child, repeatedly.
    pub fn pv(&self, max_len: usize) -> Vec<T::Move> {
        let mut pv = Vec::new();
        let mut node = ROOT;
        while pv.len() < max_len {
            let Some(c) = policy::final_choice(&self.arena, node) else {
                break;
            };
            pv.push(self.arena[c].mv);
            node = c;
        }
        pv
    }

    /// Gives the tree back (for reuse).
    pub fn into_arena(self) -> Arena<T::Move> {
        self.arena
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::{RandomTree, ValueRange};

    /// Runs `iterations` iterations, or until the tree holds `stop_at` nodes.
    fn run(
        tree: RandomTree,
        c: f32,
        backup: Backup,
        iterations: usize,
        stop_at: usize,
    ) -> (f32, f32, usize) {
        let scale = 10.0;
        let mut tree = tree;
        let exact = tree.minimax(tree.root()) as f32 / scale;
        let root = tree.root();
        let cfg = Config {
            c,
            backup,
            solver: false,
            leaf: LeafEstimate::Heuristic,
            scale: Scale::Linear(scale),
        };
        let mut s = Searcher::new(Arena::with_memory(64 << 20), cfg, 7);
        s.prepare(&mut tree, &root, 0);
        for _ in 0..iterations {
            if s.arena.len() >= stop_at {
                break;
            }
            s.iterate(&mut tree, &root);
        }
        (s.root_value(), exact, s.arena.len())
    }

    #[test]
    fn uctmaxh_equals_minimax_once_the_tree_is_fully_expanded() {
        for seed in 0..20 {
            // 3^4 = 81 leaves, 121 nodes. With c = 0.4 a subtree valued -0.9 is not
            // entered twice in a million iterations (the bonus grows like sqrt(ln n)), so
            // full expansion needs a larger constant; the property holds for any c.
            let tree = RandomTree::new(3, 4, ValueRange::Small(10), seed);
            let (v, exact, nodes) = run(tree, 3.0, Backup::Minimax, 1_000_000, 121);
            assert_eq!(nodes, 121, "seed {seed}: fully expanded");
            assert_eq!(v, exact, "seed {seed}");
        }
    }

    #[test]
    fn uct_converges_to_minimax() {
        let mut worst_early = 0.0f32;
        let mut worst_late = 0.0f32;
        for seed in 0..10 {
            let tree = RandomTree::new(2, 4, ValueRange::Small(10), seed);
            let (early, exact, _) = run(tree.clone(), 0.4, Backup::Average, 1_000, usize::MAX);
            let (late, _, _) = run(tree, 0.4, Backup::Average, 200_000, usize::MAX);
            worst_early = worst_early.max((early - exact).abs());
            worst_late = worst_late.max((late - exact).abs());
        }
        assert!(worst_late < 0.03, "late error {worst_late}");
        assert!(worst_late < worst_early, "{worst_late} vs {worst_early}");
    }
}
