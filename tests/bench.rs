//! The bench signature: node counts at a fixed depth are a property of the search code
//! alone. A change of search behaviour changes them; update the constants (and say
//! `Bench: N` for `searchlight bench` in the commit message) when that is intended.

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use searchlight::experiments::bench::bench;

fn total_nodes(search: &str, eval: &str, depth: u32) -> u64 {
    bench(search, eval, depth, 16, |_, _, _, _| {})
        .expect("bench runs")
        .nodes
}

#[test]
fn pvs_signature_is_stable() {
    let first = total_nodes("pvs", "material", 7);
    assert_eq!(
        first,
        total_nodes("pvs", "material", 7),
        "bench is not deterministic"
    );
    assert_eq!(first, 95_408, "pvs search behaviour changed");
}

#[test]
fn alphabeta_signature_is_stable() {
    assert_eq!(
        total_nodes("alphabeta", "material", 3),
        4_024_170,
        "alphabeta search behaviour changed"
    );
}

/// The classical evaluator's weights take part in the signature: a re-tune changes it.
#[test]
fn classical_signature_is_stable() {
    assert_eq!(
        total_nodes("pvs", "classical", 6),
        77_471,
        "pvs or the classical weights changed"
    );
}

/// So does the built-in net (the default evaluator for play): a new net changes it.
#[test]
fn nnue_signature_is_stable() {
    assert_eq!(
        total_nodes("pvs", "nnue", 6),
        62_890,
        "pvs, the classical weights or the built-in net changed"
    );
}
