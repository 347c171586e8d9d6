//! Synthetic game trees for checking the papers' theorems exactly (Rollout-based Game-tree
//! Search Outprunes Traditional Alpha-beta (2012) §4; Pruning Game Tree by Rollouts (2015),
//! experiments): uniform trees of branching `b` and height `h` (the root has height 0,
//! there are `b^h` leaves), leaf values drawn from a seeded hash of the leaf's index, and a
//! fixed left-to-right child order.
//!
//! The papers state their trees with MAX at the root and values from MAX's point of view;
//! the interface is negamax, so a leaf at odd depth (MIN to move) reports the negated
//! value.

use super::rng::hash;
use super::{Expansion, GameTree, LeafLog, ShapeError};
use crate::value::Value;

/// Which values the leaves take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueRange {
    /// As wide as the search values allow: -30000..=30000 (the papers' "32-bit" range,
    /// scaled to fit inside the engine's infinite sentinels); ties are rare.
    Wide,
    /// 0..n: a small range, many ties.
    Small(u32),
    /// {0, 1}: win/loss trees (the second experiment of Rollout-based Game-tree Search
    /// Outprunes Traditional Alpha-beta (2012)).
    Binary,
}

impl ValueRange {
    /// Parses `wide`, `binary` or `small:N`.
    pub fn parse(text: &str) -> Result<Self, ShapeError> {
        match text {
            "wide" => Ok(ValueRange::Wide),
            "binary" | "01" => Ok(ValueRange::Binary),
            _ => text
                .strip_prefix("small:")
                .and_then(|n| n.parse::<u32>().ok())
                .filter(|&n| (2..=60_000).contains(&n))
                .map(ValueRange::Small)
                .ok_or_else(|| {
                    ShapeError(format!(
                        "value range '{text}': expected wide, binary or small:N"
                    ))
                }),
        }
    }

    fn pick(self, random: u64) -> Value {
        match self {
            ValueRange::Wide => (random % 60_001) as Value - 30_000,
            ValueRange::Small(n) => (random % u64::from(n)) as Value,
            ValueRange::Binary => (random & 1) as Value,
        }
    }
}

impl std::fmt::Display for ValueRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValueRange::Wide => write!(f, "wide"),
            ValueRange::Small(n) => write!(f, "small:{n}"),
            ValueRange::Binary => write!(f, "binary"),
        }
    }
}

/// A node: its depth and its index among the `b^depth` nodes of that depth, left to right.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SyntheticNode {
    pub depth: u32,
    pub index: u64,
}

/// A uniform random tree.
#[derive(Debug, Clone)]
pub struct RandomTree {
    branching: u32,
    height: u32,
    range: ValueRange,
    seed: u64,
    nodes: u64,
    leaves: LeafLog,
}

impl RandomTree {
    /// `branching >= 2`; `branching^height` must fit in 48 bits so that ids stay unique.
    pub fn new(branching: u32, height: u32, range: ValueRange, seed: u64) -> Self {
        assert!(branching >= 2, "a tree needs branching >= 2");
        assert!(
            f64::from(height) * f64::from(branching).log2() <= 48.0,
            "tree too large"
        );
        RandomTree {
            branching,
            height,
            range,
            seed,
            nodes: 0,
            leaves: LeafLog::default(),
        }
    }

    /// Records the sequence of evaluated leaves (by id) from now on.
    pub fn record_leaves(mut self) -> Self {
        self.leaves = LeafLog::recording();
        self
    }

    pub fn root(&self) -> SyntheticNode {
        SyntheticNode { depth: 0, index: 0 }
    }

    pub fn branching(&self) -> u32 {
        self.branching
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    /// The value of a leaf for MAX (the player at the root), without counting it.
    pub fn max_value(&self, leaf_index: u64) -> Value {
        self.range.pick(hash(self.seed ^ hash(leaf_index)))
    }

    /// The exact negamax value of `node` by brute force (no pruning, nothing counted): the
    /// oracle the property tests compare every algorithm with.
    pub fn minimax(&self, node: SyntheticNode) -> Value {
        if node.depth == self.height {
            let v = self.max_value(node.index);
            return if node.depth.is_multiple_of(2) { v } else { -v };
        }
        (0..u64::from(self.branching))
            .map(|i| {
                -self.minimax(SyntheticNode {
                    depth: node.depth + 1,
                    index: node.index * u64::from(self.branching) + i,
                })
            })
            .max()
            .unwrap_or_default()
    }
}

impl GameTree for RandomTree {
    type Node = SyntheticNode;
    type Move = u32;

    fn expand(&mut self, node: &SyntheticNode, children: &mut Vec<u32>) -> Expansion {
        children.clear();
        self.nodes += 1;
        if node.depth == self.height {
            self.leaves.record(node.index);
            let v = self.max_value(node.index);
            return Expansion::Leaf(if node.depth.is_multiple_of(2) { v } else { -v });
        }
        children.extend(0..self.branching);
        Expansion::Inner
    }

    fn play(&mut self, node: &SyntheticNode, m: u32) -> SyntheticNode {
        SyntheticNode {
            depth: node.depth + 1,
            index: node.index * u64::from(self.branching) + u64::from(m),
        }
    }

    fn key(&self, node: &SyntheticNode) -> u64 {
        // Unique per node: the depth in the top byte, the index below (< 2^48).
        (u64::from(node.depth) << 56) | node.index
    }

    /// Leaves are identified by their left-to-right index, so a recorded sequence reads as
    /// positions along the bottom of the tree.
    fn id(&self, node: &SyntheticNode) -> u64 {
        if node.depth == self.height {
            node.index
        } else {
            self.key(node)
        }
    }

    fn ply(&self, node: &SyntheticNode) -> usize {
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
    fn shape_and_values_are_deterministic() {
        let mut t = RandomTree::new(3, 2, ValueRange::Small(5), 7);
        let mut kids = Vec::new();
        let root = t.root();
        assert_eq!(t.expand(&root, &mut kids), Expansion::Inner);
        assert_eq!(kids, vec![0, 1, 2]);
        let mid = t.play(&root, 2);
        let leaf = t.play(&mid, 1);
        assert_eq!(leaf.index, 7);
        let again = RandomTree::new(3, 2, ValueRange::Small(5), 7);
        assert_eq!(
            t.expand(&leaf, &mut kids),
            Expansion::Leaf(again.max_value(7))
        );
        assert_eq!(t.leaves().count(), 1);
        assert!((0..5).contains(&again.max_value(7)));
    }

    #[test]
    fn ranges_parse() {
        assert_eq!(ValueRange::parse("small:4"), Ok(ValueRange::Small(4)));
        assert_eq!(ValueRange::parse("binary"), Ok(ValueRange::Binary));
        assert!(ValueRange::parse("small:x").is_err());
    }
}
