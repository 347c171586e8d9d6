//! Every position of the perft suites in `perft/`, counted to the deepest listed depth
//! whose count stays within a node budget. The full depth-6 run is
//! `searchlight perft --suite perft/perftsuite.epd --depth 6`.

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use searchlight::board::perft::{parse_suite, perft};

const BUDGET: u64 = 3_000_000;

/// Checks a suite; returns the number of distinct positions.
fn check_suite(path: &str) -> usize {
    let text = std::fs::read_to_string(path).expect("suite readable");
    let cases = parse_suite(&text).expect("suite parses");
    assert!(!cases.is_empty(), "{path} is empty");
    for case in &cases {
        let (depth, expected) = case
            .counts
            .iter()
            .copied()
            .filter(|&(_, n)| n <= BUDGET)
            .max_by_key(|&(d, _)| d)
            .expect("a shallow count");
        assert_eq!(
            perft(case.position.chess(), depth),
            expected,
            "{path}:{}: {} at depth {depth}",
            case.line,
            case.position.fen()
        );
    }
    let mut fens: Vec<String> = cases.iter().map(|c| c.position.fen()).collect();
    fens.sort_unstable();
    fens.dedup();
    fens.len()
}

#[test]
fn perftsuite_126_positions() {
    // 127 lines: one position is listed twice.
    assert_eq!(check_suite("perft/perftsuite.epd"), 126);
}

#[test]
fn standard_positions() {
    assert_eq!(check_suite("perft/standard.epd"), 6);
}

#[test]
fn chess960_positions() {
    assert!(check_suite("perft/chess960.epd") >= 5);
}
