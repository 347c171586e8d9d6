use shakmaty::CastlingMode;

use super::*;
use crate::board::{Game, Position};
use crate::search::info::{Recorder, Silent};
use crate::search::testing::{options, quick, search, with_broken_helpers};
use crate::search::{HASH, Limits, THREADS};
use crate::value::{DRAW, mate_in};

fn game(fen: &str) -> Game {
    Game::new(Position::from_fen(fen, CastlingMode::Standard).unwrap())
}

/// A `pvs` configured with `hash` MB and `threads` threads, and the options it was given.
fn configured(hash: &str, threads: &str) -> (Pvs, Options) {
    let mut pvs = Pvs::default();
    let decls = [&THREADS.decl, &HASH.decl];
    let opts = options(&decls, &[("Hash", hash), ("Threads", threads)]);
    pvs.configure(&opts).unwrap();
    (pvs, opts)
}

#[test]
fn finds_the_quiet_queen_sacrifice_mate_and_stops_at_go_mate() {
    // WAC.001: 1.Qg6 mates in two.
    let g = game("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1");
    let mut pvs = Pvs::default();
    let limits = Limits {
        mate: Some(2),
        ..Limits::default()
    };
    let r = quick(&mut pvs, &g, &limits);
    assert_eq!(r.value, mate_in(3));
    assert_eq!(g.position().to_uci(r.best.unwrap()).to_string(), "g3g6");
    assert!(r.ponder.is_some());
}

#[test]
fn repeating_a_position_for_the_third_time_is_a_draw() {
    // Black, a queen down, can return its knight to h7 for the third time.
    let start = Position::from_fen("1k6/7n/8/8/8/8/8/3Q2K1 w - - 0 1", CastlingMode::Standard);
    let moves = ["d1d2", "h7g5", "d2d1", "g5h7", "d1d2", "h7g5", "d2d1"];
    let g = Game::from_uci_moves(start.unwrap(), &moves).unwrap();
    let mut pvs = Pvs::default();
    let r = quick(&mut pvs, &g, &Limits::depth(6));
    // A repetition scores a draw give or take a centipawn (see `ends_early`).
    assert!((r.value - DRAW).abs() <= 1, "{}", r.value);
    assert_eq!(g.position().to_uci(r.best.unwrap()).to_string(), "g5h7");
}

#[test]
fn configure_sizes_the_table_makes_each_threads_memory_and_refuses_what_cannot_be_had() {
    let mut pvs = Pvs::default();
    let decls = [&THREADS.decl, &HASH.decl];
    pvs.configure(&options(&decls, &[("Hash", "2"), ("Threads", "3")]))
        .unwrap();
    assert_eq!(pvs.tt.size_mb(), 2);
    // Each thread's ordering memory is made here, before a search needs it.
    assert_eq!(pvs.heuristics.len(), 3);
    let huge = options(&decls, &[("Hash", "65536")]);
    if pvs.configure(&huge).is_err() {
        assert_eq!(pvs.tt.size_mb(), 2, "a refused size leaves the table alone");
    }
}

#[test]
fn reports_every_iteration_and_forgets_the_table_on_new_game() {
    let g = game("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    let (mut pvs, opts) = configured("1", "2");
    let sink = Recorder::default();
    let r = search(&mut pvs, &g, &Limits::depth(6), &opts, &sink);
    assert_eq!(r.depth, 6);
    let infos = sink.infos.lock().unwrap();
    let exact: Vec<u32> = infos
        .iter()
        .filter(|i| i.bound == crate::value::Bound::Exact)
        .map(|i| i.depth)
        .collect();
    assert_eq!(exact, (1..=6).collect::<Vec<_>>());
    assert!(pvs.tt.hashfull() > 0);
    pvs.new_game();
    assert_eq!(pvs.tt.hashfull(), 0);
}

#[test]
fn multipv_reports_distinct_root_moves_best_first_and_plays_line_one() {
    let g = game("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    let mut pvs = Pvs::default();
    let decls = [&THREADS.decl, &HASH.decl, &crate::search::MULTIPV.decl];
    let opts = options(&decls, &[("MultiPV", "3")]);
    let sink = Recorder::default();
    let r = search(&mut pvs, &g, &Limits::depth(5), &opts, &sink);
    let infos = sink.infos.lock().unwrap();
    let last: Vec<&crate::search::Info> = infos
        .iter()
        .filter(|i| i.depth == 5 && i.bound == crate::value::Bound::Exact)
        .collect();
    assert_eq!(
        last.iter().map(|i| i.multipv).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    let firsts: std::collections::HashSet<_> = last.iter().map(|i| &i.pv[0]).collect();
    assert_eq!(firsts.len(), 3, "three different root moves");
    assert!(last.windows(2).all(|w| w[0].score >= w[1].score));
    assert_eq!(g.position().to_uci(r.best.unwrap()), last[0].pv[0]);
    assert_eq!(r.value, last[0].score);
}

#[test]
fn multipv_beyond_the_legal_moves_reports_each_move_once() {
    // Two legal moves: the king's, out of the check.
    let g = game("7k/8/8/8/8/8/8/q6K w - - 0 1");
    let mut pvs = Pvs::default();
    let opts = options(&[&crate::search::MULTIPV.decl], &[("MultiPV", "5")]);
    let sink = Recorder::default();
    search(&mut pvs, &g, &Limits::depth(3), &opts, &sink);
    let infos = sink.infos.lock().unwrap();
    let at3: Vec<u32> = infos
        .iter()
        .filter(|i| i.depth == 3)
        .map(|i| i.multipv)
        .collect();
    assert_eq!(at3, [1, 2]);
}

#[test]
fn a_limited_strength_search_keeps_to_its_node_budget_and_plays_a_legal_move() {
    let g = Game::new(Position::startpos());
    let decls = [&THREADS.decl, &skill::LIMIT_STRENGTH.decl, &skill::ELO.decl];
    let opts = options(
        &decls,
        &[
            ("UCI_LimitStrength", "true"),
            ("UCI_Elo", "1400"),
            ("Threads", "4"),
        ],
    );
    let budget = Skill::at_elo(1400).nodes;
    let mut pvs = Pvs::default();
    let mut played = std::collections::HashSet::new();
    for _ in 0..12 {
        let r = search(
            &mut pvs,
            &g,
            &Limits::default(),
            &opts,
            &crate::search::info::Silent,
        );
        assert!(
            r.nodes <= budget + 1,
            "{} nodes for a budget of {budget}",
            r.nodes
        );
        let best = r.best.unwrap();
        assert!(g.position().legal_moves().contains(&best));
        played.insert(best);
    }
    assert!(
        played.len() > 1,
        "the level varies its choice among near-equal moves"
    );
}

#[test]
fn with_helpers_the_line_played_is_reported() {
    // Whether the main thread's iteration or a deeper helper's is played, the GUI must
    // have been shown its line: its first move and its value.
    let g = game("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    let (mut pvs, opts) = configured("4", "4");
    for ms in [30, 120, 250] {
        let sink = Recorder::default();
        let r = search(&mut pvs, &g, &Limits::movetime(ms), &opts, &sink);
        let infos = sink.infos.lock().unwrap();
        let best = g.position().to_uci(r.best.unwrap());
        assert!(
            infos
                .iter()
                .any(|i| i.pv.first() == Some(&best) && i.score == r.value),
            "{ms} ms: no line reported for {best} at {}",
            r.value
        );
    }
}

#[test]
fn a_panicking_helper_leaves_the_main_threads_result_standing() {
    let g = game("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1");
    let (mut pvs, opts) = configured("4", "3");
    let limits = Limits::depth(7);
    // Before helpers were contained, their panic reached the caller here.
    for _ in 0..2 {
        let (r, panicked) = with_broken_helpers(&mut pvs, &g, &limits, &opts);
        assert!(panicked > 0, "no helper ran");
        assert_eq!(r.depth, 7, "the main thread searched to the end");
        assert!(
            r.best
                .is_some_and(|m| g.position().legal_moves().contains(&m))
        );
    }
}

/// The histories are damped once between two searches, whether the engine did it after
/// the first one's `bestmove` (`between_searches`) or the second search has to: both ways
/// search the next position node for node alike.
#[test]
fn damping_the_histories_after_bestmove_changes_no_search() {
    let first = game("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4");
    let next = game("r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 5 4");
    let limits = Limits::depth(8);
    let second_search = |tidy: bool| {
        let (mut pvs, opts) = configured("4", "1");
        search(&mut pvs, &first, &limits, &opts, &Silent);
        if tidy {
            pvs.between_searches();
        }
        let r = search(&mut pvs, &next, &limits, &opts, &Silent);
        (r.best, r.value, r.nodes)
    };
    let straight = second_search(false);
    assert!(straight.2 > 1000);
    assert_eq!(second_search(true), straight);
}
