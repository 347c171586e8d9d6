//! Static evaluation. An [`Evaluator`] scores a quiet position in centipawns from the
//! side to move's point of view; the `Eval` UCI option picks one from [`EVALUATORS`].

use std::sync::Arc;

use shakmaty::{Chess, Color, Position as _, Role};

pub mod classical;
pub mod draws;
pub mod features;
pub mod mates;
pub mod nnue;
pub mod wdl;
mod weights;

pub use classical::Classical;
pub use nnue::Nnue;
pub use wdl::WdlModel;

/// Scores a position in centipawns for the side to move.
pub trait Evaluator: Send + Sync {
    fn evaluate(&self, pos: &Chess) -> i32;

    /// The score taken apart, for people (the `eval` command). One term by default.
    fn breakdown(&self, pos: &Chess) -> Breakdown {
        let white = if pos.turn() == Color::White {
            self.evaluate(pos)
        } else {
            -self.evaluate(pos)
        };
        Breakdown {
            terms: vec![Term {
                name: "total",
                mg: white,
                eg: white,
            }],
            taper: None,
            white,
        }
    }
}

/// One part of an evaluation, middlegame and endgame, in centipawns from White's side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    pub name: &'static str,
    pub mg: i32,
    pub eg: i32,
}

/// An evaluation taken apart: the terms, how they were blended (the game phase out of
/// [`classical::PHASE_MAX`] and the endgame scale out of [`classical::SCALE_MAX`]) for a
/// tapered evaluator, and the result from White's side.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Breakdown {
    pub terms: Vec<Term>,
    pub taper: Option<(i32, i32)>,
    pub white: i32,
}

/// The board of a FEN written into a test (a bad one fails the test).
#[cfg(test)]
pub(crate) fn test_board(fen: &str) -> shakmaty::Board {
    crate::board::Position::from_fen(fen, shakmaty::CastlingMode::Standard)
        .unwrap()
        .chess()
        .board()
        .clone()
}

/// Piece values in centipawns, indexed by `Role as usize - 1` (pawn .. king).
pub const PIECE_VALUES: [i32; 6] = [100, 320, 330, 500, 900, 0];

/// The value of a piece of this role (the king counts nothing: it is never traded).
#[inline]
pub fn piece_value(role: Role) -> i32 {
    PIECE_VALUES[role as usize - 1]
}

/// Material balance only: the research baseline, and the evaluator the papers' chess
/// experiments assume.
#[derive(Debug, Default, Clone, Copy)]
pub struct Material;

impl Evaluator for Material {
    #[inline]
    fn evaluate(&self, pos: &Chess) -> i32 {
        let board = pos.board();
        let us = board.by_color(pos.turn());
        let them = board.by_color(!pos.turn());
        let mut score = 0;
        for role in [
            Role::Pawn,
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
        ] {
            let pieces = board.by_role(role);
            let diff = (pieces & us).count() as i32 - (pieces & them).count() as i32;
            score += diff * piece_value(role);
        }
        score
    }
}

/// The WDL models, as printed by `searchlight tune --wdl --eval NAME --data data.txt
/// --epochs 1500` on the 448,584 positions of 3,999 self-play games (README,
/// "Win/draw/loss"): log-loss 0.7305 -> 0.7304 for `classical` with the round-7 weights
/// (from the model of the round-5 weights; a new set of weights needs a new fit),
/// 1.197 -> 0.787 for `material`, from a = 150, b = 80 at both ends.
pub const CLASSICAL_WDL: WdlModel = WdlModel {
    a: [470.3, 216.8],
    b: [166.9, 206.6],
};
pub const MATERIAL_WDL: WdlModel = WdlModel {
    a: [529.5, 142.7],
    b: [248.1, 142.2],
};

/// A selectable evaluator: its UCI name, a one-line description and a constructor, given
/// the network the engine has loaded (`EvalFile`; only `nnue` uses it).
pub struct EvaluatorInfo {
    pub name: &'static str,
    pub description: &'static str,
    pub make: fn(&Arc<nnue::Network>) -> Arc<dyn Evaluator>,
    /// Win/draw/loss from its scores (`UCI_ShowWDL`), fitted by `tune --wdl`.
    pub wdl: WdlModel,
}

/// Every evaluator the `Eval` option offers, the default first.
pub const EVALUATORS: &[EvaluatorInfo] = &[
    EvaluatorInfo {
        name: "nnue",
        description: "classical plus a 768x128 network's correction, trained on the engine's own games (for play)",
        make: |net| Arc::new(Nnue(net.clone())),
        // The net corrects `classical` on its scale; a fit on the net's own training
        // positions (the only data at hand) would flatter it.
        wdl: CLASSICAL_WDL,
    },
    EvaluatorInfo {
        name: "classical",
        description: "tapered classical evaluation with Texel-tuned weights",
        make: |_| Arc::new(Classical),
        wdl: CLASSICAL_WDL,
    },
    EvaluatorInfo {
        name: "material",
        description: "material only: P=100 N=320 B=330 R=500 Q=900 (the research baseline)",
        make: |_| Arc::new(Material),
        wdl: MATERIAL_WDL,
    },
];

/// The evaluator for play: the `Eval` option's default and `bench`'s.
pub const DEFAULT_EVAL: &str = EVALUATORS[0].name;

/// The research baseline's name: the experiments that reproduce papers use it.
pub const RESEARCH_EVAL: &str = "material";

/// Looks an evaluator up by name (case-insensitive).
pub fn find_evaluator(name: &str) -> Option<&'static EvaluatorInfo> {
    EVALUATORS
        .iter()
        .find(|e| e.name.eq_ignore_ascii_case(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Position;
    use shakmaty::CastlingMode;

    #[test]
    fn material_is_from_the_side_to_move() {
        let white_up_a_rook = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
        let pos = Position::from_fen(white_up_a_rook, CastlingMode::Standard).unwrap();
        assert_eq!(Material.evaluate(pos.chess()), 500);
        let black_to_move = "4k3/8/8/8/8/8/8/R3K3 b - - 0 1";
        let pos = Position::from_fen(black_to_move, CastlingMode::Standard).unwrap();
        assert_eq!(Material.evaluate(pos.chess()), -500);
        assert_eq!(Material.evaluate(Position::startpos().chess()), 0);
    }
}
