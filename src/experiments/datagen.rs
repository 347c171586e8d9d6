//! Self-play training data for `searchlight tune`: games at a fixed number of nodes per
//! move from the opening set plus a few random plies, one line per quiet position.
//!
//! The format, one position per line:
//!
//! ```text
//! <FEN> | <score> | <result>
//! ```
//!
//! `score` is the search's value in centipawns from White's point of view, `result` the
//! game's result for White: `1`, `0.5` or `0`. A position is written when the side to move
//! is not in check, the search's move is quiet and its value is not a mate: the positions
//! static evaluation is meant for. Lines are written a whole game at a time, so an
//! interrupted run leaves a readable file.

use std::sync::atomic::{AtomicBool, Ordering};

use shakmaty::Color;

use crate::board::exchange::is_tactical;
use crate::board::{Game, Position, Terminal};
use crate::engine::{Engine, EngineError};
use crate::search::Limits;
use crate::search::info::Silent;
use crate::tree::rng::Rng;
use crate::value::{MATE_BOUND, Value};

/// What a run plays.
#[derive(Debug, Clone)]
pub struct DatagenSpec {
    pub games: usize,
    pub nodes: u64,
    pub random_plies: usize,
    pub threads: usize,
    pub seed: u64,
    pub eval: String,
}

/// Adjudication: a side ahead by this much for this many plies in a row has won...
const WIN_SCORE: Value = 1000;
const WIN_PLIES: usize = 6;
/// ...and a game this level for this long after this many plies is drawn.
const DRAW_SCORE: Value = 10;
const DRAW_PLIES: usize = 12;
const DRAW_AFTER: usize = 60;
/// A game this long is drawn.
const MAX_PLIES: usize = 400;
/// The first plies of a game are not written: the opening is not what is being learned.
const SKIP_PLIES: usize = 8;

/// One finished game: its lines, ready to write.
pub struct GameData {
    pub lines: String,
    pub positions: usize,
}

/// Plays one game; `None` when interrupted (nothing of it is kept) or the opening and its
/// random plies end the game before it starts.
pub fn play(
    engine: &mut Engine,
    openings: &[Position],
    spec: &DatagenSpec,
    index: usize,
    interrupt: &AtomicBool,
) -> Option<GameData> {
    let mut rng = Rng::new(spec.seed ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut pos = openings[rng.below(openings.len())].clone();
    for _ in 0..spec.random_plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return None;
        }
        pos = pos.play(moves[rng.below(moves.len())]);
    }
    let mut game = Game::new(pos);
    if game.end().is_some() {
        return None;
    }
    engine.new_game();
    let limits = Limits {
        nodes: Some(spec.nodes),
        ..Limits::default()
    };
    let mut kept: Vec<(String, Value)> = Vec::new();
    let (mut winning, mut level) = (0usize, 0usize);
    let result = loop {
        if interrupt.load(Ordering::Relaxed) {
            return None;
        }
        let pos = game.position().clone();
        if let Some(end) = game.end() {
            break match (end, pos.turn()) {
                (Terminal::Checkmate, Color::White) => "0",
                (Terminal::Checkmate, Color::Black) => "1",
                _ => "0.5",
            };
        }
        let ply = game.moves().len();
        if ply >= MAX_PLIES {
            break "0.5";
        }
        let found = engine.search(&game, &limits, &Silent);
        let best = found.best?;
        let white = if pos.turn().is_white() {
            found.value
        } else {
            -found.value
        };
        if ply >= SKIP_PLIES && !pos.is_check() && !is_tactical(best) && white.abs() < MATE_BOUND {
            kept.push((pos.fen(), white));
        }
        winning = if white.abs() >= WIN_SCORE {
            winning + 1
        } else {
            0
        };
        level = if white.abs() <= DRAW_SCORE && ply >= DRAW_AFTER {
            level + 1
        } else {
            0
        };
        if winning >= WIN_PLIES {
            break if white > 0 { "1" } else { "0" };
        }
        if level >= DRAW_PLIES {
            break "0.5";
        }
        game.push(best);
    };
    let mut lines = String::new();
    for (fen, score) in &kept {
        lines.push_str(&format!("{fen} | {score} | {result}\n"));
    }
    Some(GameData {
        lines,
        positions: kept.len(),
    })
}

/// A fresh engine for a data generation thread.
pub fn engine(spec: &DatagenSpec) -> Result<Engine, EngineError> {
    Engine::with_options(&[
        ("Search", "pvs"),
        ("Threads", "1"),
        ("Hash", "16"),
        ("Eval", &spec.eval),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_run_writes_quiet_positions_with_a_result() {
        let spec = DatagenSpec {
            games: 1,
            nodes: 300,
            random_plies: 2,
            threads: 1,
            seed: 1,
            eval: "material".into(),
        };
        let mut engine = engine(&spec).unwrap();
        let interrupt = AtomicBool::new(false);
        let data = play(&mut engine, &[Position::startpos()], &spec, 0, &interrupt).unwrap();
        assert!(data.positions > 0);
        for line in data.lines.lines() {
            let fields: Vec<&str> = line.split(" | ").collect();
            assert_eq!(fields.len(), 3, "{line}");
            assert!(Position::from_fen_auto(fields[0]).is_ok(), "{line}");
            assert!(fields[1].parse::<i32>().is_ok(), "{line}");
            assert!(["1", "0.5", "0"].contains(&fields[2]), "{line}");
        }
        interrupt.store(true, Ordering::Relaxed);
        assert!(play(&mut engine, &[Position::startpos()], &spec, 1, &interrupt).is_none());
    }
}
