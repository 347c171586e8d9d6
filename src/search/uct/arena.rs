//! The UCT search tree as an arena of nodes addressed by `u32` indices (indices instead of boxed nodes: compact, and no pointer chasing),
//! bounded by a node budget derived from the `TreeMemory` option. Children are added one
//! at a time, as UCT expands them (Understanding Sampling-Based Adversarial Search Methods (2012) §2.4: one new node per iteration), and linked as
//! siblings, so the memory grows with the iterations, not with the branching factor.
//! When the budget is spent the arena refuses new nodes and the search keeps iterating
//! inside the tree it has.

/// "No node": the end of a sibling list, a node without children.
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
    pub first_child: u32,
    pub next_sibling: u32,
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
            next_sibling: NONE,
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
const _: () = assert!(std::mem::size_of::<Node<shakmaty::Move>>() == 40);

/// The node store of one search tree.
#[derive(Debug, Clone)]
pub struct Arena<M> {
    nodes: Vec<Node<M>>,
    max_nodes: usize,
}

impl<M: Copy> Arena<M> {
    /// An arena that never holds more than `bytes` of nodes (at least the root).
    pub fn with_memory(bytes: usize) -> Self {
        Arena {
            nodes: Vec::new(),
            max_nodes: (bytes / Self::node_size()).max(1),
        }
    }

    /// Bytes per node.
    pub const fn node_size() -> usize {
        std::mem::size_of::<Node<M>>()
    }

    /// Nodes in the tree.
    #[inline]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The node budget.
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
    }

    /// Starts a tree with a root and returns its index (0).
    pub fn set_root(&mut self, root: Node<M>) -> u32 {
        self.nodes.clear();
        self.push(root);
        0
    }

    /// Adds `node` as the newest child of `parent`, or returns `None` when the budget is
    /// spent.
    pub fn add_child(&mut self, parent: u32, mut node: Node<M>) -> Option<u32> {
        if self.nodes.len() >= self.max_nodes {
            return None;
        }
        let p = &self.nodes[parent as usize];
        node.next_sibling = p.first_child;
        let id = self.push(node);
        let p = &mut self.nodes[parent as usize];
        p.first_child = id;
        p.expanded += 1;
        Some(id)
    }

    fn push(&mut self, node: Node<M>) -> u32 {
        if self.nodes.len() == self.nodes.capacity() {
            // Grow by doubling, but never reserve beyond the budget: the bound is on what
            // the process allocates, not only on what it uses.
            let target = (self.nodes.capacity() * 2).max(1024).min(self.max_nodes);
            self.nodes
                .reserve_exact(target.saturating_sub(self.nodes.len()).max(1));
        }
        self.nodes.push(node);
        (self.nodes.len() - 1) as u32
    }

    /// The children of `id`, newest first.
    #[inline]
    pub fn children(&self, id: u32) -> Children<'_, M> {
        Children {
            arena: self,
            next: self.nodes[id as usize].first_child,
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
    /// tree reuse after the moves actually played. Breadth-first, so that the copy keeps
    /// each node's children contiguous and in their original order.
    pub fn extract(&self, id: u32) -> Arena<M> {
        let mut out = Arena {
            nodes: Vec::new(),
            max_nodes: self.max_nodes,
        };
        let mut root = self.nodes[id as usize];
        root.next_sibling = NONE;
        out.set_root(root);
        // (index in self, index in out) of nodes whose children are still to copy.
        let mut queue = std::collections::VecDeque::from([(id, 0u32)]);
        let mut kids = Vec::new();
        while let Some((old, new)) = queue.pop_front() {
            kids.clear();
            kids.extend(self.children(old));
            let mut previous = NONE;
            // Rebuild the list in the same order: push oldest first, link newest first.
            for &k in kids.iter().rev() {
                let mut node = self.nodes[k as usize];
                node.first_child = NONE;
                node.next_sibling = previous;
                let fresh = out.push(node);
                previous = fresh;
                queue.push_back((k, fresh));
            }
            out.nodes[new as usize].first_child = previous;
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

/// Iterator over a node's children.
pub struct Children<'a, M> {
    arena: &'a Arena<M>,
    next: u32,
}

impl<M> Iterator for Children<'_, M> {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.next == NONE {
            return None;
        }
        let id = self.next;
        self.next = self.arena.nodes[id as usize].next_sibling;
        Some(id)
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
        let mut added = 1;
        while arena.add_child(root, Node::new(added)).is_some() {
            added += 1;
        }
        assert_eq!(arena.len(), 100);
        assert!(
            arena.reserved_bytes() <= bytes,
            "{}",
            arena.reserved_bytes()
        );
        assert_eq!(arena[root].expanded, 99);
    }

    #[test]
    fn extract_keeps_the_subtree_and_its_order() {
        let mut arena = Arena::with_memory(1 << 20);
        let root = arena.set_root(Node::new(0u32));
        let a = arena.add_child(root, Node::new(1)).unwrap();
        let b = arena.add_child(root, Node::new(2)).unwrap();
        for m in 10..13 {
            arena.add_child(a, Node::new(m)).unwrap();
        }
        let aa = arena.child_by_move(a, 11).unwrap();
        arena.add_child(aa, Node::new(20)).unwrap();
        arena.add_child(b, Node::new(30)).unwrap();
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
}
