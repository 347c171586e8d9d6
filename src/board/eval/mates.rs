//! Endings against a bare king that are won with a plan the search cannot see at once:
//! drive the lone king to the edge (with a bishop and a knight, to a corner the bishop
//! covers) and bring the other king up to it. Material alone scores every square the
//! same, so a search that finds no mate shuffles until the fifty-move rule draws; a
//! bishop and a knight need up to 33 moves, far past any horizon at game speed. Like the
//! known draws ([`super::draws`]) this is a rule, not a fitted term: self-play adjudicates
//! these endings before they are played out, so no weight could learn it.

use shakmaty::{Bitboard, Board, Color, Square};

/// Centipawns for each step the lone king is pushed towards the edge or the corner.
const EDGE_STEP: i32 = 20;
/// Centipawns for each step the kings come closer.
const CLOSE_STEP: i32 = 10;

/// White's bonus in a pawnless ending where one side has a bare king and the other enough
/// to mate it by force; `None` in every other position.
pub fn drive(board: &Board) -> Option<i32> {
    // The common case leaves at once: both sides have more than a king.
    let strong = if board.black().count() == 1 {
        Color::White
    } else if board.white().count() == 1 {
        Color::Black
    } else {
        return None;
    };
    if !board.pawns().is_empty() {
        return None;
    }
    let ours = board.by_color(strong);
    let bishops = ours & board.bishops();
    let heavy = !(ours & (board.rooks() | board.queens())).is_empty();
    let dark = !(bishops & Bitboard::DARK_SQUARES).is_empty();
    let light = !(bishops & !Bitboard::DARK_SQUARES).is_empty();
    let knights = !(ours & board.knights()).is_empty();
    let lone = board.king_of(!strong)?;
    let king = board.king_of(strong)?;
    // A bishop and a knight mate only in a corner the bishop covers; anything else that
    // mates does it on any edge square.
    let edge = if heavy || (dark && light) {
        centre_distance(lone)
    } else if knights && (dark || light) {
        let (a, b) = if dark {
            (Square::A1, Square::H8)
        } else {
            (Square::A8, Square::H1)
        };
        let nearest = manhattan(lone, a).min(manhattan(lone, b));
        // Twice the weight: a step along the edge to the right corner counts one, and
        // the king may have to leave a wrong corner through the centre's side.
        2 * (7 - nearest.min(7))
    } else {
        return None;
    };
    let close = 7 - king.distance(lone) as i32;
    let bonus = EDGE_STEP * edge + CLOSE_STEP * close;
    Some(if strong == Color::White {
        bonus
    } else {
        -bonus
    })
}

/// Steps from the four centre squares, 0 to 6.
fn centre_distance(sq: Square) -> i32 {
    let (file, rank) = (i32::from(sq.file() as u8), i32::from(sq.rank() as u8));
    (3 - file).max(file - 4) + (3 - rank).max(rank - 4)
}

fn manhattan(a: Square, b: Square) -> i32 {
    (a.file().distance(b.file()) + a.rank().distance(b.rank())) as i32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::eval::test_board as board;

    #[test]
    fn the_lone_king_is_worth_more_at_the_edge_and_near_the_other_king() {
        let centre = drive(&board("8/8/8/4k3/8/8/8/R3K3 w - - 0 1")).unwrap();
        let edge = drive(&board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")).unwrap();
        let close = drive(&board("4k3/8/4K3/8/8/8/8/R7 w - - 0 1")).unwrap();
        assert!(centre < edge && edge < close, "{centre} {edge} {close}");
        // The same for Black, with the sign turned.
        let black = drive(&board("r3k3/8/8/8/8/8/8/4K3 w - - 0 1")).unwrap();
        assert_eq!(black, -edge);
    }

    #[test]
    fn a_bishop_and_a_knight_want_the_corner_the_bishop_covers() {
        // A dark-squared bishop (c1) mates on a1 or h8, not on a8 or h1.
        let right = drive(&board("8/8/8/8/8/2K5/8/k1BN4 w - - 0 1")).unwrap();
        let wrong = drive(&board("k7/8/2K5/8/8/8/8/2BN4 w - - 0 1")).unwrap();
        assert!(right > wrong, "{right} {wrong}");
        // A light-squared bishop (d1) the other way round.
        let right = drive(&board("k7/8/2K5/8/8/8/8/3BN3 w - - 0 1")).unwrap();
        let wrong = drive(&board("8/8/8/8/8/2K5/8/k2BN3 w - - 0 1")).unwrap();
        assert!(right > wrong, "{right} {wrong}");
    }

    #[test]
    fn no_plan_where_nothing_mates_or_play_goes_on() {
        for fen in [
            "4k3/8/8/8/8/8/8/2N1KN2 w - - 0 1",  // two knights cannot force it
            "4k3/8/8/8/8/4B3/8/2B1K3 w - - 0 1", // two bishops on dark squares
            "4k3/8/8/8/8/8/4P3/R3K3 w - - 0 1",  // pawns: the evaluation's own job
            "4k3/4p3/8/8/8/8/8/R3K3 w - - 0 1",  // the king is not alone
        ] {
            assert_eq!(drive(&board(fen)), None, "{fen}");
        }
        // Bishops on both colours do mate.
        assert!(drive(&board("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1")).is_some());
    }
}
