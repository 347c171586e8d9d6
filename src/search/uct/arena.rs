//! The UCT search tree as an arena of nodes addressed by `u32` indices (indices instead of
//! boxed nodes: compact, and no allocation per node), bounded by a node budget derived from
//! the `TreeMemory` option. Children are added one at a time, as UCT expands them
//! (Understanding Sampling-Based Adversarial Search Methods (2012) §2.4: one new node per
//! iteration), so the memory grows with the iterations, not with the branching factor.
//! When the budget is spent the arena refuses new nodes and the search keeps iterating
//! inside the tree it has.
//!
//! A node's children lie side by side in one run of slots, so that selection, which reads
//! every child of every node on its path, walks a contiguous block the processor can load
//! ahead instead of chasing one link per child through a tree of many megabytes. A run
//! holds a power of two of children (or all the node's moves, if fewer); a node whose run
//! is full moves its children to a run twice the size, and the old run goes to a free list
//! of its size for the next node that grows to it.

/// "No node": a node without children.
pub const NONE: u32 = u32::MAX;

/// What is proven about a node, from the point of view of the player who moved into it
/// (the side to move at its parent). Used by the solver (`UCT_Solver`) and terminals.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proof {
    Unknown,
    /// The move into this node wins by force.
    Win,
    /// The move into this node loses by force.
    Loss,
}

/// One node. Statistics are from the point of view of the player who made the move into
/// the node, so that a parent simply picks the child with the largest value.
#[derive(Debug, Clone, Copy)]
pub struct Node<M> {
    /// The move from the parent (meaningless at the root).
    pub mv: M,
    /// The first slot of the run holding the children, `NONE` before the first.
    pub first_child: u32,
    pub visits: u32,
    /// Sum of the values backed up through this node. An f32 sum would stop absorbing
    /// ±1 samples near 2^24 visits, which `go infinite` reaches in well under a minute.
    pub sum: f64,
    /// The node's current value: the mean for UCT/UCTH, the minimax of the children for
    /// UCTMAX-H, ±1 once proven.
    pub value: f32,
    /// Legal moves at the node (0 at terminals), known from its first visit.
    pub moves: u16,
    /// Children in the arena. The expanded children are always the first `expanded` moves
    /// of the node's move order (unvisited moves are tried before any UCB choice).
    pub expanded: u16,
    pub proof: Proof,
    /// With a proof: plies from the parent to the end of the game (mate distance).
    pub plies: u8,
    pub terminal: bool,
}

impl<M: Copy> Node<M> {
    pub fn new(mv: M) -> Self {
        Node {
            mv,
            first_child: NONE,
            visits: 0,
            sum: 0.0,
            value: 0.0,
            moves: 0,
            expanded: 0,
            proof: Proof::Unknown,
            plies: 0,
            terminal: false,
        }
    }

    /// Proven, or a terminal: the search does not descend below it.
    #[inline]
    pub fn is_settled(&self) -> bool {
        self.terminal || self.proof != Proof::Unknown
    }
}

// The chess node's size is what `TreeMemory` is divided by; the README quotes it.
const _: () = assert!(std::mem::size_of::<Node<shakmaty::Move>>() == 32);

/// Slots of the run that holds `children` children of a node with `moves` moves: the
/// next power of two, or the moves if fewer (a node's last run is cut to fit).
#[inline]
fn run_len(children: u16, moves: u16) -> usize {
    match children {
        0 => 0,
        k => usize::from(k)
            .next_power_of_two()
            .min(usize::from(moves.max(k))),
    }
}

/// The node store of one search tree.
#[derive(Debug, Clone)]
pub struct Arena<M> {
    nodes: Vec<Node<M>>,
    max_nodes: usize,
    /// Nodes in the tree (the slots less the free and the unused ones).
    count: usize,
    /// `free[c]`: first slots of unused runs of 2^c slots, left by nodes that grew.
    free: Vec<Vec<u32>>,
}

impl<M: Copy> Arena<M> {
    /// An arena that never holds more than `bytes` of nodes (at least the root).
    pub fn with_memory(bytes: usize) -> Self {
        Arena {
            nodes: Vec::new(),
            max_nodes: (bytes / Self::node_size()).max(1),
            count: 0,
            free: Vec::new(),
        }
    }

    /// Bytes per node.
    pub const fn node_size() -> usize {
        std::mem::size_of::<Node<M>>()
    }

    /// Nodes in the tree.
    #[inline]
    pub fn len(&self) -> usize {
        self.count
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Slots handed out: the nodes, the runs' unused tails and the runs on the free lists.
    pub fn slots(&self) -> usize {
        self.nodes.len()
    }

    /// The slot budget (the nodes the memory holds if every run were full).
    pub fn max_nodes(&self) -> usize {
        self.max_nodes
    }

    /// Bytes reserved for nodes (what the bound applies to).
    pub fn reserved_bytes(&self) -> usize {
        self.nodes.capacity() * Self::node_size()
    }

    /// Drops every node (keeps the allocation for the next tree).
    pub fn clear(&mut self) {
        self.nodes.clear();
        self.free.clear();
        self.count = 0;
    }

    /// Starts a tree with a root and returns its index (0).
    pub fn set_root(&mut self, mut root: Node<M>) -> u32 {
        self.clear();
        root.first_child = NONE;
        root.expanded = 0;
        self.nodes.push(root);
        self.count = 1;
        0
    }

    /// Adds `node` as the newest child of `parent`, or returns `None` when the budget is
    /// spent. The parent's other children may move (their indices change; their subtrees
    /// do not).
    pub fn add_child(&mut self, parent: u32, node: Node<M>) -> Option<u32> {
        let p = self.nodes[parent as usize];
        let k = p.expanded;
        let old_len = run_len(k, p.moves);
        let mut first = p.first_child;
        if usize::from(k) == old_len {
            let new_len = run_len(k + 1, p.moves);
            let fresh = self.alloc_run(new_len)?;
            if k > 0 {
                let from = first as usize;
                self.nodes
                    .copy_within(from..from + usize::from(k), fresh as usize);
                // A run is outgrown only at a power of two (else it held every move), so
                // it fits a free list; one that does not is left unused.
                if old_len.is_power_of_two() {
                    self.free[old_len.trailing_zeros() as usize].push(first);
                }
            }
            first = fresh;
        }
        let id = first + u32::from(k);
        self.nodes[id as usize] = node;
        let p = &mut self.nodes[parent as usize];
        p.first_child = first;
        p.expanded = k + 1;
        self.count += 1;
        Some(id)
    }

    /// The first slot of an unused run of `len` slots: a free one of that size, or new
    /// ones at the end if the budget allows.
    fn alloc_run(&mut self, len: usize) -> Option<u32> {
        if len.is_power_of_two() {
            let class = len.trailing_zeros() as usize;
            if self.free.len() <= class {
                self.free.resize(class + 1, Vec::new());
            }
            if let Some(first) = self.free[class].pop() {
                return Some(first);
            }
        }
        let start = self.nodes.len();
        if start + len > self.max_nodes {
            return None;
        }
        if start + len > self.nodes.capacity() {
            // Grow by doubling, but never reserve beyond the budget: the bound is on what
            // the process allocates, not only on what it uses.
            let target = (self.nodes.capacity() * 2)
                .max(1024)
                .max(start + len)
                .min(self.max_nodes);
            self.nodes.reserve_exact(target - start);
        }
        let filler = self.nodes[0];
        self.nodes.resize(start + len, filler);
        Some(start as u32)
    }

    /// The children of `id`, newest first.
    #[inline]
    pub fn children(&self, id: u32) -> Children {
        let n = &self.nodes[id as usize];
        let first = n.first_child;
        Children {
            first,
            next: first.wrapping_add(u32::from(n.expanded)),
        }
    }

    /// The child of `id` reached by `mv`, if it is in the tree.
    pub fn child_by_move(&self, id: u32, mv: M) -> Option<u32>
    where
        M: PartialEq,
    {
        self.children(id).find(|&c| self.nodes[c as usize].mv == mv)
    }

    /// A new arena holding only the subtree under `id`, with `id` as its root (index 0):
    /// tree reuse after the moves actually played. Breadth-first, each node's children
    /// copied into one run in their original order.
    pub fn extract(&self, id: u32) -> Arena<M> {
        let mut out = Arena::with_memory(self.max_nodes * Self::node_size());
        out.set_root(self.nodes[id as usize]);
        // (index in self, index in out) of nodes whose children are still to copy.
        let mut queue = std::collections::VecDeque::from([(id, 0u32)]);
        while let Some((old, new)) = queue.pop_front() {
            let n = self.nodes[old as usize];
            let k = n.expanded;
            if k == 0 {
                continue;
            }
            // The copy needs no more slots than the original, so this always succeeds; a
            // node left childless would still be a valid tree.
            let Some(first) = out.alloc_run(run_len(k, n.moves)) else {
                continue;
            };
            let parent = &mut out.nodes[new as usize];
            parent.first_child = first;
            parent.expanded = k;
            for i in 0..u32::from(k) {
                let mut child = self.nodes[(n.first_child + i) as usize];
                queue.push_back((n.first_child + i, first + i));
                child.first_child = NONE;
                child.expanded = 0;
                out.nodes[(first + i) as usize] = child;
                out.count += 1;
            }
        }
        out
    }
}

impl<M> std::ops::Index<u32> for Arena<M> {
    type Output = Node<M>;
    #[inline]
    fn index(&self, id: u32) -> &Node<M> {
        &self.nodes[id as usize]
    }
}

impl<M> std::ops::IndexMut<u32> for Arena<M> {
    #[inline]
    fn index_mut(&mut self, id: u32) -> &mut Node<M> {
        &mut self.nodes[id as usize]
    }
}

/// Iterator over a node's children, newest (highest slot) first.
pub struct Children {
    first: u32,
    next: u32,
}

impl Iterator for Children {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.next == self.first {
            return None;
        }
        self.next -= 1;
        Some(self.next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_bounds_nodes_and_reserved_memory() {
        let bytes = 100 * Arena::<u32>::node_size();
        let mut arena = Arena::with_memory(bytes);
        let root = arena.set_root(Node::new(0));
        arena[root].moves = 200;
        let mut added = 1;
        while arena.add_child(root, Node::new(added)).is_some() {
            added += 1;
        }
        // Runs of 1, 2, 4, 8, 16 and 32 slots (63 of the 100); the next, 64, does not fit.
        assert_eq!(arena.len(), 33);
        assert_eq!(arena[root].expanded, 32);
        assert!(
            arena.reserved_bytes() <= bytes,
            "{}",
            arena.reserved_bytes()
        );
        // The runs the root outgrew serve other nodes: a child's first child takes the
        // free run of one slot, its second the free run of two.
        let child = arena.children(root).next().unwrap();
        arena[child].moves = 3;
        assert!(arena.add_child(child, Node::new(1000)).is_some());
        assert!(arena.add_child(child, Node::new(1001)).is_some());
        assert_eq!(arena.len(), 35);
        let moves: Vec<u32> = arena.children(child).map(|c| arena[c].mv).collect();
        assert_eq!(moves, [1001, 1000]);
        // The root's children kept their order and statistics through every move.
        let moves: Vec<u32> = arena.children(root).map(|c| arena[c].mv).collect();
        assert_eq!(moves, (1..=32).rev().collect::<Vec<_>>());
    }

    #[test]
    fn extract_keeps_the_subtree_and_its_order() {
        let mut arena = Arena::with_memory(1 << 20);
        let root = arena.set_root(Node::new(0u32));
        let with_moves = |mv| Node {
            moves: 4,
            ..Node::new(mv)
        };
        arena[root].moves = 4;
        // An index is good until the node's parent gains a child (the run may move), so
        // each is looked up by its move after the additions.
        arena.add_child(root, with_moves(1)).unwrap();
        arena.add_child(root, with_moves(2)).unwrap();
        let a = arena.child_by_move(root, 1).unwrap();
        for m in 10..13 {
            arena.add_child(a, with_moves(m)).unwrap();
        }
        let aa = arena.child_by_move(a, 11).unwrap();
        arena.add_child(aa, with_moves(20)).unwrap();
        let b = arena.child_by_move(root, 2).unwrap();
        arena.add_child(b, with_moves(30)).unwrap();
        let a = arena.child_by_move(root, 1).unwrap();
        let sub = arena.extract(a);
        assert_eq!(sub.len(), 5);
        assert_eq!(sub[0].mv, 1);
        let moves: Vec<u32> = sub.children(0).map(|c| sub[c].mv).collect();
        let original: Vec<u32> = arena.children(a).map(|c| arena[c].mv).collect();
        assert_eq!(moves, original);
        let deep = sub.child_by_move(0, 11).unwrap();
        assert_eq!(
            sub.children(deep).map(|c| sub[c].mv).collect::<Vec<_>>(),
            [20]
        );
    }

    #[test]
    fn a_tree_grown_at_random_keeps_every_subtree_through_its_moves() {
        // Children added one at a time at random places, checked against a plain model:
        // each move's children, oldest first (moves are numbered uniquely).
        let mut arena = Arena::with_memory(1 << 20);
        let root = arena.set_root(Node::new(0u32));
        arena[root].moves = 40;
        let mut model: std::collections::HashMap<u32, Vec<u32>> = Default::default();
        let mut rng = crate::tree::Rng::new(5);
        for mv in 1..6000u32 {
            let mut id = root;
            while arena[id].expanded > 0 && rng.below(4) != 0 {
                let kids: Vec<u32> = arena.children(id).collect();
                id = kids[rng.below(kids.len())];
            }
            if arena[id].expanded < arena[id].moves {
                let parent = arena[id].mv;
                let node = Node {
                    moves: 1 + (mv % 37) as u16,
                    ..Node::new(mv)
                };
                let child = arena.add_child(id, node).unwrap();
                assert_eq!(arena[child].mv, mv);
                model.entry(parent).or_default().push(mv);
            }
        }
        let mut seen = 1;
        let mut stack = vec![root];
        while let Some(id) = stack.pop() {
            let mut kids: Vec<u32> = arena.children(id).map(|c| arena[c].mv).collect();
            kids.reverse();
            assert_eq!(kids, model.remove(&arena[id].mv).unwrap_or_default());
            seen += kids.len();
            stack.extend(arena.children(id));
        }
        assert!(model.is_empty());
        assert_eq!(seen, arena.len());
        assert!(arena.len() > 3000, "{}", arena.len());
        // Tree reuse copies the same shape.
        let first = arena.children(root).last().unwrap();
        let sub = arena.extract(first);
        let count = |a: &Arena<u32>, id: u32| -> usize {
            let mut n = 0;
            let mut stack = vec![id];
            while let Some(i) = stack.pop() {
                n += 1;
                stack.extend(a.children(i));
            }
            n
        };
        assert_eq!(sub.len(), count(&arena, first));
        assert_eq!(count(&sub, 0), sub.len());
    }
}
