//! Quiescence search of `pvs`: only captures and promotions (all evasions in check), so
//! that the evaluator only ever sees quiet positions; delta and SEE pruning keep it small.

use super::ordering::MovePicker;
use super::params::DELTA_MARGIN;
use super::search::Worker;
use crate::board::exchange::{is_tactical, see};
use crate::board::{Position, piece_value, rules};
use crate::value::{DRAW, INFINITY, MAX_PLY, Value, mated_in};

impl Worker<'_> {
    /// Quiescence search: only captures and promotions (all moves when in check), so that
    /// the evaluator only ever sees quiet positions.
    pub(super) fn quiesce(
        &mut self,
        pos: &Position,
        mut alpha: Value,
        beta: Value,
        ply: usize,
    ) -> Value {
        if self.visit(ply) {
            return 0;
        }
        if let Some(t) = rules::draw_before_moves(pos.chess(), false) {
            return t.value(ply);
        }
        let in_check = pos.is_check();
        if ply >= MAX_PLY - 1 {
            return if in_check { DRAW } else { self.evaluate(pos) };
        }
        let mut best = -INFINITY;
        let mut stand_pat = -INFINITY;
        if !in_check {
            stand_pat = self.evaluate(pos);
            if stand_pat >= beta {
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
        }
        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            return if in_check { mated_in(ply) } else { best };
        }
        if !in_check {
            moves.retain(|m| is_tactical(*m));
        }
        let mut picker = MovePicker::tactical(moves);
        while let Some(m) = picker.next(pos, self.heuristics) {
            if !in_check {
                // Delta pruning: even winning the piece for free would not reach alpha.
                let gain = m.capture().map_or(0, piece_value)
                    + m.promotion().map_or(0, |p| piece_value(p) - 100);
                if stand_pat + gain + DELTA_MARGIN <= alpha {
                    continue;
                }
                if m.promotion().is_some_and(|p| p != shakmaty::Role::Queen) {
                    continue;
                }
                if see(pos.chess(), m) < 0 {
                    continue;
                }
            }
            let child = pos.play(m);
            let v = -self.quiesce(&child, -beta, -alpha, ply + 1);
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    if v >= beta {
                        break;
                    }
                    alpha = v;
                }
            }
        }
        best
    }
}
