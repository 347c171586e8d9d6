//! The UCT tree that all threads search together (tree parallelism: Parallel Monte-Carlo
//! Tree Search (2008), Chaslot, Winands and van den Herik, §3.3 "tree parallelization").
//! The tree of [`super::arena`] — nodes addressed by `u32`, children added one at a time,
//! a hard node budget from `TreeMemory` — with every field a node shares made an atomic,
//! so that threads read and update it without locks and without `unsafe`. Children are
//! linked newest first rather than kept side by side in runs as one thread's arena keeps
//! them: a run that moves when it fills would move nodes other threads are reading. The
//! rules that keep the threads apart:
//! - a node is written by the one thread that claimed it and only then linked into its
//!   parent's list (a compare-and-swap on the list head), so a reader that reaches it
//!   sees it complete; its move is a `OnceLock`, written once;
//! - the value and what is proven (`Status`) share one 64-bit word, so that a proof and
//!   its ±1 change together, and a settled word is never replaced;
//! - visits and virtual losses share one counter word, and the sum of backed-up values is
//!   another (`fetch_add`); the sum is fixed-point so that it adds exactly in any order;
//! - slots come from a bump counter that never passes the budget, a block at a time for
//!   each thread (one shared counter per block, and a thread's new nodes side by side
//!   instead of interleaved with another's on the same cache lines), in chunks allocated
//!   when first needed (doubling in size), so memory grows with the tree as it does for a
//!   thread's own arena and never beyond `TreeMemory`.

use std::sync::OnceLock;
use std::sync::atomic::Ordering::{Relaxed, SeqCst};
use std::sync::atomic::{AtomicI64, AtomicU16, AtomicU32, AtomicU64, AtomicUsize};

use super::arena::{NONE, Proof};
use super::policy::ChildStats;

/// Fixed-point unit of the value sums: values in [-1, 1] keep 28 bits below the point,
/// and 2^32 visits of ±1 still fit in an i64.
const SUM_UNIT: f64 = (1u64 << 28) as f64;

/// Slots in the first chunk; chunk `c` holds `FIRST_CHUNK << c`.
const FIRST_CHUNK: usize = 1024;

/// A node's value (from the point of view of the player who moved into it) and what is
/// proven about it: one atomic word.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Status {
    pub value: f32,
    pub proof: Proof,
    /// With a proof: plies from the parent to the end of the game.
    pub plies: u8,
    pub terminal: bool,
}

impl Status {
    /// Proven, or a terminal: the search does not descend below it, and its status is final.
    #[inline]
    pub fn is_settled(&self) -> bool {
        self.terminal || self.proof != Proof::Unknown
    }

    fn pack(self) -> u64 {
        let proof = match self.proof {
            Proof::Unknown => 0u64,
            Proof::Win => 1,
            Proof::Loss => 2,
        };
        u64::from(self.value.to_bits())
            | proof << 32
            | u64::from(self.plies) << 34
            | u64::from(self.terminal) << 42
    }

    fn unpack(word: u64) -> Self {
        Status {
            value: f32::from_bits(word as u32),
            proof: match (word >> 32) & 3 {
                1 => Proof::Win,
                2 => Proof::Loss,
                _ => Proof::Unknown,
            },
            plies: (word >> 34) as u8,
            terminal: (word >> 42) & 1 == 1,
        }
    }

    /// A node nothing is known about yet.
    pub const UNKNOWN: Status = Status {
        value: 0.0,
        proof: Proof::Unknown,
        plies: 0,
        terminal: false,
    };
}

/// One node of the shared tree.
#[derive(Debug)]
pub struct SharedNode<M> {
    mv: OnceLock<M>,
    first_child: AtomicU32,
    next_sibling: AtomicU32,
    /// Visits in the high half; in the low half, virtual losses: threads between their
    /// pass down through this node and their backup through it.
    counts: AtomicU64,
    /// Sum of the backed-up values in units of 2^-28.
    sum: AtomicI64,
    /// `sum / visits` as f32 bits, kept by each backup so that selection reads a value
    /// rather than dividing for every child.
    mean: AtomicU32,
    status: AtomicU64,
    /// Legal moves at the node (0 at terminals).
    moves: AtomicU16,
    /// Moves of the node's order handed to a thread to add; `claimed - expanded` of them
    /// are being valued and not linked yet.
    claimed: AtomicU16,
    /// Children linked into the list.
    expanded: AtomicU16,
}

impl<M> SharedNode<M> {
    fn empty() -> Self {
        SharedNode {
            mv: OnceLock::new(),
            first_child: AtomicU32::new(NONE),
            next_sibling: AtomicU32::new(NONE),
            counts: AtomicU64::new(0),
            sum: AtomicI64::new(0),
            mean: AtomicU32::new(0),
            status: AtomicU64::new(Status::UNKNOWN.pack()),
            moves: AtomicU16::new(0),
            claimed: AtomicU16::new(0),
            expanded: AtomicU16::new(0),
        }
    }
}

impl<M: Copy> SharedNode<M> {
    /// The move from the parent (`None` only for a slot not yet written).
    #[inline]
    pub fn mv(&self) -> Option<M> {
        self.mv.get().copied()
    }

    #[inline]
    pub fn status(&self) -> Status {
        Status::unpack(self.status.load(SeqCst))
    }

    #[inline]
    pub fn visits(&self) -> u32 {
        (self.counts.load(SeqCst) >> 32) as u32
    }

    #[inline]
    pub fn virtual_loss(&self) -> u32 {
        self.counts.load(SeqCst) as u32
    }

    /// (visits, virtual losses), read together.
    #[inline]
    pub fn counts(&self) -> (u32, u32) {
        let c = self.counts.load(SeqCst);
        ((c >> 32) as u32, c as u32)
    }

    /// The mean of the values backed up through the node (0 before the first).
    #[inline]
    pub fn mean(&self) -> f32 {
        f32::from_bits(self.mean.load(SeqCst))
    }

    /// The mean from the sum and the visits as they are now.
    pub fn exact_mean(&self) -> f32 {
        let visits = self.visits();
        let sum = self.sum.load(SeqCst);
        (sum as f64 / SUM_UNIT / f64::from(visits.max(1))) as f32
    }

    #[inline]
    pub fn moves(&self) -> u16 {
        self.moves.load(Relaxed)
    }

    #[inline]
    pub fn expanded(&self) -> u16 {
        self.expanded.load(SeqCst)
    }

    #[inline]
    pub fn claimed(&self) -> u16 {
        self.claimed.load(SeqCst)
    }

    #[inline]
    pub fn has_children(&self) -> bool {
        self.first_child.load(SeqCst) != NONE
    }

    /// The statistics selection and the final choice read, virtual losses left out. With
    /// `average` backups the value of a node that is not settled is its mean, kept apart
    /// from the status (so a backup need not replace the status).
    #[inline]
    pub fn stats(&self, average: bool) -> ChildStats {
        self.stats_and_losses(average).0
    }

    /// [`stats`](Self::stats) and the virtual losses, from one read of the counters.
    #[inline]
    pub fn stats_and_losses(&self, average: bool) -> (ChildStats, u32) {
        let s = self.status();
        let (visits, losses) = self.counts();
        let stats = ChildStats {
            value: if average && !s.is_settled() {
                self.mean()
            } else {
                s.value
            },
            visits,
            proof: s.proof,
            plies: s.plies,
        };
        (stats, losses)
    }

    /// Claims the next move of the node's order for the calling thread to add: its index
    /// in the order, or `None` when every move is in the tree or claimed. Each index is
    /// handed out once, so no child is added twice.
    pub fn claim(&self) -> Option<u16> {
        let moves = self.moves();
        self.claimed
            .fetch_update(SeqCst, SeqCst, |k| (k < moves).then_some(k + 1))
            .ok()
    }

    /// The node has fewer moves than recorded (a reused root under other rules): no
    /// index from `k` on is a move.
    pub fn truncate_moves(&self, k: u16) {
        self.moves.fetch_min(k, SeqCst);
    }

    /// A thread passes down through the node.
    #[inline]
    pub fn add_virtual_loss(&self) {
        self.counts.fetch_add(1, SeqCst);
    }

    /// A thread backs `value` up through the node (from the point of view of the player who
    /// moved into it), taking back its virtual loss if it added one on the way down.
    #[inline]
    pub fn add_sample(&self, value: f32, virtual_loss: bool) {
        let loss = u64::from(virtual_loss);
        // Visits stop short of 2^32 (after hours of `go infinite`) rather than carry out
        // of their half: the margin exceeds the most threads that can add at once.
        if self.visits() >= u32::MAX - 1024 {
            self.counts.fetch_sub(loss, SeqCst);
            return;
        }
        self.sum
            .fetch_add((f64::from(value) * SUM_UNIT).round() as i64, SeqCst);
        // One more visit, one virtual loss less, in one step.
        self.counts.fetch_add((1 << 32) - loss, SeqCst);
        // Stored, then checked against the counters read after the store: whoever stores
        // last stored the mean of the final counters (another thread's later sample is
        // followed by its own store).
        loop {
            let (visits, sum) = (self.visits(), self.sum.load(SeqCst));
            let mean = (sum as f64 / SUM_UNIT / f64::from(visits.max(1))) as f32;
            self.mean.store(mean.to_bits(), SeqCst);
            if self.visits() == visits && self.sum.load(SeqCst) == sum {
                break;
            }
        }
    }

    /// Replaces the status `old` by `new`; false if another thread changed it meanwhile.
    /// A settled status is never replaced (proofs are final).
    #[inline]
    pub fn update_status(&self, old: Status, new: Status) -> bool {
        !old.is_settled()
            && self
                .status
                .compare_exchange(old.pack(), new.pack(), SeqCst, SeqCst)
                .is_ok()
    }

    /// Sets the root's status (before the threads start).
    pub fn set_root(&self, status: Status, moves: u16) {
        self.status.store(status.pack(), SeqCst);
        self.moves.store(moves, SeqCst);
    }
}

// The chess node's size is what `TreeMemory` is divided by in tree parallelism; the README
// quotes it.
const _: () = assert!(std::mem::size_of::<SharedNode<shakmaty::Move>>() == 56);

/// The node store of the shared tree.
#[derive(Debug)]
pub struct SharedArena<M> {
    chunks: Vec<OnceLock<Box<[SharedNode<M>]>>>,
    /// Slots handed out (never more than `max_nodes`).
    next: AtomicUsize,
    max_nodes: usize,
}

/// A new node's contents, written before it is linked.
#[derive(Debug, Clone, Copy)]
pub struct NewNode<M> {
    pub mv: M,
    pub status: Status,
    pub moves: u16,
}

impl<M: Copy> SharedArena<M> {
    /// An arena that never holds more than `bytes` of nodes (at least the root).
    pub fn with_memory(bytes: usize) -> Self {
        let max_nodes = (bytes / Self::node_size()).clamp(1, NONE as usize - 1);
        let (chunk, _) = locate(max_nodes - 1);
        SharedArena {
            chunks: (0..=chunk).map(|_| OnceLock::new()).collect(),
            next: AtomicUsize::new(0),
            max_nodes,
        }
    }

    /// Bytes per node.
    pub const fn node_size() -> usize {
        std::mem::size_of::<SharedNode<M>>()
    }

    /// Slots handed out: the nodes of the tree, and at most one unused slot per thread
    /// (a thread that lost the race to claim a move keeps its slot for its next one).
    pub fn len(&self) -> usize {
        self.next.load(Relaxed).min(self.max_nodes)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The node budget.
    pub fn max_nodes(&self) -> usize {
        self.max_nodes
    }

    /// Bytes of the chunks allocated so far (what the bound applies to).
    pub fn reserved_bytes(&self) -> usize {
        let slots: usize = self
            .chunks
            .iter()
            .filter_map(|c| c.get().map(|c| c.len()))
            .sum();
        slots * Self::node_size()
    }

    /// The slots of chunk `c`: doubling, the last one cut at the budget.
    fn chunk_len(&self, c: usize) -> usize {
        let start = FIRST_CHUNK * ((1 << c) - 1);
        (FIRST_CHUNK << c).min(self.max_nodes.saturating_sub(start))
    }

    #[inline]
    pub fn node(&self, id: u32) -> &SharedNode<M> {
        let (c, offset) = locate(id as usize);
        let chunk = self.chunks[c].get_or_init(|| {
            (0..self.chunk_len(c))
                .map(|_| SharedNode::empty())
                .collect()
        });
        &chunk[offset]
    }

    /// A fresh slot, or `None` when the budget is spent.
    pub fn alloc(&self) -> Option<u32> {
        self.alloc_block(1).map(|b| b.start)
    }

    /// Up to `n` fresh slots (fewer when the budget is nearly spent), or `None` when it is
    /// spent.
    pub fn alloc_block(&self, n: usize) -> Option<std::ops::Range<u32>> {
        let max = self.max_nodes;
        let start = self
            .next
            .fetch_update(Relaxed, Relaxed, |s| (s < max).then(|| (s + n).min(max)))
            .ok()?;
        let end = (start + n).min(max);
        // Allocates the chunks now, so that readers never wait for one.
        self.node(start as u32);
        self.node(end as u32 - 1);
        Some(start as u32..end as u32)
    }

    /// Writes a fresh slot. `virtual_loss` counts the writer's own pass, to be taken back by
    /// its backup.
    pub fn write(&self, id: u32, node: NewNode<M>, virtual_loss: u32) {
        let n = self.node(id);
        // A slot is written once: `alloc` hands it to one thread, which writes it once.
        let _ = n.mv.set(node.mv);
        n.status.store(node.status.pack(), SeqCst);
        n.moves.store(node.moves, SeqCst);
        n.counts.store(u64::from(virtual_loss), SeqCst);
    }

    /// Starts a tree with a root and returns its index (0), in an empty arena.
    pub fn set_root(&self, mv: M) -> Option<u32> {
        let id = self.alloc()?;
        let node = NewNode {
            mv,
            status: Status::UNKNOWN,
            moves: 0,
        };
        self.write(id, node, 0);
        Some(id)
    }

    /// Links the written node `child` into `parent`'s list of children (newest first).
    pub fn link(&self, parent: u32, child: u32) {
        let p = self.node(parent);
        let c = self.node(child);
        let mut head = p.first_child.load(SeqCst);
        loop {
            c.next_sibling.store(head, SeqCst);
            match p
                .first_child
                .compare_exchange_weak(head, child, SeqCst, SeqCst)
            {
                Ok(_) => break,
                Err(now) => head = now,
            }
        }
        p.expanded.fetch_add(1, SeqCst);
    }

    /// The children of `id`, newest first.
    #[inline]
    pub fn children(&self, id: u32) -> SharedChildren<'_, M> {
        SharedChildren {
            arena: self,
            next: self.node(id).first_child.load(SeqCst),
        }
    }

    /// The child of `id` reached by `mv`, if it is in the tree.
    pub fn child_by_move(&self, id: u32, mv: M) -> Option<u32>
    where
        M: PartialEq,
    {
        self.children(id).find(|&c| self.node(c).mv() == Some(mv))
    }

    /// A new arena holding only the subtree under `id`, with `id` as its root (index 0):
    /// tree reuse after the moves actually played. Called with no search running.
    /// Breadth-first, so that each node's children keep their order; a node's claims are
    /// its linked children (a slot a thread kept unused is not copied).
    pub fn extract(&self, id: u32) -> SharedArena<M> {
        let out = SharedArena {
            chunks: (0..self.chunks.len()).map(|_| OnceLock::new()).collect(),
            next: AtomicUsize::new(0),
            max_nodes: self.max_nodes,
        };
        let mut queue = std::collections::VecDeque::new();
        if let Some(root) = out.alloc() {
            copy_node(self.node(id), out.node(root));
            queue.push_back((id, root));
        }
        let mut kids = Vec::new();
        while let Some((old, new)) = queue.pop_front() {
            kids.clear();
            kids.extend(self.children(old));
            // Link oldest first, so that the list reads newest first as before.
            for &k in kids.iter().rev() {
                let Some(fresh) = out.alloc() else {
                    return out;
                };
                copy_node(self.node(k), out.node(fresh));
                out.link(new, fresh);
                queue.push_back((k, fresh));
            }
            let n = out.node(new);
            n.claimed.store(n.expanded(), SeqCst);
        }
        out
    }
}

/// Copies a node's own fields (not its links) into a fresh slot.
fn copy_node<M: Copy>(from: &SharedNode<M>, to: &SharedNode<M>) {
    if let Some(mv) = from.mv() {
        let _ = to.mv.set(mv);
    }
    to.counts.store(u64::from(from.visits()) << 32, SeqCst);
    to.sum.store(from.sum.load(SeqCst), SeqCst);
    to.mean.store(from.mean.load(SeqCst), SeqCst);
    to.status.store(from.status.load(SeqCst), SeqCst);
    to.moves.store(from.moves(), SeqCst);
}

/// (chunk, offset) of slot `i`: chunk `c` starts at `FIRST_CHUNK * (2^c - 1)`.
#[inline]
fn locate(i: usize) -> (usize, usize) {
    let j = i / FIRST_CHUNK + 1;
    let c = (usize::BITS - 1 - j.leading_zeros()) as usize;
    (c, i - FIRST_CHUNK * ((1 << c) - 1))
}

/// Iterator over a node's children in the shared tree.
pub struct SharedChildren<'a, M> {
    arena: &'a SharedArena<M>,
    next: u32,
}

impl<M: Copy> Iterator for SharedChildren<'_, M> {
    type Item = u32;
    #[inline]
    fn next(&mut self) -> Option<u32> {
        if self.next == NONE {
            return None;
        }
        let id = self.next;
        self.next = self.arena.node(id).next_sibling.load(SeqCst);
        Some(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_map_onto_doubling_chunks() {
        assert_eq!(locate(0), (0, 0));
        assert_eq!(locate(1023), (0, 1023));
        assert_eq!(locate(1024), (1, 0));
        assert_eq!(locate(3071), (1, 2047));
        assert_eq!(locate(3072), (2, 0));
    }

    #[test]
    fn the_budget_bounds_nodes_and_reserved_memory() {
        let bytes = 3000 * SharedArena::<u32>::node_size();
        let arena = SharedArena::with_memory(bytes);
        let root = arena.set_root(0u32).unwrap();
        let mut added = 1;
        while let Some(id) = arena.alloc() {
            let node = NewNode {
                mv: added,
                status: Status::UNKNOWN,
                moves: 0,
            };
            arena.write(id, node, 0);
            arena.link(root, id);
            added += 1;
        }
        assert_eq!(arena.len(), 3000);
        assert!(
            arena.reserved_bytes() <= bytes,
            "{}",
            arena.reserved_bytes()
        );
        assert_eq!(arena.node(root).expanded(), 2999);
        let moves: Vec<u32> = arena
            .children(root)
            .map(|c| arena.node(c).mv().unwrap())
            .collect();
        assert_eq!(moves, (1..3000).rev().collect::<Vec<_>>());
    }

    #[test]
    fn status_round_trips_and_settled_status_is_final() {
        let s = Status {
            value: -0.375,
            proof: Proof::Loss,
            plies: 7,
            terminal: false,
        };
        assert_eq!(Status::unpack(s.pack()), s);
        let arena = SharedArena::with_memory(1 << 16);
        let root = arena.set_root(0u32).unwrap();
        let n = arena.node(root);
        assert!(n.update_status(Status::UNKNOWN, s));
        assert!(!n.update_status(s, Status::UNKNOWN));
        assert_eq!(n.status(), s);
    }

    #[test]
    fn extract_keeps_the_subtree_and_its_order() {
        let arena = SharedArena::with_memory(1 << 20);
        let add = |parent: u32, mv: u32| {
            let id = arena.alloc().unwrap();
            let node = NewNode {
                mv,
                status: Status::UNKNOWN,
                moves: 4,
            };
            arena.write(id, node, 0);
            arena.node(parent).claim();
            arena.link(parent, id);
            id
        };
        let root = arena.set_root(0u32).unwrap();
        let a = add(root, 1);
        let b = add(root, 2);
        for m in 10..13 {
            add(a, m);
        }
        let aa = arena.child_by_move(a, 11).unwrap();
        add(aa, 20);
        add(b, 30);
        arena.node(aa).add_virtual_loss();
        arena.node(aa).add_sample(0.5, true);
        let sub = arena.extract(a);
        assert_eq!(sub.len(), 5);
        assert_eq!(sub.node(0).mv(), Some(1));
        let moves = |t: &SharedArena<u32>, id| -> Vec<u32> {
            t.children(id).map(|c| t.node(c).mv().unwrap()).collect()
        };
        assert_eq!(moves(&sub, 0), moves(&arena, a));
        assert_eq!(sub.node(0).claimed(), 3);
        let deep = sub.child_by_move(0, 11).unwrap();
        assert_eq!(moves(&sub, deep), [20]);
        assert_eq!(sub.node(deep).visits(), 1);
        assert_eq!(sub.node(deep).mean(), 0.5);
    }
}
