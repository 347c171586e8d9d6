//! Soft traps (Understanding Sampling-Based Adversarial Search Methods (2012) §3–4: "a less
//! extreme bad move" that loses significant material rather than the game). A move m of
//! the side to move is a soft trap of level k, for a margin CP, when
//!
//! - searched to k plies (m and k − 1 replies, exact alpha-beta with quiescence at the
//!   horizon, `Eval=material`), its value is at least CP below the best move's,
//! - searched to k − 2 plies it was still within CP of the best, and
//! - its own value fell by at least CP from k − 2 to k plies,
//!
//! so the loss becomes visible only at depth k. The third condition keeps out the moves
//! that only fall behind because a deeper search found a better one (a combination): they
//! lose nothing. k is odd (the opponent's move ends the
//! line), from 3 up to the maximum level, and the smallest such k is the level. Moves that
//! walk into a forced mate are hard traps and are not counted here.

use serde::Serialize;
use shakmaty::Move;
use shakmaty::san::SanPlus;

use crate::board::{Game, Material, Position};
use crate::search::research::alphabeta::AlphaBetaSearch;
use crate::tree::chess::ChessTree;
use crate::value::{INFINITY, UciScore, Value};

/// A move whose loss shows only at depth `level`.
#[derive(Debug, Clone, Serialize)]
pub struct SoftTrap {
    pub san: String,
    pub uci: String,
    pub level: u8,
    /// The move's value and the best move's, searched to `level` plies (centipawns or
    /// mate, for the side to move).
    pub value: String,
    pub best: String,
    /// The same two, searched to `level - 2` plies.
    pub value_before: String,
    pub best_before: String,
}

/// Every root move's exact value searched to `depth` plies (the move included).
fn values_at(game: &Game, moves: &[Move], depth: i32) -> Vec<Value> {
    let mut never = |_| false;
    moves
        .iter()
        .map(|&m| {
            let mut tree = ChessTree::new(game, &Material);
            tree.restrict_root(&[m]);
            let root = tree.root(depth);
            AlphaBetaSearch::new(&mut never).run(&mut tree, &root, -INFINITY, INFINITY)
        })
        .collect()
}

fn text(v: Value) -> String {
    match UciScore::from_value(v) {
        UciScore::Cp(cp) => format!("{:+.2}", f64::from(cp) / 100.0),
        UciScore::Mate(n) => format!("#{n}"),
    }
}

/// The soft traps of `pos` for margin `cp`, levels 3 to `max_level`, leaving out the moves
/// in `hard` (those that walk into a forced mate).
pub fn soft_traps(pos: &Position, cp: i32, max_level: u8, hard: &[Move]) -> Vec<SoftTrap> {
    let game = Game::new(pos.clone());
    let moves: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| !hard.contains(m))
        .collect();
    if moves.is_empty() {
        return Vec::new();
    }
    let best = |values: &[Value]| values.iter().copied().max().unwrap_or(-INFINITY);
    let mut found: Vec<SoftTrap> = Vec::new();
    let mut before = values_at(&game, &moves, 1);
    for level in (3..=max_level).step_by(2) {
        let now = values_at(&game, &moves, i32::from(level));
        let (best_now, best_before) = (best(&now), best(&before));
        for (i, &m) in moves.iter().enumerate() {
            let uci = pos.to_uci(m).to_string();
            let lost_now = i64::from(best_now) - i64::from(now[i]) >= i64::from(cp);
            let fine_before = i64::from(best_before) - i64::from(before[i]) < i64::from(cp);
            let fell = i64::from(before[i]) - i64::from(now[i]) >= i64::from(cp);
            if lost_now && fine_before && fell && !found.iter().any(|t| t.uci == uci) {
                found.push(SoftTrap {
                    san: SanPlus::from_move(pos.chess().clone(), m).to_string(),
                    uci,
                    level,
                    value: text(now[i]),
                    best: text(best_now),
                    value_before: text(before[i]),
                    best_before: text(best_before),
                });
            }
        }
        before = now;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::CastlingMode;

    fn pos(fen: &str) -> Position {
        Position::from_fen(fen, CastlingMode::Standard).unwrap()
    }

    #[test]
    fn a_queen_move_into_a_knight_fork_is_a_level_3_soft_trap() {
        // White is a queen for a knight up. Qc1 and Qe1 look as good as any move at one
        // ply, but ...Ne2+ or ...Nf3+ forks king and queen: the loss shows at three plies.
        let p = pos("6k1/5pp1/7p/8/3n4/6P1/5P1P/1Q4K1 w - - 0 1");
        let traps = soft_traps(&p, 200, 3, &[]);
        let mut found: Vec<&str> = traps.iter().map(|t| t.uci.as_str()).collect();
        found.sort_unstable();
        assert_eq!(found, ["b1c1", "b1e1"], "{traps:?}");
        assert!(traps.iter().all(|t| t.level == 3));
        // A margin larger than the loss finds nothing; so does a search that stops at 1.
        assert!(soft_traps(&p, 2000, 3, &[]).is_empty());
        assert!(soft_traps(&p, 200, 1, &[]).is_empty());
    }

    #[test]
    fn falling_behind_a_combination_found_deeper_is_no_soft_trap() {
        // The rook ladder: Ra7 and Rb8# is a mate in two, which a search sees at three
        // plies; every other move falls behind it there, yet none loses anything.
        let p = pos("7k/8/R7/1R6/8/8/8/6K1 w - - 0 1");
        let game = Game::new(p.clone());
        let moves: Vec<Move> = p.legal_moves().into_iter().collect();
        let at_3 = values_at(&game, &moves, 3);
        assert!(
            at_3.iter().any(|&v| v >= crate::value::MATE - 10),
            "no mate in two"
        );
        let traps = soft_traps(&p, 200, 3, &[]);
        assert!(traps.is_empty(), "{traps:?}");
    }

    #[test]
    fn a_loss_visible_at_once_is_no_soft_trap() {
        // Black's queen is attacked by a pawn: leaving it there loses it at one ply
        // already (quiescence sees the capture), so no move is a soft trap at level 3.
        let p = pos("4k3/8/8/8/3q4/4P3/8/4K3 b - - 0 1");
        let traps = soft_traps(&p, 200, 3, &[]);
        assert!(traps.is_empty(), "{traps:?}");
    }
}
