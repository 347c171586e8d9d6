//! Tree parallelism: every thread iterates on the one [`SharedArena`] (Parallel Monte-Carlo
//! Tree Search (2008), Chaslot, Winands and van den Herik, §3.3), with the iteration of
//! [`super::search`] — the same move order, valuation of new nodes and backup rule — and
//! two additions:
//! - **virtual loss** (ibid.): a thread adds 1 to a counter of every node below the root
//!   on its way down and takes it back when it backs up through the node (the root is
//!   weighed against no sibling, and every iteration writes it). Selection counts each as a
//!   visit that lost (-1 for the player who moved into the node), so a child other
//!   threads are inside looks worse, and threads spread over the tree instead of all
//!   descending the same path;
//! - a node's move is **claimed** before it is added (a counter per node handing each move
//!   of the node's order to one thread), so no child is added twice, and a new node is
//!   valued before it is linked, so no thread sees a node without its value.
//!
//! A node's status (value, proof) is recomputed after each backup through it and replaced
//! by compare-and-swap; the thread that replaced it then recomputes it once more, and
//! replaces it again if its inputs moved meanwhile. So when the threads stop, every
//! status is the backup rule applied to the final statistics: the last replacement was
//! checked against inputs read after it, and any later change to an input was followed by
//! its writer's own backup through the node.

use super::arena::Proof;
use super::playout;
use super::policy::{self, ChildStats};
use super::search::{Backup, Config, ROOT, TreeSearch, backed_up, nth_move, value_new};
use super::shared::{NewNode, SharedArena, Status};
use crate::tree::{Expansion, GameTree, Rng};

/// The seed of the move-order salt of the shared tree: thread 0's in root parallelism, so
/// that one thread with either mode orders moves alike.
const SHARED_SALT_SEED: u64 = 1;

/// The virtual loss a thread adds to each node on its path (Chaslot et al. (2008) use 1
/// visit valued as a loss).
const VIRTUAL_LOSS: u32 = 1;

/// Slots a thread takes from the arena at a time.
pub const SLOT_BLOCK: usize = 16;

/// What trying to add a child gave.
enum Expand {
    /// A new child, and the value of its position for its side to move.
    Added(u32, f32),
    /// The arena is full.
    Full,
    /// Every move of the node is in the tree or being added by another thread.
    Taken,
}

/// One thread's handle on the shared tree.
pub struct SharedSearcher<'a, T: GameTree> {
    pub arena: &'a SharedArena<T::Move>,
    cfg: Config,
    rng: Rng,
    salt: u64,
    path: Vec<u32>,
    moves: Vec<T::Move>,
    /// Slots this thread took from the arena and has not used yet (a slot stays when
    /// another thread claims the move first).
    slots: std::ops::Range<u32>,
    /// Values of nodes that are not settled are their means (UCT, UCTH).
    average: bool,
    /// Deepest node this thread reached from the root.
    pub max_depth: usize,
    /// Nodes this thread added, and how many of them were terminal.
    pub added: u64,
    pub terminals: u64,
    /// The arena refused a node at least once.
    pub full: bool,
}

impl<'a, T: GameTree> SharedSearcher<'a, T> {
    /// Thread `seed - 1`'s handle: its own random stream, the tree's common move order.
    pub fn new(arena: &'a SharedArena<T::Move>, cfg: Config, seed: u64) -> Self {
        SharedSearcher {
            arena,
            cfg,
            rng: Rng::new(seed),
            salt: SHARED_SALT_SEED.wrapping_mul(0x9E37_79B9_7F4A_7C15),
            path: Vec::with_capacity(256),
            moves: Vec::with_capacity(256),
            slots: 0..0,
            average: cfg.backup == Backup::Average,
            max_depth: 0,
            added: 0,
            terminals: 0,
            full: false,
        }
    }

    /// Makes node 0 the tree's node for `root`, as [`super::search::Searcher::prepare`]
    /// does. Called by one thread before any other starts iterating.
    pub fn prepare(&mut self, tree: &mut T, root: &T::Node, root_move: T::Move) -> Option<f32> {
        if self.arena.is_empty() {
            let _ = self.arena.set_root(root_move);
        }
        let terminal = match tree.expand(root, &mut self.moves) {
            Expansion::Leaf(v) => Some(self.cfg.scale.exact(v)),
            Expansion::Inner => None,
        };
        let moves = match terminal {
            Some(_) => 0,
            None => self.moves.len().min(u16::MAX as usize) as u16,
        };
        let node = self.arena.node(ROOT);
        let status = Status {
            value: node.status().value,
            ..Status::UNKNOWN
        };
        node.set_root(status, moves);
        terminal
    }

    /// One iteration from `root`, concurrently with the other threads'.
    pub fn iterate(&mut self, tree: &mut T, root: &T::Node) {
        let arena = self.arena;
        self.path.clear();
        // No virtual loss at the root: no selection weighs it against siblings, and it is
        // the one node every iteration of every thread writes.
        self.path.push(ROOT);
        let mut state = root.clone();
        let mut node = ROOT;
        let mut ply = 0;
        // The value of the last node of the path for its side to move.
        let leaf = loop {
            let n = arena.node(node);
            let status = n.status();
            if status.is_settled() {
                break -status.value;
            }
            if n.claimed() < n.moves() {
                match self.expand(tree, node, &state) {
                    Expand::Added(child, leaf) => {
                        ply += 1;
                        self.path.push(child);
                        break leaf;
                    }
                    Expand::Full => {
                        self.full = true;
                        if !n.has_children() {
                            break self.estimate(tree, &state);
                        }
                    }
                    Expand::Taken => {}
                }
            }
            // A node whose moves are all claimed and none linked yet is re-estimated.
            let Some((child, mv)) = self.select(node) else {
                break self.estimate(tree, &state);
            };
            arena.node(child).add_virtual_loss();
            ply += 1;
            state = tree.play(&state, mv);
            self.path.push(child);
            node = child;
        };
        self.max_depth = self.max_depth.max(ply);
        self.backup(leaf);
    }

    /// Questions about the tree's root.
    pub fn view(&self) -> SharedView<'a, T::Move> {
        SharedView {
            arena: self.arena,
            average: self.average,
        }
    }

    fn estimate(&mut self, tree: &mut T, state: &T::Node) -> f32 {
        playout::estimate(tree, state, self.cfg.leaf, self.cfg.scale, &mut self.rng)
    }

    /// Claims the next move of `node`, values the new child and links it.
    fn expand(&mut self, tree: &mut T, node: u32, state: &T::Node) -> Expand {
        let arena = self.arena;
        if self.slots.is_empty() {
            match arena.alloc_block(SLOT_BLOCK) {
                Some(block) => self.slots = block,
                None => return Expand::Full,
            }
        }
        let slot = self.slots.start;
        let n = arena.node(node);
        let Some(k) = n.claim() else {
            return Expand::Taken;
        };
        let Some(mv) = nth_move(tree, state, k as usize, self.salt, &mut self.moves) else {
            // Fewer moves than recorded (a reused root under other rules).
            n.truncate_moves(k);
            return Expand::Taken;
        };
        self.slots.start += 1;
        let child = tree.play(state, mv);
        let fresh = value_new(tree, &child, &self.cfg, &mut self.rng, &mut self.moves);
        self.added += 1;
        self.terminals += u64::from(fresh.terminal);
        let new = NewNode {
            mv,
            status: Status {
                value: fresh.value,
                proof: fresh.proof,
                plies: fresh.plies,
                terminal: fresh.terminal,
            },
            moves: fresh.moves,
        };
        arena.write(slot, new, VIRTUAL_LOSS);
        arena.link(node, slot);
        Expand::Added(slot, fresh.leaf)
    }

    /// UCB1 over the linked children, each child's virtual losses counted as visits that
    /// lost; the chosen child and its move.
    fn select(&self, node: u32) -> Option<(u32, T::Move)> {
        let arena = self.arena;
        let (visits, losses) = arena.node(node).counts();
        let average = self.average;
        let children = arena.children(node).map(|c| {
            let (mut s, losses) = arena.node(c).stats_and_losses(average);
            if losses > 0 {
                let total = s.visits + losses;
                s.value = (s.value * s.visits as f32 - losses as f32) / total as f32;
                s.visits = total;
            }
            (c, s)
        });
        let child = policy::select_among(visits + losses, children, self.cfg.c, self.cfg.solver)?;
        Some((child, arena.node(child).mv()?))
    }

    fn backup(&mut self, leaf: f32) {
        // With average backups and no solver a status changes only at creation: the
        // value is the mean, read from the counters.
        let refresh = !self.average || self.cfg.solver;
        // From the point of view of the player who moved into the last node.
        let mut v = -leaf;
        // The last node is new, re-estimated or proven, so its parent is refreshed; above
        // it a parent is refreshed only if this thread changed its child's status. A
        // status another thread changed is that thread's to carry up, and a status that
        // did not change leaves its parent's inputs as they were: scanning the children
        // of every node on the path, whose counters the other threads keep writing, was
        // most of an iteration's cost near the root.
        let mut changed = true;
        for i in (0..self.path.len()).rev() {
            let id = self.path[i];
            self.arena.node(id).add_sample(v, i > 0);
            v = -v;
            changed = refresh && changed && (self.refresh(id) || i + 1 == self.path.len());
        }
    }

    /// Applies the backup rule to `id` until its status agrees with its inputs as read
    /// after the last change (see the module's comment). True when this call stored a
    /// new status.
    fn refresh(&self, id: u32) -> bool {
        let arena = self.arena;
        let n = arena.node(id);
        let mut stored = false;
        loop {
            let old = n.status();
            if old.is_settled() {
                return stored;
            }
            let (moves, expanded, leafy) = (n.moves(), n.expanded(), !n.has_children());
            let children = arena
                .children(id)
                .map(|c| arena.node(c).stats(self.average));
            let b = backed_up(&self.cfg, n.mean(), moves, expanded, leafy, children);
            // A stored mean would be read by no one.
            let value = if self.average && b.proof == Proof::Unknown {
                old.value
            } else {
                b.value
            };
            let new = Status {
                value,
                proof: b.proof,
                plies: b.plies,
                terminal: false,
            };
            if new == old {
                return stored;
            }
            stored |= n.update_status(old, new);
        }
    }
}

impl<T: GameTree> TreeSearch<T> for SharedSearcher<'_, T> {
    fn prepare(&mut self, tree: &mut T, root: &T::Node, root_move: T::Move) -> Option<f32> {
        SharedSearcher::prepare(self, tree, root, root_move)
    }
    #[inline]
    fn iterate(&mut self, tree: &mut T, root: &T::Node) {
        SharedSearcher::iterate(self, tree, root);
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
        self.view().root_value()
    }
    fn root_proof(&self) -> Option<(bool, u8)> {
        self.view().root_proof()
    }
    fn pv(&self, max_len: usize) -> Vec<T::Move> {
        self.view().pv(max_len)
    }
    fn usage(&self) -> (usize, u32, usize) {
        let a = self.arena;
        let permille = a.len() * 1000 / a.max_nodes().max(1);
        (a.len(), permille as u32, a.reserved_bytes())
    }
}

/// Questions about the shared tree's root, answered from any thread or after the search.
pub struct SharedView<'a, M> {
    pub arena: &'a SharedArena<M>,
    /// The tree's values are means (see [`super::shared::SharedNode::stats`]).
    pub average: bool,
}

impl<'a, M: Copy + PartialEq> SharedView<'a, M> {
    /// A node's children and their statistics.
    fn children(&self, node: u32) -> impl Iterator<Item = (u32, ChildStats)> + 'a {
        let (arena, average) = (self.arena, self.average);
        arena
            .children(node)
            .map(move |c| (c, arena.node(c).stats(average)))
    }

    /// The root's value for its side to move.
    pub fn root_value(&self) -> f32 {
        -self.arena.node(ROOT).stats(self.average).value
    }

    /// What is proven at the root, as [`super::search::Searcher::root_proof`] says it.
    pub fn root_proof(&self) -> Option<(bool, u8)> {
        let root = self.arena.node(ROOT).status();
        if let Some(c) = policy::final_choice_among(self.children(ROOT)) {
            let s = self.arena.node(c).status();
            if s.proof == Proof::Win {
                return Some((true, s.plies));
            }
        }
        match root.proof {
            Proof::Loss => Some((true, root.plies.saturating_sub(1))),
            Proof::Win => Some((false, root.plies.saturating_sub(1))),
            Proof::Unknown => None,
        }
    }

    /// The move to play (see [`policy::final_choice`]).
    pub fn best_move(&self) -> Option<M> {
        let c = policy::final_choice_among(self.children(ROOT))?;
        self.arena.node(c).mv()
    }

    /// The expected reply to the root move `mv`.
    pub fn reply_to(&self, mv: M) -> Option<M> {
        let child = self.arena.child_by_move(ROOT, mv)?;
        let c = policy::final_choice_among(self.children(child))?;
        self.arena.node(c).mv()
    }

    /// The principal variation: the most visited child, repeatedly.
    pub fn pv(&self, max_len: usize) -> Vec<M> {
        let mut pv = Vec::new();
        let mut node = ROOT;
        while pv.len() < max_len {
            let Some(c) = policy::final_choice_among(self.children(node)) else {
                break;
            };
            let Some(mv) = self.arena.node(c).mv() else {
                break;
            };
            pv.push(mv);
            node = c;
        }
        pv
    }
}

/// Checks on a shared tree no thread is searching, for the tests of both layers.
#[cfg(test)]
pub(crate) mod audit {
    use super::*;

    /// What an audit counted.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Counts {
        /// Nodes reachable from the root.
        pub linked: usize,
        /// Iterations that ended at each node, summed: the root's visits in a fresh tree.
        pub ended: u64,
    }

    /// Every reachable node: no virtual loss left; its linked children are `expanded`,
    /// distinct, and at most `claimed`; it has at least as many visits as its children
    /// together (one more below the root: the iteration that added it); and its status is
    /// the backup rule applied to its final statistics. The node count is within budget.
    pub fn audit<M: Copy + PartialEq + std::fmt::Debug>(
        arena: &SharedArena<M>,
        cfg: &Config,
    ) -> Result<Counts, String> {
        let mut counts = Counts {
            linked: 0,
            ended: 0,
        };
        let mut stack = vec![ROOT];
        while let Some(id) = stack.pop() {
            counts.linked += 1;
            let n = arena.node(id);
            let kids: Vec<u32> = arena.children(id).collect();
            let moves: Vec<Option<M>> = kids.iter().map(|&c| arena.node(c).mv()).collect();
            let child_visits: u64 = kids
                .iter()
                .map(|&c| u64::from(arena.node(c).visits()))
                .sum();
            let own = u64::from(id != ROOT);
            let fail = |what: &str| Err(format!("node {id}: {what}"));
            if n.virtual_loss() != 0 {
                return fail(&format!("virtual loss {} left", n.virtual_loss()));
            }
            if kids.len() != usize::from(n.expanded()) || n.claimed() < n.expanded() {
                return fail(&format!(
                    "{} children, expanded {}, claimed {}",
                    kids.len(),
                    n.expanded(),
                    n.claimed()
                ));
            }
            if moves
                .iter()
                .enumerate()
                .any(|(i, m)| m.is_none() || moves[..i].contains(m))
            {
                return fail(&format!("children's moves {moves:?}"));
            }
            if u64::from(n.visits()) < child_visits + own {
                return fail(&format!("{} visits, children {child_visits}", n.visits()));
            }
            counts.ended += u64::from(n.visits()) - child_visits;
            let average = cfg.backup == Backup::Average;
            let status = n.status();
            if !status.is_settled() && n.visits() > 0 {
                let children = kids.iter().map(|&c| arena.node(c).stats(average));
                let leafy = kids.is_empty();
                let b = backed_up(cfg, n.mean(), n.moves(), n.expanded(), leafy, children);
                let value = n.stats(average).value;
                if n.mean() != n.exact_mean() {
                    return fail(&format!("mean {} of {}", n.mean(), n.exact_mean()));
                }
                if (b.value, b.proof, b.plies) != (value, status.proof, status.plies) {
                    return fail(&format!("status {status:?}, backup gives {b:?}"));
                }
            }
            stack.extend(kids);
        }
        if counts.linked > arena.len() || arena.len() > arena.max_nodes() {
            return Err(format!(
                "{} linked, {} slots, budget {}",
                counts.linked,
                arena.len(),
                arena.max_nodes()
            ));
        }
        Ok(counts)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::audit::audit;
    use super::*;
    use crate::search::uct::arena::Arena;
    use crate::search::uct::playout::{LeafEstimate, Scale};
    use crate::search::uct::search::{Backup, Searcher};
    use crate::tree::{RandomTree, SyntheticNode, ValueRange};

    fn config(c: f32, backup: Backup, solver: bool, scale: f32) -> Config {
        Config {
            c,
            backup,
            solver,
            leaf: LeafEstimate::Heuristic,
            scale: Scale::Linear(scale),
        }
    }

    /// `threads` threads on one shared tree of `tree`, each for `iterations` iterations or
    /// until the root is proven; the nodes each added.
    fn search_shared(
        tree: &RandomTree,
        arena: &SharedArena<u32>,
        cfg: Config,
        threads: usize,
        iterations: u64,
    ) -> u64 {
        let root = tree.root();
        let mut first = SharedSearcher::<RandomTree>::new(arena, cfg, 1);
        first.prepare(&mut tree.clone(), &root, 0);
        let proven = AtomicBool::new(false);
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let (mut tree, proven) = (tree.clone(), &proven);
                    scope.spawn(move || {
                        let mut s = SharedSearcher::<RandomTree>::new(arena, cfg, t as u64 + 1);
                        for _ in 0..iterations {
                            if proven.load(Ordering::Relaxed) {
                                break;
                            }
                            s.iterate(&mut tree, &root);
                            if s.view().root_proof().is_some() {
                                proven.store(true, Ordering::Relaxed);
                            }
                        }
                        s.added
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        })
    }

    /// The inner nodes (above `height`) not fully expanded, with what their counters say:
    /// few visits would mean a selection that starved them, moves below the tree's or
    /// claims that no child followed a lost expansion.
    fn unexpanded(arena: &SharedArena<u32>, height: usize) -> String {
        let mut out = Vec::new();
        let mut stack = vec![(ROOT, 0)];
        while let Some((id, depth)) = stack.pop() {
            let n = arena.node(id);
            if depth < height && (n.expanded() < n.moves() || n.moves() == 0) {
                out.push(format!(
                    "node {id} at depth {depth}: {} visits, {} moves, {} claimed, {} expanded, {:?}",
                    n.visits(),
                    n.moves(),
                    n.claimed(),
                    n.expanded(),
                    n.status()
                ));
            }
            stack.extend(arena.children(id).map(|c| (c, depth + 1)));
        }
        out.join("; ")
    }

    #[test]
    fn uctmaxh_on_a_shared_tree_equals_minimax_once_fully_expanded() {
        for seed in 0..20 {
            // 3^4 = 81 leaves, 121 nodes; c = 3 as in the one-thread test, so that every
            // subtree is entered.
            let tree = RandomTree::new(3, 4, ValueRange::Small(10), seed);
            let exact = tree.minimax(tree.root()) as f32 / 10.0;
            let cfg = config(3.0, Backup::Minimax, false, 10.0);
            // A thread descheduled between claiming a move and linking its node hides the
            // node from the others until it runs again; meanwhile they keep visiting the
            // parent without it, and when it comes in with a value that sinks the parent,
            // the grandparent has already given the parent more visits than UCB grants
            // it at that value, so the new node is barely entered again. Under load (16
            // threads on 2 cores) that left a subtree unexpanded in one run of this test
            // in a few hundred, and further searches on the same tree did not finish it.
            // The search is therefore tried afresh, up to three times, until it expands
            // the whole tree; a node lost for good would be missing every time.
            let mut attempts = 0;
            let (arena, added, counts) = loop {
                attempts += 1;
                let arena = SharedArena::with_memory(1 << 20);
                let added = search_shared(&tree, &arena, cfg, 4, 5_000);
                let counts = audit(&arena, &cfg).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
                if counts.linked == 121 || attempts == 3 {
                    break (arena, added, counts);
                }
            };
            assert_eq!(
                counts.linked,
                121,
                "seed {seed}: fully expanded in none of {attempts} searches; short: {}",
                unexpanded(&arena, 4)
            );
            assert_eq!(added, 120, "seed {seed}: each node added once");
            assert_eq!(counts.ended, 4 * 5_000, "seed {seed}");
            assert_eq!(arena.node(ROOT).visits(), 4 * 5_000, "seed {seed}");
            let view = SharedView {
                arena: &arena,
                average: cfg.backup == Backup::Average,
            };
            assert_eq!(view.root_value(), exact, "seed {seed}");
        }
    }

    /// The exact value of `node` for its side to move, on the [-1, 1] scale of a binary
    /// tree (MAX's leaves are 0 or 1).
    fn exact(tree: &RandomTree, node: SyntheticNode) -> f32 {
        tree.minimax(node) as f32
    }

    /// Every proof in the shared tree agrees with the exact value of its node.
    fn proofs_are_sound(tree: &mut RandomTree, arena: &SharedArena<u32>) -> usize {
        let mut proven = 0;
        let mut stack = vec![(ROOT, tree.root())];
        while let Some((id, node)) = stack.pop() {
            for c in arena.children(id) {
                let child = tree.play(&node, arena.node(c).mv().unwrap());
                let want = match arena.node(c).status().proof {
                    Proof::Win => Some(-1.0),
                    Proof::Loss => Some(1.0),
                    Proof::Unknown => None,
                };
                if let Some(v) = want {
                    assert_eq!(exact(tree, child), v, "{child:?}");
                    proven += 1;
                }
                stack.push((c, child));
            }
        }
        proven
    }

    #[test]
    fn the_solver_proves_the_same_with_one_and_four_threads() {
        let mut proofs = 0;
        let mut wins = 0;
        for seed in 0..24 {
            // Leaves worth 1 or 0 to MAX: MAX wins where it can force a 1, otherwise the
            // root is a draw, which the solver cannot prove. MAX wins most trees of
            // height 5 (it moves last) and few of height 8.
            let height = if seed % 2 == 0 { 5 } else { 8 };
            let mut tree = RandomTree::new(2, height, ValueRange::Binary, seed);
            let cfg = config(0.4, Backup::Minimax, true, 1.0);
            let root = tree.root();
            let mut one = Searcher::new(Arena::with_memory(1 << 20), cfg, 1);
            one.prepare(&mut tree, &root, 0);
            for _ in 0..40_000 {
                if one.root_proof().is_some() {
                    break;
                }
                one.iterate(&mut tree, &root);
            }
            let arena = SharedArena::with_memory(1 << 20);
            search_shared(&tree, &arena, cfg, 4, 10_000);
            audit(&arena, &cfg).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
            let shared = SharedView {
                arena: &arena,
                average: cfg.backup == Backup::Average,
            }
            .root_proof();
            assert_eq!(shared, one.root_proof(), "seed {seed}");
            let expected = (exact(&tree, root) == 1.0).then_some((true, height as u8));
            assert_eq!(shared, expected, "seed {seed}");
            wins += usize::from(expected.is_some());
            proofs += proofs_are_sound(&mut tree, &arena);
        }
        assert!(
            (6..=18).contains(&wins),
            "{wins} of 24 roots won: a poor mix"
        );
        assert!(proofs > 100, "{proofs} proofs checked");
    }

    #[test]
    fn a_full_shared_arena_stops_growing_and_the_search_goes_on() {
        let tree = RandomTree::new(4, 8, ValueRange::Small(100), 3);
        let cfg = config(0.4, Backup::Average, false, 100.0);
        let arena = SharedArena::with_memory(500 * SharedArena::<u32>::node_size());
        search_shared(&tree, &arena, cfg, 4, 3_000);
        let counts = audit(&arena, &cfg).unwrap();
        assert_eq!(arena.len(), 500);
        // At most a block of idle slots per thread.
        assert!(counts.linked >= 500 - 4 * SLOT_BLOCK, "{}", counts.linked);
        assert_eq!(counts.ended, 12_000);
    }
}
