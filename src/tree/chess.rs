//! The chess view of the game-tree interface: a node is a position with a remaining depth.
//! Checkmate, stalemate and the draw rules ([`crate::board::rules`]) make terminals; at the
//! horizon the leaf value is the exact quiescence value (full window) under the selected
//! evaluator, so that every algorithm run on this tree is computing the same function and
//! their values agree. The UCT family searches it without a horizon
//! ([`ChessTree::unbounded_root`]), valuing new nodes by the evaluator, by quiescence or
//! by a random playout.

use shakmaty::{Move, Position as _};

use super::{Expansion, GameTree, LeafLog, Rng};
use crate::board::exchange::{is_tactical, mvv_lva};
use crate::board::game::is_search_repetition;
use crate::board::rules::{self, Terminal};
use crate::board::{Evaluator, Game, Position};
use crate::value::{DRAW, INFINITY, MATE, MAX_PLY, Value, mated_in};

/// A position with the plies left to the horizon.
#[derive(Debug, Clone)]
pub struct ChessNode {
    pub pos: Position,
    pub depth: i32,
    pub ply: usize,
}

/// The remaining depth of a root without a horizon (the UCT family's).
const UNBOUNDED: i32 = i32::MAX / 2;

/// How [`GameTree::estimate`] values a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Estimate {
    /// The evaluator.
    Static,
    /// The quiescence value under the evaluator.
    Quiescence,
}

/// Chess as a game tree rooted at a game's current position.
pub struct ChessTree<'a> {
    eval: &'a dyn Evaluator,
    estimate: Estimate,
    /// Children in the fixed order the research algorithms need; a sampling search
    /// (UCT) shuffles them itself and takes them as generated.
    ordered: bool,
    root: Position,
    /// Keys of the game, then of the path to the node last played or expanded: `play`
    /// records the child on its parent's path and `expand` the node on its own, so the
    /// path is right whether an algorithm expands every node it passes (alpha-beta) or
    /// descends without expanding (UCT's selection).
    keys: Vec<u64>,
    root_index: usize,
    /// If not empty, the only root moves searched (`go searchmoves`).
    root_moves: Vec<Move>,
    nodes: u64,
    leaves: LeafLog,
}

impl<'a> ChessTree<'a> {
    pub fn new(game: &Game, eval: &'a dyn Evaluator) -> Self {
        let keys = game.keys().to_vec();
        ChessTree {
            eval,
            estimate: Estimate::Static,
            ordered: true,
            root: game.position().clone(),
            root_index: keys.len() - 1,
            keys,
            root_moves: Vec::new(),
            nodes: 0,
            leaves: LeafLog::default(),
        }
    }

    /// Records the sequence of evaluated leaves from now on.
    pub fn record_leaves(&mut self) {
        self.leaves = LeafLog::recording();
    }

    /// Searches only these root moves (none: all of them).
    pub fn restrict_root(&mut self, moves: &[Move]) {
        self.root_moves = moves.to_vec();
    }

    /// Prepares the tree for a sampling search (the UCT family): nodes are valued by
    /// `estimate`, and children come in generation order, since the search shuffles them
    /// itself.
    pub fn set_sampling(&mut self, estimate: Estimate) {
        self.estimate = estimate;
        self.ordered = false;
    }

    /// The root searched to `depth` plies.
    pub fn root(&self, depth: i32) -> ChessNode {
        ChessNode {
            pos: self.root.clone(),
            depth,
            ply: 0,
        }
    }

    /// The root without a horizon: leaves are only the game's ends (and the ply cap).
    pub fn unbounded_root(&self) -> ChessNode {
        self.root(UNBOUNDED)
    }

    fn leaf(&mut self, node: &ChessNode, value: Value) -> Expansion {
        self.leaves.record(node.pos.key());
        Expansion::Leaf(value)
    }

    fn quiesce(&mut self, pos: &Position, alpha: Value, beta: Value, ply: usize) -> Value {
        quiescence(self.eval, pos, alpha, beta, ply, &mut self.nodes)
    }
}

/// Plain quiescence search: stand pat, then captures and promotions by MVV-LVA (all
/// evasions in check). No pruning beyond alpha-beta, so the value is exact for the full
/// window. `nodes` counts the positions visited. Shared with the UCT family, whose UCTH
/// leaves may be valued by it.
pub fn quiescence(
    eval: &dyn Evaluator,
    pos: &Position,
    mut alpha: Value,
    beta: Value,
    ply: usize,
    nodes: &mut u64,
) -> Value {
    *nodes += 1;
    let in_check = pos.is_check();
    if ply >= MAX_PLY - 1 {
        return if in_check {
            DRAW
        } else {
            eval.evaluate(pos.chess())
        };
    }
    let mut best = -INFINITY;
    if !in_check {
        best = eval.evaluate(pos.chess());
        if best >= beta {
            return best;
        }
        alpha = alpha.max(best);
    }
    // Only the captures and promotions (every move in check): stalemate is not looked
    // for here, quiescence stands pat outside check.
    let mut moves = pos.tactical_moves();
    if moves.is_empty() && in_check {
        return mated_in(ply);
    }
    moves.sort_unstable_by_key(|&m| -mvv_lva(m));
    for m in moves {
        let v = -quiescence(eval, &pos.play(m), -beta, -alpha, ply + 1, nodes);
        if v > best {
            best = v;
            if v >= beta {
                break;
            }
            alpha = alpha.max(v);
        }
    }
    best
}

impl GameTree for ChessTree<'_> {
    type Node = ChessNode;
    type Move = Move;

    fn expand(&mut self, node: &ChessNode, children: &mut Vec<Move>) -> Expansion {
        children.clear();
        self.nodes += 1;
        let pos = &node.pos;
        self.keys.truncate(self.root_index + node.ply);
        self.keys.push(pos.key());
        // The root is searched whatever the draw rules say about it.
        if node.ply > 0 {
            let reversible = pos.halfmoves() as usize;
            let repeated =
                reversible >= 4 && is_search_repetition(&self.keys, reversible, self.root_index);
            if let Some(t) = rules::draw_before_moves(pos.chess(), repeated) {
                return self.leaf(node, t.value(node.ply));
            }
        }
        let moves = pos.legal_moves();
        let end = rules::end_after_moves(pos.chess(), !moves.is_empty());
        if let Some(t) = end.filter(|&t| node.ply > 0 || t != Terminal::FiftyMoves) {
            return self.leaf(node, t.value(node.ply));
        }
        if node.depth <= 0 || node.ply >= MAX_PLY - 2 {
            let v = self.quiesce(pos, -INFINITY, INFINITY, node.ply);
            return self.leaf(node, v);
        }
        let restricted = node.ply == 0 && !self.root_moves.is_empty();
        if !self.ordered {
            if restricted {
                children.extend(moves.iter().filter(|m| self.root_moves.contains(m)));
            } else {
                children.extend_from_slice(&moves);
            }
            return Expansion::Inner;
        }
        // Fixed order: tactical moves by MVV-LVA, then quiet moves in generation order.
        let allowed = |m: &Move| !restricted || self.root_moves.contains(m);
        children.extend(
            moves
                .iter()
                .copied()
                .filter(|m| is_tactical(*m) && allowed(m)),
        );
        children.sort_unstable_by_key(|&m| -mvv_lva(m));
        children.extend(
            moves
                .iter()
                .copied()
                .filter(|m| !is_tactical(*m) && allowed(m)),
        );
        Expansion::Inner
    }

    fn play(&mut self, node: &ChessNode, m: Move) -> ChessNode {
        let pos = node.pos.play(m);
        self.keys.truncate(self.root_index + node.ply + 1);
        self.keys.push(pos.key());
        ChessNode {
            pos,
            depth: node.depth - 1,
            ply: node.ply + 1,
        }
    }

    fn key(&self, node: &ChessNode) -> u64 {
        // The same position searched to another depth is another subtree.
        node.pos.key() ^ (node.depth as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    fn id(&self, node: &ChessNode) -> u64 {
        node.pos.key()
    }

    fn ply(&self, node: &ChessNode) -> usize {
        node.ply
    }

    fn nodes(&self) -> u64 {
        self.nodes
    }

    fn leaves(&self) -> &LeafLog {
        &self.leaves
    }

    fn estimate(&mut self, node: &ChessNode) -> Option<Value> {
        Some(match self.estimate {
            Estimate::Static => self.eval.evaluate(node.pos.chess()),
            Estimate::Quiescence => self.quiesce(&node.pos, -INFINITY, INFINITY, node.ply),
        })
    }

    /// Plays on shakmaty's position without the key: a playout checks no repetition, and
    /// skipping the Zobrist update saves a fifth of the time per ply.
    fn playout(&mut self, node: &ChessNode, rng: &mut Rng, cap: u32) -> Value {
        let mut chess = node.pos.chess().clone();
        let mut sign = 1;
        for _ in 0..cap {
            let moves = chess.legal_moves();
            if let Some(t) = rules::end(&chess, !moves.is_empty(), false) {
                // Mated at the end of the playout: a lost game, whatever the ply.
                return if t.is_draw() { DRAW } else { -sign * MATE };
            }
            chess.play_unchecked(moves[rng.below(moves.len())]);
            sign = -sign;
        }
        DRAW
    }

    fn wins_at_once(&mut self, node: &ChessNode, children: &[Move]) -> bool {
        // ~25 ns per move plus a move generation per check: only the solver pays it.
        children.iter().any(|&m| {
            let mut child = node.pos.chess().clone();
            child.play_unchecked(m);
            child.is_checkmate()
        })
    }
}
