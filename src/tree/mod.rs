//! The game-tree interface the research algorithms and the UCT family are written against,
//! so that one implementation runs on chess positions and on synthetic trees where the
//! papers' theorems can be checked exactly; and the one seeded random generator ([`rng`]).
//!
//! Values are negamax values: a leaf's value is from the point of view of the side to
//! move at that leaf, and a parent's value is the maximum of its children's negated values.

pub mod chess;
pub mod critical;
pub mod rng;
pub mod synthetic;

pub use chess::{ChessNode, ChessTree};
pub use rng::Rng;
pub use synthetic::{RandomTree, SyntheticNode, ValueRange};

use crate::value::{DRAW, Value};

/// A synthetic tree that cannot be made as asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShapeError(pub String);

/// What expanding a node found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expansion {
    /// The node is a leaf (terminal, or at the horizon) with this value for the side to
    /// move. Each such answer is one leaf evaluation.
    Leaf(Value),
    /// The node has children; they were written to the buffer, left to right.
    Inner,
}

/// A game tree as the search algorithms see it.
pub trait GameTree {
    type Node: Clone;
    type Move: Copy + PartialEq;

    /// Either the leaf value of `node`, or its children in their fixed left-to-right order
    /// (written into `children`, which is cleared first).
    fn expand(&mut self, node: &Self::Node, children: &mut Vec<Self::Move>) -> Expansion;

    /// The child of `node` reached by `m`.
    fn play(&mut self, node: &Self::Node, m: Self::Move) -> Self::Node;

    /// A key for bound storage: equal keys mean the same subtree (position and depth).
    fn key(&self, node: &Self::Node) -> u64;

    /// A stable identifier for tracing which leaves were evaluated.
    fn id(&self, node: &Self::Node) -> u64;
    /// Distance from the root: stored mate values are made relative to the node with it.
    fn ply(&self, node: &Self::Node) -> usize;

    /// Nodes visited so far (interior expansions, leaves, and any work inside leaf values).
    fn nodes(&self) -> u64;

    /// The leaf evaluations so far.
    fn leaves(&self) -> &LeafLog;

    /// A heuristic value of a node that is not terminal, for its side to move, if the tree
    /// has one (chess: its evaluator). UCTH values a new node by it.
    fn estimate(&mut self, _node: &Self::Node) -> Option<Value> {
        None
    }

    /// The value, for the side to move at `node`, of one uniformly random continuation of
    /// at most `cap` plies: the value of the leaf it reaches, or a draw when capped. Plain
    /// UCT values a new node by it. Walks the tree itself; a tree with a faster way to play
    /// a game out overrides it.
    fn playout(&mut self, node: &Self::Node, rng: &mut Rng, cap: u32) -> Value {
        let mut node = node.clone();
        let mut moves = Vec::new();
        let mut sign = 1;
        for _ in 0..cap {
            match self.expand(&node, &mut moves) {
                Expansion::Leaf(v) => return sign * v,
                Expansion::Inner if moves.is_empty() => break,
                Expansion::Inner => {
                    let m = moves[rng.below(moves.len())];
                    node = self.play(&node, m);
                    sign = -sign;
                }
            }
        }
        DRAW
    }

    /// True when one of `children` (the moves of `node`) ends the game at once in a win for
    /// the side to move. The UCT solver asks it of every new node, so that a win in one is
    /// proven when its node is made; a tree without a cheap test answers false.
    fn wins_at_once(&mut self, _node: &Self::Node, _children: &[Self::Move]) -> bool {
        false
    }
}

/// Counts leaf evaluations — the papers' cost measure — and optionally records which
/// leaves were evaluated, in order.
#[derive(Debug, Clone, Default)]
pub struct LeafLog {
    count: u64,
    sequence: Option<Vec<u64>>,
}

impl LeafLog {
    /// A log that also records the sequence of leaf ids.
    pub fn recording() -> Self {
        LeafLog {
            count: 0,
            sequence: Some(Vec::new()),
        }
    }

    #[inline]
    pub fn record(&mut self, id: u64) {
        self.count += 1;
        if let Some(seq) = &mut self.sequence {
            seq.push(id);
        }
    }

    /// Number of leaf evaluations.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The evaluated leaves in order, if recording.
    pub fn sequence(&self) -> Option<&[u64]> {
        self.sequence.as_deref()
    }
}
