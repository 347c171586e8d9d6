//! Quiescence search of `pvs`: only captures and promotions (all evasions in check), so
//! that the evaluator only ever sees quiet positions; delta and SEE pruning keep it small.
//! It shares the transposition table with the main search: its results are stored at
//! depth 0, and any stored bound that settles the window ends a quiescence node.
//! Right after a null move its first ply also tries the quiet checks: the side that
//! passed may be facing a mate that no capture shows (a rook's quiet check on the back
//! rank after a sacrifice), and without them the pass would wrongly refute the sacrifice.

use super::ordering::MovePicker;
use super::params::DELTA_MARGIN;
use super::search::{Worker, cuts};
use super::tt::{Entry, PackedMove};
use crate::board::exchange::{is_tactical, see_ge};
use crate::board::{Position, piece_value, rules};
use crate::value::{Bound, DRAW, INFINITY, MAX_PLY, Value, from_table, mated_in, to_table};

impl Worker<'_> {
    /// Quiescence search: only captures and promotions (all moves when in check), so that
    /// the evaluator only ever sees quiet positions; with `checks`, the quiet moves that
    /// give check too, at this ply only.
    pub(super) fn quiesce(
        &mut self,
        pos: &Position,
        mut alpha: Value,
        beta: Value,
        ply: usize,
        checks: bool,
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
        // The table: any stored bound settles a quiescence node (its depth is never less
        // than none), and a stored static evaluation saves computing one.
        let key = pos.key();
        let entry = self.tt.probe(key);
        if let Some(e) = entry {
            let v = from_table(e.value, ply);
            if cuts(e.bound, v, alpha, beta) {
                return v;
            }
        }
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        let mut stand_pat = -INFINITY;
        if !in_check {
            stand_pat = entry.map_or_else(|| self.evaluate(pos), |e| e.eval);
            if stand_pat >= beta {
                self.store_quiet(key, ply, stand_pat, stand_pat, None, Bound::Lower);
                return stand_pat;
            }
            alpha = alpha.max(stand_pat);
            best = stand_pat;
        }
        // Outside check and the quiet checks, only captures and promotions are generated:
        // a node without one is then not told apart from stalemate, which quiescence
        // scores by its stand-pat either way.
        let mut moves = if checks && !in_check {
            let mut all = pos.legal_moves();
            let cs = pos.check_squares();
            all.retain(|m| is_tactical(*m) || cs.gives_check(pos, *m));
            all
        } else {
            pos.tactical_moves()
        };
        if moves.is_empty() && in_check {
            return mated_in(ply);
        }
        let mut picker = MovePicker::tactical(&mut moves);
        while let Some(m) = picker.next(pos, self.heuristics) {
            if !in_check {
                // Delta pruning: even winning the piece for free would not reach alpha —
                // unless the capture checks, which may be worth more than the piece (a
                // queen taking a pawn beside the king may mate).
                let gain = m.capture().map_or(0, piece_value)
                    + m.promotion().map_or(0, |p| piece_value(p) - 100);
                if stand_pat + gain + DELTA_MARGIN <= alpha && !pos.gives_check(m) {
                    continue;
                }
                if m.promotion().is_some_and(|p| p != shakmaty::Role::Queen) {
                    continue;
                }
                if !see_ge(pos.chess(), m, 0) {
                    continue;
                }
            }
            self.tt.prefetch(pos.key_after(m));
            let child = pos.play(m);
            let v = -self.quiesce(&child, -beta, -alpha, ply + 1, false);
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                if v > alpha {
                    best_move = Some(m);
                    if v >= beta {
                        break;
                    }
                    alpha = v;
                }
            }
        }
        let eval = if in_check { 0 } else { stand_pat };
        let bound = Bound::of(best, original_alpha, beta);
        self.store_quiet(key, ply, best, eval, best_move, bound);
        best
    }

    /// Stores a quiescence result at depth 0, below every main-search entry.
    fn store_quiet(
        &self,
        key: u64,
        ply: usize,
        value: Value,
        eval: Value,
        mv: Option<shakmaty::Move>,
        bound: Bound,
    ) {
        self.tt.store(
            key,
            Entry {
                mv: mv.map_or(PackedMove::NONE, PackedMove::new),
                value: to_table(value, ply),
                eval,
                depth: 0,
                bound,
            },
        );
    }
}
