//! How a game ends, written once: checkmate, stalemate, insufficient material, the
//! fifty-move rule and repetition. Every caller — the game record, both searches, the UCT
//! playouts, the mate prover, the match runner — asks here.
//!
//! Repetition depends on history the position does not hold (a game wants the third
//! occurrence, a search the second inside its tree), so callers decide it from their own
//! key history ([`super::game`] has the scans) and pass the verdict in.
//!
//! The rules come in two stages because a search must pay for move generation only where
//! it needs it: [`draw_before_moves`] costs no move generation, [`end_after_moves`] needs
//! to know whether a legal move exists. [`end`] is both, for callers that generate the
//! moves anyway.

use shakmaty::{Chess, Position as _};

use crate::value::{DRAW, Value, mated_in};

/// Why the game, or a line of search, ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Terminal {
    /// The side to move is in check with no legal move: it lost.
    Checkmate,
    /// The side to move has no legal move and is not in check.
    Stalemate,
    /// Neither side can ever checkmate.
    InsufficientMaterial,
    /// Fifty moves by each side without a capture or a pawn move.
    FiftyMoves,
    /// A position repeated (how often counts is the caller's rule).
    Repetition,
}

impl Terminal {
    /// The value for the side to move at a terminal `ply` plies below the root: mated
    /// there, or a draw.
    #[inline]
    pub fn value(self, ply: usize) -> Value {
        match self {
            Terminal::Checkmate => mated_in(ply),
            _ => DRAW,
        }
    }

    /// Everything but checkmate is a draw.
    #[inline]
    pub fn is_draw(self) -> bool {
        self != Terminal::Checkmate
    }
}

/// The draws that need no move generation: a repetition (`repeated`, decided by the
/// caller) and insufficient material.
#[inline]
pub fn draw_before_moves(pos: &Chess, repeated: bool) -> Option<Terminal> {
    if repeated {
        Some(Terminal::Repetition)
    } else if pos.is_insufficient_material() {
        Some(Terminal::InsufficientMaterial)
    } else {
        None
    }
}

/// The ends that need to know whether a legal move exists: checkmate or stalemate without
/// one, else the fifty-move rule (a checkmate on the hundredth ply outranks it).
#[inline]
pub fn end_after_moves(pos: &Chess, has_moves: bool) -> Option<Terminal> {
    if !has_moves {
        Some(if pos.is_check() {
            Terminal::Checkmate
        } else {
            Terminal::Stalemate
        })
    } else if pos.halfmoves() >= 100 {
        Some(Terminal::FiftyMoves)
    } else {
        None
    }
}

/// Every rule: checkmate and stalemate first, then repetition, insufficient material and
/// the fifty-move rule.
pub fn end(pos: &Chess, has_moves: bool, repeated: bool) -> Option<Terminal> {
    match end_after_moves(pos, has_moves) {
        Some(t) if !has_moves => Some(t),
        fifty => draw_before_moves(pos, repeated).or(fifty),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;
    use shakmaty::CastlingMode;

    fn chess(fen: &str) -> Chess {
        Position::from_fen(fen, CastlingMode::Standard)
            .unwrap()
            .chess()
            .clone()
    }

    fn verdict(fen: &str, repeated: bool) -> Option<Terminal> {
        let pos = chess(fen);
        end(&pos, !pos.legal_moves().is_empty(), repeated)
    }

    #[test]
    fn every_rule_and_its_precedence() {
        let mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
        assert_eq!(verdict(mated, false), Some(Terminal::Checkmate));
        // Checkmate on the hundredth ply is still checkmate.
        let mated_late = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 100 60";
        assert_eq!(verdict(mated_late, true), Some(Terminal::Checkmate));
        assert_eq!(
            verdict("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", false),
            Some(Terminal::Stalemate)
        );
        assert_eq!(
            verdict("4k3/8/8/8/8/8/8/4K1N1 w - - 0 1", false),
            Some(Terminal::InsufficientMaterial)
        );
        let rook = "4k3/8/8/8/8/8/8/R3K3 w - - 100 80";
        assert_eq!(verdict(rook, false), Some(Terminal::FiftyMoves));
        assert_eq!(verdict(rook, true), Some(Terminal::Repetition));
        assert_eq!(verdict("4k3/8/8/8/8/8/8/R3K3 w - - 99 80", false), None);
        assert_eq!(Terminal::Checkmate.value(3), mated_in(3));
        assert_eq!(Terminal::FiftyMoves.value(3), DRAW);
    }
}
