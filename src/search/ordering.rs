//! Move ordering: the order alpha-beta tries moves in decides how much it prunes.
//! The table move first, then winning and equal captures by MVV-LVA, queen promotions,
//! the killer moves of the ply, quiet moves by history, and losing captures last.

use shakmaty::{Move, MoveList};

use super::score::MAX_PLY;
use super::tt::PackedMove;
use crate::board::exchange::{is_tactical, mvv_lva, see};
use crate::board::{Position, piece_value};

const TT_MOVE: i32 = 4_000_000;
const GOOD_TACTICAL: i32 = 2_000_000;
const KILLER: [i32; 2] = [1_500_000, 1_400_000];
const BAD_CAPTURE: i32 = -2_000_000;
/// History scores stay within this bound (the gravity formula keeps them there).
pub const HISTORY_MAX: i32 = 16_384;

/// Per-thread ordering memory: two killer moves per ply and a history table indexed by
/// side, from square and to square.
pub struct Heuristics {
    killers: [[Option<Move>; 2]; MAX_PLY + 1],
    history: Box<[[[i32; 64]; 64]; 2]>,
}

impl Default for Heuristics {
    fn default() -> Self {
        Heuristics {
            killers: [[None; 2]; MAX_PLY + 1],
            history: Box::new([[[0; 64]; 64]; 2]),
        }
    }
}

impl Heuristics {
    /// Forgets everything (new game).
    pub fn clear(&mut self) {
        *self = Heuristics::default();
    }

    /// Between searches killers are stale; history is kept but damped.
    pub fn age(&mut self) {
        self.killers = [[None; 2]; MAX_PLY + 1];
        for row in self.history.iter_mut().flatten() {
            for h in row.iter_mut() {
                *h /= 4;
            }
        }
    }

    #[inline]
    fn history_slot(&mut self, pos: &Position, m: Move) -> &mut i32 {
        let from = m.from().map_or(0, |s| s as usize);
        &mut self.history[pos.turn() as usize][from][m.to() as usize]
    }

    #[inline]
    pub fn history(&self, pos: &Position, m: Move) -> i32 {
        let from = m.from().map_or(0, |s| s as usize);
        self.history[pos.turn() as usize][from][m.to() as usize]
    }

    #[inline]
    pub fn is_killer(&self, ply: usize, m: Move) -> bool {
        self.killers[ply].contains(&Some(m))
    }

    /// A quiet move caused a cutoff: it becomes a killer and gains history; the quiet
    /// moves tried before it lose history.
    pub fn reward(&mut self, pos: &Position, ply: usize, depth: i32, best: Move, tried: &[Move]) {
        if self.killers[ply][0] != Some(best) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(best);
        }
        let bonus = (depth * depth).min(400) * 32;
        apply(self.history_slot(pos, best), bonus);
        for &m in tried {
            apply(self.history_slot(pos, m), -bonus);
        }
    }
}

/// History "gravity": updates shrink as the score nears its bound, so scores stay bounded
/// and recent results weigh more.
#[inline]
fn apply(slot: &mut i32, bonus: i32) {
    *slot += bonus - *slot * bonus.abs() / HISTORY_MAX;
}

/// Hands out the moves of a node best-first by selection: most nodes cut off after one or
/// two moves, so a full sort would be wasted.
pub struct MovePicker {
    moves: MoveList,
    scores: [i32; 256],
    next: usize,
}

impl MovePicker {
    /// Scores every move of a main-search node.
    pub fn new(
        pos: &Position,
        moves: MoveList,
        tt_move: PackedMove,
        heuristics: &Heuristics,
        ply: usize,
    ) -> Self {
        let mut scores = [0i32; 256];
        for (score, &m) in scores.iter_mut().zip(moves.iter()) {
            *score = if tt_move.matches(m) {
                TT_MOVE
            } else if is_tactical(m) {
                // A capture by a cheaper piece can't lose material; only price the others.
                let cheap = m.capture().map_or(0, piece_value) >= piece_value(m.role());
                if cheap || see(pos.chess(), m) >= 0 {
                    GOOD_TACTICAL + mvv_lva(m)
                } else {
                    BAD_CAPTURE + mvv_lva(m)
                }
            } else if heuristics.killers[ply][0] == Some(m) {
                KILLER[0]
            } else if heuristics.killers[ply][1] == Some(m) {
                KILLER[1]
            } else {
                heuristics.history(pos, m)
            };
        }
        MovePicker {
            moves,
            scores,
            next: 0,
        }
    }

    /// Orders only by MVV-LVA (quiescence search, where every move is tactical).
    pub fn tactical(moves: MoveList) -> Self {
        let mut scores = [0i32; 256];
        for (score, &m) in scores.iter_mut().zip(moves.iter()) {
            *score = mvv_lva(m);
        }
        MovePicker {
            moves,
            scores,
            next: 0,
        }
    }

    /// Number of moves in total.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// All moves, in generation order (until picking starts reordering them).
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }
}

impl Iterator for MovePicker {
    type Item = Move;

    fn next(&mut self) -> Option<Move> {
        let n = self.moves.len();
        if self.next >= n {
            return None;
        }
        let mut best = self.next;
        for i in self.next + 1..n {
            if self.scores[i] > self.scores[best] {
                best = i;
            }
        }
        self.moves.swap(self.next, best);
        self.scores.swap(self.next, best);
        self.next += 1;
        Some(self.moves[self.next - 1])
    }
}
