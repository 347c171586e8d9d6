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
use super::policy::{self, ChildStats};
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
                match nth_move(
                    tree,
                    &state,
                    n.expanded as usize,
                    self.salt,
                    &mut self.moves,
                ) {
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

    /// Values a node just added; returns the value for its side to move.
    fn value_new_node(&mut self, tree: &mut T, id: u32, state: &T::Node) -> f32 {
        self.added += 1;
        let fresh = value_new(tree, state, &self.cfg, &mut self.rng, &mut self.moves);
        self.terminals += u64::from(fresh.terminal);
        let node = &mut self.arena[id];
        node.moves = fresh.moves;
        node.terminal = fresh.terminal;
        node.value = fresh.value;
        node.proof = fresh.proof;
        node.plies = fresh.plies;
        fresh.leaf
    }

    fn backup(&mut self, leaf: f32) {
        // From the point of view of the player who moved into the last node.
        let mut v = -leaf;
        let minimax = self.cfg.backup == Backup::Minimax;
        // Whether the node below changed what its parent's rule reads: its proof, or with
        // minimax backups its value. The last node is new, re-estimated or proven, and
        // counts as changed. Above an unchanged child the rule's result is the one stored
        // (or the node's own mean, for mean backups), so its children are not scanned.
        let mut changed = true;
        for i in (0..self.path.len()).rev() {
            let id = self.path[i];
            let node = &mut self.arena[id];
            node.visits = node.visits.saturating_add(1);
            node.sum += f64::from(v);
            v = -v;
            let last = i + 1 == self.path.len();
            if node.is_settled() {
                changed = last;
                continue;
            }
            let mean = (node.sum / f64::from(node.visits)) as f32;
            let (moves, expanded, leafy) = (node.moves, node.expanded, node.first_child == NONE);
            if !changed && !leafy {
                if !minimax {
                    node.value = mean;
                }
                continue;
            }
            let arena = &self.arena;
            let children = arena.children(id).map(|c| ChildStats::of(&arena[c]));
            let b = backed_up(&self.cfg, mean, moves, expanded, leafy, children);
            let node = &mut self.arena[id];
            changed = last
                || b.proof != Proof::Unknown
                || (minimax && node.value.to_bits() != b.value.to_bits());
            node.value = b.value;
            if b.proof != Proof::Unknown {
                node.proof = b.proof;
                node.plies = b.plies;
            }
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

/// What the engine side asks of a tree search, whether the tree is a thread's own
/// ([`Searcher`]) or shared by all threads ([`super::parallel::SharedSearcher`]).
pub trait TreeSearch<T: GameTree> {
    /// Makes node 0 the tree's node for `root`; its terminal value if it has no move.
    fn prepare(&mut self, tree: &mut T, root: &T::Node, root_move: T::Move) -> Option<f32>;
    /// One iteration from `root`.
    fn iterate(&mut self, tree: &mut T, root: &T::Node);
    /// Deepest node this thread reached.
    fn max_depth(&self) -> usize;
    /// Nodes this thread added, and how many of them were terminal.
    fn added(&self) -> (u64, u64);
    /// The arena refused this thread a node.
    fn full(&self) -> bool;
    /// The root's value for its side to move.
    fn root_value(&self) -> f32;
    /// See [`Searcher::root_proof`].
    fn root_proof(&self) -> Option<(bool, u8)>;
    /// The principal variation.
    fn pv(&self, max_len: usize) -> Vec<T::Move>;
    /// Nodes in the tree, how full its memory is (permille of the slot budget handed
    /// out, UCI's `hashfull`), and the bytes reserved.
    fn usage(&self) -> (usize, u32, usize);
}

impl<T: GameTree> TreeSearch<T> for Searcher<T> {
    fn prepare(&mut self, tree: &mut T, root: &T::Node, root_move: T::Move) -> Option<f32> {
        Searcher::prepare(self, tree, root, root_move)
    }
    #[inline]
    fn iterate(&mut self, tree: &mut T, root: &T::Node) {
        Searcher::iterate(self, tree, root);
    }
    fn max_depth(&self) -> usize {
        self.max_depth
    }
    fn added(&self) -> (u64, u64) {
        (self.added, self.terminals)
    }
    fn full(&self) -> bool {
        self.full
    }
    fn root_value(&self) -> f32 {
        Searcher::root_value(self)
    }
    fn root_proof(&self) -> Option<(bool, u8)> {
        Searcher::root_proof(self)
    }
    fn pv(&self, max_len: usize) -> Vec<T::Move> {
        Searcher::pv(self, max_len)
    }
    fn usage(&self) -> (usize, u32, usize) {
        let a = &self.arena;
        let permille = a.slots() * 1000 / a.max_nodes().max(1);
        (a.len(), permille as u32, a.reserved_bytes())
    }
}

/// The `k`-th move of the node at `state` in its fixed order: a shuffle seeded by the
/// position's identity (not its remaining depth) and `salt`, so the order survives tree
/// reuse, needs no storage, and is the same for every thread that shares a tree.
pub(super) fn nth_move<T: GameTree>(
    tree: &mut T,
    state: &T::Node,
    k: usize,
    salt: u64,
    moves: &mut Vec<T::Move>,
) -> Option<T::Move> {
    if tree.expand(state, moves) != Expansion::Inner {
        return None;
    }
    let len = moves.len();
    if k >= len {
        return None;
    }
    let mut order = Rng::new(tree.id(state) ^ salt);
    for i in 0..=k {
        let j = i + order.below(len - i);
        moves.swap(i, j);
    }
    Some(moves[k])
}

/// What is known of a node when it is added: its statistics before any backup, and the
/// value of its position for its side to move (`leaf`).
pub(super) struct Fresh {
    pub moves: u16,
    pub terminal: bool,
    /// From the point of view of the player who moved into the node.
    pub value: f32,
    pub proof: Proof,
    pub plies: u8,
    pub leaf: f32,
}

/// Values a new node: exactly when terminal (or, with the solver, when its side to move
/// mates at once), otherwise by a playout or the tree's heuristic.
pub(super) fn value_new<T: GameTree>(
    tree: &mut T,
    state: &T::Node,
    cfg: &Config,
    rng: &mut Rng,
    moves: &mut Vec<T::Move>,
) -> Fresh {
    let terminal = match tree.expand(state, moves) {
        Expansion::Leaf(v) => Some(cfg.scale.exact(v)),
        Expansion::Inner => None,
    };
    let fresh = |leaf: f32, proof, plies| Fresh {
        moves: 0,
        terminal: false,
        value: -leaf,
        proof,
        plies,
        leaf,
    };
    match terminal {
        Some(v) => {
            let proof = if v <= -1.0 {
                Proof::Win
            } else if v >= 1.0 {
                Proof::Loss
            } else {
                Proof::Unknown
            };
            Fresh {
                terminal: true,
                ..fresh(v, proof, 1)
            }
        }
        None => {
            let count = moves.len().min(u16::MAX as usize) as u16;
            if cfg.solver && tree.wins_at_once(state, moves) {
                // The side to move here mates next move: the move into the node loses.
                return Fresh {
                    moves: count,
                    ..fresh(1.0, Proof::Loss, 2)
                };
            }
            let leaf = playout::estimate(tree, state, cfg.leaf, cfg.scale, rng);
            Fresh {
                moves: count,
                ..fresh(leaf, Proof::Unknown, 0)
            }
        }
    }
}

/// A node's value and proof after a backup through it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Backed {
    pub value: f32,
    pub proof: Proof,
    pub plies: u8,
}

/// The backup of one node that is not settled, from its mean and its children: the mean
/// (UCT, UCTH) or the best child's value for its side to move (UCTMAX-H, §3.2.5); with
/// the solver, it is lost for the player who moved into it when one child wins for its
/// side to move, and won when every move is in the tree and every one loses.
#[inline]
pub(super) fn backed_up(
    cfg: &Config,
    mean: f32,
    moves: u16,
    expanded: u16,
    leafy: bool,
    children: impl Iterator<Item = ChildStats>,
) -> Backed {
    let minimax = cfg.backup == Backup::Minimax && !leafy;
    let mut out = Backed {
        value: mean,
        proof: Proof::Unknown,
        plies: 0,
    };
    if !minimax && !cfg.solver {
        return out;
    }
    let mut best = f32::NEG_INFINITY;
    let mut win_plies: Option<u8> = None;
    let mut all_lost = moves > 0 && expanded == moves;
    let mut longest = 0u8;
    for ch in children {
        best = best.max(ch.value);
        match ch.proof {
            Proof::Win => win_plies = Some(win_plies.map_or(ch.plies, |p| p.min(ch.plies))),
            Proof::Loss => longest = longest.max(ch.plies),
            Proof::Unknown => all_lost = false,
        }
    }
    if minimax {
        out.value = -best;
    }
    if !cfg.solver {
        return out;
    }
    if let Some(p) = win_plies {
        out = Backed {
            value: -1.0,
            proof: Proof::Loss,
            plies: p.saturating_add(1),
        };
    } else if all_lost {
        out = Backed {
            value: 1.0,
            proof: Proof::Win,
            plies: longest.saturating_add(1),
        };
    }
    out
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
