//! The bench: a fixed set of positions searched single-threaded to a fixed depth, each
//! from a new game, through the same engine core a GUI drives. The total node count is the
//! search's signature: it changes only when search behaviour changes.

use std::time::{Duration, Instant};

use crate::board::{Game, Position};
use crate::engine::{Engine, EngineError};
use crate::search::Limits;
use crate::search::info::Silent;

/// Default search depth of `bench`.
pub const DEFAULT_DEPTH: u32 = 16;

/// Opening, middlegame and endgame positions: the standard perft positions, positions from
/// Win At Chess and from the balanced opening set, and a few endgames.
pub const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "rnbqkb1r/pppp1ppp/8/4P3/6n1/7P/PPPNPPP1/R1BQKBNR b KQkq - 0 1",
    "2r5/2rk2pp/1pn1pb2/pN1p4/P2P4/1N2B3/nPR1KPPP/3R4 b - - 0 1",
    "3r2k1/p2q4/1p4p1/3rRp1p/5P1P/6PK/P3R3/3Q4 w - - 0 1",
    "6k1/5p2/p5np/4B3/3P4/1PP1q3/P3r1QP/6RK w - - 0 1",
    "2k4r/1pr1n3/p1p1q2p/5pp1/3P1P2/P1P1P3/1R2Q1PP/1RB3K1 w - - 0 1",
    "5rk1/p4ppp/2p1b3/3Nq3/4P1n1/1p1B2QP/1PPr2P1/1K2R2R w - - 0 1",
    "6k1/5p2/p3p3/1p3qp1/2p1Qn2/2P1R3/PP1r1PPP/4R1K1 b - - 0 1",
    "r3kb1r/1pp3p1/p3bp1p/5q2/3QN3/1P6/PBP3P1/3RR1K1 w kq - 0 1",
    "2k1r3/1p2Bq2/p2Qp3/Pb1p1p1P/2pP1P2/2P5/2P2KP1/1R6 w - - 0 1",
    "r2qkb1r/pppb2pp/2np1n2/5pN1/2BQP3/2N5/PPP2PPP/R1B1K2R w KQkq - 0 1",
    "rnbqk2r/ppp1ppbp/3p1np1/8/3PP3/2N1B3/PPP2PPP/R2QKBNR w KQkq - 0 1",
    "rnb1kb1r/pp1p1ppp/4pn2/q1p5/3P1B2/2N2N2/PPP1PPPP/R2QKB1R w KQkq - 0 1",
    "rnbq1rk1/pppp1ppp/3b1n2/4p3/2P5/2N2NP1/PP1PPP1P/R1BQKB1R w KQ - 0 1",
    "rnbqk1nr/ppp2ppp/4p3/8/1bpPP3/5N2/PP3PPP/RNBQKB1R w KQkq - 0 1",
    "r1bqkbnr/pp1ppp1p/6p1/1Bp5/3nP3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 0 1",
    "r1bqkb1r/pp2pppp/2np1n2/2p5/2B1P3/2N2N2/PPPP1PPP/R1BQK2R w KQkq - 0 1",
    "r1bqkbnr/pp1ppp1p/2n3p1/8/2Pp4/5NP1/PP2PP1P/RNBQKB1R w KQkq - 0 1",
    "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
    "8/5pk1/6p1/8/5P2/6P1/6K1/8 w - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "8/8/3k4/8/8/3K4/3Q4/8 w - - 0 1",
    "4r1k1/5ppp/8/8/8/8/5PPP/2R3K1 b - - 0 1",
    "8/3k4/8/2n5/8/3NK3/8/8 w - - 0 1",
    "8/8/1p6/p1p5/P1P2k2/1P6/5K2/8 w - - 0 1",
];

/// Totals of one bench run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BenchTotals {
    pub nodes: u64,
    /// Leaf evaluations, for the research backends (0 for `pvs`).
    pub leaves: u64,
    pub time: Duration,
}

/// Runs the bench positions; `report` is called per position with (index, fen, nodes, best).
pub fn bench(
    search: &str,
    eval: &str,
    depth: u32,
    hash_mb: u32,
    mut report: impl FnMut(usize, &str, u64, String),
) -> Result<BenchTotals, EngineError> {
    let hash = hash_mb.to_string();
    let mut engine = Engine::with_options(&[
        ("Threads", "1"),
        ("Hash", &hash),
        ("Search", search),
        ("Eval", eval),
    ])?;
    let mut totals = BenchTotals {
        nodes: 0,
        leaves: 0,
        time: Duration::ZERO,
    };
    for (i, fen) in POSITIONS.iter().enumerate() {
        // The positions are constants, checked by the test below.
        let Ok(pos) = Position::from_fen(fen, engine.castling_mode()) else {
            continue;
        };
        engine.new_game();
        let game = Game::new(pos);
        let start = Instant::now();
        let result = engine.search(&game, &Limits::depth(depth), &Silent);
        totals.time += start.elapsed();
        totals.nodes += result.nodes;
        totals.leaves += result.leaves;
        let best = result.best.map_or_else(
            || "(none)".to_string(),
            |m| game.position().to_uci(m).to_string(),
        );
        report(i, fen, result.nodes, best);
    }
    Ok(totals)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_position_is_legal_and_the_totals_add_up() {
        for fen in POSITIONS {
            let pos = Position::from_fen(fen, shakmaty::CastlingMode::Standard).unwrap();
            assert!(!pos.legal_moves().is_empty(), "{fen}");
        }
        let mut per_position = 0;
        let totals = bench("alphabeta", "material", 1, 1, |_, _, nodes, best| {
            per_position += nodes;
            assert_ne!(best, "(none)");
        })
        .unwrap();
        assert_eq!(totals.nodes, per_position);
        assert!(totals.leaves > 0);
        assert!(bench("nonsense", "material", 1, 1, |_, _, _, _| {}).is_err());
    }
}
