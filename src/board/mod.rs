//! Board layer: the position type over shakmaty, the game record with its draw rules,
//! and static evaluation.

pub mod eval;
pub mod exchange;
pub mod game;
pub mod position;

pub use eval::{Evaluator, Material, find_evaluator, piece_value};
pub use game::Game;
pub use position::{Position, PositionError};
