//! What the UCT search needs from a game, so that one implementation runs on chess
//! positions (the backends) and on synthetic trees (the thesis' ch. 5 experiments and the
//! convergence tests): the moves and terminal value of a state, the state after a move,
//! a key, and the estimate of a new leaf (a random playout, or the evaluator).

use shakmaty::{Move, Position as _};

use super::playout::{Rng, chess_playout};
use super::policy::from_cp;
use crate::board::game::is_search_repetition;
use crate::board::{Evaluator, Game, Position};
use crate::tree::chess::quiescence;
use crate::tree::{Expansion, GameTree};

/// A game as UCT sees it. Values are in [-1, 1] for the side to move at the state.
pub trait Domain {
    type Move: Copy + PartialEq + std::fmt::Debug;
    type State: Clone;

    /// The root state.
    fn root(&mut self) -> Self::State;

    /// Writes the legal moves of `s` (at `ply` from the root) into `out`, which is
    /// cleared first; returns the exact value when `s` is terminal.
    fn expand(&mut self, s: &Self::State, ply: usize, out: &mut Vec<Self::Move>) -> Option<f32>;

    /// The state after `m`; `ply` is the depth of the new state.
    fn play(&mut self, s: &Self::State, m: Self::Move, ply: usize) -> Self::State;

    /// A key that stays the same when the tree is reused (orders unvisited moves).
    fn key(&self, s: &Self::State) -> u64;

    /// The estimate of a new, non-terminal leaf.
    fn estimate(&mut self, s: &Self::State, ply: usize, rng: &mut Rng) -> f32;

    /// True when one of `moves` (the legal moves of `s`) ends the game with a win for the
    /// side to move. The solver asks this of every new node, so that a mate in one is
    /// proven when its node is created rather than when UCB gets round to the mating move.
    fn wins_at_once(&mut self, _s: &Self::State, _moves: &[Self::Move]) -> bool {
        false
    }
}

/// How a new chess leaf is valued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeafEstimate {
    /// A random playout of at most this many plies (UCT).
    Playout(u32),
    /// The evaluator, squashed by `tanh(cp/400)` (UCTH, UCTMAX-H).
    Eval,
    /// The quiescence value under the evaluator, squashed the same way.
    Quiescence,
}

/// Chess from a game's current position. Draws by repetition (twofold inside the tree,
/// threefold with the game), fifty moves and insufficient material are terminals, as are
/// checkmate (-1 for the side to move) and stalemate.
pub struct ChessDomain<'a> {
    root: Position,
    eval: &'a dyn Evaluator,
    leaf: LeafEstimate,
    /// Keys of the game, then of the path to the state last played.
    keys: Vec<u64>,
    root_index: usize,
    /// If not empty, the only root moves searched (`go searchmoves`).
    root_moves: Vec<Move>,
    /// Positions visited inside quiescence leaves.
    pub quiescence_nodes: u64,
}

impl<'a> ChessDomain<'a> {
    pub fn new(game: &Game, eval: &'a dyn Evaluator, leaf: LeafEstimate) -> Self {
        let keys = game.keys().to_vec();
        ChessDomain {
            root: game.position().clone(),
            eval,
            leaf,
            root_index: keys.len() - 1,
            keys,
            root_moves: Vec::new(),
            quiescence_nodes: 0,
        }
    }

    /// Searches only these root moves (none: all).
    pub fn restrict_root(&mut self, moves: &[Move]) {
        self.root_moves = moves.to_vec();
    }
}

impl Domain for ChessDomain<'_> {
    type Move = Move;

    fn wins_at_once(&mut self, pos: &Position, moves: &[Move]) -> bool {
        // ~25 ns per move plus a move generation per check: only the solver pays it.
        moves.iter().any(|&m| {
            let mut child = pos.chess().clone();
            child.play_unchecked(m);
            child.is_checkmate()
        })
    }
    type State = Position;

    fn root(&mut self) -> Position {
        self.keys.truncate(self.root_index + 1);
        self.root.clone()
    }

    fn expand(&mut self, pos: &Position, ply: usize, out: &mut Vec<Move>) -> Option<f32> {
        out.clear();
        if ply > 0 {
            let reversible = pos.halfmoves() as usize;
            if reversible >= 4 && is_search_repetition(&self.keys, reversible, self.root_index) {
                return Some(0.0);
            }
            if pos.is_insufficient_material() {
                return Some(0.0);
            }
        }
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Some(if pos.is_check() { -1.0 } else { 0.0 });
        }
        if ply > 0 && pos.halfmoves() >= 100 {
            return Some(0.0);
        }
        if ply == 0 && !self.root_moves.is_empty() {
            out.extend(
                moves
                    .iter()
                    .copied()
                    .filter(|m| self.root_moves.contains(m)),
            );
        }
        if out.is_empty() {
            out.extend(moves.iter().copied());
        }
        None
    }

    fn play(&mut self, pos: &Position, m: Move, ply: usize) -> Position {
        let child = pos.play(m);
        // The path below the root is replayed every iteration: drop what is left of the
        // previous one before recording this ply.
        self.keys.truncate(self.root_index + ply);
        self.keys.push(child.key());
        child
    }

    fn key(&self, pos: &Position) -> u64 {
        pos.key()
    }

    fn estimate(&mut self, pos: &Position, ply: usize, rng: &mut Rng) -> f32 {
        match self.leaf {
            LeafEstimate::Playout(cap) => chess_playout(pos, cap, rng),
            LeafEstimate::Eval => from_cp(self.eval.evaluate(pos.chess())),
            LeafEstimate::Quiescence => {
                let v = quiescence(
                    self.eval,
                    pos,
                    -crate::search::score::INFINITY,
                    crate::search::score::INFINITY,
                    ply,
                    &mut self.quiescence_nodes,
                );
                if crate::search::score::is_mate(v) {
                    // Quiescence only sees mates in check sequences of captures: a strong
                    // hint, not a proof, so it stays just inside ±1.
                    v.signum() as f32 * 0.999
                } else {
                    from_cp(v)
                }
            }
        }
    }
}

/// A synthetic tree on the game-tree interface; leaf values are divided by `scale` to lie
/// in [-1, 1]. A new inner node is estimated by a random descent to a leaf (there is no
/// evaluator on a synthetic tree), whatever the backup rule.
pub struct TreeDomain<T: GameTree> {
    pub tree: T,
    root: T::Node,
    scale: f32,
    buf: Vec<T::Move>,
}

impl<T: GameTree> TreeDomain<T>
where
    T::Move: std::fmt::Debug,
{
    pub fn new(tree: T, root: T::Node, scale: f32) -> Self {
        TreeDomain {
            tree,
            root,
            scale,
            buf: Vec::new(),
        }
    }
}

impl<T: GameTree> Domain for TreeDomain<T>
where
    T::Move: std::fmt::Debug,
{
    type Move = T::Move;
    type State = T::Node;

    fn root(&mut self) -> T::Node {
        self.root.clone()
    }

    fn expand(&mut self, s: &T::Node, _ply: usize, out: &mut Vec<T::Move>) -> Option<f32> {
        match self.tree.expand(s, out) {
            Expansion::Leaf(v) => Some(v as f32 / self.scale),
            Expansion::Inner => None,
        }
    }

    fn play(&mut self, s: &T::Node, m: T::Move, _ply: usize) -> T::Node {
        self.tree.play(s, m)
    }

    fn key(&self, s: &T::Node) -> u64 {
        self.tree.key(s)
    }

    fn estimate(&mut self, s: &T::Node, _ply: usize, rng: &mut Rng) -> f32 {
        let mut node = s.clone();
        let mut sign = 1.0;
        let mut buf = std::mem::take(&mut self.buf);
        let v = loop {
            match self.tree.expand(&node, &mut buf) {
                Expansion::Leaf(v) => break sign * v as f32 / self.scale,
                Expansion::Inner => {
                    let m = buf[rng.below(buf.len())];
                    node = self.tree.play(&node, m);
                    sign = -sign;
                }
            }
        };
        self.buf = buf;
        v
    }
}
