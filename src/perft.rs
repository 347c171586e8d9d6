//! Perft: counting the leaf nodes of the legal move tree, the standard correctness test of
//! move generation. Counts in bulk at depth 1 (the length of the legal move list), as
//! Stockfish's `go perft` does, so the two can be compared directly.

use std::sync::atomic::{AtomicUsize, Ordering};

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Move, Position as _};

use crate::board::{Position, PositionError};

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
    let count = |m: Move| {
        let mut child = pos.clone();
        child.play_unchecked(m);
        (m, perft(&child, depth.saturating_sub(1)))
    };
    if threads <= 1 || moves.len() < 2 {
        return moves.iter().map(|&m| count(m)).collect();
    }
    let next = AtomicUsize::new(0);
    let worker = || {
        let mut mine = Vec::new();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(&m) = moves.get(i) else { break };
            mine.push((i, count(m)));
        }
        mine
    };
    let mut results: Vec<(usize, (Move, u64))> = crossbeam::scope(|s| {
        let handles: Vec<_> = (0..threads).map(|_| s.spawn(|_| worker())).collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
    .unwrap_or_else(|e| std::panic::resume_unwind(e));
    results.sort_by_key(|&(i, _)| i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// One line of a perft suite: a position and its known leaf counts by depth.
#[derive(Debug, Clone)]
pub struct PerftCase {
    pub fen: String,
    pub position: Position,
    /// `(depth, count)` pairs in the order the line gives them.
    pub counts: Vec<(u32, u64)>,
}

/// Parses an EPD perft line: `FEN ;D1 20 ;D2 400 ...`. The castling mode is detected
/// from the castling rights, so Chess960 positions need no marker.
pub fn parse_suite_line(line: &str) -> Result<PerftCase, PositionError> {
    let mut fields = line.split(';');
    let fen = fields.next().unwrap_or("").trim().to_string();
    let invalid = |reason: String| PositionError::InvalidFen {
        fen: fen.clone(),
        reason,
    };
    let setup = fen
        .parse::<Fen>()
        .map_err(|e| invalid(e.to_string()))?
        .into_setup();
    let mode = CastlingMode::detect(&setup);
    let position = Position::from_fen(&fen, mode)?;
    let mut counts = Vec::new();
    for field in fields {
        let field = field.trim();
        if field.is_empty() {
            continue;
        }
        let (depth, count) = field
            .strip_prefix('D')
            .and_then(|rest| rest.split_once(char::is_whitespace))
            .ok_or_else(|| invalid(format!("bad perft field '{field}'")))?;
        let depth: u32 = depth
            .parse()
            .map_err(|_| invalid(format!("bad depth in '{field}'")))?;
        let count: u64 = count
            .trim()
            .parse()
            .map_err(|_| invalid(format!("bad count in '{field}'")))?;
        counts.push((depth, count));
    }
    Ok(PerftCase {
        fen,
        position,
        counts,
    })
}

/// Parses a whole suite, skipping blank lines and `#` comments; errors carry the line number.
pub fn parse_suite(text: &str) -> Result<Vec<PerftCase>, (usize, PositionError)> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .map(|(i, l)| parse_suite_line(l).map_err(|e| (i + 1, e)))
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
        let case = parse_suite_line("4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 66").unwrap();
        assert_eq!(case.counts, vec![(1, 15), (2, 66)]);
        assert!(parse_suite_line("4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;X1 15").is_err());
    }
}
