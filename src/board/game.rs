//! A game: the start position, the moves played, and the key history that the
//! repetition rule needs. Also the repetition scans themselves, shared by the game record
//! and by every search's key stack.

use shakmaty::Move;

use super::position::{Position, PositionError};
use super::rules::{self, Terminal};

/// A game from a start position: what `position ... moves ...` describes.
#[derive(Clone, Debug, Default)]
pub struct Game {
    start: Position,
    moves: Vec<Move>,
    /// Keys of every position of the game, the current one last.
    keys: Vec<u64>,
    current: Position,
}

impl Game {
    /// A game with no moves played yet.
    pub fn new(start: Position) -> Self {
        Self {
            keys: vec![start.key()],
            current: start.clone(),
            start,
            moves: Vec::new(),
        }
    }

    /// Replays UCI moves from `start`; the first malformed or illegal move is an error
    /// and nothing is kept (the caller's game is untouched).
    pub fn from_uci_moves<S: AsRef<str>>(
        start: Position,
        moves: &[S],
    ) -> Result<Self, PositionError> {
        let mut game = Game::new(start);
        for text in moves {
            let m = game.current.parse_uci(text.as_ref())?;
            game.push(m);
        }
        Ok(game)
    }

    /// Plays a legal move.
    pub fn push(&mut self, m: Move) {
        self.current = self.current.play(m);
        self.moves.push(m);
        self.keys.push(self.current.key());
    }

    /// The current position.
    #[inline]
    pub fn position(&self) -> &Position {
        &self.current
    }

    /// The position the game started from.
    pub fn start(&self) -> &Position {
        &self.start
    }

    /// The moves played so far.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Keys of all positions so far, the current one last.
    #[inline]
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// The current position occurred twice before (threefold repetition).
    pub fn is_threefold(&self) -> bool {
        occurrences_before(&self.keys, self.current.halfmoves() as usize) >= 2
    }

    /// Why the game is over in the current position, if it is.
    pub fn end(&self) -> Option<Terminal> {
        let pos = self.current.chess();
        rules::end(
            pos,
            !self.current.legal_moves().is_empty(),
            self.is_threefold(),
        )
    }
}

/// How often the last key of `keys` occurred before, looking back at most `reversible`
/// plies (no position before an irreversible move can recur). Only positions with the
/// same side to move are compared.
pub fn occurrences_before(keys: &[u64], reversible: usize) -> usize {
    let Some((&last, earlier)) = keys.split_last() else {
        return 0;
    };
    let oldest = earlier.len().saturating_sub(reversible);
    earlier[oldest..]
        .iter()
        .rev()
        .skip(1)
        .step_by(2)
        .filter(|&&k| k == last)
        .count()
}

/// The repetition rule as a search applies it: the last key of `keys` is a draw if it
/// repeats a position reached after the search root (index `root`), since the side that
/// could avoid it would; a repetition of positions from before the root must be the
/// third occurrence, as in the game rules.
pub fn is_search_repetition(keys: &[u64], reversible: usize, root: usize) -> bool {
    let Some((&last, earlier)) = keys.split_last() else {
        return false;
    };
    let oldest = earlier.len().saturating_sub(reversible);
    let mut before_root = 0;
    let mut i = earlier.len();
    // Step back two plies at a time: only the same side to move can repeat.
    while i >= oldest + 2 {
        i -= 2;
        if earlier[i] == last {
            if i >= root {
                return true;
            }
            before_root += 1;
            if before_root >= 2 {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knight_dance_is_threefold_on_the_third_occurrence() {
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        let mut moves: Vec<&str> = shuffle.to_vec();
        let game = Game::from_uci_moves(Position::startpos(), &moves).unwrap();
        assert!(!game.is_threefold(), "second occurrence is not yet a draw");
        moves.extend(shuffle);
        let game = Game::from_uci_moves(Position::startpos(), &moves).unwrap();
        assert!(game.is_threefold());
    }

    #[test]
    fn search_repetition_is_twofold_after_the_root_threefold_before() {
        let shuffle = ["g1f3", "g8f6", "f3g1", "f6g8"];
        let game = Game::from_uci_moves(Position::startpos(), &shuffle).unwrap();
        let keys = game.keys();
        // Root at the start: the repetition happened inside the search.
        assert!(is_search_repetition(keys, 4, 0));
        // Root at the end: the start position occurred once before the root only.
        assert!(!is_search_repetition(keys, 4, keys.len() - 1));
        // A scan limited by an irreversible move sees nothing.
        assert!(!is_search_repetition(keys, 3, 0));
    }

    #[test]
    fn illegal_move_in_the_list_is_an_error() {
        let err = Game::from_uci_moves(Position::startpos(), &["e2e4", "e2e4"]).unwrap_err();
        assert_eq!(err, PositionError::IllegalMove("e2e4".into()));
    }
}
