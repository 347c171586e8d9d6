//! Board layer: the position over shakmaty, the game record, the rules of the game's end,
//! static evaluation and exchanges, position files, and perft.

pub mod chess960;
pub mod epd;
pub mod eval;
pub mod exchange;
pub mod game;
pub mod perft;
pub mod pgn;
pub mod position;
pub mod rules;
pub mod tablebase;

pub use eval::{Evaluator, Material, find_evaluator, piece_value};
pub use game::Game;
pub use position::{Position, PositionError};
pub use rules::Terminal;
