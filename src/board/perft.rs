//! Perft: counting the leaf nodes of the legal move tree, the standard correctness test of
//! move generation. Counts in bulk at depth 1 (the length of the legal move list), as
//! Stockfish's `go perft` does, so the two can be compared directly.

use shakmaty::{Chess, Move, Position as _};

use super::epd::{self, LineError, PositionLine};
use super::{Position, PositionError};

/// Leaf count of the legal move tree below `pos` to `depth` plies.
pub fn perft(pos: &Chess, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.legal_moves().len() as u64,
        _ => pos
            .legal_moves()
            .iter()
            .map(|&m| {
                let mut child = pos.clone();
                child.play_unchecked(m);
                perft(&child, depth - 1)
            })
            .sum(),
    }
}

/// Leaf counts per root move, in move-generation order.
pub fn divide(pos: &Chess, depth: u32) -> Vec<(Move, u64)> {
    divide_parallel(pos, depth, 1)
}

/// Like [`divide`], with the root moves shared out over `threads` workers.
pub fn divide_parallel(pos: &Chess, depth: u32, threads: usize) -> Vec<(Move, u64)> {
    let moves = pos.legal_moves();
    crate::pool::map(&moves, threads, |&m| {
        let mut child = pos.clone();
        child.play_unchecked(m);
        (m, perft(&child, depth.saturating_sub(1)))
    })
}

/// Leaf count below `pos` to `depth`, root moves shared out over `threads` workers.
pub fn count(pos: &Chess, depth: u32, threads: usize) -> u64 {
    if depth == 0 {
        return 1;
    }
    divide_parallel(pos, depth, threads)
        .iter()
        .map(|(_, n)| n)
        .sum()
}

/// One line of a perft suite: a position and its known leaf counts by depth.
#[derive(Debug, Clone)]
pub struct PerftCase {
    pub line: usize,
    pub position: Position,
    /// `(depth, count)` pairs in the order the line gives them.
    pub counts: Vec<(u32, u64)>,
}

impl PerftCase {
    /// The case of a position line whose operations are `D<depth> <count>`.
    pub fn from_line(line: &PositionLine) -> Result<Self, LineError> {
        let invalid = |reason: String| LineError {
            line: line.line,
            error: PositionError::InvalidFen {
                fen: line.position.fen(),
                reason,
            },
        };
        let mut counts = Vec::new();
        for op in &line.operations {
            let depth = op
                .code
                .strip_prefix('D')
                .and_then(|d| d.parse::<u32>().ok());
            let count = op.operands.trim().parse::<u64>().ok();
            match (depth, count) {
                (Some(d), Some(n)) => counts.push((d, n)),
                _ => {
                    return Err(invalid(format!(
                        "bad perft field '{} {}'",
                        op.code, op.operands
                    )));
                }
            }
        }
        Ok(PerftCase {
            line: line.line,
            position: line.position.clone(),
            counts,
        })
    }

    /// The deepest listed count at or below `max_depth`.
    pub fn deepest(&self, max_depth: u32) -> Option<(u32, u64)> {
        self.counts
            .iter()
            .copied()
            .filter(|&(d, _)| d <= max_depth)
            .max_by_key(|&(d, _)| d)
    }
}

/// Parses a whole suite; the first bad line is the error.
pub fn parse_suite(text: &str) -> Result<Vec<PerftCase>, LineError> {
    epd::read(text)
        .map(|line| PerftCase::from_line(&line?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startpos_shallow_counts() {
        let pos = Chess::default();
        assert_eq!(perft(&pos, 0), 1);
        assert_eq!(perft(&pos, 1), 20);
        assert_eq!(perft(&pos, 3), 8902);
        let split: u64 = divide_parallel(&pos, 3, 2).iter().map(|(_, n)| n).sum();
        assert_eq!(split, 8902);
    }

    #[test]
    fn suite_line_parses_depths_and_counts() {
        let cases = parse_suite("4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 66").unwrap();
        assert_eq!(cases[0].counts, vec![(1, 15), (2, 66)]);
        assert_eq!(cases[0].deepest(1), Some((1, 15)));
        assert!(parse_suite("4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;X1 15").is_err());
    }
}
