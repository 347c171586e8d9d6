//! How the UCT family values what it finds, on the scale its statistics live on — [-1, 1]
//! for the side to move: a terminal exactly (a mate ±1, a draw 0), and a new node either by
//! a uniformly random playout (plain UCT, Understanding Sampling-Based Adversarial Search
//! Methods (2012) §2.4, §3.1) or by the tree's heuristic (UCTH, §3.1).

use super::policy::from_cp;
use crate::tree::{GameTree, Rng};
use crate::value::{Value, is_mate};

/// How a new, non-terminal node is valued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeafEstimate {
    /// A random playout of at most this many plies; a capped playout is a draw (UCT).
    Playout(u32),
    /// The tree's heuristic ([`GameTree::estimate`]); a tree without one plays out to the
    /// end instead.
    Heuristic,
}

/// How a tree's values map onto [-1, 1].
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Scale {
    /// Chess centipawns: `tanh(cp / 400)` ([`from_cp`]).
    Centipawns,
    /// A synthetic tree's integers: divided by this.
    Linear(f32),
}

impl Scale {
    fn map(self, v: Value) -> f32 {
        match self {
            Scale::Centipawns => from_cp(v),
            Scale::Linear(scale) => v as f32 / scale,
        }
    }

    /// An exact value: a mate is a certain ±1.
    pub fn exact(self, v: Value) -> f32 {
        if is_mate(v) {
            v.signum() as f32
        } else {
            self.map(v)
        }
    }

    /// A heuristic value: a mate it claims (quiescence sees mates only in sequences of
    /// captures and evasions) is a strong hint, not a proof, so it stays just inside ±1.
    pub fn heuristic(self, v: Value) -> f32 {
        if is_mate(v) {
            v.signum() as f32 * 0.999
        } else {
            self.map(v)
        }
    }
}

/// The value of the new node `node` for its side to move.
pub fn estimate<T: GameTree>(
    tree: &mut T,
    node: &T::Node,
    leaf: LeafEstimate,
    scale: Scale,
    rng: &mut Rng,
) -> f32 {
    match leaf {
        LeafEstimate::Playout(cap) => scale.exact(tree.playout(node, rng, cap)),
        LeafEstimate::Heuristic => match tree.estimate(node) {
            Some(v) => scale.heuristic(v),
            None => scale.exact(tree.playout(node, rng, u32::MAX)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Game, Material, Position};
    use crate::tree::ChessTree;
    use shakmaty::CastlingMode;

    fn playout(fen: &str, cap: u32) -> f32 {
        let pos = Position::from_fen(fen, CastlingMode::Standard).unwrap();
        let game = Game::new(pos);
        let mut tree = ChessTree::new(&game, &Material);
        let root = tree.unbounded_root();
        let leaf = LeafEstimate::Playout(cap);
        estimate(&mut tree, &root, leaf, Scale::Centipawns, &mut Rng::new(3))
    }

    #[test]
    fn playout_scores_mate_for_the_right_side() {
        // White to move is already mated (fool's mate).
        let mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
        assert_eq!(playout(mated, 10), -1.0);
        // A lone king each: drawn at once.
        assert_eq!(playout("4k3/8/8/8/8/8/8/4K3 w - - 0 1", 10), 0.0);
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        // Capped at zero plies: a draw.
        assert_eq!(playout(start, 0), 0.0);
    }

    #[test]
    fn values_map_onto_the_unit_interval() {
        use crate::value::{mate_in, mated_in};
        assert_eq!(Scale::Centipawns.exact(mate_in(3)), 1.0);
        assert_eq!(Scale::Centipawns.exact(mated_in(2)), -1.0);
        assert_eq!(Scale::Centipawns.heuristic(mated_in(2)), -0.999);
        assert!((Scale::Centipawns.exact(400) - 0.7616).abs() < 1e-3);
        assert_eq!(Scale::Linear(10.0).exact(5), 0.5);
    }
}
