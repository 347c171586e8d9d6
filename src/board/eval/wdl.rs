//! Win/draw/loss from a score: what `UCI_ShowWDL` reports. The model is the one Stockfish
//! popularised, fitted to this project's own games: the chance that the side to move wins
//! is `σ((s − a)/b)`, that it loses `σ((−s − a)/b)`, a draw the rest, where `s` is the
//! evaluator's score in centipawns and `a` (the score at which a win is as likely as not)
//! and `b` (how fast the odds turn) move linearly with the game phase — a pawn up in a
//! king-and-pawn ending is not a pawn up with queens on the board.
//!
//! Each evaluator has its own model, since each has its own scale; `searchlight tune
//! --wdl` fits one (README, "Win/draw/loss").

use shakmaty::Board;

use super::classical::{PHASE_MAX, phase};
use crate::value::{UciScore, Value};

/// `a` and `b` at phase 0 (bare kings and pawns) and at full phase (every piece on).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WdlModel {
    pub a: [f64; 2],
    pub b: [f64; 2],
}

impl WdlModel {
    /// Win, draw and loss in permille for the side to move, summing to 1000, at `value`
    /// (from the side to move) with the pieces of `board` on.
    pub fn wdl(&self, value: Value, board: &Board) -> [u32; 3] {
        let rho = f64::from(phase(board)) / f64::from(PHASE_MAX);
        match UciScore::from_value(value) {
            UciScore::Mate(n) if n > 0 => [1000, 0, 0],
            UciScore::Mate(_) => [0, 0, 1000],
            UciScore::Cp(cp) => self.permille(f64::from(cp), rho),
        }
    }

    /// `a` and `b` at phase fraction `rho` (1 = every piece on).
    pub fn at_phase(&self, rho: f64) -> (f64, f64) {
        let a = self.a[0] + (self.a[1] - self.a[0]) * rho;
        let b = (self.b[0] + (self.b[1] - self.b[0]) * rho).max(1.0);
        (a, b)
    }

    /// The three chances at score `s` and phase fraction `rho`.
    pub fn chances(&self, s: f64, rho: f64) -> [f64; 3] {
        let (a, b) = self.at_phase(rho);
        let win = sigmoid((s - a) / b);
        let loss = sigmoid((-s - a) / b);
        [win, (1.0 - win - loss).max(0.0), loss]
    }

    fn permille(&self, s: f64, rho: f64) -> [u32; 3] {
        let [w, _, l] = self.chances(s, rho);
        let win = (w * 1000.0).round().clamp(0.0, 1000.0) as u32;
        let loss = ((l * 1000.0).round() as u32).min(1000 - win);
        [win, 1000 - win - loss, loss]
    }
}

/// The logistic function, shared with the tuner and the WDL fit.
#[inline]
pub fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

#[cfg(test)]
mod tests {
    use crate::board::eval::{EVALUATORS, test_board as board};

    #[test]
    fn chances_sum_to_a_thousand_and_rise_with_the_score() {
        let start = board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        for info in EVALUATORS {
            let model = info.wdl;
            let mut last_win = 0;
            for cp in (-800..=800).step_by(50) {
                let [w, d, l] = model.wdl(cp, &start);
                assert_eq!(w + d + l, 1000);
                assert!(w >= last_win, "{}: win falls at {cp}", info.name);
                last_win = w;
            }
            let [w, d, l] = model.wdl(0, &start);
            assert_eq!(w, l, "{}: an equal score is symmetric", info.name);
            assert!(d > 0);
            assert_eq!(model.wdl(crate::value::mate_in(5), &start), [1000, 0, 0]);
        }
    }
}
