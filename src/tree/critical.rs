//! Binary trees with critical levels (Understanding Sampling-Based Adversarial Search
//! Methods (2012) §5.2): MAX, to move at the root, has an implanted winning strategy. At
//! each critical depth (even, so MAX is to move) one child of every node is the correct
//! one, chosen by a seeded hash; if MAX picks the correct child at every critical node on
//! the way down, the leaf is a win (+1) whatever else either side plays; after any wrong
//! critical choice the leaf is drawn uniformly from {-1, 0, +1}. The root's minimax value
//! is therefore +1, and the thesis measures how long UCT takes to see it as a function of
//! the critical depths.

use super::rng::hash;
use super::{Expansion, GameTree, LeafLog, ShapeError};
use crate::value::Value;

/// A node: depth, index among the `2^depth` nodes of its depth, and whether MAX has made
/// every critical choice on the path correctly so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CriticalNode {
    pub depth: u32,
    pub index: u64,
    pub on_plan: bool,
}

/// A binary tree of height `height` with critical MAX levels.
#[derive(Debug, Clone)]
pub struct CriticalTree {
    height: u32,
    levels: Vec<u32>,
    seed: u64,
    nodes: u64,
    leaves: LeafLog,
}

impl CriticalTree {
    /// `levels` must be even depths below `height` (MAX's turns); `height <= 48`.
    pub fn new(height: u32, levels: &[u32], seed: u64) -> Result<Self, ShapeError> {
        if height == 0 || height > 48 {
            return Err(ShapeError(format!("height {height}: expected 1..=48")));
        }
        if let Some(bad) = levels.iter().find(|&&d| d % 2 == 1 || d >= height) {
            return Err(ShapeError(format!(
                "critical depth {bad}: expected an even depth below the height {height}"
            )));
        }
        let mut levels = levels.to_vec();
        levels.sort_unstable();
        levels.dedup();
        Ok(CriticalTree {
            height,
            levels,
            seed,
            nodes: 0,
            leaves: LeafLog::default(),
        })
    }

    pub fn root(&self) -> CriticalNode {
        CriticalNode {
            depth: 0,
            index: 0,
            on_plan: true,
        }
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    pub fn levels(&self) -> &[u32] {
        &self.levels
    }

    /// The correct child (0 or 1) at a critical node.
    pub fn correct_child(&self, node: &CriticalNode) -> u32 {
        (hash(self.seed ^ hash(self.key(node))) & 1) as u32
    }

    /// A leaf's value for MAX.
    pub fn max_value(&self, leaf: &CriticalNode) -> Value {
        if leaf.on_plan {
            1
        } else {
            (hash(self.seed.rotate_left(17) ^ hash(leaf.index)) % 3) as Value - 1
        }
    }

    /// The exact negamax value of `node` by brute force (small heights only).
    pub fn minimax(&self, node: CriticalNode) -> Value {
        if node.depth == self.height {
            let v = self.max_value(&node);
            return if node.depth.is_multiple_of(2) { v } else { -v };
        }
        (0..2)
            .map(|m| -self.minimax(self.child(&node, m)))
            .max()
            .unwrap_or_default()
    }

    fn child(&self, node: &CriticalNode, m: u32) -> CriticalNode {
        let critical = self.levels.binary_search(&node.depth).is_ok();
        CriticalNode {
            depth: node.depth + 1,
            index: node.index * 2 + u64::from(m),
            on_plan: node.on_plan && (!critical || m == self.correct_child(node)),
        }
    }
}

impl GameTree for CriticalTree {
    type Node = CriticalNode;
    type Move = u32;

    fn expand(&mut self, node: &CriticalNode, children: &mut Vec<u32>) -> Expansion {
        children.clear();
        self.nodes += 1;
        if node.depth == self.height {
            self.leaves.record(node.index);
            let v = self.max_value(node);
            return Expansion::Leaf(if node.depth.is_multiple_of(2) { v } else { -v });
        }
        children.extend([0, 1]);
        Expansion::Inner
    }

    fn play(&mut self, node: &CriticalNode, m: u32) -> CriticalNode {
        self.child(node, m)
    }

    fn key(&self, node: &CriticalNode) -> u64 {
        (u64::from(node.depth) << 56) | node.index
    }

    fn id(&self, node: &CriticalNode) -> u64 {
        self.key(node)
    }

    fn ply(&self, node: &CriticalNode) -> usize {
        node.depth as usize
    }

    fn nodes(&self) -> u64 {
        self.nodes
    }

    fn leaves(&self) -> &LeafLog {
        &self.leaves
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_is_won_and_only_the_plan_wins_for_sure() {
        for seed in 0..5 {
            let t = CriticalTree::new(8, &[0, 4], seed).unwrap();
            assert_eq!(t.minimax(t.root()), 1);
            // The wrong first choice leaves MAX without a forced win (for these seeds the
            // random leaves let MIN hold at least a draw).
            let wrong = t.child(&t.root(), 1 - t.correct_child(&t.root()));
            assert!(!wrong.on_plan);
            let right = t.child(&t.root(), t.correct_child(&t.root()));
            assert!(right.on_plan);
            assert_eq!(-t.minimax(right), 1);
        }
        assert!(CriticalTree::new(8, &[3], 0).is_err());
        assert!(CriticalTree::new(8, &[8], 0).is_err());
    }
}
