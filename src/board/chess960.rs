//! The 960 start positions of Chess960, by their standard numbers (Scharnagl's scheme,
//! the one cutechess-cli, lichess and python-chess share: number 518 is the standard array).

use shakmaty::CastlingMode;

use super::{Position, PositionError};

/// How many start positions there are.
pub const COUNT: u16 = 960;

/// The white back rank of start position `n` (`0..960`), from a-file to h-file.
pub fn back_rank(n: u16) -> [char; 8] {
    let mut rank = [' '; 8];
    let mut n = usize::from(n % COUNT);
    // The bishops first, one on each colour, then the queen and the knights on the squares
    // left, and the king between the rooks on the last three.
    rank[2 * (n % 4) + 1] = 'B';
    n /= 4;
    rank[2 * (n % 4)] = 'B';
    n /= 4;
    place(&mut rank, n % 6, 'Q');
    n /= 6;
    const KNIGHTS: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (first, second) = KNIGHTS[n];
    // The second knight's index counts the empty squares before the first is placed.
    place(&mut rank, second, 'N');
    place(&mut rank, first, 'N');
    for piece in ['R', 'K', 'R'] {
        place(&mut rank, 0, piece);
    }
    rank
}

/// Puts `piece` on the `index`-th empty square.
fn place(rank: &mut [char; 8], index: usize, piece: char) {
    if let Some(square) = rank.iter_mut().filter(|c| **c == ' ').nth(index) {
        *square = piece;
    }
}

/// Start position `n` in Chess960 castling mode.
pub fn start_position(n: u16) -> Result<Position, PositionError> {
    let white: String = back_rank(n).iter().collect();
    let black = white.to_ascii_lowercase();
    let fen = format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1");
    Position::from_fen(&fen, CastlingMode::Chess960)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn numbers_match_the_standard_table() {
        let rank = |n| back_rank(n).iter().collect::<String>();
        assert_eq!(rank(518), "RNBQKBNR");
        assert_eq!(rank(0), "BBQNNRKR");
        assert_eq!(rank(12), "QBNNRKBR");
        assert_eq!(rank(959), "RKRNNQBB");
        // Two more read off python-chess 1.11 (`Board.from_chess960_pos`).
        assert_eq!(rank(100), "QBBNRNKR");
        assert_eq!(rank(777), "QRKBBNRN");
        let all: HashSet<String> = (0..COUNT).map(rank).collect();
        assert_eq!(all.len(), 960);
    }

    #[test]
    fn every_start_position_is_legal_with_all_four_castling_rights() {
        for n in 0..COUNT {
            let pos = start_position(n).unwrap();
            assert_eq!(pos.mode(), CastlingMode::Chess960);
            assert!(pos.legal_moves().len() >= 16, "{n}");
            assert!(pos.fen().contains(" w KQkq - 0 1"), "{}", pos.fen());
        }
    }
}
