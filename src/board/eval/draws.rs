//! Endings that material says are won and that are drawn all the same, known by rule
//! rather than fitted: no evaluation term can learn them from self-play, where they are
//! rare, and a search cannot see through them before the fifty-move rule does.

use shakmaty::{Bitboard, Board, Color, File, Rank, Square};

/// Pawns all on one rook's file, with or without bishops that cannot cover the queening
/// square (the wrong bishop), against a bare king standing on or next to that square: the
/// king cannot be driven out of the corner, so no pawn queens. `strong` is the side with
/// the pawns.
pub fn rook_pawns_held(board: &Board, strong: Color) -> bool {
    let ours = board.by_color(strong);
    let theirs = board.by_color(!strong);
    // The defender has its king alone, the attacker pawns and bishops besides its king.
    if theirs.count() != 1
        || !(ours & (board.knights() | board.rooks() | board.queens())).is_empty()
    {
        return false;
    }
    let (bishops, pawns) = (ours & board.bishops(), ours & board.pawns());
    if pawns.is_empty() {
        return false;
    }
    let file = if pawns.is_subset_const(Bitboard::from_file(File::A)) {
        File::A
    } else if pawns.is_subset_const(Bitboard::from_file(File::H)) {
        File::H
    } else {
        return false;
    };
    let queening = Square::from_coords(
        file,
        match strong {
            Color::White => Rank::Eighth,
            Color::Black => Rank::First,
        },
    );
    let covers = if queening.is_dark() {
        Bitboard::DARK_SQUARES
    } else {
        !Bitboard::DARK_SQUARES
    };
    if !(bishops & covers).is_empty() {
        return false;
    }
    board
        .king_of(!strong)
        .is_some_and(|king| king.distance(queening) <= 1)
}

/// [`rook_pawns_held`] for either side.
pub fn known_draw(board: &Board) -> bool {
    Color::ALL.into_iter().any(|c| rook_pawns_held(board, c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::eval::test_board as board;

    #[test]
    fn a_rooks_pawn_draws_with_the_king_in_the_corner_and_no_right_bishop() {
        // The game that ended in a fifty-move draw: light bishop, h-pawn, h8 dark.
        let corner = board("7k/8/7K/8/6B1/7P/8/8 b - - 0 61");
        assert!(rook_pawns_held(&corner, Color::White));
        assert!(known_draw(&corner));
        // The king a step from the corner holds it too; two steps away it does not.
        assert!(known_draw(&board("8/6kP/3K4/3B4/8/8/8/8 b - - 0 1")));
        assert!(!known_draw(&board("8/5k2/8/7P/3K4/3B4/8/8 b - - 0 1")));
        // The right bishop (dark for h8) wins.
        assert!(!known_draw(&board("7k/8/7K/8/8/4B2P/8/8 b - - 0 1")));
        // Not a rook's pawn, or a second piece, or a defender with a pawn: not this rule.
        assert!(!known_draw(&board("7k/8/6PK/8/6B1/8/8/8 b - - 0 1")));
        assert!(!known_draw(&board("7k/8/7K/8/6B1/7P/8/N7 b - - 0 1")));
        assert!(!known_draw(&board("7k/p7/7K/8/6B1/7P/8/8 b - - 0 1")));
        // Black's a-pawn with a light bishop queens on a1, dark: the wrong bishop.
        let black = board("8/8/4b3/8/8/8/p7/K2k4 w - - 0 1");
        assert!(rook_pawns_held(&black, Color::Black));
        assert!(!rook_pawns_held(&black, Color::White));
        // Doubled rook's pawns change nothing, and neither does having no bishop at all.
        assert!(known_draw(&board("7k/8/6K1/7P/8/8/8/8 b - - 0 76")));
        assert!(!known_draw(&board("5k2/8/6K1/7P/8/8/8/8 b - - 0 1")));
        assert!(known_draw(&board("k7/8/P7/P7/8/2K5/8/2B5 w - - 0 1")));
    }
}
