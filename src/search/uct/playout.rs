//! Random playouts, plain UCT's leaf estimate (thesis §2.4, §3.1): from a new node, play
//! uniformly random legal moves until the game ends or `PlayoutCap` plies have been
//! played; a win counts +1, a loss -1, and a draw — including a capped playout — 0.
//! Also the small seeded generator the UCT family draws its randomness from, so that a
//! single-threaded search is reproducible.

use shakmaty::Position as _;

use crate::board::Position;
use crate::tree::synthetic::splitmix;

/// A seeded xorshift64* generator: fast, and deterministic across runs and platforms.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(splitmix(seed) | 1)
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`), by the multiply-shift reduction.
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64() >> 32) * n as u128) >> 32) as usize
    }
}

/// The outcome of a random playout from `pos`, for the side to move at `pos`.
pub fn chess_playout(pos: &Position, cap: u32, rng: &mut Rng) -> f32 {
    // shakmaty's position without our key: a playout needs no repetition check, and
    // skipping the Zobrist update saves a fifth of the time per ply.
    let mut chess = pos.chess().clone();
    let mut sign = 1.0;
    for _ in 0..cap {
        let moves = chess.legal_moves();
        if moves.is_empty() {
            // The side to move now is mated (or stalemated).
            return if chess.is_check() { -sign } else { 0.0 };
        }
        if chess.halfmoves() >= 100 || chess.is_insufficient_material() {
            return 0.0;
        }
        let m = moves[rng.below(moves.len())];
        chess.play_unchecked(m);
        sign = -sign;
    }
    0.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    #[test]
    fn below_is_in_range_and_covers_it() {
        let mut rng = Rng::new(1);
        let mut seen = [0u32; 5];
        for _ in 0..1000 {
            seen[rng.below(5)] += 1;
        }
        assert!(seen.iter().all(|&n| n > 150), "{seen:?}");
    }

    #[test]
    fn playout_scores_mate_for_the_right_side() {
        // White to move is already mated (fool's mate).
        let mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
        let pos = Position::from_fen(mated, CastlingMode::Standard).unwrap();
        assert_eq!(chess_playout(&pos, 10, &mut Rng::new(3)), -1.0);
        // A lone king each: drawn at once.
        let bare =
            Position::from_fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1", CastlingMode::Standard).unwrap();
        assert_eq!(chess_playout(&bare, 10, &mut Rng::new(3)), 0.0);
        // Capped at zero plies: a draw.
        assert_eq!(
            chess_playout(&Position::startpos(), 0, &mut Rng::new(3)),
            0.0
        );
    }
}
