//! The papers' claims about the research algorithms, checked on thousands of seeded
//! uniform random trees (branching 2-5, odd and even heights, wide values, tie-heavy small
//! ranges, {0,1}) against a brute-force minimax oracle.

// A failed expectation in a test helper should fail the test loudly.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use searchlight::experiments::solve::{Algorithm, solve};
use searchlight::search::research::bounds::MapBounds;
use searchlight::search::research::mt::{Driver, TestProcedure};
use searchlight::search::research::rollout::Policy;
use searchlight::tree::{GameTree, RandomTree, ValueRange};

/// One run: the value, the evaluated leaves in order, the storage left behind.
struct Run {
    value: i32,
    leaves: Vec<u64>,
    store: MapBounds,
}

fn run(algorithm: Algorithm, tree: &RandomTree) -> Run {
    let mut t = tree.clone().record_leaves();
    let mut store = MapBounds::default();
    let root = t.root();
    let value = solve(algorithm, &mut t, &root, &mut store);
    Run {
        value,
        leaves: t.leaves().sequence().unwrap_or_default().to_vec(),
        store,
    }
}

/// Every tree shape and value range the properties are checked on, `seeds` of each.
fn trees(seeds: u64) -> Vec<RandomTree> {
    let shapes = [
        (2, 1),
        (2, 2),
        (2, 3),
        (2, 4),
        (2, 5),
        (2, 6),
        (2, 7),
        (2, 8),
        (3, 3),
        (3, 4),
        (3, 5),
        (4, 3),
        (4, 4),
        (5, 3),
    ];
    let ranges = [
        ValueRange::Wide,
        ValueRange::Small(3),
        ValueRange::Small(10),
        ValueRange::Binary,
    ];
    let mut out = Vec::new();
    for (b, h) in shapes {
        for range in ranges {
            for seed in 0..seeds {
                out.push(RandomTree::new(
                    b,
                    h,
                    range,
                    seed * 7919 + u64::from(b * 100 + h),
                ));
            }
        }
    }
    out
}

fn describe(t: &RandomTree, seed_note: &str) -> String {
    format!("tree b={} h={} {seed_note}", t.branching(), t.height())
}

const ALL: &[Algorithm] = &[
    Algorithm::AlphaBeta,
    Algorithm::AlphaBeta2,
    Algorithm::Mt(Driver::Sss, TestProcedure::Double),
    Algorithm::Mt(Driver::Sss, TestProcedure::Classic),
    Algorithm::Mt(Driver::Dual, TestProcedure::Double),
    Algorithm::Mt(Driver::Dual, TestProcedure::Classic),
    Algorithm::Mt(Driver::F(0), TestProcedure::Double),
    Algorithm::Mt(Driver::F(5), TestProcedure::Classic),
    Algorithm::Mt(Driver::Step(3), TestProcedure::Double),
    Algorithm::Mt(Driver::Step(1000), TestProcedure::Classic),
    Algorithm::Rollout(Policy::Left, 0),
    Algorithm::Rollout(Policy::Sss, 0),
    Algorithm::Rollout(Policy::Random, 1),
    Algorithm::Rollout(Policy::Random, 2),
    Algorithm::Rollout(Policy::Uct, 0),
    Algorithm::Fsss { restart: false },
    Algorithm::Fsss { restart: true },
];

const SEEDS: u64 = 40;

/// Property 1: every algorithm returns the exact minimax value.
#[test]
fn every_algorithm_returns_the_minimax_value() {
    let mut checked = 0;
    for tree in trees(SEEDS) {
        let exact = tree.minimax(tree.root());
        for &alg in ALL {
            let r = run(alg, &tree);
            assert_eq!(r.value, exact, "{alg:?} on {}", describe(&tree, ""));
            checked += 1;
        }
    }
    assert!(checked > 30_000, "{checked} runs");
}

/// Property 2 (*Pruning Game Tree by Rollouts* (2015), Theorem 2): the leftmost rollout
/// policy evaluates the same leaves in the same order as alphabeta2 and leaves the same
/// storage.
#[test]
fn rollout_ab_is_alphabeta2_leaf_for_leaf_with_the_same_storage() {
    for tree in trees(SEEDS) {
        let ab2 = run(Algorithm::AlphaBeta2, &tree);
        let ro = run(Algorithm::Rollout(Policy::Left, 0), &tree);
        assert_eq!(ro.leaves, ab2.leaves, "{}", describe(&tree, "leaves"));
        assert_eq!(ro.store, ab2.store, "{}", describe(&tree, "storage"));
    }
}

/// Property 3 (*Pruning Game Tree by Rollouts* (2015), Theorem 3): the largest-upper-bound
/// policy is MT-SSS* on alphabeta2, leaf for leaf (and storage for storage).
#[test]
fn rollout_sss_is_mt_sss_on_alphabeta2_leaf_for_leaf() {
    for tree in trees(SEEDS) {
        let sss = run(Algorithm::Mt(Driver::Sss, TestProcedure::Double), &tree);
        let ro = run(Algorithm::Rollout(Policy::Sss, 0), &tree);
        assert_eq!(ro.leaves, sss.leaves, "{}", describe(&tree, "leaves"));
        assert_eq!(ro.store, sss.store, "{}", describe(&tree, "storage"));
    }
}

fn is_subsequence(short: &[u64], long: &[u64]) -> bool {
    let mut it = long.iter();
    short.iter().all(|x| it.any(|y| y == x))
}

fn is_subset(small: &[u64], big: &[u64]) -> bool {
    let big: std::collections::HashSet<_> = big.iter().collect();
    small.iter().all(|x| big.contains(x))
}

/// Property 4 (*Pruning Game Tree by Rollouts* (2015), Theorem 4): MT-SSS* on alphabeta2
/// evaluates a subsequence of the leaves MT-SSS* on the classic alpha-beta evaluates.
#[test]
fn mt_sss_on_alphabeta2_evaluates_a_subsequence_of_classic_mt_sss() {
    let mut strictly_fewer = 0;
    for tree in trees(SEEDS) {
        let double = run(Algorithm::Mt(Driver::Sss, TestProcedure::Double), &tree);
        let classic = run(Algorithm::Mt(Driver::Sss, TestProcedure::Classic), &tree);
        assert!(
            is_subsequence(&double.leaves, &classic.leaves),
            "{}: {:?} vs {:?}",
            describe(&tree, ""),
            double.leaves,
            classic.leaves
        );
        strictly_fewer += usize::from(double.leaves.len() < classic.leaves.len());
    }
    // Classic MT-SSS* re-evaluates leaves whose bounds it did not keep.
    assert!(strictly_fewer > 0);
}

/// Property 5 (*Pruning Game Tree by Rollouts* (2015), Theorem 1): the random and
/// UCT-guided policies never evaluate a leaf twice (and they terminated, or this test would
/// not finish).
#[test]
fn random_and_uct_policies_never_evaluate_a_leaf_twice() {
    for tree in trees(SEEDS) {
        for alg in [
            Algorithm::Rollout(Policy::Random, 11),
            Algorithm::Rollout(Policy::Random, 12),
            Algorithm::Rollout(Policy::Uct, 0),
        ] {
            let r = run(alg, &tree);
            let mut seen = std::collections::HashSet::new();
            assert!(
                r.leaves.iter().all(|l| seen.insert(*l)),
                "{alg:?} on {}",
                describe(&tree, "")
            );
            assert!(r.leaves.len() as u64 <= (tree.branching() as u64).pow(tree.height()));
        }
    }
}

/// Property 6 (*Rollout-based Game-tree Search Outprunes Traditional Alpha-beta* (2012),
/// Theorem 2; *Pruning Game Tree by Rollouts* (2015), Theorems 2-3: SSS* outprunes
/// alpha-beta): the leaves of MT-SSS*, FSSS and the leftmost and largest-upper-bound
/// rollout policies are subsets of plain alpha-beta's; the FSSS restart refinement leaves
/// FSSS's leaf sequence unchanged.
#[test]
fn best_first_leaf_sets_are_subsets_of_alphabeta_and_restart_changes_nothing() {
    for tree in trees(SEEDS) {
        let ab = run(Algorithm::AlphaBeta, &tree);
        for alg in [
            Algorithm::Mt(Driver::Sss, TestProcedure::Double),
            Algorithm::Mt(Driver::Sss, TestProcedure::Classic),
            Algorithm::Rollout(Policy::Left, 0),
            Algorithm::Rollout(Policy::Sss, 0),
            Algorithm::Fsss { restart: false },
        ] {
            let r = run(alg, &tree);
            assert!(
                is_subset(&r.leaves, &ab.leaves),
                "{alg:?} on {}",
                describe(&tree, "")
            );
        }
        let fsss = run(Algorithm::Fsss { restart: false }, &tree);
        let restart = run(Algorithm::Fsss { restart: true }, &tree);
        assert_eq!(
            fsss.leaves,
            restart.leaves,
            "{}",
            describe(&tree, "restart")
        );
    }
}

/// The random and UCT-guided policies are *not* bounded by alpha-beta: they may visit a
/// right sibling first and evaluate a leaf that left-to-right alpha-beta cuts off. Theorem 1
/// promises only exactness and no repeated leaf for them. This documents a counterexample.
#[test]
fn random_and_uct_policies_can_evaluate_leaves_alphabeta_prunes() {
    for alg in [
        Algorithm::Rollout(Policy::Random, 3),
        Algorithm::Rollout(Policy::Uct, 0),
    ] {
        let found = trees(5).iter().any(|tree| {
            let ab = run(Algorithm::AlphaBeta, tree);
            !is_subset(&run(alg, tree).leaves, &ab.leaves)
        });
        assert!(found, "{alg:?} never left alpha-beta's leaf set");
    }
}

/// Property 7: on chess positions at a fixed depth (the chess view: exact quiescence at
/// the horizon, the same child order for everyone) the algorithms agree on the root value.
#[test]
fn chess_backends_agree_on_the_root_value_at_fixed_depth() {
    use searchlight::board::epd::EpdRecord;
    use searchlight::board::{Game, Material};
    use searchlight::tree::ChessTree;

    let text = include_str!("data/wac.epd");
    let algorithms = [
        Algorithm::Mt(Driver::F(0), TestProcedure::Double),
        Algorithm::Mt(Driver::F(0), TestProcedure::Classic),
        Algorithm::Mt(Driver::Sss, TestProcedure::Double),
        Algorithm::Mt(Driver::Dual, TestProcedure::Double),
        Algorithm::Mt(Driver::Step(20), TestProcedure::Double),
        Algorithm::Rollout(Policy::Left, 0),
        Algorithm::Rollout(Policy::Sss, 0),
        Algorithm::Rollout(Policy::Random, 5),
        Algorithm::Rollout(Policy::Uct, 0),
        Algorithm::Fsss { restart: false },
        Algorithm::Fsss { restart: true },
    ];
    let mut positions = 0;
    for (i, line) in text.lines().enumerate().filter(|(i, _)| i % 10 == 0) {
        let record = EpdRecord::parse(line).expect("WAC parses");
        let game = Game::new(record.position.clone());
        let depth = if i % 20 == 0 { 3 } else { 2 };
        let reference = {
            let mut tree = ChessTree::new(&game, &Material);
            let root = tree.root(depth);
            solve(
                Algorithm::AlphaBeta,
                &mut tree,
                &root,
                &mut MapBounds::default(),
            )
        };
        for alg in algorithms {
            let mut tree = ChessTree::new(&game, &Material);
            let root = tree.root(depth);
            let v = solve(alg, &mut tree, &root, &mut MapBounds::default());
            assert_eq!(v, reference, "{alg:?} on WAC line {} depth {depth}", i + 1);
        }
        positions += 1;
    }
    assert_eq!(positions, 30);
}

/// A bound table far too small for the search overwrites entries; a lost bound only widens
/// what is known, so every algorithm still returns the exact value.
#[test]
fn a_full_bound_table_costs_work_not_exactness() {
    use searchlight::board::{Game, Material, Position};
    use searchlight::search::research::bounds::BoundTable;
    use searchlight::search::research::fsss::Fsss;
    use searchlight::search::research::mt::MtSearch;
    use searchlight::search::research::rollout::Rollouts;
    use searchlight::tree::ChessTree;

    let fen = "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4";
    let game = Game::new(Position::from_fen(fen, shakmaty::CastlingMode::Standard).unwrap());
    let exact = {
        let mut tree = ChessTree::new(&game, &Material);
        let root = tree.root(3);
        solve(
            Algorithm::AlphaBeta,
            &mut tree,
            &root,
            &mut MapBounds::default(),
        )
    };
    // Generous node cap: a livelock would fail the test instead of hanging it.
    let limit = |n: u64| n > 5_000_000;
    for (name, procedure_or_policy) in [
        ("mtdf", 0),
        ("sss-classic", 1),
        ("rollout-ab", 2),
        ("rollout-sss", 3),
        ("fsss", 4),
    ] {
        let mut table = BoundTable::with_slots(4096);
        let mut tree = ChessTree::new(&game, &Material);
        let root = tree.root(3);
        let mut poll = limit;
        let value = match procedure_or_policy {
            0 => MtSearch::new(&mut table, TestProcedure::Double, &mut poll)
                .solve(&mut tree, &root, Driver::F(0))
                .map(|o| o.value),
            1 => MtSearch::new(&mut table, TestProcedure::Classic, &mut poll)
                .solve(&mut tree, &root, Driver::Sss)
                .map(|o| o.value),
            2 => {
                Rollouts::new(&mut table, Policy::Left, 0, 1000, &mut poll).solve(&mut tree, &root)
            }
            3 => Rollouts::new(&mut table, Policy::Sss, 0, 1000, &mut poll).solve(&mut tree, &root),
            _ => Fsss::new(&mut table, false, &mut poll).solve(&mut tree, &root),
        };
        assert!(table.overwritten() > 0, "{name}: the table never filled");
        assert_eq!(value, Some(exact), "{name}");
    }
}

/// On chess, with `Hash` at its minimum, a deep enough search fills the bound table; the
/// backend says so once and still plays a legal move.
#[test]
fn a_full_table_is_reported_once() {
    use searchlight::board::{Game, Position};
    use searchlight::engine::Engine;
    use searchlight::search::Limits;
    use searchlight::search::info::Recorder;

    let game = Game::new(Position::startpos());
    for backend in ["rollout-ab", "sss"] {
        let mut engine = Engine::with_options(&[("Search", backend), ("Hash", "1")]).unwrap();
        let sink = Recorder::default();
        let result = engine.search(&game, &Limits::nodes(3_000_000), &sink);
        let messages = sink.messages.lock().unwrap();
        let full: Vec<_> = messages
            .iter()
            .filter(|m| m.contains("bound storage full"))
            .collect();
        assert_eq!(full.len(), 1, "{backend}: {messages:?}");
        let best = result.best.expect("a move");
        assert!(game.position().legal_moves().contains(&best));
    }
}
